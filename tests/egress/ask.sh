# tests/egress/ask.sh: asking a person (issue 18), sourced by run.sh (its
# namespaces, servers, hosts file and helpers).  A proxy allowed only
# web.test asks approver.py, whose rules answer per destination; its log
# holds every line the proxy sent, so that what was asked (and what was
# never asked) shows.  The proxy waits 2 s for an answer and asks at most
# 4 questions at once.

ASK_SOCK=$T/approver.sock ASK_LOG=$T/approver.log ASK_AUDIT=$T/ask-audit.log
echo '1.2.3.11 split.test' >>"$T/hosts"
python3 "$HERE/approver.py" "$ASK_SOCK" "$ASK_LOG" other.test:80=allow-once \
  other-dns.test:80=allow-always denied.test:80=deny bye.test:80=close \
  priv-out.test:80=allow-once 1.2.3.11:80=allow-once forge.test:80=forge late.test:80=late \
  twice.test:80=twice split.test:80=split denied.test:443=deny tp-priv.test:80=allow-once \
  huge.test:80=huge &
ASK_APPROVER=$!
PIDS+=("$ASK_APPROVER")
wait_for test -S "$ASK_SOCK" || { echo "approver did not start"; exit 1; }
ALLOW_NOW=web.test PROXY_AUDIT=$ASK_AUDIT start_side_proxy e2e-ask 3140 1090 \
  --approver "$ASK_SOCK" -- --ask-timeout 2 --ask-max 4
unset ALLOW_NOW
P=http://127.0.0.1:3140
asked () { grep -c "\"type\":\"question\".*\"host\":\"$1\"" "$ASK_LOG"; }

# the hello may follow the listeners being up (slower under ASan)
wait_for grep -q '"type":"hello","id":"e2e-ask"' "$ASK_LOG"
expect "ask: the proxy says hello to the approver" '"type":"hello","id":"e2e-ask","version":1' \
  "$(cat "$ASK_LOG")"
expect "ask: allowlisted: no question" "hello from web" "$(A curl -sS -m 5 -x $P http://web.test/ 2>&1)"
expect "ask: allow-once: the held request completes" "hello from other" \
  "$(A curl -sS -m 5 -x $P http://other.test/ 2>&1)"
expect "ask: allow-once: the next one asks again (and completes)" "hello from other" \
  "$(A curl -sS -m 5 -x $P http://other.test/ 2>&1)"
expect "ask: allow-once: two questions" "2" "$(asked other.test)"
expect "ask: allow-once through CONNECT" "hello from other" \
  "$(A curl -sS -m 5 -p -x $P http://other.test/ 2>&1)"
expect "ask: allow-once through SOCKS5" "hello from other" \
  "$(A curl -sS -m 5 -x socks5h://127.0.0.1:1090 http://other.test/ 2>&1)"
expect "ask: a public IP literal is asked about too" "hello from other" \
  "$(A curl -sS -m 5 -x $P http://1.2.3.11/ 2>&1)"
expect "ask: a kept-alive client's next request (allowlisted) goes on, on one connection" \
  "hello from other /1hello from web /0" \
  "$(A curl -sS -m 5 -x $P http://other.test/k1 http://web.test/k2 -w '/%{num_connects}' 2>&1 | tr '\n' ' ')"
expect "ask: allow-always: allowed" "hello from other" \
  "$(A curl -sS -m 5 -x $P http://other-dns.test/ 2>&1)"
expect "ask: allow-always: allowed again" "hello from other" \
  "$(A curl -sS -m 5 -x $P http://other-dns.test/ 2>&1)"
expect "ask: allow-always: one question" "1" "$(asked other-dns.test)"
expect "ask: allow-always holds for that port only" "X-Agentrt-Denied: ask-timeout" \
  "$(A curl -sS -m 5 -i -x $P http://other-dns.test:8080/ 2>&1)"
expect "ask: deny" "X-Agentrt-Denied: ask-denied" "$(A curl -sS -m 5 -i -x $P http://denied.test/ 2>&1)"
# hostile approvers: answers for questions not asked, or no longer in
# flight, count for nothing; a second answer to one question neither
expect "ask: answers for question ids not asked: ignored (the timeout denies)" \
  "X-Agentrt-Denied: ask-timeout" "$(A curl -sS -m 5 -i -x $P http://forge.test/ 2>&1)"
for i in 1 2; do
  expect "ask: a settled question's id answered late: ignored ($i)" "X-Agentrt-Denied: ask-timeout" \
    "$(A curl -sS -m 5 -i -x $P http://late.test/ 2>&1)"
done
expect "ask: ... and the next one asked again" "2" "$(asked late.test)"
for i in 1 2; do
  expect "ask: answered twice (deny, allow-always): the first counts ($i)" \
    "X-Agentrt-Denied: ask-denied" "$(A curl -sS -m 5 -i -x $P http://twice.test/ 2>&1)"
done
expect "ask: ... and the second is not remembered" "2" "$(asked twice.test)"
expect "ask: an answer in two writes (the first without its newline)" "hello from other" \
  "$(A curl -sS -m 5 -x $P http://split.test/ 2>&1)"
start=$(date +%s%N)
out=$(A curl -sS -m 10 -i -x $P http://slow.test/ 2>&1)
ms=$((($(date +%s%N) - start) / 1000000))
expect "ask: no answer: the timeout denies" "X-Agentrt-Denied: ask-timeout" "$out"
if [ "$ms" -ge 1900 ] && [ "$ms" -lt 4500 ]; then ok "ask: denied after the timeout ($ms ms)"
else not_ok "ask: denied after the timeout" "$ms ms"; fi
expect "ask: the approver is told the question timed out" '"type":"done"' "$(grep slow -A0 "$ASK_LOG"; grep '"outcome":"timeout"' "$ASK_LOG")"

# never asked: special-purpose addresses, literal or by the hosts file
for url in http://169.254.169.254/ http://10.9.2.10/ http://127.0.0.1:8080/ http://metadata.test/ \
  http://priv-out.test/ http://loop.test/; do
  expect "ask: $url refused without a question" "X-Agentrt-Denied: not-allowlisted" \
    "$(A curl -sS -m 5 -i -x $P "$url" 2>&1)"
done
expect "ask: SOCKS5 to the metadata address: refused at once" "reply 2" \
  "$(A python3 "$HERE/client.py" socks 1090 1 1 169.254.169.254 80)"
if grep -q -e 169.254 -e 10.9.2.10 -e 127.0.0.1 -e metadata -e priv-out -e loop.test "$ASK_LOG"; then
  not_ok "ask: no question about special-purpose addresses" "$(cat "$ASK_LOG")"
else ok "ask: no question about special-purpose addresses"; fi

# a flood of distinct names: at most --ask-max questions, the rest denied
# at once (40 requests sent within a few ms: one process, not 40)
rss0=$(awk '/^VmRSS:/{print $2}' /proc/$PROXY_PID/status)
out=$(A python3 - <<'PY'
import selectors, socket, time
socks = []
for i in range(40):
    s = socket.create_connection(("127.0.0.1", 3140))
    s.sendall(b"GET http://n%d.flood.test/ HTTP/1.1\r\nHost: n%d.flood.test\r\n\r\n" % (i, i))
    socks.append(s)
busy = timeout = other = fast = 0
start = time.monotonic()
sel = selectors.DefaultSelector()
for s in socks:
    sel.register(s, selectors.EVENT_READ)
while sel.get_map() and time.monotonic() - start < 10:
    for key, _ in sel.select(1):
        reply = key.fileobj.recv(4096)
        sel.unregister(key.fileobj)
        if b"ask-busy" in reply:
            busy += 1
            fast += time.monotonic() - start < 1
        elif b"ask-timeout" in reply:
            timeout += 1
        else:
            other += 1
print("busy %d (at once %d) timeout %d other %d" % (busy, fast, timeout, other))
PY
)
rss1=$(awk '/^VmRSS:/{print $2}' /proc/$PROXY_PID/status)
expect "ask: flood: 36 denied at once (ask-busy), 4 held until the timeout" \
  "busy 36 (at once 36) timeout 4 other 0" "$out"
expect "ask: flood: 4 questions" "4" "$(grep -c '"host":"n[0-9]*.flood.test"' "$ASK_LOG")"
expect "ask: after the flood, asking works" "hello from other" \
  "$(A curl -sS -m 5 -x $P http://other.test/ 2>&1)"
echo "# ask: RSS $rss0 KiB before the flood, $rss1 KiB after it"

# the approver goes away: the held request is denied at once, and later ones
start=$(date +%s%N)
out=$(A curl -sS -m 10 -i -x $P http://bye.test/ 2>&1)
ms=$((($(date +%s%N) - start) / 1000000))
expect "ask: the approver goes away: denied" "X-Agentrt-Denied: ask-unavailable" "$out"
if [ "$ms" -lt 1000 ]; then ok "ask: ... at once ($ms ms)"; else not_ok "ask: ... at once" "$ms ms"; fi
n=$(wc -l <"$ASK_LOG")
expect "ask: after it, denied without a question" "X-Agentrt-Denied: ask-unavailable" \
  "$(A curl -sS -m 5 -i -x $P http://other.test/ 2>&1)"
expect "ask: ... and nothing more sent" "$n" "$(wc -l <"$ASK_LOG")"
expect "ask: allowlisted destinations still pass" "hello from web" \
  "$(A curl -sS -m 5 -x $P http://web.test/ 2>&1)"
stop_side_proxy "ask"

out=$(python3 - "$ASK_AUDIT" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
asks = [l for l in lines if l["event"] == "ask"]
keys = {"time", "event", "id", "qid", "proto", "via", "host", "port", "answer", "approver_uid",
        "wait_ms", "held"}
print("ask-keys", "ok" if asks and all(set(a) == keys for a in asks) else "BAD")
def has(lst, **want):
    return "yes" if any(all(l.get(k) == v for k, v in want.items()) for l in lst) else "MISSING"
print("once", has(asks, host="other.test", answer="allow-once", approver_uid=0, proto="http"))
print("connect", has(asks, host="other.test", proto="connect", answer="allow-once"))
print("always", has(asks, host="other-dns.test", answer="allow-always"))
print("deny", has(asks, host="denied.test", answer="deny"))
print("timeout", has(asks, host="slow.test", answer="timeout"))
print("gone", has(asks, host="bye.test", answer="approver-gone"))
print("slow", "yes" if any(a["host"] == "slow.test" and a["wait_ms"] >= 1900 for a in asks) else "MISSING")
eg = [l for l in lines if l["event"] == "egress"]
print("egress-once", has(eg, host="other.test", decision="allow", ask="allow-once"))
print("egress-always", has(eg, host="other-dns.test", decision="allow", ask="allow-always"))
print("egress-busy", has(eg, decision="deny", reason="ask-busy"))
print("egress-gone", has(eg, host="other.test", decision="deny", reason="ask-unavailable"))
print("sidecar", has(lines, event="sidecar"))
# the kept-alive client's allowlisted request was not the approver's doing
print("keepalive", "yes" if any(l["host"] == "web.test" for l in eg)
      and not any(l["host"] == "web.test" and "ask" in l for l in eg) else "BAD")
PY
)
for k in ask-keys once connect always deny timeout gone slow egress-once egress-always \
  egress-busy egress-gone sidecar keepalive; do
  expect "ask: audit: $k" "$k $([ "$k" = ask-keys ] && echo ok || echo yes)" "$out"
done
# The transparent path asks too: a connection to a public address whose
# first bytes (Host, SNI) name a destination outside the allowlist, in an
# agent namespace of its own (AGENT3) set up like AGENT2.  Never one whose
# original destination is special-purpose; and an allowed name still must
# resolve to the address the agent connected to.
AGENT3=egr-agent3-$SUFFIX ASK_AUDIT_T=$T/ask-audit-t.log
ip netns add "$AGENT3" && NETNS+=("$AGENT3") && ip -n "$AGENT3" link set lo up
A3 () { ip netns exec "$AGENT3" "$@"; }
sleep 1000 & ASK_INIT_T=$!
PIDS+=("$ASK_INIT_T")
ip netns exec "$OUT" python3 "$HERE/launch.py" --proxy "$PROXY" --listen-netns "$AGENT3" \
  --watch-pid "$ASK_INIT_T" --audit "$ASK_AUDIT_T" --hosts "$T/hosts" --resolv-conf "$T/resolv.conf" \
  --id e2e-ask-t --allow web.test --http-port 3128 --socks-port 1080 --transparent-port 15001 \
  --redirect --approver "$ASK_SOCK" -- --ask-timeout 10 --handshake-timeout 12 2>>"$T/proxy.err" &
ASK_TP_PID=$!
PIDS+=("$ASK_TP_PID")
wait_for grep -q '"type":"hello","id":"e2e-ask-t"' "$ASK_LOG" \
  || { not_ok "ask: the transparent proxy said hello" "$(cat "$ASK_LOG")"; }
# client.py turns the escapes into CR LF (a command substitution would
# drop the head's last newline: a request never complete)
get () { printf 'GET / HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n' "$1"; }
expect "ask: transparent: raw IP, Host asked about and allowed once" "200 OK" \
  "$(A3 python3 "$HERE/client.py" send 1.2.3.11 80 "$(get other.test)")"
expect "ask: transparent: the question names the Host" \
  '"id":"e2e-ask-t","host":"other.test","port":80,"proto":"tcp","via":"host"' "$(cat "$ASK_LOG")"
# what the approver let through names no address for later connections:
# the next one is named by its own first bytes again, and asked again
expect "ask: transparent: allow-once: the next connection asks again (and completes)" "200 OK" \
  "$(A3 python3 "$HERE/client.py" send 1.2.3.11 80 "$(get other.test)")"
expect "ask: transparent: ... two questions" "2" \
  "$(grep -c '"id":"e2e-ask-t","host":"other.test","port":80' "$ASK_LOG")"
for i in 1 2; do
  expect "ask: transparent: allow-always: allowed ($i)" "200 OK" \
    "$(A3 python3 "$HERE/client.py" send 1.2.3.11 80 "$(get other-dns.test)")"
done
expect "ask: transparent: allow-always: one question" "1" \
  "$(grep -c '"id":"e2e-ask-t","host":"other-dns.test","port":80' "$ASK_LOG")"
expect "ask: transparent: raw IP, SNI asked about and denied: reset" "reset" \
  "$(A3 python3 "$HERE/client.py" tls 1.2.3.11 443 denied.test)"
expect "ask: transparent: the question names the SNI" \
  '"id":"e2e-ask-t","host":"denied.test","port":443,"proto":"tcp","via":"sni"' "$(cat "$ASK_LOG")"
expect "ask: transparent: allowed, but the name is not the address's: reset" "reset" \
  "$(A3 python3 "$HERE/client.py" send 1.2.3.10 80 "$(get other.test)")"
expect "ask: transparent: a private original destination: reset" "reset" \
  "$(A3 python3 "$HERE/client.py" send 10.9.2.10 80 "$(get tp-priv.test)")"
expect "ask: transparent: ... without a question" "0" "$(asked tp-priv.test)"
# the approver sends a line over 2 KiB: asking ends, the held connection
# is reset at once (well before the 10 s timeout: a python client takes
# up to 2 s to start on a loaded machine)
start=$(date +%s%N)
out=$(A3 python3 "$HERE/client.py" send 1.2.3.11 80 "$(get huge.test)")
ms=$((($(date +%s%N) - start) / 1000000))
expect "ask: transparent: a line too long from the approver: reset" "reset" "$out"
if [ "$ms" -lt 5000 ]; then ok "ask: ... at once ($ms ms)"; else not_ok "ask: ... at once" "$ms ms"; fi
kill "$ASK_INIT_T"
wait "$ASK_TP_PID"
expect "ask: transparent: the proxy exits 0 with its init" "rc 0" "rc $?"
out=$(python3 - "$ASK_AUDIT_T" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
def has(**want):
    return "yes" if any(all(l.get(k) == v for k, v in want.items()) for l in lines) else "MISSING"
print("once", has(event="ask", host="other.test", via="host", proto="tcp", answer="allow-once"))
print("deny", has(event="ask", host="denied.test", port=443, via="sni", answer="deny"))
print("gone", has(event="ask", host="huge.test", answer="approver-gone"))
print("egress-once", has(event="egress", host="other.test", addr="1.2.3.11", decision="allow",
                         ask="allow-once"))
print("egress-elsewhere", has(event="egress", host="other.test", addr="1.2.3.10", decision="deny"))
print("egress-priv", has(event="egress", host="tp-priv.test", decision="deny",
                         reason="not-allowlisted"))
print("sidecar", "yes" if any(l["event"] == "sidecar" and "longer than 2048" in l.get("detail", "")
                              for l in lines) else "MISSING")
PY
)
for k in once deny gone egress-once egress-elsewhere egress-priv sidecar; do
  expect "ask: transparent audit: $k" "$k yes" "$out"
done
kill "$ASK_APPROVER"
