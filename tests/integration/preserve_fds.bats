#!/usr/bin/env bats
# --preserve-fds N passes fds 3..3+N-1 to the container; LISTEN_FDS (socket
# activation of the runtime) passes those and sets LISTEN_FDS/LISTEN_PID;
# no other fd of the caller leaks in.

load helpers

# run_with_fds ARGS...: `runtime ARGS` with fd 3 reading IN3 and fd 4
# writing OUT4 (results in status/output).
run_with_fds ()
{
  IN3=$BATS_TEST_TMPDIR/in3 OUT4=$BATS_TEST_TMPDIR/out4
  echo from-fd3 >"$IN3"
  : >"$OUT4"
  rt "$@" 3<"$IN3" 4>"$OUT4"
}

@test "--preserve-fds: the container gets fds 3 and 4" {
  requires root
  set_cmd sh -c 'cat <&3; echo to-fd4 >&4'
  run_with_fds run --preserve-fds 2 --bundle "$BUNDLE" "$CT_ID"
  check_status 0
  has_line from-fd3
  [[ $(<"$OUT4") == to-fd4 ]]
}

@test "--preserve-fds: fds above the count are not passed" {
  requires root
  set_cmd sh -c 'cat <&3; echo to-fd4 >&4 && echo fd4-open || echo fd4-closed'
  run_with_fds run --preserve-fds 1 --bundle "$BUNDLE" "$CT_ID"
  has_line from-fd3
  has_line fd4-closed
  [[ ! -s $OUT4 ]]
}

@test "without --preserve-fds no fd beyond stdio reaches the container" {
  requires root
  # ls as a plain child of the shell (a single command would be exec'd and
  # list its own directory fd; a pipeline or a glob opens fds in the shell).
  set_cmd sh -c 'ls /proc/$$/fd; true'
  run_with_fds run --bundle "$BUNDLE" "$CT_ID"
  check_status 0
  [[ $(echo $output) == "0 1 2" ]] || fail "fds: $output"
}

@test "--preserve-fds with create/start" {
  requires root
  set_cmd sh -c 'cat <&3 >&4'
  IN3=$BATS_TEST_TMPDIR/in3 OUT4=$BATS_TEST_TMPDIR/out4
  echo through-create >"$IN3"
  rt create --preserve-fds 2 --bundle "$BUNDLE" "$CT_ID" 3<"$IN3" 4>"$OUT4"
  check_status 0
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" stopped
  [[ $(<"$OUT4") == through-create ]]
}

@test "LISTEN_FDS: socket-activated fds are passed with LISTEN_FDS and LISTEN_PID" {
  requires root
  set_cmd sh -c 'echo "fds=$LISTEN_FDS pid=$LISTEN_PID"; cat <&3'
  echo activated >"$BATS_TEST_TMPDIR/in3"
  # LISTEN_PID must name the runtime's own pid: exec it from a subshell.
  out=$(
    export LISTEN_FDS=1 LISTEN_PID=$BASHPID
    exec "$RUNTIME" --root "$ROOT" "${RUNTIME_ARGS[@]}" run --bundle "$BUNDLE" "$CT_ID" 3<"$BATS_TEST_TMPDIR/in3" </dev/null 2>&1
  )
  [[ $out == *"fds=1 pid=1"* ]] || fail "$out"
  [[ $out == *activated* ]] || fail "$out"
}
