#!/usr/bin/env bats
# hardening-limits: a bundle that sets no limits still gets the policy's:
# a fork bomb stops at the pids limit, a memory balloon is OOM-killed at
# the memory limit, a process that outlives run.agentrt.timeout is killed;
# each is recorded in the audit trail (`limit` events).  The policy's
# limits are made small here; under the control runtime (runc) the same
# bundle forks, allocates and lives on.

load helpers
load helpers/hardening

setup ()
{
  hardening_setup || return 1
  # the careless bundle sets no limits of its own
  update_config 'del(.linux.resources.pids, .linux.resources.memory)'
  hardening_policy '.limits.pids = 64 | .limits.memory = "64m"'
}

teardown ()
{
  teardown_bundle
}

@test "hardening: a fork bomb stops at the pids limit, recorded" {
  requires cgroup_pids
  requires_control
  # detached, so that the monitor is still there to see the pids event
  # (v1 reports it by polling)
  set_cmd sh -c 'attack forks 200; echo done; sleep 60'
  start_ct
  wait_for_file "$CT_OUT"
  local tries=50
  while ((tries-- > 0)) && ! grep -q "^done$" "$CT_OUT"; do sleep 0.1; done
  output=$(<"$CT_OUT")
  blocked_with "Resource temporarily unavailable"
  local n
  n=$(sed -n 's/^forked \([0-9]*\) of 200$/\1/p' <<<"$output")
  [[ -n $n && $n -lt 64 ]] || fail "forked $n: $output"
  wait_for_audit '.event == "limit" and .limit == "pids"'
  rt_ok delete --force "$CT_ID"

  control_run attack forks 200
  attack_worked
}

# Detached, so that `run`'s delete does not stop the monitor before it has
# written what it saw.
@test "hardening: a memory balloon is OOM-killed at the memory limit, recorded" {
  requires cgroup_memory
  requires_control
  set_cmd attack balloon 256
  start_ct
  # the init itself is the victim: SIGKILL
  wait_for_container "$CT_ID" stopped 100
  wait_for_audit '.event == "limit" and .limit == "oom"'
  wait_for_audit '.event == "exit" and .signal == 9'
  [[ $(<"$CT_OUT") != *ATTACK-OK* ]] || fail "$(<"$CT_OUT")"

  control_run attack balloon 256
  attack_worked
}

@test "hardening: a child's balloon is OOM-killed, the container goes on" {
  requires cgroup_memory
  set_cmd sh -c 'attack balloon 256; echo "balloon=$?"; echo still-here; sleep 60'
  start_ct
  local tries=100
  while ((tries-- > 0)) && ! grep -q still-here "$CT_OUT"; do sleep 0.1; done
  output=$(<"$CT_OUT")
  has_line balloon=137
  has_line still-here
  wait_for_audit '.event == "limit" and .limit == "oom"'
  [[ $(ct_status "$CT_ID") == running ]] || fail "the container did not go on"
}

@test "hardening: run.agentrt.timeout kills a container that outlives it, recorded" {
  requires_control
  add_annotation run.agentrt.timeout 3
  run_ct sh -c 'sleep 4; echo survived'
  check_status 137
  [[ $output != *survived* ]] || fail "$output"
  wait_for_audit '.event == "limit" and .limit == "lifetime"'
  audit_events create | jq -e '.directives.lifetime == 3' >/dev/null || fail "$(audit_events create)"

  control_run sh -c 'sleep 4; echo survived'
  check_status 0
  [[ $output == *survived* ]] || fail "$output"
}

# `agentrt run` in the foreground is its container's monitor itself (no
# process of its own): the limit events it sees are recorded before the
# exit they caused, and the container does not outlive it.
@test "hardening: under agentrt run, an OOM kill of the init is recorded before its exit" {
  requires cgroup_memory
  set_cmd attack balloon 256
  rt run --bundle "$BUNDLE" "$CT_ID"
  check_status 137
  cat "$AUDIT_DIR/$CT_ID.jsonl" | jq -se 'map(.event) | index("limit") < index("exit")' >/dev/null \
    || fail "$(cat "$AUDIT_DIR/$CT_ID.jsonl")"
  audit_events exit | jq -e '.signal == 9' >/dev/null || fail "$(audit_events exit)"
}

@test "hardening: a container dies with its agentrt run, which is its monitor" {
  local rpid init
  set_cmd sleep 1000
  "$RUNTIME" --root "$ROOT" "${RUNTIME_ARGS[@]}" run --bundle "$BUNDLE" "$CT_ID" \
    </dev/null >/dev/null 2>&1 &
  rpid=$!
  wait_for_container "$CT_ID" running
  init=$(ct_pid "$CT_ID")
  [[ $(jq -r .monitorIsRun "$ROOT/$CT_ID/state.json") == true ]] || fail "$(cat "$ROOT/$CT_ID/state.json")"
  ! pgrep -x agentrt-monitor -P "$rpid" >/dev/null || fail "a monitor process was forked"
  kill -KILL "$rpid"
  wait "$rpid" || true
  local tries=50
  while ((tries-- > 0)) && kill -0 "$init" 2>/dev/null; do sleep 0.1; done
  pid_gone "$init" || fail "the container's init $init outlived agentrt run"
  rt_ok delete --force "$CT_ID"
}
