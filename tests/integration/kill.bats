#!/usr/bin/env bats
# kill: signals by name and number, --all, and the exit statuses engines
# depend on.

load helpers

# The process records the signals it catches in a host directory.
trapping_process ()
{
  MARKS=$(host_dir marks)
  add_bind "$MARKS" /marks
  set_cmd sh -c 'for s in TERM USR1 HUP; do trap "echo $s >> /marks/got" $s; done
    echo ready > /marks/ready
    while :; do sleep 0.05; done'
}

@test "kill: the default signal is SIGTERM" {
  requires root
  trapping_process
  start_ct
  wait_for_file "$MARKS/ready"
  rt_ok kill "$CT_ID"
  wait_for_file "$MARKS/got"
  [[ $(<"$MARKS/got") == TERM ]]
}

@test "kill: signals by name, SIG-name and number" {
  requires root
  trapping_process
  start_ct
  wait_for_file "$MARKS/ready"
  rt_ok kill "$CT_ID" USR1
  rt_ok kill "$CT_ID" SIGHUP
  rt_ok kill "$CT_ID" 15
  for ((i = 0; i < 50; i++)); do
    [[ $(wc -l <"$MARKS/got" 2>/dev/null) -ge 3 ]] && break
    sleep 0.1
  done
  [[ $(sort "$MARKS/got" | tr '\n' ' ') == "HUP TERM USR1 " ]] || fail "got: $(cat "$MARKS/got")"
}

@test "kill: KILL stops the container" {
  requires root
  start_ct
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
}

@test "kill: a created container can be killed, then deleted" {
  requires root
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
  rt_ok delete "$CT_ID"
  no_leftovers "$CT_ID"
}

@test "kill: an invalid signal is an error and the container keeps running" {
  requires root
  start_ct
  for sig in SIGNOPE NOPE 0x9 -1 99999; do
    rt kill "$CT_ID" "$sig"
    [[ $status -ne 0 ]] || fail "signal '$sig' was accepted"
  done
  [[ $(ct_status "$CT_ID") == running ]]
}

@test "kill: an unknown id is an error" {
  requires root
  rt kill "$CT_ID-none" KILL
  [[ $status -ne 0 ]]
}

@test "kill: a stopped container is an error (container not running)" {
  requires root
  set_cmd true
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" stopped
  rt kill "$CT_ID" KILL
  [[ $status -ne 0 ]]
  rt kill "$CT_ID"
  [[ $status -ne 0 ]]
}

@test "kill --all ID 9 after the process exited succeeds (containerd relies on it)" {
  requires root
  set_cmd true
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" stopped
  rt_ok kill --all "$CT_ID" 9
  rt_ok kill --all "$CT_ID" KILL
}

@test "kill --all reaches every process of the container, not only init" {
  requires root
  # Without a pid namespace the children would outlive init: only a kill
  # of the whole cgroup gets them.
  update_config '.linux.namespaces |= map(select(.type != "pid"))'
  set_cmd sh -c 'sleep inf & sleep inf & exec sleep inf'
  start_ct
  for ((i = 0; i < 50; i++)); do
    [[ $(procs_of_test | wc -l) -ge 3 ]] && break
    sleep 0.1
  done
  [[ $(procs_of_test | wc -l) -ge 3 ]]
  rt_ok kill --all "$CT_ID" KILL
  for ((i = 0; i < 50; i++)); do
    [[ -z $(procs_of_test) ]] && break
    sleep 0.1
  done
  [[ -z $(procs_of_test) ]] || fail "survivors: $(procs_of_test | tr '\n' ' ')"
  wait_for_container "$CT_ID" stopped
}
