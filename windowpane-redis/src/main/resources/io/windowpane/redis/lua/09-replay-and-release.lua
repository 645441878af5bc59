-- ---- replay -------------------------------------------------------------------------------
--
-- A failover chain replays into Redis the events a fallback engine took while Redis was down,
-- with their own times. Each replay is one atomic call that decides nothing: the events go in
-- at t = min(at, now), into the pane, fixed window or log position of t (not the newest), in
-- every window that still holds t, past any limit (the fallback allowed them already). A window
-- that no longer holds t (its pane has left; weighted: t is before the previous fixed window;
-- log and exact: t <= now - W) takes nothing.
--
-- Idempotency. KEYS[1] is a marker, the first window key + ":y:" + the replay id (same hash
-- tag): a hash with v and e, whose logical expiry e lies the windows' longest reach after now
-- (W + r for panes and histograms, 2W weighted, W + 1 log and exact): past that no window can
-- hold the replayed events, so a repeat would be dropped anyway. A call that finds a live marker
-- changes nothing and answers -1; otherwise it records, sets the marker, and answers how many
-- events it recorded (0: none, no window holds t any more). Like every function, a replay checks
-- all arguments and every key's format before its first write.

local MAX_ID = 64

-- at and the id (args[2], args[3]); checks that keys[1] is keys[2]'s marker for that id, named
-- with infix (':y:' replays, ':g:' releases). Returns at and the marker key.
local function markerArgs(keys, args, infix, what)
  local at = int(args[2], 'at', -TWO52, TWO52)
  local id = args[3]
  if id == nil or #id < 1 or #id > MAX_ID or not string.match(id, '^[%w_.:%-]+$') then
    fail('WPARGS', what .. ' must be 1 to 64 characters of [A-Za-z0-9_.:-], was '
      .. (id == nil and 'nil' or string.sub(id, 1, 80)))
  end
  if keys[2] == nil or keys[1] ~= keys[2] .. infix .. id then
    fail('WPARGS', 'the marker key (the first) must be the first window key + "' .. infix
      .. '" + ' .. what .. ', was ' .. tostring(keys[1]))
  end
  return at, keys[1]
end

-- the replay's t = min(at, now) and its marker key
local function replayArgs(keys, args, now)
  local at, marker = markerArgs(keys, args, ':y:', 'replayId')
  return math.min(at, now), marker
end

-- whether the marker is live: a replay with this id landed within its reach
local function replayed(marker, now)
  local f = redis.call('HMGET', marker, 'v', 'e')
  checkFormat(f[1], marker)
  return f[1] and tonumber(f[2]) > now
end

local function mark(marker, now, reach)
  redis.call('HSET', marker, 'v', FORMAT, 'e', now + reach)
  pexpire(marker, reach)
end

-- Each window kind: at(...) reads and says whether the window holds t; apply(s, now, n) records
-- n at t. Layouts and invariants are those of the live functions above. (at may delete a key
-- holding nothing live: that changes no answer.)

-- panes: the pane of t, pt, held while pt > (newest pane) - P, where the newest pane is now's
-- or, for a caller whose clock lags, the head h
local function panesAt(key, now, t, w, p)
  local s = Panes.load(key, now, w, p)
  s.pt = floordiv(t, s.r) -- at the key's own factor, as everything below
  s.holds = s.pt > s.cur - s.p
  return s
end

local function panesApply(s, now, n)
  local pt, p = s.pt, s.p
  if pt == s.cur then
    s:record(n) -- now's pane (or a lagging caller's head), as wp_add
  elseif s.h and pt <= s.h then
    -- a stored pane (h - P < pt <= h): its slot holds it; the head and expiry stay
    redis.call('HINCRBY', s.key, pt - floordiv(pt, p) * p, n)
    if pt < s.h then
      redis.call('HINCRBY', s.key, 'o', n)
    end
  else
    -- newer than the head, older than now's pane: the head moves on to pt, as wp_add at t
    if s.dead then
      redis.call('DEL', s.key)
    end
    local at = Panes.at(s.key, pt * s.r, s.w, s.declared, s.k)
    at.now = now -- the TTL counts from now
    at:record(n)
  end
end

-- weighted: t's fixed window kt, held while kt is the current fixed window k or the previous
local function weightedAt(key, now, t, w)
  local s = Weighted.load(key, now, w)
  s.kt = floordiv(t, w)
  s.holds = s.kt >= s.k - 1
  return s
end

local function weightedApply(s, now, n)
  if s.kt == s.k then
    s:record(n) -- now's window (or a lagging caller's newest), as wp_add
  elseif not s.move then
    redis.call('HINCRBY', s.key, 'b', n) -- the stored window is k: kt is its previous
  elseif not s.fresh then
    redis.call('HINCRBY', s.key, 'a', n) -- the stored window is kt itself
  else
    local expiry = (s.kt + 2) * s.w
    if s.dead then
      redis.call('DEL', s.key)
    end
    redis.call('HSET', s.key, 'w', s.kt, 'a', n, 'b', 0, 'v', FORMAT)
    pexpire(s.key, expiry - now)
  end
end

-- log: held while t > now - W; recorded by Log:record at t
local function logAt(key, meta, now, t, w)
  checkFormat(redis.call('HGET', meta, 'v'), meta)
  return {key = key, meta = meta, w = w, t = t, holds = t > now - w}
end

local function logApply(s, now, n)
  Log.load(s.key, s.meta, now, s.w):record(n, s.t)
end

-- KEYS and the window specs of wp_replay and wp_release (marker, then every window's keys;
-- args[6..], three per window): every argument and every key's format is checked here, before
-- any write. Returns {algorithm, key, W, P or the log's meta key} per window, and the longest
-- reach (how long after now a window may still hold an instant up to now).
local function markedSpecs(keys, args, count)
  local expected = 1
  for j = 0, count - 1 do
    expected = expected + keyCount(args[6 + j * 3])
  end
  checkKeys(keys, expected)
  local specs, reach, k = {}, 0, 2
  for j = 1, count do
    local i = 6 + (j - 1) * 3
    local algorithm = args[i]
    local w = int(args[i + 1], 'window', 1, MAX_WINDOW)
    local p = panesArg(args[i + 2])
    local scale = 1
    if algorithm == 'l' then
      checkFormat(redis.call('HGET', keys[k + 1], 'v'), keys[k + 1])
    elseif algorithm == 'p' then -- every key's format before the first write
      scale = scaleOf(redis.call('HGET', keys[k], 'v'), keys[k], p)
    else
      checkFormat(redis.call('HGET', keys[k], 'v'), keys[k])
    end
    if algorithm == 'p' then
      if w % p ~= 0 then
        fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
      end
      specs[j] = {algorithm, keys[k], w, p}
      reach = math.max(reach, w + scale * w / p)
    elseif algorithm == 'w' then
      specs[j] = {algorithm, keys[k], w}
      reach = math.max(reach, 2 * w)
    elseif algorithm == 'l' then
      specs[j] = {algorithm, keys[k], w, keys[k + 1]}
      reach = math.max(reach, w + 1)
    else
      fail('WPARGS', "algorithm must be 'p', 'w' or 'l', was " .. tostring(algorithm))
    end
    k = k + keyCount(algorithm)
  end
  return specs, reach
end

-- FCALL wp_replay <numkeys> <marker> <keys of window 1> <keys of window 2> ...
--       <time|""> <at> <replayId> <n> <windows> then per window: <algorithm> <W> <P>
-- -> n recorded in every window that holds t; 0 none holds it (dropped); -1 already replayed
-- wp_replay's work on one marker and its windows' keys, args as wp_replay's ARGV, at now: checks
-- every argument and key, then records (a replay's body, shared with wp_replay_all)
local function replayAt(keys, args, now)
  local t, marker = replayArgs(keys, args, now)
  local n = int(args[4], 'n', 1, TWO52)
  local count = int(args[5], 'windows', 1, 8)
  local specs, reach = markedSpecs(keys, args, count)
  if replayed(marker, now) then
    return -1
  end
  local states, any = {}, false
  for j = 1, count do
    local spec = specs[j]
    if spec[1] == 'p' then
      states[j] = panesAt(spec[2], now, t, spec[3], spec[4])
    elseif spec[1] == 'w' then
      states[j] = weightedAt(spec[2], now, t, spec[3])
    else
      states[j] = logAt(spec[2], spec[4], now, t, spec[3])
    end
    any = any or states[j].holds
  end
  for j = 1, count do -- every check passed: the writes
    if states[j].holds then
      local kind = specs[j][1]
      if kind == 'p' then
        panesApply(states[j], now, n)
      elseif kind == 'w' then
        weightedApply(states[j], now, n)
      else
        logApply(states[j], now, n)
      end
    end
  end
  mark(marker, now, reach)
  return any and n or 0
end

EXPORTS.wp_replay = function(keys, args)
  return replayAt(keys, args, now_ms(args[1]))
end

-- FCALL wp_replay_all <numkeys> <marker 1> <keys of item 1's windows> <marker 2> ...
--       <time|""> <windows> then per window: <algorithm> <W> <P>
--       then <items> and per item: <at> <replayId> <n>, then [extra keys]
-- -> {reply 1, reply 2, ...}: each item's wp_replay reply (n, 0 or -1), in order
--
-- Many replays into one store (the same windows) in one call: each item is exactly wp_replay on
-- its own marker and window keys with its own at, id and n, in the order given and at the same
-- time (two items on one key see each other as two calls would; an id repeated on one key counts
-- once). Items go in KEYS, then as extra keys after the per-item arguments, as in the batch
-- functions. Every argument and every marker's name is checked before the first write; as in a
-- batch, an error on an item's key (WPFORMAT, WRONGTYPE) stops the call after the items before
-- it were applied: each item is atomic and idempotent on its own, not the call.
EXPORTS.wp_replay_all = function(keys, args)
  local now = now_ms(args[1])
  local count = int(args[2], 'windows', 1, 8)
  local size = 1
  for j = 0, count - 1 do
    size = size + keyCount(args[3 + j * 3])
  end
  local first = 3 + 3 * count -- args[first] is the number of items
  local m = int(args[first], 'items', 1, MAX_ITEMS)
  local items = batchItems(keys, args, first + 1 + 3 * m, size)
  if #items ~= m then
    fail('WPARGS', 'wp_replay_all was given ' .. fmt(m) .. ' items and the keys of '
      .. fmt(#items))
  end
  local one = {args[1], false, false, false, args[2]} -- wp_replay's ARGV, per item
  for i = 3, first - 1 do
    one[i + 3] = args[i]
  end
  local itemArgs = {}
  for j = 1, m do -- every item's at, id, marker and n, before the first write
    local i = first + 1 + 3 * (j - 1)
    local a = {unpack(one)}
    a[2], a[3], a[4] = args[i], args[i + 1], args[i + 2]
    markerArgs(items[j], a, ':y:', 'replayId')
    int(a[4], 'n', 1, TWO52)
    itemArgs[j] = a
  end
  local out = {}
  for j = 1, m do
    out[j] = replayAt(items[j], itemArgs[j], now)
  end
  return out
end

-- FCALL wp_replay_record 3 <marker> <hash> <aggregate> <time|""> <at> <replayId>
--       <W> <P> <accuracy> <minIndex> <span> <value>...
-- -> the number of values recorded in the pane of t; 0 that pane has left; -1 already replayed
local function replayRecordAt(keys, args, now)
  checkKeys(keys, 3)
  local t, marker = replayArgs(keys, args, now)
  local w, p, lng, minIndex, span = histogramSpec(args, 4)
  local p0 = p -- as declared (hrecord reads the key's factor itself)
  local values = batch(args, 9)
  if replayed(marker, now) then
    return -1
  end
  local f = redis.call('HMGET', keys[2], 'v', 'e', 'h')
  p = p / liveScale(f, keys[2], p, now) -- a coarsened key: its own panes
  local newest = floordiv(now, w / p)
  if f[1] and tonumber(f[2]) > now then
    newest = math.max(newest, tonumber(f[3])) -- a lagging caller: the head
  end
  local held = floordiv(t, w / p) > newest - p
  if held then
    hrecord({keys[2], keys[3]}, now, t, w, p0, lng, minIndex, span, values)
  end
  mark(marker, now, w + w / p)
  return held and #values or 0
end

EXPORTS.wp_replay_record = function(keys, args)
  return replayRecordAt(keys, args, now_ms(args[1]))
end

-- FCALL wp_replay_xrecord 3 <marker> <set> <meta> <time|""> <at> <replayId> <W> <maxValues>
--       <value>...
-- -> the number of values recorded at t: all of them, or as many as maxValues leaves room for
--    (never WPFULL: the rest are dropped); 0 t <= now - W; -1 already replayed
local function replayXrecordAt(keys, args, now)
  checkKeys(keys, 3)
  local t, marker = replayArgs(keys, args, now)
  local w = int(args[4], 'window', 1, MAX_WINDOW)
  local max = int(args[5], 'maxValues', 1, MAX_HELD)
  local values = batch(args, 6)
  if replayed(marker, now) then
    return -1
  end
  local key, meta = keys[2], keys[3]
  local f = redis.call('HMGET', meta, 'v', 'e', 's', 'c')
  checkFormat(f[1], meta)
  local stored = 0
  if t > now - w then
    local live = f[1] and tonumber(f[2]) > now
    local seq, held, e = 0, 0, false
    if live then
      seq, held, e = tonumber(f[3]), tonumber(f[4]), tonumber(f[2])
      held = held - redis.call('ZREMRANGEBYSCORE', key, '-inf', now - w)
    elseif f[1] then
      redis.call('DEL', key, meta)
    end
    stored = math.max(0, math.min(#values, max - held))
    if stored > 0 then
      local members = {}
      for i = 1, stored do
        members[2 * i - 1] = t
        members[2 * i] = fmt(seq + i) .. ':' .. dstr(values[i])
      end
      chunked('ZADD', key, members)
      seq, held = seq + stored, held + stored
      local expiry = math.max(e or t, t + w + 1)
      redis.call('HSET', meta, 's', seq, 'c', held, 'e', expiry, 'v', FORMAT)
      if e ~= expiry then
        pexpire(key, expiry - now)
        pexpire(meta, expiry - now)
      end
    elseif live then
      redis.call('HSET', meta, 'c', held)
    end
  end
  mark(marker, now, w + 1)
  return stored
end

EXPORTS.wp_replay_xrecord = function(keys, args)
  return replayXrecordAt(keys, args, now_ms(args[1]))
end

-- The items of wp_replay_record_all and wp_replay_xrecord_all: args[2 .. 1 + spec] is the
-- window's spec, then the number of items and per item its at, id, number of values and values,
-- then the extra keys. Returns each item's keys and the ARGV its single function takes; every
-- item's marker name, id and values are checked here, before the first write.
local function statsReplayItems(keys, args, spec)
  local first = 2 + spec
  local m = int(args[first], 'items', 1, MAX_ITEMS)
  local i, itemArgs = first + 1, {}
  for j = 1, m do
    local c = int(args[i + 2], 'values', 1, MAX_BATCH)
    local a = {args[1], args[i], args[i + 1]}
    for q = 2, 1 + spec do
      a[#a + 1] = args[q]
    end
    for q = 1, c do
      a[#a + 1] = args[i + 2 + q]
    end
    itemArgs[j] = a
    i = i + 3 + c
  end
  local items = batchItems(keys, args, i, 3)
  if #items ~= m then
    fail('WPARGS', 'the call was given ' .. fmt(m) .. ' items and the keys of ' .. fmt(#items))
  end
  for j = 1, m do
    markerArgs(items[j], itemArgs[j], ':y:', 'replayId')
    batch(itemArgs[j], 4 + spec)
  end
  return items, itemArgs
end

-- FCALL wp_replay_record_all <numkeys> <marker 1> <hash 1> <aggregate 1> <marker 2> ...
--       <time|""> <W> <P> <accuracy> <minIndex> <span>
--       then <items> and per item: <at> <replayId> <number of values> <value>...; [extra keys]
-- -> {reply 1, reply 2, ...}: each item's wp_replay_record reply, in order (as wp_replay_all)
EXPORTS.wp_replay_record_all = function(keys, args)
  local now = now_ms(args[1])
  histogramSpec(args, 2)
  local items, itemArgs = statsReplayItems(keys, args, 5)
  local out = {}
  for j = 1, #items do
    out[j] = replayRecordAt(items[j], itemArgs[j], now)
  end
  return out
end

-- FCALL wp_replay_xrecord_all <numkeys> <marker 1> <set 1> <meta 1> <marker 2> ...
--       <time|""> <W> <maxValues>
--       then <items> and per item: <at> <replayId> <number of values> <value>...; [extra keys]
-- -> {reply 1, reply 2, ...}: each item's wp_replay_xrecord reply, in order (as wp_replay_all)
EXPORTS.wp_replay_xrecord_all = function(keys, args)
  local now = now_ms(args[1])
  int(args[2], 'window', 1, MAX_WINDOW)
  int(args[3], 'maxValues', 1, MAX_HELD)
  local items, itemArgs = statsReplayItems(keys, args, 2)
  local out = {}
  for j = 1, #items do
    out[j] = replayXrecordAt(items[j], itemArgs[j], now)
  end
  return out
end

-- ---- release ------------------------------------------------------------------------------
--
-- wp_lease records a grant of g permits at its time t exactly as an acquire of g; wp_release
-- gives back n unspent ones of it. In every window that still holds t (as a replay decides:
-- panes while t's pane is one of the P newest, weighted while t's fixed window is the current
-- or the previous one, log while t > now - W) it takes min(n, what t's pane, fixed window or
-- log entries hold) out of there, so they leave no trace when that pane or window leaves. It
-- never moves a head, never extends or shortens a key's life, never leaves a count below 0.
-- Idempotent per release id: a marker like a replay's, the first window key + ':g:' + the id,
-- with the windows' longest reach. A caller whose clock lagged behind a window's head had its
-- grant put in the head's pane, not t's: the release then takes from t's pane, which can only
-- make the window stricter (those permits leave the window earlier than the grant's would).

-- panes: the slot of t's pane, and o when that pane is older than the head
local function panesRelease(key, now, t, w, p, n)
  local r = w / p
  local pt = floordiv(t, r)
  local slot = pt - floordiv(pt, p) * p
  local f = redis.call('HMGET', key, 'v', 'h', slot)
  if not f[1] then
    return 0
  elseif f[1] ~= FORMAT then -- a coarsened key: its own panes
    p = p / scaleOf(f[1], key, p)
    r = w / p
    pt = floordiv(t, r)
    slot = pt - floordiv(pt, p) * p
    f = redis.call('HMGET', key, 'v', 'h', slot)
  end
  local h = tonumber(f[2])
  -- stored while pt <= h; still in the window while pt > (now's pane, or the head) - P
  if pt > h or pt <= math.max(floordiv(now, r), h) - p then
    return 0
  end
  local m = math.min(n, tonumber(f[3]) or 0)
  if m > 0 then
    redis.call('HINCRBY', key, slot, -m)
    if pt < h then
      redis.call('HINCRBY', key, 'o', -m)
    end
  end
  return m
end

-- weighted: a when t's fixed window is the stored one, b when it is the one before
local function weightedRelease(key, now, t, w, n)
  local f = redis.call('HMGET', key, 'v', 'w', 'a', 'b')
  if not f[1] then
    return 0
  end
  local k0, kt = tonumber(f[2]), floordiv(t, w)
  if kt < math.max(floordiv(now, w), k0) - 1 then
    return 0 -- t's window is older than the previous one
  end
  local field, held = 'a', tonumber(f[3])
  if kt == k0 - 1 then
    field, held = 'b', tonumber(f[4])
  elseif kt ~= k0 then
    return 0 -- newer than the stored window: nothing recorded there
  end
  local m = math.min(n, held)
  if m > 0 then
    redis.call('HINCRBY', key, field, -m)
  end
  return m
end

-- log: the entries at score t, each lowered (or removed) in the set's order until n are out
local function logRelease(key, meta, now, t, w, n)
  if t <= now - w then
    return 0
  end
  local s = Log.load(key, meta, now, w)
  local entries = redis.call('ZRANGEBYSCORE', key, t, t)
  local left = n
  for i = 1, #entries do
    local member = entries[i]
    local c = entryCount(member)
    local m = math.min(c, left)
    redis.call('ZREM', key, member)
    if c > m then
      redis.call('ZADD', key, t, string.match(member, '^(%d+):') .. ':' .. fmt(c - m))
    end
    left = left - m
    if left == 0 then
      break
    end
  end
  if left < n then
    s.c, s.dirty = s.c - (n - left), true
    if s.o == t then -- the oldest entries may be gone: o is the set's first score
      local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
      s.o = tonumber(first[2]) or false
    end
  end
  s:flush()
  return n - left
end

-- FCALL wp_release <numkeys> <marker> <keys of window 1> <keys of window 2> ...
--       <time|""> <at> <releaseId> <n> <windows> then per window: <algorithm> <W> <P>
-- -> the most permits taken out of any one window (0: no window holds at, or nothing was
--    there); -1 already released (the marker is live, nothing changed)
EXPORTS.wp_release = function(keys, args)
  local now = now_ms(args[1])
  local at, marker = markerArgs(keys, args, ':g:', 'releaseId')
  local n = int(args[4], 'n', 1, TWO52)
  local count = int(args[5], 'windows', 1, 8)
  local specs, reach = markedSpecs(keys, args, count)
  if replayed(marker, now) then
    return -1
  end
  local most = 0
  for j = 1, count do -- every check passed: the writes
    local spec, m = specs[j], 0
    if spec[1] == 'p' then
      m = panesRelease(spec[2], now, at, spec[3], spec[4], n)
    elseif spec[1] == 'w' then
      m = weightedRelease(spec[2], now, at, spec[3], n)
    else
      m = logRelease(spec[2], spec[4], now, at, spec[3], n)
    end
    most = math.max(most, m)
  end
  -- a grant at a time after now (a clock that stepped back) stays in its window longer
  mark(marker, now, most > 0 and reach + math.max(0, at - now) or reach)
  return most
end

-- ---- event time -------------------------------------------------------------------------
--
-- Events that carry their own time (a stream's, late and out of order): wp_add_at,
-- wp_record_at and wp_xrecord_at judge each call at now: ahead when at > now + maxAhead;
-- otherwise the event's instant is t = min(at, now), late when no window holds t any more (as a
-- replay decides: panes while t's pane is one of the P newest, weighted while t's fixed window
-- is the current or the previous one, log and exact while t > now - W); otherwise recorded at
-- t exactly as a replay records (the same code), with no marker: these are the caller's own
-- events, not a chain's resend. Nothing is written unless the event is recorded. Under the
-- memory guard's no-new-keys flag a call whose keys do not all exist fails with WPNOKEY after its
-- arguments are checked and before anything is judged or written, as every writing call. Replies:
-- {verdict, count, now}, verdict 0 recorded, 1 late, 2 ahead; count is a counter's window count
-- now (0 for statistics); now lets the caller name the range it allowed.

-- FCALL wp_add_at <1|2 keys> <time|""> <at> <maxAhead> <n> <algorithm> <W> <P>
-- -> {0, count, now} recorded; {1, count, now} late; {2, 0, now} ahead
EXPORTS.wp_add_at = function(keys, args)
  local now = now_ms(args[1])
  local at = int(args[2], 'at', -TWO52, TWO52)
  local ahead = int(args[3], 'maxAhead', 0, 3600000)
  local n = int(args[4], 'n', 1, 2147483647)
  local algorithm = args[5]
  checkKeys(keys, keyCount(algorithm))
  local w = int(args[6], 'window', 1, MAX_WINDOW)
  local p = panesArg(args[7])
  if algorithm == 'p' and w % p ~= 0 then
    fail('WPARGS', 'panes must divide the window, was ' .. fmt(p) .. ' of ' .. fmt(w))
  elseif algorithm ~= 'p' and algorithm ~= 'w' and algorithm ~= 'l' then
    fail('WPARGS', "algorithm must be 'p', 'w' or 'l', was " .. tostring(algorithm))
  end
  if algorithm == 'p' then
    scaleOf(redis.call('HGET', keys[1], 'v'), keys[1], p)
  else
    checkFormat(redis.call('HGET', keys[#keys], 'v'), keys[#keys])
  end
  refuseNewKeys(keys)
  if at > now + ahead then
    return {2, 0, now}
  end
  local t = math.min(at, now)
  local s
  if algorithm == 'p' then
    s = panesAt(keys[1], now, t, w, p)
  elseif algorithm == 'w' then
    s = weightedAt(keys[1], now, t, w)
  else
    s = logAt(keys[1], keys[2], now, t, w)
  end
  if s.holds then
    if algorithm == 'p' then
      panesApply(s, now, n)
    elseif algorithm == 'w' then
      weightedApply(s, now, n)
    else
      logApply(s, now, n)
    end
  end
  local win = window(keys, 1, {algorithm, args[6], args[7]}, 1, now)
  win:flush()
  return {s.holds and 0 or 1, win:count(), now}
end

-- FCALL wp_record_at 2 <hash> <aggregate> <time|""> <at> <maxAhead> <W> <P> <accuracy>
--       <minIndex> <span> <value>...
-- -> {0, 0, now} recorded in the pane of t; {1, 0, now} late; {2, 0, now} ahead
EXPORTS.wp_record_at = function(keys, args)
  checkKeys(keys, 2)
  local now = now_ms(args[1])
  local at = int(args[2], 'at', -TWO52, TWO52)
  local ahead = int(args[3], 'maxAhead', 0, 3600000)
  local w, p, lng, minIndex, span = histogramSpec(args, 4)
  local values = batch(args, 9)
  local f = redis.call('HMGET', keys[1], 'v', 'e', 'h')
  local q = p / liveScale(f, keys[1], p, now) -- the key's own panes
  refuseNewKeys(keys)
  if at > now + ahead then
    return {2, 0, now}
  end
  local t = math.min(at, now)
  local r = w / q
  local newest = floordiv(now, r)
  if f[1] and tonumber(f[2]) > now then
    newest = math.max(newest, tonumber(f[3])) -- a lagging caller: the head
  end
  if floordiv(t, r) <= newest - q then
    return {1, 0, now}
  end
  hrecord(keys, now, t, w, p, lng, minIndex, span, values)
  return {0, 0, now}
end

-- FCALL wp_xrecord_at 2 <set> <meta> <time|""> <at> <maxAhead> <W> <maxValues> <value>...
-- -> {0, 0, now} recorded at t; {1, 0, now} late (t <= now - W); {2, 0, now} ahead;
--    WPFULL (nothing recorded) past maxValues, as wp_xrecord
EXPORTS.wp_xrecord_at = function(keys, args)
  checkKeys(keys, 2)
  local now = now_ms(args[1])
  local at = int(args[2], 'at', -TWO52, TWO52)
  local ahead = int(args[3], 'maxAhead', 0, 3600000)
  local w = int(args[4], 'window', 1, MAX_WINDOW)
  int(args[5], 'maxValues', 1, MAX_HELD)
  batch(args, 6)
  checkFormat(redis.call('HGET', keys[2], 'v'), keys[2])
  refuseNewKeys(keys)
  if at > now + ahead then
    return {2, 0, now}
  end
  local t = math.min(at, now)
  if t <= now - w then
    return {1, 0, now}
  end
  local rest = {args[1]}
  for i = 4, #args do
    rest[#rest + 1] = args[i]
  end
  xrecordAt(keys, rest, now, false, t)
  return {0, 0, now}
end
