# shellcheck shell=bash
# tests/integration/helpers/hardening.bash: what the hardening-*.bats files
# share.  Each test builds a *careless* bundle (what a sloppy engine might
# hand over: writable root, every capability, no seccomp filter, no
# no_new_privs), runs an attacker in it under agentrt with a default-style
# admin policy, and then runs the very same bundle under runc, the control,
# where the attack must work: a test whose attack fails under runc too
# would prove nothing.  Load it after helpers.bash.

HARDENING_PROFILE=$AGENTRT_TOP/seccomp-profiles/agent-default.json
# The runtime the attacks must succeed under (runc-compatible CLI).
: "${CONTROL_RUNTIME:=runc}"

# Every capability runc and agentrt know, in the kernel's order (index =
# capability number).
ALL_CAPS=(CAP_CHOWN CAP_DAC_OVERRIDE CAP_DAC_READ_SEARCH CAP_FOWNER
  CAP_FSETID CAP_KILL CAP_SETGID CAP_SETUID CAP_SETPCAP CAP_LINUX_IMMUTABLE
  CAP_NET_BIND_SERVICE CAP_NET_BROADCAST CAP_NET_ADMIN CAP_NET_RAW
  CAP_IPC_LOCK CAP_IPC_OWNER CAP_SYS_MODULE CAP_SYS_RAWIO CAP_SYS_CHROOT
  CAP_SYS_PTRACE CAP_SYS_PACCT CAP_SYS_ADMIN CAP_SYS_BOOT CAP_SYS_NICE
  CAP_SYS_RESOURCE CAP_SYS_TIME CAP_SYS_TTY_CONFIG CAP_MKNOD CAP_LEASE
  CAP_AUDIT_WRITE CAP_AUDIT_CONTROL CAP_SETFCAP CAP_MAC_OVERRIDE
  CAP_MAC_ADMIN CAP_SYSLOG CAP_WAKE_ALARM CAP_BLOCK_SUSPEND CAP_AUDIT_READ
  CAP_PERFMON CAP_BPF CAP_CHECKPOINT_RESTORE)

# hardening_policy [JQ-FILTER [JQ-ARGS...]]: the admin policy agentrt runs
# with: the built-in defaults, the agent seccomp profile of the source tree
# (a build tree has none installed) and this test's audit directory, edited
# by JQ-FILTER (e.g. '.limits.pids = 64').  Sets POLICY and AUDIT_DIR.
hardening_policy ()
{
  local filter=${1:-.}
  shift || true
  AUDIT_DIR=$BATS_TEST_TMPDIR/audit
  POLICY=$BATS_TEST_TMPDIR/policy.json
  jq -n --arg p "$HARDENING_PROFILE" --arg a "$AUDIT_DIR" "$@" \
    "{version: 1, seccomp: {profile: \$p}, audit: {dir: \$a}} | $filter" >"$POLICY" || return 1
  use_policy "$POLICY"
}

# careless_bundle: the bundle as a careless engine would write it.  Its
# capabilities are all those of ALL_CAPS that this process's bounding set
# has (the control runtime cannot grant more).
careless_bundle ()
{
  local caps bnd i have=()
  bnd=$(awk '$1 == "CapBnd:" { print $2 }' /proc/self/status)
  for ((i = 0; i < ${#ALL_CAPS[@]}; i++)); do
    (((0x$bnd >> i) & 1)) && have+=("${ALL_CAPS[i]}")
  done
  caps=$(jq -nc '$ARGS.positional' --args -- "${have[@]}") || return 1
  update_config '.root.readonly = false
    | .process.noNewPrivileges = false
    | .process.capabilities = {bounding: $c, effective: $c, permitted: $c}
    | del(.linux.seccomp)' --argjson c "$caps"
}

# hardening_setup: per-test setup of the hardening files: a bundle (see
# helpers.bash), careless, and the default-style policy.  The attacker and
# the showid programs are copied into the rootfs's /bin.
hardening_setup ()
{
  setup_bundle || return 1
  requires root agentrt
  hardening_policy || return 1
  careless_bundle || return 1
  cp "$(test_program hardening-attack)" "$ROOTFS/bin/attack" || return 1
  cp "$(test_program showid)" "$ROOTFS/bin/showid"
}

# privileged_bundle: what `docker run --privileged` turns a bundle into:
# every capability (careless_bundle), /sys and the cgroup mount
# read-write, no masked or read-only paths, every device allowed.
privileged_bundle ()
{
  update_config '.linux.maskedPaths = [] | .linux.readonlyPaths = []
    | (.mounts[] | select(.type == "sysfs" or .type == "cgroup" or .type == "cgroup2")).options
        |= (map(select(. != "ro")) + ["rw"])
    | .linux.resources.devices = [{allow: true, access: "rwm"}]'
}

# KERNEL_WRITES: a script opening for writing the kernel settings a root
# process could change the host with, and the container's own cgroup
# limits (v2 or v1 path, whichever it has; the files this kernel lacks are
# left out).
# shellcheck disable=SC2034 # used by hardening-host.bats, userns-depth.bats
KERNEL_WRITES='for f in /proc/sys/kernel/core_pattern /sys/kernel/uevent_helper \
  /proc/sysrq-trigger /sys/kernel/mm/transparent_hugepage/enabled \
  /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max; do
  [ -e "$f" ] || continue; printf "%s: " "$f"; attack openw "$f"; done'

# add_env NAME=VALUE...: append to process.env.
add_env ()
{
  local env
  env=$(jq -n '$ARGS.positional' --args -- "$@") || return 1
  update_config '.process.env += $e' --argjson e "$env"
}

# add_annotation KEY VALUE
add_annotation ()
{
  update_config '.annotations[$k] = $v' --arg k "$1" --arg v "$2"
}

# ---- the control runtime ---------------------------------------------------

# requires_control: skip unless the control runtime is installed (the
# attack tests are only meaningful with it).
requires_control ()
{
  command -v "$CONTROL_RUNTIME" >/dev/null \
    || skip "the control runtime $CONTROL_RUNTIME is not installed (CONTROL_RUNTIME)"
}

# control ARGS...: the control runtime with its own --root in the test dir.
control ()
{
  timeout -k 5 "$RUNTIME_TIMEOUT" "$CONTROL_RUNTIME" --root "$BATS_TEST_TMPDIR/control" "$@"
}

# control_run ARGS...: like run_ct, under the control runtime (container id
# CT_ID-c, so teardown's leak checks cover it).  Sets status and output.
control_run ()
{
  local id=$CT_ID-c
  set_cmd "$@" || return 1
  cleanup_add "control delete --force $id"
  RT_SEQ=$((${RT_SEQ:-0} + 1))
  RT_OUT=$BATS_TEST_TMPDIR/rt.$RT_SEQ.out
  control run --bundle "$BUNDLE" "$id" >"$RT_OUT" 2>&1 </dev/null && status=0 || status=$?
  output=$(<"$RT_OUT")
}

# ---- what a run shows --------------------------------------------------------

# attack_blocked: the last run printed ATTACK-BLOCKED and no ATTACK-OK.
attack_blocked ()
{
  [[ $output == *ATTACK-BLOCKED* && $output != *ATTACK-OK* ]] \
    || fail "the attack was not blocked (status $status):"$'\n'"$output"
}

# attack_worked: the last run printed ATTACK-OK (under the control).
attack_worked ()
{
  [[ $output == *ATTACK-OK* ]] \
    || fail "the attack did not work under $CONTROL_RUNTIME either, so the test shows nothing (status $status):"$'\n'"$output"
}

# blocked_with ERRNO-TEXT: blocked, and for this reason (e.g. "Operation
# not permitted"), so that an unrelated failure does not pass.
blocked_with ()
{
  attack_blocked || return 1
  [[ $output == *"$1"* ]] || fail "blocked, but not with '$1':"$'\n'"$output"
}

# audit_events KIND: the audit trail's events of that kind, one JSON a line.
audit_events ()
{
  cat "$AUDIT_DIR"/*.jsonl 2>/dev/null | jq -c --arg e "$1" 'select(.event == $e)'
}

# wait_for_audit JQ-CONDITION [TRIES]: poll (0.1 s) until an audit line
# satisfies the condition.  (jq 1.6's -e judges the last input, not the
# last output: slurp instead of select.)
wait_for_audit ()
{
  local cond=$1 tries=${2:-50}
  while ((tries-- > 0)); do
    cat "$AUDIT_DIR"/*.jsonl 2>/dev/null | jq -se "any(.[]; $cond)" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "no audit line with $cond in:"$'\n'"$(cat "$AUDIT_DIR"/*.jsonl 2>/dev/null)"
}

# ---- secrets ---------------------------------------------------------------

# new_canary: a unique, alphanumeric marker (CANARY) that the secrets of a
# test carry, so that any leak of any of them can be grepped for.
new_canary ()
{
  CANARY=$(printf 'Cnry%s%04X%04X' "$(date +%N)" "$RANDOM" "$RANDOM")
}

# no_canary_in FILE...: none of the files mentions CANARY.
no_canary_in ()
{
  local f
  for f in "$@"; do
    ! grep -rqF -- "$CANARY" "$f" || fail "the canary leaked into $f: $(grep -rF -- "$CANARY" "$f" | head -3)"
  done
}

# fake_home DIR: a home directory with credentials everywhere tools look
# (each file's first line holds CANARY), ordinary files, and symlinks that
# point at the credentials from innocent names.
fake_home ()
{
  local h=$1
  mkdir -p "$h"/{.ssh,.aws,.kube,.docker,.config/gh,.gnupg,project} || return 1
  printf -- '-----BEGIN OPENSSH PRIVATE KEY-----%s\n' "$CANARY" >"$h/.ssh/id_rsa"
  printf 'Host *\n  IdentityFile ~/.ssh/id_rsa\n' >"$h/.ssh/config"
  printf 'aws_secret_access_key=%s\n' "$CANARY" >"$h/.aws/credentials"
  printf 'token: %s\n' "$CANARY" >"$h/.kube/config"
  printf '{"auths":{"registry.test":{"auth":"%s"}}}\n' "$CANARY" >"$h/.docker/config.json"
  printf '{"features":{}}\n' >"$h/.docker/features.json"
  printf 'machine git.test login me password %s\n' "$CANARY" >"$h/.netrc"
  printf 'https://me:%s@git.test\n' "$CANARY" >"$h/.git-credentials"
  printf 'github.com: {oauth_token: %s}\n' "$CANARY" >"$h/.config/gh/hosts.yml"
  printf 'secret-ring %s\n' "$CANARY" >"$h/.gnupg/secring"
  printf 'just notes\n' >"$h/notes.txt"
  printf 'print("hi")\n' >"$h/project/main.py"
  ln -s .ssh "$h/keys"
  ln -s .ssh/id_rsa "$h/backup_key"
  ln -s ../.netrc "$h/project/netrc"
  chmod 0700 "$h/.ssh" "$h/.gnupg"
  chmod 0600 "$h/.ssh/id_rsa"
}

# The paths, relative to a home, that must not be readable in the
# container (each holds CANARY on its first line).
HOME_SECRETS=(.ssh/id_rsa .aws/credentials .kube/config .docker/config.json
  .netrc .git-credentials .config/gh/hosts.yml .gnupg/secring keys/id_rsa
  backup_key project/netrc)

# read_all_script DIR PATH...: a shell script for the container that tries
# to read every PATH under DIR with the attacker, one line each, prefixed
# with the path.
read_all_script ()
{
  local dir=$1 p s=
  shift
  for p in "$@"; do
    s+="printf '%s: ' '$dir/$p'; attack read '$dir/$p';"$'\n'
  done
  printf '%s\n' "$s"
}

# serve_unix_socket PATH: a unix socket server (host side) that greets
# every client with "docker-api" and CANARY; stopped in teardown.
serve_unix_socket ()
{
  local path=$1 pid
  (cd / && exec python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(8)
open(sys.argv[1] + ".ready", "w").write("1")
while True:
    c, _ = s.accept()
    c.sendall(b"docker-api " + sys.argv[2].encode() + b"\n")
    c.close()
' "$path" "$CANARY") &
  pid=$!
  cleanup_add "kill $pid; wait $pid"
  wait_for_file "$path.ready" 100 || { echo "socket server did not start" >&2; return 1; }
  [[ -S $path ]]
}
