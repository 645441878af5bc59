#!/usr/bin/env bash
# The hot-key figures of docs/benchmarks.md ("Local engine: one hot key, 1 to 8 threads").
#
# Usage, from the repository root, with a jar built from a clean `git archive` of one commit:
#   JAR=/tmp/wp-hot/benchmarks.jar windowpane-bench/run-hotkey-benchmarks.sh [BASELINE_JAR]
#
# Output goes to OUT, by default windowpane-bench/results/hotkey-DATE/ (ignored by git).
#
# Each line below is one JMH invocation: the listed implementations one after another, each in
# 3 forks of 2 x 1 s warm-up and 3 x 1 s measurement, -prof gc. Before each invocation the
# script waits (60 s at a time, at most 20 minutes in all) while the 1-minute load average is
# above 1.5, and logs the load average it started at in OUT/load.log. With BASELINE_JAR it also
# runs windowpane panes from that jar (the code before a change) in the same run.
# WAIT_BUDGET (seconds, default 1200) bounds the waiting for quiet. Set PARTS to run fewer: any of allowed denied atlimit counters acquire stats baseline (default all).
set -u
JAR=${JAR:?jar}
OUT=${OUT:-windowpane-bench/results/hotkey-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OPTS=(-f 3 -wi 2 -w 1s -i 3 -r 1s -prof gc -jvmArgsAppend "-Xms2g -Xmx2g -XX:+AlwaysPreTouch")
waited=0

gate() {
  while :; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    if awk "BEGIN{exit !($load <= 1.5)}" || [ "$waited" -ge "${WAIT_BUDGET:-1200}" ]; then
      break
    fi
    sleep 60
    waited=$((waited + 60))
  done
  echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) waited ${waited}s: $1" >> "$OUT/load.log"
}

run() { # name jar impls scenario threads
  gate "$1"
  java -jar "$2" 'LocalDecideBenchmark.decide$' -p impl="$3" -p scenario="$4" -t "$5" "${OPTS[@]}" \
      -rf json -rff "$OUT/$1.json" > "$OUT/$1.txt" 2>&1
}

counters() { # name threads: WindowCounter.add and .record beside Sentinel, AtomicLong, LongAdder
  gate "$1"
  java -jar "$JAR" 'LocalCounterBenchmark.add$' -t "$2" "${OPTS[@]}" \
      -rf json -rff "$OUT/$1.json" > "$OUT/$1.txt" 2>&1
}

acquire() { # name threads: tryAcquire (a Decision) beside tryConsume, allowed, one hot key
  gate "$1"
  java -jar "$JAR" 'LocalAcquireBenchmark' -p scenario=ALLOWED -t "$2" "${OPTS[@]}" \
      -rf json -rff "$OUT/$1.json" > "$OUT/$1.txt" 2>&1
}

stats() { # name threads: one hot statistics window, record only, held at 10,000 values
  gate "$1"
  java -jar "$JAR" 'StatsBenchmark.record$' -p impl=WINDOWPANE_HISTOGRAM,RAW_ARRAY \
      -p population=10000 -p panes=60 -t "$2" "${OPTS[@]}" \
      -rf json -rff "$OUT/$1.json" > "$OUT/$1.txt" 2>&1
}

PEERS=WINDOWPANE_PANES,WINDOWPANE_WEIGHTED,RESILIENCE4J,BUCKET4J,GUAVA,SENTINEL,LONG_ADDER
want() { [[ " ${PARTS:-allowed denied atlimit counters acquire stats baseline} " == *" $1 "* ]]; }

want allowed && for t in 1 2 4 8; do
  run "allowed-t$t" "$JAR" "$PEERS" ALLOWED "$t"
done
want denied && for t in 1 2; do
  run "denied-t$t" "$JAR" WINDOWPANE_PANES,WINDOWPANE_WEIGHTED,RESILIENCE4J,BUCKET4J,GUAVA DENIED "$t"
done
want atlimit && for t in 1 2 4; do
  run "atlimit-t$t" "$JAR" WINDOWPANE_PANES,WINDOWPANE_WEIGHTED,RESILIENCE4J,BUCKET4J AT_LIMIT "$t"
done
want counters && for t in 1 2; do
  counters "counters-t$t" "$t"
done
want acquire && for t in 1 2; do
  acquire "acquire-t$t" "$t"
done
want stats && for t in 1 2; do
  stats "stats-t$t" "$t"
done
if [ $# -ge 1 ] && want baseline; then
  for t in 1 2; do
    run "baseline-allowed-t$t" "$1" WINDOWPANE_PANES ALLOWED "$t"
    run "baseline-denied-t$t" "$1" WINDOWPANE_PANES DENIED "$t"
  done
fi
