#!/usr/bin/env bats
# pause and resume: the cgroup freezer (v1 freezer.state, v2
# cgroup.freeze), the states they report, and what a paused container
# still allows (kill, delete --force) or refuses.

load helpers

# The process appends a line to a host file every 50 ms: lines that stop
# coming mean frozen (a file rewritten in place could read empty).
ticking_container ()
{
  TICKS=$(host_dir ticks)
  add_bind "$TICKS" /ticks
  set_cmd sh -c 'while :; do echo t >>/ticks/t; sleep 0.05; done'
  start_ct
  wait_for_file "$TICKS/t"
}

ticks ()
{
  wc -l <"$TICKS/t"
}

# frozen_value: what the container's cgroup says about the freezer.
frozen_value ()
{
  local dir
  dir=$(ct_cgroup_dir "$(ct_pid "$CT_ID")" freezer) || return 1
  if [[ $(_cgroup_mode) == v2 ]]; then
    cat "$dir/cgroup.freeze"
  else
    cat "$dir/freezer.state"
  fi
}

@test "pause: the container's processes stop until resume" {
  requires root cgroup_freezer
  ticking_container
  rt_ok pause "$CT_ID"
  [[ $(ct_status "$CT_ID") == paused ]]
  [[ $(frozen_value) == @(FROZEN|1) ]] || fail "freezer: $(frozen_value)"
  local a b c
  a=$(ticks)
  sleep 0.5
  b=$(ticks)
  [[ $a == "$b" ]] || fail "ticks went on while paused: $a -> $b"
  rt_ok resume "$CT_ID"
  [[ $(ct_status "$CT_ID") == running ]]
  [[ $(frozen_value) == @(THAWED|0) ]] || fail "freezer: $(frozen_value)"
  sleep 0.5
  c=$(ticks)
  ((c > b)) || fail "no ticks after resume: $b -> $c"
}

@test "pause: a paused container is killed by KILL and then deleted" {
  requires root cgroup_freezer
  ticking_container
  rt_ok pause "$CT_ID"
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
  rt_ok delete "$CT_ID"
  no_leftovers "$CT_ID"
}

@test "pause: a created container paused, then killed, stops" {
  requires root agentrt cgroup_freezer
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok pause "$CT_ID"
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
  rt_ok delete "$CT_ID"
  no_leftovers "$CT_ID"
}

@test "pause: delete --force removes a paused container" {
  requires root cgroup_freezer
  ticking_container
  rt_ok pause "$CT_ID"
  rt_ok delete --force "$CT_ID"
  no_leftovers "$CT_ID"
}

@test "pause: resume of a running container and pause of a stopped one are errors" {
  requires root cgroup_freezer
  ticking_container
  rt resume "$CT_ID"
  [[ $status -ne 0 ]] || fail "resume of a running container succeeded"
  [[ $(ct_status "$CT_ID") == running ]]
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
  rt pause "$CT_ID"
  [[ $status -ne 0 ]] || fail "pause of a stopped container succeeded"
  rt pause "$CT_ID-none"
  [[ $status -ne 0 ]] || fail "pause of an unknown id succeeded"
}

@test "pause: exec into a paused container is refused" {
  requires root cgroup_freezer
  ticking_container
  rt_ok pause "$CT_ID"
  rt exec "$CT_ID" true
  [[ $status -ne 0 ]] || fail "exec into a paused container succeeded"
  [[ ${#lines[@]} -eq 1 && $output == *paused* ]] || fail "$output"
}

@test "pause: exec --ignore-paused starts a process that runs on resume" {
  requires root cgroup_freezer
  unsupported_by runc "1.1: its exec joins the frozen cgroup before setting up and hangs"
  ticking_container
  rt_ok pause "$CT_ID"
  rt_ok exec --detach --ignore-paused --pid-file "$BATS_TEST_TMPDIR/exec.pid" \
    "$CT_ID" sh -c 'echo exec >>/ticks/exec'
  # in every hierarchy of the container's cgroup (devices, pids, memory
  # too), frozen with the rest until resume
  local pid
  pid=$(<"$BATS_TEST_TMPDIR/exec.pid")
  [[ $(<"/proc/$pid/cgroup") == "$(<"/proc/$(ct_pid "$CT_ID")/cgroup")" ]] \
    || fail "the exec'd process is not in the container's cgroups: $(<"/proc/$pid/cgroup")"
  sleep 0.3
  [[ ! -s $TICKS/exec ]] || fail "the exec'd process ran while paused"
  rt_ok resume "$CT_ID"
  wait_for_file "$TICKS/exec"
}

@test "pause: a hardened paused container is killed and deleted, its helpers too" {
  requires root agentrt cgroup_freezer
  load helpers/hardening
  load helpers/egress
  hardening_policy
  ticking_container
  local helpers pid
  helpers="$(jq -r '.monitorPid' "$ROOT/$CT_ID/state.json") $(egress_sidecar_started)"
  [[ $(wc -w <<<"$helpers") -eq 2 ]] || fail "monitor and sidecar: '$helpers'"
  rt_ok pause "$CT_ID"
  rt_ok delete --force "$CT_ID"
  no_leftovers "$CT_ID"
  # gone, or a zombie (this VM's pid 1 does not reap the daemonized monitor)
  for pid in $helpers; do
    [[ ! -e /proc/$pid || $(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) == Z* ]] \
      || fail "helper $pid still there: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
  done
}
