-- ---- panes -----------------------------------------------------------------------------
--
-- One hash: v = '1' (the format), h = the newest pane written (floor(t / r) of the last write),
-- o = the sum of the live panes older than h, e = the expiry last set by PEXPIRE (ms, without the caller's
-- grace), and one field per pane (h - P, h], named by its ring slot (pane mod P), holding its
-- count (absent or 0: none).
--
-- Invariants. Only a write moves h, and the write that moves h to a pane c leaves e >= (c + P) r,
-- the instant pane c leaves the window: so a call that finds h at its own pane has nothing to
-- expire and records with one HINCRBY of its slot (o does not change within a pane). The key is
-- live while floor(now / r) - h < P (its logical expiry, (h + P + 1) r). A write
-- that moves h past panes zeroes their slots in the same HSET, so a slot either holds its pane of
-- (h - P, h] or 0, and the hash never holds more than P + 4 fields. PEXPIRE sets (c + P + 1) r,
-- which also covers a write in pane c + 1: it runs at most every other pane.
--
-- A read or a denial writes nothing: a call finding h behind its pane works out the panes that
-- left and the new o from what it read, and leaves the hash as it was; a key whose panes have
-- all left is deleted by the next write, not by the read. (Panes.load writes nothing;
-- Panes:record and nothing else writes.)

local Panes = {}
Panes.__index = Panes

-- f: the reply of HMGET key v h o <cur's slot>, if the caller already has it; ro: write
-- nothing (wp_peek: Panes.load writes nothing anyway; only Panes:record writes)
function Panes.load(key, now, w, p, f, ro)
  local r = w / p
  local cur = floordiv(now, r)
  local slot = cur - floordiv(cur, p) * p
  f = f or redis.call('HMGET', key, 'v', 'h', 'o', slot)
  local s = setmetatable({key = key, now = now, r = r, p = p, cur = cur, h = false, o = 0,
    current = 0, e = false, move = true, zero = false}, Panes)
  if not f[1] then
    return s
  end
  checkFormat(f[1], key)
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
    args[7], args[8] = 'v', FORMAT
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
