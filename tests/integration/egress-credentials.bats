#!/usr/bin/env bats
# egress-credentials: a credential the agent can use but never read
# (credentials.inject, run.agentrt.credentials).  Against the test's
# "internet" (helpers/egress.bash) plus an HTTPS API (api.test:8443) whose
# certificate a test CA signs (the policy's credentials.trustStore): the
# agent's variable holds a stand-in, its request with the stand-in reaches
# the API with the real value, through the proxy and through the
# transparent path (a client that ignores the proxy variables); the value is in no variable, no /proc/*/
# environ, no readable file of the container and no process memory (what a
# core dump would hold), nor the monitor's memory once it handed the value
# over, read from the host while the agent runs; under
# runc, the control, the same bundle carrying the value the way it is done
# without agentrt (env) shows the same search finds it.  A value that
# cannot be read, a name the policy does not declare: create refused,
# naming it.  Next to an approver (egress.ask) both reach the sidecar.

load helpers
load helpers/hardening
load helpers/egress

CURL=/host/usr/bin/curl

setup_file ()
{
  egress_net_up || return 1
  [[ -n ${EGRESS_SRV:-} ]] || return 0
  command -v openssl >/dev/null || return 0
  local c=$BATS_FILE_TMPDIR/creds dev py
  mkdir -p "$c"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=test-root -keyout "$c/root.key" -out "$c/root.pem" 2>/dev/null || return 1
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=api.test \
    -keyout "$c/api.key" -out "$c/api.csr" 2>/dev/null || return 1
  printf 'subjectAltName=DNS:api.test\n' >"$c/api.ext"
  openssl x509 -req -in "$c/api.csr" -CA "$c/root.pem" -CAkey "$c/root.key" -CAcreateserial \
    -days 2 -extfile "$c/api.ext" -out "$c/api.pem" 2>/dev/null || return 1
  CRED_TOKEN=ghp_real$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  printf '%s\n' "$CRED_TOKEN" >"$c/token"
  chmod 600 "$c/token"
  dev=$(ip -n "$EGRESS_SRV" -o link show type veth | awk -F': ' '{ print $2 }' | cut -d@ -f1)
  ip -n "$EGRESS_SRV" addr add 1.2.3.12/24 dev "$dev" || return 1
  printf '1.2.3.12 api.test\n' >>"$EGRESS_HOSTS"
  py=$(_egress_python)
  (cd / && SERVER_NAME=api TLS_CERT=$c/api.pem TLS_KEY=$c/api.key EXPECT_TOKEN=$CRED_TOKEN \
    exec ip netns exec "$EGRESS_SRV" "$py" "$INTEGRATION_DIR/../egress/server.py" https \
    1.2.3.12 8443 </dev/null >/dev/null 2>&1) &
  CRED_SERVER_PID=$!
  CRED_DIR=$c
  export CRED_TOKEN CRED_SERVER_PID CRED_DIR
}

teardown_file ()
{
  [[ -z ${CRED_SERVER_PID:-} ]] || { kill "$CRED_SERVER_PID"; wait "$CRED_SERVER_PID"; } 2>/dev/null
  egress_net_down
}

setup ()
{
  # the test knows the value; the runtime (and the monitor it forks, whose
  # environ is searched) must not get it but from the policy's source
  export -n CRED_TOKEN
  egress_setup 'web.test,api.test:8443' || return 1
  [[ -n ${CRED_DIR:-} ]] || skip "openssl is not installed (the test's certificates)"
  requires_curl
  hardening_policy '.credentials = {trustStore: $t, inject: [{name: "GH", source: ("file:" + $f),
      hosts: ["api.test"]}]}' --arg t "$CRED_DIR/root.pem" --arg f "$CRED_DIR/token" || return 1
}

teardown ()
{
  teardown_bundle
}

# token_found [--no-files] PID...: where the value is, read from the
# host: each process's environ and readable memory (what a core dump
# holds), and the files of the first one's root (not /proc, /sys, /host;
# not with --no-files); prints the places.
token_found ()
{
  python3 - "$CRED_TOKEN" "$@" <<'PY'
import os, re, sys
token, pids = sys.argv[1].encode(), sys.argv[2:]
files = pids[:1] != ["--no-files"]
pids = pids if files else pids[1:]
for pid in pids:
    try:
        if token in open("/proc/%s/environ" % pid, "rb").read():
            print("environ", pid)
        mem = open("/proc/%s/mem" % pid, "rb", 0)
        for line in open("/proc/%s/maps" % pid):
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) r", line)
            if not m or "[vvar]" in line or "[vsyscall]" in line:
                continue
            start, end = int(m.group(1), 16), int(m.group(2), 16)
            if end - start > 256 << 20:
                continue
            try:
                mem.seek(start)
                if token in mem.read(end - start):
                    print("memory", pid, line.split()[-1] if len(line.split()) > 5 else "anon")
            except OSError:
                pass
    except OSError:
        pass
root = "/proc/%s/root" % pids[0]
for top in os.listdir(root) if files else []:
    if top in ("proc", "sys", "host"):
        continue
    for d, dirs, files in os.walk(os.path.join(root, top)):
        for f in files:
            p = os.path.join(d, f)
            try:
                if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) < 16 << 20 \
                   and token in open(p, "rb").read():
                    print("file", p[len(root):])
            except OSError:
                pass
PY
}

# ct_pids PID: every process in the pid namespace of PID.
ct_pids ()
{
  local ns p
  ns=$(readlink "/proc/$1/ns/pid")
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/ns/pid" 2>/dev/null) == "$ns" ]] && echo "${p#/proc/}"
  done
}

@test "credentials: the API gets the real value, the agent holds a stand-in" {
  add_annotation run.agentrt.credentials GH
  run_ct sh -c "printf 'env: %s\n' \"\$GH\"; printf 'ca: %s\n' \"\$SSL_CERT_FILE\"
    $CURL -sS -H \"Authorization: Bearer \$GH\" https://api.test:8443/api"
  [[ $status -eq 0 ]] || fail "status $status: $output"$'\n'"$(cat "$AUDIT_DIR"/*.jsonl)"
  [[ $output =~ env:\ agentrt-standin-[0-9a-f]{32} ]] || fail "no stand-in: $output"
  has_line "ca: /run/agentrt/ca-bundle.pem"
  has_line "real token received"
  [[ $output != *"$CRED_TOKEN"* ]] || fail "the value reached the agent"
  grep -q '"event":"inject".*"credential":"GH".*"host":"api.test".*"request":"GET /api"' \
    "$AUDIT_DIR"/*.jsonl || fail "no inject line: $(cat "$AUDIT_DIR"/*.jsonl)"
  ! grep -q -- "$CRED_TOKEN" "$AUDIT_DIR"/*.jsonl || fail "the value is in the audit trail"
}

@test "credentials: the image's bundle at any usual path trusts the CA too; a device node there is never read" {
  # Fedora's two paths (one a file, one the symlink OpenSSL's default is
  # there), and at Debian's path a node of the host's /dev/urandom: read by
  # the runtime, its bytes would be the agent's bundle
  local pki=$ROOTFS/etc/pki
  mkdir -p "$pki/tls/certs" "$pki/ca-trust/extracted/pem" "$ROOTFS/etc/ssl/certs"
  printf 'IMAGE-CA-MARKER\n' >"$pki/ca-trust/extracted/pem/tls-ca-bundle.pem"
  ln -s ../../ca-trust/extracted/pem/tls-ca-bundle.pem "$pki/tls/certs/ca-bundle.crt"
  printf 'SUSE-CA-MARKER\n' >"$ROOTFS/etc/ssl/ca-bundle.pem"
  mknod "$ROOTFS/etc/ssl/certs/ca-certificates.crt" c 1 9
  add_annotation run.agentrt.credentials GH
  run_ct sh -c 'b=/run/agentrt/ca-bundle.pem
    for f in /etc/pki/tls/certs/ca-bundle.crt /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem \
      /etc/ssl/ca-bundle.pem; do cmp -s "$f" "$b" && echo "same: $f"; done
    echo "node: $(stat -c %F /etc/ssl/certs/ca-certificates.crt)"
    echo "junk: $(grep -cv -e "^-----" -e "^[A-Za-z0-9+/=]*\$" -e "^IMAGE-CA-MARKER\$" "$b")"
    grep -c "BEGIN CERTIFICATE" "$b" | sed "s/^/certs: /"'
  check_status 0
  has_line "same: /etc/pki/tls/certs/ca-bundle.crt"
  has_line "same: /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"
  has_line "same: /etc/ssl/ca-bundle.pem"
  has_line "node: character special file"
  has_line "junk: 0"
  has_line "certs: 1"
}

@test "credentials: a bundle path that is a symlink out of the list (Arch's) trusts the CA too, bound once; a directory there is left alone" {
  # Arch: /etc/ssl/certs/ca-certificates.crt and /etc/ssl/cert.pem both
  # lead to /etc/ca-certificates/extracted/tls-ca-bundle.pem, here through
  # a second symlink; openSUSE's path a directory
  local ex=$ROOTFS/etc/ca-certificates/extracted
  mkdir -p "$ex" "$ROOTFS/etc/ssl/certs" "$ROOTFS/etc/ssl/ca-bundle.pem"
  printf 'IMAGE-CA-MARKER\n' >"$ex/tls-ca-bundle.pem"
  ln -s tls-ca-bundle.pem "$ex/link.pem"
  rm -f "$ROOTFS/etc/ssl/certs/ca-certificates.crt" "$ROOTFS/etc/ssl/cert.pem"
  ln -s ../../ca-certificates/extracted/link.pem "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
  ln -s ../ca-certificates/extracted/tls-ca-bundle.pem "$ROOTFS/etc/ssl/cert.pem"
  add_annotation run.agentrt.credentials GH
  run_ct sh -c 'b=/run/agentrt/ca-bundle.pem
    for f in /etc/ssl/certs/ca-certificates.crt /etc/ssl/cert.pem; do cmp -s "$f" "$b" && echo "same: $f"; done
    grep -c "^IMAGE-CA-MARKER\$" "$b" | sed "s/^/image: /"
    echo "dir: $(stat -c %F /etc/ssl/ca-bundle.pem)"
    grep -c " /etc/ca-certificates/extracted/tls-ca-bundle.pem " /proc/self/mountinfo | sed "s/^/mounts: /"'
  check_status 0
  has_line "same: /etc/ssl/certs/ca-certificates.crt"
  has_line "same: /etc/ssl/cert.pem"
  has_line "image: 1"
  has_line "dir: directory"
  has_line "mounts: 1"
}

@test "credentials: a bundle in a directory the engine binds (the host's /etc/ssl/certs) is the one read and bound over" {
  # Kubernetes manifests often bind the host's /etc/ssl/certs; the image
  # has no bundle of its own there
  local certs=$BATS_TEST_TMPDIR/host-certs
  mkdir -p "$certs"
  printf 'HOST-CA-MARKER\n' >"$certs/ca-certificates.crt"
  rm -rf "$ROOTFS/etc/ssl"
  update_config '.mounts += [{destination: "/etc/ssl/certs", type: "bind", source: $d,
    options: ["rbind", "ro"]}]' --arg d "$certs"
  add_annotation run.agentrt.credentials GH
  run_ct sh -c 'b=/run/agentrt/ca-bundle.pem
    cmp -s /etc/ssl/certs/ca-certificates.crt "$b" && echo same
    grep -c "^HOST-CA-MARKER\$" "$b" | sed "s/^/host: /"'
  check_status 0
  has_line same
  has_line "host: 1"
}

@test "credentials: a symlink in a bound directory does not lead the runtime out of it" {
  # the bound directory may be one the container wrote: an absolute
  # symlink there names the container's path, never the host's
  local certs=$BATS_TEST_TMPDIR/host-certs secret=$BATS_TEST_TMPDIR/host-secret
  mkdir -p "$certs"
  printf 'HOST-SECRET-MARKER\n' >"$secret"
  ln -s "$secret" "$certs/ca-certificates.crt"
  rm -rf "$ROOTFS/etc/ssl"
  update_config '.mounts += [{destination: "/etc/ssl/certs", type: "bind", source: $d,
    options: ["rbind", "ro"]}]' --arg d "$certs"
  add_annotation run.agentrt.credentials GH
  run_ct sh -c 'grep -c HOST-SECRET-MARKER /run/agentrt/ca-bundle.pem | sed "s/^/secret: /"'
  check_status 0
  has_line "secret: 0"
}

@test "credentials: on the transparent path too (a client that ignores the proxy variables)" {
  add_annotation run.agentrt.credentials GH
  run_ct sh -c "unset HTTP_PROXY HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy
    $CURL -sS --noproxy '*' -H \"Authorization: Bearer \$GH\" https://api.test:8443/api"
  [[ $status -eq 0 ]] || fail "status $status: $output"$'\n'"$(cat "$AUDIT_DIR"/*.jsonl)"
  has_line "real token received"
  grep -q '"event":"inject".*"credential":"GH".*"host":"api.test".*"request":"GET /api"' \
    "$AUDIT_DIR"/*.jsonl || fail "no inject line: $(cat "$AUDIT_DIR"/*.jsonl)"
  grep -Eq '"event":"egress".*"via":"(sni|dns)".*"host":"api.test".*"tls_intercepted":true' "$AUDIT_DIR"/*.jsonl \
    || fail "not by the transparent path: $(cat "$AUDIT_DIR"/*.jsonl)"
}

@test "credentials: the value is in no variable, /proc/*/environ, file or memory of the container; under runc it is" {
  requires_control
  add_annotation run.agentrt.credentials GH
  set_cmd sh -c "$CURL -sS -o /dev/null -H \"Authorization: Bearer \$GH\" https://api.test:8443/api; sleep 300"
  start_ct
  local pid found
  pid=$(ct_pid "$CT_ID")
  [[ -n $pid ]] || fail "no pid for $CT_ID"
  sleep 1
  found=$(token_found $(ct_pids "$pid") $(egress_sidecar_pid))
  # the sidecar holds it (outside the container), nothing of the agent's does
  [[ $found == *"memory $(egress_sidecar_pid | head -n 1)"* ]] \
    || fail "the search does not even find the sidecar's copy: $found"
  found=$(token_found $(ct_pids "$pid"))
  [[ -z $found ]] || fail "the value is in the container: $found"
  # nor in the monitor (the sidecar's parent), which handed it over and
  # wiped it: no copy left behind in memory it freed
  found=$(token_found --no-files "$(awk '/^PPid:/{ print $2 }' \
    "/proc/$(egress_sidecar_pid | head -n 1)/status")")
  [[ -z $found ]] || fail "the monitor still holds the value: $found"
  rt kill "$CT_ID" KILL

  # the control: the way it is done without agentrt, the value in the env
  update_config '.process.env += ["GH=" + $t] | .process.args = ["sleep", "300"]' \
    --arg t "$CRED_TOKEN"
  control create --bundle "$BUNDLE" ctl-cred >/dev/null 2>&1 || fail "control create"
  cleanup_add "control delete --force ctl-cred"
  control start ctl-cred
  pid=$(control state ctl-cred | jq -r .pid)
  found=$(token_found "$pid")
  [[ $found == *"environ $pid"* ]] || fail "under $CONTROL_RUNTIME the search finds nothing: $found"
  control kill ctl-cred KILL
}

@test "credentials: an env: value does not stay in the monitor's environ" {
  hardening_policy '.credentials = {trustStore: $t, inject: [{name: "GH", source: "env:AGENTRT_TEST_GH",
      hosts: ["api.test"]}]}' --arg t "$CRED_DIR/root.pem" || return 1
  add_annotation run.agentrt.credentials GH
  set_cmd sh -c "$CURL -sS -H \"Authorization: Bearer \$GH\" https://api.test:8443/api; sleep 300"
  AGENTRT_TEST_GH=$CRED_TOKEN start_ct
  local monitor found
  for _ in $(seq 100); do
    grep -q "real token received" "$CT_OUT" && break
    sleep 0.1
  done
  grep -q "real token received" "$CT_OUT" || fail "the API did not get the value: $(cat "$CT_OUT")"
  monitor=$(awk '/^PPid:/{ print $2 }' "/proc/$(egress_sidecar_pid | head -n 1)/status")
  [[ -n $monitor ]] || fail "no monitor"
  found=$(token_found --no-files "$(egress_sidecar_pid | head -n 1)")
  [[ -n $found ]] || fail "the search does not even find the sidecar's copy"
  found=$(token_found --no-files "$monitor")
  [[ -z $found ]] || fail "the monitor keeps the value: $found"
  rt kill "$CT_ID" KILL
}

@test "credentials: next to an approver (egress.ask): both reach the sidecar, each its own fd" {
  local sock=$BATS_TEST_TMPDIR/approve.sock approver
  hardening_policy '.credentials = {trustStore: $t, inject: [{name: "GH", source: ("file:" + $f),
      hosts: ["api.test"]}]} | .egress.ask = {socket: $s, timeout: 10}' \
    --arg t "$CRED_DIR/root.pem" --arg f "$CRED_DIR/token" --arg s "$sock" || return 1
  "$RUNTIME" approve --socket "$sock" --allow-pattern 'other.*:80' --auto-deny-after 1 \
    </dev/null >"$BATS_TEST_TMPDIR/approve.out" 2>&1 &
  approver=$!
  cleanup_add "kill $approver"
  for _ in $(seq 100); do
    grep -q "listening on $sock" "$BATS_TEST_TMPDIR/approve.out" 2>/dev/null && break
    sleep 0.1
  done
  add_annotation run.agentrt.credentials GH
  run_ct sh -c "printf 'api: '; $CURL -sS -H \"Authorization: Bearer \$GH\" https://api.test:8443/api
    printf 'asked: '; $CURL -sS http://other.test/"
  [[ $status -eq 0 ]] || fail "status $status: $output"$'\n'"$(cat "$AUDIT_DIR"/*.jsonl)"
  has_line "api: real token received"
  has_line "asked: hello from other"
  grep -q '"event":"inject".*"credential":"GH"' "$AUDIT_DIR"/*.jsonl \
    || fail "no inject line: $(cat "$AUDIT_DIR"/*.jsonl)"
  grep -q '"event":"ask".*"host":"other.test".*"answer":"allow-once"' "$AUDIT_DIR"/*.jsonl \
    || fail "no ask line: $(cat "$AUDIT_DIR"/*.jsonl)"
}

@test "credentials: a value that cannot be read fails the create, naming it" {
  add_annotation run.agentrt.credentials GH
  hardening_policy '.credentials = {trustStore: $t, inject: [{name: "GH",
      source: "file:/nonexistent/token", hosts: ["api.test"]}]}' --arg t "$CRED_DIR/root.pem"
  set_cmd true
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 && $output == *"credential GH: file:/nonexistent/token"* ]] || fail "$output"
  no_leftovers "$CT_ID"
}

@test "credentials: an annotation can only select what the policy declares" {
  add_annotation run.agentrt.credentials GH,AWS
  set_cmd true
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 && $output == *"\`AWS\` is not a credential the policy declares"* ]] \
    || fail "$output"
}
