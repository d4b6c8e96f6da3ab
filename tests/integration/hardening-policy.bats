#!/usr/bin/env bats
# hardening-policy: ordinary work still succeeds under the hardening (work
# dir, /tmp, HOME, busybox tools, ordinary env vars); run.agentrt.*
# annotations with typos, or that loosen beyond the admin policy, refuse
# the create and say which key and which policy field (broad egress
# entries: public suffixes by the Public Suffix List, wide CIDRs); an
# ephemeral root takes writes in memory and leaves the image untouched.

load helpers
load helpers/hardening

setup ()
{
  hardening_setup
}

teardown ()
{
  teardown_bundle
}

# create_refused WORD...: `create` failed, its message names every WORD,
# and nothing of the container is left.
create_refused ()
{
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]] || fail "create succeeded"
  local w
  for w in "$@"; do
    [[ $output == *"$w"* ]] || fail "the error does not name '$w': $output"
  done
  no_leftovers "$CT_ID"
}

@test "hardening: ordinary work succeeds (work dir, /tmp, HOME, tools, env)" {
  local work=$BATS_TEST_TMPDIR/work
  mkdir -p "$work"
  printf 'input\n' >"$work/in.txt"
  add_bind "$work" /work rw
  add_env AWS_REGION=eu-west-3 "GIT_AUTHOR_NAME=Agent Smith" TOKENIZERS_PARALLELISM=false
  run_ct sh -ec '
    sed s/input/output/ /work/in.txt >/work/out.txt
    echo tmp >/tmp/f && cat /tmp/f
    echo home >"$HOME/.cache-file" && cat "$HOME/.cache-file"
    echo shm >/dev/shm/f && cat /dev/shm/f
    tar -czf /tmp/etc.tgz -C / etc && tar -tzf /tmp/etc.tgz | grep -c passwd
    sha256sum /work/out.txt | awk "{ print length(\$1) }"
    find /work -name "*.txt" | sort | wc -l
    echo "$AWS_REGION|$GIT_AUTHOR_NAME|$TOKENIZERS_PARALLELISM"
    ip -o addr show lo | grep -q 127.0.0.1 && echo lo-up'
  check_status 0
  for l in tmp home shm 1 64 2 "eu-west-3|Agent Smith|false" lo-up; do
    has_line "$l"
  done
  [[ $(<"$work/out.txt") == output ]] || fail "the work dir was not written"
}

@test "hardening: a non-root agent gets a writable HOME of its own" {
  update_config '.process.user = {uid: 1000, gid: 1000} | .process.env += ["HOME=/home/agent"]'
  run_ct sh -c 'echo x >"$HOME/f" && cat "$HOME/f" && stat -c "%u %a" "$HOME"; echo x >/tmp/g && echo tmp-ok'
  check_status 0
  has_line x
  has_line "1000 700"
  has_line tmp-ok
}

@test "hardening: a cwd the image lacks is created under the read-only root" {
  update_config '.process.cwd = "/agent/work"'
  run_ct pwd
  check_status 0
  [[ $output == /agent/work ]] || fail "$output"
}

@test "hardening: stdio pipes are given to the agent's user; a host file redirected in keeps its owner" {
  update_config '.process.user = {uid: 1000, gid: 1000}'
  set_cmd sh -c 'echo out >>/dev/stdout; echo "rc=$?"; stat -L -c %u:%g /proc/self/fd/1'
  runtime run --bundle "$BUNDLE" "$CT_ID" </dev/null 2>&1 | cat >"$BATS_TEST_TMPDIR/piped"
  [[ $(<"$BATS_TEST_TMPDIR/piped") == $'out\nrc=0\n1000:1000' ]] || fail "piped: $(<"$BATS_TEST_TMPDIR/piped")"
  f=$BATS_TEST_TMPDIR/host-file
  runtime run --bundle "$BUNDLE" "$CT_ID-2" </dev/null >"$f" 2>&1
  [[ $(stat -c %u:%g "$f") == 0:0 ]] || fail "the host file is $(stat -c %u:%g "$f") now"
  # root's file, seen from inside: root's, or the overflow id's in a user
  # namespace of the container's own
  grep -qx 'rc=1' "$f" && grep -Eqx '0:0|65534:65534' "$f" || fail "$(<"$f")"
}

@test "hardening: a failing poststart hook stops and removes the container, its monitor and sidecar (start and run)" {
  update_config '.hooks.poststart = [{path: "/bin/false", args: ["false"]}]'
  load helpers/egress
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  # the sidecar starts on a first connection, even to a created container
  helpers=$(jq -r '.monitorPid' "$ROOT/$CT_ID/state.json"; egress_sidecar_started)
  [[ $helpers =~ ^[0-9]+$'\n'[0-9]+$ ]] || fail "helpers: $helpers"
  rt start "$CT_ID"
  [[ $status -ne 0 && $output == *poststart* ]] || fail "start: [$status] $output"
  no_leftovers "$CT_ID"
  for p in $helpers; do
    pid_gone "$p" || fail "helper $p left"
  done
  rt run --bundle "$BUNDLE" "$CT_ID-2"
  [[ $status -ne 0 && $output == *poststart* ]] || fail "run: [$status] $output"
  no_leftovers "$CT_ID-2"
}

@test "hardening: tmpfs modes: /tmp and /dev/shm 1777, /run 755, HOME 700 the user's, a bundle's tmpfs that of what it covers" {
  mkdir -p "$ROOTFS/priv" && chmod 0700 "$ROOTFS/priv"
  add_mount /priv tmpfs tmpfs nosuid nodev
  update_config '.process.user = {uid: 1000, gid: 1000} | .process.env += ["HOME=/home/agent"]'
  run_ct stat -c '%a %u %n' /tmp /dev/shm /run /home/agent /priv
  check_status 0
  [[ $output == $'1777 0 /tmp\n1777 0 /dev/shm\n755 0 /run\n700 1000 /home/agent\n700 0 /priv' ]] || fail "$output"
}

@test "hardening: the init and an exec'd process lead sessions of the container's pid namespace" {
  set_cmd sh -c 'read -r pid comm st ppid pgrp sid rest </proc/self/stat; echo "$pid $pgrp $sid" >/dev/shm/init; exec sleep inf'
  start_ct
  rt exec "$CT_ID" sh -c 'cat /dev/shm/init; read -r pid comm st ppid pgrp sid rest </proc/self/stat; echo "$pid $pgrp $sid"'
  check_status 0
  read -r pid pgrp sid <<<"${lines[1]}"
  [[ ${lines[0]} == "1 1 1" && $pid -gt 1 && $pgrp == "$pid" && $sid == "$pid" ]] || fail "$output"
}

@test "hardening: linux.memoryPolicy applies to the agent and its exec'd processes" {
  cp "$(test_program showmempolicy)" "$ROOTFS/bin/showmempolicy"
  update_config '.linux.memoryPolicy = {mode: "MPOL_PREFERRED", nodes: "0"}'
  set_cmd sh -c 'showmempolicy >/dev/shm/init; exec sleep inf'
  start_ct
  rt exec "$CT_ID" sh -c 'cat /dev/shm/init; showmempolicy'
  check_status 0
  [[ $output == $'MPOL_PREFERRED nodes=0\nMPOL_PREFERRED nodes=0' ]] || fail "$output"
}

@test "hardening: a typo in a run.agentrt annotation refuses the create" {
  add_annotation run.agentrt.egres none
  create_refused run.agentrt.egres
  update_config 'del(.annotations["run.agentrt.egres"]) | .annotations["Run.Agentrt.Timeout"] = "5"'
  create_refused Run.Agentrt.Timeout
  # other annotations are not agentrt's business
  update_config '.annotations = {"org.example.run.agentrt": "x", "io.kubernetes.pod": "p"}'
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
}

@test "hardening: an annotation that loosens beyond the policy is refused, naming both" {
  add_annotation run.agentrt.rootfs writable
  create_refused run.agentrt.rootfs rootfs.allowWritable

  hardening_policy '.env.allowKeep = false'
  update_config '.annotations = {"run.agentrt.env.keep": "GITHUB_TOKEN"}'
  create_refused run.agentrt.env.keep env.allowKeep

  hardening_policy '.egress.ceiling = ["*.allowed.test"]'
  update_config '.annotations = {"run.agentrt.egress.allow": "api.allowed.test,evil.test"}'
  create_refused run.agentrt.egress.allow egress.ceiling evil.test

  hardening_policy '.limits.lifetime = "30m" | .limits.maxLifetime = "1h"'
  update_config '.annotations = {"run.agentrt.timeout": "2h"}'
  create_refused run.agentrt.timeout limits.maxLifetime

  hardening_policy
  update_config '.annotations = {"run.agentrt.egress.allow": "*.com"}'
  create_refused run.agentrt.egress.allow "*.com"
}

@test "hardening: broad egress entries are refused: public suffixes at any level, wide CIDRs; no list, no wildcard" {
  local psl=/usr/share/publicsuffix/public_suffix_list.dat
  [[ -r $psl ]] || skip "requires $psl (apt-get install publicsuffix)"
  update_config '.annotations = {"run.agentrt.egress.allow": "api.example.com,*.amazonaws.com"}'
  create_refused run.agentrt.egress.allow egress.allowBroad '`*.amazonaws.com`' \
    'Public Suffix List'
  update_config '.annotations = {"run.agentrt.egress.allow": "*.bucket.s3.amazonaws.com,*.co.uk"}'
  create_refused run.agentrt.egress.allow '`*.co.uk`' '`co.uk`'
  update_config '.annotations = {"run.agentrt.egress.allow": "10.0.0.0/8"}'
  create_refused run.agentrt.egress.allow egress.allowBroad 'a CIDR wider than /16'
  # the policy's own entries are judged the same way
  hardening_policy '.egress.allow = ["*.githubusercontent.com"]'
  update_config 'del(.annotations["run.agentrt.egress.allow"])'
  create_refused 'policy egress.allow' egress.allowBroad '`githubusercontent.com`'
  # without the list a wildcard cannot be judged: refused, naming the file
  hardening_policy '.egress.publicSuffixList = "/nonexistent/psl.dat"'
  update_config '.annotations = {"run.agentrt.egress.allow": "*.corp.example"}'
  create_refused run.agentrt.egress.allow '`*.corp.example`' '/nonexistent/psl.dat'

  # narrow entries pass; with egress.allowBroad broad ones do, list or not
  hardening_policy
  update_config '.annotations = {"run.agentrt.egress.allow": "*.github.com,*.bucket.s3.amazonaws.com,10.1.0.0/16"}'
  run_ct true
  check_status 0
  hardening_policy '.egress.allowBroad = true | .egress.publicSuffixList = "/nonexistent/psl.dat"'
  update_config '.annotations = {"run.agentrt.egress.allow": "*.amazonaws.com,10.0.0.0/8"}'
  run_ct true
  check_status 0
}

@test "hardening: run.agentrt.env.keep lets a named variable through, recorded" {
  new_canary
  add_env "GITHUB_TOKEN=ghp_${CANARY}0123456789abcdefghij" "NPM_TOKEN=npm-$CANARY"
  add_annotation run.agentrt.env.keep GITHUB_TOKEN
  run_ct sh -c 'echo "gh=${GITHUB_TOKEN:+set} npm=${NPM_TOKEN:+set}"'
  has_line "gh=set npm="
  audit_events create | jq -e '.changes | any(.kind == "env-kept" and (.what | startswith("GITHUB_TOKEN")))' \
    >/dev/null || fail "$(audit_events create)"
  no_canary_in "$AUDIT_DIR"
}

@test "hardening: an ephemeral root takes writes in memory; the image is unchanged" {
  hardening_policy '.rootfs.ephemeralSize = "16m"'
  add_annotation run.agentrt.rootfs ephemeral
  local before
  before=$(cd "$ROOTFS" && find . -printf '%p %s %m\n' | sort | sha256sum)
  set_cmd sh -c 'touch /bin/planted && echo "x:x:0:0::/:/bin/sh" >>/etc/passwd && rm /bin/ls \
    && dd if=/dev/zero of=/big bs=1M count=8 2>/dev/null && echo writes-ok
    dd if=/dev/zero of=/huge bs=1M count=32 2>&1 | grep -i -o "no space left"
    awk "\$2 == \"/\" { print \$3 }" /proc/mounts; sleep inf'
  start_ct
  local tries=50
  while ((tries-- > 0)) && ! grep -qi "no space" "$CT_OUT"; do sleep 0.1; done
  output=$(<"$CT_OUT")
  has_line writes-ok
  has_line overlay
  [[ ${output,,} == *"no space left"* ]] || fail "the upper layer is not size-limited: $output"
  rt_ok exec "$CT_ID" sh -c 'ls /bin/planted && grep -c ^x: /etc/passwd'
  # nothing of it on disk, neither in the image nor anywhere in the test dir
  [[ $(cd "$ROOTFS" && find . -printf '%p %s %m\n' | sort | sha256sum) == "$before" ]] \
    || fail "the image changed while the container runs"
  [[ -z $(find "$BATS_TEST_TMPDIR" -xdev -size +4M) ]] || fail "the writes reached the disk"

  rt_ok delete --force "$CT_ID"
  [[ $(cd "$ROOTFS" && find . -printf '%p %s %m\n' | sort | sha256sum) == "$before" ]] \
    || fail "the image changed after delete"
  no_leftovers "$CT_ID"
}

@test "hardening: exec gets exactly what create decided, even after the policy file changed" {
  update_config '.process.args = ["sleep", "inf"]'
  start_ct
  [[ -s $ROOT/$CT_ID/hardening.json ]] || fail "no hardening record"
  # the admin policy changes: more secret patterns, more capabilities, no
  # agent seccomp profile
  hardening_policy '.env.extraSecretPatterns = ["FOO_*"]
    | .capabilities.safe = ["CAP_CHOWN", "CAP_NET_RAW", "CAP_SYS_ADMIN"]
    | .seccomp.profile = null'
  rt exec --env FOO_SETTING=kept "$CT_ID" sh -c 'echo "foo=$FOO_SETTING"; grep CapEff /proc/self/status; attack userns'
  check_status 1
  has_line "foo=kept"
  # CAP_SYS_ADMIN (bit 21) and CAP_NET_RAW (13) are not granted
  local eff
  eff=$(awk '/CapEff/ { print $2 }' <<<"$output")
  (((0x$eff >> 21) & 1)) && fail "CAP_SYS_ADMIN granted: $output"
  (((0x$eff >> 13) & 1)) && fail "CAP_NET_RAW granted: $output"
  attack_blocked
  # a damaged record refuses the exec, naming it
  printf '{"version":1}' >"$ROOT/$CT_ID/hardening.json"
  rt exec "$CT_ID" true
  [[ $status -ne 0 && $output == *hardening.json* ]] || fail "exec with a damaged record: $output"
}
