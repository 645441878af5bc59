#!/usr/bin/env bash
# Server-side cost of the histogram statistics functions on one key holding a full window:
# starts a redis-server of its own on a free loopback port, loads the library, fills one key of
# a 60 s / 60-pane window (1% over [1e-9, 1e15]) with N lognormal latencies (median 20 ms,
# sigma 1, rounded to the microsecond, as LatencyValues; default 10,000), one wp_record batch
# per pane at the caller's time, then prints INFO commandstats' usec_per_call of:
#   - 200 wp_summary calls with every pane live,
#   - 200 single-value wp_record calls at the newest pane (the common record),
#   - 60 single-value wp_record calls that each move the head one pane on (one full pane leaves),
# with the commands each ran inside, the floor of any FCALL (wp_version) and the keys' sizes. No load: one connection, one call at a
# time, so the figures are the server's work per call. Stops its server when done. Needs
# redis-server, redis-cli and python3.
#
#     windowpane-bench/redis-stats-costs.sh [values, default 10000]
#     LIB=/tmp/older.lua windowpane-bench/redis-stats-costs.sh   # another library text
set -euo pipefail
cd "$(dirname "$0")/.."

VALUES="${1:-10000}"
if [ -z "${LIB:-}" ]; then # the library is the concatenation of the lua/ files, in name order
  LIB="$(mktemp -t windowpane-lib.XXXXXX.lua)"
  cat windowpane-redis/src/main/resources/io/windowpane/redis/lua/*.lua > "$LIB"
fi
. windowpane-bench/lib/own-redis.sh
cli FUNCTION LOAD REPLACE "$(cat "$LIB")" >/dev/null
VERSION="$(cli FCALL wp_version 0)"
KEY='wp1:s:{costs:k:5}:h60000/60/0.01/-1036/2764'
if [ "$VERSION" -ge 3 ]; then
  KEYS=(2 "$KEY" "$KEY:a") # the hash and its window aggregate
else
  KEYS=(1 "$KEY")
fi
SPEC=(60000 60 0.01 -1036 2764)
T=1700000040000 # on a window edge: panes T/1000 .. T/1000 + 59 fill one window

# one batch per pane, its values spread evenly, at the middle of the pane
python3 - "$VALUES" "$T" "${KEYS[*]}" "${SPEC[*]}" > "$DIR/fill.txt" <<'PY'
import math, random, sys
n, t, keys, spec = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
rnd = random.Random(42)
values = [max(0.001, round(20 * math.exp(rnd.gauss(0, 1)) * 1000) / 1000) for _ in range(n)]
for pane in range(60):
    batch = values[pane * n // 60:(pane + 1) * n // 60]
    print('FCALL wp_record %s %d %s %s' % (keys, t + pane * 1000 + 500, spec,
                                           ' '.join(repr(v) for v in batch)))
PY
cli < "$DIR/fill.txt" > /dev/null

echo "redis $(cli INFO server | grep -o 'redis_version:[^[:space:]]*' | cut -d: -f2)," \
  "library version $VERSION ($LIB), $VALUES values in one key of 60 s / 60 panes"
for k in "${KEYS[@]:1}"; do
  echo "  $k: $(cli HLEN "$k") fields, $(cli MEMORY USAGE "$k" SAMPLES 0) bytes"
done
printf '%-52s %9s  %s\n' case "us/FCALL" "commands inside (calls per FCALL x us)"

report() { # name
  local stats fcall fcalls inner
  stats="$(cli INFO commandstats)"
  fcall="$(echo "$stats" | grep '^cmdstat_fcall:' | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/')"
  fcalls="$(echo "$stats" | grep '^cmdstat_fcall:' | sed 's/^cmdstat_fcall:calls=\([0-9]*\),.*/\1/')"
  inner="$(echo "$stats" | grep '^cmdstat_' | grep -v -E 'cmdstat_(fcall|config|command)' \
    | sed 's/^cmdstat_\([^:]*\):calls=\([0-9]*\),usec=[0-9]*,usec_per_call=\([0-9.]*\).*/\1 \2 \3/' \
    | awk -v n="$fcalls" '{ printf "%s %.2f x %s  ", $1, $2 / n, $3 }' || true)"
  printf '%-52s %9s  %s\n' "$1" "$fcall" "$inner"
}

cli CONFIG RESETSTAT > /dev/null
cli -r 200 FCALL wp_version 0 > /dev/null
report "wp_version (the floor of any FCALL, 200 calls)"
NOW=$((T + 59999)) # every pane live
cli CONFIG RESETSTAT > /dev/null
cli -r 200 FCALL wp_summary "${KEYS[@]}" "$NOW" "${SPEC[@]}" > /dev/null
report "wp_summary, 60 live panes (200 calls)"
cli CONFIG RESETSTAT > /dev/null
cli -r 200 FCALL wp_record "${KEYS[@]}" "$NOW" "${SPEC[@]}" 23.457 > /dev/null
report "wp_record 1 value at the newest pane (200 calls)"
cli CONFIG RESETSTAT > /dev/null
for i in $(seq 0 59); do
  echo "FCALL wp_record ${KEYS[*]} $((T + 60000 + i * 1000 + 500)) ${SPEC[*]} 23.457"
done | cli > /dev/null
report "wp_record 1 value, head moves, a full pane leaves (60)"
