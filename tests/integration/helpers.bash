# shellcheck shell=bash
# tests/integration/helpers.bash: what every integration test shares, in the
# style of runc's bats suite.  Each test gets its own bundle, its own
# runtime --root and unique container ids under BATS_TEST_TMPDIR; teardown
# removes every container and then fails the test if it left anything
# behind (mounts, cgroups, processes, state).
#
# The runtime under test is $RUNTIME (a path or a name on PATH), default
# the agentrt built in _build/.  Everything here works with any
# runc-compatible runtime: tests that only make sense for agentrt say
# `requires agentrt`.

INTEGRATION_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../hack/lib.sh
. "$INTEGRATION_DIR/../../hack/lib.sh"

RUNTIME=$(resolve_runtime "${RUNTIME:-$(agentrt_default_runtime)}")
# Seconds any single runtime command may take before it counts as hung.
: "${RUNTIME_TIMEOUT:=60}"

# runtime_name: agentrt, runc, crun... (first word of `RUNTIME --version`).
runtime_name ()
{
  if [[ -z ${_RUNTIME_NAME:-} ]]; then
    _RUNTIME_NAME=$("$RUNTIME" --version 2>/dev/null | awk 'NR == 1 { print $1 }')
    [[ -n $_RUNTIME_NAME ]] || _RUNTIME_NAME=$(basename "$RUNTIME")
  fi
  printf '%s\n' "$_RUNTIME_NAME"
}

_RUNTIME_NAME=$(runtime_name)

# runtime ARGS...: the runtime with this test's private --root (and
# RUNTIME_ARGS, see use_policy).
runtime ()
{
  timeout -k 5 "$RUNTIME_TIMEOUT" "$RUNTIME" --root "$ROOT" "${RUNTIME_ARGS[@]}" "$@"
}

# use_policy off|default|FILE: the admin policy agentrt runs with (other
# runtimes have none).  `off` (what setup_bundle picks) is a policy with
# "hardening": "off": the bundle runs as written, like runc would, which
# is what the runtime-core tests check; the hardening tests choose
# `default` (built-in defaults or /etc/agentrt/policy.json) or a FILE.
# The audit trail goes to the test's directory either way.
use_policy ()
{
  RUNTIME_ARGS=()
  [[ $_RUNTIME_NAME == agentrt ]] || return 0
  case $1 in
    off)
      AGENTRT_POLICY=$BATS_TEST_TMPDIR/policy-off.json
      jq -n --arg audit "$BATS_TEST_TMPDIR/audit" \
        '{version: 1, hardening: "off", audit: {dir: $audit}}' >"$AGENTRT_POLICY"
      RUNTIME_ARGS=(--policy "$AGENTRT_POLICY") ;;
    default)
      AGENTRT_POLICY= ;;
    *)
      AGENTRT_POLICY=$1
      RUNTIME_ARGS=(--policy "$AGENTRT_POLICY") ;;
  esac
}

# rt ARGS...: like bats' `run runtime ARGS...` (sets status, output, lines)
# but captures through a file, with stdin from /dev/null: a detached
# container inherits the runtime's stdio, and with a pipe (as `run` uses)
# the capture would wait for the container to exit.  RT_OUT names the file,
# which keeps receiving what a detached container writes.
rt ()
{
  RT_SEQ=$((${RT_SEQ:-0} + 1))
  RT_OUT=$BATS_TEST_TMPDIR/rt.$RT_SEQ.out
  runtime "$@" >"$RT_OUT" 2>&1 </dev/null && status=0 || status=$?
  output=$(<"$RT_OUT")
  mapfile -t lines <"$RT_OUT"
  if [[ -n ${RT_TRACE:-} ]]; then
    printf '$ %s %s\n%s\n[%s]\n' "$(basename "$RUNTIME")" "$*" "$output" "$status" >&3
  fi
  return 0
}

# ---- per-test setup -------------------------------------------------------

# The config.json every bundle starts from, made once per bats run.
_base_config ()
{
  local f=$BATS_RUN_TMPDIR/base-config.json tmp
  if [[ ! -s $f ]]; then
    tmp=$(mktemp "$f.XXXXXX")
    base_config "$RUNTIME" >"$tmp" && mv -f "$tmp" "$f"
  fi
  printf '%s\n' "$f"
}

# setup_bundle: BUNDLE with a busybox rootfs whose process is `sleep inf`,
# ROOT (the --root), CT_ID (a unique container id; CT_ID-2... for more).
# Every bundle's process carries AGENTRT_TEST_TAG=$CT_ID in its environment:
# teardown finds stray processes by it.
setup_bundle ()
{
  printf -v CT_ID 't%sx%x%04x' "$BATS_TEST_NUMBER" "$$" "$RANDOM"
  BUNDLE=$BATS_TEST_TMPDIR/bundle
  ROOTFS=$BUNDLE/rootfs
  ROOT=$BATS_TEST_TMPDIR/state
  CLEANUP_CMDS=()
  mkdir -p "$ROOT" "$BUNDLE"
  use_policy off
  copy_rootfs "$(rootfs_cache)" "$ROOTFS" || return 1
  jq --arg tag "AGENTRT_TEST_TAG=$CT_ID" \
    '.process.args = ["sleep", "inf"] | .process.env += [$tag]' \
    "$(_base_config)" >"$BUNDLE/config.json"
}

setup ()
{
  setup_bundle
}

teardown ()
{
  teardown_bundle
}

# update_config FILTER [JQ-OPTIONS...]: edit BUNDLE/config.json (or
# $CONFIG), e.g. update_config '.hostname = $h' --arg h foo.
update_config ()
{
  local cfg=${CONFIG:-$BUNDLE/config.json} filter=$1
  shift
  jq "$@" "$filter" "$cfg" >"$cfg.new" && mv -f "$cfg.new" "$cfg"
}

# set_cmd ARGS...: the container's process.args.
set_cmd ()
{
  local args
  args=$(jq -n '$ARGS.positional' --args -- "$@") || return 1
  update_config '.process.args = $a' --argjson a "$args"
}

# cleanup_add CMD...: run CMD (an eval'd string) in teardown, before the
# leftover checks, for things a test makes outside the runtime (netns...).
cleanup_add ()
{
  CLEANUP_CMDS+=("$*")
}

# ---- waiting and inspecting -----------------------------------------------

# ct_state ID: the container's status, or nothing if the runtime has none.
ct_status ()
{
  runtime state "$1" 2>/dev/null | jq -r '.status // empty'
}

ct_pid ()
{
  runtime state "$1" 2>/dev/null | jq -r '.pid // empty'
}

# wait_for_container ID STATUS [TRIES]: poll `state` (every 0.1 s).
wait_for_container ()
{
  local id=$1 want=$2 tries=${3:-50} got=
  while ((tries-- > 0)); do
    got=$(ct_status "$id")
    [[ $got == "$want" ]] && return 0
    sleep 0.1
  done
  echo "container $id: status '$got', expected '$want'" >&2
  return 1
}

# wait_for_file PATH [TRIES]: poll until PATH exists and is not empty.
wait_for_file ()
{
  local f=$1 tries=${2:-50}
  while ((tries-- > 0)); do
    [[ -s $f ]] && return 0
    sleep 0.1
  done
  echo "timed out waiting for $f" >&2
  return 1
}

# fail MESSAGE: end the test with a message.
fail ()
{
  echo "$*" >&2
  return 1
}

# check_status WANT: after `run`, insist on an exit status and show the
# output when it differs.
check_status ()
{
  if [[ $status -ne $1 ]]; then
    printf 'exit status %s, expected %s; output:\n%s\n' "$status" "$1" "$output" >&2
    return 1
  fi
}

# rt_ok ARGS...: `rt` ARGS and insist on success (output shown otherwise).
rt_ok ()
{
  rt "$@"
  check_status 0
}

# run_ct ARGS...: create the bundle's container with ARGS as its process
# and `run` it to completion (result in $status and $output).
run_ct ()
{
  set_cmd "$@"
  rt run --bundle "$BUNDLE" "$CT_ID"
}

# start_ct [ID]: create + start the bundle's container, insist it runs.
# CT_OUT is the file receiving the container's stdout and stderr.
start_ct ()
{
  local id=${1:-$CT_ID}
  rt_ok create --bundle "$BUNDLE" "$id" || return 1
  CT_OUT=$RT_OUT
  rt_ok start "$id" || return 1
  wait_for_container "$id" running
}

# ---- requirements ---------------------------------------------------------

# _cgroup_v1_has CTRL: a v1 hierarchy with that controller is mounted.
_cgroup_v1_has ()
{
  awk -v c="$1" '$3 == "cgroup" { n = split($4, o, ","); for (i = 1; i <= n; i++) if (o[i] == c) f = 1 } END { exit !f }' /proc/self/mounts
}

_cgroup_mode ()
{
  if [[ $(stat -f -c %T /sys/fs/cgroup 2>/dev/null) == cgroup2fs ]]; then
    echo v2
  elif [[ $(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null) == cgroup2fs ]]; then
    echo hybrid
  else
    echo v1
  fi
}

# runtime_features: the runtime's `features` JSON (cached per test).
runtime_features ()
{
  if [[ -z ${_RUNTIME_FEATURES:-} ]]; then
    _RUNTIME_FEATURES=$(runtime features 2>/dev/null) || _RUNTIME_FEATURES='{}'
  fi
  printf '%s\n' "$_RUNTIME_FEATURES"
}

# requires WHAT...: skip the test, naming the reason, unless every
# requirement holds.  Runtime capabilities are taken from the runtime's own
# `features` output: a runtime that does not claim a feature is not tested
# on it, one that claims it must pass.
requires ()
{
  local r
  for r in "$@"; do
    case $r in
      root)
        [[ $EUID -eq 0 ]] || skip "requires root" ;;
      agentrt|runc|crun)
        [[ $(runtime_name) == "$r" ]] || skip "requires $r (the runtime is $(runtime_name))" ;;
      cgroups_v1)
        [[ $(_cgroup_mode) != v2 ]] || skip "requires cgroup v1 controllers" ;;
      cgroups_v2)
        [[ $(_cgroup_mode) == v2 ]] || skip "requires a pure cgroup v2 host (this one is $(_cgroup_mode))" ;;
      cgroups_hybrid)
        [[ $(_cgroup_mode) == hybrid ]] || skip "requires a hybrid cgroup host" ;;
      cgroup_*)
        local c=${r#cgroup_}
        if [[ $(_cgroup_mode) == v2 ]]; then
          grep -qw "$c" /sys/fs/cgroup/cgroup.controllers || skip "requires the $c cgroup controller"
        else
          _cgroup_v1_has "$c" || skip "requires the $c cgroup controller"
        fi ;;
      ns_*)
        local ns=${r#ns_}
        local kns=$ns
        [[ $ns == network ]] && kns=net
        [[ -e /proc/self/ns/$kns ]] || skip "requires kernel support for $ns namespaces"
        runtime_features | jq -e --arg n "$ns" '.linux.namespaces // [] | index($n)' >/dev/null \
          || skip "requires $ns namespaces (not in '$(runtime_name) features')" ;;
      userns)
        [[ $(cat /proc/sys/user/max_user_namespaces 2>/dev/null || echo 0) -gt 0 ]] \
          || skip "requires user namespaces (max_user_namespaces is 0)" ;;
      seccomp)
        runtime_features | jq -e '.linux.seccomp.enabled' >/dev/null \
          || skip "requires seccomp support in $(runtime_name)" ;;
      seccomp_action_*)
        local a=${r#seccomp_action_}
        runtime_features | jq -e --arg a "$a" '.linux.seccomp.actions // [] | index($a)' >/dev/null \
          || skip "requires $a (not in '$(runtime_name) features')" ;;
      memory_policy)
        runtime_features | jq -e '.linux.memoryPolicy.modes // [] | index("MPOL_BIND")' >/dev/null \
          || skip "requires linux.memoryPolicy (not in '$(runtime_name) features')" ;;
      hook_*)
        local h=${r#hook_}
        runtime_features | jq -e --arg h "$h" '.hooks // [] | index($h)' >/dev/null \
          || skip "requires $h hooks (not in '$(runtime_name) features')" ;;
      python3|cc|ip|unshare|nsenter|setarch|mkfifo|nft)
        command -v "$r" >/dev/null || skip "requires $r on the host" ;;
      *)
        fail "requires: unknown requirement '$r'" ;;
    esac
  done
}

# unsupported_by NAME REASON: skip when the runtime under test is NAME and
# is known not to implement what the test checks (say which version and
# why: this is a statement about that runtime, not a way to hide failures).
unsupported_by ()
{
  [[ $(runtime_name) != "$1" ]] || skip "$1: $2"
}

# runtime_version: x.y.z of the runtime under test (`RUNTIME --version`).
runtime_version ()
{
  "$RUNTIME" --version 2>/dev/null | awk 'NR == 1 { sub(/[^0-9.].*/, "", $3); print $3 }'
}

# unsupported_before NAME VERSION REASON: like unsupported_by, for the
# versions of NAME older than VERSION only (VERSION and later implement it).
unsupported_before ()
{
  local v
  [[ $(runtime_name) == "$1" ]] || return 0
  v=$(runtime_version)
  [[ $(printf '%s\n%s\n' "$v" "$2" | sort -V | head -n 1) == "$2" ]] \
    || skip "$1 $v: $3 ($1 $2 and later do)"
}

# pid_gone PID: no such process, or a zombie its parent has not reaped yet.
pid_gone ()
{
  local st
  st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
  [[ $st == @(|Z) ]]
}

# ---- teardown and leak detection ------------------------------------------

# Every container id the test's --root knows of: from `list -q` and from
# the directories in the root (a half-working runtime may list nothing).
_root_ids ()
{
  {
    runtime list -q 2>/dev/null
    local d
    for d in "$ROOT"/*/; do
      [[ -d $d ]] && basename "$d"
    done
  } | sort -u
}

# Mount points at or below a path (from this mount namespace).
mounts_under ()
{
  awk -v p="$1" '$5 == p || index($5, p "/") == 1 { print $5 }' /proc/self/mountinfo
}

# Cgroup directories (any hierarchy) whose name contains a string.
cgroups_named ()
{
  find /sys/fs/cgroup -mindepth 2 -maxdepth 8 -type d -name "*$1*" 2>/dev/null
}

_my_ancestors ()
{
  local p=$BASHPID stat
  while [[ $p -gt 1 ]]; do
    echo "$p"
    stat=$(<"/proc/$p/stat") 2>/dev/null || break
    stat=${stat##*) }
    read -r _ p _ <<<"$stat"
  done
}

# Processes this test left: those carrying the test tag in their environment,
# or whose working directory is inside the test's directory (a runtime's
# own helper processes), other than this shell and its ancestors.
procs_of_test ()
(
  cd / || exit 1
  mine=" $(_my_ancestors | tr '\n' ' ') "
  {
    grep -slzxF "AGENTRT_TEST_TAG=$CT_ID" /proc/[0-9]*/environ
    find /proc/[0-9]*/cwd -maxdepth 0 \( -lname "$BATS_TEST_TMPDIR" \
      -o -lname "$BATS_TEST_TMPDIR/*" \) -print 2>/dev/null
  } | awk -F/ -v mine="$mine" 'index(mine, " " $3 " ") == 0 { print $3 }' | sort -u
)

# _describe_pid PID: one line for a leak report.
_describe_pid ()
{
  printf '%s %s\n' "$1" "$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)"
}

# teardown_bundle: kill and delete every container in ROOT, undo what the
# test registered with cleanup_add, then fail if anything of this test is
# left: mounts under its directory, cgroups or processes named/tagged with
# its container ids, state in ROOT.  Leftovers are removed either way, so
# one broken test does not break the next.
teardown_bundle ()
{
  local id leaks=() p m c i
  [[ -n ${ROOT:-} ]] || return 0
  for id in $(_root_ids); do
    runtime kill "$id" KILL >/dev/null 2>&1
    runtime delete --force "$id" >/dev/null 2>&1
  done
  for ((i = ${#CLEANUP_CMDS[@]} - 1; i >= 0; i--)); do
    eval "${CLEANUP_CMDS[i]}" >/dev/null 2>&1 || true
  done

  for p in $(procs_of_test); do
    leaks+=("process $(_describe_pid "$p")")
    kill -KILL "$p" 2>/dev/null
  done
  if ((${#leaks[@]} > 0)); then
    for ((i = 0; i < 20; i++)); do
      [[ -z $(procs_of_test) ]] && break
      sleep 0.1
    done
  fi
  while read -r m; do
    [[ -n $m ]] || continue
    leaks+=("mount $m")
    umount -l "$m" 2>/dev/null
  done < <(mounts_under "$BATS_TEST_TMPDIR" | sort -r)
  while read -r c; do
    [[ -n $c ]] || continue
    leaks+=("cgroup $c")
    [[ -f $c/cgroup.procs ]] && xargs -r kill -KILL <"$c/cgroup.procs" 2>/dev/null
    # Children first; rmdir only: never rm -r in a cgroup filesystem.
    find "$c" -depth -type d -exec rmdir {} + 2>/dev/null
  done < <(cgroups_named "$CT_ID")
  for id in $(_root_ids); do
    leaks+=("state $ROOT/$id")
  done
  rm -rf --one-file-system "$ROOT"

  if ((${#leaks[@]} > 0)); then
    printf 'teardown: the test left behind:\n' >&2
    printf '  %s\n' "${leaks[@]}" >&2
    return 1
  fi
}

# ---- small utilities tests share ------------------------------------------

# cap_mask CAP...: the hex mask /proc/PID/status shows for a set of
# capabilities (names like CAP_KILL).
cap_mask ()
{
  local -A num=(
    [CAP_CHOWN]=0 [CAP_DAC_OVERRIDE]=1 [CAP_DAC_READ_SEARCH]=2 [CAP_FOWNER]=3
    [CAP_FSETID]=4 [CAP_KILL]=5 [CAP_SETGID]=6 [CAP_SETUID]=7 [CAP_SETPCAP]=8
    [CAP_LINUX_IMMUTABLE]=9 [CAP_NET_BIND_SERVICE]=10 [CAP_NET_BROADCAST]=11
    [CAP_NET_ADMIN]=12 [CAP_NET_RAW]=13 [CAP_IPC_LOCK]=14 [CAP_IPC_OWNER]=15
    [CAP_SYS_MODULE]=16 [CAP_SYS_RAWIO]=17 [CAP_SYS_CHROOT]=18
    [CAP_SYS_PTRACE]=19 [CAP_SYS_PACCT]=20 [CAP_SYS_ADMIN]=21 [CAP_SYS_BOOT]=22
    [CAP_SYS_NICE]=23 [CAP_SYS_RESOURCE]=24 [CAP_SYS_TIME]=25
    [CAP_SYS_TTY_CONFIG]=26 [CAP_MKNOD]=27 [CAP_LEASE]=28 [CAP_AUDIT_WRITE]=29
    [CAP_AUDIT_CONTROL]=30 [CAP_SETFCAP]=31 [CAP_MAC_OVERRIDE]=32
    [CAP_MAC_ADMIN]=33 [CAP_SYSLOG]=34 [CAP_WAKE_ALARM]=35
    [CAP_BLOCK_SUSPEND]=36 [CAP_AUDIT_READ]=37 [CAP_PERFMON]=38 [CAP_BPF]=39
    [CAP_CHECKPOINT_RESTORE]=40
  )
  local mask=0 c
  for c in "$@"; do
    [[ -n ${num[$c]:-} ]] || { echo "cap_mask: unknown $c" >&2; return 1; }
    mask=$((mask | (1 << num[$c])))
  done
  printf '%016x\n' "$mask"
}

# status_field OUTPUT FIELD: the value of "Field:" in /proc/PID/status text.
status_field ()
{
  awk -v f="$2:" '$1 == f { print $2 }' <<<"$1"
}

# open_bundle_path: the bundle reachable by a bundle's own user namespace's
# root (its init walks the rootfs path as that root): every directory from
# the bats run's down made searchable.
open_bundle_path ()
{
  local d=$BUNDLE
  while [[ $d == "$BATS_RUN_TMPDIR"* ]]; do
    chmod a+x "$d"
    d=$(dirname "$d")
  done
  chmod a+rx "$BUNDLE"
}

# host_dir NAME: an empty directory BATS_TEST_TMPDIR/NAME (printed).
host_dir ()
{
  mkdir -p "$BATS_TEST_TMPDIR/$1" && printf '%s\n' "$BATS_TEST_TMPDIR/$1"
}

# add_mount DEST TYPE SOURCE [OPTION...]: append a mount to the config.
add_mount ()
{
  local dest=$1 type=$2 src=$3
  shift 3
  local opts
  opts=$(jq -n '$ARGS.positional' --args -- "$@") || return 1
  update_config '.mounts += [{destination: $d, type: $t, source: $s, options: $o}]' \
    --arg d "$dest" --arg t "$type" --arg s "$src" --argjson o "$opts"
}

# open_bundle_path: the bundle reachable by a user namespace's mapped root
# (every directory on its way under the test's tmp dir searchable).
open_bundle_path ()
{
  local d=$BUNDLE
  while [[ $d == "$BATS_RUN_TMPDIR"* ]]; do
    chmod a+x "$d"
    d=$(dirname "$d")
  done
  chmod a+rx "$BUNDLE"
}

# add_bind SRC DEST [OPTION...]: a bind mount ("bind" unless OPTIONs say
# rbind).
add_bind ()
{
  local src=$1 dest=$2
  shift 2
  [[ " $* " == *" rbind "* ]] || set -- bind "$@"
  add_mount "$dest" bind "$src" "$@"
}

# ct_cgroup_dir PID CONTROLLER: the host directory of PID's cgroup for that
# v1 controller, or its cgroup2 directory on a pure v2 host.
ct_cgroup_dir ()
{
  local pid=$1 ctrl=$2 rel
  if [[ $(_cgroup_mode) == v2 ]]; then
    rel=$(awk -F: '$1 == "0" { print $3 }' "/proc/$pid/cgroup")
    printf '/sys/fs/cgroup%s\n' "$rel"
    return
  fi
  rel=$(awk -F: -v c="$ctrl" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' "/proc/$pid/cgroup")
  [[ -n $rel ]] || return 1
  printf '/sys/fs/cgroup/%s%s\n' "$ctrl" "$rel"
}

# ns_id PID NS: what /proc/PID/ns/NS points at, e.g. net:[4026531992].
ns_id ()
{
  readlink "/proc/$1/ns/$2"
}

# no_leftovers ID: assert (now, not only in teardown) that nothing of
# container ID exists: state, cgroups, mounts under the test dir, processes.
no_leftovers ()
{
  local id=$1 bad=()
  rt state "$id"
  [[ $status -ne 0 ]] || bad+=("runtime still has state for $id: $output")
  [[ ! -e $ROOT/$id ]] || bad+=("state dir $ROOT/$id")
  [[ -z $(cgroups_named "$id") ]] || bad+=("cgroups: $(cgroups_named "$id" | tr '\n' ' ')")
  [[ -z $(mounts_under "$BATS_TEST_TMPDIR") ]] || bad+=("mounts: $(mounts_under "$BATS_TEST_TMPDIR" | tr '\n' ' ')")
  [[ -z $(procs_of_test) ]] || bad+=("processes: $(procs_of_test | tr '\n' ' ')")
  if ((${#bad[@]} > 0)); then
    printf 'left behind: %s\n' "${bad[@]}" >&2
    return 1
  fi
}

# test_program NAME: a static build of helpers/NAME.c (cached per bats run),
# for what busybox cannot show.  Prints its path.
test_program ()
{
  local src=$INTEGRATION_DIR/helpers/$1.c out=$BATS_RUN_TMPDIR/prog-$1 tmp
  if [[ ! -x $out ]]; then
    tmp=$(mktemp "$out.XXXXXX")
    cc -static -O1 -o "$tmp" "$src" && mv -f "$tmp" "$out" || { rm -f "$tmp"; return 1; }
  fi
  printf '%s\n' "$out"
}

# has_line LINE: $output (of rt/run) contains exactly this line; the order
# of stdout and stderr lines is not reliable, so prefer this to lines[N].
has_line ()
{
  grep -qxF -- "$1" <<<"$output" || fail "no line '$1' in output:"$'\n'"$output"
}
