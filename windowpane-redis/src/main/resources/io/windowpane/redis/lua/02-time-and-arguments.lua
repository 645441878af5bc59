local VERSION = 3
local FORMAT = '1' -- every stored layout's v, checked on every read (WPFORMAT otherwise)
local TWO52 = 4503599627370496
local MAX_GRACE = 366 * 24 * 3600 * 1000

local function fail(code, message)
  error({err = code .. ' ' .. message})
end

local function fmt(x)
  return string.format('%d', x)
end

local function int(value, what, lo, hi)
  local x = tonumber(value)
  if x == nil or x % 1 ~= 0 or x < lo or x > hi then
    fail('WPARGS', what .. ' must be an integer in [' .. fmt(lo) .. ', ' .. fmt(hi) .. '], was '
      .. tostring(value))
  end
  return x
end

-- Validated arguments by their text: a window spec or a limit seen before is not
-- parsed and checked again (each tonumber of an argument cost ~0.15 us on the server). The
-- caches live as long as the library (FUNCTION LOAD; under EVAL, one call) and hold at most
-- MAX_CACHED entries in all; beyond, arguments are checked every time.
local MAX_CACHED = 4096
local nCached = 0
local WINDOWS, PANES, COUNTS, LIMITS = {}, {}, {}, {}

local function cached(cache, value, what, lo, hi)
  local x = cache[value]
  if x then
    return x
  end
  x = int(value, what, lo, hi)
  if nCached < MAX_CACHED then
    cache[value] = x
    nCached = nCached + 1
  end
  return x
end

-- Extra physical TTL for callers that pass their own time (set by every call's time argument):
-- their clock need not run with the server's, so keys outlive their logical expiry by it.
local grace = 0

-- The memory guard's flag (set by every call's time argument): a time argument ending in '!'
-- asks the writing functions to create no key (docs/redis-protocol.md, "Memory pressure"). The
-- caller sets it while the server's memory is under pressure; keys that exist keep working.
local noNewKeys = false

-- The memory guard's coarsening flag (set by every call's time argument): a time argument ending
-- in '~' or '!' says the server's memory is under pressure, so a write to an adaptive window
-- coarsens it; without either, such a write refines it back (see "adaptive windows" below).
local coarsen = false

-- ARGV[1]: "" (the server's TIME), "<ms>" or "<ms>+<grace ms>" (the caller's time), each
-- optionally followed by '~' (memory pressure: coarsen adaptive windows) or '!' (no new keys,
-- and coarsen)
local function now_ms(arg)
  grace = 0
  noNewKeys = false
  coarsen = false
  local last = arg ~= nil and string.byte(arg, -1)
  if last == 33 or last == 126 then -- '!' or '~'
    noNewKeys, coarsen = last == 33, true
    arg = string.sub(arg, 1, -2)
  end
  if arg ~= nil and arg ~= '' then
    local t, g = string.match(arg, '^(-?%d+)%+(%d+)$')
    if t then
      grace = int(g, 'grace', 0, MAX_GRACE)
      arg = t
    end
    return int(arg, 'time', -TWO52, TWO52)
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Under the guard's flag, whether a write to keys (one item's keys) would create a key: one of
-- them is absent (EXISTS counts those present). Without the flag: false, and no call at all.
local function wouldCreate(keys)
  return noNewKeys and redis.call('EXISTS', unpack(keys)) < #keys
end

-- fails with WPNOKEY, before anything is read or written, where wouldCreate(keys)
local function refuseNewKeys(keys)
  if wouldCreate(keys) then
    error({err = 'WPNOKEY ' .. tostring(keys[1]) .. ': the call would create a key and the'
      .. ' caller asked for no new keys (memory pressure); nothing recorded'})
  end
end

local function pexpire(key, ttl)
  redis.call('PEXPIRE', key, ttl + grace)
end

-- floor(a / b) for b > 0, exact for |a| < 2^52
local function floordiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then
    q = q - 1
  elseif (q + 1) * b <= a then
    q = q + 1
  end
  return q
end

-- q, r with q * c + r = a * b and 0 <= r < c, for 0 <= a, b < 2^53, 0 < c < 2^52, q < 2^53
local function muldiv(a, b, c)
  local p = a * b
  local q, r
  if p < TWO52 then
    q = math.floor(p / c)
    r = p - q * c
  else
    local bq = math.floor(b / c)
    local br = b - bq * c
    if br < 0 then
      bq, br = bq - 1, br + c
    elseif br >= c then
      bq, br = bq + 1, br - c
    end
    local base = a * bq -- a * b = base * c + a * br
    q, r = 0, 0
    local bit = 1
    while bit * 2 <= a do
      bit = bit * 2
    end
    -- long division of a * br by c, one bit of a at a time: q * c + r = (bits so far) * br
    while bit >= 1 do
      q, r = q * 2, r * 2
      if r >= c then
        q, r = q + 1, r - c
      end
      if a >= bit then
        a = a - bit
        r = r + br
        if r >= c then
          q, r = q + 1, r - c
        end
      end
      bit = bit / 2
    end
    q = q + base
  end
  while r < 0 do
    q, r = q - 1, r + c
  end
  while r >= c do
    q, r = q + 1, r - c
  end
  return q, r
end

-- expected: the layout's format, FORMAT unless given
local function checkFormat(v, key, expected)
  expected = expected or FORMAT
  if v and v ~= expected then
    fail('WPFORMAT', key .. ' holds layout format ' .. tostring(v) .. ', this library reads '
      .. expected)
  end
end

-- ---- adaptive windows -----------------------------------------------------------------------
--
-- A panes or histogram window declared adaptive passes its panes as "<P>:<minPanes>" (P halved
-- zero or more times gives minPanes). Under memory pressure (the time argument's '~' or '!') a
-- write to such a key doubles the key's coarsening factor k (its panes P / k, its resolution
-- k W / P) while P / 2k >= minPanes; without pressure it halves k while k > 1. Damping: a key
-- steps at most once per window length W, after its last step (its field t, ms). The step
-- folds the stored panes into the new resolution in the same call: coarser, two panes into
-- one (aligned on the epoch, so nothing moves in time); finer, a coarse pane's content into the
-- oldest fine pane it covers, so its events can leave the window early, never late. k lives
-- in the key's format field: v = '1' (k = 1) or '1x<k>'. Every call reading such a key, whatever
-- panes its caller declared, computes with the key's k (a library without adaptive windows
-- answers WPFORMAT rather than misread it).

local ADAPTIVE = {} -- "<P>:<minPanes>" -> {P, minPanes}, cached as the other arguments

-- a window's panes argument: "<P>" or "<P>:<minPanes>" -> P and minPanes (false: not adaptive)
local function panesArg(value)
  local p = PANES[value]
  if p then
    return p, false
  end
  local a = ADAPTIVE[value]
  if a then
    return a[1], a[2]
  end
  local ps, ms = string.match(tostring(value), '^(%d+):(%d+)$')
  if not ps then
    return cached(PANES, value, 'panes', 1, 4096), false
  end
  p = int(ps, 'panes', 1, 4096)
  local min = int(ms, 'minPanes', 1, p)
  local level = p
  while level > min and level % 2 == 0 do
    level = level / 2
  end
  if level ~= min then
    fail('WPARGS', 'minPanes must be panes halved zero or more times, was ' .. ms .. ' of '
      .. ps .. ' panes')
  end
  if nCached < MAX_CACHED then
    ADAPTIVE[value] = {p, min}
    nCached = nCached + 1
  end
  return p, min
end

-- the coarsening factor k of a panes or histogram key from its v (absent: 1); p: the declared
-- panes, which k must divide
local function scaleOf(v, key, p)
  if v == FORMAT or not v then
    return 1
  end
  local k = tonumber(string.match(v, '^' .. FORMAT .. 'x(%d+)$'))
  if not k then
    checkFormat(v, key) -- fails: another format
  end
  if k < 2 or p % k ~= 0 then
    fail('WPFORMAT', key .. ' runs at ' .. fmt(k) .. ' times the resolution of ' .. fmt(p)
      .. ' panes, which it cannot: its writers declared other panes')
  end
  return k
end

-- v of a key at factor k
local function scaledFormat(k)
  return k == 1 and FORMAT or FORMAT .. 'x' .. fmt(k)
end

-- the factor a write moves a key at factor k to (declared panes p, minPanes min; false: not
-- adaptive), before damping; false: none
local function stepTo(k, p, min)
  if not min then
    return false
  elseif coarsen then
    return p >= 2 * k * min and 2 * k
  end
  return k > 1 and k / 2
end

-- whether a key whose last step was at its field t (read here) may step at now (window w)
local function mayStep(key, now, w)
  local t = tonumber(redis.call('HGET', key, 't'))
  return not t or now - t >= w
end
