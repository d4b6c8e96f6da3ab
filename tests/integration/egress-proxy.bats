#!/usr/bin/env bats
# egress-proxy: what the agent can say to its proxy, sent raw with busybox
# nc from inside the container: every parsing trick is refused with its
# reason (never guessed at), SOCKS5 CONNECT by name follows the allowlist
# and BIND / UDP ASSOCIATE are refused, CONNECT reaches allowlisted ports;
# the audit trail has one line per connection that matches what happened
# and nothing from the payload.  The network: helpers/egress.bash.

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

# The raw requests: NAME|STATUS|REASON|REQUEST (printf %b escapes).
TRICKS=(
  'userinfo|400|userinfo|GET http://web.test@other.test/ HTTP/1.1\r\nHost: other.test\r\n\r\n'
  'connect-userinfo|400|userinfo|CONNECT user@web.test:443 HTTP/1.1\r\nHost: web.test:443\r\n\r\n'
  'decimal-ip|400|numeric-ip-form|GET http://16909066/ HTTP/1.1\r\nHost: 16909066\r\n\r\n'
  'octal-ip|400|numeric-ip-form|CONNECT 01.02.03.012:443 HTTP/1.1\r\n\r\n'
  'hex-ip|400|numeric-ip-form|CONNECT 0x1.2.3.10:443 HTTP/1.1\r\n\r\n'
  'short-ip|400|numeric-ip-form|CONNECT 127.1:80 HTTP/1.1\r\n\r\n'
  'zone-id|400|ipv6-zone-id|CONNECT [fe80::1%25lo]:80 HTTP/1.1\r\n\r\n'
  'uri-host-mismatch|400|host-mismatch|GET http://web.test/ HTTP/1.1\r\nHost: other.test\r\n\r\n'
  'connect-host-mismatch|400|host-mismatch|CONNECT web.test:443 HTTP/1.1\r\nHost: other.test:443\r\n\r\n'
  'connect-port-mismatch|400|host-mismatch|CONNECT web.test:443 HTTP/1.1\r\nHost: web.test:22\r\n\r\n'
  'duplicate-host|400|duplicate-host|GET http://web.test/ HTTP/1.1\r\nHost: web.test\r\nHost: other.test\r\n\r\n'
  'obs-fold|400|obs-fold|GET http://web.test/ HTTP/1.1\r\nHost: web.test\r\nX: a\r\n b\r\n\r\n'
  'bare-cr|400|bare-cr|GET http://web.test/ HTTP/1.1\r\nHost: web.test\rX: y\r\n\r\n'
  'bare-lf|400|bare-lf|GET http://web.test/ HTTP/1.1\nHost: web.test\r\n\r\n'
  'space-before-colon|400|space-before-colon|GET http://web.test/ HTTP/1.1\r\nHost : web.test\r\n\r\n'
  'cl-and-te|400|content-length-with-transfer-encoding|POST http://web.test/ HTTP/1.1\r\nHost: web.test\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n'
  'two-cl|400|conflicting-content-length|POST http://web.test/ HTTP/1.1\r\nHost: web.test\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n'
  'bad-version|400|bad-http-version|GET http://web.test/ HTTX/1.1\r\nHost: web.test\r\n\r\n'
  'origin-form|400|not-absolute-form|GET / HTTP/1.1\r\nHost: web.test\r\n\r\n'
  'https-absolute|400|unsupported-scheme|GET https://web.test/ HTTP/1.1\r\nHost: web.test\r\n\r\n'
)

@test "egress: request-parsing tricks are refused with their reason" {
  local script='' t name code reason req
  for t in "${TRICKS[@]}"; do
    IFS='|' read -r name code reason req <<<"$t"
    script+="printf '%s ' '$name'; printf '%b' '$req' | busybox nc -w 3 127.0.0.1 3128 | tr -d '\\r' \
      | grep -e '^HTTP/' -e '^X-Agentrt-Denied' -e 'hello from' | tr '\\n' ' '; echo"$'\n'
  done
  # over-long: a head over 16 KiB, a request line over 8 KiB, over 100 fields
  script+='long=$(head -c 20000 /dev/zero | tr "\0" a)
    printf "head-too-large "; printf "GET http://web.test/ HTTP/1.1\r\nHost: web.test\r\nX: %s\r\n\r\n" "$long" \
      | busybox nc -w 3 127.0.0.1 3128 | tr -d "\r" | grep -e "^HTTP/" -e "^X-Agentrt-Denied" | tr "\n" " "; echo
    printf "first-line-too-long "; printf "GET http://web.test/%s HTTP/1.1\r\nHost: web.test\r\n\r\n" "$(head -c 9000 /dev/zero | tr "\0" a)" \
      | busybox nc -w 3 127.0.0.1 3128 | tr -d "\r" | grep -e "^HTTP/" -e "^X-Agentrt-Denied" | tr "\n" " "; echo
    printf "too-many-headers "; (printf "GET http://web.test/ HTTP/1.1\r\nHost: web.test\r\n"; i=0
      while [ $i -lt 120 ]; do printf "X-%d: y\r\n" $i; i=$((i + 1)); done; printf "\r\n") \
      | busybox nc -w 3 127.0.0.1 3128 | tr -d "\r" | grep -e "^HTTP/" -e "^X-Agentrt-Denied" | tr "\n" " "; echo'
  run_ct sh -c "$script"
  check_status 0
  [[ $output != *"hello from"* ]] || fail "a trick got through:"$'\n'"$output"
  for t in "${TRICKS[@]}"; do
    IFS='|' read -r name code reason _ <<<"$t"
    grep -qx -- "$name HTTP/1.1 $code [A-Za-z ]* X-Agentrt-Denied: $reason *" <<<"$output" \
      || fail "$name: wanted $code $reason:"$'\n'"$output"
  done
  for reason in head-too-large first-line-too-long too-many-headers; do
    grep -qx -- "$reason HTTP/1.1 431 [A-Za-z ]* X-Agentrt-Denied: $reason *" <<<"$output" \
      || fail "$reason: wanted 431:"$'\n'"$output"
  done
  # each refusal is in the audit trail, with its reason
  local denied
  denied=$(egress_events | jq -r 'select(.decision == "deny") | .reason')
  for t in "${TRICKS[@]}"; do
    IFS='|' read -r name code reason _ <<<"$t"
    grep -qx -- "$reason" <<<"$denied" || fail "no audit line for $name ($reason): $denied"
  done
}

@test "egress: SOCKS5 CONNECT by name follows the allowlist; BIND and UDP ASSOCIATE are refused" {
  requires_curl
  # s5 REQUEST: the no-auth greeting, then VER CMD RSV ATYP ADDR PORT
  # (octal escapes; ATYP 3 is a name with its length, 1 an IPv4 address);
  # the first 12 bytes of the replies in hex
  run_ct sh -c '
    s5 () { printf "\005\001\000\005$1" | busybox nc -w 2 127.0.0.1 1080 | od -An -tx1 -N12 | tr -s " " | sed "s/^ //"; }
    printf "web "; s5 "\001\000\003\010web.test\000\120"
    printf "other "; s5 "\001\000\003\012other.test\000\120"
    printf "bind "; s5 "\002\000\001\313\000\161\012\000\120"
    printf "udp "; s5 "\003\000\001\000\000\000\000\000\000"
    printf "curl-web "; /host/usr/bin/curl -sS --socks5-hostname 127.0.0.1:1080 http://web.test/
    printf "curl-other "; /host/usr/bin/curl -sS --socks5-hostname 127.0.0.1:1080 http://other.test/ 2>&1; echo
    printf "curl-metadata "; /host/usr/bin/curl -sS --socks5-hostname 127.0.0.1:1080 http://metadata.test/ 2>&1; echo'
  # method 00 (no auth), then the reply code: 00 granted, 02 not allowed,
  # 07 command not supported
  has_line "web 05 00 05 00 00 01 00 00 00 00 00 00"
  has_line "other 05 00 05 02 00 01 00 00 00 00 00 00"
  has_line "bind 05 00 05 07 00 01 00 00 00 00 00 00"
  has_line "udp 05 00 05 07 00 01 00 00 00 00 00 00"
  has_line "curl-web hello from web"
  [[ $output == *"curl-other curl: (97)"*"(2)"* ]] || fail "$output"
  [[ $output == *"curl-metadata curl: (97)"*"(2)"* ]] || fail "$output"
  egress_events | jq -se 'any(.[]; .proto == "socks5" and .reason == "unsupported-command")' >/dev/null \
    || fail "$(egress_events)"
}

@test "egress: CONNECT reaches allowlisted ports only (echo on 22 and 443)" {
  run_ct sh -c "
    printf 'c22 '; printf 'CONNECT web.test:22 HTTP/1.1\r\nHost: web.test:22\r\n\r\nping\n' \
      | busybox nc -w 2 127.0.0.1 3128 | tr -d '\r' | grep -e '^HTTP' -e echo -e ping | tr '\n' ' '; echo
    printf 'c443 '; printf 'CONNECT web.test:443 HTTP/1.1\r\nHost: web.test:443\r\n\r\nping\n' \
      | busybox nc -w 2 127.0.0.1 3128 | tr -d '\r' | grep -e '^HTTP' -e echo -e ping | tr '\n' ' '; echo
    printf 'other22 '; printf 'CONNECT other.test:22 HTTP/1.1\r\nHost: other.test:22\r\n\r\n' \
      | busybox nc -w 2 127.0.0.1 3128 | tr -d '\r' | grep -e '^HTTP' -e '^X-Agentrt' | tr '\n' ' '; echo
    printf 'www22 '; printf 'CONNECT www.web.test:22 HTTP/1.1\r\nHost: www.web.test:22\r\n\r\n' \
      | busybox nc -w 2 127.0.0.1 3128 | tr -d '\r' | grep -e '^HTTP' -e '^X-Agentrt' | tr '\n' ' '; echo"
  has_line "c22 HTTP/1.1 200 Connection established echo web ping "
  has_line "c443 HTTP/1.1 200 Connection established echo web ping "
  has_line "other22 HTTP/1.1 403 Forbidden X-Agentrt-Denied: not-allowlisted "
  has_line "www22 HTTP/1.1 403 Forbidden X-Agentrt-Denied: not-allowlisted "
}

@test "egress: the audit trail matches what happened and holds no payload" {
  requires_curl
  new_canary
  run_ct sh -c "
    /host/usr/bin/curl -sS -H 'X-Secret: $CANARY' 'http://web.test/?q=$CANARY' >/dev/null
    /host/usr/bin/curl -sS --data-binary 'body-$CANARY' http://web.test/echo
    echo
    /host/usr/bin/curl -sS -p http://www.web.test/bytes/5000 | wc -c
    /host/usr/bin/curl -sS http://other.test/ >/dev/null
    /host/usr/bin/curl -sS http://metadata.test/ >/dev/null
    /host/usr/bin/curl -sS http://loop.test/ >/dev/null
    printf 'CONNECT web.test:22 HTTP/1.1\r\n\r\n$CANARY\n' | busybox nc -w 2 127.0.0.1 3128 >/dev/null"
  has_line "body-$CANARY"
  has_line 5000
  local events
  events=$(egress_events)
  # every line: the contract's fields, this container
  jq -se --arg id "$CT_ID" 'length >= 6 and all(.[];
      (keys == (["addr", "bytes_down", "bytes_up", "decision", "duration_ms", "event", "host",
                 "id", "port", "proto", "reason", "time"])) and .id == $id)' <<<"$events" >/dev/null \
    || fail "bad audit lines:"$'\n'"$events"
  local want
  for want in \
    '.proto == "http" and .host == "web.test" and .port == 80 and .addr == "1.2.3.10" and .decision == "allow" and .bytes_down > 0 and .bytes_up > 0' \
    '.proto == "connect" and .host == "www.web.test" and .port == 80 and .decision == "allow" and .bytes_down > 5000' \
    '.proto == "connect" and .host == "web.test" and .port == 22 and .decision == "allow"' \
    '.host == "other.test" and .decision == "deny" and .reason == "not-allowlisted" and .addr == null' \
    '.host == "metadata.test" and .addr == "169.254.169.254" and .decision == "deny" and .reason == "address-metadata"' \
    '.host == "loop.test" and .addr == "127.0.0.1" and .decision == "deny" and .reason == "address-loopback"'; do
    jq -se "any(.[]; $want)" <<<"$events" >/dev/null || fail "no audit line with $want in:"$'\n'"$events"
  done
  # the denied ones never reached a server: no bytes
  jq -se 'all(.[] | select(.decision == "deny"); .bytes_up == 0 and .bytes_down == 0)' <<<"$events" >/dev/null \
    || fail "$events"
  no_canary_in "$AUDIT_DIR"
  [[ $events != *"hello from"* && $events != *"echo web"* ]] || fail "response payload in the audit"
}
