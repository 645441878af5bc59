-- ---- top keys: a Space-Saving sketch per pane ------------------------------------------
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
  checkFormat(f[1], h)
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
      redis.call('HSET', h, 'v', FORMAT, 'p' .. slot, cur, 'e', expiry)
      pexpire(z, expiry - now)
      pexpire(h, expiry - now)
    else
      redis.call('HSET', h, 'v', FORMAT, 'p' .. slot, cur)
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
  checkFormat(format, keys[2])
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
