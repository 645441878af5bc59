# Sourced by the cost scripts: starts a redis-server of this script's own on a free loopback
# port (no persistence), waits until it answers, stops it and removes its folder on exit, and
# defines cli() for redis-cli against it. Sets PORT, PID and DIR.
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
DIR="$(mktemp -d)"
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$DIR" \
  > "$DIR/redis.log" 2>&1 &
PID=$!
trap 'kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 50); do
  redis-cli -p "$PORT" PING >/dev/null 2>&1 && break
  sleep 0.1
done

cli() { redis-cli -p "$PORT" "$@"; }
