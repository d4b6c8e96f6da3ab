#!/usr/bin/env bats
# audit-summary: `agentrt audit --summary` adds up every trail of the audit
# dir: on crafted trails whose figures are known (table and JSON), on
# damaged ones (every damaged line skipped and counted, never a crash, the
# sound trails beside them still counted), on trails that fail the checks
# `agentrt audit ID` makes (not read, listed with the reason), with
# --since, and on what a real hardened container writes.  (runc has no
# audit trail: there is no control runtime to run these against.)

load helpers
load helpers/hardening

setup ()
{
  setup_bundle || return 1
  requires agentrt
  hardening_policy || return 1
  mkdir -m 0700 "$AUDIT_DIR"
}

# write_trail ID: the trail ID.jsonl in the audit dir, from stdin, with
# the mode agentrt gives its trails.
write_trail ()
{
  (umask 077 && cat >"$AUDIT_DIR/$1.jsonl")
}

# summary ARGS...: `agentrt audit --summary ARGS`; the JSON one also in
# $json (and it must be JSON).
summary ()
{
  rt audit --summary "$@"
}
summary_json ()
{
  rt audit --summary --format json "$@"
  check_status 0 || return 1
  json=$output
  jq -e . >/dev/null <<<"$json" || fail "not JSON: $json"
}

# jq_is FILTER WANT: the summary's JSON says WANT at FILTER.
jq_is ()
{
  local got
  got=$(jq -c "$1" <<<"$json")
  [[ $got == "$2" ]] || fail "$1 is $got, expected $2"
}

# has_row TEXT: the table has a line that is exactly TEXT.
has_row ()
{
  grep -qxF -- "$1" <<<"$output" || fail "no line '$1' in:
$output"
}

# crafted_trails: three containers' trails, as agentrt writes them, whose
# figures the tests know.
crafted_trails ()
{
  write_trail web <<'EOF'
{"time":"2026-11-29T14:00:00.000000001Z","id":"web","event":"create","hardened":true,"directives":{"rootfs":"readonly","seccompProfile":"/usr/share/agentrt/agent-default.json","lifetime":86400,"egress":"proxy","egressAllow":"pypi.org","egressAllowBroad":false,"envKeep":[]},"changes":[{"kind":"env-removed","what":"GITHUB_TOKEN","why":"known credential variable"},{"kind":"env-removed","what":"OPENAI_API_KEY","why":"known credential variable"},{"kind":"env-removed","what":"DB_URL","why":"value is a URL with a password"},{"kind":"path-masked","what":"/home/u/.ssh","why":"credential path .ssh in the bind mount /home/u"},{"kind":"mount-dropped","what":"/var/run/docker.sock (source /run/docker.sock)","why":"the source is a unix socket"},{"kind":"capability","what":"CAP_SYS_ADMIN","why":"not in the safe set"}]}
{"time":"2026-11-29T14:00:01.000Z","event":"egress","id":"web","proto":"connect","host":"pypi.org","port":443,"addr":"151.101.0.223","decision":"allow","reason":"ok","bytes_up":900,"bytes_down":52000,"duration_ms":300}
{"time":"2026-11-29T14:00:02.000Z","event":"egress","id":"web","proto":"connect","host":"pypi.org","port":443,"addr":"151.101.0.223","decision":"allow","reason":"ok","bytes_up":900,"bytes_down":52000,"duration_ms":300}
{"time":"2026-11-29T14:00:03.000Z","event":"egress","id":"web","proto":"http","host":"169.254.169.254","port":80,"addr":"169.254.169.254","decision":"deny","reason":"address-metadata","bytes_up":0,"bytes_down":0,"duration_ms":0}
{"time":"2026-11-29T14:00:04.000Z","event":"egress","id":"web","proto":"connect","host":"evil.example","port":443,"addr":null,"decision":"deny","reason":"not-allowlisted","bytes_up":0,"bytes_down":0,"duration_ms":0}
{"time":"2026-11-29T14:00:05.000000000Z","id":"web","event":"exec","program":"sh","changes":[{"kind":"env-removed","what":"AWS_SECRET_ACCESS_KEY","why":"known credential variable"}]}
{"time":"2026-11-29T14:04:00.000000000Z","id":"web","event":"exit","status":0,"lifetime_ms":240000}
EOF
  write_trail bomb <<'EOF'
{"time":"2026-11-29T14:10:00.000000000Z","id":"bomb","event":"create","hardened":true,"directives":{"rootfs":"writable","seccompProfile":null,"egressAllowBroad":true,"envKeep":["GPG_KEY"]},"changes":[{"kind":"env-kept","what":"GPG_KEY","why":"run.agentrt.env.keep; name matches *_KEY (a key with a qualifier)"}]}
{"time":"2026-11-29T14:10:01.000000000Z","id":"bomb","event":"limit","limit":"pids","detail":"pids.max reached (1024)"}
{"time":"2026-11-29T14:10:01.500000000Z","id":"bomb","event":"limit","limit":"pids","detail":"pids.max reached (1024)"}
{"time":"2026-11-29T14:10:02.000000000Z","id":"bomb","event":"limit","limit":"oom","detail":"memory.max reached"}
{"time":"2026-11-29T14:10:03.000000000Z","id":"bomb","event":"exit","signal":9,"lifetime_ms":3000}
{"time":"2026-11-30T14:10:00.000000000Z","id":"bomb","event":"create","hardened":false,"reason":"hardening is off in the admin policy"}
{"time":"2026-11-30T14:10:00.000000000Z","id":"bomb","event":"limit","limit":"lifetime","detail":"lifetime of 60 s reached"}
{"time":"2026-11-30T14:11:00.000000000Z","id":"bomb","event":"exit","signal":9,"lifetime_ms":60000}
EOF
  write_trail idle <<'EOF'
{"time":"2026-11-30T15:00:00.000000000Z","id":"idle","event":"create","hardened":true,"directives":{"rootfs":"readonly","seccompProfile":"/p","envKeep":[]},"changes":[]}
EOF
}

@test "audit --summary: crafted trails, every figure in the table and the JSON" {
  crafted_trails
  summary
  check_status 0
  has_row "agentrt audit summary: 3 trails in $AUDIT_DIR"
  has_row "containers run      4 (3 hardened, 1 with the hardening off; 1 hardened without an exit yet)"
  has_row "lifetime            median 1m00s, p95 4m00s, max 4m00s (of 3 exits)"
  has_row "exits               3, by cause:"
  has_row "limit hits          memory 1 in 1 container, pids 2 in 1 container, lifetime 1 in 1 container"
  has_row "egress allowed      2 connections to 1 host"
  has_row "           2  pypi.org"
  has_row "egress denied       2 connections to 2 hosts"
  has_row "           1  169.254.169.254"
  has_row "           1  address-metadata"
  has_row "secrets removed     4 (1 kept by run.agentrt.env.keep), by reason:"
  has_row "           3  known credential variable"
  has_row "paths masked        1: credential 1"
  has_row "mounts dropped      1: socket 1"
  has_row "  hardening=off: 1 container: bomb"
  has_row "  rootfs=writable: 1 container: bomb"
  has_row "  env.keep=GPG_KEY: 1 container: bomb"
  has_row "  seccomp.profile=null: 1 container: bomb"
  has_row "  egress.allowBroad=true: 1 container: bomb"
  has_row "damaged lines       0 of 16 lines, in 0 trails (skipped)"

  summary_json
  jq_is .containers '{"run":4,"hardened":3,"hardeningOff":1,"exited":3,"withoutExit":1}'
  jq_is .lifetimeMs '{"count":3,"median":60000,"p95":240000,"max":240000}'
  jq_is '[.exits.top[] | "\(.cause)=\(.count)"] | sort' '["lifetime=1","oom=1","status 0=1"]'
  jq_is .limits '{"memory":{"hits":1,"containers":1},"pids":{"hits":2,"containers":1},"lifetime":{"hits":1,"containers":1},"other":{"hits":0,"containers":0}}'
  jq_is .egress.allowed.top '[{"host":"pypi.org","count":2}]'
  jq_is '[.egress.denied.top[].host] | sort' '["169.254.169.254","evil.example"]'
  jq_is '.egress.deniedReasons.total' 2
  jq_is '.secretsRemoved.top[0]' '{"reason":"known credential variable","count":3}'
  jq_is .secretsKept 1
  jq_is .pathsMasked '{"total":1,"credential":1,"socket":0,"other":0}'
  jq_is .mountsDropped '{"total":1,"credential":0,"socket":1,"other":0}'
  jq_is '[.loosened[] | "\(.knob)=\(.value):\(.containers | join(","))"]' \
    '["egress.allowBroad=true:bomb","env.keep=GPG_KEY:bomb","hardening=off:bomb","rootfs=writable:bomb","seccomp.profile=null:bomb"]'
  jq_is .lines '{"read":16,"damaged":0,"damagedTrails":0,"firstDamaged":null,"unknownEvents":0}'
}

@test "audit --summary: the sidecar's dns, inject and ask lines are counted, none as unknown" {
  # as runtime/egress/audit.c writes them (docs/egress.md, *Audit*)
  write_trail agent <<'EOF'
{"time":"2026-11-29T14:00:00.000000000Z","id":"agent","event":"create","hardened":true,"directives":{"rootfs":"readonly","seccompProfile":"/p","envKeep":[]},"changes":[]}
{"time":"2026-11-29T14:00:01.000Z","event":"dns","id":"agent","proto":"udp","name":"pypi.org","type":"A","decision":"allow","reason":"ok","answers":2,"ttl":60}
{"time":"2026-11-29T14:00:02.000Z","event":"dns","id":"agent","proto":"udp","name":"c2VjcmV0.leak.example","type":"TXT","decision":"deny","reason":"not-allowlisted","answers":0,"ttl":0}
{"time":"2026-11-29T14:00:03.000Z","event":"inject","id":"agent","credential":"github","host":"api.github.com","port":443,"request":"GET /user"}
{"time":"2026-11-29T14:00:04.000Z","event":"egress","id":"agent","proto":"connect","via":"proxy","host":"paste.example","port":443,"addr":"10.0.0.9","decision":"allow","reason":"ok","bytes_up":10,"bytes_down":10,"duration_ms":1,"tls_intercepted":true,"standin":"github"}
{"time":"2026-11-29T14:00:05.000Z","event":"ask","id":"agent","qid":1,"proto":"connect","via":"proxy","host":"new.example","port":443,"answer":"deny","approver_uid":0,"wait_ms":900,"held":1}
EOF
  summary
  check_status 0
  has_row "dns allowed         1 query for 1 name"
  has_row "dns denied          1 query for 1 name"
  has_row "           1  c2VjcmV0.leak.example"
  has_row "credentials added   1, by credential:"
  has_row "stand-ins unchanged 1, by credential:"
  has_row "questions asked     1, by answer:"
  has_row "           1  deny"
  [[ $output != *"unknown events"* ]] || fail "$output"
  summary_json
  jq_is .lines.unknownEvents 0
  jq_is .dns.denied.top '[{"name":"c2VjcmV0.leak.example","count":1}]'
  jq_is .dns.deniedReasons.top '[{"reason":"not-allowlisted","count":1}]'
  jq_is .credentialsAdded.top '[{"credential":"github","count":1}]'
  jq_is .standinsUnchanged.top '[{"credential":"github","count":1}]'
  jq_is .asked.top '[{"answer":"deny","count":1}]'
}

@test "audit --summary: damaged lines are skipped and counted, never a crash" {
  crafted_trails
  # every way a line can be damaged, between sound lines of one trail
  {
    echo '{"time":"2026-11-29T16:00:00Z","id":"bad","event":"create","hardened":false}'
    echo 'not json at all'
    printf '\x00\x01\x02\xff\xfe\n'
    echo '{"time":"2026-11-29T16:00:01Z","event":"exit","status":"0"}'
    echo '{"time":"2026-11-29T16:00:01Z","event":"exit","status":256}'
    echo '{"time":"2026-11-29T16:00:01Z","event":"exit","signal":9,"status":0}'
    echo '{"time":"2026-13-01T00:00:00Z","event":"exit","status":0}'
    echo '{"time":"2026-11-29T16:00:01Z","event":"egress","decision":"maybe"}'
    echo '{"time":"2026-11-29T16:00:01Z","event":"exit","status":0,"lifetime_ms":18446744073709551616}'
    echo '{"time":"2026-11-29T16:00:01Z","event":"create","hardened":true,"directives":{},"changes":[{"kind":7}]}'
    printf '%0.s[' {1..5000}; echo
    echo
    echo '{"time":"2026-11-29T16:00:02Z","event":"exit","status":3,"lifetime_ms":1}'
    printf '{"time":"2026-11-29T16:00:03Z","event":"exi'
  } | write_trail bad
  # a line of 17 MiB, beyond what is read whole, then a sound one
  {
    printf '{"time":"2026-11-29T16:00:00Z","event":"sidecar","detail":"'
    head -c $((17 << 20)) /dev/zero | tr '\0' a
    echo '"}'
    echo '{"time":"2026-11-29T16:00:02Z","event":"exit","status":4,"lifetime_ms":1}'
  } | write_trail long
  : | write_trail empty
  head -c 100000 /dev/urandom | write_trail noise
  echo 'not a trail' >"$AUDIT_DIR/README"
  summary
  check_status 0
  [[ ${#lines[@]} -gt 20 ]] || fail "$output"
  summary_json
  # noise: each of its lines, and its last bytes after the last newline
  local noise
  noise=$(tr -cd '\n' <"$AUDIT_DIR/noise.jsonl" | wc -c)
  [[ $(tail -c 1 "$AUDIT_DIR/noise.jsonl" | od -An -tx1) == " 0a" ]] || noise=$((noise + 1))
  jq_is .lines.damaged $((13 + noise))
  jq_is .lines.damagedTrails 3
  jq_is .trails.read 7
  [[ $(jq -r .lines.firstDamaged <<<"$json") == "bad:2: audit"* ]] || fail "$json"
  # the sound lines around them, and the other trails, still count
  jq_is .containers.run 5
  jq_is '[.exits.top[] | "\(.cause)=\(.count)"] | sort' '["lifetime=1","oom=1","status 0=1","status 3=1","status 4=1"]'
  jq_is .sidecarsStopped 0
}

@test "audit --summary: a trail that fails the checks is listed, not read; the others are" {
  crafted_trails
  write_trail loose <<<'{"time":"2026-11-29T16:00:00Z","event":"create","hardened":false}'
  chmod 0666 "$AUDIT_DIR/loose.jsonl"
  ln -s web.jsonl "$AUDIT_DIR/link.jsonl"
  mkfifo "$AUDIT_DIR/fifo.jsonl"
  mkdir "$AUDIT_DIR/dir.jsonl"
  ln "$AUDIT_DIR/idle.jsonl" "$BATS_TEST_TMPDIR/idle-again"
  summary
  check_status 0
  has_row "trails refused      5 (not read)"
  has_row "  loose: audit: \`$AUDIT_DIR/loose.jsonl\` is writable by anyone (mode 0666)"
  has_row "  link: audit: \`$AUDIT_DIR/link.jsonl\` is a symlink (not followed)"
  has_row "  fifo: audit: \`$AUDIT_DIR/fifo.jsonl\` is not a regular file"
  has_row "  dir: audit: \`$AUDIT_DIR/dir.jsonl\` is not a regular file"
  has_row "  idle: audit: \`$AUDIT_DIR/idle.jsonl\` has 2 links (another name for the same file exists)"
  summary_json
  jq_is .trails.read 2
  jq_is .trails.refused 5
  jq_is .containers.run 3
  # nothing was touched
  [[ $(stat -c %a "$AUDIT_DIR/loose.jsonl") == 666 && -p $AUDIT_DIR/fifo.jsonl ]] || fail "changed"
}

@test "audit --summary --since: the events at or after the time, and older trails left unread" {
  crafted_trails
  summary_json --since 2026-11-30T00:00:00Z
  # bomb's second run and idle; web's events are all before
  jq_is .containers '{"run":2,"hardened":1,"hardeningOff":1,"exited":1,"withoutExit":1}'
  jq_is .lifetimeMs.count 1
  jq_is '[.exits.top[] | "\(.cause)=\(.count)"]' '["lifetime=1"]'
  jq_is .egress.allowed.total 0
  jq_is .since '"2026-11-30T00:00:00Z"'
  summary_json --since 2026-11-30T14:10:00.5+00:00
  jq_is .containers.run 1
  summary_json --since 2026-11-29
  jq_is .containers.run 4
  # a trail last written before the time is not read at all
  touch -d '2026-11-29 15:00:00 UTC' "$AUDIT_DIR/web.jsonl"
  touch -d '2026-12-01 00:00:00 UTC' "$AUDIT_DIR/bomb.jsonl" "$AUDIT_DIR/idle.jsonl"
  summary_json --since 2026-11-29T16:00:00Z
  jq_is .trails '{"read":2,"older":1,"refused":0,"refusedTrails":[]}'
  summary --since 2026-11-29T16:00:00Z
  has_row "agentrt audit summary: 2 trails in $AUDIT_DIR, events since 2026-11-29T16:00:00Z (1 trail last written before: not read)"
  # a time ago: now's events count
  rm "$AUDIT_DIR"/*.jsonl
  write_trail old <<<'{"time":"2000-01-01T00:00:00Z","event":"create","hardened":false}'
  local now
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  write_trail fresh <<<"{\"time\":\"$now\",\"event\":\"create\",\"hardened\":false}"
  summary_json --since 1h
  jq_is .containers.run 1
  jq_is '.loosened[0].containers' '["fresh"]'
}

@test "audit --summary: its options, and a wrong one is one line" {
  crafted_trails
  summary_json --top 1
  jq_is '.egress.denied.top | length' 1
  jq_is .egress.denied.rest 1
  summary -f json --top 0
  check_status 0
  jq -e '.egress.denied.top | length == 2' >/dev/null <<<"$output" || fail "$output"
  summary --top 1
  check_status 0
  has_row "           1  (1 more)"
  local args
  for args in "--since yesterday" "--since 2026-02-30" "--format yaml" "--top -1" "--top x" "web"; do
    # shellcheck disable=SC2086
    summary $args
    check_status 1
    [[ ${#lines[@]} -eq 1 && $output == *audit* ]] || fail "$args: $output"
  done
  for args in "--since 1h web" "--format json web" "--top 3 web"; do
    # shellcheck disable=SC2086
    rt audit $args
    check_status 1
    [[ ${#lines[@]} -eq 1 && $output == *"goes with --summary"* ]] || fail "$args: $output"
  done
  # the audit dir itself is judged as for `agentrt audit ID`
  chmod 0777 "$AUDIT_DIR"
  summary
  check_status 1
  [[ ${#lines[@]} -eq 1 && $output == *"\`$AUDIT_DIR\` is writable by anyone (mode 0777)"* ]] || fail "$output"
  chmod 0700 "$AUDIT_DIR"
  rm -r "$AUDIT_DIR"
  summary
  check_status 1
  [[ ${#lines[@]} -eq 1 && $output == *"\`$AUDIT_DIR\`"*"No such file or directory"* ]] || fail "$output"
}

@test "audit --summary: what real containers wrote, hardened and with the hardening off" {
  requires root
  add_env GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz
  add_annotation run.agentrt.egress.allow allowed.example
  run_ct sh -c 'busybox wget -q -O /dev/null http://blocked.example/ 2>&1; exit 7'
  check_status 7
  # the same bundle with the hardening off, in the same audit dir
  jq --arg a "$AUDIT_DIR" -n '{version: 1, hardening: "off", audit: {dir: $a}}' >"$BATS_TEST_TMPDIR/off.json"
  use_policy "$BATS_TEST_TMPDIR/off.json"
  rt run --bundle "$BUNDLE" "$CT_ID-2"
  check_status 7
  use_policy "$POLICY"
  summary_json
  # with the hardening off no monitor watches the container: no exit line
  jq_is .containers '{"run":2,"hardened":1,"hardeningOff":1,"exited":1,"withoutExit":0}'
  jq_is '[.exits.top[] | "\(.cause)=\(.count)"]' '["status 7=1"]'
  jq_is '.secretsRemoved.top' '[{"reason":"known credential variable","count":1}]'
  jq_is '.egress.denied.top' '[{"host":"blocked.example","count":1}]'
  jq_is '.egress.deniedReasons.top[0].reason' '"not-allowlisted"'
  jq_is '[.loosened[] | "\(.knob)=\(.value):\(.containers | join(","))"]' "[\"hardening=off:$CT_ID-2\"]"
  jq_is .lines.damaged 0
  [[ $(jq .lifetimeMs.max <<<"$json") -gt 0 ]] || fail "$json"
}
