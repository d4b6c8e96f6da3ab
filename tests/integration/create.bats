#!/usr/bin/env bats
# create: the container exists, its process waits for start, and state says
# so; the bundle can come from --bundle or the working directory.

load helpers

# The process leaves a mark in a host directory when it really runs.
marking_process ()
{
  MARKS=$(host_dir marks)
  add_bind "$MARKS" /marks
  set_cmd sh -c 'echo ran > /marks/ran; exec sleep inf'
}

@test "create: status created, a live pid, user process not started" {
  requires root
  marking_process
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  st=$(runtime state "$CT_ID")
  [[ $(jq -r .status <<<"$st") == created ]]
  pid=$(jq -r .pid <<<"$st")
  [[ $pid -gt 0 ]]
  kill -0 "$pid"
  sleep 0.3
  [[ ! -e $MARKS/ran ]] || fail "the user process ran before start"
}

@test "create: --bundle defaults to the working directory" {
  requires root
  cd "$BUNDLE"
  rt create "$CT_ID"
  cd /
  check_status 0
  [[ $(runtime state "$CT_ID" | jq -r .bundle) == "$BUNDLE" ]]
}

@test "create: a relative --bundle is recorded as an absolute path" {
  requires root
  cd "$BATS_TEST_TMPDIR"
  rt create --bundle bundle "$CT_ID"
  cd /
  check_status 0
  [[ $(runtime state "$CT_ID" | jq -r .bundle) == "$BUNDLE" ]]
}

@test "create: annotations are reported by state" {
  requires root
  update_config '.annotations = {"org.example.key": "value", "org.example.other": ""}'
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  st=$(runtime state "$CT_ID")
  [[ $(jq -r '.annotations["org.example.key"]' <<<"$st") == value ]]
}

@test "create: several containers from one bundle, each with its own id" {
  requires root
  for i in 1 2 3; do
    rt_ok create --bundle "$BUNDLE" "$CT_ID-$i"
  done
  for i in 1 2 3; do
    [[ $(ct_status "$CT_ID-$i") == created ]]
  done
}

@test "create: a duplicate id is refused and the first container is untouched" {
  requires root
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  pid=$(ct_pid "$CT_ID")
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  [[ $(ct_status "$CT_ID") == created ]]
  [[ $(ct_pid "$CT_ID") == "$pid" ]]
  kill -0 "$pid"
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" running
}

@test "create: invalid ids are refused and create nothing" {
  requires root
  for bad in "../$CT_ID-up" "a/$CT_ID" "." ".." "$CT_ID with space" ""; do
    rt create --bundle "$BUNDLE" "$bad"
    [[ $status -ne 0 ]] || fail "id '$bad' was accepted"
  done
  [[ ! -e $BATS_TEST_TMPDIR/$CT_ID-up ]]
  [[ -z $(ls -A "$ROOT") ]] || fail "root not empty: $(ls -A "$ROOT")"
}

@test "create: a missing bundle directory is an error" {
  requires root
  rt create --bundle "$BATS_TEST_TMPDIR/no-such-bundle" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "create: unknown fields in config.json are ignored" {
  requires root
  update_config '.unknownTopLevel = {"x": [1, 2]} | .process.unknownField = true
    | .linux.unknownLinux = "y" | .mounts[0].unknownMountField = 1'
  run_ct sh -c 'echo fine'
  check_status 0
  [[ $output == *fine* ]]
}
