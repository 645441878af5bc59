-- ---- batches and groups --------------------------------------------------------------------
--
-- A batch decides or records many independent items in one call: wp_add_all, wp_count_all,
-- wp_take_all (one window spec or quota for every item, as the Java store has one), and the
-- read-only wp_summary_all and wp_xsummary_all. Each item is exactly the single function's call
-- on its own keys, in the order given and at the same time: two items on the same key see each
-- other as two calls would. Every argument is checked before the first item runs; a batch is not
-- one transaction: an error on an item's key (WPFORMAT, WRONGTYPE) stops the call after the
-- items before it have been applied.
--
-- Where the items' keys come from: KEYS, then ARGV after the spec (the "extra keys"), an item's
-- keys never split between the two. On one server every key goes in KEYS. On a Redis Cluster
-- KEYS may hold one slot only (the cluster answers CROSSSLOT before any function runs, whatever
-- its flags), so a caller that batches the items of several slots of one node passes the keys
-- of one slot in KEYS (the call is routed by them) and the others as extra keys; the batch
-- functions carry the allow-cross-slot-keys flag, which lets them touch keys of other slots that
-- this node serves. Before anything else, a call with extra keys runs EXISTS on every extra
-- item's keys, so that a key this node does not serve (the slot moved; or it is migrating and
-- the key is not here yet) fails the call with "non local key" before anything is written; the
-- caller then sends those items by slot.
--
-- A group (wp_group) decides several requests (each its own keys, quota and permits) all or
-- nothing in one call: see there.

local MAX_ITEMS = 10000

-- checks the window spec at args[i..i+2] (algorithm, window ms, panes), reading nothing
local function checkSpec(args, i)
  local algorithm = args[i]
  local w = cached(WINDOWS, args[i + 1], 'window', 1, MAX_WINDOW)
  local p = panesArg(args[i + 2])
  if algorithm == 'p' then
    if w % p ~= 0 then
      fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
    end
  elseif algorithm ~= 'w' and algorithm ~= 'l' then
    fail('WPARGS', "algorithm must be 'p', 'w' or 'l', was " .. tostring(algorithm))
  end
end

-- The keys of a batch's items: KEYS then args[from..], per items of size keys each; with extra
-- keys, checks that this node serves every one of them (EXISTS) before the caller writes.
local function batchItems(keys, args, from, size)
  local declared, extra = #keys, #args - from + 1
  if extra < 0 then
    fail('WPARGS', 'the batch spec is incomplete: ' .. fmt(#args) .. ' arguments')
  end
  if declared % size ~= 0 or extra % size ~= 0 or declared + extra == 0 then
    fail('WPARGS', 'a batch takes ' .. fmt(size) .. ' key(s) per item in KEYS and in the extra'
      .. ' keys, and at least one item, was ' .. fmt(declared) .. ' and ' .. fmt(extra))
  end
  local count = (declared + extra) / size
  if count > MAX_ITEMS then
    fail('WPARGS', 'a batch holds at most ' .. fmt(MAX_ITEMS) .. ' items, was ' .. fmt(count))
  end
  local items = {}
  for j = 1, count do
    local item, at = {}, (j - 1) * size
    for q = 1, size do
      local i = at + q
      if i <= declared then
        item[q] = keys[i]
      else
        item[q] = args[from + i - declared - 1]
      end
    end
    items[j] = item
  end
  for j = declared / size + 1, count do -- every extra key served here, before any write
    redis.call('EXISTS', unpack(items[j]))
  end
  return items
end

-- FCALL wp_add_all <numkeys> <keys of item 1> ... <time|""> <n> <algorithm> <W> <P> [extra keys]
-- -> {count 1, count 2, ...}: wp_add of n on each item's keys, in order (-2: the item's key is
--    new and the time argument asked for no new keys; nothing recorded for it)
EXPORTS.wp_add_all = function(keys, args)
  local now = now_ms(args[1])
  int(args[2], 'n', 1, 2147483647)
  local items = batchItems(keys, args, 6, keyCount(args[3]))
  checkSpec(args, 3) -- the spec, checked once
  local out = {}
  for j = 1, #items do -- -2: a new key refused under the guard's flag (nothing recorded)
    out[j] = wouldCreate(items[j]) and -2 or addAt(items[j], args, now)
  end
  return out
end

-- FCALL wp_count_all <numkeys> <keys of item 1> ... <time|""> <algorithm> <W> <P> [extra keys]
-- -> {count 1, count 2, ...}
EXPORTS.wp_count_all = function(keys, args)
  local now = now_ms(args[1])
  local items = batchItems(keys, args, 5, keyCount(args[2]))
  checkSpec(args, 2)
  local out = {}
  for j = 1, #items do
    out[j] = countAt(items[j], args, now)
  end
  return out
end

-- FCALL wp_take_all <numkeys> <keys of item 1> ... <the ARGV of wp_acquire> [extra keys]
-- -> {remaining 1, denying limit 1, retry after 1, remaining 2, ...}: three integers per item,
--    wp_acquire's decision on its keys (denying limit 0 and retry after 0 when allowed;
--    {-2, 0, 0}: a new key refused under the no-new-keys flag, nothing recorded for it)
EXPORTS.wp_take_all = function(keys, args)
  local now = now_ms(args[1])
  cached(COUNTS, args[2], 'permits', 1, TWO52)
  local count = cached(LIMITS, args[3], 'limits', 1, 8)
  local size = 0
  for j = 0, count - 1 do
    local i = 4 + j * 4
    checkSpec(args, i)
    cached(COUNTS, args[i + 3], 'limit', 1, TWO52)
    size = size + keyCount(args[i])
  end
  local items = batchItems(keys, args, 4 + 4 * count, size)
  local out = {}
  for j = 1, #items do
    local reply = wouldCreate(items[j]) and -2 or acquireAt(items[j], args, now)
    local at = 3 * (j - 1)
    if reply == -2 then -- a new key refused under the guard's flag (nothing recorded)
      out[at + 1], out[at + 2], out[at + 3] = -2, 0, 0
    elseif type(reply) == 'number' then
      out[at + 1], out[at + 2], out[at + 3] = reply, 0, 0
    else
      out[at + 1], out[at + 2], out[at + 3] = reply[2], reply[3], reply[4]
    end
  end
  return out
end

-- The items of wp_record_all and wp_xrecord_all: the window's spec at args[2..1 + spec], then
-- the number of items and per item its number of values and values, then the extra keys (two
-- keys per item). Returns each item's keys and the ARGV its single function takes (time, spec,
-- values); every item's values are checked here, before the first write.
local function recordItems(keys, args, spec)
  local first = 2 + spec
  local m = int(args[first], 'items', 1, MAX_ITEMS)
  local i, itemArgs = first + 1, {}
  for j = 1, m do
    local c = int(args[i], 'values', 1, MAX_BATCH)
    local a = {args[1]}
    for q = 2, 1 + spec do
      a[q] = args[q]
    end
    for q = 1, c do
      a[1 + spec + q] = args[i + q]
    end
    itemArgs[j] = a
    i = i + 1 + c
  end
  local items = batchItems(keys, args, i, 2)
  if #items ~= m then
    fail('WPARGS', 'the call was given ' .. fmt(m) .. ' items and the keys of ' .. fmt(#items))
  end
  for j = 1, m do
    batch(itemArgs[j], 2 + spec)
  end
  return items, itemArgs
end

-- FCALL wp_record_all <numkeys> <hash 1> <aggregate 1> <hash 2> ... <time|""> <W> <P>
--       <accuracy> <minIndex> <span> <items> then per item: <number of values> <value>...
--       [extra keys]
-- -> {reply 1, reply 2, ...}: each item's wp_record reply, in order (-2: a new key refused
--    under the no-new-keys flag)
EXPORTS.wp_record_all = function(keys, args)
  local now = now_ms(args[1])
  histogramSpec(args, 2)
  local items, itemArgs = recordItems(keys, args, 5)
  local out = {}
  for j = 1, #items do -- -2: a new key refused under the guard's flag (nothing recorded)
    out[j] = wouldCreate(items[j]) and -2 or recordAt(items[j], itemArgs[j], now)
  end
  return out
end

-- FCALL wp_xrecord_all <numkeys> <set 1> <meta 1> <set 2> ... <time|""> <W> <maxValues>
--       <items> then per item: <number of values> <value>... [extra keys]
-- -> {reply 1, reply 2, ...}: each item's wp_xrecord reply (the values held), in order, or -1
--    for an item its window refused (wp_xrecord's WPFULL: that item recorded nothing, the
--    others are recorded as if called alone), or -2 for a new key refused under the no-new-keys
--    flag
EXPORTS.wp_xrecord_all = function(keys, args)
  local now = now_ms(args[1])
  int(args[2], 'window', 1, MAX_WINDOW)
  int(args[3], 'maxValues', 1, MAX_HELD)
  local items, itemArgs = recordItems(keys, args, 2)
  local out = {}
  for j = 1, #items do -- -1: refused before any write; -2: a new key under the guard's flag
    out[j] = wouldCreate(items[j]) and -2 or xrecordAt(items[j], itemArgs[j], now, true)
  end
  return out
end

-- FCALL_RO wp_summary_all <numkeys> <hash 1> <aggregate 1> ... <time|""> <W> <P> <accuracy>
--       <minIndex> <span> [extra keys]
-- -> {summary 1, summary 2, ...}: each wp_summary's reply (an array). Read-only.
EXPORTS.wp_summary_all = function(keys, args)
  local now = now_ms(args[1])
  histogramSpec(args, 2)
  local items = batchItems(keys, args, 7, 2)
  local out = {}
  for j = 1, #items do
    out[j] = summaryAt(items[j], args, now)
  end
  return out
end

-- FCALL_RO wp_xsummary_all <numkeys> <set 1> <meta 1> ... <time|""> <W> [extra keys]
-- -> {values 1, values 2, ...}: each wp_xsummary's reply (an array of strings). Read-only.
EXPORTS.wp_xsummary_all = function(keys, args)
  local now = now_ms(args[1])
  int(args[2], 'window', 1, MAX_WINDOW)
  local items = batchItems(keys, args, 3, 2)
  local out = {}
  for j = 1, #items do
    out[j] = xsummaryAt(items[j], args, now)
  end
  return out
end

-- FCALL wp_group <numkeys> <keys of member 1> <keys of member 2> ...
--       <time|""> <members 1..64> then per member: <permits> <limits 1..8>
--       and per limit of it: <algorithm> <W> <P> <limit>
-- -> allowed: {0, remaining 1, ..., remaining m}
--    denied:  {d, room 1, ..., room d-1, remaining d, denying limit of d (1-based), retry after}
--
-- All or nothing across members (requests on several logical keys, each with its own quota and
-- permits), in one atomic call: every member that fits is recorded, as wp_acquire would record
-- it, only when every member fits; otherwise nothing is recorded anywhere. The members are
-- decided in the order given, and d is the first that does not fit: its reply is wp_acquire's
-- denial (remaining, the limit that must wait longest, the exact retry after); a member before d
-- answers its room (the smallest limit - count over its limits: what it could have taken), a
-- member after d nothing. Allowed, each member's remaining after its permits. The members' keys
-- must be distinct (the caller merges requests for one logical key): each member is read once,
-- before anything is written. On a Redis Cluster every key must lie in one slot.
EXPORTS.wp_group = function(keys, args)
  local now = now_ms(args[1])
  local m = int(args[2], 'members', 1, 64)
  local members, i, k = {}, 3, 1
  for j = 1, m do -- every argument and the number of keys, before anything is read
    local n = cached(COUNTS, args[i], 'permits', 1, TWO52)
    local count = cached(LIMITS, args[i + 1], 'limits', 1, 8)
    members[j] = {n = n, count = count, at = i + 2, k = k}
    for q = 0, count - 1 do
      local s = i + 2 + 4 * q
      checkSpec(args, s)
      cached(COUNTS, args[s + 3], 'limit', 1, TWO52)
      k = k + keyCount(args[s])
    end
    i = i + 2 + 4 * count
  end
  if args[i] ~= nil then
    fail('WPARGS', 'wp_group takes ' .. fmt(i - 1) .. ' arguments for ' .. fmt(m)
      .. ' members, was ' .. fmt(#args))
  end
  checkKeys(keys, k - 1)
  refuseNewKeys(keys)
  for j = 1, m do
    local member = members[j]
    local windows, limits, s, kk = {}, {}, member.at, member.k
    for q = 1, member.count do
      windows[q], s, kk = window(keys, kk, args, s, now)
      limits[q] = cached(COUNTS, args[s], 'limit', 1, TWO52)
      s = s + 1
    end
    member.windows, member.limits = windows, limits
  end
  local denier = 0
  for j = 1, m do
    local member = members[j]
    for q = 1, member.count do
      if member.windows[q]:countWith(member.n) > member.limits[q] then
        denier = j
        break
      end
    end
    if denier > 0 then
      break
    end
  end
  local reply = {denier}
  if denier == 0 then
    for j = 1, m do
      local member = members[j]
      reply[j + 1] = decide(member.windows, member.limits, member.n)[2]
    end
    return reply
  end
  for j = 1, m do
    local member = members[j]
    if j < denier then
      local room = TWO52
      for q = 1, member.count do
        room = math.min(room, member.limits[q] - member.windows[q]:count())
        member.windows[q]:flush()
      end
      reply[j + 1] = room
    elseif j == denier then
      local d = decide(member.windows, member.limits, member.n)
      reply[j + 1], reply[j + 2], reply[j + 3] = d[2], d[3], d[4]
    else
      for q = 1, member.count do
        member.windows[q]:flush()
      end
    end
  end
  return reply
end
