#!/usr/bin/env bats
# --pid-file: the container's init pid, written by create and run --detach.

load helpers

@test "--pid-file: create writes the init pid" {
  requires root
  rt_ok create --pid-file "$BATS_TEST_TMPDIR/pid" --bundle "$BUNDLE" "$CT_ID"
  [[ -s $BATS_TEST_TMPDIR/pid ]]
  pid=$(<"$BATS_TEST_TMPDIR/pid")
  [[ $pid == "$(ct_pid "$CT_ID")" ]]
  kill -0 "$pid"
  rt_ok start "$CT_ID"
  # Still the same process after start (the user process replaced init).
  [[ $(ct_pid "$CT_ID") == "$pid" ]]
}

@test "--pid-file: a relative path is relative to the working directory" {
  requires root
  cd "$BATS_TEST_TMPDIR"
  rt create --pid-file rel.pid --bundle "$BUNDLE" "$CT_ID"
  cd /
  check_status 0
  [[ $(<"$BATS_TEST_TMPDIR/rel.pid") == "$(ct_pid "$CT_ID")" ]]
}

@test "--pid-file: run --detach writes it too" {
  requires root
  rt_ok run --detach --pid-file "$BATS_TEST_TMPDIR/pid" --bundle "$BUNDLE" "$CT_ID"
  [[ $(<"$BATS_TEST_TMPDIR/pid") == "$(ct_pid "$CT_ID")" ]]
}

@test "--pid-file: the file holds only the number (no newline required)" {
  requires root
  rt_ok create --pid-file "$BATS_TEST_TMPDIR/pid" --bundle "$BUNDLE" "$CT_ID"
  [[ $(tr -d '\n' <"$BATS_TEST_TMPDIR/pid") =~ ^[0-9]+$ ]]
}

@test "--pid-file: an existing file is replaced" {
  requires root
  echo 999999 >"$BATS_TEST_TMPDIR/pid"
  rt_ok create --pid-file "$BATS_TEST_TMPDIR/pid" --bundle "$BUNDLE" "$CT_ID"
  [[ $(<"$BATS_TEST_TMPDIR/pid") == "$(ct_pid "$CT_ID")" ]]
}
