#!/usr/bin/env bats
# start: runs the user process of a created container, once.

load helpers

@test "start: the user process runs and the status becomes running" {
  requires root
  marks=$(host_dir marks)
  add_bind "$marks" /marks
  set_cmd sh -c 'echo ran > /marks/ran; exec sleep inf'
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  pid=$(ct_pid "$CT_ID")
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" running
  wait_for_file "$marks/ran"
  # The pid from create is the user process.
  [[ $(ct_pid "$CT_ID") == "$pid" ]]
  [[ $(readlink "/proc/$pid/exe") == */busybox* ]] || [[ $(tr '\0' ' ' <"/proc/$pid/cmdline") == "sleep inf " ]]
}

@test "start: a second start is an error and does not disturb the container" {
  requires root
  start_ct
  pid=$(ct_pid "$CT_ID")
  rt start "$CT_ID"
  [[ $status -ne 0 ]]
  [[ $(ct_status "$CT_ID") == running ]]
  [[ $(ct_pid "$CT_ID") == "$pid" ]]
}

@test "start: an unknown id is an error" {
  requires root
  rt start "$CT_ID-none"
  [[ $status -ne 0 ]]
}

@test "start: a stopped container cannot be started again" {
  requires root
  set_cmd true
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" stopped
  rt start "$CT_ID"
  [[ $status -ne 0 ]]
  [[ $(ct_status "$CT_ID") == stopped ]]
}

@test "start: the container stops when its process exits" {
  requires root
  set_cmd sh -c 'sleep 0.2'
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" stopped
}

@test "start: the process sees the config's args, env and cwd" {
  requires root
  update_config '.process.env += ["GREETING=hello world"] | .process.cwd = "/tmp"'
  set_cmd sh -c 'echo "[$0] [$1] [$GREETING] [$(pwd)]"' 'arg zero' 'arg "one"'
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  out=$RT_OUT
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" stopped
  [[ $(<"$out") == '[arg zero] [arg "one"] [hello world] [/tmp]' ]] || fail "got: $(<"$out")"
}
