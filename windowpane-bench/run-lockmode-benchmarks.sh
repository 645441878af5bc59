#!/usr/bin/env bash
# Lock mode against the functions: the Redis load generator at 1, 8 and 64 concurrent callers,
# contenders windowpane-panes and windowpane-log (the functions), windowpane-lockmode (the engine
# in lock mode, SLIDING_LOG) and lock-zset (the articles' bare lock-guarded sorted set), on a hot
# key and on 10,000 keys. One JSON and one table per caller count in windowpane-bench/results/
# (ignored by git).
#
#     windowpane-bench/run-lockmode-benchmarks.sh                 # about 4 minutes on 2 cores
#     windowpane-bench/run-lockmode-benchmarks.sh --duration 2s --warmup 1s    # a smoke run
#
# Extra arguments go to every run (see run-redis-benchmarks.sh for the options).
set -euo pipefail
cd "$(dirname "$0")/.."
stamp="$(date -u +%Y%m%d-%H%M%S)"
JAR="${WINDOWPANE_BENCH_JAR:-windowpane-bench/target/benchmarks.jar}"
if [[ -z "${WINDOWPANE_BENCH_JAR:-}" ]]; then
  mvn -B -q -DskipTests -pl windowpane-bench -am package
  mkdir -p /tmp/windowpane-lockmode-bench
  cp "$JAR" /tmp/windowpane-lockmode-bench/benchmarks.jar # no build can change it mid-run
  JAR=/tmp/windowpane-lockmode-bench/benchmarks.jar
fi
for threads in 1 8 64; do
  WINDOWPANE_BENCH_JAR="$JAR" windowpane-bench/run-redis-benchmarks.sh --threads "$threads" \
    --duration 5s --warmup 2s \
    --contenders windowpane-panes,windowpane-log,windowpane-lockmode,lock-zset \
    --out "windowpane-bench/results/lockmode-$stamp-t$threads.json" "$@"
done
