#!/usr/bin/env bash
# Builds windowpane-bench and runs the etcd load generator (io.windowpane.bench.etcd.EtcdLoadBenchmark):
# windowpane's etcd engine beside a naive compare-and-swap loop and plain puts, one etcd, same run.
#
# Usage, from the repository root:
#
#     windowpane-bench/run-etcd-benchmarks.sh [--wait-for-load MAX] [EtcdLoadBenchmark options]
#
# e.g. the full run of docs/benchmarks.md (3 contenders x 2 scenarios x 3 thread counts x
# (2 s warmup + 8 s), about 3.5 minutes on 2 cores):
#
#     windowpane-bench/run-etcd-benchmarks.sh --wait-for-load 1.5 --threads 1,16,64
#
# and a smoke run: windowpane-bench/run-etcd-benchmarks.sh --smoke
#
# --wait-for-load MAX (this script's own option, first if given): after the build, wait until the
# 1-minute load average is below MAX, checking every 30 s for at most 20 minutes, then run anyway
# (the results record the load average before and after, and this script prints how long it
# waited).
#
# Options of the load generator (defaults in brackets): --smoke (4 threads, 1 s warmup, 2 s),
# --threads N or a list [16], --duration [8s], --warmup [2s], --limit per window per key
# [1000000000], --window [60s], --panes [60], --keys [1000], --contenders put,naive-cas,windowpane-etcd,
# --scenarios hot,uniform, --naive-attempts [20], --naive-pause-us [0], --timeout [5s],
# --endpoint http://host:port (else it starts its own etcd through the testkit),
# --out FILE.json [windowpane-bench/results/etcd-load-DATE.json].
#
# Each run's tables are also kept, as printed, beside its JSON (same name, .txt). Set
# WINDOWPANE_BENCH_JAR to run a copy of the jar that no build in a shared work tree can
# overwrite (the build is then skipped).
set -euo pipefail
cd "$(dirname "$0")/.."

# The code measured: before this script writes anything into the tree.
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git status --porcelain 2>/dev/null)" ]]; then
  commit="$commit+dirty"
fi

max_load=""
if [[ "${1:-}" == "--wait-for-load" ]]; then
  max_load="${2:?--wait-for-load: expected a load average such as 1.5}"
  shift 2
fi

JAR="${WINDOWPANE_BENCH_JAR:-windowpane-bench/target/benchmarks.jar}"
if [[ -z "${WINDOWPANE_BENCH_JAR:-}" ]]; then
  mvn -B -q -DskipTests -pl windowpane-bench -am package
fi

args=("$@")
out=""
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ "${args[i]}" == "--out" && $((i + 1)) -lt ${#args[@]} ]]; then
    out="${args[i + 1]}"
  fi
done
if [[ -z "$out" ]]; then
  out="windowpane-bench/results/etcd-load-$(date -u +%Y%m%d-%H%M%S).json"
  args+=(--out "$out")
fi
mkdir -p "$(dirname "$out")"
txt="${out%.json}.txt"
: > "$txt"

if [[ -n "$max_load" ]]; then
  start=$(date +%s)
  while :; do
    load1=$(cut -d' ' -f1 /proc/loadavg)
    waited=$(( $(date +%s) - start ))
    if awk -v l="$load1" -v m="$max_load" 'BEGIN { exit !(l < m) }'; then
      echo "load gate: 1-minute load average $load1 < $max_load after ${waited} s; running" | tee -a "$txt"
      break
    fi
    if (( waited >= 1200 )); then
      echo "load gate: 1-minute load average still $load1 (>= $max_load) after ${waited} s; running anyway" | tee -a "$txt"
      break
    fi
    echo "load gate: 1-minute load average $load1 >= $max_load after ${waited} s; waiting 30 s" | tee -a "$txt"
    sleep 30
  done
fi

java -Xms2g -Xmx2g -XX:+AlwaysPreTouch -Dwindowpane.bench.commit="$commit" \
  -cp "$JAR" io.windowpane.bench.etcd.EtcdLoadBenchmark "${args[@]}" | tee -a "$txt"
