#!/usr/bin/env bash
# Server microseconds of one windowpane function call, measured inside Redis: appends to the
# library text a function that calls the chosen function ITER times in a loop within one FCALL
# and answers the elapsed TIME per call, and repeats that REPS times; prints the minimum and the
# median per case. The minimum is the figure to compare on a shared machine (preemption only
# ever adds time). It counts everything the function does on the server (its Lua, its
# redis.call commands) but not what every FCALL costs around it (argument tables, the reply's
# conversion to RESP, the command dispatch): redis-function-costs.sh measures those. Starts a
# redis-server of its own on a free loopback port and stops it when done.
#
#     windowpane-bench/redis-function-loop.sh            (ITER=500 REPS=20 by default)
#     LIB=/tmp/windowpane-v5.lua windowpane-bench/redis-function-loop.sh   (another library text)
set -euo pipefail
cd "$(dirname "$0")/.."

ITER="${ITER:-500}"
REPS="${REPS:-20}"
if [ -z "${LIB:-}" ]; then # the library is the concatenation of the lua/ files, in name order
  LIB="$(mktemp -t windowpane-lib.XXXXXX.lua)"
  cat windowpane-redis/src/main/resources/io/windowpane/redis/lua/*.lua > "$LIB"
fi
. windowpane-bench/lib/own-redis.sh
TEXT="$(cat "$LIB")
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
redis.register_function('bench_loop', function(keys, args)
  local f, it, rest = EXPORTS[args[1]], tonumber(args[2]), {}
  for i = 3, #args do
    rest[#rest + 1] = args[i]
  end
  local t0 = clock()
  for i = 1, it do
    f(keys, rest)
  end
  return string.format('%.3f', (clock() - t0) / it)
end)
redis.register_function('bench_steps', function(keys, args)
  local f, it, step, rest = EXPORTS[args[1]], tonumber(args[2]), tonumber(args[3]), {}
  for i = 4, #args do
    rest[#rest + 1] = args[i]
  end
  local base = tonumber(rest[1])
  local t0 = clock()
  for i = 1, it do
    rest[1] = string.format('%d', base + i * step)
    f(keys, rest)
  end
  return string.format('%.3f', (clock() - t0) / it)
end)"
cli FUNCTION LOAD REPLACE "$TEXT" >/dev/null
echo "redis $(cli INFO server | grep -o 'redis_version:[^[:space:]]*' | cut -d: -f2), $(nproc) cores," \
  "library version $(cli FCALL wp_version 0) ($LIB, $(sha256sum "$LIB" | cut -c1-12)), $ITER calls x $REPS"
printf '%-44s %8s %8s\n' case "min us" "median"

run() { # name, function, numkeys, keys..., args...; STEP=ms: the caller's time, +ms a call
  local name="$1" fn="$2" nk="$3"
  shift 3
  local keys=("${@:1:nk}")
  shift "$nk"
  local all=()
  for ((r = 0; r < REPS; r++)); do
    if [ -n "${STEP:-}" ]; then # each rep on keys of its own, from a time of its own
      all+=("$(cli FCALL bench_steps "$nk" "${keys[@]/%/:$r}" "$fn" "$ITER" "$STEP" \
        "$((1800000000000 + r * 100000000))" "${@:2}")")
    else
      all+=("$(cli FCALL bench_loop "$nk" "${keys[@]}" "$fn" "$ITER" "$@")")
    fi
  done
  printf '%s\n' "${all[@]}" | sort -g | awk -v name="$name" \
    '{ v[NR] = $1 } END { printf "%-44s %8.2f %8.2f\n", name, v[1], v[int((NR + 1) / 2)] }'
}

BIG=1000000000
for fn in wp_acquire wp_take; do
  grep -q "'$fn'" "$LIB" || continue
  run "$fn panes 1s/10, allowed" $fn 1 "wp1:r:{$fn:a:${#fn}}:0:p1000/10" '' 1 1 p 1000 10 "$BIG"
  run "$fn weighted 1s, allowed" $fn 1 "wp1:r:{$fn:b:${#fn}}:0:w1000" '' 1 1 w 1000 1 "$BIG"
  run "$fn log 1s, allowed" $fn 2 "wp1:r:{$fn:c:${#fn}}:0:l1000" "wp1:r:{$fn:c:${#fn}}:0:l1000:m" '' 1 1 l 1000 1 1000000
  run "$fn panes 1s/10, denied (limit 10)" $fn 1 "wp1:r:{$fn:d:${#fn}}:0:p1000/10" '' 1 1 p 1000 10 10
  run "$fn panes 1s/10 + 1h/60, allowed" $fn 2 "wp1:r:{$fn:e:${#fn}}:0:p1000/10" "wp1:r:{$fn:e:${#fn}}:1:p3600000/60" '' 1 2 p 1000 10 "$BIG" p 3600000 60 "$BIG"
done
# The head moving on: one key, the caller's time advancing STEP ms a call, so every call takes
# the path named: panes 1 s / 10 at +0 ms (the hot path, at the caller's time), +100 (one pane
# on), +350 (three or four panes on), +1500 (every pane has left); weighted 1 s at +0, +1000
# (the next fixed window), +2500 (both windows have left). NOSTEPS=1 skips them.
if [ -z "${NOSTEPS:-}" ]; then
  for step in 0 100 350 1500; do
    STEP=$step run "wp_take panes 1s/10, caller time +$step ms" wp_take 1 'wp1:r:{st:p:2}:0:p1000/10' 0 1 1 p 1000 10 "$BIG"
  done
  for step in 0 1000 2500; do
    STEP=$step run "wp_take weighted 1s, caller time +$step ms" wp_take 1 'wp1:r:{st:w:2}:0:w1000' 0 1 1 w 1000 1 "$BIG"
  done
fi
