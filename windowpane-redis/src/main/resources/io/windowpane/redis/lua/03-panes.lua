-- ---- panes -----------------------------------------------------------------------------
--
-- One hash: v = '1' (the format), h = the newest pane written (floor(t / r) of the last
-- write), o = the sum of the live panes older than h, and one field per pane (h - P, h], named by
-- its ring slot (pane mod P), holding its count (absent or 0: none).
--
-- Invariants. Only a write moves h. A call that finds h at its own pane has nothing to expire
-- and records with one HINCRBY of its slot (o does not change within a pane). The key is live
-- while floor(now / r) - h < P. A write that moves h past panes zeroes their slots in the same
-- HSET, so a slot either holds its pane of (h - P, h] or 0, and the hash never holds more than
-- P + 4 fields (t: an adaptive key's last step).
--
-- An adaptive key at factor k (v = '1x<k>', see "adaptive windows" in 02) is this layout with
-- P / k panes of k r: Panes.at computes at the key's factor, Panes.load finds it. A write by an
-- adaptive caller may first step the key (Panes:step, foldPanes).
--
-- Expiry without a stored expiry. The write that moves h to a pane c sets the TTL to
-- (c + P + 1) r (the instant pane c + 1 leaves the window), except when c is odd and the head
-- was at c - 1: the write that moved it to c - 1, an even pane, set (c + P) r, which is when
-- pane c leaves. So after every write that moves h to c the key lives until at least (c + P) r
-- and at most (c + P + 1) r, within W + r of the last event, and a key written every pane pays
-- a PEXPIRE every other pane. The rule reads nothing but h, which every call reads anyway.
--
-- The head moving one pane on (the usual case for a key seen every pane or so) needs no read
-- beyond the first HMGET, which also reads the slot of cur - 1: pane cur - P leaves (it is in
-- cur's slot) and h = cur - 1 joins the older panes. Moving further reads h's slot and the
-- slots of the other leaving panes in one more HMGET.
--
-- A read or a denial writes nothing: a call finding h behind its pane works out the panes that
-- left and the new o from what it read, and leaves the hash as it was; a key whose panes have
-- all left is deleted by the next write, not by the read. (Panes.load writes nothing;
-- Panes:record and the hot path's writer, hotRecord, write.)

local Panes = {}
Panes.__index = Panes

-- the ring slot of the pane before pane cur, whose slot is slot
local function previousSlot(slot, p)
  return slot == 0 and p - 1 or slot - 1
end

-- the new o and the slots to zero when the head moves from h to cur (h < cur < h + p), from
-- f = HMGET key v h o <cur's slot> <the slot of cur - 1>: pane h joins the older panes and the
-- panes (h - p, cur - p] leave; cur's slot holds pane cur - p. Returns o and false (one pane
-- on: nothing else to read or zero) or o and the slots to zero.
local function movedOlder(key, f, h, cur, p)
  local o = tonumber(f[3]) - (tonumber(f[4]) or 0)
  if cur - h == 1 then
    return o + (tonumber(f[5]) or 0), false
  end
  -- read h's slot and the leaving panes' (pane cur - 1 - p's slot, cur - 1's, was read)
  local fields, zero = {h - floordiv(h, p) * p}, {}
  for q = h - p + 1, cur - p - 1 do
    local z = q - floordiv(q, p) * p
    zero[#zero + 1] = z
    if q < cur - p - 1 then
      fields[#fields + 1] = z
    end
  end
  local values = redis.call('HMGET', key, unpack(fields))
  o = o + (tonumber(values[1]) or 0) - (tonumber(f[5]) or 0)
  for i = 2, #values do
    o = o - (tonumber(values[i]) or 0)
  end
  return o, zero
end

-- The window at factor k (p = the declared panes / k); f: the reply of HMGET key v h o
-- <cur's slot> <the slot of cur - 1> at that factor, if the caller already has it. A key whose
-- panes have all left is the same as absent: a window at factor 1 that deletes it on its write.
function Panes.at(key, now, w, declared, k, f)
  local p = declared / k
  local r = w / p
  local cur = floordiv(now, r)
  local slot = cur - floordiv(cur, p) * p
  f = f or redis.call('HMGET', key, 'v', 'h', 'o', slot, previousSlot(slot, p))
  local s = setmetatable({key = key, now = now, w = w, declared = declared, k = k, r = r, p = p,
    cur = cur, h = false, o = 0, current = 0, move = true, zero = false}, Panes)
  if not f[1] then
    return s
  end
  local h, o = tonumber(f[2]), tonumber(f[3])
  if cur - h >= p then -- every pane has left: the same as absent (deleted by a write)
    if k > 1 then
      s = Panes.at(key, now, w, declared, 1, {})
    end
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
    s.o, s.zero = movedOlder(key, f, h, cur, p)
  end
  return s
end

-- The window of key as the caller declared it (p panes; min: its minPanes, false if not
-- adaptive) at the key's own factor. f: the reply of HMGET key v h o <cur's slot> <the slot of
-- cur - 1> at factor 1, if the caller already has it; ro: write nothing (wp_peek: Panes.load
-- writes nothing anyway; only Panes:record writes, and with min it may step the key first)
function Panes.load(key, now, w, p, f, ro, min)
  local k = 1
  if not f then
    local r = w / p
    local cur = floordiv(now, r)
    local slot = cur - floordiv(cur, p) * p
    f = redis.call('HMGET', key, 'v', 'h', 'o', slot, previousSlot(slot, p))
  end
  if f[1] and f[1] ~= FORMAT then
    k = scaleOf(f[1], key, p)
    f = nil -- read again at the key's factor
  else
    checkFormat(f[1], key)
  end
  local s = Panes.at(key, now, w, p, k, f)
  s.min = not ro and min
  return s
end

-- The stored panes of s (live, at factor s.k) folded into factor to, written over the key with
-- the step's time t = now and the expiry of the new head (the design note of "adaptive
-- windows"). Returns false, the key deleted, when no pane is left in the new window.
local function foldPanes(s, to)
  local p, h, key = s.p, s.h, s.key
  local slots = {}
  for i = 1, p do
    slots[i] = i - 1
  end
  local values = redis.call('HMGET', key, unpack(slots))
  local np = s.declared / to
  local nr = s.w / np
  local nh = to > s.k and floordiv(h, 2) or 2 * h
  local from = math.max(nh, floordiv(s.now, nr)) - np -- new panes after from are in the window
  local counts = {}
  for q = math.max(h, s.cur) - p + 1, h do
    local c = tonumber(values[q - floordiv(q, p) * p + 1]) or 0
    local nq = to > s.k and floordiv(q, 2) or 2 * q
    if c ~= 0 and nq > from then
      counts[nq] = (counts[nq] or 0) + c
    end
  end
  redis.call('DEL', key)
  local out, o, any = {'v', scaledFormat(to), 'h', nh, 't', s.now}, 0, false
  for nq = math.max(from + 1, nh - np + 1), nh do
    local c = counts[nq]
    if c then
      any = true
      out[#out + 1], out[#out + 2] = nq - floordiv(nq, np) * np, c
      if nq < nh then
        o = o + c
      end
    end
  end
  if not any then
    return false
  end
  out[#out + 1], out[#out + 2] = 'o', o
  redis.call('HSET', key, unpack(out))
  pexpire(key, (nh + np + 1) * nr - s.now)
  return true
end

-- Before a write by an adaptive caller: the step the key takes, if any and if damping allows
-- (mayStep), folding its panes; s is then the window at the new factor. A key created by the
-- write after a step (absent, or every pane left) notes the step's time in its first HSET.
function Panes:step()
  local to = stepTo(self.k, self.declared, self.min)
  self.min = false
  if not to or not mayStep(self.key, self.now, self.w) then
    return
  end
  local kept = self.h and foldPanes(self, to)
  if self.dead then
    redis.call('DEL', self.key)
  end
  local s = Panes.at(self.key, self.now, self.w, self.declared, to)
  for name, value in pairs(s) do
    self[name] = value
  end
  self.dead = false
  if not kept then
    self.h, self.stepped = false, true
  end
end

function Panes:count()
  return self.o + self.current
end

function Panes:countWith(n)
  return self.o + self.current + n
end

-- whether a write moving the head from h (false: none) to cur sets the TTL (see "Expiry")
local function panesExpire(h, cur)
  return not h or cur - h ~= 1 or cur % 2 == 0
end

function Panes:record(n)
  if self.min then
    self:step()
  end
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
    args[7], args[8] = 'v', scaledFormat(self.k)
    if self.stepped then
      args[9], args[10] = 't', self.now
    end
  end
  local zero = self.zero
  for i = 1, zero and #zero or 0 do
    args[#args + 1] = zero[i]
    args[#args + 1] = 0
  end
  redis.call('HSET', self.key, unpack(args))
  if panesExpire(self.h, cur) then
    pexpire(self.key, (cur + p + 1) * r - self.now)
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
