#!/usr/bin/env bash
# Load test of the HTTP service (windowpane serve) with wrk: requests per second and latency of
# an acquire over HTTP, on the local engine and on Redis, each beside the HTTP floor of the same
# server (GET /health/live, which never calls the engine).
#
# Usage, from anywhere in the repository:
#
#     windowpane-bench/run-server-load.sh            # about 3.5 minutes on 2 cores
#     windowpane-bench/run-server-load.sh --smoke    # under a minute: a check, not a figure
#
# For each engine (local, then Redis on a redis-server of the script's own, on a free loopback
# port), the script starts `java -jar windowpane.jar serve --config server-load/bench.yaml --port P
# [--redis redis://127.0.0.1:R]`, waits until /health answers 200, runs one warm-up (5 s, 1 s with
# --smoke: the four scenarios' requests in turn, server-load/warmup-mix.lua, so that no path is
# measured while it is still being compiled), then each scenario once with
#
#     wrk -t2 -c32 -d20s --latency [-s SCRIPT] URL                 (-d3s with --smoke)
#
#   1. GET /health/live                          the HTTP floor, no engine call
#   2. POST /v1/limiters/bench/acquire           one hot key (server-load/acquire-hot.lua)
#   3. POST /v1/limiters/bench/acquire           10,000 keys, uniform, seeded (acquire-spread.lua)
#   4. POST /v1/limiters/tight/acquire           one hot key, 100 per second: mostly 429s
#
# `bench` allows 10^9 per minute (out of reach: every acquire is allowed), `tight` 100 per second.
# wrk counts every 429 as a "Non-2xx or 3xx response"; the table shows that count, and the
# server's own windowpane_decisions_total (from /metrics, kept in the results file) says which
# were denials. The server is stopped (SIGTERM, then waited for) after its engine's scenarios
# and on any exit; nothing else is stopped.
#
# Output: wrk's raw output of every run, the machine, the code commit, the server's log and
# metrics, in windowpane-bench/results/server-load-<UTC yyyymmdd-HHMM>[-smoke].txt; one line in
# windowpane-bench/results/runs.log; and, at the end, a Markdown table: requests/s, p50, p99 and
# non-2xx count of each scenario, and requests/s as a multiple of /health/live on the same engine.
#
# The machine: wrk, the server and Redis share its cores, so a build or test running beside this
# changes every figure. Before the run the script waits (up to 60 s) for 5 quiet seconds, and for
# each scenario it records the CPU time that processes it did not start used meanwhile ("other
# CPU", user time, percent of one core); the table says where it was above 5 %. Run it on an
# otherwise idle machine.
#
# Environment: WINDOWPANE_JAR, a server jar to run (else windowpane-server/target/windowpane.jar,
# built with Maven if missing); WINDOWPANE_SERVER_JVM_OPTS, the server's JVM flags (default
# "-Xms1g -Xmx1g -XX:+AlwaysPreTouch": a fixed, pre-touched heap, as in the other benchmarks);
# WINDOWPANE_BENCH_RESULTS, another results directory. Needs wrk, redis-server, redis-cli, curl,
# python3 and Java 17.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: windowpane-bench/run-server-load.sh [--smoke]"
}
smoke=0
for arg in "$@"; do
  case "$arg" in
    --smoke) smoke=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

need() { # command, Debian package
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "run-server-load.sh: '$1' not found; install it: sudo apt-get install -y $2" >&2
    exit 1
  fi
}
need wrk wrk
need redis-server redis-server
need redis-cli redis-tools
need curl curl
need python3 python3
need java openjdk-17-jre-headless

HERE=windowpane-bench/server-load
CONFIG="$HERE/bench.yaml"
THREADS=2
CONNECTIONS=32
KEYS=10000
SEED=42
if [[ $smoke -eq 1 ]]; then
  DURATION=3s WARMUP=1s
else
  DURATION=20s WARMUP=5s
fi
read -r -a SERVER_JVM <<<"${WINDOWPANE_SERVER_JVM_OPTS:--Xms1g -Xmx1g -XX:+AlwaysPreTouch}"

JAR="${WINDOWPANE_JAR:-windowpane-server/target/windowpane.jar}"
if [[ -z "${WINDOWPANE_JAR:-}" && ! -f "$JAR" ]]; then
  echo "building $JAR: mvn -q -B -DskipTests -pl windowpane-server -am package"
  mvn -q -B -DskipTests -pl windowpane-server -am package
fi
if [[ ! -f "$JAR" ]]; then
  echo "run-server-load.sh: no server jar at $JAR" >&2
  exit 1
fi
stale=""
if [[ -z "${WINDOWPANE_JAR:-}" ]] && [[ -n "$(find pom.xml docs/openapi.yaml windowpane-core/pom.xml \
  windowpane-core/src windowpane-redis/pom.xml windowpane-redis/src windowpane-server/pom.xml \
  windowpane-server/src -newer "$JAR" -print -quit 2>/dev/null)" ]]; then
  stale="WARNING: sources are newer than $JAR, so it may not be the code of the commit below;"
  stale+=" rebuild it (mvn -q -B -DskipTests -pl windowpane-server -am package) for figures"
fi

# The code commit. Results and runs.log are left out of "dirty": benchmark output, not code.
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git status --porcelain -- . ':(exclude)windowpane-bench/results' 2>/dev/null)" ]]; then
  commit="$commit-dirty"
fi

RESULTS="${WINDOWPANE_BENCH_RESULTS:-windowpane-bench/results}"
mkdir -p "$RESULTS"
suffix=""
if [[ $smoke -eq 1 ]]; then suffix="-smoke"; fi
NAME="server-load-$(date -u +%Y%m%d-%H%M)$suffix"
if [[ -e "$RESULTS/$NAME.txt" ]]; then
  NAME="server-load-$(date -u +%Y%m%d-%H%M%S)$suffix"
fi
OUT="$RESULTS/$NAME.txt"
: >"$OUT"

WORK="$(mktemp -d /tmp/windowpane-server-load.XXXXXX)"
SERVER_PID=""
REDIS_PID=""
REDIS_DIR=""

alive() { # pid: running, i.e. neither gone nor an exited child not yet waited for
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  [[ "${stat:0:1}" != Z ]]
}

stop_server() { # SIGTERM to the server started here, then wait for it (2 s graceful stop)
  [[ -n "$SERVER_PID" ]] || return 0
  kill "$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 150); do
    alive "$SERVER_PID" || break
    sleep 0.1
  done
  if alive "$SERVER_PID"; then
    echo "server $SERVER_PID still running 15 s after SIGTERM: SIGKILL" | tee -a "$OUT"
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

cleanup() {
  stop_server
  if [[ -n "$REDIS_PID" ]]; then
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
    rm -rf "$REDIS_DIR"
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say() { echo "$*" | tee -a "$OUT"; }
fail() {
  echo "run-server-load.sh: $*" | tee -a "$OUT" >&2
  exit 1
}
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# CPU accounting: user time (clock ticks) of the whole machine, and of the processes this script
# started: the server, redis-server, and this shell's own and waited-for children's (wrk, curl).
HZ="$(getconf CLK_TCK)"
machine_ticks() { awk '/^cpu /{print $2 + $3}' /proc/stat; }
process_ticks() { # pid [children]: utime (+ cutime)
  local stat fields
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || { echo 0; return; }
  read -r -a fields <<<"${stat##*) }"
  if [[ "${2:-}" == children ]]; then
    echo $((fields[11] + fields[13]))
  else
    echo $((fields[11]))
  fi
}
ours_ticks() {
  local total
  total=$(process_ticks $$ children)
  [[ -n "$SERVER_PID" ]] && total=$((total + $(process_ticks "$SERVER_PID")))
  [[ -n "$REDIS_PID" ]] && total=$((total + $(process_ticks "$REDIS_PID")))
  echo "$total"
}
CPU_MARK=()
cpu_mark() { CPU_MARK=("$(machine_ticks)" "$(ours_ticks)" "$(date +%s.%N)"); }
other_cpu() { # percent of one core used by other processes since cpu_mark
  local machine ours now
  machine=$(machine_ticks) ours=$(ours_ticks) now=$(date +%s.%N)
  awk -v m="$((machine - CPU_MARK[0]))" -v o="$((ours - CPU_MARK[1]))" -v hz="$HZ" \
    -v s="$(awk -v a="${CPU_MARK[2]}" -v b="$now" 'BEGIN{print b - a}')" \
    'BEGIN{p = (m - o) / hz / s * 100; if (p < 0) p = 0; printf "%.1f", p}'
}

# --- what runs, where, on which code ----------------------------------------------------------
say "# windowpane server load test$([[ $smoke -eq 1 ]] && echo ' (SMOKE RUN: a check, not figures)')"
say "date: $(date -u '+%Y-%m-%d %H:%M:%S') UTC"
say "command: windowpane-bench/run-server-load.sh $*"
say "code: $commit (git rev-parse --short HEAD; -dirty: uncommitted changes outside windowpane-bench/results)"
say "server: java ${SERVER_JVM[*]} -jar $JAR (sha256 $(sha256sum "$JAR" | cut -c1-16)..., built $(date -u -r "$JAR" '+%Y-%m-%d %H:%M') UTC)"
[[ -n "$stale" ]] && say "$stale"
say "config: $CONFIG"
say "machine: nproc $(nproc); CPU $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1); kernel $(uname -r); memory $(free -g | awk '/^Mem:/{print $2}') GiB"
say "java -version: $(java -version 2>&1 | paste -sd';' | sed 's/;/; /g')"
say "wrk --version: $( (wrk --version 2>&1 || true) | head -1)"
say "redis-server --version: $(redis-server --version)"
say "load: wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency per scenario, after one warm-up of $WARMUP per engine; keys $KEYS, seed $SEED"
say ""

# --- wait for a quiet machine -----------------------------------------------------------------
quiet_secs=5 quiet_tries=12
[[ $smoke -eq 1 ]] && quiet_secs=1 quiet_tries=1
for ((try = 1; ; try++)); do
  cpu_mark
  sleep "$quiet_secs"
  busy="$(other_cpu)"
  if awk -v b="$busy" 'BEGIN{exit !(b <= 10)}'; then
    say "before the run: other processes used $busy % of a core over ${quiet_secs} s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    break
  fi
  if ((try >= quiet_tries)); then
    say "WARNING: the machine is busy (other processes used $busy % of a core over ${quiet_secs} s; load average $(cut -d' ' -f1-3 /proc/loadavg)): running anyway"
    break
  fi
  echo "waiting for a quiet machine: other processes used $busy % of a core over ${quiet_secs} s"
done
say ""

# --- the server -------------------------------------------------------------------------------
BASE=""
start_server() { # engine name, extra serve options...
  local engine="$1" code=""
  shift
  local port
  port="$(free_port)"
  BASE="http://127.0.0.1:$port"
  SERVER_LOG="$WORK/server-$engine.log"
  java "${SERVER_JVM[@]}" -jar "$JAR" serve --config "$CONFIG" --port "$port" "$@" \
    >"$SERVER_LOG" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 300); do
    code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$BASE/health" || true)"
    [[ "$code" == 200 ]] && break
    if ! alive "$SERVER_PID"; then
      cat "$SERVER_LOG" >&2
      SERVER_PID=""
      fail "the server ($engine) exited before answering /health; its log is above"
    fi
    sleep 0.1
  done
  [[ "$code" == 200 ]] || fail "the server ($engine) did not answer /health with 200 within 30 s (last: $code)"
  say "## engine $engine: java ... serve --config $CONFIG --port $port${*:+ $*} (pid $SERVER_PID); /health: $(curl -s "$BASE/health")"
}

# --- one wrk run ------------------------------------------------------------------------------
ENGINES=() SCENARIOS=() RPS=() P50=() P99=() NON2XX=() TOTAL=() SOCKET=() OTHER=()
run_wrk() { # engine, scenario label, duration, record (1: in the table), path, [wrk -s script args]
  local engine="$1" label="$2" duration="$3" record="$4" path="$5"
  shift 5
  local raw="$WORK/wrk.txt" other rps p50 p99 non2xx total socket
  local args=(-t"$THREADS" -c"$CONNECTIONS" -d"$duration" --latency "$@")
  # "$@" ends with "-s SCRIPT" or "-s SCRIPT -- ARGS": the URL goes before any "--"
  local cmd=(wrk) tail=() seen=0
  for a in "${args[@]}"; do
    if [[ $seen -eq 0 && "$a" == "--" ]]; then seen=1; fi
    if [[ $seen -eq 1 ]]; then tail+=("$a"); else cmd+=("$a"); fi
  done
  cmd+=("$BASE$path" "${tail[@]}")
  local load
  load="$(cut -d' ' -f1-3 /proc/loadavg)"
  cpu_mark
  if ! "${cmd[@]}" >"$raw" 2>&1; then
    cat "$raw" >&2
    fail "wrk failed: ${cmd[*]}"
  fi
  other="$(other_cpu)"
  {
    echo "### $engine / $label$([[ $record -eq 0 ]] && echo ' (warm-up, not in the table)')"
    echo "\$ ${cmd[*]}"
    echo "load average before: $load"
    cat "$raw"
    echo "other CPU during the run: $other % of a core (user time of processes this script did not start)"
    echo
  } >>"$OUT"
  rps="$(awk '/^Requests\/sec:/{print $2}' "$raw")"
  p50="$(awk '$1 == "50%" {print $2}' "$raw")"
  p99="$(awk '$1 == "99%" {print $2}' "$raw")"
  total="$(awk '/ requests in /{print $1}' "$raw")"
  non2xx="$(awk -F': *' '/Non-2xx or 3xx responses/{print $2}' "$raw")"
  socket="$(sed -n 's/^ *Socket errors: *//p' "$raw")"
  [[ -n "$rps" && -n "$p50" && -n "$p99" && -n "$total" ]] ||
    fail "could not read wrk's output of ${cmd[*]} (raw output in $OUT)"
  printf '%-6s %-34s %10.0f req/s  p50 %-8s p99 %-8s non-2xx %s%s%s\n' "$engine" "$label" "$rps" \
    "$p50" "$p99" "${non2xx:-0}" "${socket:+  SOCKET ERRORS: $socket}" \
    "$([[ $record -eq 0 ]] && echo '  (warm-up)')"
  if [[ $record -eq 1 ]]; then
    ENGINES+=("$engine") SCENARIOS+=("$label") RPS+=("$rps") P50+=("$p50") P99+=("$p99")
    NON2XX+=("${non2xx:-0}") TOTAL+=("$total") SOCKET+=("$socket") OTHER+=("$other")
  fi
}

finish_engine() { # engine: keep the server's decision counts and log, then stop it
  local engine="$1"
  {
    echo "### $engine: the server's counts at the end (GET /metrics)"
    curl -s "$BASE/metrics" | grep -E '^windowpane_(decisions|errors)_total' || echo "(none)"
    echo
  } >>"$OUT"
  grep -E '^windowpane_decisions_total' <(curl -s "$BASE/metrics") | sed "s/^/$engine: /" || true
  stop_server
  {
    echo "### $engine: the server's output (stdout and stderr, until it stopped)"
    cat "$SERVER_LOG"
    echo
  } >>"$OUT"
  local warnings
  warnings="$(grep -cE 'WARN|ERROR|Exception' "$SERVER_LOG" || true)"
  if [[ "$warnings" != 0 ]]; then
    echo "$engine: the server logged $warnings warning/error lines:"
    grep -E 'WARN|ERROR|Exception' "$SERVER_LOG" | head -5
  fi
}

run_engine() { # engine name, extra serve options...
  local engine="$1"
  shift
  start_server "$engine" "$@"
  local bench=/v1/limiters/bench/acquire tight=/v1/limiters/tight/acquire
  local spread=(-s "$HERE/acquire-spread.lua" -- "$KEYS" "$SEED") keys
  keys="$(echo "$KEYS" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')"
  run_wrk "$engine" "warm-up, every scenario in turn" "$WARMUP" 0 / \
    -s "$HERE/warmup-mix.lua" -- "$KEYS" "$SEED"
  run_wrk "$engine" "GET /health/live" "$DURATION" 1 /health/live
  run_wrk "$engine" "acquire bench, hot key" "$DURATION" 1 "$bench" -s "$HERE/acquire-hot.lua"
  run_wrk "$engine" "acquire bench, $keys keys" "$DURATION" 1 "$bench" "${spread[@]}"
  run_wrk "$engine" "acquire tight (100/s), hot key" "$DURATION" 1 "$tight" -s "$HERE/acquire-hot.lua"
  finish_engine "$engine"
}

started=$SECONDS
run_engine local

# shellcheck source=lib/own-redis.sh
source windowpane-bench/lib/own-redis.sh # sets PORT, PID, DIR and its own EXIT trap: ours again
REDIS_PID="$PID" REDIS_DIR="$DIR" REDIS_PORT="$PORT"
trap cleanup EXIT
[[ "$(cli PING 2>/dev/null)" == PONG ]] || fail "redis-server on port $REDIS_PORT did not answer: $(cat "$REDIS_DIR/redis.log")"
say ""
run_engine redis --redis "redis://127.0.0.1:$REDIS_PORT"
{
  echo "### redis: commands the server sent (INFO commandstats)"
  cli INFO commandstats | tr -d '\r' | grep '^cmdstat_' || true
  echo "keys: $(cli DBSIZE)"
  echo
} >>"$OUT"

# --- the table --------------------------------------------------------------------------------
table() {
  echo "| engine | scenario | requests/s | p50 | p99 | non-2xx | x /health/live |"
  echo "|---|---|--:|--:|--:|--:|--:|"
  local i floor="" notes=()
  for i in "${!ENGINES[@]}"; do
    [[ "${SCENARIOS[i]}" == "GET /health/live" ]] && floor="${RPS[i]}"
    awk -v e="${ENGINES[i]}" -v s="${SCENARIOS[i]}" -v r="${RPS[i]}" -v p50="${P50[i]}" \
      -v p99="${P99[i]}" -v n="${NON2XX[i]}" -v t="${TOTAL[i]}" -v f="$floor" '
      function group(x,   s, out) {
        s = sprintf("%.0f", x)
        for (out = ""; length(s) > 3; s = substr(s, 1, length(s) - 3)) out = "," substr(s, length(s) - 2) out
        return s out
      }
      BEGIN {
        non = n == 0 ? "0" : sprintf("%s (%.1f %%)", group(n), 100 * n / t)
        ratio = f == "" ? "" : sprintf("%.2f", r / f)
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", e, s, group(r), p50, p99, non, ratio
      }'
    [[ -n "${SOCKET[i]}" ]] && notes+=("${ENGINES[i]} / ${SCENARIOS[i]}: socket errors: ${SOCKET[i]}")
    if awk -v o="${OTHER[i]}" 'BEGIN{exit !(o > 5)}'; then
      notes+=("${ENGINES[i]} / ${SCENARIOS[i]}: other processes used ${OTHER[i]} % of a core during the run")
    fi
  done
  echo
  echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency, code $commit, $(date -u '+%Y-%m-%d %H:%M') UTC; raw output: $OUT"
  if [[ ${#notes[@]} -eq 0 ]]; then
    echo "No socket errors; other processes below 5 % of a core in every run."
  else
    printf '%s\n' "${notes[@]}"
  fi
}
echo
table | tee -a "$OUT"

smoke_note=""
if [[ $smoke -eq 1 ]]; then smoke_note=" (SMOKE)"; fi
echo "$(date -u +%H:%M:%S) $NAME: run-server-load.sh, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, 4 scenarios x local, redis on $commit$smoke_note" \
  >>"$RESULTS/runs.log"
echo "done in $((SECONDS - started + 0)) s (plus the quiet check); results: $OUT"
