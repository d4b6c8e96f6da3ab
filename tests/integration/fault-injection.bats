#!/usr/bin/env bats
# fault injection: agentrt killed (SIGKILL) at every stage of create,
# start and delete, with the hardening off and on (monitor and egress
# sidecar); after each, `delete --force` leaves nothing: no state dir,
# cgroup (any hierarchy), mount, process of the container (init, monitor,
# sidecar) or network namespace.  Also: the init killed while start waits
# for it, and a full file system under --root (a clear error, no state
# left half-written).  And the monitor fails closed: each operation that
# can fail made to fail (the close_range before its work or the sidecar's
# exec, the lifetime kill, a signal to or a wait for the sidecar, its
# poll, an audit write) is handled: retried, refused with one line, or
# recorded as an incident.  Needs a binary configured with
# --enable-fault-injection (hack/test.sh builds one); release builds skip.
# A sidecar killed mid-transfer is egress.bats' "a killed sidecar leaves
# the agent without egress, recorded"; the sidecar's own failure points
# are tests/egress/run.sh's.

load helpers
load helpers/hardening
load helpers/egress
load helpers/fault

@test "fault: every fault point in the binary has its tests here" {
  requires_fault_points
  local known=" ${FAULT_CREATE_STAGES[*]} ${FAULT_START_STAGES[*]} ${FAULT_DELETE_STAGES[*]} ${FAULT_FAIL_POINTS[*]} " s missing=()
  while read -r s; do
    [[ $known == *" $s "* ]] || missing+=("$s")
  done < <(fault_stages_in_binary)
  ((${#missing[@]} == 0)) || fail "fault points without a test: ${missing[*]}"
  for s in $known; do
    fault_stages_in_binary | grep -qxF "$s" || fail "no fault point $s in $RUNTIME"
  done
}

@test "fault: create killed at state-dir, then delete --force leaves nothing" { fault_create_case create:state-dir plain; }
@test "fault: create killed at state-saved, then delete --force leaves nothing" { fault_create_case create:state-saved plain; }
@test "fault: create killed at spawned, then delete --force leaves nothing" { fault_create_case create:spawned plain; }
@test "fault: create killed at cgroup-made, then delete --force leaves nothing" { fault_create_case create:cgroup-made plain; }
@test "fault: create killed at cgroup, then delete --force leaves nothing" { fault_create_case create:cgroup plain; }
@test "fault: create killed at hooks, then delete --force leaves nothing" { fault_create_case create:hooks plain; }
@test "fault: create killed at init-ready, then delete --force leaves nothing" { fault_create_case create:init-ready plain; }
@test "fault: create killed at monitor, then delete --force leaves nothing" { fault_create_case create:monitor plain; }
@test "fault: create killed at done, then delete --force leaves nothing" { fault_create_case create:done plain; }

@test "fault: hardened create killed at judged (bind sources open, nothing made yet), then delete --force leaves nothing" { fault_create_case create:judged hardened; }
@test "fault: hardened create killed at userns (a range allocated, no state dir), then delete --force leaves nothing" { FAULT_USERNS=auto fault_create_case create:userns hardened; }
@test "fault: hardened create killed at state-dir, then delete --force leaves nothing" { fault_create_case create:state-dir hardened; }
@test "fault: hardened create killed at state-saved, then delete --force leaves nothing" { fault_create_case create:state-saved hardened; }
@test "fault: hardened create killed at monitor-preparing (the monitor forked, no init yet), then delete --force leaves nothing" { fault_create_case create:monitor-preparing hardened; }
@test "fault: hardened create killed at spawned, then delete --force leaves nothing" { fault_create_case create:spawned hardened; }
@test "fault: hardened create killed at cgroup-made, then delete --force leaves nothing" { fault_create_case create:cgroup-made hardened; }
@test "fault: hardened create killed at cgroup, then delete --force leaves nothing" { fault_create_case create:cgroup hardened; }
@test "fault: hardened create killed at hooks, then delete --force leaves nothing" { fault_create_case create:hooks hardened; }
@test "fault: hardened create killed at init-ready, then delete --force leaves nothing" { fault_create_case create:init-ready hardened; }
@test "fault: hardened create killed at monitor-committed (monitor and sidecar not yet recorded), then delete --force leaves nothing" { fault_create_case create:monitor-committed hardened; }
@test "fault: hardened create killed at monitor, then delete --force leaves nothing" { fault_create_case create:monitor hardened; }
@test "fault: hardened create killed at done, then delete --force leaves nothing" { fault_create_case create:done hardened; }

@test "fault: delete of a create killed before making its cgroup leaves a foreign cgroup of that path alone" {
  fault_setup plain
  local name=art-foreign-$CT_ID sleeper h dirs=() d
  update_config ".linux.cgroupsPath = \"/$name\"" || return 1
  # someone else's cgroup at the path the container asks for, in every
  # hierarchy, in use
  sleep 1000 &
  sleeper=$!
  for h in /sys/fs/cgroup/*/; do
    [[ -f $h/cgroup.procs ]] || continue
    mkdir "$h$name" && dirs+=("$h$name")
    if [[ -f $h/cpuset.cpus ]]; then # a v1 cpuset starts empty
      cat "$h/cpuset.cpus" >"$h$name/cpuset.cpus"
      cat "$h/cpuset.mems" >"$h$name/cpuset.mems"
    fi
    echo "$sleeper" >"$h$name/cgroup.procs"
  done
  cleanup_add "kill $sleeper; sleep 0.2; rmdir ${dirs[*]}"
  # killed after recording the planned cgroup, before entering it
  fault_run create:spawned create --bundle "$BUNDLE" "$CT_ID"
  [[ $(jq -r .cgroupPending "$ROOT/$CT_ID/state.json") == true ]]
  rt_ok delete --force "$CT_ID"
  kill -0 "$sleeper" || fail "delete killed a process of a cgroup it did not make"
  for d in "${dirs[@]}"; do
    [[ -d $d ]] || fail "delete removed $d, a cgroup it did not make"
  done
  [[ ! -e $ROOT/$CT_ID ]]
}

@test "fault: start killed at init-checked: still created, a new start runs it" { fault_start_case start:init-checked plain; }
@test "fault: start killed at fifo-open: running or stopped, never stuck" { fault_start_case start:fifo-open plain; }
@test "fault: start killed at released: running, a new start refuses at once" { fault_start_case start:released plain; }
@test "fault: start killed at fifo-removed: running, a new start refuses at once" { fault_start_case start:fifo-removed plain; }
@test "fault: hardened start killed at init-checked: still created, a new start runs it" { fault_start_case start:init-checked hardened; }
@test "fault: hardened start killed at fifo-open: running or stopped, never stuck" { fault_start_case start:fifo-open hardened; }
@test "fault: hardened start killed at released: running, a new start refuses at once" { fault_start_case start:released hardened; }
@test "fault: hardened start killed at fifo-removed: running, a new start refuses at once" { fault_start_case start:fifo-removed hardened; }

@test "fault: delete killed after killing the processes, a second delete --force finishes" { fault_delete_case delete:processes-killed plain; }
@test "fault: delete killed after stopping the helpers, a second delete --force finishes" { fault_delete_case delete:helpers-stopped plain; }
@test "fault: hardened delete killed after killing the processes, a second delete --force finishes" { fault_delete_case delete:processes-killed hardened; }
@test "fault: hardened delete killed after stopping the helpers, a second delete --force finishes" { fault_delete_case delete:helpers-stopped hardened; }
@test "fault: hardened delete killed after releasing the user namespace range, a second delete --force finishes" { FAULT_USERNS=auto fault_delete_case delete:userns-released hardened; }

@test "fault: a hardened container whose create was killed before its monitor ran cannot be started" {
  fault_setup hardened
  fault_run create:monitor-committed create --bundle "$BUNDLE" "$CT_ID"
  [[ $(ct_status "$CT_ID") == created ]] || fail "status $(ct_status "$CT_ID")"
  rt start "$CT_ID"
  [[ $status -ne 0 && $output == *"monitor is not running"* ]] || fail "start: $status: $output"
  [[ $(ct_status "$CT_ID") == created ]] || fail "status $(ct_status "$CT_ID") after the refused start"
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID"
  fault_nothing_left "$CT_ID"
}

# The init killed while start holds its pidfd and is about to open the
# fifo: start fails at once, naming the init, and delete cleans up.
init_killed_during_start ()
{
  fault_setup "$1"
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  local init start_pid stopped='' p tries=50
  init=$(ct_pid "$CT_ID")
  AGENTRT_FAULT_STAGE=start:init-checked AGENTRT_FAULT_SIGNAL=STOP \
    runtime start "$CT_ID" >"$BATS_TEST_TMPDIR/start.out" 2>&1 </dev/null &
  start_pid=$!
  # the agentrt start (under timeout(1)) stopped at the stage
  until [[ -n $stopped ]]; do
    ((tries-- > 0)) || fail "start did not reach start:init-checked"
    sleep 0.1
    for p in $(fault_pids "$CT_ID"); do
      [[ $(tr '\0' ' ' <"/proc/$p/cmdline") == *" start $CT_ID "* \
        && $(awk '$1 == "State:" { print $2 }' "/proc/$p/status") == T ]] && stopped=$p
    done
  done
  kill -KILL "$init"
  kill -CONT "$stopped"
  wait "$start_pid" && status=0 || status=$?
  output=$(<"$BATS_TEST_TMPDIR/start.out")
  [[ $status -ne 0 && $output == *"init exited before it was started"* ]] \
    || fail "start: $status: $output"
  [[ $(ct_status "$CT_ID") == stopped ]] || fail "status $(ct_status "$CT_ID")"
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID"
  fault_nothing_left "$CT_ID"
}

@test "fault: the init killed during start: start fails naming it, delete cleans up" {
  init_killed_during_start plain
}

@test "fault: hardened: the init killed during start: start fails naming it, delete cleans up" {
  init_killed_during_start hardened
  # the monitor recorded the exit before it went
  audit_events exit | jq -e --arg id "$CT_ID" 'select(.id == $id)' >/dev/null \
    || fail "no exit record: $(cat "$AUDIT_DIR"/*.jsonl)"
}

@test "fault: a full file system under --root: create fails clearly and leaves no state" {
  requires root agentrt
  small_root 512
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  local first=$CT_ID id=$CT_ID-2
  fill_small_fs 0
  rt create --bundle "$BUNDLE" "$id"
  [[ $status -ne 0 ]] || fail "create succeeded on a full file system"
  [[ $output == *"No space left on device"* ]] || fail "not a clear error: $output"
  [[ ${#lines[@]} -eq 1 ]] || fail "more than one line: $output"
  [[ ! -e $ROOT/$id ]] || fail "left behind: $(ls -la "$ROOT/$id")"
  [[ -z $(cgroups_named "$id") ]] || fail "cgroups: $(cgroups_named "$id")"
  fault_no_processes "$id"
  # the container made before the disk filled is untouched, and goes
  rt_ok state "$first"
  rt_ok list -q
  [[ $output == "$first" ]] || fail "list: $output"
  rt_ok delete --force "$first"
}

# fills_up plain|hardened: creates with less and less room under --root.
fills_up ()
{
  requires root agentrt
  [[ $1 == plain ]] || hardening_policy
  small_root 512
  local kib id outcomes=()
  for kib in 0 4 8 12 16 24 32 48 64; do
    fill_small_fs "$kib"
    id=$CT_ID-$kib
    rt create --bundle "$BUNDLE" "$id"
    if [[ $status -eq 0 ]]; then
      outcomes+=("$kib:ok")
      rt_ok state "$id"
      rt_ok delete --force "$id"
    else
      outcomes+=("$kib:refused")
      [[ $output == *"No space left on device"* ]] || fail "$kib KiB free: not a clear error: $output"
    fi
    [[ ! -e $ROOT/$id ]] || fail "$kib KiB free: left behind: $(ls -la "$ROOT/$id")"
    [[ -z $(cgroups_named "$id") ]] || fail "$kib KiB free: cgroups: $(cgroups_named "$id")"
    fault_no_processes "$id"
  done
  echo "# free KiB and outcome: ${outcomes[*]}" >&3
  [[ ${outcomes[0]} == 0:refused ]] || fail "${outcomes[*]}"
}

@test "fault: a file system under --root that fills up during create: done or undone, never half-written" {
  fills_up plain
}

@test "fault: hardened: a file system under --root that fills up during create: done or undone, never half-written" {
  fills_up hardened
}

# ---- the monitor fails closed ------------------------------------------------

@test "fault: the monitor's close_range failing: create fails naming it, nothing left" {
  fault_fail_create monitor:close-range "monitor: close the runtime's other fds (close_range)" \
    "Input/output error"
}

# sidecar_start_fails POINT JQ: with POINT failing, the agent's first
# connection starts no sidecar: the trail's `sidecar` line passes JQ, the
# proxy port refuses, the container runs on, and delete leaves nothing.
sidecar_start_fails ()
{
  fault_setup hardened
  AGENTRT_FAULT_FAIL=$1 start_ct
  egress_first_connection
  wait_for_audit '.event == "sidecar"'
  audit_events sidecar | jq -e "$2" >/dev/null || fail "$(audit_events sidecar)"
  [[ -z $(egress_sidecar_pid) ]] || fail "a sidecar runs"
  rt exec "$CT_ID" sh -c 'busybox nc -w 2 127.0.0.1 3128 </dev/null 2>&1; echo proxy=$?'
  has_line "proxy=1"
  [[ $(ct_status "$CT_ID") == running ]] || fail "status $(ct_status "$CT_ID")"
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID"
  fault_nothing_left "$CT_ID"
}

@test "fault: the close_range before the sidecar's fork failing: no sidecar, no egress, recorded, nothing left" {
  sidecar_start_fails monitor:sidecar-close-range '.status == null and (.detail | contains(
    "the egress proxy could not start (start the egress sidecar: close_range (mark every fd close-on-exec): Input/output error)"))'
}

@test "fault: a sidecar that cannot exec: the agent has no egress, and its death says why" {
  sidecar_start_fails monitor:sidecar-exec '.status == 32512 and (.detail | contains(
    "the egress proxy stopped, it could not start: execve: Input/output error"))'
}

@test "fault: the approver's socket cannot be connected: created all the same, nothing asked, recorded" {
  requires_fault_points
  local sock=$BATS_TEST_TMPDIR/approve.sock pid
  # an approver that listens (and never answers): only the fault stops
  # the monitor from reaching it
  python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); time.sleep(120)' "$sock" &
  pid=$!
  cleanup_add "kill $pid"
  for _ in $(seq 50); do [[ -S $sock ]] && break; sleep 0.1; done
  hardening_policy '.egress.ask = {socket: $s, timeout: 2}' --arg s "$sock" || return 1
  AGENTRT_FAULT_FAIL=monitor:approver-connect start_ct
  # the monitor connects when it starts the sidecar: at the first connection
  egress_first_connection
  wait_for_audit '.event == "incident"'
  run audit_events incident
  [[ $output == *"the approver at $sock cannot be reached (Input/output error)"* ]] || fail "$output"
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID"
  fault_nothing_left "$CT_ID"
}

@test "fault: a create event that cannot be written (ENOSPC): create fails naming it, nothing left" {
  AGENTRT_FAULT_ERRNO=28 fault_fail_create audit:write "audit: write the create event" \
    "No space left on device"
}

@test "fault: an exec whose audit line cannot be written does not run" {
  fault_setup hardened
  start_ct
  AGENTRT_FAULT_FAIL=audit:write AGENTRT_FAULT_ERRNO=28 rt exec "$CT_ID" touch /tmp/ran
  [[ $status -ne 0 && ${#lines[@]} -eq 1 && $output == *"audit: write the exec event: No space left on device"* ]] \
    || fail "exec: $status: $output"
  rt exec "$CT_ID" test -e /tmp/ran
  [[ $status -eq 1 ]] || fail "the exec ran ($status: $output)"
}

# lifetime_case COUNT: a container that outlives its lifetime (1 s) whose
# kill fails the first COUNT times (empty: always).
lifetime_case ()
{
  fault_setup hardened
  add_annotation run.agentrt.timeout 1
  set_cmd sleep 100
  AGENTRT_FAULT_FAIL=monitor:lifetime-kill AGENTRT_FAULT_COUNT=$1 rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
}

@test "fault: a lifetime kill that fails is retried and recorded, until it works" {
  lifetime_case 2
  # attempts after 1 s, then 1 s and 2 s later: the third works
  wait_for_audit '.event == "exit"' 100
  trail_of "$CT_ID" 'map(select(.event != "create"))
    | map(.event + ":" + (.limit // .incident // "") + ":" + (.detail // (.signal | tostring)))' \
    | jq -r '.[]' >"$BATS_TEST_TMPDIR/events"
  local want=(
    "limit:lifetime:lifetime of 1 s reached: the container is killed"
    "incident:lifetime-kill:attempt 1 failed: kill the container: Input/output error; next check in 1 s"
    "incident:lifetime-kill:the container still runs 1 s after its lifetime kill; attempt 2 failed: kill the container: Input/output error; next check in 2 s"
    "incident:lifetime-kill:the container still runs 2 s after its lifetime kill; attempt 3 done; next check in 4 s"
    "exit::9"
  )
  diff <(printf '%s\n' "${want[@]}") "$BATS_TEST_TMPDIR/events" \
    || fail "the trail: $(cat "$AUDIT_DIR/$CT_ID.jsonl")"
  wait_for_container "$CT_ID" stopped
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID"
  fault_nothing_left "$CT_ID"
}

@test "fault: a lifetime kill that never works is an incident each time, and delete --force still ends it" {
  lifetime_case ''
  wait_for_audit '.event == "incident" and (.detail | contains("attempt 3 failed"))' 100
  [[ $(ct_status "$CT_ID") == running ]] || fail "status $(ct_status "$CT_ID")"
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID"
  fault_nothing_left "$CT_ID"
}

@test "fault: a monitor line that cannot be written at first (ENOSPC) is written later, and the trail says so" {
  fault_setup hardened
  add_annotation run.agentrt.timeout 1
  set_cmd sleep 100
  # the monitor's first line is the lifetime's
  AGENTRT_FAULT_FAIL=audit:trail-write AGENTRT_FAULT_COUNT=1 AGENTRT_FAULT_ERRNO=28 \
    rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_for_audit '.event == "exit"' 50
  [[ $(trail_of "$CT_ID" 'map(.event) | join(" ")') == '"create limit audit exit"' ]] \
    || fail "$(cat "$AUDIT_DIR/$CT_ID.jsonl")"
  trail_of "$CT_ID" '.[2]' | jq -e '.late == 1 and .lost == 0 and .error == "No space left on device"' >/dev/null \
    || fail "$(trail_of "$CT_ID" '.[2]')"
}

@test "fault: a sidecar that cannot be signalled is an incident, and it still goes with the init" {
  fault_setup hardened
  set_cmd sleep 2
  AGENTRT_FAULT_FAIL=monitor:sidecar-kill rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  [[ -n $(egress_sidecar_started) ]] || fail "no sidecar"
  wait_for_audit '.event == "incident" and .incident == "sidecar-stop"' 50
  audit_events incident | grep -q 'the egress proxy (pid [0-9]*) cannot be stopped: Input/output error' \
    || fail "$(audit_events incident)"
  [[ -n $(audit_events exit) ]] || fail "no exit record"
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID"
  fault_nothing_left "$CT_ID"
}

@test "fault: a sidecar whose death cannot be reaped is recorded with an unknown status" {
  fault_setup hardened
  AGENTRT_FAULT_FAIL=monitor:sidecar-waitpid AGENTRT_FAULT_COUNT=1 start_ct
  local sidecar
  sidecar=$(egress_sidecar_started)
  [[ -n $sidecar ]] || fail "no sidecar"
  kill -KILL "$sidecar"
  wait_for_audit '.event == "sidecar"'
  audit_events sidecar | jq -e '.status == -1' >/dev/null || fail "$(audit_events sidecar)"
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID"
  fault_nothing_left "$CT_ID"
}

@test "fault: a monitor that cannot poll any more kills its container and says why" {
  fault_setup hardened
  AGENTRT_FAULT_FAIL=monitor:poll rt_ok create --bundle "$BUNDLE" "$CT_ID"
  wait_for_audit '.event == "incident" and .incident == "monitor"'
  audit_events incident | grep -q 'the monitor cannot watch the container any more (poll: Input/output error): the container is killed' \
    || fail "$(audit_events incident)"
  wait_for_audit '.event == "exit" and .signal == 9'
  wait_for_container "$CT_ID" stopped
  fault_snapshot "$CT_ID"
  rt_ok delete --force "$CT_ID"
  fault_nothing_left "$CT_ID"
}

# ---- the transparent path fails closed ----------------------------------------

@test "fault: the transparent path's rules failing (a kernel without nftables NAT): create fails naming them, nothing left" {
  # the fault is that kernel's answer (ENOENT for the nat chain), read as
  # the kernel's own would be: the message names the refused message
  AGENTRT_FAULT_ERRNO=2 fault_fail_create netns:nft-rules \
    "transparent egress: nftables rules in the agent's network namespace" \
    "chain intercept (type nat hook output priority -100): No such file or directory" \
    "nft_chain_nat, nft_redir" "egress.transparent false keeps proxy-only egress"
}

@test "fault: the same when the init installs them (run in the foreground); egress.transparent false does without them" {
  fault_setup hardened
  set_cmd true
  AGENTRT_FAULT_FAIL=netns:nft-rules rt run --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 && $output == *"transparent egress: nftables rules"* ]] || fail "status $status: $output"
  fault_no_processes "$CT_ID"
  no_leftovers "$CT_ID"
  hardening_policy '.egress.transparent = false'
  AGENTRT_FAULT_FAIL=netns:nft-rules rt run --bundle "$BUNDLE" "$CT_ID"
  check_status 0
  audit_events create | jq -se 'any(.[]; .directives.network.rules == "none")' >/dev/null \
    || fail "$(audit_events create)"
}
