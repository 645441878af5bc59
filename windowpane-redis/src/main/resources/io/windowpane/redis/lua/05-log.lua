-- ---- log -------------------------------------------------------------------------------

local Log = {}
Log.__index = Log

local function entryCount(member)
  return tonumber(string.match(member, ':(%d+)$'))
end

local LEAVING = 7 -- the log's entries read at once beyond the ones that left (ZRANGE 0 LEAVING)

-- ro (wp_peek): write nothing; the entries that left stay in the set, and skip
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
    -- the oldest entries and the first one left after them in one read (a steady
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
  if self.fresh then -- only the fields that change
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
