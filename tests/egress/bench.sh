#!/bin/bash
# Quick loopback benchmark of agentrt-egress (see bench.c for what is
# measured).  Runs everything on 127.0.0.1 of the current network
# namespace, as the current user (root: the proxy drops to 65534).
#   tests/egress/bench.sh [PATH/TO/agentrt-egress] [BYTES] [CONNS]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
PROXY=$(readlink -f "${1:-${AGENTRT_EGRESS:-$PWD/agentrt-egress}}")
BYTES=${2:-1073741824}
CONNS=${3:-500}
SERVER_PORT=${SERVER_PORT:-18390}
HTTP_PORT=${HTTP_PORT:-18391}
T=$(mktemp -d /tmp/egress-bench.XXXXXX)
PIDS=()
cleanup () {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT

cc -O2 -Wall -o "$T/bench" "$HERE/bench.c"
"$T/bench" serve "$SERVER_PORT" & PIDS+=($!)
sleep 1000 & PIDS+=($!)
python3 "$HERE/launch.py" --proxy "$PROXY" --watch-pid "${PIDS[1]}" --audit /dev/null \
  --http-port "$HTTP_PORT" --socks-port $((HTTP_PORT + 1)) --allow "127.0.0.1:$SERVER_PORT" &
PIDS+=($!)
for _ in $(seq 50); do
  grep -q "Seccomp:	2" "/proc/${PIDS[2]}/status" 2>/dev/null && break
  sleep 0.1
done
sleep 0.2
"$T/bench" run "$SERVER_PORT" "$HTTP_PORT" "${PIDS[2]}" "$BYTES" "$CONNS"
