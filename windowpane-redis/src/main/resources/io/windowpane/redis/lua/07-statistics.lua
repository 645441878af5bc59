-- ---- statistics: histogram windows -------------------------------------------------------
--
-- Values arrive as decimal strings that read back as the same double (Java's Double.toString,
-- %.17g). Stored doubles go to redis.call as Lua numbers, which Redis writes exactly (%.17g);
-- num() spells out what Redis would not keep: -0 (written "0") and the non-finite sums of an
-- overflow ("inf", "-inf", "nan"; tonumber reads them back). Replies carry doubles as strings
-- from dstr(): a Lua number in a reply would be truncated to an integer.
--
-- A value v goes to bucket 0 if v == 0, else to sign(v) * clamp(ceil(ln|v| / ln g) - minIndex
-- + 1, 1, span) with g = (1 + a) / (1 - a): LogBuckets.key of the Java engine. The caller
-- passes minIndex and span, so keys stay in [-span, span] even where this server's log differs
-- from the caller's by an ulp; a value on a bucket edge may then land in the neighbouring
-- bucket, which reports it within a as well.
--
-- Per pane the hash keeps the fields of the Java engine's StatsPane: count, the compensated sum
-- (high part s and error term e, Neumaier/TwoSum as CompensatedSum), min, max and a count per
-- occupied bucket, plus the list of those buckets (S:k) so that the call moving the head past
-- the pane can delete every field of it. Only panes in (h - P, h] have fields ("stored"), so the
-- hash holds at most 3 + P * (6 + occupied buckets) fields.
--
-- The window aggregate. Merging every pane's buckets at each summary costs O(P x occupied
-- buckets per pane): 6,880 fields and ~5 ms at 10,000 lognormal values in 60 panes. So a second
-- hash (KEYS[2], same hash tag) holds, per bucket key, the count summed over the stored panes.
-- Invariant, kept by every record in the same atomic call: aggregate = sum of the stored panes'
-- bucket counts, no field at 0. A record adds its values' buckets; the record that moves the
-- head subtracts the buckets of the panes it deletes; the record that finds the hash absent or
-- expired deletes the aggregate too before writing. Both keys get the same PEXPIRE, and the
-- first hash alone says whether the window is live: an aggregate without it is ignored and
-- replaced. A summary reads the head and the P slots' scalars (count, sum, min, max: O(P)) and
-- the aggregate (O(occupied buckets in the window)). Stored panes that have left by the
-- summary's time (only on a key idle since its last record: a summary never writes) are
-- subtracted; if they outnumber the live panes, the live panes' buckets are merged instead, so
-- an idle key costs at most P / 2 panes' buckets. The panes stay the source of the count, sum,
-- min and max (merged as before: bit for bit the local engine's) and of what leaves; a summary
-- whose buckets do not add up to its count fails with WPFORMAT rather than answer from an
-- aggregate that something else changed.

local INF = 1 / 0
local MAX_BATCH = 10000 -- values per record call
local MAX_HELD = 1000000 -- values an exact window may hold
local CHUNK = 1000 -- arguments per chunked call: unpack takes fewer than 8000 values
local EMPTY = {0, '0', 'nan', 'nan'}

-- a double as a %.17g string, exact; inf, -inf and nan spelled so
local function dstr(x)
  if x ~= x then
    return 'nan'
  elseif x == INF then
    return 'inf'
  elseif x == -INF then
    return '-inf'
  end
  return string.format('%.17g', x)
end

-- a double for redis.call: the Lua number itself where Redis writes it exactly
local function num(x)
  if x == 0 then
    return 1 / x < 0 and '-0' or 0
  elseif x ~= x or x == INF or x == -INF then
    return dstr(x)
  end
  return x
end

local function finite(value, what)
  local x = tonumber(value)
  if x == nil or x ~= x or x == INF or x == -INF then
    fail('WPARGS', what .. ' must be a finite number, was ' .. tostring(value))
  end
  return x
end

-- the values args[from..]: 1 to MAX_BATCH finite numbers, as a Lua array
local function batch(args, from)
  local n = #args - from + 1
  if n < 1 or n > MAX_BATCH then
    fail('WPARGS', 'values must hold 1 to ' .. fmt(MAX_BATCH) .. ' values, was ' .. fmt(n))
  end
  local values = {}
  for i = 1, n do
    values[i] = finite(args[from + i - 1], 'value')
  end
  return values
end

-- HMGET of any number of fields (in chunks, unpack has a limit)
local function hmget(key, fields)
  local n = #fields
  if n <= CHUNK then
    return redis.call('HMGET', key, unpack(fields))
  end
  local out = {}
  for from = 1, n, CHUNK do
    local part = redis.call('HMGET', key, unpack(fields, from, math.min(n, from + CHUNK - 1)))
    for i = 1, #part do
      out[from + i - 1] = part[i]
    end
  end
  return out
end

-- command key list... in chunks of CHUNK arguments (even: field-value pairs stay together)
local function chunked(command, key, list)
  local n = #list
  for from = 1, n, CHUNK do
    redis.call(command, key, unpack(list, from, math.min(n, from + CHUNK - 1)))
  end
end

-- high, low + x: one step of Neumaier's compensated sum (the error of high + x by TwoSum)
local function twoSum(high, low, x)
  local s = high + x
  local bv = s - high
  return s, low + ((high - (s - bv)) + (x - bv))
end

-- args[i..i+4]: W, P (or P:minPanes), relative accuracy, minIndex, span -> w, p, ln g,
-- minIndex, span, minPanes (false: not adaptive)
local function histogramSpec(args, i)
  local w = int(args[i], 'window', 1, MAX_WINDOW)
  local p, min = panesArg(args[i + 1])
  if w % p ~= 0 then
    fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
  end
  local a = tonumber(args[i + 2])
  if a == nil or not (a >= 0.001 and a <= 0.2) then
    fail('WPARGS', 'accuracy must be a number in [0.001, 0.2], was ' .. tostring(args[i + 2]))
  end
  local minIndex = int(args[i + 3], 'minIndex', -2147483648, 2147483647)
  local span = int(args[i + 4], 'span', 1, 131071) -- 2 * span + 1 <= 2^18 buckets
  return w, p, math.log((1 + a) / (1 - a)), minIndex, span, min
end

-- HMGET fields of slot S for a record: head, the pane's scalars and list, then its buckets
local function slotFields(slot, order)
  local s = slot .. ':'
  local fields = {'v', 'e', 'h', s .. 'n', s .. 's', s .. 'e', s .. 'min', s .. 'max', s .. 'k'}
  for j = 1, #order do
    fields[9 + j] = s .. order[j]
  end
  return fields
end

-- the summed counts per bucket of slots' panes, read from their lists: a map key -> count, the
-- keys in order of first appearance and the names of the bucket fields read. lists: the slots'
-- S:k values, read by the caller or (nil) here
local function paneBuckets(key, slots, lists)
  if not lists then
    lists = {}
    for i = 1, #slots do
      lists[i] = slots[i] .. ':k'
    end
    lists = hmget(key, lists)
  end
  local fields, keys, n = {}, {}, 0
  for i = 1, #slots do
    if lists[i] then
      local s = slots[i] .. ':'
      for k in string.gmatch(lists[i], '[^,]+') do
        n = n + 1
        fields[n], keys[n] = s .. k, tonumber(k)
      end
    end
  end
  local counts, order, m = {}, {}, 0
  if n > 0 then
    local values = hmget(key, fields)
    for i = 1, n do
      local k = keys[i]
      local c = counts[k]
      if c then
        counts[k] = c + (tonumber(values[i]) or 0)
      else
        counts[k] = tonumber(values[i]) or 0
        m = m + 1
        order[m] = k
      end
    end
  end
  return counts, order, fields
end

-- deletes the fields of panes (h - p, cur - p], which leave as the head moves from h to cur;
-- cur's slot held the newest of them, its list already read (list). Returns their summed
-- bucket counts (paneBuckets), for the aggregate.
local function leave(key, h, cur, p, slot, list)
  local slots, lists = {slot}, {list}
  if cur - h > 1 then
    local names = {}
    for q = h - p + 1, cur - p - 1 do
      slots[#slots + 1] = q - floordiv(q, p) * p
      names[#names + 1] = slots[#slots] .. ':k'
    end
    names = hmget(key, names)
    for i = 1, #names do
      lists[i + 1] = names[i]
    end
  end
  local counts, order, gone = paneBuckets(key, slots, lists)
  local n = #gone
  for i = 1, #slots do -- and the scalars
    local s = slots[i] .. ':'
    gone[n + 1], gone[n + 2], gone[n + 3], gone[n + 4], gone[n + 5], gone[n + 6] =
      s .. 'n', s .. 's', s .. 'e', s .. 'min', s .. 'max', s .. 'k'
    n = n + 6
  end
  chunked('HDEL', key, gone)
  return counts, order
end

-- applies to the aggregate agg the counts of a record (counts, order) less those of the panes
-- leaving (goneCounts, goneOrder: nil if none); a bucket reaching 0 is deleted
local function aggregate(agg, counts, order, goneCounts, goneOrder)
  if not goneCounts and #order == 1 then
    redis.call('HINCRBY', agg, order[1], counts[order[1]])
    return
  end
  local delta, keys = {}, {}
  for j = 1, #order do
    delta[order[j]] = counts[order[j]]
  end
  if goneCounts then
    for j = 1, #goneOrder do
      local k = goneOrder[j]
      delta[k] = (delta[k] or 0) - goneCounts[k]
    end
  end
  for j = 1, #order do
    if delta[order[j]] ~= 0 then
      keys[#keys + 1] = order[j]
    end
  end
  if goneCounts then
    for j = 1, #goneOrder do
      local k = goneOrder[j]
      if not counts[k] and delta[k] ~= 0 then
        keys[#keys + 1] = k
      end
    end
  end
  if #keys == 0 then
    return
  end
  local before = hmget(agg, keys)
  local set, del = {}, {}
  for i = 1, #keys do
    local k = keys[i]
    local c = (tonumber(before[i]) or 0) + delta[k]
    if c > 0 then
      set[#set + 1] = k
      set[#set + 1] = c
    else
      del[#del + 1] = k
    end
  end
  if #set > 0 then
    chunked('HSET', agg, set)
  end
  if #del > 0 then
    chunked('HDEL', agg, del)
  end
end

-- The HMGET fields of a summary: v, e, h, then the scalars of slot S at 4 + 5 S (n, s, e, min,
-- max). Kept for the last P asked between calls (a library's locals live as long as it is
-- loaded; under EVAL they are built anew each call): building 5 P names costs about a tenth of
-- a summary at P = 60.
local summaryP, summaryList = false, false
local function summaryFields(p)
  if summaryP ~= p then
    local fields = {'v', 'e', 'h'}
    for slot = 0, p - 1 do
      local s, at = slot .. ':', 4 + 5 * slot
      fields[at], fields[at + 1], fields[at + 2], fields[at + 3], fields[at + 4] =
        s .. 'n', s .. 's', s .. 'e', s .. 'min', s .. 'max'
    end
    summaryP, summaryList = p, fields
  end
  return summaryList
end

-- The scalars of slots (in the order given) merged from f, a summary's HMGET (summaryFields):
-- count, the compensated sum's high part and error term, min and max (Math.min and Math.max:
-- -0 below 0), as the Java engine merges its ring
local function mergeScalars(f, slots)
  local count, high, low, mn, mx = 0, 0, 0, INF, -INF
  for i = 1, #slots do
    local at = 4 + 5 * slots[i]
    count = count + tonumber(f[at])
    high, low = twoSum(high, low, tonumber(f[at + 1]))
    high, low = twoSum(high, low, tonumber(f[at + 2]))
    local value = tonumber(f[at + 3])
    if value < mn or (value == mn and 1 / value < 0) then
      mn = value
    end
    value = tonumber(f[at + 4])
    if value > mx or (value == mx and 1 / value > 0) then
      mx = value
    end
  end
  return count, high, low, mn, mx
end

-- The stored panes of a histogram key (live, at factor k, declared panes declared) folded
-- into factor to: per new pane the count, the compensated sum (the panes' parts summed with
-- TwoSum, oldest first), min, max and bucket counts of the panes it takes; the aggregate
-- written anew from them; the new head's expiry; the step's time t = now. Returns false, both
-- keys deleted, when no pane is left in the new window.
local function foldHistogram(keys, now, w, declared, k, to)
  local key, agg = keys[1], keys[2]
  local p = declared / k
  local f = hmget(key, summaryFields(p))
  local h = tonumber(f[3])
  local np = declared / to
  local nr = w / np
  local nh = to > k and floordiv(h, 2) or 2 * h
  local from = math.max(nh, floordiv(now, nr)) - np -- new panes after from are in the window
  local groups = {}
  for q = math.max(h, floordiv(now, w / p)) - p + 1, h do
    local slot = q - floordiv(q, p) * p
    local nq = to > k and floordiv(q, 2) or 2 * q
    if f[4 + 5 * slot] and nq > from then
      local g = groups[nq]
      if g then
        g[#g + 1] = slot
      else
        groups[nq] = {slot}
      end
    end
  end
  local e = (nh + np) * nr
  local out = {'v', scaledFormat(to), 'e', e, 'h', nh, 't', now}
  local total, totalOrder = {}, {}
  for nq = math.max(from + 1, nh - np + 1), nh do
    local g = groups[nq]
    if g then
      local count, high, low, mn, mx = mergeScalars(f, g)
      local counts, order = paneBuckets(key, g)
      local s = (nq - floordiv(nq, np) * np) .. ':'
      local n = #out
      out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5], out[n + 6] =
        s .. 'n', count, s .. 's', num(high), s .. 'e', num(low)
      out[n + 7], out[n + 8], out[n + 9], out[n + 10] = s .. 'min', num(mn), s .. 'max', num(mx)
      out[n + 11], out[n + 12] = s .. 'k', table.concat(order, ',')
      for j = 1, #order do
        local b = order[j]
        out[#out + 1], out[#out + 2] = s .. b, counts[b]
        if total[b] then
          total[b] = total[b] + counts[b]
        else
          total[b] = counts[b]
          totalOrder[#totalOrder + 1] = b
        end
      end
    end
  end
  redis.call('DEL', key, agg)
  if #out == 8 then
    return false
  end
  chunked('HSET', key, out)
  local set = {}
  for j = 1, #totalOrder do
    set[2 * j - 1], set[2 * j] = totalOrder[j], total[totalOrder[j]]
  end
  if #set > 0 then
    chunked('HSET', agg, set)
    pexpire(agg, e - now)
  end
  pexpire(key, e - now)
  return true
end

-- the factor of a histogram key from f = HMGET key v e ...: its own while live, else 1 (an
-- expired key reads as absent, and the record starts it again at factor 1)
local function liveScale(f, key, p, now)
  local k = scaleOf(f[1], key, p)
  return f[1] and tonumber(f[2]) > now and k or 1
end

-- The factor a record writes a histogram key at (f: HMGET key v e ..., read by the caller): the
-- key's own or, for an adaptive caller (min) whose step damping allows, the one it steps to,
-- the panes folded there; and whether the key was deleted by the step (the record that creates
-- it again notes the step's time).
local function recordScale(keys, now, w, declared, min, f)
  local k = liveScale(f, keys[1], declared, now)
  local to = stepTo(k, declared, min)
  if not to or not mayStep(keys[1], now, w) then
    return k, false
  end
  if f[1] and tonumber(f[2]) > now and foldHistogram(keys, now, w, declared, k, to) then
    return to, false
  end
  redis.call('DEL', keys[1], keys[2])
  return to, true
end

-- records values in the pane of t (t = now for wp_record; a replay's earlier time for
-- wp_replay_record, which has checked that the window still holds that pane): the key's
-- liveness and the physical TTLs follow now, the pane written and a new head follow t
-- (min: the caller's minPanes, false if not adaptive; p as the caller declared it)
local function hrecord(keys, now, t, w, p, lng, minIndex, span, values, min)
  local n = #values
  -- per bucket: how many of the values fall in it, in order of first appearance
  local counts, order = {}, {}
  for i = 1, n do
    local v = values[i]
    local k = 0
    if v ~= 0 then
      k = math.ceil(math.log(v < 0 and -v or v) / lng) - minIndex + 1
      if k < 1 then
        k = 1
      elseif k > span then
        k = span
      end
      if v < 0 then
        k = -k
      end
    end
    local c = counts[k]
    if c then
      counts[k] = c + 1
    else
      counts[k] = 1
      order[#order + 1] = k
    end
  end

  local key, agg, r = keys[1], keys[2], w / p
  local cur = floordiv(t, r)
  local pane, slot = cur, cur - floordiv(cur, p) * p
  local f = hmget(key, slotFields(slot, order))
  local k, stepped = 1, false
  if (f[1] and f[1] ~= FORMAT) or (min and stepTo(1, p, min)) then
    -- a coarsened key, or an adaptive window's write under pressure: the key's own factor, or
    -- the one it steps to now
    k, stepped = recordScale(keys, now, w, p, min, f)
    p = p / k
    r = w / p
    cur = floordiv(t, r)
    pane, slot = cur, cur - floordiv(cur, p) * p
    f = hmget(key, slotFields(slot, order))
  else
    checkFormat(f[1], key)
  end
  local head = false -- the head in place, if the key is live and the head stays
  local own = false -- whether f[4..] describe the pane written (not one leaving)
  local fresh = true -- whether the aggregate is empty (deleted here)
  local goneCounts, goneOrder -- the buckets of the panes leaving now
  if f[1] then
    local e, h = tonumber(f[2]), tonumber(f[3])
    if e <= now or cur - h >= p then
      redis.call('DEL', key, agg) -- expired, or every pane has left: the same as absent
    elseif cur > h then
      fresh = false
      -- f's slot held pane cur - p, leaving now
      goneCounts, goneOrder = leave(key, h, cur, p, slot, f[9])
      if #goneOrder == 0 then -- the panes leaving were empty
        goneCounts, goneOrder = nil, nil
      end
    else
      head, own, fresh = h, true, false
      if cur <= h - p then -- a lap behind: act at the newest pane
        pane, slot = h, h - floordiv(h, p) * p
        f = hmget(key, slotFields(slot, order))
      end
    end
  else
    -- no hash: an aggregate left behind (deleted alone, or expiring a moment after it) is stale
    redis.call('DEL', agg)
  end

  local count, high, low, mn, mx, list = 0, 0, 0, INF, -INF, false
  if own and f[4] then
    count, high, low = tonumber(f[4]), tonumber(f[5]), tonumber(f[6])
    mn, mx, list = tonumber(f[7]), tonumber(f[8]), f[9]
  end
  for i = 1, n do
    local v = values[i]
    high, low = twoSum(high, low, v)
    if v < mn then
      mn = v
    end
    if v > mx then
      mx = v
    end
  end
  count = count + n
  local s = slot .. ':'
  local out = {s .. 'n', count, s .. 's', num(high), s .. 'e', num(low), s .. 'min', num(mn),
    s .. 'max', num(mx)}
  local added = {}
  for j = 1, #order do
    local k = order[j]
    local before = own and tonumber(f[9 + j])
    out[#out + 1] = s .. k
    if before then
      out[#out + 1] = before + counts[k]
    else
      out[#out + 1] = counts[k]
      added[#added + 1] = k
    end
  end
  if #added > 0 then
    out[#out + 1] = s .. 'k'
    out[#out + 1] = (list and list .. ',' or '') .. table.concat(added, ',')
  end
  if fresh then
    local set = {}
    for j = 1, #order do
      set[2 * j - 1], set[2 * j] = order[j], counts[order[j]]
    end
    chunked('HSET', agg, set)
  else
    aggregate(agg, counts, order, goneCounts, goneOrder)
  end
  if head then
    chunked('HSET', key, out)
  else -- a new head: the expiry of both keys moves on to when it leaves
    local e = (cur + p) * r
    out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4], out[#out + 5], out[#out + 6] =
      'h', cur, 'e', e, 'v', scaledFormat(k)
    if stepped then
      out[#out + 1], out[#out + 2] = 't', now
    end
    chunked('HSET', key, out)
    pexpire(key, e - now)
    pexpire(agg, e - now)
  end
  return count
end

-- FCALL wp_record 2 <hash> <aggregate> <time|""> <W> <P> <accuracy> <minIndex> <span> <value>...
-- -> (integer) the count of the pane the values went to
local function recordAt(keys, args, now)
  checkKeys(keys, 2)
  local w, p, lng, minIndex, span, min = histogramSpec(args, 2)
  return hrecord(keys, now, now, w, p, lng, minIndex, span, batch(args, 7), min)
end

EXPORTS.wp_record = function(keys, args)
  local now = now_ms(args[1])
  refuseNewKeys(keys)
  return recordAt(keys, args, now)
end

-- FCALL wp_summary 2 <hash> <aggregate> <time|""> <W> <P> <accuracy> <minIndex> <span>
-- -> {count, sum, min, max, key1, count1, key2, count2, ...}: count and bucket keys (ascending)
--    and counts as integers, sum, min and max as %.17g strings. Read-only.
local function summaryAt(keys, args, now)
  checkKeys(keys, 2)
  local w, p = histogramSpec(args, 2)
  local key, agg = keys[1], keys[2]
  local f = hmget(key, summaryFields(p))
  if f[1] and f[1] ~= FORMAT then -- a coarsened key: its own panes
    p = p / scaleOf(f[1], key, p)
    f = hmget(key, summaryFields(p))
  end
  local e, h = tonumber(f[2]), tonumber(f[3])
  if not f[1] or not e or e <= now then
    return EMPTY
  end
  -- stored panes: (h - p, h]; live: those after cur - p; stale: stored, not live
  local cur = floordiv(now, w / p)
  local from = math.max(h - p, cur - p)
  local isLive, live, stale = {}, {}, {}
  for q = h - p + 1, h do
    local slot = q - floordiv(q, p) * p
    if f[4 + 5 * slot] then
      if q > from then
        isLive[slot] = true
        live[#live + 1] = slot
      else
        stale[#stale + 1] = slot
      end
    end
  end
  -- count, min, max and the panes' sums merged in slot order, as the Java engine merges its ring
  local ordered = {}
  for slot = 0, p - 1 do
    if isLive[slot] then
      ordered[#ordered + 1] = slot
    end
  end
  local count, high, low, mn, mx = mergeScalars(f, ordered)
  if count == 0 then
    return EMPTY
  end
  local sum = high + low
  if sum ~= sum then
    sum = high -- inf - inf in the error term: report the overflow
  end
  -- the buckets: the aggregate less the stale panes, or the live panes' own when fewer
  local buckets, order = {}, {}
  if #stale <= #live then
    local all = redis.call('HGETALL', agg)
    local m = 0
    for i = 1, #all, 2 do
      local k = tonumber(all[i])
      buckets[k] = tonumber(all[i + 1])
      m = m + 1
      order[m] = k
    end
    if #stale > 0 then
      local gone, goneOrder = paneBuckets(key, stale)
      for j = 1, #goneOrder do
        local k = goneOrder[j]
        local c = buckets[k]
        if c then
          buckets[k] = c - gone[k]
        else -- not in the aggregate: caught below
          buckets[k] = -gone[k]
          m = m + 1
          order[m] = k
        end
      end
    end
  else
    buckets, order = paneBuckets(key, live)
  end
  -- ascending keys: a scan of the key range where the buckets fill at least a quarter of it
  -- (10,000 lognormal latencies at 1%: ~300 buckets over a few hundred keys), cheaper than a
  -- sort; else a sort
  local m, lo, hi = #order, INF, -INF
  for i = 1, m do
    local k = order[i]
    if k < lo then
      lo = k
    end
    if k > hi then
      hi = k
    end
  end
  if hi - lo >= 4 * m then
    table.sort(order)
  else
    m = 0
    for k = lo, hi do
      if buckets[k] then
        m = m + 1
        order[m] = k
      end
    end
  end
  local out, at, total, negative = {count, dstr(sum), dstr(mn), dstr(mx)}, 4, 0, false
  for i = 1, m do
    local k = order[i]
    local c = buckets[k]
    if c > 0 then
      out[at + 1], out[at + 2] = k, c
      at = at + 2
      total = total + c
    elseif c < 0 then
      negative = true
    end
  end
  if total ~= count or negative then
    fail('WPFORMAT', agg .. ' holds bucket counts adding up to ' .. fmt(total) .. ' where '
      .. key .. ' holds ' .. fmt(count) .. ' values: the aggregate was changed by something else')
  end
  return out
end

EXPORTS.wp_summary = function(keys, args)
  return summaryAt(keys, args, now_ms(args[1]))
end

-- ---- statistics: exact windows -----------------------------------------------------------

-- FCALL wp_xrecord 2 <set> <meta> <time|""> <W> <maxValues> <value>...
-- -> (integer) the values held after recording; WPFULL (nothing recorded) past maxValues
-- refusal: answer -1 instead of failing with WPFULL (wp_xrecord_all, whose other items go on)
-- t: the values' time if not now (wp_xrecord_at: an event time in (now - W, now])
local function xrecordAt(keys, args, now, refusal, t)
  t = t or now
  checkKeys(keys, 2)
  local w = int(args[2], 'window', 1, MAX_WINDOW)
  local max = int(args[3], 'maxValues', 1, MAX_HELD)
  local values = batch(args, 4)
  local n = #values
  local key, meta = keys[1], keys[2]
  local f = redis.call('HMGET', meta, 'v', 'e', 's', 'c')
  checkFormat(f[1], meta)
  local live = f[1] and tonumber(f[2]) > now
  local seq, held, e = 0, 0, false
  if live then
    seq, held, e = tonumber(f[3]), tonumber(f[4]), tonumber(f[2])
  end
  local cutoff = now - w -- values at or before it have left (now - W, now]
  if held + n > max then -- decided before anything is written: a refusal changes nothing
    local gone = held > 0 and redis.call('ZCOUNT', key, '-inf', cutoff) or 0
    if held - gone + n > max then
      if refusal then
        return -1
      end
      fail('WPFULL', key .. ' holds ' .. fmt(held - gone) .. ' values and may hold at most '
        .. fmt(max) .. ' (maxValues); ' .. fmt(n) .. ' more refused, nothing recorded')
    end
  end
  if live then
    held = held - redis.call('ZREMRANGEBYSCORE', key, '-inf', cutoff)
  elseif f[1] then
    redis.call('DEL', key, meta)
  end
  local members = {}
  for i = 1, n do
    members[2 * i - 1] = t
    members[2 * i] = fmt(seq + i) .. ':' .. dstr(values[i])
  end
  chunked('ZADD', key, members)
  seq, held = seq + n, held + n
  local expiry = math.max(e or now, t + w + 1)
  redis.call('HSET', meta, 's', seq, 'c', held, 'e', expiry, 'v', FORMAT)
  if e ~= expiry then
    pexpire(key, expiry - now)
    pexpire(meta, expiry - now)
  end
  return held
end

EXPORTS.wp_xrecord = function(keys, args)
  local now = now_ms(args[1])
  refuseNewKeys(keys)
  return xrecordAt(keys, args, now)
end

-- FCALL wp_xsummary 2 <set> <meta> <time|""> <W>
-- -> the values recorded in (now - W, now], as %.17g strings. Read-only.
local function xsummaryAt(keys, args, now)
  checkKeys(keys, 2)
  local w = int(args[2], 'window', 1, MAX_WINDOW)
  local f = redis.call('HMGET', keys[2], 'v', 'e')
  checkFormat(f[1], keys[2])
  if not f[1] or tonumber(f[2]) <= now then
    return {}
  end
  local members = redis.call('ZRANGEBYSCORE', keys[1], '(' .. fmt(now - w), now)
  for i = 1, #members do
    members[i] = string.match(members[i], ':(.*)$')
  end
  return members
end

EXPORTS.wp_xsummary = function(keys, args)
  return xsummaryAt(keys, args, now_ms(args[1]))
end
