#!/usr/bin/env bash
# Load test of the Envoy rate limit service (windowpane serve --grpc-port) beside the HTTP API of
# the same server, in the same run: decisions per second and latency of ShouldRateLimit over
# gRPC (io.windowpane.bench.rls.RlsLoad, a bounded closed-loop Java client) and of
# POST /v1/limiters/bench/acquire over HTTP (wrk), on the local engine and on Redis.
#
# Usage, from anywhere in the repository, after
#   mvn -q -B -DskipTests -pl windowpane-server,windowpane-bench -am package:
#
#     windowpane-bench/run-rls-load.sh             # about 10 minutes on 2 cores
#     windowpane-bench/run-rls-load.sh --smoke     # about 1.5 minutes: a check, not figures
#
# For each engine (local, then Redis on a redis-server of the script's own on a free loopback
# port) it starts `java -jar windowpane.jar serve --config server-load/bench.yaml --port P
# --grpc-port G --rls-config server-load/rls/bench.yaml [--redis ...]`, warms both paths up, then
# runs ROUNDS rounds (3; 1 with --smoke), each in this order, DURATION seconds each (10; 3):
#
#   http-hot    wrk -t2 -c32 --latency -s server-load/acquire-hot.lua  POST .../bench/acquire
#   grpc-hot    RlsLoad --threads 32 --scenario hot     one descriptor, every call OK
#   grpc-spread RlsLoad --threads 32 --scenario spread  10,000 descriptor values, seeded
#   grpc-two    RlsLoad --threads 32 --scenario two     two descriptors per call
#   grpc-over   RlsLoad --threads 32 --scenario over    100 per second: nearly all OVER_LIMIT
#
# Each RlsLoad run is a new JVM: it first calls for WARMUP seconds (5; 2) unmeasured, so its own
# gRPC client code is compiled before the measured DURATION; wrk needs no warm-up of its own.
# 32 connections for wrk and 32 caller threads for gRPC: both are closed loops with 32 requests
# in flight. Output: every raw line, the machine, load averages and the code commit in
# windowpane-bench/results/rls-load-<UTC yyyymmdd-HHMM>[-smoke].txt, and at the end the median
# and range over the rounds of each scenario. Stops only what it started (the server by PID, its
# own redis-server). Needs wrk, redis-server, redis-cli, curl, python3 and Java 17.
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=0
[[ "${1:-}" == --smoke ]] && smoke=1
ROUNDS=3 DURATION=10 WARMUP=5
[[ $smoke -eq 1 ]] && ROUNDS=1 DURATION=3 WARMUP=2
for c in wrk redis-server redis-cli curl python3 java; do
  command -v "$c" >/dev/null || { echo "run-rls-load.sh: $c not found" >&2; exit 1; }
done
JAR="${WINDOWPANE_JAR:-windowpane-server/target/windowpane.jar}"
BENCH="windowpane-bench/target/benchmarks.jar"
[[ -f "$JAR" && -f "$BENCH" ]] || { echo "build first: mvn -q -B -DskipTests -pl windowpane-server,windowpane-bench -am package" >&2; exit 1; }
CONFIG=windowpane-bench/server-load/bench.yaml
RULES=windowpane-bench/server-load/rls/bench.yaml
HOT=windowpane-bench/server-load/acquire-hot.lua
commit="${WINDOWPANE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
mkdir -p windowpane-bench/results
OUT="windowpane-bench/results/rls-load-$(date -u +%Y%m%d-%H%M)$([[ $smoke -eq 1 ]] && echo -smoke || true).txt"
: >"$OUT"
SERVER_PID="" REDIS_PID="" REDIS_DIR=""
cleanup() {
  [[ -n "$SERVER_PID" ]] && { kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; }
  [[ -n "$REDIS_PID" ]] && { kill "$REDIS_PID" 2>/dev/null || true; wait "$REDIS_PID" 2>/dev/null || true; rm -rf "$REDIS_DIR"; }
  return 0
}
trap cleanup EXIT
say() { echo "$*" | tee -a "$OUT"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

say "# windowpane Envoy RLS (gRPC) and HTTP load test$([[ $smoke -eq 1 ]] && echo ' (SMOKE)' || true)"
say "date: $(date -u '+%Y-%m-%d %H:%M:%S') UTC; command: windowpane-bench/run-rls-load.sh $*"
say "code: $commit; jar: $JAR (built $(date -u -r "$JAR" '+%Y-%m-%d %H:%M') UTC)"
say "machine: nproc $(nproc); $(lscpu | sed -n 's/^Model name: *//p' | head -1); $(free -g | awk '/^Mem:/{print $2}') GiB; $(java -version 2>&1 | head -1); $(redis-server --version | cut -d' ' -f1-3)"
say "rounds $ROUNDS x $DURATION s per scenario; wrk -t2 -c32; RlsLoad --threads 32"
say ""

GRPC=""
BASE=""
start_server() { # engine, extra serve options
  local engine="$1"; shift
  local port; port="$(free_port)"; GRPC="$(free_port)"; BASE="http://127.0.0.1:$port"
  java -Xms1g -Xmx1g -XX:+AlwaysPreTouch -jar "$JAR" serve --config "$CONFIG" --port "$port" \
    --grpc-port "$GRPC" --rls-config "$RULES" "$@" >"/tmp/rls-load-server-$engine.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 300); do
    [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$BASE/health" || true)" == 200 ]] && break
    sleep 0.1
  done
  say "## $engine: serve --port $port --grpc-port $GRPC $* (pid $SERVER_PID): $(head -2 /tmp/rls-load-server-$engine.log | tr '\n' ' ')"
}
stop_server() {
  say "### $engine meters: $(curl -s "$BASE/metrics" | grep -E '^windowpane_rls_(total_hits|over_limit)_total' | tr '\n' ' ')"
  kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
}
http_run() { # engine round duration record
  local raw; raw="$(wrk -t2 -c32 -d"$3"s --latency -s "$HOT" "$BASE/v1/limiters/bench/acquire" 2>&1)"
  echo "$raw" >>"$OUT"
  local rps p99
  rps="$(awk '/^Requests\/sec:/{print $2}' <<<"$raw")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$raw")"
  [[ $4 -eq 1 ]] && say "RESULT engine=$1 round=$2 scenario=http-hot decisions_per_s=$rps p99=$p99 load=$(cut -d' ' -f1 /proc/loadavg)"
  return 0
}
grpc_run() { # engine round scenario duration warmup record
  local line
  line="$(java -Xms256m -Xmx256m -cp "$BENCH" io.windowpane.bench.rls.RlsLoad --port "$GRPC" \
    --threads 32 --seconds "$4" --warmup "$5" --scenario "$3")"
  [[ $6 -eq 1 ]] && say "RESULT engine=$1 round=$2 $line load=$(cut -d' ' -f1 /proc/loadavg)"
  return 0
}
run_engine() { # engine, extra serve options
  engine="$1"; shift
  start_server "$engine" "$@"
  http_run "$engine" 0 "$WARMUP" 0
  grpc_run "$engine" 0 two 1 "$WARMUP" 0
  for round in $(seq "$ROUNDS"); do
    http_run "$engine" "$round" "$DURATION" 1
    for s in hot spread two over; do
      grpc_run "$engine" "$round" "$s" "$DURATION" "$WARMUP" 1
    done
  done
  stop_server
}

run_engine local
REDIS_PORT="$(free_port)"; REDIS_DIR="$(mktemp -d)"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$REDIS_DIR" \
  >"$REDIS_DIR/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" PING >/dev/null 2>&1 && break; sleep 0.1; done
say ""
run_engine redis --redis "redis://127.0.0.1:$REDIS_PORT"

say ""
say "| engine | scenario | decisions/s median | range over $ROUNDS rounds | p99 median | p99 range |"
say "|---|---|--:|--:|--:|--:|"
grep '^RESULT' "$OUT" | python3 -c '
import re, sys, statistics
rows = {}
for line in sys.stdin:
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    p99 = f.get("p99_us")
    if p99 is None:  # wrk: 1.23ms / 456.78us / 1.2s
        m = re.match(r"([\d.]+)(us|ms|s)", f["p99"])
        p99 = float(m.group(1)) * {"us": 1, "ms": 1000, "s": 1e6}[m.group(2)]
    rows.setdefault((f["engine"], f["scenario"]), []).append((float(f["decisions_per_s"]), float(p99)))
for (e, s), v in rows.items():
    d = [x[0] for x in v]; p = [x[1] for x in v]
    print(f"| {e} | {s} | {statistics.median(d):,.0f} | {min(d):,.0f} - {max(d):,.0f} | "
          f"{statistics.median(p)/1000:.2f} ms | {min(p)/1000:.2f} - {max(p)/1000:.2f} ms |")
' | tee -a "$OUT"
say "raw: $OUT"
