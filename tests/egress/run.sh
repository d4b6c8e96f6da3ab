#!/bin/bash
# End-to-end test of agentrt-egress in network namespaces of its own (run
# as root):
#   tests/egress/run.sh [PATH/TO/agentrt-egress]
# It builds a small "internet": namespace srv holds web servers, TCP echo
# servers, "metadata" servers on 169.254.169.254 and 168.63.129.16, servers
# on private, link-local and benchmarking addresses, and a DNS server,
# reached over a veth pair from namespace out, where the proxy runs.  The agent
# namespace has only lo: the proxy's listeners are created there (as the
# runtime does) and every client runs there.  Names come from a hosts file
# and a resolv.conf passed to the proxy by fd.  The "public" servers are on
# 1.2.3/24 and 3ffe:db8::/64 (the documentation ranges are not public to
# the proxy): real addresses, used only inside these namespaces, which
# have no default route.  A second agent namespace (AGENT2) is set up for
# the transparent path as the runtime does it (tests/egress/launch.py
# --redirect: a route to nowhere and nftables rules sending every TCP
# connection and DNS query to the proxy); its programs ignore every proxy
# and resolve through /etc/netns/AGENT2/resolv.conf.  Everything created is
# removed on exit, whatever happens.
# Exit status: 0 all passed, 1 a check failed, 77 skipped.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
PROXY=${1:-${AGENTRT_EGRESS:-$PWD/agentrt-egress}}
PROXY=$(readlink -f "$PROXY")

skip () { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
[ -x "$PROXY" ] || skip "no agentrt-egress at $PROXY (pass its path)"
for tool in ip python3 curl busybox nft; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

SUFFIX=$$
OUT=egr-out-$SUFFIX SRV=egr-srv-$SUFFIX AGENT=egr-agent-$SUFFIX AGENT2=egr-agent2-$SUFFIX
T=$(mktemp -d /tmp/egress-e2e.XXXXXX)
PIDS=()
NETNS=()
MOUNTS=()

cleanup () {
  local pid ns m
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  for ns in "${NETNS[@]}"; do ip netns del "$ns" 2>/dev/null; done
  for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$T" "/etc/netns/$AGENT2"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

PASS=0 FAIL=0
ok () { PASS=$((PASS + 1)); echo "ok - $1"; }
not_ok () { FAIL=$((FAIL + 1)); echo "not ok - $1"; [ $# -gt 1 ] && echo "#   $2"; }
# expect NAME NEEDLE HAYSTACK
expect () {
  if [[ "$3" == *"$2"* ]]; then ok "$1"; else not_ok "$1" "wanted \`$2\` in: ${3//$'\n'/ | }"; fi
}

A () { ip netns exec "$AGENT" "$@"; }
S () { ip netns exec "$SRV" "$@"; }
O () { ip netns exec "$OUT" "$@"; }
# Background processes are started as plain commands (ip netns exec and env
# exec what follows), never through a shell function, so that $! is the
# server or proxy itself and the trap can stop it.
bg () { "$@" & PIDS+=($!); }

# --- the namespaces -------------------------------------------------------
for ns in "$OUT" "$SRV" "$AGENT" "$AGENT2"; do
  ip netns add "$ns" || exit 1
  NETNS+=("$ns")
  ip -n "$ns" link set lo up
done
ip link add "eo$SUFFIX" netns "$OUT" type veth peer name "es$SUFFIX" netns "$SRV" || exit 1
ip -n "$OUT" addr add 1.2.3.1/24 dev "eo$SUFFIX"
ip -n "$OUT" addr add 3ffe:db8::1/64 dev "eo$SUFFIX" nodad
ip -n "$OUT" link set "eo$SUFFIX" up
# special-purpose addresses, each a /32 of its own
SPECIAL='169.254.169.254 169.254.7.7 168.63.129.16 10.9.1.10 10.9.2.10 198.18.0.10 203.0.113.10'
for a in $SPECIAL; do
  ip -n "$OUT" route add "$a/32" dev "eo$SUFFIX"
done
for a in 1.2.3.10/24 1.2.3.11/24 1.2.3.53/24; do
  ip -n "$SRV" addr add "$a" dev "es$SUFFIX"
done
for a in $SPECIAL; do
  ip -n "$SRV" addr add "$a/32" dev "es$SUFFIX"
done
ip -n "$SRV" addr add 3ffe:db8::10/64 dev "es$SUFFIX" nodad
ip -n "$SRV" link set "es$SUFFIX" up

# --- the servers ----------------------------------------------------------
bg env SERVER_NAME=web ip netns exec "$SRV" python3 "$HERE/server.py" http 1.2.3.10 80
bg env SERVER_NAME=web6 ip netns exec "$SRV" python3 "$HERE/server.py" http 3ffe:db8::10 80
bg env SERVER_NAME=other ip netns exec "$SRV" python3 "$HERE/server.py" http 1.2.3.11 80
bg env SERVER_NAME=metadata ip netns exec "$SRV" python3 "$HERE/server.py" http 169.254.169.254 80
bg env SERVER_NAME=link-local ip netns exec "$SRV" python3 "$HERE/server.py" http 169.254.7.7 80
bg env SERVER_NAME=wireserver ip netns exec "$SRV" python3 "$HERE/server.py" http 168.63.129.16 80
bg env SERVER_NAME=priv-in ip netns exec "$SRV" python3 "$HERE/server.py" http 10.9.1.10 80
bg env SERVER_NAME=priv-out ip netns exec "$SRV" python3 "$HERE/server.py" http 10.9.2.10 80
bg env SERVER_NAME=bench ip netns exec "$SRV" python3 "$HERE/server.py" http 198.18.0.10 80
bg env SERVER_NAME=doc ip netns exec "$SRV" python3 "$HERE/server.py" http 203.0.113.10 80
bg ip netns exec "$SRV" python3 "$HERE/server.py" banner 1.2.3.10 22
bg ip netns exec "$SRV" python3 "$HERE/server.py" echo 1.2.3.11 443
bg ip netns exec "$SRV" python3 "$HERE/server.py" echo 1.2.3.10 443
bg env SERVER_NAME=outer-loopback ip netns exec "$OUT" python3 "$HERE/server.py" http 127.0.0.1 80
bg ip netns exec "$SRV" python3 "$HERE/dns_server.py" 1.2.3.53 dns.test=1.2.3.10 dns6.test=3ffe:db8::10 \
  rebind.test=127.0.0.1 meta-dns.test=169.254.169.254 mixed.test=1.2.3.10 mixed.test=10.0.0.1 \
  ttl.test=1.2.3.10@5 '*.many.test=1.2.3.10' other-dns.test=1.2.3.11 \
  rebind6.test=::ffff:127.0.0.1 meta6-dns.test=::ffff:169.254.169.254 \
  mixed6.test=1.2.3.10 mixed6.test=::ffff:127.0.0.1 \
  nat64-loop.test=64:ff9b::127.0.0.1 nat64-meta.test=64:ff9b::169.254.169.254 \
  6to4-loop.test=2002:7f00:1::1 6to4-meta.test=2002:a9fe:a9fe::1 \
  teredo.test=2001:0:4136:e378:8000:63bf:80ff:fffe \
  2>"$T/dns.log"

cat >"$T/hosts" <<EOF
# the test's own names
1.2.3.10 web.test www.web.test
1.2.3.11 other.test
169.254.169.254 metadata.test
169.254.7.7 ll.test
168.63.129.16 wireserver.test
10.9.1.10 priv-in.test
10.9.2.10 priv-out.test
198.18.0.10 bench.test
203.0.113.10 doc.test
127.0.0.1 loop.test
::ffff:127.0.0.1 loop6.test
::ffff:169.254.169.254 meta6.test
64:ff9b::7f00:1 nat64-loop-h.test
2002:a9fe:a9fe::1 6to4-meta-h.test
3ffe:db8::10 web6.test
EOF
printf 'nameserver 1.2.3.53\noptions timeout:1 attempts:1\n' >"$T/resolv.conf"

wait_for () { # wait_for CMD...: retry for 5 s
  for _ in $(seq 50); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}
wait_for O curl -sf --noproxy '*' http://1.2.3.10/ || { echo "servers did not start"; exit 1; }
wait_for O curl -sf --noproxy '*' -g 'http://[3ffe:db8::10]/' || { echo "IPv6 server did not start"; exit 1; }
for a in $SPECIAL; do
  wait_for O curl -sf --noproxy '*' "http://$a/" || { echo "server on $a did not start"; exit 1; }
done

# --- the proxy ------------------------------------------------------------
ALLOW='web.test,*.web.test,web6.test,metadata.test,loop.test,dns.test,dns6.test,rebind.test'
ALLOW+=',meta-dns.test,mixed.test,nx.test,drop.test,web.test:22,1.2.3.10:443'
ALLOW+=',wireserver.test,bench.test,priv-in.test,doc.test'
# IPv4 embedded in IPv6: mapped, NAT64, 6to4; Teredo
ALLOW+=',loop6.test,meta6.test,rebind6.test,meta6-dns.test,mixed6.test,nat64-loop.test,nat64-meta.test'
ALLOW+=',6to4-loop.test,6to4-meta.test,nat64-loop-h.test,6to4-meta-h.test,teredo.test'
sleep 1000 & INIT=$!
PIDS+=("$INIT")
# start_proxy ID WATCHED_PID EXTRA...; sets PROXY_PID.  PROXY_ENV (NAME=VALUE
# words), PROXY_AUDIT and PROXY_ERR change its environment, audit file and
# stderr file.
start_proxy () {
  local id=$1 watched=$2
  shift 2
  env "${PROXY_ENV[@]}" ip netns exec "$OUT" python3 "$HERE/launch.py" --proxy "$PROXY" \
    --listen-netns "$AGENT" --watch-pid "$watched" --audit "${PROXY_AUDIT:-$T/audit.log}" \
    --hosts "$T/hosts" --resolv-conf "$T/resolv.conf" --id "$id" \
    --allow "${ALLOW_NOW:-$ALLOW}" "$@" 2>>"${PROXY_ERR:-$T/proxy.err}" &
  PROXY_PID=$!
  PIDS+=("$PROXY_PID")
}
PROXY_ENV=()
start_proxy e2e "$INIT" --http-port 3128 --socks-port 1080 -- --max-conns 30 --handshake-timeout 2
wait_for A curl -s -o /dev/null http://127.0.0.1:3128/ || { echo "proxy did not start"; cat "$T/proxy.err"; exit 1; }

echo "# agentrt-egress $PROXY, pid $PROXY_PID"
# A sanitizer build run with a log_path (hack/test.sh --sanitize) also
# holds its report file open (runtime/egress/lockdown.c): not counted.
SAN_LOG_DIR=$(printf '%s\n' "${ASAN_OPTIONS:-}" "${UBSAN_OPTIONS:-}" \
  | sed -n 's/.*log_path=\([^:]*\).*/\1/p' | head -n 1)
SAN_LOG_DIR=${SAN_LOG_DIR:+$(dirname "$SAN_LOG_DIR")/}
own_fds () { # [REGEX]: those whose target also matches REGEX
  ls -l /proc/$PROXY_PID/fd | awk -v s="${SAN_LOG_DIR:-//}" -v re="${1:-.}" \
    '$9 > 2 && index($11, s) != 1 && $11 ~ re' | wc -l
}
expect "proxy runs as uid 65534" "65534" "$(awk '/^Uid:/{print $2, $3}' /proc/$PROXY_PID/status)"
expect "proxy has no capabilities" "0000000000000000" "$(awk '/^CapEff:/{print $2}' /proc/$PROXY_PID/status)"
expect "proxy is under seccomp" "Seccomp:	2" "$(grep '^Seccomp:' /proc/$PROXY_PID/status)"
expect "proxy has no_new_privs" "NoNewPrivs:	1" "$(grep '^NoNewPrivs:' /proc/$PROXY_PID/status)"
# Above stderr: two listeners, the pidfd, the audit file, epoll, signalfd.
# launch.py also passed a stray fd (a directory): it must be gone.
expect "proxy holds only its own fds" "<6 fds, 1 in /tmp>" \
  "<$(own_fds) fds, $(own_fds '^/tmp/') in /tmp>"

# --- allowed ----------------------------------------------------------------
P=http://127.0.0.1:3128
expect "curl, absolute-form GET" "hello from web" "$(A curl -sS -m 5 -x $P http://web.test/ 2>&1)"
expect "busybox wget via http_proxy" "hello from web" \
  "$(A env http_proxy=$P busybox wget -q -O - http://web.test/ 2>&1)"
expect "curl through CONNECT" "hello from web" "$(A curl -sS -m 5 -p -x $P http://web.test/ 2>&1)"
expect "curl through SOCKS5 (socks5h)" "hello from web" \
  "$(A curl -sS -m 5 -x socks5h://127.0.0.1:1080 http://www.web.test/ 2>&1)"
expect "IPv6 destination from the hosts file" "hello from web6" "$(A curl -sS -m 5 -x $P http://web6.test/ 2>&1)"
expect "name resolved over DNS (A)" "hello from web" "$(A curl -sS -m 5 -x $P http://dns.test/ 2>&1)"
expect "name resolved over DNS (AAAA)" "hello from web6" "$(A curl -sS -m 5 -x $P http://dns6.test/ 2>&1)"
expect "CONNECT to an allowlisted port 22" "HTTP/1.1 200" \
  "$(A python3 "$HERE/client.py" raw 3128 'CONNECT web.test:22 HTTP/1.1\r\nHost: web.test:22\r\n\r\n')"
expect "CONNECT to an allowlisted IP literal" "HTTP/1.1 200" \
  "$(A python3 "$HERE/client.py" raw 3128 'CONNECT 1.2.3.10:443 HTTP/1.1\r\n\r\n')"
expect "keep-alive: three requests, one connection" "200/1 200/0 200/0 " \
  "$(A curl -sS -m 5 -x $P http://web.test/bytes/10 http://web.test/chunked/5000 http://web.test/bytes/3 \
     -o /dev/null -o /dev/null -o /dev/null -w '%{http_code}/%{num_connects} ' 2>&1)"
expect "keep-alive across two destinations" "hello from web /1hello from web6 /0" \
  "$(A curl -sS -m 5 -x $P http://web.test/ http://web6.test/ -w '/%{num_connects}' 2>&1 | tr '\n' ' ')"
head -c 200000 /dev/urandom >"$T/body"
if A curl -sS -m 10 -x $P --data-binary @"$T/body" http://web.test/echo | cmp -s - "$T/body"; then
  ok "POST body forwarded intact"; else not_ok "POST body forwarded intact"; fi
if A curl -sS -m 10 -x $P -H 'Transfer-Encoding: chunked' --data-binary @"$T/body" http://web.test/echo \
   | cmp -s - "$T/body"; then ok "chunked POST body forwarded intact"; else not_ok "chunked POST body"; fi
expect "secret request header sent (must not reach the audit)" "hello" \
  "$(A curl -sS -m 5 -x $P -H 'X-Secret: s3cr3t-t0ken' http://web.test/ 2>&1)"

# --- denied -----------------------------------------------------------------
denied () { # denied NAME REASON URL [curl args]
  local name=$1 reason=$2 url=$3
  shift 3
  expect "$name" "X-Agentrt-Denied: $reason" "$(A curl -sS -m 5 -i -x $P "$@" "$url" 2>&1)"
}
denied "non-listed name refused" not-allowlisted http://other.test/
denied "non-listed IP refused" not-allowlisted http://1.2.3.11/
denied "listed name on another port refused" not-allowlisted http://web.test:8080/
denied "metadata address refused even when its name is listed" address-metadata http://metadata.test/
denied "Azure WireServer (in public space) refused by name" address-metadata http://wireserver.test/
denied "benchmarking address refused by name" address-benchmarking http://bench.test/
denied "documentation address refused by name" address-documentation http://doc.test/
denied "private address refused by name" address-private http://priv-in.test/
denied "metadata IP literal refused" not-allowlisted http://169.254.169.254/
denied "name resolving to 127.0.0.1 (hosts) refused" address-loopback http://loop.test/
denied "name resolving to 127.0.0.1 (DNS) refused" address-loopback http://rebind.test/
denied "DNS name resolving to 169.254.169.254 refused" address-metadata http://meta-dns.test/
# IPv4 written as IPv6 is judged as the IPv4 address it holds (netaddr.c,
# classify_v6): IPv4-mapped ::ffff:a.b.c.d, which the proxy's AF_INET6
# socket reaches as the IPv4 address itself (the control: outer-loopback
# serves on 127.0.0.1 in OUT), NAT64 64:ff9b::/96 and 6to4 2002::/16,
# which a NAT64 gateway or 6to4 relay on the way would take there.  A
# 6to4 address is in 2000::/3: without the embedding judged, it is public.
expect "control: ::ffff:127.0.0.1 reaches the outer loopback from the proxy's side" "hello from outer-loopback" \
  "$(O curl -sS -m 5 --noproxy '*' -g 'http://[::ffff:127.0.0.1]/' 2>&1)"
denied "hosts ::ffff:127.0.0.1 refused" address-loopback http://loop6.test/
denied "hosts ::ffff:169.254.169.254 refused" address-metadata http://meta6.test/
denied "hosts NAT64 64:ff9b::7f00:1 refused" address-loopback http://nat64-loop-h.test/
denied "hosts 6to4 2002:a9fe:a9fe::1 refused" address-metadata http://6to4-meta-h.test/
denied "DNS AAAA ::ffff:127.0.0.1 refused" address-loopback http://rebind6.test/
denied "DNS AAAA ::ffff:169.254.169.254 refused" address-metadata http://meta6-dns.test/
denied "DNS A public, AAAA ::ffff:127.0.0.1: refused" address-loopback http://mixed6.test/
denied "DNS AAAA NAT64 64:ff9b::127.0.0.1 refused" address-loopback http://nat64-loop.test/
denied "DNS AAAA NAT64 64:ff9b::169.254.169.254 refused" address-metadata http://nat64-meta.test/
denied "DNS AAAA 6to4 2002:7f00:1::1 refused" address-loopback http://6to4-loop.test/
denied "DNS AAAA 6to4 2002:a9fe:a9fe::1 refused" address-metadata http://6to4-meta.test/
# Teredo (2001::/32) hides its client's IPv4 address (here 127.0.0.1, bits
# inverted): the whole prefix is refused, not read
denied "DNS AAAA Teredo (client 127.0.0.1) refused" address-reserved http://teredo.test/
denied "one private address among public ones refused" address-private http://mixed.test/
denied "unknown name" nxdomain http://nx.test/
denied "nameserver that never answers" resolve-failed http://drop.test/
expect "CONNECT to a non-listed name refused" "X-Agentrt-Denied: not-allowlisted" \
  "$(A python3 "$HERE/client.py" raw 3128 'CONNECT other.test:443 HTTP/1.1\r\n\r\n')"
expect "SOCKS5 to a non-listed name: reply 2" "reply 2" \
  "$(A python3 "$HERE/client.py" socks 1080 1 3 other.test 80)"
expect "SOCKS5 to the metadata IP: reply 2" "reply 2" \
  "$(A python3 "$HERE/client.py" socks 1080 1 1 169.254.169.254 80)"
expect "SOCKS5 BIND refused: reply 7" "reply 7" "$(A python3 "$HERE/client.py" socks 1080 2 1 1.2.3.10 80)"
expect "SOCKS5 UDP ASSOCIATE refused: reply 7" "reply 7" \
  "$(A python3 "$HERE/client.py" socks 1080 3 1 0.0.0.0 0)"
expect "SOCKS5 without no-auth refused" "method 255" "$(A python3 "$HERE/client.py" socks-auth 1080)"
expect "SOCKS5 numeric host form refused" "reply 2" \
  "$(A python3 "$HERE/client.py" socks 1080 1 3 16909066 80)"

trick () { # trick NAME STATUS REASON REQUEST
  local out
  out=$(A python3 "$HERE/client.py" raw 3128 "$4")
  if [[ "$out" == *" $2 "* && "$out" == *"X-Agentrt-Denied: $3"* ]]; then ok "$1"
  else not_ok "$1" "wanted $2 $3, got: ${out//$'\n'/ | }"; fi
}
trick "userinfo refused" 400 userinfo 'GET http://web.test@other.test/ HTTP/1.1\r\nHost: other.test\r\n\r\n'
trick "decimal IPv4 refused" 400 numeric-ip-form 'GET http://16909066/ HTTP/1.1\r\nHost: 16909066\r\n\r\n'
trick "hex IPv4 refused" 400 numeric-ip-form 'CONNECT 0x1.2.3.10:443 HTTP/1.1\r\n\r\n'
trick "octal IPv4 refused" 400 numeric-ip-form 'CONNECT 01.02.03.012:443 HTTP/1.1\r\n\r\n'
trick "short IPv4 refused" 400 numeric-ip-form 'CONNECT 127.1:80 HTTP/1.1\r\n\r\n'
trick "IPv6 zone id refused" 400 ipv6-zone-id 'CONNECT [fe80::1%25lo]:80 HTTP/1.1\r\n\r\n'
trick "URI and Host disagree" 400 host-mismatch 'GET http://web.test/ HTTP/1.1\r\nHost: other.test\r\n\r\n'
trick "CONNECT and Host disagree" 400 host-mismatch 'CONNECT web.test:443 HTTP/1.1\r\nHost: other.test:443\r\n\r\n'
trick "duplicate Host refused" 400 duplicate-host 'GET http://web.test/ HTTP/1.1\r\nHost: web.test\r\nHost: other.test\r\n\r\n'
trick "obs-fold refused" 400 obs-fold 'GET http://web.test/ HTTP/1.1\r\nHost: web.test\r\nX: a\r\n b\r\n\r\n'
trick "bare CR refused" 400 bare-cr 'GET http://web.test/ HTTP/1.1\r\nHost: web.test\rX: y\r\n\r\n'
trick "Content-Length with Transfer-Encoding refused" 400 content-length-with-transfer-encoding \
  'POST http://web.test/ HTTP/1.1\r\nHost: web.test\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n'
trick "conflicting Content-Length refused" 400 conflicting-content-length \
  'POST http://web.test/ HTTP/1.1\r\nHost: web.test\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n'
trick "malformed request line refused" 400 bad-http-version 'GET http://web.test/ HTTX/1.1\r\nHost: web.test\r\n\r\n'
trick "over-long header refused" 431 head-too-large \
  "GET http://web.test/ HTTP/1.1\\r\\nHost: web.test\\r\\nX: $(head -c 20000 /dev/zero | tr '\0' a)\\r\\n\\r\\n"

# --- no other way out --------------------------------------------------------
out=$(A curl -sS -m 3 --noproxy '*' http://1.2.3.10/ 2>&1)
if [ $? -ne 0 ]; then ok "direct TCP connect from the agent fails"; else not_ok "direct TCP connect" "$out"; fi
out=$(A python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('1.2.3.53', 53))" 2>&1)
expect "direct UDP send from the agent fails" "unreachable" "$out"

# --- limits -------------------------------------------------------------------
expect "beyond --max-conns: 503" "503" "$(A python3 "$HERE/client.py" hold 3128 30)"
expect "handshake timeout closes a silent client" "closed after 2 s" "$(A python3 "$HERE/client.py" idle 3128)"
# Clients that connect and send nothing at all hold slots too (no deferred
# accept), and are closed by the same timeout.
expect "beyond --max-conns with mute clients: 503" "503" "$(A python3 "$HERE/client.py" hold 3128 30 mute)"
expect "handshake timeout closes a mute client" "closed after 2 s" "$(A python3 "$HERE/client.py" idle 3128 mute)"

# --- hostile clients ----------------------------------------------------------
A python3 "$HERE/client.py" garbage 3128 1080 10 >/dev/null
if kill -0 "$PROXY_PID" 2>/dev/null; then ok "proxy survives 10 s of mutated requests"
else not_ok "proxy survives 10 s of mutated requests"; fi
# Refusals linger up to 2 s, then the idle proxy closes its spare pipes 2 s later.
fds () { own_fds; }
for _ in $(seq 80); do [ "$(fds)" -eq 6 ] && break; sleep 0.1; done
expect "no fd left behind by them" "<6 fds>" "<$(fds) fds>"
expect "still serving after them" "hello from web" "$(A curl -sS -m 5 -x $P http://web.test/ 2>&1)"
rss=$(awk '/^VmRSS:/{print $2}' /proc/$PROXY_PID/status)
# an ASan build (hack/test.sh --sanitize) carries shadow memory and a
# quarantine of freed blocks: only a gross leak would show there
rss_max=4096
grep -q __asan_init "$PROXY" && rss_max=65536
if [ "$rss" -lt $rss_max ]; then ok "RSS after them: $rss KiB"; else not_ok "RSS after them: $rss KiB (limit $rss_max)"; fi

# --- the lockdown, from inside -------------------------------------------------
out=$("$PROXY" --self-test=layers 2>&1)
rc=$?
if [ $rc -eq 0 ] && [[ "$out" != *FAIL* ]]; then ok "self-test: landlock, uid, caps, no_new_privs"
else not_ok "self-test layers (rc $rc)" "${out//$'\n'/ | }"; fi
expect "self-test: open /etc/passwd denied by Landlock" "ok landlock-fs-read" "$out"
for op in open unix netlink execve io_uring ptrace mmap-exec; do
  "$PROXY" --self-test=seccomp-$op >/dev/null 2>&1
  rc=$?
  if [ $rc -eq 159 ]; then ok "seccomp kills the proxy on $op"; else not_ok "seccomp on $op (rc $rc)"; fi
done

# --- bad values on its command line: a usage error naming the option ---------
for bad in "--busy-poll-us 1001" "--busy-poll-us -1" "--busy-poll-us 10us" "--max-conns 0"; do
  # shellcheck disable=SC2086  # the option and its value are two words
  out=$("$PROXY" --id x --http-fd 0 --socks-fd 0 --init-pidfd 0 --audit-fd 0 --allow "" $bad 2>&1)
  rc=$?
  if [ $rc -eq 2 ] && [[ "$out" == *"${bad%% *}: expected a number"* ]]; then ok "refused: $bad"
  else not_ok "refused: $bad (rc $rc)" "${out//$'\n'/ | }"; fi
done

# --- the audit trail -----------------------------------------------------------
sleep 0.5
out=$(python3 - "$T/audit.log" <<'EOF'
import json, sys
keys = {"time", "event", "id", "proto", "via", "host", "port", "addr", "decision", "reason",
        "bytes_up", "bytes_down", "duration_ms"}
lines = [json.loads(l) for l in open(sys.argv[1])]
bad = [l for l in lines if set(l) != keys or l["id"] != "e2e" or l["event"] != "egress"
       or l["via"] != "proxy"]
print("lines %d bad %d" % (len(lines), len(bad)))
def has(**want):
    return any(all(l.get(k) == v for k, v in want.items()) for l in lines)
for name, want in [
        ("allow-http", dict(proto="http", host="web.test", port=80, addr="1.2.3.10", decision="allow")),
        ("allow-connect", dict(proto="connect", host="web.test", port=22, decision="allow")),
        ("allow-socks5", dict(proto="socks5", host="www.web.test", port=80, decision="allow")),
        ("deny-name", dict(host="other.test", decision="deny", reason="not-allowlisted")),
        ("deny-metadata", dict(host="metadata.test", addr="169.254.169.254", decision="deny",
                               reason="address-metadata")),
        ("deny-loopback", dict(host="rebind.test", addr="127.0.0.1", reason="address-loopback")),
        ("deny-parse", dict(decision="deny", reason="userinfo")),
        ("deny-socks-bind", dict(proto="socks5", reason="unsupported-command"))]:
    print("%s %s" % (name, "yes" if has(**want) else "MISSING"))
print("bytes", "yes" if any(l["bytes_down"] > 0 and l["decision"] == "allow" for l in lines) else "MISSING")
# RFC 3339, UTC, milliseconds (docs/audit.md), and now: within the run
import calendar, re, time
form = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.\d{3}Z$")
def when(t):
    m = form.match(t)
    return m and calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
off = [l["time"] for l in lines if not when(l["time"]) or abs(when(l["time"]) - time.time()) > 600]
print("times", "yes" if lines and not off else "MISSING: %s" % off[:1])
EOF
)
expect "audit lines are JSON with exactly the contract's fields" "bad 0" "$out"
for k in allow-http allow-connect allow-socks5 deny-name deny-metadata deny-loopback deny-parse deny-socks-bind bytes times; do
  expect "audit line $k" "$k yes" "$out"
done
if grep -q -e 's3cr3t' -e 'hello from' "$T/audit.log"; then not_ok "audit holds nothing from payload or headers"
else ok "audit holds nothing from payload or headers"; fi
if grep -q -e other.test -e nx2 "$T/dns.log"; then not_ok "DNS is asked only about allowlisted names"
else expect "DNS is asked only about allowlisted names" "query rebind.test" "$(cat "$T/dns.log")"; fi

# --- broad entries ---------------------------------------------------------------
# Without --allow-broad a broad entry stops the proxy before it starts; it
# does not judge wildcards against the Public Suffix List (the runtime does).
for bad in "10.0.0.0/8" "[2001:db8::/32]:443" "::ffff:0.0.0.0/96" "*.com" "*"; do
  out=$("$PROXY" --id x --http-fd 0 --socks-fd 0 --init-pidfd 0 --audit-fd 0 --allow "web.test,$bad" 2>&1)
  rc=$?
  if [ $rc -eq 1 ] && [[ "$out" == *"entry \`$bad\` (#2): too broad"* ]]; then ok "without --allow-broad, refused: $bad"
  else not_ok "without --allow-broad, refused: $bad (rc $rc)" "${out//$'\n'/ | }"; fi
done
out=$("$PROXY" --id x --http-fd 0 --socks-fd 0 --init-pidfd 0 --audit-fd 0 --allow "*.co.uk,10.1.0.0/16" 2>&1)
expect "the proxy leaves public suffixes to the runtime" "--http-fd" "$out"
# With it, a broad CIDR reaches public space only, and an entry inside a
# special-purpose block unlocks that part of it, not the blocks within.
ALLOW_NOW='0.0.0.0/0,::/0,169.254.0.0/16,10.9.1.0/24,priv-in.test,priv-out.test,ll.test'
ALLOW_NOW+=',metadata.test,wireserver.test,loop.test'
start_proxy e2e-broad "$INIT" --http-port 3130 --socks-port 1082 -- --allow-broad
BROAD_PID=$PROXY_PID
unset ALLOW_NOW
P=http://127.0.0.1:3130
wait_for A curl -s -o /dev/null $P/ || { echo "broad proxy did not start"; cat "$T/proxy.err"; exit 1; }
expect "0.0.0.0/0 reaches a public IP literal" "hello from other" "$(A curl -sS -m 5 -x $P http://1.2.3.11/ 2>&1)"
expect "a CIDR inside private space unlocks it (IP)" "hello from priv-in" "$(A curl -sS -m 5 -x $P http://10.9.1.10/ 2>&1)"
expect "a CIDR inside private space unlocks it (name)" "hello from priv-in" "$(A curl -sS -m 5 -x $P http://priv-in.test/ 2>&1)"
expect "169.254.0.0/16 unlocks link-local" "hello from link-local" "$(A curl -sS -m 5 -x $P http://ll.test/ 2>&1)"
denied "0.0.0.0/0 does not unlock private space (IP)" address-private http://10.9.2.10/
denied "0.0.0.0/0 does not unlock private space (name)" address-private http://priv-out.test/
denied "0.0.0.0/0 does not unlock loopback" address-loopback http://127.0.0.1/
denied "0.0.0.0/0 does not unlock loopback (name)" address-loopback http://loop.test/
denied "169.254.0.0/16 does not unlock the metadata address" address-metadata http://169.254.169.254/
denied "nor its name" address-metadata http://metadata.test/
denied "0.0.0.0/0 does not unlock Azure's WireServer" address-metadata http://168.63.129.16/
denied "nor the benchmarking range" address-benchmarking http://198.18.0.10/
denied "nor a documentation range" address-documentation http://203.0.113.10/
kill -TERM "$BROAD_PID"
wait "$BROAD_PID"
expect "broad proxy exits 0 on SIGTERM" "rc 0" "rc $?"
if grep '"id":"e2e-broad"' "$T/audit.log" | grep -q '"reason":"address-metadata"'; then
  ok "audit: address-metadata"; else not_ok "audit: address-metadata"; fi


# --- the transparent path -----------------------------------------------------
# Programs in AGENT2 ignore proxies: the nftables rules send their TCP
# connections and DNS queries to the proxy, which must learn each
# connection's name (the stub's answers, SNI, Host) and judge it.
A2 () { ip netns exec "$AGENT2" "$@"; }
mkdir -p "/etc/netns/$AGENT2"
printf 'nameserver 1.2.3.53\noptions timeout:2 attempts:1\n' >"/etc/netns/$AGENT2/resolv.conf"
ALLOW_T='dns.test,web.test,other.test:8080,dns.test:22,ttl.test,*.many.test,rebind.test'
ALLOW_T+=',mixed.test,1.2.3.11:443,other-dns.test:8443,web6.test,dns6.test'
sleep 1000 & INIT_T=$!
PIDS+=("$INIT_T")
ip netns exec "$OUT" python3 "$HERE/launch.py" --proxy "$PROXY" --listen-netns "$AGENT2" \
  --watch-pid "$INIT_T" --audit "$T/audit-t.log" --hosts "$T/hosts" --resolv-conf "$T/resolv.conf" \
  --id e2e-t --allow "$ALLOW_T" --http-port 3128 --socks-port 1080 --transparent-port 15001 \
  --dns-stub --redirect -- --handshake-timeout 2 --dns-cache-entries 8 2>>"$T/proxy.err" &
TP_PID=$!
PIDS+=("$TP_PID")
wait_for A2 python3 "$HERE/client.py" resolve 1.2.3.53 web.test \
  || { echo "transparent proxy did not start"; cat "$T/proxy.err"; exit 1; }
# above stderr: 2 proxy listeners, 2 transparent, 2 DNS UDP, 2 DNS TCP,
# the pidfd, the audit file, epoll, signalfd
expect "transparent: proxy holds only its own fds" "<12 fds>" \
  "<$(ls -l /proc/$TP_PID/fd | awk -v s="${SAN_LOG_DIR:-//}" '$9 > 2 && index($11, s) != 1' | wc -l) fds>"
expect "transparent: still under seccomp" "Seccomp:	2" "$(grep '^Seccomp:' /proc/$TP_PID/status)"
DNS=1.2.3.53
# No stub answer yet for these addresses: the first bytes must name them,
# and the name must resolve (by the sidecar) to the address.
expect "raw IP with an allowed SNI reaches it" "echo" \
  "$(A2 python3 "$HERE/client.py" tls 1.2.3.10 443 web.test)"
expect "raw IP with an allowed Host reaches it" "200 OK" \
  "$(A2 python3 "$HERE/client.py" send 1.2.3.10 80 'GET / HTTP/1.1\r\nHost: web.test\r\n\r\n')"
expect "IPv6: raw IP with an allowed Host reaches it" "200 OK" \
  "$(A2 python3 "$HERE/client.py" send 3ffe:db8::10 80 'GET / HTTP/1.1\r\nHost: web6.test\r\n\r\n')"
expect "raw IP, Host not allowlisted: reset" "reset" \
  "$(A2 python3 "$HERE/client.py" send 1.2.3.11 80 'GET / HTTP/1.1\r\nHost: other.test\r\n\r\n')"
expect "raw IP, Host naming an allowed name elsewhere: reset" "reset" \
  "$(A2 python3 "$HERE/client.py" send 1.2.3.11 80 'GET / HTTP/1.1\r\nHost: web.test\r\n\r\n')"
expect "raw IP, Host of an allowed name that resolves to loopback: reset" "reset" \
  "$(A2 python3 "$HERE/client.py" send 1.2.3.11 80 'GET / HTTP/1.1\r\nHost: rebind.test\r\n\r\n')"
expect "raw IP, no name at all (not TLS, not HTTP): reset" "reset" \
  "$(A2 python3 "$HERE/client.py" send 1.2.3.11 80 'hello\r\n')"
expect "raw IP listed as an IP entry: relayed whatever it carries" "echo" \
  "$(A2 python3 "$HERE/client.py" send 1.2.3.11 443 'hello\r\n')"
expect "raw IP, client silent: closed after the handshake timeout" "closed after 2 s" \
  "$(A2 python3 "$HERE/client.py" wait 1.2.3.11 80)"

# The stub.
expect "stub: allowlisted name, A" "rcode 0 tc 0 answers 1.2.3.10 ttl 60" \
  "$(A2 python3 "$HERE/client.py" dns $DNS dns.test A)"
expect "stub: allowlisted name, AAAA" "rcode 0 tc 0 answers 3ffe:db8::10" \
  "$(A2 python3 "$HERE/client.py" dns 9.9.9.9 dns6.test AAAA)"
expect "stub: any server address reaches the stub" "answers 1.2.3.10" \
  "$(A2 python3 "$HERE/client.py" dns 8.8.8.8 dns.test A)"
expect "stub: over TCP" "rcode 0 tc 0 answers 1.2.3.10" \
  "$(A2 python3 "$HERE/client.py" dns $DNS dns.test A tcp)"
expect "stub: over IPv6" "rcode 0 tc 0 answers 1.2.3.10" \
  "$(A2 python3 "$HERE/client.py" dns 3ffe:db8::53 dns.test A)"
expect "stub: name not allowlisted: REFUSED" "rcode 5 tc 0 answers -" \
  "$(A2 python3 "$HERE/client.py" dns $DNS leak-a.attacker.test A)"
expect "stub: not allowlisted over TCP: REFUSED" "rcode 5" \
  "$(A2 python3 "$HERE/client.py" dns $DNS leak-b.attacker.test A tcp)"
expect "stub: TXT of a non-listed name: REFUSED" "rcode 5" \
  "$(A2 python3 "$HERE/client.py" dns $DNS leak-c.attacker.test TXT)"
expect "stub: TXT of an allowlisted name: NOERROR, no data" "rcode 0 tc 0 answers -" \
  "$(A2 python3 "$HERE/client.py" dns $DNS dns.test TXT)"
expect "stub: rebinding to loopback refused" "rcode 5" \
  "$(A2 python3 "$HERE/client.py" dns $DNS rebind.test A)"
expect "stub: one private address among public ones refused" "rcode 5" \
  "$(A2 python3 "$HERE/client.py" dns $DNS mixed.test A)"
expect "stub: malformed queries, then a good one" "rcode 0 tc 0 answers 1.2.3.10" \
  "$(A2 python3 "$HERE/client.py" dns $DNS dns.test garbage)"
expect "stub: malformed queries over TCP, then a good one" "rcode 0 tc 0 answers 1.2.3.10" \
  "$(A2 python3 "$HERE/client.py" dns $DNS dns.test garbage tcp)"
expect "getaddrinfo of a non-listed name fails" "failed" \
  "$(A2 python3 -c "import socket
try: socket.getaddrinfo('leak-d.attacker.test', 80); print('resolved')
except socket.gaierror as e: print('failed', e)")"

# Connections to what the stub answered (resolved just before each: the
# cache is small here).
stub_resolve () { A2 python3 "$HERE/client.py" resolve $DNS "$1" >/dev/null; }
expect "curl ignoring proxies reaches an allowed name" "hello from web" \
  "$(A2 curl -sS -m 5 --noproxy '*' http://dns.test/ 2>&1)"
expect "curl ignoring proxies: non-listed name does not resolve" "resolve" \
  "$(A2 curl -sS -m 5 --noproxy '*' http://leak-e.attacker.test/ 2>&1)"
stub_resolve dns.test
expect "server speaks first (SSH-like) on an allowed name:22" "SSH-2.0-agentrt-test" \
  "$(A2 python3 "$HERE/client.py" banner 1.2.3.10 22)"
expect "SNI agreeing with the stub's name" "echo" "$(A2 python3 "$HERE/client.py" tls 1.2.3.10 443 dns.test)"
# a9 and a8.many.test are allowed and would resolve to 1.2.3.10 too, but
# the stub never gave them that address: fronting through dns.test's answer
expect "SNI naming another allowed name than the stub's: reset" "reset" \
  "$(A2 python3 "$HERE/client.py" tls 1.2.3.10 443 a9.many.test)"
expect "Host naming another allowed name than the stub's: reset" "reset" \
  "$(A2 python3 "$HERE/client.py" send 1.2.3.10 80 'GET / HTTP/1.1\r\nHost: a8.many.test\r\n\r\n')"
expect "Host agreeing with the stub's name" "200 OK" \
  "$(A2 python3 "$HERE/client.py" send 1.2.3.10 80 'GET / HTTP/1.1\r\nHost: dns.test\r\n\r\n')"
expect "stub's name allowed on other ports only: reset" "reset" \
  "$(A2 python3 "$HERE/client.py" send 1.2.3.10 8080 'GET / HTTP/1.1\r\nHost: dns.test\r\n\r\n')"
expect "a name allowed on another port only (other-dns.test:8443) is answered" "answers 1.2.3.11" \
  "$(A2 python3 "$HERE/client.py" dns $DNS other-dns.test A)"
expect "...and refused on port 80" "reset" \
  "$(A2 python3 "$HERE/client.py" send 1.2.3.11 80 'GET / HTTP/1.1\r\nHost: other-dns.test\r\n\r\n')"

# TTL and the cache bound (--dns-cache-entries 8: four names, both families).
queries () { grep -c "query $1 1 " "$T/dns.log"; }
# ttl.test has a TTL of 5 s
expect "TTL: the upstream TTL" "ttl 5" "$(A2 python3 "$HERE/client.py" dns $DNS ttl.test A)"
out=$(A2 python3 "$HERE/client.py" dns $DNS ttl.test A)
ttl=${out##* }
if [[ $ttl =~ ^[1-5]$ ]]; then ok "TTL: counting down ($ttl)"; else not_ok "TTL: counting down" "$out"; fi
expect "TTL: asked upstream once while it lasts" "<1>" "<$(queries ttl.test)>"
sleep 5.5
A2 python3 "$HERE/client.py" dns $DNS ttl.test A >/dev/null
expect "TTL: asked again once it ran out" "<2>" "<$(queries ttl.test)>"
# each name takes two entries (A and AAAA are asked together)
for n in a0 a1 a2 a3 a4; do A2 python3 "$HERE/client.py" dns $DNS $n.many.test A >/dev/null; done
A2 python3 "$HERE/client.py" dns $DNS a4.many.test A >/dev/null
expect "cache: the newest entry stays" "1" "$(queries a4.many.test)"
A2 python3 "$HERE/client.py" dns $DNS a0.many.test A >/dev/null
expect "cache: beyond the bound the oldest went" "2" "$(queries a0.many.test)"

# What never left: no query for a name the allowlist does not accept, and
# no query of another type than A and AAAA.
if grep -q -e attacker.test -e ' 16 ' "$T/dns.log"; then
  not_ok "stub: no query for a non-listed name or another type reached the DNS server" "$(cat "$T/dns.log")"
else ok "stub: no query for a non-listed name or another type reached the DNS server"; fi
if kill -0 "$TP_PID" 2>/dev/null; then ok "transparent proxy survived"; else not_ok "transparent proxy survived"; fi

sleep 0.5
out=$(python3 - "$T/audit-t.log" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
tcp = {"time", "event", "id", "proto", "via", "host", "port", "addr", "decision", "reason",
       "bytes_up", "bytes_down", "duration_ms"}
dns = {"time", "event", "id", "proto", "name", "type", "decision", "reason", "answers", "ttl"}
bad = [l for l in lines if set(l) != (tcp if l["event"] == "egress" else dns)]
print("lines %d bad %d" % (len(lines), len(bad)))
def has(**want):
    return any(all(l.get(k) == v for k, v in want.items()) for l in lines)
for name, want in [
        ("via-host", dict(event="egress", proto="tcp", via="host", host="web.test", addr="1.2.3.10",
                          port=80, decision="allow")),
        ("via-sni", dict(event="egress", via="sni", host="web.test", port=443, decision="allow")),
        ("via-dns", dict(event="egress", via="dns", host="dns.test", port=22, decision="allow")),
        ("via-addr", dict(event="egress", via="addr", addr="1.2.3.11", port=443, decision="allow")),
        ("sni-mismatch", dict(event="egress", via="sni", host="a9.many.test", reason="name-mismatch",
                              decision="deny")),
        ("host-mismatch", dict(event="egress", via="host", host="a8.many.test",
                               reason="name-mismatch", decision="deny")),
        ("addr-mismatch", dict(event="egress", host="web.test", addr="1.2.3.11",
                               reason="address-mismatch")),
        ("no-name", dict(event="egress", reason="no-name", decision="deny")),
        ("rebind-host", dict(event="egress", host="rebind.test", reason="address-loopback")),
        ("dns-allow", dict(event="dns", name="dns.test", type="A", decision="allow", answers=1)),
        ("dns-refused", dict(event="dns", name="leak-a.attacker.test", decision="deny",
                             reason="not-allowlisted")),
        ("dns-rebind", dict(event="dns", name="rebind.test", decision="deny",
                            reason="address-loopback")),
        ("dns-other-type", dict(event="dns", type="TXT", decision="allow", answers=0))]:
    print("%s %s" % (name, "yes" if has(**want) else "MISSING"))
print("bytes", "yes" if any(l.get("bytes_down", 0) > 0 and l.get("via") == "dns" for l in lines) else "MISSING")
EOF
)
expect "transparent audit lines have exactly their fields" "bad 0" "$out"
for k in via-host via-sni via-dns via-addr sni-mismatch host-mismatch addr-mismatch no-name rebind-host \
  dns-allow dns-refused dns-rebind dns-other-type bytes; do
  expect "transparent audit line $k" "$k yes" "$out"
done
if grep -q -e 'hello from' -e 'SSH-2.0' "$T/audit-t.log"; then not_ok "transparent audit holds no payload"
else ok "transparent audit holds no payload"; fi
kill -TERM "$TP_PID"
wait "$TP_PID"
expect "transparent proxy exits 0 on SIGTERM" "rc 0" "rc $?"

# --- lifetime -------------------------------------------------------------------
kill "$INIT"
wait "$INIT" 2>/dev/null
for _ in $(seq 30); do kill -0 "$PROXY_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$PROXY_PID" 2>/dev/null; then not_ok "proxy exits when the watched init exits"
else wait "$PROXY_PID"; rc=$?; expect "proxy exits 0 when the watched init exits" "rc 0" "rc $rc"; fi
sleep 1000 & INIT2=$!
PIDS+=("$INIT2")
start_proxy e2e-term "$INIT2" --http-port 3129 --socks-port 1081
wait_for A curl -s -o /dev/null http://127.0.0.1:3129/
kill -TERM "$PROXY_PID"
wait "$PROXY_PID"
expect "proxy exits 0 on SIGTERM" "rc 0" "rc $?"
# --- an audit trail that cannot be written: fail closed -------------------------
# The audit file on a tmpfs of its own, filled to its last byte: the next
# record cannot be written (ENOSPC, whatever the build).  The proxy must
# stop relaying (an open tunnel is closed), refuse new connections saying
# why, and serve again once the trail can be written, saying how many
# records were lost.
start_side_proxy () { # ID HTTP-PORT SOCKS-PORT [LAUNCH-ARGS...]: a proxy watching a sleep of its own
  sleep 1000 &
  SIDE_INIT=$!
  PIDS+=("$SIDE_INIT")
  start_proxy "$1" "$SIDE_INIT" --http-port "$2" --socks-port "$3" "${@:4}"
  wait_for A python3 -c "import socket; socket.create_connection(('127.0.0.1', $2), 1).close()"
}
stop_side_proxy () {
  kill "$SIDE_INIT"
  wait "$PROXY_PID"
  expect "$1: the proxy exits 0 with its init" "rc 0" "rc $?"
}
mkdir "$T/small"
if mount -t tmpfs -o size=256k agentrt-egress-test "$T/small"; then
  MOUNTS+=("$T/small")
  PROXY_AUDIT=$T/small/audit.log PROXY_ERR=$T/full.err start_side_proxy e2e-full 3130 1082
  P3=http://127.0.0.1:3130
  A python3 "$HERE/client.py" tunnel 3130 "$T/ready" >"$T/tunnel.out" &
  TUNNEL=$!
  wait_for test -e "$T/ready"
  dd if=/dev/zero of="$T/small/fill" bs=4k status=none 2>/dev/null
  # and the rest of the audit file's last page (spaces: still JSON lines)
  size=$(stat -c %s "$T/small/audit.log")
  if ((size % 4096)); then
    head -c $((4096 - size % 4096)) /dev/zero | tr '\0' ' ' >>"$T/small/audit.log"
  fi
  # a refusal ends at once: its record is the first that cannot be written
  expect "full trail: a request is refused as usual" "X-Agentrt-Denied: not-allowlisted" \
    "$(A curl -sS -m 5 -i -x $P3 http://other.test/ 2>&1)"
  wait "$TUNNEL"
  out=$(cat "$T/tunnel.out")
  if [[ $out =~ ^tunnel\ closed\ after\ [01]\ s$ ]]; then ok "full trail: the open tunnel is closed at once"
  else not_ok "full trail: the open tunnel is closed at once" "$out"; fi
  expect "full trail: a new request is refused, saying why" "X-Agentrt-Denied: audit-unavailable" \
    "$(A curl -sS -m 5 -i -x $P3 http://web.test/ 2>&1)"
  expect "full trail: a new SOCKS5 connection is closed" "greeting refused" \
    "$(A python3 "$HERE/client.py" socks 1082 1 3 web.test 80)"
  expect "full trail: stderr says so" "the audit trail cannot be written (No space left on device)" \
    "$(cat "$T/full.err")"
  rm "$T/small/fill"
  expect "full trail: with room again, requests are served" "hello from web" \
    "$(A curl -sS -m 5 -x $P3 http://web.test/ 2>&1)"
  sleep 0.5
  out=$(python3 - "$T/small/audit.log" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
notes = [l for l in lines if l["event"] == "audit"]
after = lines[lines.index(notes[0]) + 1:] if notes else []
print("notes %d lost %s error %s" % (len(notes), notes[0]["lost"] if notes else "-",
                                     notes[0]["error"] if notes else "-"))
print("then", " ".join("%s/%s/%s" % (l["host"], l["decision"], l["reason"]) for l in after))
PY
)
  # lost: the records of the refused request, the tunnel and the two refused
  # connections
  expect "full trail: the line that ends it counts the records lost" \
    "notes 1 lost 4 error No space left on device" "$out"
  expect "full trail: and the records go on after it" "then web.test/allow/ok" "$out"
  expect "full trail: stderr says it is written again" "the audit trail is written again" \
    "$(cat "$T/full.err")"
  stop_side_proxy "full trail"
else
  not_ok "mount a small tmpfs for the full-trail test"
fi

# --- fault injection (a binary configured with --enable-fault-injection) ------
if grep -qaF egress:close-range "$PROXY"; then
  # A lockdown step that fails stops the proxy before it accepts anything:
  # exit 1, the step named on stderr and in a "sidecar" audit line.  So does
  # a wait for events that fails (it would spin, serving nothing).
  lockdown_fails () { # POINT: prints the proxy's exit status
    local w rc
    sleep 1000 &
    w=$!
    : >"$T/lock.log"
    (
      ulimit -Sn 512 # below the hard limit: the proxy raises it (setrlimit)
      env AGENTRT_FAULT_FAIL="$1" timeout 10 ip netns exec "$OUT" python3 "$HERE/launch.py" \
        --proxy "$PROXY" --listen-netns "$AGENT" --watch-pid "$w" --audit "$T/lock.log" \
        --id e2e-lock --allow "$ALLOW" --http-port 3131 --socks-port 1083 2>"$T/lock.err"
    )
    rc=$?
    kill "$w"
    wait "$w" 2>/dev/null
    echo "rc $rc"
  }
  LOCKDOWN_CASES=("egress:close-range|(close_range)" "egress:setrlimit|setrlimit RLIMIT_NOFILE"
    "egress:setgroups|privileges: setgroups" "egress:setresgid|privileges: setresgid 65534"
    "egress:capbset|from the bounding set" "egress:setresuid|privileges: setresuid 65534"
    "egress:capset|capabilities: clear" "egress:no-new-privs|PR_SET_NO_NEW_PRIVS"
    "egress:pdeathsig|prctl PR_SET_PDEATHSIG"
    "egress:landlock|Landlock: restrict self" "egress:seccomp|seccomp: load the egress filter"
    "egress:epoll-wait|agentrt-egress stops: epoll_wait")
  # every failure point of the binary is tested here
  known=" ${LOCKDOWN_CASES[*]%%|*} egress:audit-write "
  missing=$(grep -aoE 'egress:[a-z][a-z-]*[a-z]' "$PROXY" | sort -u | while read -r p; do
    [[ $known == *" $p "* ]] || echo "$p"; done)
  expect "every failure point of the binary has its test here" "<>" "<${missing//$'\n'/ }>"
  for case in "${LOCKDOWN_CASES[@]}"; do
    point=${case%%|*} words=${case#*|}
    rc=$(lockdown_fails "$point")
    if [ "$rc" = "rc 1" ] && grep -qF "$words: Input/output error" "$T/lock.err" \
      && grep -F '"event":"sidecar"' "$T/lock.log" | grep -qF "$words: Input/output error"; then
      ok "$point failing: the proxy does not start, and says why"
    else
      not_ok "$point failing: the proxy does not start, and says why" \
        "$rc; stderr: $(cat "$T/lock.err"); audit: $(cat "$T/lock.log")"
    fi
  done
  # Two audit writes failing (ENOSPC): the record of the first request and
  # the line that would end audit-failed mode; then it ends.
  PROXY_ENV=(AGENTRT_FAULT_FAIL=egress:audit-write AGENTRT_FAULT_COUNT=2 AGENTRT_FAULT_ERRNO=28)
  PROXY_AUDIT=$T/fault.log PROXY_ERR=$T/fault.err start_side_proxy e2e-fault 3132 1084
  PROXY_ENV=()
  P4=http://127.0.0.1:3132
  expect "audit write failing: the request under way is served" "hello from web" \
    "$(A curl -sS -m 5 -x $P4 http://web.test/ 2>&1)"
  sleep 0.3
  expect "audit write failing: the next is refused" "X-Agentrt-Denied: audit-unavailable" \
    "$(A curl -sS -m 5 -i -x $P4 http://web.test/ 2>&1)"
  expect "audit write failing: once it works, served again" "hello from web" \
    "$(A curl -sS -m 5 -x $P4 http://web.test/ 2>&1)"
  sleep 0.5
  out=$(python3 - "$T/fault.log" <<'PY'
import json, sys
for l in map(json.loads, open(sys.argv[1])):
    print(l["event"], l.get("lost", ""), l.get("decision", ""), l.get("reason", ""))
PY
)
  expect "audit write failing: the trail says one record was lost, then goes on" \
    "audit 1  |egress  deny audit-unavailable|egress  allow ok" "${out//$'\n'/|}"
  stop_side_proxy "audit write failing"
  # The DNS stub records each answer before it gives it: one that cannot
  # be recorded is SERVFAIL, and no lookup starts while the trail fails.
  PROXY_ENV=(AGENTRT_FAULT_FAIL=egress:audit-write AGENTRT_FAULT_COUNT=1 AGENTRT_FAULT_ERRNO=28)
  PROXY_AUDIT=$T/fault-dns.log PROXY_ERR=$T/fault.err start_side_proxy e2e-fault-dns 3133 1085 \
    --dns-stub
  PROXY_ENV=()
  expect "audit write failing: the stub's answer is not given (SERVFAIL)" "rcode 2 tc 0 answers -" \
    "$(A python3 "$HERE/client.py" dns 127.0.0.1 dns.test A)"
  expect "audit write failing: the stub answers again once it works" "rcode 0 tc 0 answers 1.2.3.10" \
    "$(A python3 "$HERE/client.py" dns 127.0.0.1 dns.test A)"
  sleep 0.3
  out=$(python3 - "$T/fault-dns.log" <<'PY'
import json, sys
for l in map(json.loads, open(sys.argv[1])):
    print(l["event"], l.get("lost", ""), l.get("name", ""), l.get("decision", ""), l.get("reason", ""))
PY
)
  expect "audit write failing: the stub's lost record is counted, then the answer" \
    "audit 1   |dns  dns.test allow ok" "${out//$'\n'/|}"
  stop_side_proxy "audit write failing (stub)"
else
  echo "# skip: $PROXY has no fault points (configure --enable-fault-injection)"
fi

# --- injected credentials -------------------------------------------------
# An HTTPS API (api.test) and a git server (git.test, `git http-backend`
# asking for Basic credentials) with certificates of a test CA that the
# proxy trusts (--trust-store), and bad.test with one it does not.  The
# proxy gets the credential as the runtime's monitor hands it over (a
# pipe: launch.py --credential); the client holds only the stand-in and
# the container's CA certificate.  For the upstream's sessions: alt.test
# is api.test's server (its certificate names both), tls12.test speaks
# TLS 1.2 at most, flip.test's certificate changes to an untrusted one.
if command -v openssl >/dev/null && command -v git >/dev/null; then
  C=$T/creds
  mkdir -p "$C"
  newkey=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
  openssl req -x509 "${newkey[@]}" -days 2 -subj /CN=test-root -keyout "$C/root.key" \
    -out "$C/root.pem" 2>/dev/null
  for name in api git tls12 flip; do
    openssl req "${newkey[@]}" -subj "/CN=$name.test" -keyout "$C/$name.key" -out "$C/$name.csr" 2>/dev/null
    printf 'subjectAltName=DNS:%s.test%s\n' "$name" "$([ $name = api ] && echo ,DNS:alt.test)" \
      >"$C/$name.ext"
    openssl x509 -req -in "$C/$name.csr" -CA "$C/root.pem" -CAkey "$C/root.key" -CAcreateserial \
      -days 2 -extfile "$C/$name.ext" -out "$C/$name.pem" 2>/dev/null
  done
  openssl req -x509 "${newkey[@]}" -days 2 -subj /CN=bad.test -addext subjectAltName=DNS:bad.test \
    -keyout "$C/bad.key" -out "$C/bad.pem" 2>/dev/null
  openssl req -x509 "${newkey[@]}" -days 2 -subj /CN=flip.test -addext subjectAltName=DNS:flip.test \
    -keyout "$C/flip-bad.key" -out "$C/flip-bad.pem" 2>/dev/null
  for a in 1.2.3.12 1.2.3.13 1.2.3.14 1.2.3.15 1.2.3.16; do
    ip -n "$SRV" addr add "$a/24" dev "es$SUFFIX"
  done
  printf '1.2.3.12 api.test alt.test\n1.2.3.13 git.test\n1.2.3.14 bad.test\n' >>"$T/hosts"
  printf '1.2.3.15 tls12.test\n1.2.3.16 flip.test\n' >>"$T/hosts"
  TOKEN=ghp_real$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  STANDIN=agentrt-standin-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  printf '%s\n' "$TOKEN" >"$C/token"
  git init -q --bare "$C/repos/r.git"
  git -C "$C/repos/r.git" symbolic-ref HEAD refs/heads/main
  git init -q "$C/work" && echo "cloned through the sidecar" >"$C/work/README"
  git -C "$C/work" add README
  git -C "$C/work" -c user.name=t -c user.email=t@t commit -q -m one
  git -C "$C/work" push -q "$C/repos/r.git" HEAD:refs/heads/main
  bg env SERVER_NAME=api TLS_CERT="$C/api.pem" TLS_KEY="$C/api.key" EXPECT_TOKEN="$TOKEN" \
    ip netns exec "$SRV" python3 "$HERE/server.py" https 1.2.3.12 443
  bg env TLS_CERT="$C/git.pem" TLS_KEY="$C/git.key" EXPECT_TOKEN="$TOKEN" \
    ip netns exec "$SRV" python3 "$HERE/git_server.py" 1.2.3.13 443 "$C/repos"
  bg env TLS_CERT="$C/bad.pem" TLS_KEY="$C/bad.key" EXPECT_TOKEN="$TOKEN" \
    ip netns exec "$SRV" python3 "$HERE/server.py" https 1.2.3.14 443
  bg env TLS_CERT="$C/tls12.pem" TLS_KEY="$C/tls12.key" TLS_MAX=1.2 \
    ip netns exec "$SRV" python3 "$HERE/server.py" https 1.2.3.15 443
  bg env SERVER_NAME=flip TLS_CERT="$C/flip.pem" TLS_KEY="$C/flip.key" \
    ip netns exec "$SRV" python3 "$HERE/server.py" https 1.2.3.16 443
  FLIP_PID=$!
  CRED_HOSTS=api.test,git.test,bad.test,alt.test,tls12.test,flip.test
  "$PROXY" --make-ca "$CRED_HOSTS" --id e2e-cred >"$C/ca.pem"
  openssl x509 -in "$C/ca.pem" -out "$C/ca-cert.pem"
  wait_for O curl -sf --noproxy '*' --cacert "$C/root.pem" --resolve api.test:443:1.2.3.12 \
    https://api.test/ || echo "# the HTTPS server did not start"
  ALLOW_NOW="$CRED_HOSTS,web.test" PROXY_AUDIT=$T/cred.log \
    start_side_proxy e2e-cred 3134 1086 --ca "$C/ca.pem" \
    --credential "GH:Authorization:$STANDIN:$C/token:$CRED_HOSTS" \
    -- --trust-store "$C/root.pem"
  P5=http://127.0.0.1:3134
  # its listeners accept before it is locked down (launch.py made them);
  # the trust store and the leaf certificates come first, slow under ASan
  wait_for grep -q '^Seccomp:.2' "/proc/$PROXY_PID/status"
  expect "proxy with credentials: still under seccomp" "Seccomp:	2" \
    "$(grep '^Seccomp:' /proc/$PROXY_PID/status)"
  expect "credential: the API got the real token, the client sent the stand-in" \
    "real token received" \
    "$(A curl -sS -m 5 -x $P5 --cacert "$C/ca-cert.pem" -H "Authorization: Bearer $STANDIN" \
       'https://api.test/api?q=private' 2>&1)"
  expect "credential: without the stand-in nothing is added" "got: Bearer other" \
    "$(A curl -sS -m 5 -x $P5 --cacert "$C/ca-cert.pem" -H "Authorization: Bearer other" \
       https://api.test/api 2>&1)"
  expect "credential: the stand-in to a host without it arrives as the stand-in" \
    "got: Bearer $STANDIN" \
    "$(A curl -sS -m 5 -x $P5 -H "Authorization: Bearer $STANDIN" http://web.test/api 2>&1)"
  # the next request on that kept-alive connection (refused: other.test
  # is not allowlisted here) is recorded without the last one's stand-in
  expect "credential: a stand-in, then a request without one, on one connection" "/1 /0" \
    "$(A curl -sS -m 5 -o /dev/null -w '/%{num_connects} ' -x $P5 -H "Authorization: Bearer $STANDIN" \
       http://web.test/api --next -sS -m 5 -o /dev/null -w '/%{num_connects}' -x $P5 \
       http://other.test/ 2>&1)"
  expect "credential: an upstream whose certificate is not trusted is refused" "curl: (" \
    "$(A curl -sS -m 5 -x $P5 --cacert "$C/ca-cert.pem" -H "Authorization: Bearer $STANDIN" \
       https://bad.test/api 2>&1)"
  expect "credential: git clone over HTTPS with the stand-in as Basic password" \
    "cloned through the sidecar" \
    "$(A env https_proxy=$P5 GIT_SSL_CAINFO="$C/ca-cert.pem" GIT_TERMINAL_PROMPT=0 \
       git clone -q "https://x-access-token:$STANDIN@git.test/r.git" "$C/clone" 2>&1;
       cat "$C/clone/README" 2>&1)"
  expect "credential: git without the stand-in is refused by the server" "Authentication failed" \
    "$(A env https_proxy=$P5 GIT_SSL_CAINFO="$C/ca-cert.pem" GIT_TERMINAL_PROMPT=0 \
       git clone -q "https://x-access-token:wrong@git.test/r.git" "$C/clone2" 2>&1)"
  # Inside the tunnel nothing reaches another host: a Host naming another
  # (fronting), a second request on the same connection naming another
  # (keep-alive), requests smuggled past the proxy's framing, a TLS name
  # (SNI) that is not the tunnel's.  The control: two requests to the
  # tunnel's own host on one connection both get the value.
  mitm () { # SNI REQUEST: what came back, one line of it per |
    A python3 "$HERE/client.py" mitm 3134 api.test "$C/ca-cert.pem" "$1" "$2" 2>&1 \
      | tr -d '\r' | grep -E '^(HTTP/|real token|got:|closed|tls-refused)' | tr '\n' '|'
  }
  get="GET /api HTTP/1.1\r\nAuthorization: Bearer $STANDIN\r\n"
  expect "credential: control: two requests on one connection both get the value" \
    "HTTP/1.1 200 OK|real token received|HTTP/1.1 200 OK|real token received|closed|" \
    "$(mitm api.test "${get}Host: api.test\r\n\r\n${get}Host: api.test\r\nConnection: close\r\n\r\n")"
  expect "credential: a Host naming another host inside the tunnel is refused" "^closed|" \
    "^$(mitm api.test "${get}Host: web.test\r\nConnection: close\r\n\r\n")"
  # (the connection ends at the refusal: the first answer may be lost too)
  out=$(mitm api.test "${get}Host: api.test\r\n\r\n${get}Host: web.test\r\nConnection: close\r\n\r\n")
  expect "credential: a second request naming another host on the same connection is refused" \
    "no second answer" "$([[ $out != *"received|HTTP/"* && $out == *"closed|" ]] \
      && echo "no second answer" || echo "$out")"
  expect "credential: Content-Length with Transfer-Encoding inside the tunnel is refused" "^closed|" \
    "^$(mitm api.test "POST /echo HTTP/1.1\r\nHost: api.test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${get}Host: web.test\r\nConnection: close\r\n\r\n")"
  expect "credential: a TLS name other than the tunnel's is refused" "^tls-refused|" \
    "^$(mitm web.test "${get}Host: api.test\r\nConnection: close\r\n\r\n")"
  # The container's CA vouches for its hosts only: a leaf it signs for
  # another name, or for an address (name constraints bind only names of
  # their own type), fails to verify.
  verdict=
  for leaf in api:DNS:api.test evil:DNS:evil.test ip:IP:1.2.3.12 ip6:IP:3ffe:db8::12; do
    n=${leaf%%:*}
    openssl req "${newkey[@]}" -subj "/O=$n" -keyout "$C/$n-leaf.key" -out "$C/$n-leaf.csr" 2>/dev/null
    printf 'subjectAltName=%s\n' "${leaf#*:}" >"$C/$n-leaf.ext"
    openssl x509 -req -in "$C/$n-leaf.csr" -CA "$C/ca-cert.pem" -CAkey "$C/ca.pem" -set_serial 7 \
      -days 1 -extfile "$C/$n-leaf.ext" -out "$C/$n-leaf.pem" 2>/dev/null
    verdict+="$n:$(openssl verify -CAfile "$C/ca-cert.pem" "$C/$n-leaf.pem" >/dev/null 2>&1 \
      && echo ok || echo refused) "
  done
  expect "credential: the container's CA signs for its hosts, no other name, no address" \
    "api:ok evil:refused ip:refused ip6:refused " "$verdict"
  # The upstream's sessions (docs/egress.md): the sidecar resumes the next
  # connection to the same name (the server says whether it resumed: its
  # own TLS 1.3 tickets, single-use once offered, or its TLS 1.2 session),
  # never with another name's session (alt.test's first connection is a
  # full handshake though api.test's server, the same one, would take
  # api.test's), and an upstream whose certificate turned untrusted after
  # its session was kept is refused: its new process knows no old ticket,
  # so the handshake is full and verifies.
  resumed () { # HOST: "T" or "F" for each of three new connections
    local i
    for i in 1 2 3; do
      A curl -sS -m 5 -x $P5 --cacert "$C/ca-cert.pem" "https://$1/session" 2>&1 \
        | sed -n 's/^session reused: \(.\).*/\1/p;/^curl:/p'
    done | tr -d '\n'
  }
  # (api.test's first: whatever the refused connections just before left)
  expect "credential: the next connection to the same host resumes upstream (TLS 1.3)" "TT" \
    "$(resumed api.test | cut -c2-)"
  expect "credential: a host never gets another's session, and resumes its own" "FTT" \
    "$(resumed alt.test)"
  expect "credential: TLS 1.2 upstream: resumed, and again" "FTT" "$(resumed tls12.test)"
  expect "credential: control: the upstream before its certificate changes" "hello from flip" \
    "$(A curl -sS -m 5 -x $P5 --cacert "$C/ca-cert.pem" https://flip.test/ 2>&1)"
  kill "$FLIP_PID"
  wait "$FLIP_PID" 2>/dev/null
  bg env SERVER_NAME=flip TLS_CERT="$C/flip-bad.pem" TLS_KEY="$C/flip-bad.key" \
    ip netns exec "$SRV" python3 "$HERE/server.py" https 1.2.3.16 443
  wait_for O curl -sfk --noproxy '*' --resolve flip.test:443:1.2.3.16 https://flip.test/
  expect "credential: an upstream whose certificate turned untrusted after its session was kept is refused" \
    "curl: (" "$(A curl -sS -m 5 -x $P5 --cacert "$C/ca-cert.pem" https://flip.test/ 2>&1)"
  # Toward the agent: the sidecar's side issues TLS 1.3 tickets (each
  # host its own context and keys), so a client that keeps its session
  # resumes (curl and most libraries do within one process; here
  # s_client's saved session); it verified the container's CA for that
  # name the first time.
  agent_tls () { # s_client ARGS...: a GET through the proxy; its summary lines
    printf 'GET /session HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n' \
      | A openssl s_client -proxy 127.0.0.1:3134 -connect api.test:443 -servername api.test \
        -CAfile "$C/ca-cert.pem" -verify_return_error -ign_eof "$@" 2>&1 \
      | grep -E '^(New|Reused), |^session reused' | tr -d '\r' | cut -d, -f1-2 | tr '\n' '|'
  }
  expect "credential: control: the agent's first connection is a full handshake" \
    "New, TLSv1.3|session reused: True|" "$(agent_tls -sess_out "$C/agent.sess")"
  expect "credential: the agent's side resumes a client's own session" \
    "Reused, TLSv1.3|session reused: True|" "$(agent_tls -sess_in "$C/agent.sess")"
  sleep 0.3
  expect "credential: the refusals inside the tunnel are recorded" "2 1 1" \
    "$(for r in host-mismatch content-length-with-transfer-encoding agent-tls-handshake-failed; do
         grep -c "\"reason\":\"$r\"" "$T/cred.log"; done | tr '\n' ' ')"
  out=$(python3 - "$T/cred.log" <<'PY'
import json, sys
for l in map(json.loads, open(sys.argv[1])):
    if l["event"] == "inject":
        print("inject", l["credential"], l["host"], l["request"])
    elif l.get("host") in ("bad.test", "web.test", "other.test", "flip.test"):
        print("egress", l["host"], l["decision"], l["reason"], l.get("standin", "-"))
PY
)
  expect "credential: each injection is audited, the query left out" \
    "inject GH api.test GET /api|" "${out//$'\n'/|}|"
  expect "credential: git's requests are audited" "inject GH git.test GET /r.git/info/refs|" \
    "${out//$'\n'/|}|"
  expect "credential: the stand-in sent elsewhere is recorded" "egress web.test allow ok GH" \
    "$out"
  expect "credential: ... the next request's record has no stand-in" \
    "egress other.test deny not-allowlisted -" "$out"
  expect "credential: the untrusted upstream is recorded" \
    "egress bad.test deny upstream-certificate-untrusted" "$out"
  expect "credential: ... and the one whose certificate changed" \
    "egress flip.test deny upstream-certificate-untrusted" "$out"
  expect "credential: the value is in no audit line" "0" \
    "$(cat "$T"/*.log | grep -c -- "$TOKEN")"
  stop_side_proxy "credentials"

  # Not dumpable, whatever uid it starts as: here the rootless shape, a
  # proxy started as 65534 with no change of ids of its own, which the
  # kernel would leave dumpable.  /proc/PID/mem is then root's (the
  # kernel's sign of a process that is not dumpable; /proc/PID itself keeps
  # the process's uid), and a crash leaves no core
  # holding the value: core_pattern permitting, a real one, in a directory
  # the proxy may write (without Landlock, which would keep a core file
  # away but not a core_pattern pipe such as systemd-coredump).
  if setpriv --reuid 65534 --regid 65534 --clear-groups test -x "$PROXY"; then
    mkdir -m 1777 "$T/core"
    # the proxy inherits a core limit raised here (prlimit on a process of
    # another uid would need CAP_SYS_RESOURCE, which CI's root may lack)
    core_was=$(ulimit -c)
    ulimit -c unlimited 2>/dev/null || true
    ALLOW_NOW=api.test PROXY_AUDIT=$T/core/audit.log \
      start_side_proxy e2e-core 3136 1088 --ca "$C/ca.pem" --as-uid 65534 --cwd "$T/core" \
      --credential "GH:Authorization:$STANDIN:$C/token:api.test" \
      -- --trust-store /etc/ssl/certs/ca-certificates.crt --no-landlock
    ulimit -c "$core_was"
    wait_for grep -q '^Seccomp:.2' "/proc/$PROXY_PID/status"
    expect "credentials, started as its uid: runs as 65534" "65534 65534" \
      "$(awk '/^Uid:/{print $2, $3}' "/proc/$PROXY_PID/status")"
    expect "credentials, started as its uid: not dumpable (/proc/PID/mem is root's)" "owner 0" \
      "owner $(stat -c %u "/proc/$PROXY_PID/mem")"
    pattern=$(cat /proc/sys/kernel/core_pattern)
    core_limit=$(awk '/^Max core file size/ { print $5 }' "/proc/$PROXY_PID/limits")
    if [[ $pattern == core* && $core_limit == unlimited ]]; then
      # SIGABRT dumps core by default, and no sanitizer takes it over (ASan
      # reports a SIGSEGV instead; a background job ignores SIGQUIT)
      kill -ABRT "$PROXY_PID"
      wait "$PROXY_PID" || true
      expect "credentials: a crash leaves no core dump" "cores: |" \
        "cores: $(cd "$T/core" && ls core* 2>/dev/null)|"
      expect "credentials: the value is in no core" "0" \
        "$(cat "$T"/core/core* 2>/dev/null | grep -ac -- "$TOKEN")"
    else
      echo "# skip: core_pattern \`$pattern\`, core limit $core_limit: no core file to look for"
    fi
    kill "$SIDE_INIT" "$PROXY_PID" 2>/dev/null
    wait "$PROXY_PID" 2>/dev/null || true
  else
    echo "# skip: uid 65534 cannot run $PROXY (not dumpable, started as its uid)"
  fi
else
  echo "# skip: injected credentials need openssl and git"
fi

# --- asking a person (issue 18) ---------------------------------------------------
. "$HERE/ask.sh"

if [ -s "$T/proxy.err" ]; then not_ok "no stderr from the proxies" "$(cat "$T/proxy.err")"
else ok "no stderr from the proxies"; fi

echo "# $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
