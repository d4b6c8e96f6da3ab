#!/usr/bin/env bats
# --log / --log-format: on failure the last line of a json log is
# {"level":"error","msg":...,"time":...} (engines show msg to the user);
# every line of a json log is JSON; text logs carry the message too.

load helpers

LOGF=

# json_last_error: checks the last line of LOGF; sets MSG.
json_last_error ()
{
  local last
  [[ -s $LOGF ]] || fail "log $LOGF is empty"
  last=$(tail -n 1 "$LOGF")
  jq -e . <<<"$last" >/dev/null || fail "last line is not JSON: $last"
  [[ $(jq -r .level <<<"$last") == error ]] || fail "level: $last"
  MSG=$(jq -r '.msg | strings' <<<"$last")
  [[ -n $MSG ]] || fail "no msg: $last"
  [[ $(jq -r .time <<<"$last") =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2} ]] || fail "time: $last"
}

setup ()
{
  setup_bundle
  LOGF=$BATS_TEST_TMPDIR/runtime.log
}

@test "log json: a failed create ends with an error line (missing bundle)" {
  requires root
  rt --log "$LOGF" --log-format json create --bundle "$BATS_TEST_TMPDIR/nope" "$CT_ID"
  [[ $status -ne 0 ]]
  json_last_error
  [[ $MSG == *nope* ]] || fail "msg does not name the problem: $MSG"
}

@test "log json: a failed create ends with an error line (bad mount)" {
  requires root
  add_bind "$BATS_TEST_TMPDIR/no-such-source" /data
  rt --log "$LOGF" --log-format json create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  json_last_error
  no_leftovers "$CT_ID"
}

@test "log json: a failed create ends with an error line (invalid config.json)" {
  requires root
  echo '{"ociVersion": "1.0.2", "process": ' >"$BUNDLE/config.json"
  rt --log "$LOGF" --log-format json create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  json_last_error
}

@test "log json: other commands' failures too (kill, delete, start of unknown ids)" {
  requires root
  for cmd in "kill $CT_ID-none KILL" "delete $CT_ID-none" "start $CT_ID-none" "state $CT_ID-none"; do
    rm -f "$LOGF"
    # shellcheck disable=SC2086
    rt --log "$LOGF" --log-format json $cmd
    [[ $status -ne 0 ]] || fail "$cmd succeeded"
    json_last_error
  done
}

@test "log json: every line is a JSON object with level, msg and time (with --debug)" {
  requires root
  set_cmd true
  rt --debug --log "$LOGF" --log-format json run --bundle "$BUNDLE" "$CT_ID"
  check_status 0
  if [[ -s $LOGF ]]; then
    jq -e -s 'all(.[]; type == "object" and (.msg | type == "string") and (.time | type == "string")
        and (.level | IN("debug", "info", "warning", "error")))' "$LOGF" >/dev/null \
      || fail "bad lines in: $(cat "$LOGF")"
  fi
}

@test "log json: a successful command writes no error line" {
  requires root
  rt --log "$LOGF" --log-format json create --bundle "$BUNDLE" "$CT_ID"
  check_status 0
  ! grep -q '"level":"error"' "$LOGF" 2>/dev/null
}

@test "log text: the error message reaches the log file" {
  requires root
  rt --log "$LOGF" create --bundle "$BATS_TEST_TMPDIR/nope" "$CT_ID"
  [[ $status -ne 0 ]]
  grep -q nope "$LOGF" || fail "log: $(cat "$LOGF" 2>/dev/null)"
}

@test "log: the error is printed on stderr as well" {
  requires root
  run "$RUNTIME" --root "$ROOT" "${RUNTIME_ARGS[@]}" --log "$LOGF" --log-format json create --bundle "$BATS_TEST_TMPDIR/nope" "$CT_ID"
  [[ $status -ne 0 ]]
  [[ $output == *nope* ]] || fail "stderr: $output"
}

@test "log json (agentrt): config errors name the JSON path" {
  requires root agentrt
  update_config '.process.rlimits = [{type: "RLIMIT_NOFILE", soft: "many", hard: 10}]'
  rt --log "$LOGF" --log-format json create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  json_last_error
  [[ $MSG == *"process.rlimits[0].soft"* ]] || fail "msg: $MSG"
}

@test "log json (agentrt): the message is one line naming the layer that failed" {
  requires root agentrt
  add_bind "$BATS_TEST_TMPDIR/no-such-source" /data
  rt --log "$LOGF" --log-format json create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  json_last_error
  [[ $MSG != *$'\n'* ]]
  [[ $MSG == *no-such-source* && $MSG == */data* ]] || fail "msg: $MSG"
}
