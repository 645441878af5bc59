-- ---- windows from KEYS and ARGV ---------------------------------------------------------

local MAX_WINDOW = 366 * 24 * 3600 * 1000

-- Reads one window spec at args[i..i+2] (algorithm, window ms, panes) with its keys from
-- keys[k..]; returns the loaded window, the next arg index and the next key index.
-- ro: load without writing anything (wp_peek)
local function window(keys, k, args, i, now, f, ro)
  local algorithm = args[i]
  local w = cached(WINDOWS, args[i + 1], 'window', 1, MAX_WINDOW)
  local p, min = panesArg(args[i + 2])
  if algorithm == 'p' then
    if w % p ~= 0 then
      fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
    end
    return Panes.load(keys[k], now, w, p, f, ro, min), i + 3, k + 1
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
-- nothing moves on: one HMGET and one HINCRBY decide, without building window objects. A key
-- whose head moves on (a key seen every few panes, a new one, one whose panes have all left)
-- takes the same road: one HSET of the new pane's count, the head and the older panes' sum
-- (and the slots that left), and a PEXPIRE where the expiry rule asks for one ("warm"). The
-- functions return the count before the call, the field that hotRecord writes, the HMGET reply
-- (for the general code should the request be denied) and, when the head moves, the move:
-- {head field, head, other field, its value, ttl or false, slots to zero or false, delete
-- first, write the format}. Anything else (a lagging caller, another format, a coarsened key,
-- an adaptive window under memory pressure) returns nil and the loaded window.

local function hotPanes(key, now, w, p, min)
  local r = w / p
  local cur = floordiv(now, r)
  local slot = cur - floordiv(cur, p) * p
  local f = redis.call('HMGET', key, 'v', 'h', 'o', slot, previousSlot(slot, p))
  if min and coarsen and p >= 2 * min then -- the write may coarsen the key: the general code
    return nil, Panes.load(key, now, w, p, f, false, min)
  end
  if f[1] == FORMAT then
    local h = tonumber(f[2])
    -- hot: at the current pane, whose first write set the expiry (the layout's invariant)
    if h == cur then
      return tonumber(f[3]) + (tonumber(f[4]) or 0), slot, f
    elseif cur - h >= p then -- every pane has left: start again
      return 0, slot, f, {'h', cur, 'o', 0, (cur + p + 1) * r - now, false, true, true}
    elseif h < cur then
      local o, zero = movedOlder(key, f, h, cur, p)
      return o, slot, f, {'h', cur, 'o', o,
        panesExpire(h, cur) and (cur + p + 1) * r - now, zero, false, false}
    end
  elseif not f[1] then
    return 0, slot, f, {'h', cur, 'o', 0, (cur + p + 1) * r - now, false, false, true}
  end
  return nil, Panes.load(key, now, w, p, f, false, min)
end

local function hotWeighted(key, now, w)
  local k = floordiv(now, w)
  local f = redis.call('HMGET', key, 'v', 'w', 'a', 'b')
  local b
  if f[1] == FORMAT then
    local k0 = tonumber(f[2])
    if k0 == k then
      b = tonumber(f[4])
    elseif k0 == k - 1 then -- the next fixed window: a becomes b
      b = tonumber(f[3])
    elseif k0 < k then -- both windows have left: every field is written again
      b = 0
    end
  elseif not f[1] then
    b = 0
  end
  if not b then
    return nil, Weighted.load(key, now, w, f)
  end
  local previous = 0
  if b > 0 then
    local q, rem = muldiv(b, w - (now - k * w), w)
    previous = rem > 0 and q + 1 or q
  end
  if f[1] and tonumber(f[2]) == k then
    return tonumber(f[3]) + previous, 'a', f
  end
  return previous, 'a', f, {'w', k, 'b', b, (k + 2) * w - now, false, false, not f[1]}
end

-- records n on the hot path: field is cur's slot (panes) or 'a' (weighted); move, when the
-- head moves on, as hotPanes and hotWeighted return it; returns the count
local function hotRecord(key, before, field, n, move)
  if not move then
    redis.call('HINCRBY', key, field, n)
    return before + n
  end
  if move[7] then
    redis.call('DEL', key)
  end
  local zero = move[6]
  if zero then
    local args = {field, n, move[1], move[2], move[3], move[4]}
    for i = 1, #zero do
      args[#args + 1] = zero[i]
      args[#args + 1] = 0
    end
    redis.call('HSET', key, unpack(args))
  elseif move[8] then
    redis.call('HSET', key, field, n, move[1], move[2], move[3], move[4], 'v', FORMAT)
  else
    redis.call('HSET', key, field, n, move[1], move[2], move[3], move[4])
  end
  if move[5] then
    pexpire(key, move[5])
  end
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
  local p, min = panesArg(args[i + 2])
  if algorithm == 'w' then
    return hotWeighted(key, now, w)
  end
  if w % p ~= 0 then
    fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
  end
  return hotPanes(key, now, w, p, min)
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
  local before, field, _, move = hot(keys[1], args, 3, now)
  if before then
    return hotRecord(keys[1], before, field, n, move)
  end
  local win = field or window(keys, 1, args, 3, now)
  return win:record(n)
end

EXPORTS.wp_add = function(keys, args)
  local now = now_ms(args[1])
  refuseNewKeys(keys)
  return addAt(keys, args, now)
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
-- The lean path (one HMGET, HINCRBY, arguments checked once).
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
    local before, field, f, move = hot(keys[1], args, 4, now)
    if before then
      if before + n <= limit then
        return limit - hotRecord(keys[1], before, field, n, move)
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
    local before, field, f, move = hot(keys[j], args, i, now)
    if before then
      hots[j] = {before, field, f, move}
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
      remaining = math.min(remaining, limits[j] - hotRecord(keys[j], h[1], h[2], n, h[4]))
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
  local now = now_ms(args[1])
  refuseNewKeys(keys)
  return acquireAt(keys, args, now)
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

-- FCALL wp_take, the same KEYS and ARGV as wp_acquire
-- -> allowed: (integer) remaining; denied: {0, remaining, denying limit (1-based), retry after}
EXPORTS.wp_take = function(keys, args)
  local reply = acquire(keys, args)
  if type(reply) == 'table' and reply[1] == 1 then
    return reply[2]
  end
  return reply
end

-- FCALL_RO wp_peek, the same KEYS and ARGV as wp_acquire
-- -> {allowed 1|0, remaining, index of the denying limit (1-based) or 0, retry after ms}: what
-- wp_acquire would answer now, recording nothing and writing nothing (registered no-writes): a
-- log's entries that have left are skipped rather than removed, so the answer is the same as if
-- the writes had been made.
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
-- The ARGV of wp_acquire with min in the permits' place, and max after the quota.
-- Grants the largest g <= max that fits every limit at t, if g >= min, and records g exactly
-- as wp_acquire of g at t would (remaining: what it left); else records nothing, g = 0 and the
-- rest is wp_acquire's denial of min. The general code only: wp_take's paths stay as they are.
EXPORTS.wp_lease = function(keys, args)
  local now = now_ms(args[1])
  local lo = cached(COUNTS, args[2], 'min', 1, TWO52)
  local count = cached(LIMITS, args[3], 'limits', 1, 8)
  local hi = int(args[4 + 4 * count], 'max', lo, TWO52)
  quotaKeys(keys, args, count)
  refuseNewKeys(keys)
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
    if f[1] and (algorithm == 'p' or algorithm == 'w') then -- the expiry follows from the head
      local w = int(args[4 + j * 3], 'window', 1, MAX_WINDOW)
      if algorithm == 'w' then
        e = (tonumber(f[4]) + 2) * w
      else
        local p = panesArg(args[5 + j * 3])
        p = p / scaleOf(f[1], holder, p) -- the key's own panes
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
