#!/usr/bin/env bats
# terminal: --console-socket receives the pty master (SCM_RIGHTS); the pty
# is the process's stdio and /dev/console, consoleSize applies, input works.

load helpers

# start_receiver [INPUT]: a recvtty.py listening on CONSOLE_SOCKET, writing
# what the container prints to TTY_OUT.
start_receiver ()
{
  CONSOLE_SOCKET=$BATS_TEST_TMPDIR/console.sock
  TTY_OUT=$BATS_TEST_TMPDIR/tty.out
  python3 "$INTEGRATION_DIR/helpers/recvtty.py" "$CONSOLE_SOCKET" "$TTY_OUT" "${1:-}" &
  RECEIVER_PID=$!
  cleanup_add "kill $RECEIVER_PID"
  for ((i = 0; i < 50; i++)); do
    [[ -S $CONSOLE_SOCKET ]] && return 0
    sleep 0.1
  done
  fail "recvtty did not start"
}

# wait_receiver: the receiver saw the pty close; TTY_TEXT is what came
# through, without carriage returns.
wait_receiver ()
{
  local i
  for ((i = 0; i < 100; i++)); do
    kill -0 "$RECEIVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  wait "$RECEIVER_PID"
  TTY_TEXT=$(tr -d '\r' <"$TTY_OUT")
}

setup ()
{
  setup_bundle
  update_config '.process.terminal = true'
}

@test "terminal: create/start with --console-socket; consoleSize applies" {
  requires root python3
  update_config '.process.consoleSize = {height: 30, width: 100}'
  set_cmd sh -c 'tty; stty size; echo done'
  start_receiver
  rt_ok create --console-socket "$CONSOLE_SOCKET" --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_receiver
  grep -qx '/dev/pts/[0-9]*' <<<"$TTY_TEXT" || fail "$TTY_TEXT"
  grep -qx '30 100' <<<"$TTY_TEXT" || fail "$TTY_TEXT"
  grep -qx 'done' <<<"$TTY_TEXT" || fail "$TTY_TEXT"
}

@test "terminal: input written to the master reaches the process" {
  requires root python3
  set_cmd sh -c 'read line; echo "got:$line"'
  start_receiver 'hello pty\n'
  rt_ok create --console-socket "$CONSOLE_SOCKET" --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_receiver
  grep -q '^got:hello pty$' <<<"$TTY_TEXT" || fail "$TTY_TEXT"
}

@test "terminal: stdin, stdout and stderr are the pty, and so is /dev/console" {
  requires root python3
  set_cmd sh -c 'for f in 0 1 2; do echo "fd$f $(readlink /proc/$$/fd/$f)"; done
    stat -c "console %t" /dev/console; [ -t 0 ] && echo isatty'
  start_receiver
  rt_ok create --console-socket "$CONSOLE_SOCKET" --bundle "$BUNDLE" "$CT_ID"
  rt_ok start "$CT_ID"
  wait_receiver
  for f in 0 1 2; do
    grep -Eqx "fd$f /dev/pts/[0-9]+" <<<"$TTY_TEXT" || fail "$TTY_TEXT"
  done
  # pty slaves are major 136 (0x88).
  grep -qx 'console 88' <<<"$TTY_TEXT" || fail "$TTY_TEXT"
  grep -qx isatty <<<"$TTY_TEXT"
}

@test "terminal: run --detach with a console socket" {
  requires root python3
  set_cmd sh -c 'echo detached-ok; sleep 0.3'
  start_receiver
  rt_ok run --detach --console-socket "$CONSOLE_SOCKET" --bundle "$BUNDLE" "$CT_ID"
  wait_receiver
  grep -qx detached-ok <<<"$TTY_TEXT" || fail "$TTY_TEXT"
  wait_for_container "$CT_ID" stopped
}

@test "terminal: create with a terminal but no --console-socket is an error" {
  requires root
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "terminal: a console socket nobody listens on is an error and leaves nothing" {
  requires root
  rt create --console-socket "$BATS_TEST_TMPDIR/nobody.sock" --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "terminal: without a terminal the process's stdio is not a tty" {
  requires root
  update_config '.process.terminal = false'
  run_ct sh -c '[ -t 0 ] || [ -t 1 ] && echo tty || echo notty'
  check_status 0
  [[ $output == notty ]]
}
