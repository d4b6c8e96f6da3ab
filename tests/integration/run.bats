#!/usr/bin/env bats
# run: create + start + wait; the exit status is the container's (128+n
# for a signal); stdio is passed through; nothing is left afterwards.

load helpers

@test "run: exit status is the process's" {
  requires root
  for code in 0 1 3 42 255; do
    run_ct sh -c "exit $code"
    check_status "$code"
    rt state "$CT_ID"
    [[ $status -ne 0 ]] || fail "run left the container behind (exit $code)"
  done
}

@test "run: a process killed by a signal gives 128+signal" {
  requires root
  set_cmd sleep inf
  (
    for ((i = 0; i < 100; i++)); do
      [[ $(ct_status "$CT_ID") == running ]] && break
      sleep 0.1
    done
    runtime kill "$CT_ID" KILL
  ) &
  rt run --bundle "$BUNDLE" "$CT_ID"
  wait
  check_status 137
}

@test "run: a signal the process does not catch, sent from inside" {
  requires root
  # Not pid 1 (init ignores default-action signals from its own namespace).
  run_ct sh -c 'sh -c "kill -USR1 \$\$"; echo "child status $?"'
  check_status 0
  [[ $output == *"child status 138"* ]] || fail "got: $output"
  update_config '.linux.namespaces |= map(select(.type != "pid"))'
  run_ct sh -c 'kill -USR1 $$'
  check_status 138
}

@test "run: stdout and stderr of the process come through" {
  requires root
  set_cmd sh -c 'echo to-stdout; echo to-stderr >&2'
  runtime run --bundle "$BUNDLE" "$CT_ID" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" </dev/null
  [[ $(<"$BATS_TEST_TMPDIR/out") == to-stdout ]]
  [[ $(<"$BATS_TEST_TMPDIR/err") == to-stderr ]]
}

@test "run: stdin reaches the process" {
  requires root
  set_cmd sh -c 'read line; echo "got [$line]"'
  out=$(echo "hello there" | runtime run --bundle "$BUNDLE" "$CT_ID")
  [[ $out == "got [hello there]" ]]
}

@test "run --detach: returns at once with the container running" {
  requires root
  rt_ok run --detach --bundle "$BUNDLE" "$CT_ID"
  wait_for_container "$CT_ID" running
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
  rt_ok delete "$CT_ID"
  no_leftovers "$CT_ID"
}

@test "run: a process that cannot be executed fails the run" {
  requires root
  run_ct /no/such/binary
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
  run_ct /etc/passwd
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "run: the process is found through PATH" {
  requires root
  update_config '.process.env = (.process.env | map(select(startswith("PATH=") | not))) + ["PATH=/bin"]'
  run_ct busybox echo via-path
  check_status 0
  [[ $output == via-path ]]
}
