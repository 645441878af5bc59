-- windowpane server load (wrk script): every request is the same acquire of one permit for one
-- hot key, POST <url> {"key":"hot"}. The URL names the limiter:
--   wrk -t2 -c32 -d20s --latency -s acquire-hot.lua http://127.0.0.1:PORT/v1/limiters/bench/acquire
-- A static request: wrk builds it once and sends it as is, so the client does no Lua per request.
wrk.method = "POST"
wrk.body = '{"key":"hot"}'
wrk.headers["Content-Type"] = "application/json"
