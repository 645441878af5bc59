#!/usr/bin/env bash
# Buffered counters against one loopback Redis, one client JVM (docs/leasing.md, "Counters and
# statistics: buffering"): adds/s on one hot key, plain against buffered (staleness
# 100 ms), and whether the count read back after a flush equals the adds made.
#
# Usage, from the repository root:
#
#     windowpane-bench/run-buffering-benchmark.sh [runs 3] [threads 16] [measured ms 10000]
#
# 2 modes x 3 runs (interleaved) x about 12 s: about 1.5 minutes. Builds the bench jar first
# unless WINDOWPANE_BENCH_JAR names a copy. Output goes to
# windowpane-bench/results/buffering-load-DATE.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

JAR="${WINDOWPANE_BENCH_JAR:-windowpane-bench/target/benchmarks.jar}"
if [[ -z "${WINDOWPANE_BENCH_JAR:-}" ]]; then
  mvn -B -q -DskipTests -pl windowpane-bench -am package
fi
out="windowpane-bench/results/buffering-load-$(date -u +%Y%m%d-%H%M%S).txt"
mkdir -p "$(dirname "$out")"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
{
  echo "commit $commit; $(date -u); load $(cat /proc/loadavg)"
  java -Xms1g -Xmx1g -cp "$JAR" io.windowpane.bench.redis.BufferingLoadBenchmark "$@"
  echo "end $(date -u); load $(cat /proc/loadavg)"
} | tee "$out"
