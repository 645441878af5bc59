#!/usr/bin/env bash
# Runs the statistics benchmarks behind docs/benchmarks.md ("Statistics windows"): windowpane's
# histogram window beside the raw-array design (every value of the window kept, moved and
# recomputed per call), with a 60 s window held at 10,000 and at 1,000,000 values.
#
# Usage, from the repository root:
#
#     windowpane-bench/run-stats-benchmarks.sh [--smoke] [local] [local-memory] [redis-memory] [redis-load]
#
# Without a part it runs all four, in that order (about 25 minutes on 2 cores):
#
#   local         StatsBenchmark (JMH), one invocation per configuration through the quiet-machine
#                 gate of run-local-benchmarks.py (record and request; histogram at 60 and 12
#                 panes, raw array, exact; 10,000 and 1,000,000; threads 2 then 1)
#                 -> results/stats-local-DATE-t2.txt/.json, -t1.txt/.json, runs.log
#   local-memory  LocalStatsMemory: heap bytes per key (heap delta over many keys, parallel GC)
#                 -> results/stats-local-memory-DATE.txt/.json
#   redis-memory  StatsMemoryStudy: MEMORY USAGE of one key's window, a redis-server per cell
#                 -> results/stats-redis-memory-DATE.txt/.json
#   redis-load    StatsLoadBenchmark: calls/s, p50, p99 against a redis-server of its own, 16
#                 caller threads, 20 s measured after 5 s warmup per contender and scenario,
#                 histogram windows at 60 and 12 panes
#                 -> results/stats-redis-load-DATE.txt/.json
#
# The Java programs start and stop their own redis-server processes on free loopback ports
# (the testkit's RedisServer; Debian: apt-get install redis-server). Extra options for the
# load generator go in STATS_LOAD_ARGS (later options win), e.g. STATS_LOAD_ARGS="--threads 8".
#
# --smoke: every part briefly (JMH -f 1 -wi 1 -i 1 of 1 s, no gate; memory at 10,000 only; load
# with 4 threads, 2 s), written to a temporary directory unless WINDOWPANE_BENCH_RESULTS says
# otherwise: a check that everything runs, never a figure.
#
# Set WINDOWPANE_BENCH_JAR to run a copy of the jar that no build in a shared work tree can
# overwrite (the build is then skipped), and WINDOWPANE_BENCH_RESULTS to write elsewhere. Run the
# figures on an otherwise idle machine: a concurrent build or test run changes them (the JMH part
# waits for quiet and retries; the Redis parts only record the load average beside their output).
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=0
parts=()
for arg in "$@"; do
  case "$arg" in
    --smoke) smoke=1 ;;
    local | local-memory | redis-memory | redis-load) parts+=("$arg") ;;
    *)
      echo "usage: $0 [--smoke] [local] [local-memory] [redis-memory] [redis-load]" >&2
      exit 2
      ;;
  esac
done
if [[ ${#parts[@]} -eq 0 ]]; then
  parts=(local local-memory redis-memory redis-load)
fi

JAR="${WINDOWPANE_BENCH_JAR:-windowpane-bench/target/benchmarks.jar}"
if [[ -z "${WINDOWPANE_BENCH_JAR:-}" ]]; then
  mvn -B -q -DskipTests package -pl windowpane-bench -am
fi
if [[ $smoke -eq 1 ]]; then
  RESULTS="${WINDOWPANE_BENCH_RESULTS:-$(mktemp -d /tmp/windowpane-stats-smoke.XXXXXX)}"
else
  RESULTS="${WINDOWPANE_BENCH_RESULTS:-windowpane-bench/results}"
fi
mkdir -p "$RESULTS"
STAMP="$(date -u +%Y%m%d-%H%M%S)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git status --porcelain 2>/dev/null)" ]]; then
  commit="$commit+dirty"
fi
jar_sum="$(sha256sum "$JAR" | cut -c1-16)"
echo "results in $RESULTS; code $commit; jar $JAR (sha256 $jar_sum...)$([[ $smoke -eq 1 ]] && echo '; SMOKE RUN, not figures')"

log() { # one line in runs.log, as the other runners write it
  echo "$(date -u +%H:%M:%S) $*" | tee -a "$RESULTS/runs.log"
}

java_run() { # name, JVM flags..., --, main class and arguments: output kept as NAME.txt
  local name="$1"
  shift
  local flags=()
  while [[ "$1" != "--" ]]; do
    flags+=("$1")
    shift
  done
  shift
  {
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); code $commit; jar sha256 $jar_sum..."
    java "${flags[@]}" -Dwindowpane.bench.commit="$commit" -cp "$JAR" "$@"
  } 2>&1 | grep --line-buffered -v '^SLF4J: ' | tee "$RESULTS/$name.txt"
}

for part in "${parts[@]}"; do
  case "$part" in
    local)
      WINDOWPANE_BENCH_JAR="$JAR" WINDOWPANE_BENCH_RESULTS="$RESULTS" WINDOWPANE_BENCH_SMOKE="$smoke" \
        python3 windowpane-bench/run-local-benchmarks.py stats
      ;;
    local-memory)
      args=()
      [[ $smoke -eq 1 ]] && args=(--populations 10000 --windows 1)
      java_run "stats-local-memory-$STAMP" -XX:+UseParallelGC -Xms4g -Xmx4g -- \
        io.windowpane.bench.stats.LocalStatsMemory "${args[@]}" \
        --out "$RESULTS/stats-local-memory-$STAMP.json"
      log "stats-local-memory-$STAMP: LocalStatsMemory on $commit$([[ $smoke -eq 1 ]] && echo ' (SMOKE)')"
      ;;
    redis-memory)
      args=()
      [[ $smoke -eq 1 ]] && args=(--populations 10000)
      java_run "stats-redis-memory-$STAMP" -Xms2g -Xmx2g -- \
        io.windowpane.bench.redis.StatsMemoryStudy "${args[@]}" \
        --out "$RESULTS/stats-redis-memory-$STAMP.json"
      log "stats-redis-memory-$STAMP: StatsMemoryStudy on $commit$([[ $smoke -eq 1 ]] && echo ' (SMOKE)')"
      ;;
    redis-load)
      if [[ $smoke -eq 1 ]]; then
        args=(--threads 4 --duration 2s --warmup 1s --scenarios 1x10000,1x1000000)
      else
        args=(--duration 20s --warmup 5s --panes 60,12)
      fi
      # shellcheck disable=SC2206 # STATS_LOAD_ARGS is a list of words on purpose
      args+=(${STATS_LOAD_ARGS:-})
      java_run "stats-redis-load-$STAMP" -Xms4g -Xmx4g -XX:+AlwaysPreTouch -- \
        io.windowpane.bench.redis.StatsLoadBenchmark "${args[@]}" \
        --out "$RESULTS/stats-redis-load-$STAMP.json"
      log "stats-redis-load-$STAMP: StatsLoadBenchmark ${args[*]} on $commit$([[ $smoke -eq 1 ]] && echo ' (SMOKE)')"
      ;;
  esac
done
echo "done: $RESULTS"
