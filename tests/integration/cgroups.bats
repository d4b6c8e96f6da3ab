#!/usr/bin/env bats
# cgroups: resources written to the controllers (v1 file names on v1 and
# hybrid hosts, v2 names on pure v2 hosts) and enforced; the cgroupsPath
# shapes engines send; the cgroup goes away on delete.

load helpers

# cg_read CONTROLLER V1-FILE V2-FILE: a value of the running container's
# cgroup (CT_PID).
cg_read ()
{
  local dir
  dir=$(ct_cgroup_dir "$CT_PID" "$1") || return 1
  if [[ $(_cgroup_mode) == v2 ]]; then
    cat "$dir/$3"
  else
    cat "$dir/$2"
  fi
}

start_with_resources ()
{
  update_config ".linux.resources += $1"
  start_ct
  CT_PID=$(ct_pid "$CT_ID")
}

@test "cgroups: memory limit" {
  requires root cgroup_memory
  start_with_resources '{memory: {limit: 67108864, reservation: 33554432}}'
  [[ $(cg_read memory memory.limit_in_bytes memory.max) == 67108864 ]]
  [[ $(cg_read memory memory.soft_limit_in_bytes memory.low) == 33554432 ]]
}

@test "cgroups: the memory limit is enforced (OOM kill)" {
  requires root cgroup_memory
  [[ $(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo) == 0 ]] || skip "the host has swap: the balloon would be swapped out"
  update_config '.linux.resources.memory = {limit: 33554432}'
  # tail is the only process that allocates, and the OOM killer's first
  # choice: with a writer in the cgroup (a pipe from head), the writer's
  # next page could trigger a second kill before tail's memory was freed,
  # and that one took the shell, which then printed nothing
  run_ct sh -c '(echo 1000 >/proc/self/oom_score_adj; exec tail /dev/zero) >/dev/null; echo "status=$?"'
  has_line status=137
}

@test "cgroups: pids limit is written and enforced" {
  requires root cgroup_pids
  start_with_resources '{pids: {limit: 20}}'
  [[ $(cg_read pids pids.max pids.max) == 20 ]]
  runtime delete --force "$CT_ID"
  # 30 background children: fine with room for them, fork fails at 10.
  update_config '.linux.resources.pids = {limit: 100}'
  run_ct sh -c 'for i in $(seq 30); do sleep 0.5 & done; wait'
  check_status 0
  [[ $output != *"can't fork"* ]] || fail "$output"
  update_config '.linux.resources.pids = {limit: 10}'
  run_ct sh -c 'for i in $(seq 30); do sleep 0.5 & done; wait'
  [[ $output == *"can't fork"* || $output == *"Resource temporarily unavailable"* ]] || fail "status $status: $output"
}

@test "cgroups: cpu shares, quota and period" {
  requires root cgroup_cpu
  start_with_resources '{cpu: {shares: 512, quota: 50000, period: 100000}}'
  if [[ $(_cgroup_mode) == v2 ]]; then
    [[ $(cg_read cpu - cpu.max) == "50000 100000" ]]
    [[ -n $(cg_read cpu - cpu.weight) ]]
  else
    [[ $(cg_read cpu cpu.shares -) == 512 ]]
    [[ $(cg_read cpu cpu.cfs_quota_us -) == 50000 ]]
    [[ $(cg_read cpu cpu.cfs_period_us -) == 100000 ]]
  fi
}

@test "cgroups: cpuset cpus and mems" {
  requires root cgroup_cpuset
  start_with_resources '{cpu: {cpus: "0", mems: "0"}}'
  [[ $(cg_read cpuset cpuset.cpus cpuset.cpus) == 0 ]]
  [[ $(cg_read cpuset cpuset.mems cpuset.mems) == 0 ]]
  [[ $(awk '$1 == "Cpus_allowed_list:" { print $2 }' "/proc/$CT_PID/status") == 0 ]]
}

@test "cgroups: blkio weight" {
  requires root cgroup_blkio
  start_with_resources '{}'
  dir=$(ct_cgroup_dir "$CT_PID" blkio)
  [[ -e $dir/blkio.weight || -e $dir/blkio.bfq.weight ]] || skip "no blkio weight file (no BFQ/CFQ scheduler)"
  runtime delete --force "$CT_ID"
  start_with_resources '{blockIO: {weight: 300}}'
  dir=$(ct_cgroup_dir "$CT_PID" blkio)
  [[ $(cat "$dir/blkio.weight" 2>/dev/null || awk '{ print $NF }' "$dir/blkio.bfq.weight") == 300 ]]
}

@test "cgroups: the devices cgroup denies devices not allowed" {
  requires root cgroup_devices
  update_config '.root.readonly = false
    | .process.capabilities.bounding += ["CAP_MKNOD"] | .process.capabilities.effective += ["CAP_MKNOD"]
    | .process.capabilities.permitted += ["CAP_MKNOD"]'
  run_ct sh -c 'mknod /tmp/null c 1 3 && echo x > /tmp/null && echo null=ok
    mknod /tmp/mem c 1 1; head -c 1 /tmp/mem > /dev/null 2>&1; echo "mem=$?"'
  has_line null=ok
  has_line mem=1
}

@test "cgroups: a devices allow rule opens a device" {
  requires root cgroup_devices
  update_config '.root.readonly = false
    | .process.capabilities.bounding += ["CAP_MKNOD"] | .process.capabilities.effective += ["CAP_MKNOD"]
    | .process.capabilities.permitted += ["CAP_MKNOD"]
    | .linux.resources.devices += [{allow: true, type: "c", major: 1, minor: 7, access: "rw"}]'
  run_ct sh -c 'mknod /tmp/full2 c 1 7; head -c 1 /tmp/full2 > /dev/null; echo "full=$?"'
  has_line full=0
}

# cgroups_path_case PATH: the container lands in PATH (memory controller's
# view) and the cgroup is gone after delete; PATH's parents are removed by
# the test (engines own them).
cgroups_path_case ()
{
  local path=$1 parent
  update_config '.linux.cgroupsPath = $p' --arg p "$path"
  parent=${path%/*}
  [[ -n $parent ]] && cleanup_add "find /sys/fs/cgroup -maxdepth 2 -type d -path '*$parent' -exec rmdir {} +"
  start_ct
  local pid
  pid=$(ct_pid "$CT_ID")
  if [[ $(_cgroup_mode) == v2 ]]; then
    grep -qx "0::$path" "/proc/$pid/cgroup" || fail "$(cat "/proc/$pid/cgroup")"
  else
    grep -Eq "^[0-9]+:memory:$path\$" "/proc/$pid/cgroup" || fail "$(cat "/proc/$pid/cgroup")"
    [[ -d /sys/fs/cgroup/memory$path ]]
  fi
  rt_ok delete --force "$CT_ID"
  [[ -z $(find /sys/fs/cgroup -path "*$path" 2>/dev/null) ]] || fail "left: $(find /sys/fs/cgroup -path "*$path")"
}

@test "cgroups: cgroupsPath /libpod_parent/libpod-ID (podman, cgroupfs)" {
  requires root cgroup_memory
  cgroups_path_case "/libpod_parent_$CT_ID/libpod-$CT_ID"
}

@test "cgroups: cgroupsPath /k8s.io/ID (containerd)" {
  requires root cgroup_memory
  cgroups_path_case "/k8s.io-$CT_ID/$CT_ID"
}

@test "cgroups: cgroupsPath /docker/ID (docker, cgroupfs)" {
  requires root cgroup_memory
  cgroups_path_case "/docker-$CT_ID/$CT_ID"
}

@test "cgroups: cgroupsPath one level deep" {
  requires root cgroup_memory
  cgroups_path_case "/agentrt-$CT_ID"
}

@test "cgroups: without cgroupsPath the container still gets its own cgroup, removed on delete" {
  requires root cgroup_memory
  update_config 'del(.linux.cgroupsPath)'
  start_ct
  pid=$(ct_pid "$CT_ID")
  mine=$(ct_cgroup_dir $$ memory)
  theirs=$(ct_cgroup_dir "$pid" memory)
  [[ $theirs != "$mine" ]]
  [[ -d $theirs ]]
  rt_ok delete --force "$CT_ID"
  [[ ! -d $theirs ]]
}

@test "cgroups: the cgroup is removed after run" {
  requires root cgroup_memory
  update_config '.linux.cgroupsPath = $p' --arg p "/agentrt-$CT_ID"
  run_ct true
  check_status 0
  [[ -z $(cgroups_named "$CT_ID") ]]
}

@test "cgroups: --systemd-cgroup without systemd fails cleanly" {
  requires root
  [[ ! -d /run/systemd/system ]] || skip "systemd runs here"
  update_config '.linux.cgroupsPath = $p' --arg p "system.slice:agentrt-test:$CT_ID"
  rt --systemd-cgroup create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  [[ -n $output ]]
  rt state "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}
