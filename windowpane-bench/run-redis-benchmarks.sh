#!/usr/bin/env bash
# Builds windowpane-bench and runs the Redis load generator (and, with --memory, the memory study).
#
# Usage, from the repository root:
#
#     windowpane-bench/run-redis-benchmarks.sh [RedisLoadBenchmark options]
#     windowpane-bench/run-redis-benchmarks.sh --memory [MemoryStudy options]
#
# e.g. the full run (8 contenders x 2 scenarios x (3 s warmup + 10 s), about 4 minutes on 2 cores):
#
#     windowpane-bench/run-redis-benchmarks.sh
#
# and a smoke run: windowpane-bench/run-redis-benchmarks.sh --threads 4 --duration 2s --warmup 1s
#
# Options of the load generator (defaults in brackets): --threads N [16], --duration [10s],
# --warmup [3s], --limit per window per key [1000000], --window [1s], --keys [10000],
# --contenders incr,zset-lua,lock-zset,bucket4j,redisson,windowpane-panes,windowpane-weighted,windowpane-log,
# windowpane-lockmode (lock mode: LockModeEngine of this module), windowpane-panes-uncoalesced,
# windowpane-panes-noguard (the memory guard off: what it costs a decision),
# --scenarios hot,uniform, --redis-uri redis://host:port (else it starts its own redis-server),
# --out FILE.json [windowpane-bench/results/redis-load-DATE.json].
#
# Each run's table is also kept, as printed, beside its JSON (same name, .txt). The JVM flags
# matter: -Xms = -Xmx with -XX:+AlwaysPreTouch touches the heap before the first measurement, so
# first-touch page faults do not land in one contender's figures. Set WINDOWPANE_BENCH_JAR to run
# a copy of the jar that no build in a shared work tree can overwrite (the build is then skipped).
set -euo pipefail
cd "$(dirname "$0")/.."

JAR="${WINDOWPANE_BENCH_JAR:-windowpane-bench/target/benchmarks.jar}"
if [[ -z "${WINDOWPANE_BENCH_JAR:-}" ]]; then
  mvn -B -q -DskipTests -pl windowpane-bench -am package
fi

MAIN=io.windowpane.bench.redis.RedisLoadBenchmark
PREFIX=redis-load
if [[ "${1:-}" == "--memory" ]]; then
  shift
  MAIN=io.windowpane.bench.redis.MemoryStudy
  PREFIX=redis-memory
fi

args=("$@")
out=""
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ "${args[i]}" == "--out" && $((i + 1)) -lt ${#args[@]} ]]; then
    out="${args[i + 1]}"
  fi
done
if [[ -z "$out" ]]; then
  out="windowpane-bench/results/$PREFIX-$(date -u +%Y%m%d-%H%M%S).json"
  args+=(--out "$out")
fi
mkdir -p "$(dirname "$out")"

commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git status --porcelain 2>/dev/null)" ]]; then
  commit="$commit+dirty"
fi

java -Xms2g -Xmx2g -XX:+AlwaysPreTouch -Dwindowpane.bench.commit="$commit" \
  -cp "$JAR" "$MAIN" "${args[@]}" | tee "${out%.json}.txt"
