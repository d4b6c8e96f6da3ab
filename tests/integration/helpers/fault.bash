# shellcheck shell=bash
# tests/integration/helpers/fault.bash: what fault-injection.bats uses.
# An agentrt built with `configure --enable-fault-injection` stops dead
# (SIGKILL) at the stage named by AGENTRT_FAULT_STAGE, or stops (SIGSTOP)
# there with AGENTRT_FAULT_SIGNAL=STOP; and the operation at the point
# named by AGENTRT_FAULT_FAIL fails (errno AGENTRT_FAULT_ERRNO, default
# EIO; the first AGENTRT_FAULT_COUNT times, default always) (runtime/fault.h).
# Release builds have no fault points: the tests skip.  Load after
# helpers.bash and helpers/hardening.bash.

# Every fault point, in the order a create, start and delete pass them.
# shellcheck disable=SC2034 # used by fault-injection.bats
FAULT_CREATE_STAGES=(create:judged create:userns create:state-dir create:state-saved
  create:monitor-preparing create:spawned create:cgroup-made create:cgroup
  create:hooks create:init-ready create:monitor-committed create:monitor
  create:done)
FAULT_START_STAGES=(start:init-checked start:fifo-open start:released
  start:fifo-removed)
FAULT_DELETE_STAGES=(delete:processes-killed delete:helpers-stopped
  delete:userns-released)
# The failure points of agentrt (agentrt-egress's, egress:*, are
# tests/egress/run.sh's).
# shellcheck disable=SC2034 # used by fault-injection.bats
FAULT_FAIL_POINTS=(monitor:close-range monitor:sidecar-close-range
  monitor:sidecar-exec monitor:lifetime-kill monitor:sidecar-kill monitor:sidecar-waitpid
  monitor:poll audit:write audit:trail-write netns:nft-rules
  monitor:approver-connect)

# requires_fault_points: root, agentrt, and a binary with fault points.
requires_fault_points ()
{
  requires root agentrt
  grep -qaF create:spawned "$RUNTIME" \
    || skip "$RUNTIME has no fault points (configure --enable-fault-injection)"
}

# stopped_process PGREP-ARGS...: the pid of a process pgrep finds that is
# stopped (a runtime that reached AGENTRT_FAULT_SIGNAL=STOP's stage),
# waiting up to 10 s; fails when there is none.
stopped_process ()
{
  local i p
  for ((i = 0; i < 100; i++)); do
    for p in $(pgrep "$@"); do
      if [[ $(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null) == T ]]; then
        echo "$p"
        return 0
      fi
    done
    sleep 0.1
  done
  return 1
}

# fault_setup plain|hardened: the bundle (sleep inf, a prestart hook so
# that create:hooks is reached) under the hardening-off policy or a
# default-style hardened one (monitor and egress sidecar).
fault_setup ()
{
  requires_fault_points
  update_config '.hooks.prestart = [{path: "/bin/true"}]' || return 1
  if [[ $1 == hardened ]]; then
    # FAULT_USERNS=auto: with the container's own user namespace
    hardening_policy "${FAULT_USERNS:+.userns.mode = \"$FAULT_USERNS\"}" || return 1
  fi
}

# fault_run STAGE ARGS...: the runtime killed at STAGE; the kill must have
# happened (status 137), or the stage was never reached.
# shellcheck disable=SC2154 # status and output come from rt
fault_run ()
{
  local stage=$1
  shift
  AGENTRT_FAULT_STAGE=$stage rt "$@"
  [[ $status -eq 137 ]] \
    || fail "$* with AGENTRT_FAULT_STAGE=$stage: status $status, not killed there: $output"
}

# Pids whose command line or environment names container ID: the init
# (before exec it is a copy of `agentrt create ... ID`; after, it carries
# AGENTRT_TEST_TAG=ID), the monitor (a fork of create) and the sidecar
# (--id ID).  The pattern comes from a file, so grep does not find itself.
fault_pids ()
{
  (
    cd / || exit 1
    grep -laF -f <(printf '%s\n' "$1") /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null \
      | cut -d/ -f3 | sort -u
  )
}

# fault_snapshot ID: what exists of the container after the kill, for
# fault_nothing_left: FAULT_PIDS (its processes) and FAULT_NETNS (its
# init's network namespace when it is not ours).
fault_snapshot ()
{
  local pid
  mapfile -t FAULT_PIDS < <(fault_pids "$1")
  FAULT_NETNS=
  pid=$(jq -r '.pid // 0' "$ROOT/$1/state.json" 2>/dev/null) || pid=0
  if [[ $pid -gt 0 && -e /proc/$pid/ns/net ]]; then
    FAULT_NETNS=$(readlink "/proc/$pid/ns/net")
    [[ $FAULT_NETNS != "$(readlink /proc/self/ns/net)" ]] || FAULT_NETNS=
  fi
}

_alive ()
{
  [[ -e /proc/$1 && $(awk '$1 == "State:" { print $2 }' "/proc/$1/status" 2>/dev/null) != Z ]]
}

# fault_nothing_left ID: no state, state dir, cgroup in any hierarchy,
# mount under the test's directory, process of the container (those of
# the snapshot and any found now; processes that were not in the state
# die on their own once the init is gone: polled for up to 5 s) and no
# process or mount holding the init's network namespace.
fault_nothing_left ()
{
  local id=$1 tries=50 left=()
  while ((tries-- > 0)); do
    mapfile -t left < <(_fault_left "$id")
    ((${#left[@]} == 0)) && break
    sleep 0.1
  done
  ((${#left[@]} == 0)) || printf 'left behind: %s\n' "${left[@]}" >&2
  no_leftovers "$id" && ((${#left[@]} == 0))
}

# fault_no_processes ID: no process of container ID (polled for up to 5 s).
fault_no_processes ()
{
  local tries=50
  while [[ -n $(fault_pids "$1") ]]; do
    ((tries-- > 0)) || fail "processes of $1 left: $(fault_pids "$1")"
    sleep 0.1
  done
}

# What is left of container ID now (one line each): its processes, and
# holders of its network namespace (processes in it, nsfs mounts of it).
_fault_left ()
{
  local p ns=${FAULT_NETNS//[^0-9]/}
  for p in "${FAULT_PIDS[@]}" $(fault_pids "$1"); do
    _alive "$p" && echo "process $(_describe_pid "$p")"
  done
  [[ -n $ns ]] || return 0
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/ns/net" 2>/dev/null) == "$FAULT_NETNS" ]] \
      && echo "process in $FAULT_NETNS: $(_describe_pid "${p#/proc/}")"
  done
  grep -F "$FAULT_NETNS" /proc/self/mountinfo | sed 's/^/mount of the netns: /'
}

# fault_create_case STAGE plain|hardened: create killed at STAGE, then
# `delete --force` removes everything.
fault_create_case ()
{
  fault_setup "$2" || return 1
  fault_run "$1" create --bundle "$BUNDLE" "$CT_ID" || return 1
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID" || return 1
  fault_nothing_left "$CT_ID"
}

# fault_start_case STAGE plain|hardened: start killed at STAGE.  The state
# must tell the truth: created while the init still waits at the exec
# fifo (then a new start runs it), running once the program runs (a new
# start refuses at once instead of waiting forever).  Killed right after
# it opened the fifo, start may also leave the init released with nobody
# reading (it then runs) or writing into a closed fifo (it then dies):
# running or stopped.  Then `delete --force` removes everything.
fault_start_case ()
{
  local want=running got tries=50
  fault_setup "$2" || return 1
  rt_ok create --bundle "$BUNDLE" "$CT_ID" || return 1
  fault_run "$1" start "$CT_ID" || return 1
  case $1 in
    start:init-checked) want=created ;;
    start:fifo-open) want='running|stopped' ;;
  esac
  while got=$(ct_status "$CT_ID"); [[ ! $got =~ ^($want)$ ]]; do
    ((tries-- > 0)) || fail "status '$got' after start was killed at $1, expected $want"
    sleep 0.1
  done
  rt start "$CT_ID"
  case $got in
    created) check_status 0 && wait_for_container "$CT_ID" running || return 1 ;;
    *) [[ $status -ne 0 && $output == *"$got state"* ]] \
      || fail "a new start of the $got container after $1: status $status: $output" ;;
  esac
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID" || return 1
  fault_nothing_left "$CT_ID"
}

# fault_delete_case STAGE plain|hardened: delete --force of a running
# container killed at STAGE; a second one finishes the job.
fault_delete_case ()
{
  fault_setup "$2" || return 1
  start_ct || return 1
  fault_snapshot "$CT_ID"
  fault_run "$1" delete --force "$CT_ID" || return 1
  rt_ok delete --force "$CT_ID" || return 1
  fault_nothing_left "$CT_ID"
}

# fault_stages_in_binary: the stage and failure point names compiled into
# $RUNTIME.
fault_stages_in_binary ()
{
  grep -aoE '(create|start|delete|monitor|audit|netns):[a-z][a-z-]*[a-z]' "$RUNTIME" | sort -u
}

# fault_fail_create POINT WORD...: a hardened create whose POINT fails is
# refused with one line naming every WORD, and leaves nothing.
# shellcheck disable=SC2154 # status and output come from rt
fault_fail_create ()
{
  local point=$1
  shift
  fault_setup hardened || return 1
  AGENTRT_FAULT_FAIL=$point rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]] || fail "create succeeded with $point failing"
  [[ ${#lines[@]} -eq 1 ]] || fail "not one line: $output"
  local w
  for w in "$@"; do
    [[ $output == *"$w"* ]] || fail "the message does not name '$w': $output"
  done
  fault_no_processes "$CT_ID"
  no_leftovers "$CT_ID"
}

# trail_of ID [JQ-FILTER]: the container's trail as one JSON array (the
# events in order), through FILTER.
trail_of ()
{
  jq -sc "${2:-.}" "$AUDIT_DIR/$1.jsonl"
}

# small_root KIB: ROOT becomes a directory on a KIB-sized tmpfs of the
# test's own (unmounted in teardown, after the containers are deleted).
small_root ()
{
  local dir=$BATS_TEST_TMPDIR/small
  mkdir -p "$dir" || return 1
  mount -t tmpfs -o "size=${1}k,mode=0700" agentrt-test-small "$dir" || return 1
  cleanup_add "umount -l '$dir'"
  ROOT=$dir/state
  SMALL_FS=$dir
}

# fill_small_fs [KIB-LEFT]: fill SMALL_FS, leaving about KIB-LEFT free.
fill_small_fs ()
{
  local keep=${1:-0} avail
  rm -f "$SMALL_FS/fill"
  avail=$(df -k --output=avail "$SMALL_FS" | tail -n 1)
  if ((avail > keep)); then
    dd if=/dev/zero of="$SMALL_FS/fill" bs=1k count=$((avail - keep)) status=none 2>/dev/null || true
  fi
}
