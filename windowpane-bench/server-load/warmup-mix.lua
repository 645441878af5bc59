-- windowpane server load (wrk script): the warm-up before an engine's scenarios. Requests take
-- turns between the paths every scenario measures, so each is compiled before it is timed:
--   GET /health/live; acquire on bench for "hot"; acquire on tight for "hot" (mostly 429s);
--   acquire on bench for a key picked at random from k0 .. k<KEYS-1>.
--   wrk -t2 -c32 -d5s -s warmup-mix.lua http://127.0.0.1:PORT/ -- KEYS SEED
-- KEYS defaults to 10000 and SEED to 42 (thread i seeds with SEED + i, as acquire-spread.lua).
local keys = 10000
local seed = 42
local fixed = {}
local spread = {}
local sent = 0
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("id", threads)
end

function init(args)
  keys = tonumber(args[1]) or keys
  seed = tonumber(args[2]) or seed
  math.randomseed(seed + id)
  local json = { ["Content-Type"] = "application/json" }
  fixed[1] = wrk.format("GET", "/health/live", {})
  fixed[2] = wrk.format("POST", "/v1/limiters/bench/acquire", json, '{"key":"hot"}')
  fixed[3] = wrk.format("POST", "/v1/limiters/tight/acquire", json, '{"key":"hot"}')
  for i = 1, keys do
    spread[i] = wrk.format("POST", "/v1/limiters/bench/acquire", json,
      string.format('{"key":"k%d"}', i - 1))
  end
end

function request()
  sent = sent + 1
  local turn = sent % 4
  if turn == 0 then
    return spread[math.random(keys)]
  end
  return fixed[turn]
end
