#!/usr/bin/env bats
# events and ps: runc's JSON shapes, which `docker stats`, `ctr task
# metrics` and the containerd shim parse, and their errors.

load helpers

setup ()
{
  setup_bundle || return 1
  update_config '.linux.resources += {memory: {limit: 268435456}, pids: {limit: 100}}'
}

@test "events --stats: one stats object with cpu, memory and pids" {
  requires root cgroup_memory cgroup_pids cgroup_cpuacct
  set_cmd sh -c 'sleep 1000 & sleep 1000 & wait'
  start_ct
  rt_ok events --stats "$CT_ID"
  [[ ${#lines[@]} -eq 1 ]] || fail "$output"
  jq -e --arg id "$CT_ID" '.type == "stats" and .id == $id
      and .data.pids.current == 3 and .data.pids.limit == 100
      and .data.memory.usage.limit == 268435456 and .data.memory.usage.usage > 0
      and .data.cpu.usage.total > 0' <<<"$output" >/dev/null || fail "$output"
}

@test "events --interval: stats until the container exits" {
  requires root cgroup_memory
  unsupported_by runc "1.1: its stream goes on after the container has exited"
  start_ct
  runtime events --interval 200ms "$CT_ID" >"$BATS_TEST_TMPDIR/events" 2>&1 &
  local pid=$!
  sleep 1
  rt_ok kill "$CT_ID" KILL
  # the stream ends by itself once the container is gone
  local tries=50
  while kill -0 "$pid" 2>/dev/null && ((tries-- > 0)); do sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && { kill "$pid"; fail "events still running after the exit"; }
  wait "$pid" || fail "events exited with $?"
  local n
  n=$(jq -s '[.[] | select(.type == "stats")] | length' "$BATS_TEST_TMPDIR/events") || fail "$(cat "$BATS_TEST_TMPDIR/events")"
  ((n >= 3)) || fail "$n stats lines in: $(cat "$BATS_TEST_TMPDIR/events")"
}

@test "events: an OOM kill is reported" {
  requires root agentrt cgroup_memory
  [[ $(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo) == 0 ]] || skip "the host has swap"
  local go
  go=$(host_dir go)
  add_bind "$go" /go
  update_config '.linux.resources.memory = {limit: 33554432}'
  # the balloon waits until events is listening; tail is the OOM killer's
  # first choice, not the shell
  set_cmd sh -c 'until [ -e /go/now ]; do sleep 0.05; done
    head -c 200m /dev/zero | (echo 1000 >/proc/self/oom_score_adj; exec tail) >/dev/null; sleep 1000'
  start_ct
  runtime events --interval 100ms "$CT_ID" >"$BATS_TEST_TMPDIR/events" 2>&1 &
  local pid=$!
  wait_for_file "$BATS_TEST_TMPDIR/events" 100 || { kill "$pid"; fail "events printed nothing"; }
  touch "$go/now"
  local tries=100
  until grep -q '"type":"oom"' "$BATS_TEST_TMPDIR/events" || ((tries-- == 0)); do sleep 0.1; done
  kill "$pid" 2>/dev/null || true
  grep -q '"type":"oom"' "$BATS_TEST_TMPDIR/events" || fail "no oom event: $(cat "$BATS_TEST_TMPDIR/events")"
}

@test "events: a stopped container, an unknown id and a bad interval are errors" {
  requires root
  start_ct
  local bad
  for bad in soon 0s 1e3s 5x ""; do
    rt events --interval "$bad" "$CT_ID"
    [[ $status -ne 0 ]] || fail "interval '$bad' accepted"
  done
  if [[ $(runtime_name) == agentrt ]]; then
    [[ ${#lines[@]} -eq 1 && $output == *--interval* ]] || fail "$output"
  fi
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
  rt events --stats "$CT_ID"
  [[ $status -ne 0 ]] || fail "events of a stopped container succeeded"
  rt events --stats "$CT_ID-none"
  [[ $status -ne 0 ]] || fail "events of an unknown id succeeded"
}

@test "ps --format json: the pids of the container's cgroup" {
  requires root
  set_cmd sh -c 'sleep 1000 & wait'
  start_ct
  local init
  init=$(ct_pid "$CT_ID")
  rt_ok ps --format json "$CT_ID"
  jq -e --argjson init "$init" 'type == "array" and length == 2 and index($init) != null' \
    <<<"$output" >/dev/null || fail "$output"
  # every pid listed is in the container's pid namespace
  local p
  for p in $(jq '.[]' <<<"$output"); do
    [[ $(ns_id "$p" pid) == "$(ns_id "$init" pid)" ]] || fail "pid $p is not the container's"
  done
}

@test "ps: a table from the host's ps, with its arguments" {
  requires root
  start_ct
  rt_ok ps "$CT_ID"
  [[ ${lines[0]} == *PID* ]] || fail "$output"
  [[ $output == *"sleep inf"* ]] || fail "$output"
  rt_ok ps "$CT_ID" -o pid,comm
  [[ ${lines[0]} =~ ^\ *PID\ +COMMAND ]] || fail "$output"
  [[ ${#lines[@]} -eq 2 && ${lines[1]} == *sleep ]] || fail "$output"
  rt ps --format yaml "$CT_ID"
  [[ $status -ne 0 && ${#lines[@]} -eq 1 ]] || fail "format yaml: $output"
}
