#!/usr/bin/env bash
# Hot-key leasing against one loopback Redis, two client JVMs (docs/leasing.md):
# decisions/s of INCR, a plain limiter and a leasing limiter (hot key and 10,000 keys), and the
# measured overshoot at limits 1,000 / 10,000 / 100,000 per second beside the stated bound.
#
# Usage, from the repository root:
#
#     windowpane-bench/run-leasing-benchmark.sh [runs 3] [threads per JVM 8] [measured ms 10000] [filter regex]
#
# 16 configurations x 3 runs (interleaved) x about 8-16 s: about 10 minutes. Builds the bench
# jar first unless WINDOWPANE_BENCH_JAR names a copy. Output (the table as printed) goes to
# windowpane-bench/results/leasing-load-DATE.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

JAR="${WINDOWPANE_BENCH_JAR:-windowpane-bench/target/benchmarks.jar}"
if [[ -z "${WINDOWPANE_BENCH_JAR:-}" ]]; then
  mvn -B -q -DskipTests -pl windowpane-bench -am package
fi
out="windowpane-bench/results/leasing-load-$(date -u +%Y%m%d-%H%M%S).txt"
mkdir -p "$(dirname "$out")"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
{
  echo "commit $commit; $(date -u); load $(cat /proc/loadavg)"
  java -Xms1g -Xmx1g -cp "$JAR" io.windowpane.bench.redis.LeasingLoadBenchmark "$@"
  echo "end $(date -u); load $(cat /proc/loadavg)"
} | tee "$out"
