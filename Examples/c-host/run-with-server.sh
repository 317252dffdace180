#!/bin/sh
# Runs PROGRAM [ARGUMENT...] with one more argument: the URL of a local HTTP
# server of this directory (python3 -m http.server on 127.0.0.1, on a free
# port it picks itself). Stops the server by its PID when PROGRAM exits,
# prints the server's request log to stderr (one "server:" line per
# request), and exits with PROGRAM's status.
#
#     Examples/c-host/run-with-server.sh .build/c-host/release/host
set -eu

directory=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp)
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$directory" >"$log" 2>&1 &
server=$!
# SIGTERM first; SIGKILL if the server is still there after a second (a
# process may inherit SIGTERM blocked: Foundation's Process starts children
# that way).
stop_server() {
  kill -TERM "$server" 2>/dev/null || true
  waited=0
  while kill -0 "$server" 2>/dev/null && [ "$waited" -lt 20 ]; do
    sleep 0.05
    waited=$((waited + 1))
  done
  kill -KILL "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  grep '"GET ' "$log" | sed 's/^/server: /' >&2 || true
  rm -f "$log"
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The server prints "Serving HTTP on 127.0.0.1 port N ..." once listening.
port=
attempts=0
while [ -z "$port" ]; do
  port=$(sed -n 's/^Serving HTTP on .* port \([0-9][0-9]*\) .*/\1/p' "$log")
  [ -n "$port" ] && break
  if ! kill -0 "$server" 2>/dev/null || [ "$attempts" -ge 100 ]; then
    echo "run-with-server.sh: python3 -m http.server did not start:" >&2
    cat "$log" >&2
    exit 1
  fi
  attempts=$((attempts + 1))
  sleep 0.1
done

status=0
"$@" "http://127.0.0.1:$port" || status=$?
exit "$status"
