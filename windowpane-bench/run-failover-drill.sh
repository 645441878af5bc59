#!/usr/bin/env bash
# Builds windowpane-bench and runs the failover drill (io.windowpane.bench.failover.FailoverDrill):
# a failover chain (Redis through a fault proxy, then the local engine, default options) under
# constant paced load while real redis-server processes are killed and restarted, hung and
# resumed, and a fleet of 4 chains loses its shared Redis. See docs/benchmarks.md, "Failover
# drill", for what is measured and the goals.
#
# Usage, from the repository root:
#
#     windowpane-bench/run-failover-drill.sh [--work-tree] [--wait-for-load MAX] [FailoverDrill options]
#
# The code measured is the commit checked out (HEAD), exported with `git archive` into a
# temporary directory and built there, so that uncommitted edits in the work tree are not
# measured. --work-tree builds the work tree as it is instead (uncommitted
# changes included; the commit is then recorded as COMMIT+dirty, and tree.txt lists them).
#
# --wait-for-load MAX: after the build, wait until the 1-minute load average is below MAX,
# checking every 30 s for at most 15 minutes, then run anyway (output.txt and runs.log record the
# load before and after, and how long it waited). This script's options come first, in this order.
#
# With the defaults (5 kill trials, 3 hang trials, the fleet; 8 threads, 5,000 decisions/s over
# 4,096 keys) the drill itself takes about 1.5 minutes, plus the build. Options (defaults in
# brackets): --threads [8], --rate [5000], --keys [4096], --healthy/--down/--after [3s each, the
# first trial of each kind], --repeat-phase [1s, the later trials], --kill-trials [5],
# --hang-trials [3], --fleet-nodes [4], --fleet-limit [1000], --fleet-offer [2.0],
# --fleet-healthy [3s], --fleet-outage [4s], --fleet-after [3s], --fleet-leasing [false], --scenarios [kill,hang,fleet],
# --budget [150s: later trials are skipped rather than overrun it], --out DIR.
#
# Output: windowpane-bench/results/failover-drill-DATE/ (drill.json, summary.md,
# timeline-kill.md, timeline-hang.md, failover-drill.png, failover-drill-hang.png, output.txt,
# tree.txt: the git status of the code measured) and one line in results/runs.log; the results
# directory is ignored by git. With WINDOWPANE_DRILL_DOCS_PNG=1 the kill timeline's plot is also
# copied to docs/img/failover-drill.png (the plot CHANGELOG.md's performance history links).
#
# Everything the drill starts (redis-server processes, proxies, threads) is its own and stops
# with it; the JVM is bounded by `timeout` (the budget plus 90 s) and its watchdog. Set
# WINDOWPANE_BENCH_JAR to run a given jar (the build is then skipped); otherwise the freshly built
# jar is copied to a temporary file first, so that no concurrent build can replace it mid-run.
set -euo pipefail
cd "$(dirname "$0")/.."

work_tree=0
if [[ "${1:-}" == "--work-tree" ]]; then
  work_tree=1
  shift
fi
max_load=""
if [[ "${1:-}" == "--wait-for-load" ]]; then
  max_load="${2:?--wait-for-load: expected a load average such as 2.5}"
  shift 2
fi

words=(run-failover-drill.sh)
if [[ $work_tree -eq 1 ]]; then words+=(--work-tree); fi
if [[ -n "$max_load" ]]; then words+=(--wait-for-load "$max_load"); fi
invocation="${words[*]}${*:+ $*}"

# The code measured, before this script writes anything. Results are output, not code.
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
tree="$(git status --porcelain -- . ':(exclude)windowpane-bench/results' ':(exclude)docs/img' 2>/dev/null || true)"

TMP="$(mktemp -d /tmp/failover-drill.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
if [[ -n "${WINDOWPANE_BENCH_JAR:-}" ]]; then
  JAR="$WINDOWPANE_BENCH_JAR"
  built="given jar: WINDOWPANE_BENCH_JAR=$JAR"
  tree="(unknown: a given jar)"
elif [[ $work_tree -eq 1 ]]; then
  if [[ -n "$tree" ]]; then
    commit="$commit+dirty"
  fi
  mvn -B -q -pl windowpane-bench -am package -DskipTests -Dexec.skip=true
  JAR="$TMP/benchmarks.jar"
  cp windowpane-bench/target/benchmarks.jar "$JAR"
  built="work tree"
else
  git archive --format=tar HEAD | tar -x -C "$TMP"
  (cd "$TMP" && mvn -B -q -pl windowpane-bench -am package -DskipTests -Dexec.skip=true)
  JAR="$TMP/windowpane-bench/target/benchmarks.jar"
  built="git archive of $commit, built in $TMP"
  tree=""
fi

args=("$@")
out=""
budget=150
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ "${args[i]}" == "--out" && $((i + 1)) -lt ${#args[@]} ]]; then
    out="${args[i + 1]}"
  fi
  if [[ "${args[i]}" == "--budget" && $((i + 1)) -lt ${#args[@]} ]]; then
    budget="$(sed -E 's/s$//' <<<"${args[i + 1]}")"
  fi
done
if [[ -z "$out" ]]; then
  out="windowpane-bench/results/failover-drill-$(date -u +%Y%m%d-%H%M%S)"
  args+=(--out "$out")
fi
mkdir -p "$out"
name="$(basename "$out")"
{
  echo "code $commit ($built); jar sha256 $(sha256sum "$JAR" | cut -c1-16)..."
  echo "uncommitted changes measured (git status --porcelain, results and docs/img left out):"
  echo "${tree:-(none)}"
} >"$out/tree.txt"

: >"$out/output.txt"
gate=""
if [[ -n "$max_load" ]]; then
  start=$(date +%s)
  while :; do
    load1=$(cut -d' ' -f1 /proc/loadavg)
    waited=$(($(date +%s) - start))
    if awk -v l="$load1" -v m="$max_load" 'BEGIN { exit !(l < m) }'; then
      gate="load gate: 1-minute load average $load1 < $max_load after ${waited} s"
      break
    fi
    if ((waited >= 900)); then
      gate="load gate: 1-minute load average still $load1 (>= $max_load) after ${waited} s; ran anyway"
      break
    fi
    echo "load gate: 1-minute load average $load1 >= $max_load after ${waited} s; waiting 30 s"
    sleep 30
  done
  echo "$gate" | tee -a "$out/output.txt"
  gate="$gate; "
fi
echo "failover drill: code $commit, $(nproc) processors, uptime: $(uptime)" | tee -a "$out/output.txt"
set +e
timeout --kill-after=10 "$((${budget%.*} + 90))" \
  java -Xms1g -Xmx1g -XX:+AlwaysPreTouch -Djava.awt.headless=true \
  -Dwindowpane.bench.commit="$commit" \
  -cp "$JAR" io.windowpane.bench.failover.FailoverDrill "${args[@]}" 2>&1 | tee -a "$out/output.txt"
status=${PIPESTATUS[0]}
set -e
echo "uptime after: $(uptime)" | tee -a "$out/output.txt"

if [[ $status -ne 0 ]]; then
  echo "$(date -u +%H:%M:%S) $name: $invocation on $commit; ${gate}FAILED (exit $status)" \
    >>windowpane-bench/results/runs.log
  exit "$status"
fi
echo "$(date -u +%H:%M:%S) $name: $invocation on $commit; $gate$(cat "$out/runs-line.txt")" \
  >>windowpane-bench/results/runs.log
rm -f "$out/runs-line.txt"
if [[ "${WINDOWPANE_DRILL_DOCS_PNG:-0}" == 1 && -f "$out/failover-drill.png" ]]; then
  mkdir -p docs/img
  cp "$out/failover-drill.png" docs/img/failover-drill.png
  echo "plot copied to docs/img/failover-drill.png"
fi
echo "results in $out"
