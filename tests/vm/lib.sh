# shellcheck shell=bash
# tests/vm/lib.sh: what the guest test suites (cgroup-v2.sh, systemd.sh) share:
# a small TAP-like runner whose output is the host's results channel, and
# helpers for bundles, policies, containers and their cgroups.  Runs inside
# the VM that hack/vm-test.sh boots (bash and busybox; agentrt in
# /opt/agentrt/bin), as root, with cgroup2 on /sys/fs/cgroup.
#
# A test is a function; run_suite runs each in a subshell with `set -e`
# and `pipefail` (so never `cmd | grep -q`: grep's early exit makes a
# talkative cmd die of SIGPIPE and the pipeline fail; grep a file),
# in its own directory ($TEST_DIR), with a time limit, then deletes every
# container left in the state directory and fails the test if it left a
# cgroup, a sidecar or a container behind.

VM_RT=${VM_RT:-/opt/agentrt/bin/agentrt}
VM_TEMPLATE_FILE=/opt/agentrt/config-template.json
VM_PROFILE=/opt/agentrt/share/agent-default.json
VM_WORK=/tmp/vmtest
VM_STATE=/run/agentrt-vm
CG=/sys/fs/cgroup
# The parent of every container cgroup the tests name (agentrt, like runc,
# never removes parents).
CG_TEST_PARENT=vmtest
# Global options for every agentrt command (the systemd suite sets
# --systemd-cgroup).
VM_RT_FLAGS=()
# New cgroups that count as leaked after a test: all of them, except under
# systemd, which makes and removes its own while the tests run.
VM_CG_LEAK_RE=.
: "${VM_TEST_TIMEOUT:=150}"
# agentrt.verbose=1 on the kernel command line (hack/vm-test.sh --verbose):
# every test's log, not only the failures'.
VM_VERBOSE=0
grep -qw 'agentrt.verbose=1' /proc/cmdline && VM_VERBOSE=1

# ---- checks -----------------------------------------------------------------

fail ()
{
  echo "FAIL: $*" >&2
  exit 1
}

skip ()
{
  echo "$*" >"$TEST_DIR/skip"
  exit 77
}

# note TEXT: a line printed under the test's result, pass or fail (the
# figures a test measured).
note ()
{
  echo "$*" >>"$TEST_DIR/notes"
  echo "note: $*" >&2
}

# expect_eq WANT GOT WHAT
expect_eq ()
{
  [[ $1 == "$2" ]] || fail "$3: expected '$1', got '$2'"
}

# expect_match REGEX TEXT WHAT
expect_match ()
{
  [[ $2 =~ $1 ]] || fail "$3: '$2' does not match /$1/"
}

# expect_fail WHAT CMD...: CMD must exit non-zero.
expect_fail ()
{
  local what=$1
  shift
  if "$@"; then
    fail "$what: succeeded"
  fi
}

# ---- JSON without jq -----------------------------------------------------------
# (jq takes a second to start under emulation: the guest builds and reads
# JSON with bash.)

shopt -u patsub_replacement 2>/dev/null

# json_str STRING: STRING as a JSON string.
json_str ()
{
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\t'/\\t}
  printf '"%s"' "$s"
}

# json_args ARGS...: a JSON array of strings.
json_args ()
{
  local out="" a
  for a in "$@"; do
    out+=${out:+,}$(json_str "$a")
  done
  printf '[%s]' "$out"
}

# json_get JSON KEY: the first string or number value of KEY in JSON.
json_get ()
{
  { local xt=$-; set +x; } 2>/dev/null
  local re="\"$2\"[[:space:]]*:[[:space:]]*(\"([^\"]*)\"|(-?[0-9]+))"
  if [[ $1 =~ $re ]]; then
    printf '%s\n' "${BASH_REMATCH[2]}${BASH_REMATCH[3]}"
  fi
  [[ $xt != *x* ]] || set -x
  [[ -n ${BASH_REMATCH[0]:-} ]]
}

# ---- policies and bundles ---------------------------------------------------

# use_policy off|default [JSON-MEMBERS]: the admin policy `rt` passes.
# `off`: hardening off (agentrt behaves like runc); `default`: the built-in
# defaults with the agent seccomp profile path given, plus JSON-MEMBERS
# (e.g. '"limits": {"memory": "32m"}').  Both audit into $AUDIT_DIR.
use_policy ()
{
  AUDIT_DIR=$TEST_DIR/audit
  POLICY=$TEST_DIR/policy-$1.json
  case $1 in
    off) printf '{"version": 1, "hardening": "off", "audit": {"dir": %s}}\n' \
      "$(json_str "$AUDIT_DIR")" >"$POLICY" ;;
    default) printf '{"version": 1, "seccomp": {"profile": %s}, "audit": {"dir": %s}%s}\n' \
      "$(json_str "$VM_PROFILE")" "$(json_str "$AUDIT_DIR")" "${2:+, $2}" >"$POLICY" ;;
    *) fail "use_policy $1" ;;
  esac
}

# rt ARGS...: agentrt with the suite's --root and the test's policy.
rt ()
{
  "$VM_RT" --root "$VM_STATE" --policy "$POLICY" "${VM_RT_FLAGS[@]}" "$@"
}

# mk_bundle DIR [OPTION...] [--] ARGS...: DIR/config.json from the
# template the host made (`agentrt spec`, no terminal, a cgroup namespace,
# the shared read-only busybox root /opt/agentrt/rootfs) running ARGS.
#   --resources JSON        linux.resources (default: {})
#   --mount JSON            one more mount (repeatable)
#   --annotation KEY VALUE  (repeatable)
#   --cgroups-path PATH     default /vmtest/<basename of DIR>; "" for none
mk_bundle ()
{
  { local xt=$-; set +x; } 2>/dev/null
  local dir=$1 res='{}' mounts='' ann='' cgp c
  cgp=/$CG_TEST_PARENT/$(basename "$dir")
  shift
  while [[ $# -gt 0 ]]; do
    case $1 in
      --resources) res=$2; shift 2 ;;
      --mount) mounts+=",$2"; shift 2 ;;
      --annotation) ann+=${ann:+,}$(json_str "$2"):$(json_str "$3"); shift 3 ;;
      --cgroups-path) cgp=$2; shift 2 ;;
      --) shift; break ;;
      *) break ;;
    esac
  done
  [[ -n ${VM_TEMPLATE:-} ]] || VM_TEMPLATE=$(<"$VM_TEMPLATE_FILE")
  c=${VM_TEMPLATE/'"__ARGS__"'/"$(json_args "$@")"}
  c=${c/'"__CGROUPSPATH__"'/"$(json_str "$cgp")"}
  c=${c/'"__RESOURCES__"'/"$res"}
  c=${c/',"__MOUNTS__"'/"$mounts"}
  c=${c/'"__ANNOTATIONS__"'/"{$ann}"}
  mkdir -p "$dir"
  printf '%s\n' "$c" >"$dir/config.json"
  [[ $xt != *x* ]] || set -x
  echo "bundle $dir: $*" >&2
}

# bind_mount SOURCE DEST [rw|ro]: the JSON of a bind mount.
bind_mount ()
{
  printf '{"destination": %s, "type": "bind", "source": %s, "options": ["rbind", "%s"]}' \
    "$(json_str "$2")" "$(json_str "$1")" "${3:-rw}"
}

# ---- containers ---------------------------------------------------------------

ct_status ()
{
  json_get "$(rt state "$1" 2>/dev/null)" status
}

ct_pid ()
{
  json_get "$(rt state "$1" 2>/dev/null)" pid
}

# sidecar_started ID: the agent's first connection (to the proxy, from
# inside the container) starts the egress sidecar: true once one runs.
sidecar_started ()
{
  local i
  rt exec "$1" busybox nc -w 1 127.0.0.1 3128 </dev/null >/dev/null 2>&1
  for ((i = 0; i < 50; i++)); do
    [[ -n $(pidof agentrt-egress) ]] && return 0
    sleep 0.1
  done
  return 1
}

# wait_status ID STATUS [SECONDS]: poll `state` (default 30 s).
wait_status ()
{
  local id=$1 want=$2 end=$(($(now_ms) + ${3:-30} * 1000)) got=
  while :; do
    got=$(ct_status "$id")
    [[ $got == "$want" ]] && return 0
    (($(now_ms) < end)) || break
    sleep 0.2
  done
  fail "container $id: status '$got', expected '$want'"
}

# wait_gone PID [SECONDS]: until PID has exited (or is a zombie); cheaper
# than polling `state` under emulation.
wait_gone ()
{
  local pid=$1 end=$(($(now_ms) + ${2:-30} * 1000)) st
  while [[ -e /proc/$pid ]]; do
    st=$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null) || return 0
    [[ $st != Z ]] || return 0
    (($(now_ms) < end)) || fail "process $pid still there after ${2:-30} s"
    sleep 0.1
  done
}

# cg_dir PID: the cgroup2 directory of a process.
cg_dir ()
{
  local p
  p=$(sed -n 's/^0:://p' "/proc/$1/cgroup") || return 1
  [[ -n $p ]] || fail "no cgroup2 line in /proc/$1/cgroup"
  printf '%s%s\n' "$CG" "${p%/}"
}

# cg_key FILE KEY: the value of KEY in a flat-keyed cgroup file.
cg_key ()
{
  awk -v k="$2" '$1 == k { print $2; found = 1 } END { exit !found }' "$1"
}

# now_ms: milliseconds of wall-clock time.
now_ms ()
{
  local t=${EPOCHREALTIME/./}
  echo $((t / 1000))
}

# audit_has ID EVENT [LIMIT]: the container's audit trail has an EVENT
# line (of that LIMIT kind).  The trail is written by agentrt with a fixed
# member order: "event":"E" and then, for limits, "limit":"L".
audit_has ()
{
  local pat="\"event\":\"$2\""
  [[ -n ${3:-} ]] && pat+=",\"limit\":\"$3\""
  rt audit "$1" >"$TEST_DIR/audit.out" 2>&1 || return 1
  grep -qF "$pat" "$TEST_DIR/audit.out"
}

# ---- workloads the suites share ---------------------------------------------

# The balloon (an awk program): doubles a string until the memory limit
# stops it.
BALLOON='BEGIN { s = "x"; while (1) s = s s }'
# Forks 30 sleepers in a subshell (which dies at the first failed fork),
# then stays.
FORKS='(for i in $(seq 30); do sleep 1000 & done); echo loop-done; exec sleep 1000'

# The device tests' container: opens /dev/vmkmsg (a bind mount of
# /dev/kmsg, c 1:11) for reading and for writing, and writes /dev/null.
DEVICE_PROBE='exec 2>&1
if true </dev/vmkmsg; then echo read=ok; else echo read=denied; fi
if true >/dev/vmkmsg; then echo write=ok; else echo write=denied; fi
if echo x >/dev/null; then echo null=ok; else echo null=denied; fi'

# devices_bundle DIR DEVICE-RULES [MK_BUNDLE-OPTION...]: the probe's
# bundle; DEVICE-RULES is the inside of linux.resources.devices.
devices_bundle ()
{
  local dir=$1 rules=$2
  shift 2
  mk_bundle "$dir" --mount "$(bind_mount /dev/kmsg /dev/vmkmsg)" \
    --resources "{\"devices\": [$rules]}" "$@" sh -c "$DEVICE_PROBE"
}

# ---- the runner ---------------------------------------------------------------

# _cg_snapshot: every cgroup directory, one a line.
_cg_snapshot ()
{
  (cd "$CG" && find . -mindepth 1 -type d | LC_ALL=C sort)
}

# _cleanup_test: delete every container, stop what is left; prints what
# had leaked (cgroups, sidecars) and returns 1 if anything did.
_cleanup_test ()
{
  local id leaked=0 d p
  for id in $(POLICY=$VM_WORK/policy-cleanup.json rt list --format json 2>/dev/null \
    | grep -o '"id":"[^"]*"' | cut -d'"' -f4); do
    echo "left running: container $id" >&2
    POLICY=$VM_WORK/policy-cleanup.json rt delete --force "$id" >&2 || leaked=1
    leaked=1
  done
  for p in $(pidof agentrt-egress); do
    echo "leaked sidecar: pid $p" >&2
    kill -KILL "$p"
    leaked=1
  done
  if declare -F suite_cleanup >/dev/null; then
    suite_cleanup || leaked=1
  fi
  _cg_snapshot | grep -vxF -f "$VM_WORK/cg-before" | grep -E "$VM_CG_LEAK_RE" >"$VM_WORK/cg-new"
  while read -r d; do
    [[ $d == "./$CG_TEST_PARENT" ]] && continue
    echo "leaked cgroup: ${d#.}" >&2
    leaked=1
  done <"$VM_WORK/cg-new"
  # Remove the test parent and anything leaked, deepest first.
  while read -r d; do
    [[ -f $CG/$d/cgroup.kill ]] && echo 1 >"$CG/$d/cgroup.kill"
    rmdir "$CG/$d" 2>/dev/null || sleep 0.2
    rmdir "$CG/$d" 2>/dev/null
  done < <(sort -r "$VM_WORK/cg-new")
  return $leaked
}

# _run_one NAME: run test function NAME with the time limit; prints the
# status (0 pass, 77 skip, else fail).
_run_one ()
{
  local name=$1 pid wd rc
  (
    cd "$TEST_DIR" || exit 1
    # The trace goes to the log whatever a command's stderr is redirected to.
    exec {xfd}>>"$TEST_DIR/log"
    BASH_XTRACEFD=$xfd
    set -eE -o pipefail
    trap 'echo "error at line $LINENO: $BASH_COMMAND" >&2' ERR
    use_policy off
    # A trace with timestamps, shown when the test fails.
    PS4='+ ${EPOCHREALTIME:6:8} '
    set -x
    "$name"
  ) >"$TEST_DIR/log" 2>&1 &
  pid=$!
  (
    sleep "$VM_TEST_TIMEOUT"
    echo "timed out after ${VM_TEST_TIMEOUT}s" >>"$TEST_DIR/log"
    kill -KILL "$pid"
  ) 2>/dev/null &
  wd=$!
  wait "$pid" && rc=0 || rc=$?
  kill "$wd" 2>/dev/null
  wait "$wd" 2>/dev/null
  return $rc
}

# run_suite NAME TEST...: run the tests in order, print `ok`/`not ok` per
# test (with the test's output under a failure) and the summary line the
# host looks for: VMTEST RESULT pass=N fail=N skip=N.
run_suite ()
{
  local suite=$1 n=0 pass=0 failed=0 skipped=0 name t0 ms rc
  shift
  mkdir -p "$VM_WORK" "$VM_STATE"
  TEST_DIR=$VM_WORK
  use_policy off
  mv "$POLICY" "$VM_WORK/policy-cleanup.json"
  echo "VMTEST BEGIN $suite: kernel $(uname -r), $(nproc) cpu(s), cgroup controllers: $(cat $CG/cgroup.subtree_control 2>/dev/null)"
  echo "1..$#"
  for name in "$@"; do
    n=$((n + 1))
    TEST_DIR=$VM_WORK/$name
    mkdir -p "$TEST_DIR"
    _cg_snapshot >"$VM_WORK/cg-before"
    t0=$(now_ms)
    _run_one "$name" && rc=0 || rc=$?
    ms=$(($(now_ms) - t0))
    _cleanup_test 2>>"$TEST_DIR/log" || { ((rc == 0 || rc == 77)) && rc=1; }
    if ((rc == 0)); then
      pass=$((pass + 1))
      printf 'ok %d %s (%d.%01ds)\n' "$n" "$name" $((ms / 1000)) $((ms % 1000 / 100))
      [[ -f $TEST_DIR/notes ]] && sed 's/^/#   /' "$TEST_DIR/notes"
      ((VM_VERBOSE)) && sed 's/^/#   /' "$TEST_DIR/log"
    elif ((rc == 77)); then
      skipped=$((skipped + 1))
      printf 'ok %d %s # SKIP %s\n' "$n" "$name" "$(cat "$TEST_DIR/skip" 2>/dev/null)"
    else
      failed=$((failed + 1))
      printf 'not ok %d %s (%d.%01ds)\n' "$n" "$name" $((ms / 1000)) $((ms % 1000 / 100))
      tail -n 60 "$TEST_DIR/log" | sed 's/^/#   /' 
    fi
  done
  echo "VMTEST RESULT pass=$pass fail=$failed skip=$skipped"
  ((failed == 0))
}
