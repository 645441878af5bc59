-- windowpane-bench peer "zset-lua", version 1: the plain sorted-set sliding-log rate limit that
-- blog posts and answers recommend, run atomically as one script (EVALSHA). Not windowpane code.
--
-- KEYS[1]  the log of one key: a sorted set, score = event time (ms), one member per allowed event
-- ARGV[1]  now, client clock, epoch ms
-- ARGV[2]  window length, ms
-- ARGV[3]  limit: events allowed in the window (now - window, now]
-- ARGV[4]  a member unique to this event
-- Returns 1 if the event fits (and is recorded), 0 if it is denied (nothing recorded).
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return 1
end
return 0
