#!/usr/bin/env bats
# update: runc's flags and --resources (a file or stdin) change a running
# container's cgroup; bad values are one-line errors that change nothing.

load helpers

# cg_value CONTROLLER V1-FILE V2-FILE: a value of the container's cgroup.
cg_value ()
{
  local dir
  dir=$(ct_cgroup_dir "$(ct_pid "$CT_ID")" "$1") || return 1
  if [[ $(_cgroup_mode) == v2 ]]; then
    cat "$dir/$3"
  else
    cat "$dir/$2"
  fi
}

setup ()
{
  setup_bundle || return 1
  update_config '.linux.resources += {memory: {limit: 268435456}, pids: {limit: 100}}'
}

@test "update: memory and pids flags" {
  requires root cgroup_memory cgroup_pids
  start_ct
  rt_ok update --memory 64m --pids-limit 42 "$CT_ID"
  [[ $(cg_value memory memory.limit_in_bytes memory.max) == 67108864 ]]
  [[ $(cg_value pids pids.max pids.max) == 42 ]]
  rt_ok update --memory 134217728 "$CT_ID"
  [[ $(cg_value memory memory.limit_in_bytes memory.max) == 134217728 ]]
  # what was not named keeps its value
  [[ $(cg_value pids pids.max pids.max) == 42 ]]
}

@test "update: cpu flags" {
  requires root cgroup_cpu cgroup_cpuset
  start_ct
  # --cpu-share is runc's name (agentrt also takes --cpu-shares)
  rt_ok update --cpu-period 100000 --cpu-quota 50000 --cpu-share 512 --cpuset-cpus 0 "$CT_ID"
  if [[ $(_cgroup_mode) == v2 ]]; then
    [[ $(cg_value cpu - cpu.max) == "50000 100000" ]]
  else
    [[ $(cg_value cpu cpu.cfs_quota_us -) == 50000 ]]
    [[ $(cg_value cpu cpu.cfs_period_us -) == 100000 ]]
    [[ $(cg_value cpu cpu.shares -) == 512 ]]
  fi
  [[ $(cg_value cpuset cpuset.cpus cpuset.cpus) == 0 ]]
}

@test "update: realtime cpu and blkio weight flags" {
  requires root cgroups_v1 cgroup_cpu cgroup_blkio
  start_ct
  local cpu blkio
  cpu=$(ct_cgroup_dir "$(ct_pid "$CT_ID")" cpu)
  blkio=$(ct_cgroup_dir "$(ct_pid "$CT_ID")" blkio)
  [[ -e $cpu/cpu.rt_runtime_us ]] || skip "no realtime group scheduling in this kernel"
  rt_ok update --cpu-rt-period 500000 --cpu-rt-runtime 5000 "$CT_ID"
  [[ $(<"$cpu/cpu.rt_period_us") == 500000 ]]
  [[ $(<"$cpu/cpu.rt_runtime_us") == 5000 ]]
  # CFQ's blkio.weight, or BFQ's blkio.bfq.weight ("default 300")
  local weight=$blkio/blkio.weight
  [[ -e $weight ]] || weight=$blkio/blkio.bfq.weight
  rt update --blkio-weight 300 "$CT_ID"
  if [[ -e $weight ]]; then
    check_status 0
    [[ $(<"$weight") =~ (^|default )300$ ]] || fail "$weight: $(<"$weight")"
  else
    # no proportional IO scheduler: refused, naming the field
    [[ $status -ne 0 && ${#lines[@]} -eq 1 && $output == *weight* ]] || fail "status $status: $output"
  fi
}

@test "update: --resources from a file and from stdin" {
  requires root cgroup_memory cgroup_pids
  start_ct
  echo '{"pids": {"limit": 30}, "memory": {"limit": 100663296}}' >"$BATS_TEST_TMPDIR/r.json"
  rt_ok update --resources "$BATS_TEST_TMPDIR/r.json" "$CT_ID"
  [[ $(cg_value pids pids.max pids.max) == 30 ]]
  [[ $(cg_value memory memory.limit_in_bytes memory.max) == 100663296 ]]
  runtime update --resources - "$CT_ID" <<<'{"pids": {"limit": 31}}'
  [[ $(cg_value pids pids.max pids.max) == 31 ]]
}

@test "update: bad values are one-line errors and change nothing" {
  requires root agentrt cgroup_pids
  start_ct
  local bad
  for bad in "--pids-limit lots" "--memory 12zb" "--cpu-quota -5" "--no-such-flag 1"; do
    # shellcheck disable=SC2086
    rt update $bad "$CT_ID"
    [[ $status -ne 0 ]] || fail "update $bad succeeded"
    [[ ${#lines[@]} -eq 1 ]] || fail "update $bad: $output"
  done
  echo '{"pids": {"limit": "many"}}' >"$BATS_TEST_TMPDIR/bad.json"
  rt update --resources "$BATS_TEST_TMPDIR/bad.json" "$CT_ID"
  [[ $status -ne 0 && ${#lines[@]} -eq 1 && $output == *pids.limit* ]] || fail "$output"
  [[ $(cg_value pids pids.max pids.max) == 100 ]]
}

@test "update: a stopped container or an unknown id is an error" {
  requires root
  start_ct
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
  rt update --pids-limit 10 "$CT_ID"
  [[ $status -ne 0 ]] || fail "update of a stopped container succeeded"
  rt update --pids-limit 10 "$CT_ID-none"
  [[ $status -ne 0 ]] || fail "update of an unknown id succeeded"
}
