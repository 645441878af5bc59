#!lua name=windowpane
--[[
  windowpane function library, version 10 (layout format 3 for panes and weighted windows,
  format 1 for logs, exact windows, locks and replay and release markers; histogram layout
  format 2; top-keys sketch format 1). Version 9 adds wp_lease (the largest grant in [min, max]
  that fits every limit, recorded as an acquire of it) and wp_release (unspent permits of a
  grant given back, idempotent per release id); version 8 added wp_peek and the top-keys
  sketch (wp_topadd, wp_top). The layouts of version 7 are unchanged.

  The protocol (function names, KEYS, ARGV, replies, error strings) is documented in
  docs/redis-protocol.md; any Redis client can call these functions with FCALL and get the
  answers the Java engine gets. Loaded with FUNCTION LOAD on Redis 7+; on Redis 6 the engine
  runs this same text through EVALSHA (first line removed), with the function name as the first
  ARGV (see the dispatch at the end).

  Design note. Every operation is one call of one function: it reads the window's state, decides
  and writes in one atomic step, so there is no lock and no lost update. Time is the server's
  (TIME) unless the caller passes its own in ARGV[1]. Numbers are Lua doubles: integers are exact
  up to 2^53, so times must stay within +-2^52 ms and counts below 2^53. Numbers go to redis.call
  as Lua numbers: Redis writes integers below 10^17 in plain digits (%.17g on Redis 6, fpconv on
  7), never through Lua's own 14-digit tostring.

  Layouts, all keys of one logical key sharing the caller's hash tag:
    panes     (format 3, version 7) one hash: v (format), h (newest pane written), o (sum of
              the live panes older than h), e (the expiry last set, ms) and one field per
              live pane, named by its ring slot (pane mod P). Only writes move h; the write
              that moves it zeroes the slots of the panes that left. See "panes" below.
    weighted  (format 3) one hash: v, w (index of the newest fixed window written), a (its
              count), b (the previous window's count), e (logical expiry, (w + 2) W).
    Format 1 (versions 1 to 6) kept e (logical expiry) and c (sum of all live panes) in the
    panes hash and moved h on reads; a format 1 key is rewritten as format 3 by the first call
    that finds it (upgradePanes, upgradeWeighted), so no window restarts at the upgrade.
    log       a sorted set of accepted events (score = time, member = "seq:count", unique) and
              a meta hash: v, e, s (sequence), c (sum of the set's counts), o (oldest score).
              Entries leaving the window are removed by the next call.
    histogram (format 2) one hash: v, e, h (newest pane) and per stored pane, by ring slot S
              (pane mod P): S:n (count), S:s and S:e (compensated sum: high part and its
              error term), S:min, S:max, S:<bucket key> (count per occupied bucket) and S:k
              (the slot's bucket keys, comma-separated); and a window aggregate, a second
              hash (the caller's key + ":a"): per bucket key, its count summed over every
              pane stored in the first hash. A pane leaving the window has all its fields
              removed (HDEL, named from S:k) and its counts subtracted from the aggregate by
              the call that moves h past it. The first hash's v stands for both.
    lock      a hash: v, t (the holder's token), e (logical expiry, ms); and the lock's fencing
              counter, a string (the lock's key + ":f") that every acquisition increments and
              that never expires, so tokens keep rising across holders and expiry.
    exact     a sorted set of values (score = time, member = "seq:<value %.17g>", unique) and a
              meta hash: v, e, s (sequence), c (members held). Entries leaving the window are
              removed by the next record.
    sketch    (top keys, version 8, format 1) per window, not per key, under a hash tag of its
              own: a sorted set and a hash; see "top keys" below.
    marker    (replays, version 5) a hash: v, e (logical expiry, ms), named after the first
              window key + ":y:" + the replay id; its presence makes a repeated replay a no-op.
              Releases (version 9) keep the same hash under the first window key + ":g:" +
              the release id.
  Every key expires by itself: PEXPIRE to the window's logical expiry e, which lies within
  W + r of the last recorded event. Denied requests and reads never extend it. A key whose e has
  passed is treated as absent. Callers passing their own time may add a grace period to the
  physical TTL ("<ms>+<grace>"): answers follow e, memory is returned up to grace ms later.

  Cost. Each redis.call costs about 0.5-0.7 us on top of its command (Redis builds a client call
  and converts the reply), so the functions keep calls few: a window already at its current pane
  (the common case) is decided by one HMGET of four fields and one HINCRBY after TIME, without
  building window objects (the "hot path"); a window that moves on writes its head, older sum,
  zeroed slots and expiry in one HSET; PEXPIRE runs at most every other pane (panes), once per
  fixed window (weighted) or per millisecond (log). Version 7: the layout above (format 3), the
  arguments of a window spec and of a limit checked once per library load (a cache by their
  text), a denial that writes nothing and reads no pane when the older panes cannot free enough
  (a burst that filled the limit in the current pane), else all the panes it may need in one
  HMGET (up to 16), and a log write that sets only the meta fields that change.
  Version 6: wp_take answers an allowed decision with a bare integer (an array reply costs
  ~0.5 us), a single limit on the hot path builds no Lua table, and a denial reads the panes
  (the log's entries) oldest first in small pieces, since a denied stream usually needs only
  the oldest one or two to compute the exact retry-after (each HMGET field costs ~0.25 us).
  Statistics follow the same rule: a histogram record at the current pane is one HMGET (head,
  the pane's scalars, its bucket list and the buckets the values fall in) and one HSET, for a
  batch of any size up to a thousand distinct buckets (beyond, both go in chunks), plus the
  aggregate's update: one HINCRBY when the values fall in one bucket, else one HMGET and one
  HSET. A record that moves the head adds one HMGET of the leaving panes' bucket counts (and
  one of their bucket lists when more than one leaves), one HDEL of their fields, the
  aggregate's HMGET and HSET (and HDEL when a bucket empties) and the two PEXPIREs. A summary
  is one HMGET (head and every slot's five scalars) and one HGETALL of the aggregate: it costs
  O(P + occupied buckets in the window), not O(P x occupied buckets per pane); when stored
  panes have already left (the key was idle since) two HMGETs more. An exact record is HMGET,
  ZREMRANGEBYSCORE, ZADD and HSET; a summary HMGET and ZRANGEBYSCORE. Measured figures:
  docs/benchmarks.md.
]]

local VERSION = 10
local FORMAT = '1' -- log, exact windows, locks, replay and release markers
local PFORMAT = '3' -- panes and weighted (version 7; format 1 keys are rewritten on first use)
local HFORMAT = '2' -- histograms: format 1 (no window aggregate) never shipped
local TWO52 = 4503599627370496
local MAX_GRACE = 366 * 24 * 3600 * 1000

local function fail(code, message)
  error({err = code .. ' ' .. message})
end

local function fmt(x)
  return string.format('%d', x)
end

local function int(value, what, lo, hi)
  local x = tonumber(value)
  if x == nil or x % 1 ~= 0 or x < lo or x > hi then
    fail('WPARGS', what .. ' must be an integer in [' .. fmt(lo) .. ', ' .. fmt(hi) .. '], was '
      .. tostring(value))
  end
  return x
end

-- Validated arguments by their text (version 7): a window spec or a limit seen before is not
-- parsed and checked again (each tonumber of an argument cost ~0.15 us on the server). The
-- caches live as long as the library (FUNCTION LOAD; under EVAL, one call) and hold at most
-- MAX_CACHED entries in all; beyond, arguments are checked every time.
local MAX_CACHED = 4096
local nCached = 0
local WINDOWS, PANES, COUNTS, LIMITS = {}, {}, {}, {}

local function cached(cache, value, what, lo, hi)
  local x = cache[value]
  if x then
    return x
  end
  x = int(value, what, lo, hi)
  if nCached < MAX_CACHED then
    cache[value] = x
    nCached = nCached + 1
  end
  return x
end

-- Extra physical TTL for callers that pass their own time (set by every call's time argument):
-- their clock need not run with the server's, so keys outlive their logical expiry by it.
local grace = 0

-- ARGV[1]: "" (the server's TIME), "<ms>" or "<ms>+<grace ms>" (the caller's time)
local function now_ms(arg)
  grace = 0
  if arg ~= nil and arg ~= '' then
    local t, g = string.match(arg, '^(-?%d+)%+(%d+)$')
    if t then
      grace = int(g, 'grace', 0, MAX_GRACE)
      arg = t
    end
    return int(arg, 'time', -TWO52, TWO52)
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function pexpire(key, ttl)
  redis.call('PEXPIRE', key, ttl + grace)
end

-- floor(a / b) for b > 0, exact for |a| < 2^52
local function floordiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then
    q = q - 1
  elseif (q + 1) * b <= a then
    q = q + 1
  end
  return q
end

-- q, r with q * c + r = a * b and 0 <= r < c, for 0 <= a, b < 2^53, 0 < c < 2^52, q < 2^53
local function muldiv(a, b, c)
  local p = a * b
  local q, r
  if p < TWO52 then
    q = math.floor(p / c)
    r = p - q * c
  else
    local bq = math.floor(b / c)
    local br = b - bq * c
    if br < 0 then
      bq, br = bq - 1, br + c
    elseif br >= c then
      bq, br = bq + 1, br - c
    end
    local base = a * bq -- a * b = base * c + a * br
    q, r = 0, 0
    local bit = 1
    while bit * 2 <= a do
      bit = bit * 2
    end
    -- long division of a * br by c, one bit of a at a time: q * c + r = (bits so far) * br
    while bit >= 1 do
      q, r = q * 2, r * 2
      if r >= c then
        q, r = q + 1, r - c
      end
      if a >= bit then
        a = a - bit
        r = r + br
        if r >= c then
          q, r = q + 1, r - c
        end
      end
      bit = bit / 2
    end
    q = q + base
  end
  while r < 0 do
    q, r = q - 1, r + c
  end
  while r >= c do
    q, r = q + 1, r - c
  end
  return q, r
end

-- expected: the layout's format, FORMAT unless given
local function checkFormat(v, key, expected)
  expected = expected or FORMAT
  if v and v ~= expected then
    fail('WPFORMAT', key .. ' holds layout format ' .. tostring(v) .. ', this library reads '
      .. expected)
  end
end

-- ---- panes (format 3) ------------------------------------------------------------------
--
-- One hash: v = '3', h = the newest pane written (floor(t / r) of the last write), o = the sum
-- of the live panes older than h, e = the expiry last set by PEXPIRE (ms, without the caller's
-- grace), and one field per pane (h - P, h], named by its ring slot (pane mod P), holding its
-- count (absent or 0: none).
--
-- Invariants. Only a write moves h, and the write that moves h to a pane c leaves e >= (c + P) r,
-- the instant pane c leaves the window: so a call that finds h at its own pane has nothing to
-- expire and records with one HINCRBY of its slot (o does not change within a pane). The key is
-- live while floor(now / r) - h < P (its logical expiry, (h + P + 1) r, as in format 1). A write
-- that moves h past panes zeroes their slots in the same HSET, so a slot either holds its pane of
-- (h - P, h] or 0, and the hash never holds more than P + 4 fields. PEXPIRE sets (c + P + 1) r,
-- which also covers a write in pane c + 1: it runs at most every other pane.
--
-- A read or a denial writes nothing: a call finding h behind its pane works out the panes that
-- left and the new o from what it read, and leaves the hash as it was; a key whose panes have
-- all left is deleted by the next write, not by the read. (Panes.load writes only to rewrite a
-- format 1 key; Panes:record and nothing else writes format 3.)

local Panes = {}
Panes.__index = Panes

-- Format 1 (library version 6 and before: v e h c and the slots, e the logical expiry) rewritten
-- in place as format 3; returns the HMGET v h o <slot> reply of the key as it now is, or nil if
-- the key held nothing live any more (then it is deleted). The newest pane written is the one of
-- e ((h_w + P + 1) r); a format-1 read may have moved h past it, over panes that are all empty,
-- so format 3's h is h_w.
-- ro (version 8, wp_peek): work the format 3 fields out without writing anything.
local function upgradePanes(key, now, r, p, slot, ro)
  local f = redis.call('HMGET', key, 'e', 'c')
  local e, c = tonumber(f[1]), tonumber(f[2])
  local h = floordiv(e, r) - p - 1
  if e <= now or floordiv(now, r) - h >= p then
    if not ro then
      redis.call('DEL', key)
    end
    return nil
  end
  local hs = h - floordiv(h, p) * p
  local o = c - (tonumber(redis.call('HGET', key, hs)) or 0)
  if ro then
    return {PFORMAT, h, o, redis.call('HGET', key, slot)}
  end
  redis.call('HSET', key, 'v', PFORMAT, 'h', h, 'o', o)
  redis.call('HDEL', key, 'c')
  return redis.call('HMGET', key, 'v', 'h', 'o', slot)
end

-- f: the reply of HMGET key v h o <cur's slot>, if the caller already has it; ro: write nothing,
-- not even the rewrite of a format 1 key (wp_peek)
function Panes.load(key, now, w, p, f, ro)
  local r = w / p
  local cur = floordiv(now, r)
  local slot = cur - floordiv(cur, p) * p
  f = f or redis.call('HMGET', key, 'v', 'h', 'o', slot)
  local s = setmetatable({key = key, now = now, r = r, p = p, cur = cur, h = false, o = 0,
    current = 0, e = false, move = true, zero = false}, Panes)
  if f[1] == '1' then
    f = upgradePanes(key, now, r, p, slot, ro)
    if not f then
      return s
    end
  end
  if not f[1] then
    return s
  end
  checkFormat(f[1], key, PFORMAT)
  local h, o = tonumber(f[2]), tonumber(f[3])
  if cur - h >= p then -- every pane has left: the same as absent (deleted by a write)
    s.dead = true
    return s
  end
  s.h = h
  if cur == h then
    s.o, s.current, s.move = o, tonumber(f[4]) or 0, false
  elseif cur < h then
    -- the caller's clock lags behind the newest pane: act at the newest pane (stricter)
    s.cur, s.o, s.move = h, o, false
    s.current = tonumber(redis.call('HGET', key, h - floordiv(h, p) * p)) or 0
  else
    -- panes (h - p, cur - p] leave now, and h becomes an older pane. The newest leaving one,
    -- cur - p, sits in cur's slot (read above: the write puts cur's count there); the slots of
    -- the others are read, and zeroed by the write.
    local fields, zero = {h - floordiv(h, p) * p, 'e'}, {}
    for q = h - p + 1, cur - p - 1 do
      local z = q - floordiv(q, p) * p
      fields[#fields + 1] = z
      zero[#zero + 1] = z
    end
    local values = redis.call('HMGET', key, unpack(fields))
    o = o + (tonumber(values[1]) or 0) - (tonumber(f[4]) or 0)
    for i = 3, #values do
      o = o - (tonumber(values[i]) or 0)
    end
    s.o, s.e, s.zero = o, tonumber(values[2]) or false, zero
  end
  return s
end

function Panes:count()
  return self.o + self.current
end

function Panes:countWith(n)
  return self.o + self.current + n
end

function Panes:record(n)
  local cur, p, r = self.cur, self.p, self.r
  local slot = cur - floordiv(cur, p) * p
  self.current = self.current + n
  if not self.move then
    redis.call('HINCRBY', self.key, slot, n)
    return self.o + self.current
  end
  if self.dead then
    redis.call('DEL', self.key)
    self.dead = false
  end
  local args = {slot, self.current, 'h', cur, 'o', self.o}
  if not self.h then
    args[7], args[8] = 'v', PFORMAT
  end
  local zero = self.zero
  for i = 1, zero and #zero or 0 do
    args[#args + 1] = zero[i]
    args[#args + 1] = 0
  end
  local expire = not self.e or self.e < (cur + p) * r
  if expire then
    self.e = (cur + p + 1) * r
    args[#args + 1] = 'e'
    args[#args + 1] = self.e
  end
  redis.call('HSET', self.key, unpack(args))
  if expire then
    pexpire(self.key, self.e - self.now)
  end
  self.h, self.move, self.zero = cur, false, false
  return self.o + self.current
end

-- nothing to write: a call that records nothing leaves the hash as it was
function Panes:flush()
end

-- Panes read for a denial's retry-after in one HMGET up to this many; beyond, the oldest few
-- first (a stream denied at a steady rate needs only the oldest one or two).
local RETRY_READ = 16

-- smallest d >= 0 after which count + n <= limit (the oldest panes leave first)
function Panes:retryAfter(n, limit)
  local need = self.o + self.current + n - limit
  if need <= 0 then
    return 0
  end
  local cur, p, r = self.cur, self.p, self.r
  local untilPane = cur * r - self.now -- <= 0 unless the caller lags
  if need > self.o then
    return untilPane + p * r -- the older panes do not hold enough: pane cur must leave too
  end
  -- Panes k = 1..p - 1, oldest first (pane cur - p + k, leaving at (cur + k) r). Only panes up
  -- to h are stored; a slot of a pane in (h, cur) holds a pane that has left.
  local last = math.min(p - 1, self.h - cur + p)
  local dropped, k = 0, 1
  local size = last <= RETRY_READ and last or 4
  while k <= last do
    local upto = math.min(last, k + size - 1)
    local fields = {}
    for q = cur - p + k, cur - p + upto do
      fields[#fields + 1] = q - floordiv(q, p) * p
    end
    local values = redis.call('HMGET', self.key, unpack(fields))
    for m = k, upto do
      dropped = dropped + (tonumber(values[m - k + 1]) or 0)
      if dropped >= need then
        return untilPane + m * r
      end
    end
    k, size = upto + 1, p
  end
  return untilPane + p * r -- not reached while o is the sum of those panes
end

-- ---- weighted (format 3) ---------------------------------------------------------------
--
-- One hash: v = '3', w = the index of the newest fixed window written (floor(t / W)), a = its
-- count, b = the count of window w - 1, e = its logical expiry (w + 2) W (written for readers;
-- the functions derive it from w). Only a write moves w, and the write that moves it sets the
-- expiry: a call that finds w at its own window records with one HINCRBY of a. Count at t in
-- window k = w: a + ceil(b * (W - elapsed) / W); in window w + 1: the same with a = 0, b = a.

local Weighted = {}
Weighted.__index = Weighted

-- Format 1 rewritten in place as format 3 (see upgradePanes); f: HMGET v w a b. Format 1 let a
-- replay move w to a window holding nothing yet (e = (w + 1) W): format 3's w is then w - 1.
local function upgradeWeighted(key, now, w, f, ro)
  local e = tonumber(redis.call('HGET', key, 'e'))
  if e <= now then
    if not ro then
      redis.call('DEL', key)
    end
    return {false}
  end
  local k0, a, b = tonumber(f[2]), f[3], f[4]
  if e < (k0 + 2) * w then
    k0, a, b = k0 - 1, b, 0
  end
  if ro then
    return {PFORMAT, k0, a, b}
  end
  redis.call('HSET', key, 'v', PFORMAT, 'w', k0, 'a', a, 'b', b)
  return {PFORMAT, k0, a, b}
end

-- f: the reply of HMGET key v w a b, if the caller already has it; ro: write nothing
function Weighted.load(key, now, w, f, ro)
  local k = floordiv(now, w)
  f = f or redis.call('HMGET', key, 'v', 'w', 'a', 'b')
  if f[1] == '1' then
    f = upgradeWeighted(key, now, w, f, ro)
  end
  local s = setmetatable({key = key, now = now, w = w, k = k, a = 0, b = 0, move = true,
    fresh = true}, Weighted)
  if not f[1] then
    return s
  end
  checkFormat(f[1], key, PFORMAT)
  local k0, a, b = tonumber(f[2]), tonumber(f[3]), tonumber(f[4])
  if k - k0 >= 2 then -- both windows have left: the same as absent (deleted by a write)
    s.dead = true
    return s
  end
  s.fresh = false
  if k <= k0 then
    s.k, s.a, s.b, s.move = k0, a, b, false -- a lagging caller acts in the newest window
  else
    s.a, s.b = 0, a
  end
  return s
end

function Weighted:elapsed()
  return math.max(0, self.now - self.k * self.w)
end

-- the previous window's part still inside the sliding window, rounded up
function Weighted:previousWeighted()
  if self.b == 0 then
    return 0
  end
  local q, rem = muldiv(self.b, self.w - self:elapsed(), self.w)
  return rem > 0 and q + 1 or q
end

function Weighted:count()
  return self.a + self:previousWeighted()
end

function Weighted:countWith(n)
  return self.a + n + self:previousWeighted()
end

function Weighted:record(n)
  self.a = self.a + n
  if not self.move then
    redis.call('HINCRBY', self.key, 'a', n)
  else
    local expiry = (self.k + 2) * self.w
    if self.dead then
      redis.call('DEL', self.key)
      self.dead = false
    end
    if self.fresh then
      redis.call('HSET', self.key, 'w', self.k, 'a', self.a, 'b', self.b, 'e', expiry, 'v',
        PFORMAT)
    else
      redis.call('HSET', self.key, 'w', self.k, 'a', self.a, 'b', self.b, 'e', expiry)
    end
    pexpire(self.key, expiry - self.now)
    self.move, self.fresh = false, false
  end
  return self:count()
end

function Weighted:flush()
end

function Weighted:retryAfter(n, limit)
  local w, current, previous = self.w, self.a, self.b
  local untilPane = self.k * w - self.now
  local elapsed = math.max(0, -untilPane)
  local room = limit - current - n
  if room >= 0 then
    -- this window: previous * (w - e) <= room * w  <=>  e >= w - floor(room * w / previous)
    local from = 0
    if previous > 0 then
      from = w - math.min(w, (muldiv(room, w, previous)))
    end
    if from <= elapsed then
      return 0
    end
    if from < w then
      return from - elapsed
    end
  end
  -- the next window: nothing current yet, the weighted count is this window's
  local fromNext = 0
  if current > 0 then
    fromNext = w - math.min(w, (muldiv(limit - n, w, current)))
  end
  if fromNext < w then
    return untilPane + w + fromNext
  end
  return untilPane + 2 * w
end

-- ---- log -------------------------------------------------------------------------------

local Log = {}
Log.__index = Log

local function entryCount(member)
  return tonumber(string.match(member, ':(%d+)$'))
end

local LEAVING = 7 -- the log's entries read at once beyond the ones that left (ZRANGE 0 LEAVING)

-- ro (version 8, wp_peek): write nothing; the entries that left stay in the set, and skip
-- counts them (retryAfter reads past them), gone marks an expired log.
function Log.load(key, meta, now, w, ro)
  local f = redis.call('HMGET', meta, 'v', 'e', 's', 'c', 'o')
  checkFormat(f[1], meta)
  local s = setmetatable({key = key, meta = meta, now = now, w = w, seq = 0, c = 0, e = false,
    o = false, fresh = false, dirty = false, skip = 0, gone = false}, Log)
  if not f[1] or tonumber(f[2]) <= now then
    if f[1] then
      if ro then
        s.gone = true
      else
        redis.call('DEL', key, meta)
      end
    end
    s.fresh, s.seq, s.c = true, 0, 0
    return s
  end
  s.e, s.seq, s.c = tonumber(f[2]), tonumber(f[3]), tonumber(f[4])
  s.o = tonumber(f[5]) or false
  local cutoff = now - w -- entries at or before it have left (t - w, t]
  if s.o and s.o <= cutoff then
    -- version 7: the oldest entries and the first one left after them in one read (a steady
    -- stream loses one or two per call); more than LEAVING have left: read them all
    local oldest = redis.call('ZRANGE', key, 0, LEAVING, 'WITHSCORES')
    s.o = false
    for i = 1, #oldest, 2 do
      local at = tonumber(oldest[i + 1])
      if at > cutoff then
        s.o = at
        break
      end
      s.c = s.c - entryCount(oldest[i])
      s.skip = s.skip + 1
    end
    if not s.o and #oldest > 2 * LEAVING then
      s.c = tonumber(f[4])
      local gone = redis.call('ZRANGEBYSCORE', key, '-inf', cutoff)
      for i = 1, #gone do
        s.c = s.c - entryCount(gone[i])
      end
      s.skip = #gone
      local first = redis.call('ZRANGEBYSCORE', key, '(' .. fmt(cutoff), '+inf', 'WITHSCORES',
        'LIMIT', 0, 1)
      s.o = tonumber(first[2]) or false
    end
    if ro then
      return s
    end
    s.skip = 0
    redis.call('ZREMRANGEBYSCORE', key, '-inf', cutoff)
    s.dirty = true -- c and o are written by record or flush
  end
  return s
end

function Log:count()
  return self.c
end

function Log:countWith(n)
  return self.c + n
end

-- at: the event's time, now unless a replay gives an earlier one still in the window
function Log:record(n, at)
  local now = self.now
  at = at or now
  self.seq = self.seq + 1
  self.c = self.c + n
  redis.call('ZADD', self.key, at, fmt(self.seq) .. ':' .. fmt(n))
  local expiry = math.max(self.e or at, at + self.w + 1)
  if self.fresh then -- version 7: only the fields that change
    self.o, self.fresh = at, false
    redis.call('HSET', self.meta, 's', self.seq, 'c', self.c, 'e', expiry, 'o', at, 'v', FORMAT)
  elseif self.dirty or not self.o or at < self.o then -- the oldest entry changed
    if not self.o or at < self.o then
      self.o = at
    end
    redis.call('HSET', self.meta, 's', self.seq, 'c', self.c, 'e', expiry, 'o', self.o)
  elseif self.e ~= expiry then
    redis.call('HSET', self.meta, 's', self.seq, 'c', self.c, 'e', expiry)
  else
    redis.call('HSET', self.meta, 's', self.seq, 'c', self.c)
  end
  self.dirty = false
  if self.e ~= expiry then
    pexpire(self.key, expiry - now)
    pexpire(self.meta, expiry - now)
    self.e = expiry
  end
  return self.c
end

-- writes what load changed when nothing was recorded
function Log:flush()
  if self.dirty then
    if self.o then
      redis.call('HSET', self.meta, 'c', self.c, 'o', self.o)
    else
      redis.call('HSET', self.meta, 'c', 0)
      redis.call('HDEL', self.meta, 'o')
    end
    self.dirty = false
  end
end

-- the time at which the oldest entries holding enough permits have left the window
function Log:retryAfter(n, limit)
  local need = self.c + n - limit
  if need <= 0 then
    return 0
  end
  if self.gone then
    return self.w -- an expired log read without writing: its entries have all left
  end
  -- pages of 4 entries, then 64: a denied stream usually needs only the oldest one or two
  local dropped, from, size = 0, self.skip, 4
  while true do
    local page = redis.call('ZRANGE', self.key, from, from + size - 1, 'WITHSCORES')
    if #page == 0 then
      return self.w
    end
    for i = 1, #page, 2 do
      dropped = dropped + entryCount(page[i])
      if dropped >= need then
        return math.max(1, tonumber(page[i + 1]) + self.w - self.now)
      end
    end
    from, size = from + size, 64
  end
end

-- ---- windows from KEYS and ARGV ---------------------------------------------------------

local MAX_WINDOW = 366 * 24 * 3600 * 1000

-- Reads one window spec at args[i..i+2] (algorithm, window ms, panes) with its keys from
-- keys[k..]; returns the loaded window, the next arg index and the next key index.
-- ro: load without writing anything (wp_peek)
local function window(keys, k, args, i, now, f, ro)
  local algorithm = args[i]
  local w = cached(WINDOWS, args[i + 1], 'window', 1, MAX_WINDOW)
  local p = cached(PANES, args[i + 2], 'panes', 1, 4096)
  if algorithm == 'p' then
    if w % p ~= 0 then
      fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
    end
    return Panes.load(keys[k], now, w, p, f, ro), i + 3, k + 1
  elseif algorithm == 'w' then
    return Weighted.load(keys[k], now, w, f, ro), i + 3, k + 1
  elseif algorithm == 'l' then
    if keys[k + 1] == nil then
      fail('WPARGS', 'a log window takes two keys')
    end
    return Log.load(keys[k], keys[k + 1], now, w, ro), i + 3, k + 2
  end
  fail('WPARGS', "algorithm must be 'p', 'w' or 'l', was " .. tostring(algorithm))
end

local function keyCount(algorithm)
  return algorithm == 'l' and 2 or 1
end

local function checkKeys(keys, expected)
  if #keys ~= expected then
    fail('WPARGS', 'expected ' .. expected .. ' keys, got ' .. #keys)
  end
end

-- ---- the hot path of one panes or weighted window --------------------------------------
--
-- Most calls find their key live and already at the current pane (weighted: fixed window), so
-- nothing moves on: one HMGET of four fields and one HINCRBY decide, without building window
-- objects. Any other case runs the general code with the HMGET reply already read. On the hot
-- path the functions return the count before the call and the field that hotRecord increments
-- (no closure: nothing to allocate); otherwise nil and the loaded window.

local function hotPanes(key, now, w, p)
  local r = w / p
  local cur = floordiv(now, r)
  local slot = cur - floordiv(cur, p) * p
  local f = redis.call('HMGET', key, 'v', 'h', 'o', slot)
  -- hot: at the current pane, whose first write set the expiry (format 3's invariant)
  if f[1] == PFORMAT and tonumber(f[2]) == cur then
    return tonumber(f[3]) + (tonumber(f[4]) or 0), slot, f
  end
  return nil, Panes.load(key, now, w, p, f)
end

local function hotWeighted(key, now, w)
  local k = floordiv(now, w)
  local f = redis.call('HMGET', key, 'v', 'w', 'a', 'b')
  if f[1] == PFORMAT and tonumber(f[2]) == k then
    local b = tonumber(f[4])
    local previous = 0
    if b > 0 then
      local q, rem = muldiv(b, w - (now - k * w), w)
      previous = rem > 0 and q + 1 or q
    end
    return tonumber(f[3]) + previous, 'a', f
  end
  return nil, Weighted.load(key, now, w, f)
end

-- records n on the hot path: field is cur's slot (panes) or 'a' (weighted); returns the count
local function hotRecord(key, before, field, n)
  redis.call('HINCRBY', key, field, n)
  return before + n
end

-- one window given by args[i..i+2] with its only key: the hot path where it applies (then also
-- the HMGET reply, for the general code should the request be denied)
local function hot(key, args, i, now)
  local algorithm = args[i]
  if algorithm ~= 'p' and algorithm ~= 'w' then
    return nil
  end
  local w = cached(WINDOWS, args[i + 1], 'window', 1, MAX_WINDOW)
  local p = cached(PANES, args[i + 2], 'panes', 1, 4096)
  if algorithm == 'w' then
    return hotWeighted(key, now, w)
  end
  if w % p ~= 0 then
    fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
  end
  return hotPanes(key, now, w, p)
end

-- decides n permits against loaded windows and their limits; records in all or in none, and a
-- peek (windows loaded read-only) records and writes nothing: the answer is the same
local function decide(windows, limits, n, peek)
  local count = #windows
  local fits = true
  for j = 1, count do
    if windows[j]:countWith(n) > limits[j] then
      fits = false
    end
  end
  local remaining = TWO52
  if fits then
    for j = 1, count do
      local after = peek and windows[j]:countWith(n) or windows[j]:record(n)
      remaining = math.min(remaining, math.max(0, limits[j] - after))
    end
    return {1, remaining, 0, 0}
  end
  local wait, by = -1, 0
  for j = 1, count do
    remaining = math.min(remaining, math.max(0, limits[j] - windows[j]:count()))
    local d = windows[j]:retryAfter(n, limits[j])
    if d > wait then
      wait, by = d, j
    end
    if not peek then
      windows[j]:flush()
    end
  end
  return {0, remaining, by, wait}
end

-- checks KEYS against a quota's ARGV (windows from ARGV[4], 4 each) and answers how many it has
local function quotaKeys(keys, args, count)
  local expected = 0
  for j = 0, count - 1 do
    expected = expected + keyCount(args[4 + j * 4])
  end
  checkKeys(keys, expected)
  return expected
end

-- loads every window of a quota (read-only when ro) with its limit, by the general code
local function loadQuota(keys, args, count, now, ro)
  local windows, limits = {}, {}
  local i, k = 4, 1
  for j = 1, count do
    windows[j], i, k = window(keys, k, args, i, now, nil, ro)
    limits[j] = cached(COUNTS, args[i], 'limit', 1, TWO52)
    i = i + 1
  end
  return windows, limits
end

-- ---- functions -------------------------------------------------------------------------

local EXPORTS = {}

-- FCALL wp_version 0 -> the library version
EXPORTS.wp_version = function()
  return VERSION
end

-- FCALL wp_add <1|2 keys> <time|""> <n> <algorithm> <window ms> <panes> -> count
local function addAt(keys, args, now)
  local n = int(args[2], 'n', 1, 2147483647)
  checkKeys(keys, keyCount(args[3]))
  local before, field = hot(keys[1], args, 3, now)
  if before then
    return hotRecord(keys[1], before, field, n)
  end
  local win = field or window(keys, 1, args, 3, now)
  return win:record(n)
end

EXPORTS.wp_add = function(keys, args)
  return addAt(keys, args, now_ms(args[1]))
end

-- FCALL wp_count <1|2 keys> <time|""> <algorithm> <window ms> <panes> -> count
local function countAt(keys, args, now)
  checkKeys(keys, keyCount(args[2]))
  local win = window(keys, 1, args, 2, now)
  win:flush()
  return win:count()
end

EXPORTS.wp_count = function(keys, args)
  return countAt(keys, args, now_ms(args[1]))
end

-- The decision of wp_take and wp_acquire: a number, the remaining room, when allowed; the
-- array {0, remaining, index of the denying limit (1-based), retry after ms} when denied.
--
-- The lean path (version 6; version 7: HMGET of four fields, HINCRBY, arguments checked once).
-- A single panes or weighted limit found at its current pane is decided by TIME, one HMGET and
-- one HINCRBY with no Lua table built but the HMGET reply: every table (window objects, the
-- per-limit state, the reply array) and every extra argument check showed in the server's
-- microseconds per call. A quota of several such limits keeps one small table per limit. Anything else (a log window, a window that moves on, a denial) runs the
-- general code from the HMGET replies already read, so no key is read twice.
local function acquireAt(keys, args, now)
  local n = cached(COUNTS, args[2], 'permits', 1, TWO52)
  local count = cached(LIMITS, args[3], 'limits', 1, 8)
  local limits, windows = {}, {}
  if #keys == count and count == 1 then
    local limit = cached(COUNTS, args[7], 'limit', 1, TWO52)
    local before, field, f = hot(keys[1], args, 4, now)
    if before then
      if before + n <= limit then
        return limit - hotRecord(keys[1], before, field, n)
      end
      windows[1] = window(keys, 1, args, 4, now, f)
    elseif field then
      windows[1] = field
    end
    if windows[1] then
      limits[1] = limit
      return decide(windows, limits, n)
    end
  end
  if quotaKeys(keys, args, count) > count then -- a log window among them: the general code
    local all, caps = loadQuota(keys, args, count, now)
    return decide(all, caps, n)
  end
  -- panes and weighted windows only, one key each: try the hot path on every one
  local hots, allHot, fits = {}, true, true
  for j = 1, count do
    local i = 4 + (j - 1) * 4
    limits[j] = cached(COUNTS, args[i + 3], 'limit', 1, TWO52)
    local before, field, f = hot(keys[j], args, i, now)
    if before then
      hots[j] = {before, field, f}
      fits = fits and before + n <= limits[j]
    else
      hots[j] = false
      windows[j] = field
      allHot = false
    end
  end
  if allHot and fits then
    local remaining = TWO52
    for j = 1, count do
      local h = hots[j]
      remaining = math.min(remaining, limits[j] - hotRecord(keys[j], h[1], h[2], n))
    end
    return remaining
  end
  for j = 1, count do
    if hots[j] then -- the general code, from the HMGET reply already read
      windows[j] = window(keys, j, args, 4 + (j - 1) * 4, now, hots[j][3])
    end
  end
  return decide(windows, limits, n)
end

local function acquire(keys, args)
  return acquireAt(keys, args, now_ms(args[1]))
end

-- FCALL wp_acquire <keys of every limit> <time|""> <permits> <limits>
--       then per limit: <algorithm> <window ms> <panes> <permits of the limit>
-- -> {allowed 1|0, remaining, index of the denying limit (1-based) or 0, retry after ms}
EXPORTS.wp_acquire = function(keys, args)
  local reply = acquire(keys, args)
  if type(reply) == 'number' then
    return {1, reply, 0, 0}
  end
  return reply
end

-- FCALL wp_take, the same KEYS and ARGV as wp_acquire (version 6)
-- -> allowed: (integer) remaining; denied: {0, remaining, denying limit (1-based), retry after}
EXPORTS.wp_take = function(keys, args)
  local reply = acquire(keys, args)
  if type(reply) == 'table' and reply[1] == 1 then
    return reply[2]
  end
  return reply
end

-- FCALL_RO wp_peek, the same KEYS and ARGV as wp_acquire (version 8)
-- -> {allowed 1|0, remaining, index of the denying limit (1-based) or 0, retry after ms}: what
-- wp_acquire would answer now, recording nothing and writing nothing (registered no-writes). A
-- format 1 key is read as its format 3 rewrite would be, and a log's entries that have left are
-- skipped rather than removed, so the answer is the same as if the writes had been made.
EXPORTS.wp_peek = function(keys, args)
  local now = now_ms(args[1])
  local n = cached(COUNTS, args[2], 'permits', 1, TWO52)
  local count = cached(LIMITS, args[3], 'limits', 1, 8)
  quotaKeys(keys, args, count)
  local windows, limits = loadQuota(keys, args, count, now, true)
  return decide(windows, limits, n, true)
end

-- FCALL wp_lease <the KEYS of wp_acquire> <time|""> <min> <limits>
--       then per limit: <algorithm> <window ms> <panes> <permits of the limit>, then <max>
-- -> {granted g, time t, remaining, denying limit (1-based) or 0, retry after ms}
-- Version 9. The ARGV of wp_acquire with min in the permits' place, and max after the quota.
-- Grants the largest g <= max that fits every limit at t, if g >= min, and records g exactly
-- as wp_acquire of g at t would (remaining: what it left); else records nothing, g = 0 and the
-- rest is wp_acquire's denial of min. The general code only: wp_take's paths stay as they are.
EXPORTS.wp_lease = function(keys, args)
  local now = now_ms(args[1])
  local lo = cached(COUNTS, args[2], 'min', 1, TWO52)
  local count = cached(LIMITS, args[3], 'limits', 1, 8)
  local hi = int(args[4 + 4 * count], 'max', lo, TWO52)
  quotaKeys(keys, args, count)
  local windows, limits = loadQuota(keys, args, count, now)
  local g = hi
  for j = 1, count do
    g = math.min(g, limits[j] - windows[j]:count())
  end
  local reply = decide(windows, limits, g >= lo and g or lo)
  if reply[1] == 1 then
    return {g, now, reply[2], 0, 0}
  end
  return {0, now, reply[2], reply[3], reply[4]}
end

-- FCALL wp_holds <keys> <time|""> <windows> then per window: <algorithm> <window ms> <panes>
-- -> 1 if any window still holds state (its logical expiry is after now), else 0
EXPORTS.wp_holds = function(keys, args)
  local now = now_ms(args[1])
  local count = int(args[2], 'windows', 1, 8)
  local k = 1
  for j = 0, count - 1 do
    local algorithm = args[3 + j * 3]
    local holder = algorithm == 'l' and keys[k + 1] or keys[k]
    local f = redis.call('HMGET', holder, 'v', 'e', 'h', 'w')
    local e = tonumber(f[2])
    if f[1] == PFORMAT then -- panes, weighted: the logical expiry follows from the head
      local w = int(args[4 + j * 3], 'window', 1, MAX_WINDOW)
      if algorithm == 'w' then
        e = (tonumber(f[4]) + 2) * w
      else
        local p = int(args[5 + j * 3], 'panes', 1, 4096)
        e = (tonumber(f[3]) + p + 1) * (w / p)
      end
    end
    if e and e > now then
      return 1
    end
    k = k + keyCount(algorithm)
  end
  return 0
end

-- ---- statistics: histogram windows -------------------------------------------------------
--
-- Values arrive as decimal strings that read back as the same double (Java's Double.toString,
-- %.17g). Stored doubles go to redis.call as Lua numbers, which Redis writes exactly (%.17g);
-- num() spells out what Redis would not keep: -0 (written "0") and the non-finite sums of an
-- overflow ("inf", "-inf", "nan"; tonumber reads them back). Replies carry doubles as strings
-- from dstr(): a Lua number in a reply would be truncated to an integer.
--
-- A value v goes to bucket 0 if v == 0, else to sign(v) * clamp(ceil(ln|v| / ln g) - minIndex
-- + 1, 1, span) with g = (1 + a) / (1 - a): LogBuckets.key of the Java engine. The caller
-- passes minIndex and span, so keys stay in [-span, span] even where this server's log differs
-- from the caller's by an ulp; a value on a bucket edge may then land in the neighbouring
-- bucket, which reports it within a as well.
--
-- Per pane the hash keeps the fields of the Java engine's StatsPane: count, the compensated sum
-- (high part s and error term e, Neumaier/TwoSum as CompensatedSum), min, max and a count per
-- occupied bucket, plus the list of those buckets (S:k) so that the call moving the head past
-- the pane can delete every field of it. Only panes in (h - P, h] have fields ("stored"), so the
-- hash holds at most 3 + P * (6 + occupied buckets) fields.
--
-- The window aggregate. Merging every pane's buckets at each summary costs O(P x occupied
-- buckets per pane): 6,880 fields and ~5 ms at 10,000 lognormal values in 60 panes. So a second
-- hash (KEYS[2], same hash tag) holds, per bucket key, the count summed over the stored panes.
-- Invariant, kept by every record in the same atomic call: aggregate = sum of the stored panes'
-- bucket counts, no field at 0. A record adds its values' buckets; the record that moves the
-- head subtracts the buckets of the panes it deletes; the record that finds the hash absent or
-- expired deletes the aggregate too before writing. Both keys get the same PEXPIRE, and the
-- first hash alone says whether the window is live: an aggregate without it is ignored and
-- replaced. A summary reads the head and the P slots' scalars (count, sum, min, max: O(P)) and
-- the aggregate (O(occupied buckets in the window)). Stored panes that have left by the
-- summary's time (only on a key idle since its last record: a summary never writes) are
-- subtracted; if they outnumber the live panes, the live panes' buckets are merged instead, so
-- an idle key costs at most P / 2 panes' buckets. The panes stay the source of the count, sum,
-- min and max (merged as before: bit for bit the local engine's) and of what leaves; a summary
-- whose buckets do not add up to its count fails with WPFORMAT rather than answer from an
-- aggregate that something else changed.

local INF = 1 / 0
local MAX_BATCH = 10000 -- values per record call
local MAX_HELD = 1000000 -- values an exact window may hold
local CHUNK = 1000 -- arguments per chunked call: unpack takes fewer than 8000 values
local EMPTY = {0, '0', 'nan', 'nan'}

-- a double as a %.17g string, exact; inf, -inf and nan spelled so
local function dstr(x)
  if x ~= x then
    return 'nan'
  elseif x == INF then
    return 'inf'
  elseif x == -INF then
    return '-inf'
  end
  return string.format('%.17g', x)
end

-- a double for redis.call: the Lua number itself where Redis writes it exactly
local function num(x)
  if x == 0 then
    return 1 / x < 0 and '-0' or 0
  elseif x ~= x or x == INF or x == -INF then
    return dstr(x)
  end
  return x
end

local function finite(value, what)
  local x = tonumber(value)
  if x == nil or x ~= x or x == INF or x == -INF then
    fail('WPARGS', what .. ' must be a finite number, was ' .. tostring(value))
  end
  return x
end

-- the values args[from..]: 1 to MAX_BATCH finite numbers, as a Lua array
local function batch(args, from)
  local n = #args - from + 1
  if n < 1 or n > MAX_BATCH then
    fail('WPARGS', 'values must hold 1 to ' .. fmt(MAX_BATCH) .. ' values, was ' .. fmt(n))
  end
  local values = {}
  for i = 1, n do
    values[i] = finite(args[from + i - 1], 'value')
  end
  return values
end

-- HMGET of any number of fields (in chunks, unpack has a limit)
local function hmget(key, fields)
  local n = #fields
  if n <= CHUNK then
    return redis.call('HMGET', key, unpack(fields))
  end
  local out = {}
  for from = 1, n, CHUNK do
    local part = redis.call('HMGET', key, unpack(fields, from, math.min(n, from + CHUNK - 1)))
    for i = 1, #part do
      out[from + i - 1] = part[i]
    end
  end
  return out
end

-- command key list... in chunks of CHUNK arguments (even: field-value pairs stay together)
local function chunked(command, key, list)
  local n = #list
  for from = 1, n, CHUNK do
    redis.call(command, key, unpack(list, from, math.min(n, from + CHUNK - 1)))
  end
end

-- high, low + x: one step of Neumaier's compensated sum (the error of high + x by TwoSum)
local function twoSum(high, low, x)
  local s = high + x
  local bv = s - high
  return s, low + ((high - (s - bv)) + (x - bv))
end

-- args[i..i+4]: W, P, relative accuracy, minIndex, span -> w, p, ln g, minIndex, span
local function histogramSpec(args, i)
  local w = int(args[i], 'window', 1, MAX_WINDOW)
  local p = int(args[i + 1], 'panes', 1, 4096)
  if w % p ~= 0 then
    fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
  end
  local a = tonumber(args[i + 2])
  if a == nil or not (a >= 0.001 and a <= 0.2) then
    fail('WPARGS', 'accuracy must be a number in [0.001, 0.2], was ' .. tostring(args[i + 2]))
  end
  local minIndex = int(args[i + 3], 'minIndex', -2147483648, 2147483647)
  local span = int(args[i + 4], 'span', 1, 131071) -- 2 * span + 1 <= 2^18 buckets
  return w, p, math.log((1 + a) / (1 - a)), minIndex, span
end

-- HMGET fields of slot S for a record: head, the pane's scalars and list, then its buckets
local function slotFields(slot, order)
  local s = slot .. ':'
  local fields = {'v', 'e', 'h', s .. 'n', s .. 's', s .. 'e', s .. 'min', s .. 'max', s .. 'k'}
  for j = 1, #order do
    fields[9 + j] = s .. order[j]
  end
  return fields
end

-- the summed counts per bucket of slots' panes, read from their lists: a map key -> count, the
-- keys in order of first appearance and the names of the bucket fields read. lists: the slots'
-- S:k values, read by the caller or (nil) here
local function paneBuckets(key, slots, lists)
  if not lists then
    lists = {}
    for i = 1, #slots do
      lists[i] = slots[i] .. ':k'
    end
    lists = hmget(key, lists)
  end
  local fields, keys, n = {}, {}, 0
  for i = 1, #slots do
    if lists[i] then
      local s = slots[i] .. ':'
      for k in string.gmatch(lists[i], '[^,]+') do
        n = n + 1
        fields[n], keys[n] = s .. k, tonumber(k)
      end
    end
  end
  local counts, order, m = {}, {}, 0
  if n > 0 then
    local values = hmget(key, fields)
    for i = 1, n do
      local k = keys[i]
      local c = counts[k]
      if c then
        counts[k] = c + (tonumber(values[i]) or 0)
      else
        counts[k] = tonumber(values[i]) or 0
        m = m + 1
        order[m] = k
      end
    end
  end
  return counts, order, fields
end

-- deletes the fields of panes (h - p, cur - p], which leave as the head moves from h to cur;
-- cur's slot held the newest of them, its list already read (list). Returns their summed
-- bucket counts (paneBuckets), for the aggregate.
local function leave(key, h, cur, p, slot, list)
  local slots, lists = {slot}, {list}
  if cur - h > 1 then
    local names = {}
    for q = h - p + 1, cur - p - 1 do
      slots[#slots + 1] = q - floordiv(q, p) * p
      names[#names + 1] = slots[#slots] .. ':k'
    end
    names = hmget(key, names)
    for i = 1, #names do
      lists[i + 1] = names[i]
    end
  end
  local counts, order, gone = paneBuckets(key, slots, lists)
  local n = #gone
  for i = 1, #slots do -- and the scalars
    local s = slots[i] .. ':'
    gone[n + 1], gone[n + 2], gone[n + 3], gone[n + 4], gone[n + 5], gone[n + 6] =
      s .. 'n', s .. 's', s .. 'e', s .. 'min', s .. 'max', s .. 'k'
    n = n + 6
  end
  chunked('HDEL', key, gone)
  return counts, order
end

-- applies to the aggregate agg the counts of a record (counts, order) less those of the panes
-- leaving (goneCounts, goneOrder: nil if none); a bucket reaching 0 is deleted
local function aggregate(agg, counts, order, goneCounts, goneOrder)
  if not goneCounts and #order == 1 then
    redis.call('HINCRBY', agg, order[1], counts[order[1]])
    return
  end
  local delta, keys = {}, {}
  for j = 1, #order do
    delta[order[j]] = counts[order[j]]
  end
  if goneCounts then
    for j = 1, #goneOrder do
      local k = goneOrder[j]
      delta[k] = (delta[k] or 0) - goneCounts[k]
    end
  end
  for j = 1, #order do
    if delta[order[j]] ~= 0 then
      keys[#keys + 1] = order[j]
    end
  end
  if goneCounts then
    for j = 1, #goneOrder do
      local k = goneOrder[j]
      if not counts[k] and delta[k] ~= 0 then
        keys[#keys + 1] = k
      end
    end
  end
  if #keys == 0 then
    return
  end
  local before = hmget(agg, keys)
  local set, del = {}, {}
  for i = 1, #keys do
    local k = keys[i]
    local c = (tonumber(before[i]) or 0) + delta[k]
    if c > 0 then
      set[#set + 1] = k
      set[#set + 1] = c
    else
      del[#del + 1] = k
    end
  end
  if #set > 0 then
    chunked('HSET', agg, set)
  end
  if #del > 0 then
    chunked('HDEL', agg, del)
  end
end

-- records values in the pane of t (t = now for wp_record; a replay's earlier time for
-- wp_replay_record, which has checked that the window still holds that pane): the key's
-- liveness and the physical TTLs follow now, the pane written and a new head follow t
local function hrecord(keys, now, t, w, p, lng, minIndex, span, values)
  local n = #values
  -- per bucket: how many of the values fall in it, in order of first appearance
  local counts, order = {}, {}
  for i = 1, n do
    local v = values[i]
    local k = 0
    if v ~= 0 then
      k = math.ceil(math.log(v < 0 and -v or v) / lng) - minIndex + 1
      if k < 1 then
        k = 1
      elseif k > span then
        k = span
      end
      if v < 0 then
        k = -k
      end
    end
    local c = counts[k]
    if c then
      counts[k] = c + 1
    else
      counts[k] = 1
      order[#order + 1] = k
    end
  end

  local key, agg, r = keys[1], keys[2], w / p
  local cur = floordiv(t, r)
  local pane, slot = cur, cur - floordiv(cur, p) * p
  local f = hmget(key, slotFields(slot, order))
  checkFormat(f[1], key, HFORMAT)
  local head = false -- the head in place, if the key is live and the head stays
  local own = false -- whether f[4..] describe the pane written (not one leaving)
  local fresh = true -- whether the aggregate is empty (deleted here)
  local goneCounts, goneOrder -- the buckets of the panes leaving now
  if f[1] then
    local e, h = tonumber(f[2]), tonumber(f[3])
    if e <= now or cur - h >= p then
      redis.call('DEL', key, agg) -- expired, or every pane has left: the same as absent
    elseif cur > h then
      fresh = false
      -- f's slot held pane cur - p, leaving now
      goneCounts, goneOrder = leave(key, h, cur, p, slot, f[9])
      if #goneOrder == 0 then -- the panes leaving were empty
        goneCounts, goneOrder = nil, nil
      end
    else
      head, own, fresh = h, true, false
      if cur <= h - p then -- a lap behind: act at the newest pane
        pane, slot = h, h - floordiv(h, p) * p
        f = hmget(key, slotFields(slot, order))
      end
    end
  else
    -- no hash: an aggregate left behind (deleted alone, or expiring a moment after it) is stale
    redis.call('DEL', agg)
  end

  local count, high, low, mn, mx, list = 0, 0, 0, INF, -INF, false
  if own and f[4] then
    count, high, low = tonumber(f[4]), tonumber(f[5]), tonumber(f[6])
    mn, mx, list = tonumber(f[7]), tonumber(f[8]), f[9]
  end
  for i = 1, n do
    local v = values[i]
    high, low = twoSum(high, low, v)
    if v < mn then
      mn = v
    end
    if v > mx then
      mx = v
    end
  end
  count = count + n
  local s = slot .. ':'
  local out = {s .. 'n', count, s .. 's', num(high), s .. 'e', num(low), s .. 'min', num(mn),
    s .. 'max', num(mx)}
  local added = {}
  for j = 1, #order do
    local k = order[j]
    local before = own and tonumber(f[9 + j])
    out[#out + 1] = s .. k
    if before then
      out[#out + 1] = before + counts[k]
    else
      out[#out + 1] = counts[k]
      added[#added + 1] = k
    end
  end
  if #added > 0 then
    out[#out + 1] = s .. 'k'
    out[#out + 1] = (list and list .. ',' or '') .. table.concat(added, ',')
  end
  if fresh then
    local set = {}
    for j = 1, #order do
      set[2 * j - 1], set[2 * j] = order[j], counts[order[j]]
    end
    chunked('HSET', agg, set)
  else
    aggregate(agg, counts, order, goneCounts, goneOrder)
  end
  if head then
    chunked('HSET', key, out)
  else -- a new head: the expiry of both keys moves on to when it leaves
    local e = (cur + p) * r
    out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4], out[#out + 5], out[#out + 6] =
      'h', cur, 'e', e, 'v', HFORMAT
    chunked('HSET', key, out)
    pexpire(key, e - now)
    pexpire(agg, e - now)
  end
  return count
end

-- FCALL wp_record 2 <hash> <aggregate> <time|""> <W> <P> <accuracy> <minIndex> <span> <value>...
-- -> (integer) the count of the pane the values went to
EXPORTS.wp_record = function(keys, args)
  local now = now_ms(args[1])
  checkKeys(keys, 2)
  local w, p, lng, minIndex, span = histogramSpec(args, 2)
  return hrecord(keys, now, now, w, p, lng, minIndex, span, batch(args, 7))
end

-- The HMGET fields of a summary: v, e, h, then the scalars of slot S at 4 + 5 S (n, s, e, min,
-- max). Kept for the last P asked between calls (a library's locals live as long as it is
-- loaded; under EVAL they are built anew each call): building 5 P names costs about a tenth of
-- a summary at P = 60.
local summaryP, summaryList = false, false
local function summaryFields(p)
  if summaryP ~= p then
    local fields = {'v', 'e', 'h'}
    for slot = 0, p - 1 do
      local s, at = slot .. ':', 4 + 5 * slot
      fields[at], fields[at + 1], fields[at + 2], fields[at + 3], fields[at + 4] =
        s .. 'n', s .. 's', s .. 'e', s .. 'min', s .. 'max'
    end
    summaryP, summaryList = p, fields
  end
  return summaryList
end

-- FCALL wp_summary 2 <hash> <aggregate> <time|""> <W> <P> <accuracy> <minIndex> <span>
-- -> {count, sum, min, max, key1, count1, key2, count2, ...}: count and bucket keys (ascending)
--    and counts as integers, sum, min and max as %.17g strings. Read-only.
local function summaryAt(keys, args, now)
  checkKeys(keys, 2)
  local w, p = histogramSpec(args, 2)
  local key, agg = keys[1], keys[2]
  local f = hmget(key, summaryFields(p))
  checkFormat(f[1], key, HFORMAT)
  local e, h = tonumber(f[2]), tonumber(f[3])
  if not f[1] or not e or e <= now then
    return EMPTY
  end
  -- stored panes: (h - p, h]; live: those after cur - p; stale: stored, not live
  local cur = floordiv(now, w / p)
  local from = math.max(h - p, cur - p)
  local isLive, live, stale = {}, {}, {}
  for q = h - p + 1, h do
    local slot = q - floordiv(q, p) * p
    if f[4 + 5 * slot] then
      if q > from then
        isLive[slot] = true
        live[#live + 1] = slot
      else
        stale[#stale + 1] = slot
      end
    end
  end
  -- count, min, max and the panes' sums merged in slot order, as the Java engine merges its ring
  local count, mn, mx, high, low = 0, INF, -INF, 0, 0
  for slot = 0, p - 1 do
    if isLive[slot] then
      local at = 4 + 5 * slot
      count = count + tonumber(f[at])
      high, low = twoSum(high, low, tonumber(f[at + 1]))
      high, low = twoSum(high, low, tonumber(f[at + 2]))
      local value = tonumber(f[at + 3])
      if value < mn or (value == mn and 1 / value < 0) then -- Math.min: -0 below 0
        mn = value
      end
      value = tonumber(f[at + 4])
      if value > mx or (value == mx and 1 / value > 0) then
        mx = value
      end
    end
  end
  if count == 0 then
    return EMPTY
  end
  local sum = high + low
  if sum ~= sum then
    sum = high -- inf - inf in the error term: report the overflow
  end
  -- the buckets: the aggregate less the stale panes, or the live panes' own when fewer
  local buckets, order = {}, {}
  if #stale <= #live then
    local all = redis.call('HGETALL', agg)
    local m = 0
    for i = 1, #all, 2 do
      local k = tonumber(all[i])
      buckets[k] = tonumber(all[i + 1])
      m = m + 1
      order[m] = k
    end
    if #stale > 0 then
      local gone, goneOrder = paneBuckets(key, stale)
      for j = 1, #goneOrder do
        local k = goneOrder[j]
        local c = buckets[k]
        if c then
          buckets[k] = c - gone[k]
        else -- not in the aggregate: caught below
          buckets[k] = -gone[k]
          m = m + 1
          order[m] = k
        end
      end
    end
  else
    buckets, order = paneBuckets(key, live)
  end
  -- ascending keys: a scan of the key range where the buckets fill at least a quarter of it
  -- (10,000 lognormal latencies at 1%: ~300 buckets over a few hundred keys), cheaper than a
  -- sort; else a sort
  local m, lo, hi = #order, INF, -INF
  for i = 1, m do
    local k = order[i]
    if k < lo then
      lo = k
    end
    if k > hi then
      hi = k
    end
  end
  if hi - lo >= 4 * m then
    table.sort(order)
  else
    m = 0
    for k = lo, hi do
      if buckets[k] then
        m = m + 1
        order[m] = k
      end
    end
  end
  local out, at, total, negative = {count, dstr(sum), dstr(mn), dstr(mx)}, 4, 0, false
  for i = 1, m do
    local k = order[i]
    local c = buckets[k]
    if c > 0 then
      out[at + 1], out[at + 2] = k, c
      at = at + 2
      total = total + c
    elseif c < 0 then
      negative = true
    end
  end
  if total ~= count or negative then
    fail('WPFORMAT', agg .. ' holds bucket counts adding up to ' .. fmt(total) .. ' where '
      .. key .. ' holds ' .. fmt(count) .. ' values: the aggregate was changed by something else')
  end
  return out
end

EXPORTS.wp_summary = function(keys, args)
  return summaryAt(keys, args, now_ms(args[1]))
end

-- ---- statistics: exact windows -----------------------------------------------------------

-- FCALL wp_xrecord 2 <set> <meta> <time|""> <W> <maxValues> <value>...
-- -> (integer) the values held after recording; WPFULL (nothing recorded) past maxValues
EXPORTS.wp_xrecord = function(keys, args)
  local now = now_ms(args[1])
  checkKeys(keys, 2)
  local w = int(args[2], 'window', 1, MAX_WINDOW)
  local max = int(args[3], 'maxValues', 1, MAX_HELD)
  local values = batch(args, 4)
  local n = #values
  local key, meta = keys[1], keys[2]
  local f = redis.call('HMGET', meta, 'v', 'e', 's', 'c')
  checkFormat(f[1], meta)
  local live = f[1] and tonumber(f[2]) > now
  local seq, held, e = 0, 0, false
  if live then
    seq, held, e = tonumber(f[3]), tonumber(f[4]), tonumber(f[2])
  end
  local cutoff = now - w -- values at or before it have left (now - W, now]
  if held + n > max then -- decided before anything is written: a refusal changes nothing
    local gone = held > 0 and redis.call('ZCOUNT', key, '-inf', cutoff) or 0
    if held - gone + n > max then
      fail('WPFULL', key .. ' holds ' .. fmt(held - gone) .. ' values and may hold at most '
        .. fmt(max) .. ' (maxValues); ' .. fmt(n) .. ' more refused, nothing recorded')
    end
  end
  if live then
    held = held - redis.call('ZREMRANGEBYSCORE', key, '-inf', cutoff)
  elseif f[1] then
    redis.call('DEL', key, meta)
  end
  local members = {}
  for i = 1, n do
    members[2 * i - 1] = now
    members[2 * i] = fmt(seq + i) .. ':' .. dstr(values[i])
  end
  chunked('ZADD', key, members)
  seq, held = seq + n, held + n
  local expiry = math.max(e or now, now + w + 1)
  redis.call('HSET', meta, 's', seq, 'c', held, 'e', expiry, 'v', FORMAT)
  if e ~= expiry then
    pexpire(key, expiry - now)
    pexpire(meta, expiry - now)
  end
  return held
end

-- FCALL wp_xsummary 2 <set> <meta> <time|""> <W>
-- -> the values recorded in (now - W, now], as %.17g strings. Read-only.
local function xsummaryAt(keys, args, now)
  checkKeys(keys, 2)
  local w = int(args[2], 'window', 1, MAX_WINDOW)
  local f = redis.call('HMGET', keys[2], 'v', 'e')
  checkFormat(f[1], keys[2])
  if not f[1] or tonumber(f[2]) <= now then
    return {}
  end
  local members = redis.call('ZRANGEBYSCORE', keys[1], '(' .. fmt(now - w), now)
  for i = 1, #members do
    members[i] = string.match(members[i], ':(.*)$')
  end
  return members
end

EXPORTS.wp_xsummary = function(keys, args)
  return xsummaryAt(keys, args, now_ms(args[1]))
end

-- ---- batches and groups (version 10) --------------------------------------------------------
--
-- A batch decides or records many independent items in one call: wp_add_all, wp_count_all,
-- wp_take_all (one window spec or quota for every item, as the Java store has one), and the
-- read-only wp_summary_all and wp_xsummary_all. Each item is exactly the single function's call
-- on its own keys, in the order given and at the same time: two items on the same key see each
-- other as two calls would. Every argument is checked before the first item runs; a batch is not
-- one transaction: an error on an item's key (WPFORMAT, WRONGTYPE) stops the call after the
-- items before it have been applied.
--
-- Where the items' keys come from: KEYS, then ARGV after the spec (the "extra keys"), an item's
-- keys never split between the two. On one server every key goes in KEYS. On a Redis Cluster
-- KEYS may hold one slot only (the cluster answers CROSSSLOT before any function runs, whatever
-- its flags), so a caller that batches the items of several slots of one node passes the keys
-- of one slot in KEYS (the call is routed by them) and the others as extra keys; the batch
-- functions carry the allow-cross-slot-keys flag, which lets them touch keys of other slots that
-- this node serves. Before anything else, a call with extra keys runs EXISTS on every extra
-- item's keys, so that a key this node does not serve (the slot moved; or it is migrating and
-- the key is not here yet) fails the call with "non local key" before anything is written; the
-- caller then sends those items by slot.
--
-- A group (wp_group) decides several requests (each its own keys, quota and permits) all or
-- nothing in one call: see there.

local MAX_ITEMS = 10000

-- checks the window spec at args[i..i+2] (algorithm, window ms, panes), reading nothing
local function checkSpec(args, i)
  local algorithm = args[i]
  local w = cached(WINDOWS, args[i + 1], 'window', 1, MAX_WINDOW)
  local p = cached(PANES, args[i + 2], 'panes', 1, 4096)
  if algorithm == 'p' then
    if w % p ~= 0 then
      fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
    end
  elseif algorithm ~= 'w' and algorithm ~= 'l' then
    fail('WPARGS', "algorithm must be 'p', 'w' or 'l', was " .. tostring(algorithm))
  end
end

-- The keys of a batch's items: KEYS then args[from..], per items of size keys each; with extra
-- keys, checks that this node serves every one of them (EXISTS) before the caller writes.
local function batchItems(keys, args, from, size)
  local declared, extra = #keys, #args - from + 1
  if extra < 0 then
    fail('WPARGS', 'the batch spec is incomplete: ' .. fmt(#args) .. ' arguments')
  end
  if declared % size ~= 0 or extra % size ~= 0 or declared + extra == 0 then
    fail('WPARGS', 'a batch takes ' .. fmt(size) .. ' key(s) per item in KEYS and in the extra'
      .. ' keys, and at least one item, was ' .. fmt(declared) .. ' and ' .. fmt(extra))
  end
  local count = (declared + extra) / size
  if count > MAX_ITEMS then
    fail('WPARGS', 'a batch holds at most ' .. fmt(MAX_ITEMS) .. ' items, was ' .. fmt(count))
  end
  local items = {}
  for j = 1, count do
    local item, at = {}, (j - 1) * size
    for q = 1, size do
      local i = at + q
      if i <= declared then
        item[q] = keys[i]
      else
        item[q] = args[from + i - declared - 1]
      end
    end
    items[j] = item
  end
  for j = declared / size + 1, count do -- every extra key served here, before any write
    redis.call('EXISTS', unpack(items[j]))
  end
  return items
end

-- FCALL wp_add_all <numkeys> <keys of item 1> ... <time|""> <n> <algorithm> <W> <P> [extra keys]
-- -> {count 1, count 2, ...}: wp_add of n on each item's keys, in order
EXPORTS.wp_add_all = function(keys, args)
  local now = now_ms(args[1])
  int(args[2], 'n', 1, 2147483647)
  local items = batchItems(keys, args, 6, keyCount(args[3]))
  checkSpec(args, 3) -- the spec, checked once
  local out = {}
  for j = 1, #items do
    out[j] = addAt(items[j], args, now)
  end
  return out
end

-- FCALL wp_count_all <numkeys> <keys of item 1> ... <time|""> <algorithm> <W> <P> [extra keys]
-- -> {count 1, count 2, ...}
EXPORTS.wp_count_all = function(keys, args)
  local now = now_ms(args[1])
  local items = batchItems(keys, args, 5, keyCount(args[2]))
  checkSpec(args, 2)
  local out = {}
  for j = 1, #items do
    out[j] = countAt(items[j], args, now)
  end
  return out
end

-- FCALL wp_take_all <numkeys> <keys of item 1> ... <the ARGV of wp_acquire> [extra keys]
-- -> {remaining 1, denying limit 1, retry after 1, remaining 2, ...}: three integers per item,
--    wp_acquire's decision on its keys (denying limit 0 and retry after 0 when allowed)
EXPORTS.wp_take_all = function(keys, args)
  local now = now_ms(args[1])
  cached(COUNTS, args[2], 'permits', 1, TWO52)
  local count = cached(LIMITS, args[3], 'limits', 1, 8)
  local size = 0
  for j = 0, count - 1 do
    local i = 4 + j * 4
    checkSpec(args, i)
    cached(COUNTS, args[i + 3], 'limit', 1, TWO52)
    size = size + keyCount(args[i])
  end
  local items = batchItems(keys, args, 4 + 4 * count, size)
  local out = {}
  for j = 1, #items do
    local reply = acquireAt(items[j], args, now)
    local at = 3 * (j - 1)
    if type(reply) == 'number' then
      out[at + 1], out[at + 2], out[at + 3] = reply, 0, 0
    else
      out[at + 1], out[at + 2], out[at + 3] = reply[2], reply[3], reply[4]
    end
  end
  return out
end

-- FCALL_RO wp_summary_all <numkeys> <hash 1> <aggregate 1> ... <time|""> <W> <P> <accuracy>
--       <minIndex> <span> [extra keys]
-- -> {summary 1, summary 2, ...}: each wp_summary's reply (an array). Read-only.
EXPORTS.wp_summary_all = function(keys, args)
  local now = now_ms(args[1])
  histogramSpec(args, 2)
  local items = batchItems(keys, args, 7, 2)
  local out = {}
  for j = 1, #items do
    out[j] = summaryAt(items[j], args, now)
  end
  return out
end

-- FCALL_RO wp_xsummary_all <numkeys> <set 1> <meta 1> ... <time|""> <W> [extra keys]
-- -> {values 1, values 2, ...}: each wp_xsummary's reply (an array of strings). Read-only.
EXPORTS.wp_xsummary_all = function(keys, args)
  local now = now_ms(args[1])
  int(args[2], 'window', 1, MAX_WINDOW)
  local items = batchItems(keys, args, 3, 2)
  local out = {}
  for j = 1, #items do
    out[j] = xsummaryAt(items[j], args, now)
  end
  return out
end

-- FCALL wp_group <numkeys> <keys of member 1> <keys of member 2> ...
--       <time|""> <members 1..64> then per member: <permits> <limits 1..8>
--       and per limit of it: <algorithm> <W> <P> <limit>
-- -> allowed: {0, remaining 1, ..., remaining m}
--    denied:  {d, room 1, ..., room d-1, remaining d, denying limit of d (1-based), retry after}
--
-- All or nothing across members (requests on several logical keys, each with its own quota and
-- permits), in one atomic call: every member that fits is recorded, as wp_acquire would record
-- it, only when every member fits; otherwise nothing is recorded anywhere. The members are
-- decided in the order given, and d is the first that does not fit: its reply is wp_acquire's
-- denial (remaining, the limit that must wait longest, the exact retry after); a member before d
-- answers its room (the smallest limit - count over its limits: what it could have taken), a
-- member after d nothing. Allowed, each member's remaining after its permits. The members' keys
-- must be distinct (the caller merges requests for one logical key): each member is read once,
-- before anything is written. On a Redis Cluster every key must lie in one slot.
EXPORTS.wp_group = function(keys, args)
  local now = now_ms(args[1])
  local m = int(args[2], 'members', 1, 64)
  local members, i, k = {}, 3, 1
  for j = 1, m do -- every argument and the number of keys, before anything is read
    local n = cached(COUNTS, args[i], 'permits', 1, TWO52)
    local count = cached(LIMITS, args[i + 1], 'limits', 1, 8)
    members[j] = {n = n, count = count, at = i + 2, k = k}
    for q = 0, count - 1 do
      local s = i + 2 + 4 * q
      checkSpec(args, s)
      cached(COUNTS, args[s + 3], 'limit', 1, TWO52)
      k = k + keyCount(args[s])
    end
    i = i + 2 + 4 * count
  end
  if args[i] ~= nil then
    fail('WPARGS', 'wp_group takes ' .. fmt(i - 1) .. ' arguments for ' .. fmt(m)
      .. ' members, was ' .. fmt(#args))
  end
  checkKeys(keys, k - 1)
  for j = 1, m do
    local member = members[j]
    local windows, limits, s, kk = {}, {}, member.at, member.k
    for q = 1, member.count do
      windows[q], s, kk = window(keys, kk, args, s, now)
      limits[q] = cached(COUNTS, args[s], 'limit', 1, TWO52)
      s = s + 1
    end
    member.windows, member.limits = windows, limits
  end
  local denier = 0
  for j = 1, m do
    local member = members[j]
    for q = 1, member.count do
      if member.windows[q]:countWith(member.n) > member.limits[q] then
        denier = j
        break
      end
    end
    if denier > 0 then
      break
    end
  end
  local reply = {denier}
  if denier == 0 then
    for j = 1, m do
      local member = members[j]
      reply[j + 1] = decide(member.windows, member.limits, member.n)[2]
    end
    return reply
  end
  for j = 1, m do
    local member = members[j]
    if j < denier then
      local room = TWO52
      for q = 1, member.count do
        room = math.min(room, member.limits[q] - member.windows[q]:count())
        member.windows[q]:flush()
      end
      reply[j + 1] = room
    elseif j == denier then
      local d = decide(member.windows, member.limits, member.n)
      reply[j + 1], reply[j + 2], reply[j + 3] = d[2], d[3], d[4]
    else
      for q = 1, member.count do
        member.windows[q]:flush()
      end
    end
  end
  return reply
end

-- ---- replay -------------------------------------------------------------------------------
--
-- A failover chain replays into Redis the events a fallback engine took while Redis was down,
-- with their own times. Each replay is one atomic call that decides nothing: the events go in
-- at t = min(at, now), into the pane, fixed window or log position of t (not the newest), in
-- every window that still holds t, past any limit (the fallback allowed them already). A window
-- that no longer holds t (its pane has left; weighted: t is before the previous fixed window;
-- log and exact: t <= now - W) takes nothing.
--
-- Idempotency. KEYS[1] is a marker, the first window key + ":y:" + the replay id (same hash
-- tag): a hash with v and e, whose logical expiry e lies the windows' longest reach after now
-- (W + r for panes and histograms, 2W weighted, W + 1 log and exact): past that no window can
-- hold the replayed events, so a repeat would be dropped anyway. A call that finds a live marker
-- changes nothing and answers -1; otherwise it records, sets the marker, and answers how many
-- events it recorded (0: none, no window holds t any more). Like every function, a replay checks
-- all arguments and every key's format before its first write.

local MAX_ID = 64

-- at and the id (args[2], args[3]); checks that keys[1] is keys[2]'s marker for that id, named
-- with infix (':y:' replays, ':g:' releases). Returns at and the marker key.
local function markerArgs(keys, args, infix, what)
  local at = int(args[2], 'at', -TWO52, TWO52)
  local id = args[3]
  if id == nil or #id < 1 or #id > MAX_ID or not string.match(id, '^[%w_.:%-]+$') then
    fail('WPARGS', what .. ' must be 1 to 64 characters of [A-Za-z0-9_.:-], was '
      .. (id == nil and 'nil' or string.sub(id, 1, 80)))
  end
  if keys[2] == nil or keys[1] ~= keys[2] .. infix .. id then
    fail('WPARGS', 'the marker key (the first) must be the first window key + "' .. infix
      .. '" + ' .. what .. ', was ' .. tostring(keys[1]))
  end
  return at, keys[1]
end

-- the replay's t = min(at, now) and its marker key
local function replayArgs(keys, args, now)
  local at, marker = markerArgs(keys, args, ':y:', 'replayId')
  return math.min(at, now), marker
end

-- whether the marker is live: a replay with this id landed within its reach
local function replayed(marker, now)
  local f = redis.call('HMGET', marker, 'v', 'e')
  checkFormat(f[1], marker)
  return f[1] and tonumber(f[2]) > now
end

local function mark(marker, now, reach)
  redis.call('HSET', marker, 'v', FORMAT, 'e', now + reach)
  pexpire(marker, reach)
end

-- Each window kind: at(...) reads and says whether the window holds t; apply(s, now, n) records
-- n at t. Layouts and invariants are those of the live functions above. (at may delete a key
-- holding nothing live, or rewrite a format 1 key as format 3: neither changes an answer.)

-- panes: the pane of t, pt, held while pt > (newest pane) - P, where the newest pane is now's
-- or, for a caller whose clock lags, the head h
local function panesAt(key, now, t, w, p)
  local s = Panes.load(key, now, w, p)
  s.pt, s.w = floordiv(t, s.r), w
  s.holds = s.pt > s.cur - p
  return s
end

local function panesApply(s, now, n)
  local pt, p = s.pt, s.p
  if pt == s.cur then
    s:record(n) -- now's pane (or a lagging caller's head), as wp_add
  elseif s.h and pt <= s.h then
    -- a stored pane (h - P < pt <= h): its slot holds it; the head and expiry stay
    redis.call('HINCRBY', s.key, pt - floordiv(pt, p) * p, n)
    if pt < s.h then
      redis.call('HINCRBY', s.key, 'o', n)
    end
  else
    -- newer than the head, older than now's pane: the head moves on to pt, as wp_add at t
    if s.dead then
      redis.call('DEL', s.key)
    end
    local at = Panes.load(s.key, pt * s.r, s.w, p)
    at.now = now -- the TTL counts from now
    at:record(n)
  end
end

-- weighted: t's fixed window kt, held while kt is the current fixed window k or the previous
local function weightedAt(key, now, t, w)
  local s = Weighted.load(key, now, w)
  s.kt = floordiv(t, w)
  s.holds = s.kt >= s.k - 1
  return s
end

local function weightedApply(s, now, n)
  if s.kt == s.k then
    s:record(n) -- now's window (or a lagging caller's newest), as wp_add
  elseif not s.move then
    redis.call('HINCRBY', s.key, 'b', n) -- the stored window is k: kt is its previous
  elseif not s.fresh then
    redis.call('HINCRBY', s.key, 'a', n) -- the stored window is kt itself
  else
    local expiry = (s.kt + 2) * s.w
    if s.dead then
      redis.call('DEL', s.key)
    end
    redis.call('HSET', s.key, 'w', s.kt, 'a', n, 'b', 0, 'e', expiry, 'v', PFORMAT)
    pexpire(s.key, expiry - now)
  end
end

-- log: held while t > now - W; recorded by Log:record at t
local function logAt(key, meta, now, t, w)
  checkFormat(redis.call('HGET', meta, 'v'), meta)
  return {key = key, meta = meta, w = w, t = t, holds = t > now - w}
end

local function logApply(s, now, n)
  Log.load(s.key, s.meta, now, s.w):record(n, s.t)
end

-- KEYS and the window specs of wp_replay and wp_release (marker, then every window's keys;
-- args[6..], three per window): every argument and every key's format is checked here, before
-- any write. Returns {algorithm, key, W, P or the log's meta key} per window, and the longest
-- reach (how long after now a window may still hold an instant up to now).
local function markedSpecs(keys, args, count)
  local expected = 1
  for j = 0, count - 1 do
    expected = expected + keyCount(args[6 + j * 3])
  end
  checkKeys(keys, expected)
  local specs, reach, k = {}, 0, 2
  for j = 1, count do
    local i = 6 + (j - 1) * 3
    local algorithm = args[i]
    local w = int(args[i + 1], 'window', 1, MAX_WINDOW)
    local p = int(args[i + 2], 'panes', 1, 4096)
    if algorithm == 'l' then
      checkFormat(redis.call('HGET', keys[k + 1], 'v'), keys[k + 1])
    else -- every key's format before the first write
      local v = redis.call('HGET', keys[k], 'v')
      if v ~= '1' then
        checkFormat(v, keys[k], PFORMAT)
      end
    end
    if algorithm == 'p' then
      if w % p ~= 0 then
        fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
      end
      specs[j] = {algorithm, keys[k], w, p}
      reach = math.max(reach, w + w / p)
    elseif algorithm == 'w' then
      specs[j] = {algorithm, keys[k], w}
      reach = math.max(reach, 2 * w)
    elseif algorithm == 'l' then
      specs[j] = {algorithm, keys[k], w, keys[k + 1]}
      reach = math.max(reach, w + 1)
    else
      fail('WPARGS', "algorithm must be 'p', 'w' or 'l', was " .. tostring(algorithm))
    end
    k = k + keyCount(algorithm)
  end
  return specs, reach
end

-- FCALL wp_replay <numkeys> <marker> <keys of window 1> <keys of window 2> ...
--       <time|""> <at> <replayId> <n> <windows> then per window: <algorithm> <W> <P>
-- -> n recorded in every window that holds t; 0 none holds it (dropped); -1 already replayed
EXPORTS.wp_replay = function(keys, args)
  local now = now_ms(args[1])
  local t, marker = replayArgs(keys, args, now)
  local n = int(args[4], 'n', 1, TWO52)
  local count = int(args[5], 'windows', 1, 8)
  local specs, reach = markedSpecs(keys, args, count)
  if replayed(marker, now) then
    return -1
  end
  local states, any = {}, false
  for j = 1, count do
    local spec = specs[j]
    if spec[1] == 'p' then
      states[j] = panesAt(spec[2], now, t, spec[3], spec[4])
    elseif spec[1] == 'w' then
      states[j] = weightedAt(spec[2], now, t, spec[3])
    else
      states[j] = logAt(spec[2], spec[4], now, t, spec[3])
    end
    any = any or states[j].holds
  end
  for j = 1, count do -- every check passed: the writes
    if states[j].holds then
      local kind = specs[j][1]
      if kind == 'p' then
        panesApply(states[j], now, n)
      elseif kind == 'w' then
        weightedApply(states[j], now, n)
      else
        logApply(states[j], now, n)
      end
    end
  end
  mark(marker, now, reach)
  return any and n or 0
end

-- FCALL wp_replay_record 3 <marker> <hash> <aggregate> <time|""> <at> <replayId>
--       <W> <P> <accuracy> <minIndex> <span> <value>...
-- -> the number of values recorded in the pane of t; 0 that pane has left; -1 already replayed
EXPORTS.wp_replay_record = function(keys, args)
  local now = now_ms(args[1])
  checkKeys(keys, 3)
  local t, marker = replayArgs(keys, args, now)
  local w, p, lng, minIndex, span = histogramSpec(args, 4)
  local values = batch(args, 9)
  if replayed(marker, now) then
    return -1
  end
  local r = w / p
  local newest = floordiv(now, r)
  local f = redis.call('HMGET', keys[2], 'v', 'e', 'h')
  checkFormat(f[1], keys[2], HFORMAT)
  if f[1] and tonumber(f[2]) > now then
    newest = math.max(newest, tonumber(f[3])) -- a lagging caller: the head
  end
  local held = floordiv(t, r) > newest - p
  if held then
    hrecord({keys[2], keys[3]}, now, t, w, p, lng, minIndex, span, values)
  end
  mark(marker, now, w + r)
  return held and #values or 0
end

-- FCALL wp_replay_xrecord 3 <marker> <set> <meta> <time|""> <at> <replayId> <W> <maxValues>
--       <value>...
-- -> the number of values recorded at t: all of them, or as many as maxValues leaves room for
--    (never WPFULL: the rest are dropped); 0 t <= now - W; -1 already replayed
EXPORTS.wp_replay_xrecord = function(keys, args)
  local now = now_ms(args[1])
  checkKeys(keys, 3)
  local t, marker = replayArgs(keys, args, now)
  local w = int(args[4], 'window', 1, MAX_WINDOW)
  local max = int(args[5], 'maxValues', 1, MAX_HELD)
  local values = batch(args, 6)
  if replayed(marker, now) then
    return -1
  end
  local key, meta = keys[2], keys[3]
  local f = redis.call('HMGET', meta, 'v', 'e', 's', 'c')
  checkFormat(f[1], meta)
  local stored = 0
  if t > now - w then
    local live = f[1] and tonumber(f[2]) > now
    local seq, held, e = 0, 0, false
    if live then
      seq, held, e = tonumber(f[3]), tonumber(f[4]), tonumber(f[2])
      held = held - redis.call('ZREMRANGEBYSCORE', key, '-inf', now - w)
    elseif f[1] then
      redis.call('DEL', key, meta)
    end
    stored = math.max(0, math.min(#values, max - held))
    if stored > 0 then
      local members = {}
      for i = 1, stored do
        members[2 * i - 1] = t
        members[2 * i] = fmt(seq + i) .. ':' .. dstr(values[i])
      end
      chunked('ZADD', key, members)
      seq, held = seq + stored, held + stored
      local expiry = math.max(e or t, t + w + 1)
      redis.call('HSET', meta, 's', seq, 'c', held, 'e', expiry, 'v', FORMAT)
      if e ~= expiry then
        pexpire(key, expiry - now)
        pexpire(meta, expiry - now)
      end
    elseif live then
      redis.call('HSET', meta, 'c', held)
    end
  end
  mark(marker, now, w + 1)
  return stored
end

-- ---- release (version 9) ------------------------------------------------------------------
--
-- wp_lease records a grant of g permits at its time t exactly as an acquire of g; wp_release
-- gives back n unspent ones of it. In every window that still holds t (as a replay decides:
-- panes while t's pane is one of the P newest, weighted while t's fixed window is the current
-- or the previous one, log while t > now - W) it takes min(n, what t's pane, fixed window or
-- log entries hold) out of there, so they leave no trace when that pane or window leaves. It
-- never moves a head, never extends or shortens a key's life, never leaves a count below 0.
-- Idempotent per release id: a marker like a replay's, the first window key + ':g:' + the id,
-- with the windows' longest reach. A caller whose clock lagged behind a window's head had its
-- grant put in the head's pane, not t's: the release then takes from t's pane, which can only
-- make the window stricter (those permits leave the window earlier than the grant's would).

-- panes: the slot of t's pane, and o when that pane is older than the head
local function panesRelease(key, now, t, w, p, n)
  local r = w / p
  local pt = floordiv(t, r)
  local slot = pt - floordiv(pt, p) * p
  local f = redis.call('HMGET', key, 'v', 'h', slot)
  if f[1] == '1' then -- format 1: rewritten as format 3 first (deleted if nothing is live)
    Panes.load(key, now, w, p)
    f = redis.call('HMGET', key, 'v', 'h', slot)
  end
  if not f[1] then
    return 0
  end
  local h = tonumber(f[2])
  -- stored while pt <= h; still in the window while pt > (now's pane, or the head) - P
  if pt > h or pt <= math.max(floordiv(now, r), h) - p then
    return 0
  end
  local m = math.min(n, tonumber(f[3]) or 0)
  if m > 0 then
    redis.call('HINCRBY', key, slot, -m)
    if pt < h then
      redis.call('HINCRBY', key, 'o', -m)
    end
  end
  return m
end

-- weighted: a when t's fixed window is the stored one, b when it is the one before
local function weightedRelease(key, now, t, w, n)
  local f = redis.call('HMGET', key, 'v', 'w', 'a', 'b')
  if f[1] == '1' then
    f = upgradeWeighted(key, now, w, f)
  end
  if not f[1] then
    return 0
  end
  local k0, kt = tonumber(f[2]), floordiv(t, w)
  if kt < math.max(floordiv(now, w), k0) - 1 then
    return 0 -- t's window is older than the previous one
  end
  local field, held = 'a', tonumber(f[3])
  if kt == k0 - 1 then
    field, held = 'b', tonumber(f[4])
  elseif kt ~= k0 then
    return 0 -- newer than the stored window: nothing recorded there
  end
  local m = math.min(n, held)
  if m > 0 then
    redis.call('HINCRBY', key, field, -m)
  end
  return m
end

-- log: the entries at score t, each lowered (or removed) in the set's order until n are out
local function logRelease(key, meta, now, t, w, n)
  if t <= now - w then
    return 0
  end
  local s = Log.load(key, meta, now, w)
  local entries = redis.call('ZRANGEBYSCORE', key, t, t)
  local left = n
  for i = 1, #entries do
    local member = entries[i]
    local c = entryCount(member)
    local m = math.min(c, left)
    redis.call('ZREM', key, member)
    if c > m then
      redis.call('ZADD', key, t, string.match(member, '^(%d+):') .. ':' .. fmt(c - m))
    end
    left = left - m
    if left == 0 then
      break
    end
  end
  if left < n then
    s.c, s.dirty = s.c - (n - left), true
    if s.o == t then -- the oldest entries may be gone: o is the set's first score
      local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
      s.o = tonumber(first[2]) or false
    end
  end
  s:flush()
  return n - left
end

-- FCALL wp_release <numkeys> <marker> <keys of window 1> <keys of window 2> ...
--       <time|""> <at> <releaseId> <n> <windows> then per window: <algorithm> <W> <P>
-- -> the most permits taken out of any one window (0: no window holds at, or nothing was
--    there); -1 already released (the marker is live, nothing changed)
EXPORTS.wp_release = function(keys, args)
  local now = now_ms(args[1])
  local at, marker = markerArgs(keys, args, ':g:', 'releaseId')
  local n = int(args[4], 'n', 1, TWO52)
  local count = int(args[5], 'windows', 1, 8)
  local specs, reach = markedSpecs(keys, args, count)
  if replayed(marker, now) then
    return -1
  end
  local most = 0
  for j = 1, count do -- every check passed: the writes
    local spec, m = specs[j], 0
    if spec[1] == 'p' then
      m = panesRelease(spec[2], now, at, spec[3], spec[4], n)
    elseif spec[1] == 'w' then
      m = weightedRelease(spec[2], now, at, spec[3], n)
    else
      m = logRelease(spec[2], spec[4], now, at, spec[3], n)
    end
    most = math.max(most, m)
  end
  -- a grant at a time after now (a clock that stepped back) stays in its window longer
  mark(marker, now, most > 0 and reach + math.max(0, at - now) or reach)
  return most
end

-- ---- locks ------------------------------------------------------------------------------
--
-- A lock is taken like SET key token NX PX ttl, but as a hash so that a caller passing its own
-- time gets the same logical expiry (e) as the server's clock would give, and so that taking it
-- increments the fencing counter in the same atomic call. The lock is held while its e lies after
-- now; renewal and release compare the token first (never a plain DEL of someone else's lock).
-- PEXPIRE follows e (plus the caller's grace), so a lock nobody renews disappears by itself. The
-- counter never expires: dropping it would restart fencing tokens at 1.

local MAX_TTL = 86400000 -- 1 day

local function lockToken(value)
  if value == nil or #value < 1 or #value > 64 then
    fail('WPARGS', 'token must be 1 to 64 characters, was ' .. tostring(value and #value))
  end
  return value
end

-- the holder's token and logical expiry if the lock is held at now, else nil
local function holder(key, now)
  local f = redis.call('HMGET', key, 'v', 't', 'e')
  checkFormat(f[1], key)
  if f[1] and tonumber(f[3]) > now then
    return f[2], tonumber(f[3])
  end
  return nil
end

-- FCALL wp_lock 2 <lock> <fence> <time|""> <token> <ttl ms>
-- -> {1, fencing token} when taken; {0, ms until the holder's ttl passes} when held
EXPORTS.wp_lock = function(keys, args)
  local now = now_ms(args[1])
  checkKeys(keys, 2)
  local token = lockToken(args[2])
  local ttl = int(args[3], 'ttl', 1, MAX_TTL)
  local held, e = holder(keys[1], now)
  if held then
    return {0, e - now}
  end
  local fence = redis.call('INCR', keys[2])
  redis.call('HSET', keys[1], 'v', FORMAT, 't', token, 'e', now + ttl)
  pexpire(keys[1], ttl)
  return {1, fence}
end

-- FCALL wp_renew 1 <lock> <time|""> <token> <ttl ms> -> 1 if token held it (now ttl from now), else 0
EXPORTS.wp_renew = function(keys, args)
  local now = now_ms(args[1])
  checkKeys(keys, 1)
  local token = lockToken(args[2])
  local ttl = int(args[3], 'ttl', 1, MAX_TTL)
  if holder(keys[1], now) ~= token then
    return 0
  end
  redis.call('HSET', keys[1], 'e', now + ttl)
  pexpire(keys[1], ttl)
  return 1
end

-- FCALL wp_unlock 1 <lock> <time|""> <token> -> 1 if token held it (now free), else 0
EXPORTS.wp_unlock = function(keys, args)
  local now = now_ms(args[1])
  checkKeys(keys, 1)
  local token = lockToken(args[2])
  if holder(keys[1], now) ~= token then
    return 0
  end
  redis.call('DEL', keys[1])
  return 1
end

-- ---- top keys: a Space-Saving sketch per pane (version 8, sketch format 1) --------------
--
-- One sketch per window (not per key: the keys ranked are the callers' keys), under a hash tag
-- of its own (the window's name), so in a cluster it lives on another slot than the keys it
-- ranks and is fed by a call of its own (wp_topadd), never inside wp_take or wp_add. Two keys:
--   Z  a sorted set of the counters of every pane: member "<slot>:<key>", score slot * 2^40 +
--      the key's count in that pane (slot = pane mod P), so one slot's counters are one score
--      range and its smallest counter the first of that range;
--   H  a hash: v (format '1'), e (the expiry last set, ms), p<slot> (the pane the slot holds)
--      and, per counter that took over another one, "<slot>:<key>" = its error (the count it
--      inherited).
-- Per pane, Space-Saving with k counters (Metwally, Agrawal, El Abbadi): a monitored key adds n
-- to its counter; a new key takes a free counter (fewer than k in the slot), else the smallest
-- one, keeping its count m as the error and adding n. A slot whose pane has left is cleared by
-- the first write of its new pane. A key's count in one pane saturates at 2^40 - 1.
-- Cost of wp_topadd: HMGET and ZSCORE, then ZADD (a monitored key) or ZCOUNT and ZADD, or
-- ZCOUNT, ZRANGEBYSCORE LIMIT 1, ZREM, HDEL, ZADD, HSET (a take-over); once per pane the
-- slot's clearing and two PEXPIREs. wp_top reads both keys whole (at most P x k counters).

local TFORMAT = '1'
local TWO40 = 1099511627776
local MAX_TOP = 10000

-- the sketch's window ms, panes and counters k at args[i..i+2]
local function sketchArgs(args, i)
  local w = cached(WINDOWS, args[i], 'window', 1, MAX_WINDOW)
  local p = cached(PANES, args[i + 1], 'panes', 1, 4096)
  if w % p ~= 0 then
    fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
  end
  return w, p, int(args[i + 2], 'counters', 1, MAX_TOP)
end

-- FCALL wp_topadd 2 <sketch set> <sketch hash> <time|""> <window ms> <panes> <counters> <n>
--       <key> -> the key's counter in the current pane (0: not counted, the time lies a whole
--       window behind the sketch's newest write to that slot)
EXPORTS.wp_topadd = function(keys, args)
  local now = now_ms(args[1])
  checkKeys(keys, 2)
  local w, p, k = sketchArgs(args, 2)
  local n = int(args[5], 'n', 1, TWO52)
  if args[6] == nil then
    fail('WPARGS', 'wp_topadd takes the key to count as its last argument')
  end
  local z, h = keys[1], keys[2]
  local r = w / p
  local cur = floordiv(now, r)
  local slot = cur - floordiv(cur, p) * p
  local lo, hi = slot * TWO40, slot * TWO40 + TWO40 - 1
  local f = redis.call('HMGET', h, 'v', 'p' .. slot, 'e')
  checkFormat(f[1], h, TFORMAT)
  local at = tonumber(f[2])
  if at and at > cur then
    return 0
  end
  if not f[1] then
    redis.call('DEL', z) -- a set left without its hash (deleted by hand) is not read
  end
  if at ~= cur then -- the slot's pane has left (or it never held one): clear it
    if at then
      local old = redis.call('ZRANGEBYSCORE', z, lo, hi)
      if #old > 0 then
        redis.call('ZREMRANGEBYSCORE', z, lo, hi)
        chunked('HDEL', h, old)
      end
    end
    local e = tonumber(f[3])
    local expiry = (cur + p + 1) * r
    if not e or e < expiry then
      redis.call('HSET', h, 'v', TFORMAT, 'p' .. slot, cur, 'e', expiry)
      pexpire(z, expiry - now)
      pexpire(h, expiry - now)
    else
      redis.call('HSET', h, 'v', TFORMAT, 'p' .. slot, cur)
    end
  end
  local member = fmt(slot) .. ':' .. args[6]
  local score = tonumber(redis.call('ZSCORE', z, member))
  local c, e = n, nil
  if score then
    c = score - lo + n
  elseif redis.call('ZCOUNT', z, lo, hi) >= k then
    local low = redis.call('ZRANGEBYSCORE', z, lo, hi, 'WITHSCORES', 'LIMIT', 0, 1)
    e = tonumber(low[2]) - lo
    c = e + n
    redis.call('ZREM', z, low[1])
    redis.call('HDEL', h, low[1])
  end
  c = math.min(c, TWO40 - 1)
  redis.call('ZADD', z, lo + c, member)
  if e then
    redis.call('HSET', h, member, e)
  end
  return c
end

-- FCALL_RO wp_top 2 <sketch set> <sketch hash> <time|""> <window ms> <panes> <counters> <n>
-- -> {key, count, maxError, ...}: the n keys with the largest merged counts over the live panes
-- (h - P, h], largest first, ties by key. Merged as the local engine merges its panes: with m_j
-- the smallest counter of pane j when it holds k counters (else 0), count = sum over the panes
-- of the key's counter where held and m_j where not, low = sum of counter - error where held;
-- maxError = count - min(count, low). Writes nothing.
EXPORTS.wp_top = function(keys, args)
  local now = now_ms(args[1])
  checkKeys(keys, 2)
  local w, p, k = sketchArgs(args, 2)
  local want = int(args[5], 'n', 1, MAX_TOP)
  local r = w / p
  local cur = floordiv(now, r)
  local fields = redis.call('HGETALL', keys[2])
  local pane, errors, format = {}, {}, nil
  for i = 1, #fields, 2 do
    local name, value = fields[i], fields[i + 1]
    if name == 'v' then
      format = value
    elseif string.sub(name, 1, 1) == 'p' then
      local at = tonumber(value)
      pane[tonumber(string.sub(name, 2))] = at
      if at > cur then
        cur = at -- a lagging caller reads at the newest pane
      end
    elseif name ~= 'e' then
      errors[name] = tonumber(value)
    end
  end
  if not format then
    return {}
  end
  checkFormat(format, keys[2], TFORMAT)
  local entries = redis.call('ZRANGE', keys[1], 0, -1, 'WITHSCORES')
  local held, least = {}, {}
  local parsed = {}
  for i = 1, #entries, 2 do
    local score = tonumber(entries[i + 1])
    local slot = math.floor(score / TWO40)
    local at = pane[slot]
    if at and at > cur - p then
      local c = score - slot * TWO40
      held[slot] = (held[slot] or 0) + 1
      if not least[slot] then
        least[slot] = c -- the set is in score order: a slot's first counter is its smallest
      end
      parsed[#parsed + 1] = {entries[i], slot, c}
    end
  end
  local minSum, mins = 0, {}
  for slot, count in pairs(held) do
    mins[slot] = count >= k and least[slot] or 0
    minSum = minSum + mins[slot]
  end
  local up, low, names = {}, {}, {}
  for i = 1, #parsed do
    local member, slot, c = parsed[i][1], parsed[i][2], parsed[i][3]
    local key = string.sub(member, string.len(fmt(slot)) + 2)
    if not up[key] then
      up[key], low[key] = 0, 0
      names[#names + 1] = key
    end
    up[key] = up[key] + c - mins[slot]
    low[key] = low[key] + c - (errors[member] or 0)
  end
  local ranked = {}
  for i = 1, #names do
    local key = names[i]
    local count = minSum + up[key]
    ranked[i] = {key, count, count - math.min(count, low[key])}
  end
  table.sort(ranked, function(a, b)
    if a[2] ~= b[2] then
      return a[2] > b[2]
    end
    return a[1] < b[1]
  end)
  local reply = {}
  for i = 1, math.min(want, #ranked) do
    reply[#reply + 1] = ranked[i][1]
    reply[#reply + 1] = ranked[i][2]
    reply[#reply + 1] = ranked[i][3]
  end
  return reply
end

-- Adding a function: its code in the section of its kind (a read-only limiter answer next to
-- wp_count and acquire, reading through Panes.load / Weighted.load, which write nothing for a
-- format 3 key, and never calling record; a new kind of state, such as a per-pane sketch, in a
-- section and key of its own with its own format, like the histograms), then its name below:
-- NAMES, or READ_ONLY when it writes nothing (FCALL_RO, replicas). Raise VERSION.
local NAMES = {'wp_version', 'wp_add', 'wp_count', 'wp_acquire', 'wp_take', 'wp_holds',
  'wp_record', 'wp_xrecord', 'wp_lock', 'wp_renew', 'wp_unlock', 'wp_replay', 'wp_replay_record',
  'wp_replay_xrecord', 'wp_topadd', 'wp_lease', 'wp_release', 'wp_group'}
local READ_ONLY = {'wp_summary', 'wp_xsummary', 'wp_peek', 'wp_top'} -- FCALL_RO may call them, on replicas too
-- batches (version 10): keys of several slots of one node (see "batches and groups")
local CROSS_SLOT = {'wp_add_all', 'wp_count_all', 'wp_take_all'}
local CROSS_SLOT_READ_ONLY = {'wp_summary_all', 'wp_xsummary_all'}

if redis.register_function then
  -- FUNCTION LOAD (library-loading globals are restricted: no pairs/ipairs)
  for i = 1, #NAMES do
    redis.register_function(NAMES[i], EXPORTS[NAMES[i]])
  end
  for i = 1, #READ_ONLY do
    redis.register_function{function_name = READ_ONLY[i], callback = EXPORTS[READ_ONLY[i]],
      flags = {'no-writes'}}
  end
  for i = 1, #CROSS_SLOT do
    redis.register_function{function_name = CROSS_SLOT[i], callback = EXPORTS[CROSS_SLOT[i]],
      flags = {'allow-cross-slot-keys'}}
  end
  for i = 1, #CROSS_SLOT_READ_ONLY do
    redis.register_function{function_name = CROSS_SLOT_READ_ONLY[i],
      callback = EXPORTS[CROSS_SLOT_READ_ONLY[i]], flags = {'no-writes', 'allow-cross-slot-keys'}}
  end
else
  -- EVAL / EVALSHA: ARGV[1] names the function, the rest are its arguments
  local name = table.remove(ARGV, 1)
  local f = EXPORTS[name]
  if f == nil then
    return redis.error_reply('WPARGS unknown function ' .. tostring(name))
  end
  if redis.REDIS_VERSION then -- Redis 7 and later
    return f(KEYS, ARGV)
  end
  -- Redis 6: fail() raises a table, which its script error handler cannot format ("attempt to
  -- concatenate ... a table value"); the table comes back as the error reply it stands for
  local ok, reply = pcall(f, KEYS, ARGV)
  if not ok and type(reply) ~= 'table' then
    error(reply)
  end
  return reply
end
