-- windowpane-bench peer "lock-zset", version 1: release of a SET NX PX lock, deleting the lock
-- only if it still holds this caller's token (the release every lock article shows).
--
-- KEYS[1]  the lock key
-- ARGV[1]  the caller's token
-- Returns 1 if the lock was released, 0 if it had expired or belonged to someone else.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
