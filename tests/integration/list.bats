#!/usr/bin/env bats
# list: runc's table, -q and --format json, scoped to --root.

load helpers

@test "list: empty root prints only the header; -q and json print no containers" {
  requires root
  rt_ok list
  [[ ${#lines[@]} -eq 1 ]]
  [[ ${lines[0]} =~ ^ID\ +PID\ +STATUS\ +BUNDLE\ +CREATED\ +OWNER$ ]]
  rt_ok list -q
  [[ -z $output ]]
  rt_ok list --format json
  [[ $(jq 'length' <<<"$output") == 0 ]]
}

@test "list: a root directory that does not exist yet lists nothing" {
  requires root
  rm -rf "$ROOT"
  rt_ok list -q
  [[ -z $output ]]
}

@test "list: table rows carry id, pid, status, bundle, created, owner" {
  requires root
  rt_ok create --bundle "$BUNDLE" "$CT_ID-a"
  start_ct "$CT_ID-b"
  rt_ok list
  [[ ${#lines[@]} -eq 3 ]]
  row=$(printf '%s\n' "${lines[@]}" | awk -v id="$CT_ID-a" '$1 == id')
  read -r id pid st bundle created owner <<<"$row"
  [[ $pid == "$(ct_pid "$CT_ID-a")" && $st == created && $bundle == "$BUNDLE" ]]
  [[ $created =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T ]]
  [[ $owner == root ]]
  row=$(printf '%s\n' "${lines[@]}" | awk -v id="$CT_ID-b" '$1 == id')
  [[ $(awk '{ print $3 }' <<<"$row") == running ]]
}

@test "list -q: one id per line" {
  requires root
  for i in 1 2 3; do
    rt_ok create --bundle "$BUNDLE" "$CT_ID-$i"
  done
  rt_ok list -q
  [[ $(sort <<<"$output" | tr '\n' ' ') == "$CT_ID-1 $CT_ID-2 $CT_ID-3 " ]]
}

@test "list --format json: state objects" {
  requires root
  rt_ok create --bundle "$BUNDLE" "$CT_ID-a"
  start_ct "$CT_ID-b"
  rt_ok list --format json
  [[ $(jq length <<<"$output") == 2 ]]
  a=$(jq -c --arg id "$CT_ID-a" '.[] | select(.id == $id)' <<<"$output")
  [[ $(jq -r .status <<<"$a") == created ]]
  [[ $(jq -r .bundle <<<"$a") == "$BUNDLE" ]]
  [[ $(jq -r .pid <<<"$a") == "$(ct_pid "$CT_ID-a")" ]]
  [[ $(jq -r .created <<<"$a") =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T ]]
  jq -e '.owner | type == "string"' <<<"$a" >/dev/null
  b=$(jq -c --arg id "$CT_ID-b" '.[] | select(.id == $id)' <<<"$output")
  [[ $(jq -r .status <<<"$b") == running ]]
}

@test "list: containers of another --root are not shown" {
  requires root
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  other=$BATS_TEST_TMPDIR/other-root
  mkdir -p "$other"
  run "$RUNTIME" --root "$other" list -q
  check_status 0
  [[ -z $output ]]
}

@test "list: stopped containers are listed as stopped" {
  requires root
  set_cmd true
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" stopped
  rt_ok list --format json
  [[ $(jq -r '.[0].status' <<<"$output") == stopped ]]
}
