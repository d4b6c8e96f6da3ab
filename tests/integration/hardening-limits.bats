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
  while ((tries-- > 0)) && ! grep -q done "$CT_OUT"; do sleep 0.1; done
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

@test "hardening: a memory balloon is OOM-killed at the memory limit, recorded" {
  requires cgroup_memory
  requires_control
  run_ct attack balloon 256
  # the init itself was the victim: SIGKILL
  check_status 137
  [[ $output != *ATTACK-OK* ]] || fail "$output"
  wait_for_audit '.event == "limit" and .limit == "oom"'

  control_run attack balloon 256
  attack_worked
}

@test "hardening: a child's balloon is OOM-killed, the container goes on" {
  requires cgroup_memory
  run_ct sh -c 'attack balloon 256; echo "balloon=$?"; echo still-here'
  check_status 0
  has_line balloon=137
  has_line still-here
  wait_for_audit '.event == "limit" and .limit == "oom"'
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
