#!/bin/bash
# hack/bench/egress-tls.sh EGRESS-BIN [BYTES] [CONNS]: injected credentials'
# cost (hack/bench.sh egress runs it; it runs alone too, as root).  In a
# network namespace of its own with only lo: an HTTPS server (openssl
# s_server -WWW, a certificate of a test CA the proxy trusts) on
# 1.2.3.10:18443 (on lo) as bench.test, and agentrt-egress started as
# tests/egress/launch.py starts it, with a credential for bench.test.
#   throughput  curl downloading BYTES (default 512 MiB) directly over TLS
#               vs through the proxy, intercepted (CONNECT, the proxy's TLS
#               both ways), best of 3 each; the ratio (target >= 0.5x)
#   per conn    CONNS (default 200) sequential new connections, each a TLS
#               handshake and one small GET with the stand-in, from one
#               Python process: directly vs intercepted; the difference
#               per connection (target <= 2 ms); the paths take turns,
#               round by round (5 rounds), so that load that comes and
#               goes falls on each alike: best and median of the rounds
# EGRESS_TLS_BASELINE=OTHER-EGRESS-BIN: also an intercepting proxy run
# from that binary (e.g. main's), in the same rounds: a before/after.
set -euo pipefail
BIN=$(readlink -f "$1") BYTES=${2:-$((512 << 20))} CONNS=${3:-200}
BASE=${EGRESS_TLS_BASELINE:+$(readlink -f "$EGRESS_TLS_BASELINE")}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
NS=agentrt-bench-tls-$$
T=$(mktemp -d /tmp/bench-tls.XXXXXX)
PIDS=()
cleanup () {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  ip netns del "$NS" 2>/dev/null || true
  rm -rf "$T"
}
trap cleanup EXIT
N () { ip netns exec "$NS" "$@"; }

ip netns add "$NS"
N ip link set lo up
# a "public" address on lo: the proxy refuses loopback destinations
N ip addr add 1.2.3.10/32 dev lo
k=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
openssl req -x509 "${k[@]}" -days 2 -subj /CN=root -keyout "$T/root.key" -out "$T/root.pem" 2>/dev/null
openssl req "${k[@]}" -subj /CN=bench.test -keyout "$T/srv.key" -out "$T/srv.csr" 2>/dev/null
printf 'subjectAltName=DNS:bench.test\n' >"$T/ext"
openssl x509 -req -in "$T/srv.csr" -CA "$T/root.pem" -CAkey "$T/root.key" -CAcreateserial -days 2 \
  -extfile "$T/ext" -out "$T/srv.pem" 2>/dev/null
mkdir "$T/www"
head -c "$BYTES" /dev/zero >"$T/www/big"
echo ok >"$T/www/small"
printf '127.0.0.1 localhost\n1.2.3.10 bench.test\n' >"$T/hosts"
(cd "$T/www" && exec ip netns exec "$NS" openssl s_server -quiet -WWW -accept 1.2.3.10:18443 \
  -cert "$T/srv.pem" -key "$T/srv.key" -no_ticket </dev/null >/dev/null 2>&1) &
PIDS+=($!)
"$BIN" --make-ca bench.test --id bench >"$T/ca.pem"
openssl x509 -in "$T/ca.pem" -out "$T/ca-cert.pem"
echo token-value >"$T/token"
STANDIN=agentrt-standin-00112233445566778899aabbccddeeff
# started as commands, not through N (a function: $! would be its
# subshell, and the process itself would outlive the cleanup)
ip netns exec "$NS" sleep 100000 &
PIDS+=($!)
ip netns exec "$NS" python3 "$HERE/tests/egress/launch.py" --proxy "$BIN" --watch-pid "$!" --audit "$T/audit.jsonl" \
  --hosts "$T/hosts" --allow bench.test:18443 --http-port 18482 --socks-port 18483 \
  --ca "$T/ca.pem" --credential "B:Authorization:$STANDIN:$T/token:bench.test" \
  -- --trust-store "$T/root.pem" --busy-poll-us 0 &
PIDS+=($!)
# the same proxy without the credential: an untouched tunnel, for reference
ip netns exec "$NS" python3 "$HERE/tests/egress/launch.py" --proxy "$BIN" --watch-pid "${PIDS[-2]}" --audit "$T/audit-t.jsonl" \
  --hosts "$T/hosts" --allow bench.test:18443 --http-port 18484 --socks-port 18485 \
  -- --busy-poll-us 0 &
PIDS+=($!)
if [ -n "$BASE" ]; then
  ip netns exec "$NS" python3 "$HERE/tests/egress/launch.py" --proxy "$BASE" --watch-pid "${PIDS[-3]}" \
    --audit "$T/audit-b.jsonl" --hosts "$T/hosts" --allow bench.test:18443 --http-port 18486 \
    --socks-port 18487 --ca "$T/ca.pem" \
    --credential "B:Authorization:$STANDIN:$T/token:bench.test" -- --trust-store "$T/root.pem" \
    --busy-poll-us 0 &
  PIDS+=($!)
fi
for _ in $(seq 100); do
  N curl -s -o /dev/null -x http://127.0.0.1:18482 --cacert "$T/ca-cert.pem" \
    https://bench.test:18443/small && break
  sleep 0.1
done

best () { # best of 3 download speeds (bytes/s) of curl ARGS...
  local b=0 s
  for _ in 1 2 3; do
    s=$(N curl -s -o /dev/null -w '%{speed_download}' "$@" https://bench.test:18443/big)
    s=${s%.*}
    ((s > b)) && b=$s
  done
  echo "$b"
}
direct=$(best --cacert "$T/root.pem" --resolve bench.test:18443:1.2.3.10)
inter=$(best --cacert "$T/ca-cert.pem" -x http://127.0.0.1:18482 -H "Authorization: Bearer $STANDIN")
printf 'throughput  direct TLS %s/s, intercepted %s/s: %s x\n' "$(numfmt --to=iec "$direct")" \
  "$(numfmt --to=iec "$inter")" "$(python3 -c "print(round($inter / $direct, 2))")"

N python3 - "$CONNS" "$T/root.pem" "$T/ca-cert.pem" "$STANDIN" "${BASE:+18486}" <<'PY'
import socket, ssl, statistics, sys, time
n, root, ca, standin = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
base = int(sys.argv[5]) if sys.argv[5] else 0
req = ("GET /small HTTP/1.1\r\nHost: bench.test\r\nAuthorization: Bearer %s\r\n"
       "Connection: close\r\n\r\n" % standin).encode()
def one(via_proxy, ctx):
    s = socket.create_connection(("127.0.0.1", via_proxy) if via_proxy else ("1.2.3.10", 18443))
    if via_proxy:
        s.sendall(b"CONNECT bench.test:18443 HTTP/1.1\r\nHost: bench.test:18443\r\n\r\n")
        buf = b""
        while b"\r\n\r\n" not in buf:
            buf += s.recv(4096)
    t = ctx.wrap_socket(s, server_hostname="bench.test")
    t.sendall(req)
    while t.recv(65536):
        pass
    t.close()
paths = [(0, root), (18484, root), (18482, ca)] + ([(base, ca)] if base else [])
ctxs = [ssl.create_default_context(cafile=f) for _, f in paths]
rounds = [[] for _ in paths]
for (port, _), ctx in zip(paths, ctxs):
    for _ in range(10):
        one(port, ctx)
for _ in range(5):
    for k, ((port, _), ctx) in enumerate(zip(paths, ctxs)):
        start = time.perf_counter()
        for _ in range(n):
            one(port, ctx)
        rounds[k].append((time.perf_counter() - start) / n * 1e3)
for what, f in (("best", min), ("median", statistics.median)):
    d, t, i = (f(r) for r in rounds[:3])
    print("per conn    %s: direct TLS %.2f ms, untouched tunnel %.2f ms, intercepted %.2f ms: "
          "+%.2f ms per new connection (+%.2f over the tunnel)" % (what, d, t, i, i - d, i - t))
    if base:
        b = f(rounds[3])
        print("baseline    %s: intercepted %.2f ms: +%.2f ms (+%.2f over the tunnel); "
              "this binary %+.2f ms" % (what, b, b - d, b - t, i - b))
PY
injected=$(grep -c '"event":"inject"' "$T/audit.jsonl" || true)
echo "audit       $injected inject lines"
