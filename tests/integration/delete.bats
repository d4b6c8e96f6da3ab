#!/usr/bin/env bats
# delete: removes a stopped container and everything it owned; --force also
# kills a running one; the exit statuses engines depend on.

load helpers

@test "delete: a stopped container goes away with its state and cgroup" {
  requires root
  set_cmd true
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" stopped
  rt_ok delete "$CT_ID"
  no_leftovers "$CT_ID"
  rt_ok list -q
  [[ $output != *"$CT_ID"* ]]
}

@test "delete: a running container without --force is an error and keeps running" {
  requires root
  start_ct
  pid=$(ct_pid "$CT_ID")
  rt delete "$CT_ID"
  [[ $status -ne 0 ]]
  [[ $(ct_status "$CT_ID") == running ]]
  kill -0 "$pid"
}

@test "delete --force: kills a running container and removes everything" {
  requires root
  start_ct
  pid=$(ct_pid "$CT_ID")
  rt_ok delete --force "$CT_ID"
  pid_gone "$pid" || fail "the init $pid is still alive"
  no_leftovers "$CT_ID"
}

@test "delete --force: a created (never started) container" {
  requires root
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  pid=$(ct_pid "$CT_ID")
  rt_ok delete --force "$CT_ID"
  pid_gone "$pid" || fail "the init $pid is still alive"
  no_leftovers "$CT_ID"
}

@test "delete --force of an unknown id succeeds (containerd's shim sends it after delete)" {
  requires root
  rt_ok delete --force "$CT_ID-none"
  # ... and twice in a row on a real container.
  set_cmd true
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok delete --force "$CT_ID"
  rt_ok delete --force "$CT_ID"
}

@test "delete: an unknown id is an error" {
  requires root
  rt delete "$CT_ID-none"
  [[ $status -ne 0 ]]
  [[ -n $output ]]
}

@test "delete: the id can be reused afterwards" {
  requires root
  start_ct
  rt_ok delete --force "$CT_ID"
  start_ct
  [[ $(ct_status "$CT_ID") == running ]]
}
