#!/bin/sh
# Runs PROGRAM [ARGUMENT...] with UVC_TEST_WS_URL set to a python websockets
# echo server (Tests/UVCombineWebSocketTests/Servers/python_echo_server.py)
# on a free loopback port, for api_test's websocket case under `make
# c-test`; stops the server by its PID when PROGRAM exits and exits with
# PROGRAM's status. (CAPITests starts the server itself.)
#
# Without python's websockets: with UVC_REQUIRE_WS_SERVERS=1 (CI, .ci/run,
# which installs it) this fails; otherwise PROGRAM runs with
# UVC_TEST_WS_SKIP set, and its websocket case says it skipped and why.
set -eu

root=$(cd "$(dirname "$0")/../../.." && pwd)
if ! python3 -c 'import websockets.asyncio.server' 2>/dev/null; then
  if [ "${UVC_REQUIRE_WS_SERVERS:-0}" = "1" ]; then
    echo "run-with-ws-server: python's websockets is not installed, and CI requires it (UVC_REQUIRE_WS_SERVERS=1): pip install websockets" >&2
    exit 1
  fi
  echo "run-with-ws-server: python's websockets is not installed (pip install websockets); the websocket case skips" >&2
  UVC_TEST_WS_SKIP="python's websockets is not installed (pip install websockets)" "$@"
  exit $?
fi
output=$(mktemp)
python3 -u "$root/Tests/UVCombineWebSocketTests/Servers/python_echo_server.py" deflate >"$output" 2>/dev/null &
server=$!
trap 'kill -KILL "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$output"' EXIT
# Wait for "listening on port N " (the server prints it once it listens).
waited=0
until grep -q 'listening on port' "$output"; do
  kill -0 "$server" 2>/dev/null || { echo "run-with-ws-server: the echo server did not start" >&2; exit 1; }
  [ "$waited" -lt 200 ] || { echo "run-with-ws-server: no port after 10 s" >&2; exit 1; }
  sleep 0.05
  waited=$((waited + 1))
done
port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$output")
UVC_TEST_WS_URL="ws://127.0.0.1:$port/echo" "$@"
