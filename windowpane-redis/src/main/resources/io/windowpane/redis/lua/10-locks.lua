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
