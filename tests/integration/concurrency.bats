#!/usr/bin/env bats
# concurrency: commands racing on one id are serialized: exactly one create
# of an id wins, the loser fails cleanly and does not damage the winner.

load helpers

# bg_runtime NAME ARGS...: the runtime in the background, output to
# BATS_TEST_TMPDIR/NAME.out; BG_PIDS[NAME] is its pid.
declare -gA BG_PIDS
bg_runtime ()
{
  local name=$1
  shift
  runtime "$@" >"$BATS_TEST_TMPDIR/$name.out" 2>&1 </dev/null &
  BG_PIDS[$name]=$!
}

# bg_wait NAME: waits for that background command; its status in BG_RC
# (not through $(...): a subshell cannot wait for its parent's children).
bg_wait ()
{
  BG_RC=0
  wait "${BG_PIDS[$1]}" || BG_RC=$?
}

@test "concurrency: two creates of the same id, one wins cleanly" {
  requires root
  for round in 1 2; do
    id=$CT_ID-r$round
    bg_runtime a create --bundle "$BUNDLE" "$id"
    bg_runtime b create --bundle "$BUNDLE" "$id"
    bg_wait a
    sa=$BG_RC
    bg_wait b
    sb=$BG_RC
    if [[ $sa -eq 0 ]]; then
      [[ $sb -ne 0 ]] || fail "round $round: both creates succeeded"
    else
      [[ $sb -eq 0 ]] || fail "round $round: both failed: $(cat "$BATS_TEST_TMPDIR"/{a,b}.out)"
    fi
    # The winner is intact and usable.
    [[ $(ct_status "$id") == created ]] || fail "round $round: status $(ct_status "$id")"
    pid=$(ct_pid "$id")
    kill -0 "$pid"
    rt_ok start "$id"
    wait_for_container "$id" running
    rt_ok delete --force "$id"
    no_leftovers "$id"
  done
}

@test "concurrency: parallel creates of different ids all succeed" {
  requires root
  for i in 1 2 3 4 5 6; do
    bg_runtime "c$i" create --bundle "$BUNDLE" "$CT_ID-$i"
  done
  for i in 1 2 3 4 5 6; do
    bg_wait "c$i"
    [[ $BG_RC -eq 0 ]] || fail "create $i: $(cat "$BATS_TEST_TMPDIR/c$i.out")"
  done
  rt_ok list -q
  [[ $(wc -l <<<"$output") -eq 6 ]]
  for i in 1 2 3 4 5 6; do
    bg_runtime "d$i" delete --force "$CT_ID-$i"
  done
  for i in 1 2 3 4 5 6; do
    bg_wait "d$i"
    [[ $BG_RC -eq 0 ]] || fail "delete $i: $(cat "$BATS_TEST_TMPDIR/d$i.out")"
  done
  no_leftovers "$CT_ID"
}

@test "concurrency: racing delete --force of one container both succeed" {
  requires root
  start_ct
  bg_runtime a delete --force "$CT_ID"
  bg_runtime b delete --force "$CT_ID"
  bg_wait a
  [[ $BG_RC -eq 0 ]] || fail "a: $(cat "$BATS_TEST_TMPDIR/a.out")"
  bg_wait b
  [[ $BG_RC -eq 0 ]] || fail "b: $(cat "$BATS_TEST_TMPDIR/b.out")"
  no_leftovers "$CT_ID"
}

@test "concurrency: state during create and delete never returns garbage" {
  requires root
  states=$BATS_TEST_TMPDIR/states
  bg_runtime c create --bundle "$BUNDLE" "$CT_ID"
  for ((i = 0; i < 10; i++)); do
    runtime state "$CT_ID" >>"$states" 2>/dev/null || true
  done
  bg_wait c
  [[ $BG_RC -eq 0 ]]
  bg_runtime d delete --force "$CT_ID"
  for ((i = 0; i < 10; i++)); do
    runtime state "$CT_ID" >>"$states" 2>/dev/null || true
  done
  bg_wait d
  [[ $BG_RC -eq 0 ]]
  # Whatever state printed while racing must be whole JSON documents.
  [[ ! -s $states ]] || jq -e -s 'all(.[]; .id and .status)' "$states" >/dev/null \
    || fail "state printed: $(cat "$states")"
}
