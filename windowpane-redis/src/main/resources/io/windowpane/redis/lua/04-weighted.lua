-- ---- weighted ---------------------------------------------------------------------------
--
-- One hash: v = '1' (the format), w = the index of the newest fixed window written
-- (floor(t / W)), a = its count, b = the count of window w - 1. Only a write moves w, and the
-- write that moves it sets the TTL to (w + 2) W, when window w stops weighing: a call that finds
-- w at its own window records with one HINCRBY of a. A write that moves w writes a, b and w
-- (and v), every field there is, so a key whose windows have both left is overwritten, not
-- deleted first. Count at t in window k = w: a + ceil(b * (W - elapsed) / W); in window w + 1:
-- the same with a = 0, b = a.

local Weighted = {}
Weighted.__index = Weighted

-- f: the reply of HMGET key v w a b, if the caller already has it; ro: write nothing
function Weighted.load(key, now, w, f, ro)
  local k = floordiv(now, w)
  f = f or redis.call('HMGET', key, 'v', 'w', 'a', 'b')
  local s = setmetatable({key = key, now = now, w = w, k = k, a = 0, b = 0, move = true,
    fresh = true}, Weighted)
  if not f[1] then
    return s
  end
  checkFormat(f[1], key)
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
    if self.fresh then
      redis.call('HSET', self.key, 'w', self.k, 'a', self.a, 'b', self.b, 'v', FORMAT)
    else -- moved on, or both windows had left (dead): every field written again
      redis.call('HSET', self.key, 'w', self.k, 'a', self.a, 'b', self.b)
    end
    pexpire(self.key, (self.k + 2) * self.w - self.now)
    self.move, self.fresh, self.dead = false, false, false
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
