local VERSION = 2
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

-- ARGV[1]: "" (the server's TIME), "<ms>" or "<ms>+<grace ms>" (the caller's time), each
-- optionally followed by '!' (no new keys)
local function now_ms(arg)
  grace = 0
  noNewKeys = false
  if arg ~= nil and string.byte(arg, -1) == 33 then -- '!'
    noNewKeys = true
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
