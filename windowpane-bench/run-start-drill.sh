#!/usr/bin/env bash
# The start-during-outage drill: the time from `windowpane serve` on the chain [redis, local] to
# its first answered acquire, with redis-server running and with nothing listening on Redis's
# port, RUNS times each, alternating. Prints one line per run and the median and range of each
# case. Needs redis-server on the PATH and a built windowpane-server/target/windowpane.jar
# (./windowpane --help builds it). Loopback only; every process it starts is stopped by PID.
#   windowpane-bench/run-start-drill.sh [RUNS]          (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
jar=windowpane-server/target/windowpane.jar
[ -f "$jar" ] || { echo "build first: ./windowpane --help" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
now_ms() { date +%s%3N; }

one() { # $1: up|down; prints ms from launch to the first 200/429 answer
  local redis_port http_port redis_pid="" server_pid t0 t1
  redis_port=$(free_port); http_port=$(free_port)
  if [ "$1" = up ]; then
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null &
    redis_pid=$!
    until redis-cli -p "$redis_port" ping >/dev/null 2>&1; do sleep 0.05; done
  fi
  t0=$(now_ms)
  java -jar "$jar" serve --port "$http_port" --redis "redis://127.0.0.1:$redis_port" \
      --fallback local >/dev/null 2>&1 &
  server_pid=$!
  for _ in $(seq 1 600); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -d '{"key":"k"}' \
        "http://127.0.0.1:$http_port/v1/limiters/demo/acquire" || true)
    if [ "$code" = 200 ] || [ "$code" = 429 ]; then break; fi
    sleep 0.02
  done
  t1=$(now_ms)
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  if [ -n "$redis_pid" ]; then kill "$redis_pid"; wait "$redis_pid" 2>/dev/null || true; fi
  echo $((t1 - t0))
}

declare -a up down
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$runs"); do
  u=$(one up); d=$(one down)
  up+=("$u"); down+=("$d")
  echo "run $i: redis up ${u} ms, redis down ${d} ms"
done
stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "median %s ms (%s-%s)", m, a[1], a[NR]}'; }
echo "redis up:   $(stats "${up[@]}")"
echo "redis down: $(stats "${down[@]}")"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
