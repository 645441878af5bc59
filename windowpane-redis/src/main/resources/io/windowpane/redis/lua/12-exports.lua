-- Adding a function: its code in the section of its kind (a read-only limiter answer next to
-- wp_count and acquire, reading through Panes.load / Weighted.load, which write nothing, and
-- never calling record; a new kind of state, such as a per-pane sketch, in a
-- section and key of its own with its own format, like the histograms), then its name below:
-- NAMES, or READ_ONLY when it writes nothing (FCALL_RO, replicas). Raise VERSION. The library
-- is assembled from the files of this directory in name order (lua/library.txt lists them).
local NAMES = {'wp_version', 'wp_add', 'wp_count', 'wp_acquire', 'wp_take', 'wp_holds',
  'wp_record', 'wp_xrecord', 'wp_lock', 'wp_renew', 'wp_unlock', 'wp_replay', 'wp_replay_record',
  'wp_replay_xrecord', 'wp_topadd', 'wp_lease', 'wp_release', 'wp_group', 'wp_add_at',
  'wp_record_at', 'wp_xrecord_at'}
local READ_ONLY = {'wp_summary', 'wp_xsummary', 'wp_peek', 'wp_top'} -- FCALL_RO may call them, on replicas too
-- batches: keys of several slots of one node (see "batches and groups")
local CROSS_SLOT = {'wp_add_all', 'wp_count_all', 'wp_take_all', 'wp_replay_all',
  'wp_replay_record_all', 'wp_replay_xrecord_all', 'wp_record_all', 'wp_xrecord_all'}
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
