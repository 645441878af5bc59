-- windowpane server load (wrk script): each request acquires one permit for a key picked
-- uniformly at random, {"key":"k0"} .. {"key":"k<KEYS-1>"}. The URL names the limiter:
--   wrk -t2 -c32 -d20s --latency -s acquire-spread.lua \
--       http://127.0.0.1:PORT/v1/limiters/bench/acquire -- KEYS SEED
-- KEYS defaults to 10000 and SEED to 42; wrk thread i (1, 2, ...) seeds its generator with
-- SEED + i, so a run's key sequence per thread is the same every time. Every request is built
-- once per thread in init(), so a request costs the client one random number and a table read.
local keys = 10000
local seed = 42
local requests = {}
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("id", threads)
end

function init(args)
  keys = tonumber(args[1]) or keys
  seed = tonumber(args[2]) or seed
  math.randomseed(seed + id)
  local headers = { ["Content-Type"] = "application/json" }
  for i = 1, keys do
    requests[i] = wrk.format("POST", nil, headers, string.format('{"key":"k%d"}', i - 1))
  end
end

function request()
  return requests[math.random(keys)]
end
