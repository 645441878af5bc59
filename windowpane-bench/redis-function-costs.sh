#!/usr/bin/env bash
# Server-side cost of each function of the windowpane Redis library: starts a redis-server of its
# own on a free loopback port, loads the library, drives each call with redis-benchmark (16
# connections, 100,000 calls each, server time) and prints INFO commandstats' usec_per_call of the
# FCALL and of the commands it ran inside. Stops its server when done. Needs redis-server and
# redis-benchmark (Debian: redis-server, redis-tools).
#
#     windowpane-bench/redis-function-costs.sh [calls per case, default 100000]
#
# The "10,000 keys" cases spread the calls over 10,000 keys (redis-benchmark -r 10000 fills in
# __rand_int__): at these rates a key sees a call every pane or two, so most calls move its head
# (the sparse path), where the other cases stay on one hot key.
#
# ONLY=<regex> runs only the cases whose name matches.
# LIB=<file> runs it against another library text (an older version, for a before/after); the
# wp_take cases run only where the library has that function (version 6 and later).
set -euo pipefail
cd "$(dirname "$0")/.."

CALLS="${1:-100000}"
if [ -z "${LIB:-}" ]; then # the library is the concatenation of the lua/ files, in name order
  LIB="$(mktemp -t windowpane-lib.XXXXXX.lua)"
  cat windowpane-redis/src/main/resources/io/windowpane/redis/lua/*.lua > "$LIB"
fi
. windowpane-bench/lib/own-redis.sh
cli FUNCTION LOAD REPLACE "$(cat "$LIB")" >/dev/null
echo "redis $(cli INFO server | grep -o 'redis_version:[^[:space:]]*' | cut -d: -f2), $(nproc) cores," \
  "$CALLS calls per case, 16 connections, library version $(cli FCALL wp_version 0)" \
  "($LIB, $(sha256sum "$LIB" | cut -c1-12)), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
printf '%-44s %10s %8s  %s\n' case "calls/s" "us/FCALL" "commands inside (calls per FCALL x us)"

run() { # name, then the FCALL arguments; KEYSPACE=n: __rand_int__ in a key takes n values
  local name="$1"
  shift
  if [ -n "${ONLY:-}" ] && ! [[ "$name" =~ $ONLY ]]; then
    return 0
  fi
  cli CONFIG RESETSTAT >/dev/null
  local rps
  rps="$(redis-benchmark -p "$PORT" -n "$CALLS" -c 16 ${KEYSPACE:+-r "$KEYSPACE"} -q FCALL "$@" 2>&1 | tr '\r' '\n' \
    | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1 || true)"
  local stats
  stats="$(cli INFO commandstats)"
  local fcall
  fcall="$(echo "$stats" | grep '^cmdstat_fcall:' | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/')"
  local fcalls
  fcalls="$(echo "$stats" | grep '^cmdstat_fcall:' | sed 's/^cmdstat_fcall:calls=\([0-9]*\),.*/\1/')"
  local inner
  inner="$(echo "$stats" | grep '^cmdstat_' | grep -v -E 'cmdstat_(fcall|config)' \
    | sed 's/^cmdstat_\([^:]*\):calls=\([0-9]*\),usec=[0-9]*,usec_per_call=\([0-9.]*\).*/\1 \2 \3/' \
    | awk -v n="$fcalls" '{ printf "%s %.2f x %s  ", $1, $2 / n, $3 }' || true)"
  printf '%-44s %10s %8s  %s\n' "$name" "$rps" "$fcall" "$inner"
}

BIG=1000000000
run "wp_acquire panes 1s/10, allowed" wp_acquire 1 'wp1:r:{f:a:1}:0:p1000/10' '' 1 1 p 1000 10 "$BIG"
run "wp_acquire weighted 1s, allowed" wp_acquire 1 'wp1:r:{f:b:1}:0:w1000' '' 1 1 w 1000 1 "$BIG"
run "wp_acquire log 1s, allowed" wp_acquire 2 'wp1:r:{f:c:1}:0:l1000' 'wp1:r:{f:c:1}:0:l1000:m' '' 1 1 l 1000 1 1000000
run "wp_acquire panes 1s/10, denied (limit 10)" wp_acquire 1 'wp1:r:{f:d:1}:0:p1000/10' '' 1 1 p 1000 10 10
run "wp_acquire panes 1s/10 + 1h/60, allowed" wp_acquire 2 'wp1:r:{f:e:1}:0:p1000/10' 'wp1:r:{f:e:1}:1:p3600000/60' '' 1 2 p 1000 10 "$BIG" p 3600000 60 "$BIG"
if grep -q "'wp_take'" "$LIB"; then
  run "wp_take panes 1s/10, allowed" wp_take 1 'wp1:r:{t:a:1}:0:p1000/10' '' 1 1 p 1000 10 "$BIG"
  run "wp_take weighted 1s, allowed" wp_take 1 'wp1:r:{t:b:1}:0:w1000' '' 1 1 w 1000 1 "$BIG"
  run "wp_take log 1s, allowed" wp_take 2 'wp1:r:{t:c:1}:0:l1000' 'wp1:r:{t:c:1}:0:l1000:m' '' 1 1 l 1000 1 1000000
  run "wp_take panes 1s/10, denied (limit 10)" wp_take 1 'wp1:r:{t:d:1}:0:p1000/10' '' 1 1 p 1000 10 10
  run "wp_take panes 1s/10 + 1h/60, allowed" wp_take 2 'wp1:r:{t:e:1}:0:p1000/10' 'wp1:r:{t:e:1}:1:p3600000/60' '' 1 2 p 1000 10 "$BIG" p 3600000 60 "$BIG"
fi
if grep -q "'wp_take'" "$LIB"; then
  KEYSPACE=10000 run "wp_take panes 1s/10, allowed, 10,000 keys" wp_take 1 'wp1:r:{s:__rand_int__:1}:0:p1000/10' '' 1 1 p 1000 10 "$BIG"
  KEYSPACE=10000 run "wp_take weighted 1s, allowed, 10,000 keys" wp_take 1 'wp1:r:{s:__rand_int__:1}:0:w1000' '' 1 1 w 1000 1 "$BIG"
  KEYSPACE=10000 run "wp_take log 1s, allowed, 10,000 keys" wp_take 2 'wp1:r:{s:__rand_int__:1}:0:l1000' 'wp1:r:{s:__rand_int__:1}:0:l1000:m' '' 1 1 l 1000 1 1000000
fi
run "wp_add panes 1s/10" wp_add 1 'wp1:c:{f:f:1}:p1000/10' '' 1 p 1000 10
run "wp_add weighted 1s" wp_add 1 'wp1:c:{f:g:1}:w1000' '' 1 w 1000 1
run "wp_add log 1s" wp_add 2 'wp1:c:{f:h:1}:l1000' 'wp1:c:{f:h:1}:l1000:m' '' 1 l 1000 1
run "wp_count panes 1s/10" wp_count 1 'wp1:c:{f:f:1}:p1000/10' '' p 1000 10
run "wp_count log 1s" wp_count 2 'wp1:c:{f:h:1}:l1000' 'wp1:c:{f:h:1}:l1000:m' '' l 1000 1
run "wp_version (an empty function: the floor)" wp_version 0
