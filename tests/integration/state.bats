#!/usr/bin/env bats
# state: the runtime-spec state JSON through the lifecycle.

load helpers

@test "state: the required fields of a created container" {
  requires root
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok state "$CT_ID"
  jq -e . <<<"$output" >/dev/null
  [[ $(jq -r .id <<<"$output") == "$CT_ID" ]]
  [[ $(jq -r .status <<<"$output") == created ]]
  [[ $(jq -r .bundle <<<"$output") == "$BUNDLE" ]]
  [[ $(jq -r .ociVersion <<<"$output") =~ ^1\.[0-9]+\.[0-9]+ ]]
  [[ $(jq -r .pid <<<"$output") -gt 0 ]]
}

@test "state: running, then stopped" {
  requires root
  start_ct
  pid=$(ct_pid "$CT_ID")
  [[ $pid -gt 0 ]]
  kill -KILL "$pid"
  wait_for_container "$CT_ID" stopped
  rt_ok state "$CT_ID"
  [[ $(jq -r .id <<<"$output") == "$CT_ID" ]]
}

@test "state: a stopped container is stopped even though its pid is gone" {
  requires root
  set_cmd true
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" stopped
  rt_ok state "$CT_ID"
  [[ $(jq -r .status <<<"$output") == stopped ]]
}

@test "state: an unknown id is an error" {
  requires root
  rt state "$CT_ID-none"
  [[ $status -ne 0 ]]
  [[ -n $output ]]
}

@test "state: a container whose init was killed while created is stopped" {
  requires root
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  kill -KILL "$(ct_pid "$CT_ID")"
  wait_for_container "$CT_ID" stopped
}
