#!/usr/bin/env bats
# exec: runc's flag form and --process, the exit status, detached
# processes with a pid file, and errors.

load helpers

@test "exec: the exit status and output come back" {
  requires root
  start_ct
  rt exec "$CT_ID" sh -c 'echo out; echo err >&2; exit 7'
  check_status 7
  has_line out
  has_line err
}

@test "exec: --env, --cwd and --user" {
  requires root
  start_ct
  rt exec --env FOO=bar --env EMPTY= --cwd /tmp --user 1000:1001 "$CT_ID" \
    sh -c 'echo "foo=$FOO empty=[$EMPTY] cwd=$(pwd) id=$(id -u):$(id -g)"'
  check_status 0
  has_line "foo=bar empty=[] cwd=/tmp id=1000:1001"
  # the container's own environment is the base
  rt exec "$CT_ID" sh -c 'echo "tag=$AGENTRT_TEST_TAG"'
  has_line "tag=$CT_ID"
}

@test "exec: a non-root process owns its stdio pipes and can reopen /dev/stdout" {
  requires root
  start_ct
  o=$BATS_TEST_TMPDIR/exec.out
  runtime exec --user 1000:1001 "$CT_ID" \
    sh -c 'echo out >/dev/stdout && echo err >/dev/stderr && stat -L -c %u /proc/self/fd/1' \
    </dev/null 2>&1 | cat >"$o"
  [[ $(sort "$o" | xargs) == "1000 err out" ]] || fail "$(<"$o")"
}

@test "exec: the process leads a session and process group of the container's pid namespace" {
  requires root
  unsupported_before crun 1.20 "exec's setsid ran before the fork into the pid namespace: getpgrp() returned 0"
  start_ct
  rt exec "$CT_ID" sh -c 'read -r pid comm st ppid pgrp sid rest </proc/self/stat; echo "$pid $pgrp $sid"'
  check_status 0
  read -r pid pgrp sid <<<"$output"
  [[ $pid -gt 1 && $pgrp == "$pid" && $sid == "$pid" ]] || fail "pid pgrp sid: $output"
}

@test "exec: --additional-gids and --no-new-privs" {
  requires root
  start_ct
  rt exec --user 1000:1000 --additional-gids 20 --additional-gids 30 --no-new-privs "$CT_ID" \
    sh -c 'id -G; grep NoNewPrivs /proc/self/status'
  check_status 0
  [[ $output == *"1000 20 30"* ]] || fail "$output"
  has_line $'NoNewPrivs:\t1'
}

@test "exec: --process gives the whole process" {
  requires root
  start_ct
  jq -n '{args: ["sh", "-c", "echo \"$X in $(pwd)\"; exit 3"], cwd: "/etc",
          env: ["X=from-file", "PATH=/bin:/usr/bin"], user: {uid: 0, gid: 0}}' \
    >"$BATS_TEST_TMPDIR/process.json"
  rt exec --process "$BATS_TEST_TMPDIR/process.json" "$CT_ID"
  check_status 3
  has_line "from-file in /etc"
  # a command as well is an error, as is a process file that is not one
  rt exec --process "$BATS_TEST_TMPDIR/process.json" "$CT_ID" true
  [[ $status -ne 0 ]] || fail "--process and a command were both taken"
  echo '{"args": "sh", "cwd": "/", "user": {"uid": 0, "gid": 0}}' >"$BATS_TEST_TMPDIR/bad.json"
  rt exec --process "$BATS_TEST_TMPDIR/bad.json" "$CT_ID"
  [[ $status -ne 0 ]] || fail "a bad process file was taken"
  if [[ $(runtime_name) == agentrt ]]; then
    [[ ${#lines[@]} -eq 1 && $output == *args* ]] || fail "$output"
  fi
}

@test "exec: --detach --pid-file returns at once, the process in the container" {
  requires root
  start_ct
  rt_ok exec --detach --pid-file "$BATS_TEST_TMPDIR/exec.pid" "$CT_ID" sleep 1000
  local pid
  pid=$(<"$BATS_TEST_TMPDIR/exec.pid")
  [[ $(ns_id "$pid" pid) == "$(ns_id "$(ct_pid "$CT_ID")" pid)" ]] || fail "not in the container's pid namespace"
  rt_ok ps --format json "$CT_ID"
  jq -e --argjson p "$pid" 'index($p) != null' <<<"$output" >/dev/null || fail "ps: $output"
}

@test "exec: a missing program, a stopped container and an unknown id are errors" {
  requires root
  start_ct
  rt exec "$CT_ID" /no/such/program
  [[ $status -ne 0 ]] || fail "a missing program succeeded"
  [[ $output == */no/such/program* ]] || fail "$output"
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
  rt exec "$CT_ID" true
  [[ $status -ne 0 ]] || fail "exec into a stopped container succeeded"
  rt exec "$CT_ID-none" true
  [[ $status -ne 0 ]] || fail "exec into an unknown id succeeded"
}
