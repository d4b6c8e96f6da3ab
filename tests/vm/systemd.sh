#!/bin/bash
# tests/vm/systemd.sh: agentrt --systemd-cgroup against a real systemd (the
# Debian guest of `hack/vm-test.sh --systemd`: systemd as PID 1 on the
# unified cgroup v2 hierarchy).  The transient scopes podman
# (machine.slice:libpod:ID), docker (system.slice:docker:ID) and the
# kubelet (kubepods-*.slice:cri-containerd:ID) ask for: that they appear
# in systemd with the resources, survive daemon-reload, and go at delete.
# shellcheck source=lib.sh
. /opt/agentrt/tests/lib.sh

VM_RT_FLAGS=(--systemd-cgroup)
# systemd's own units come and go: only these count as leaks.
VM_CG_LEAK_RE='(libpod|docker|cri-containerd|agentrt)-|kubepods'
# The device tests read /dev/kmsg without CAP_SYSLOG.
echo 0 >/proc/sys/kernel/dmesg_restrict

# suite_cleanup: stop scopes and slices the tests left (lib.sh's runner
# calls it before looking for leaked cgroups).
suite_cleanup ()
{
  local u left=0
  for u in $(systemctl list-units --all --plain --no-legend '*.scope' 'kubepods*.slice' \
    | awk '{ print $1 }' | grep -E "$VM_CG_LEAK_RE"); do
    case $u in
      *.slice) systemctl stop "$u" ;;
      *) echo "leaked unit: $u" >&2; systemctl stop "$u"; left=1 ;;
    esac
  done
  return $left
}

# prop UNIT PROPERTY: a unit's property, as `systemctl show -P` prints it.
prop ()
{
  systemctl show -P "$2" "$1"
}

# expect_no_unit UNIT: systemd does not know UNIT (or it is inactive and
# being garbage-collected).
expect_no_unit ()
{
  local st
  st=$(systemctl show -P ActiveState "$1")
  [[ $st == inactive || -z $st ]] || fail "$1 is $st after delete"
}

test_systemd_host ()
{
  local st
  [[ $(readlink /proc/1/exe) == */systemd ]] || fail "pid 1 is $(readlink /proc/1/exe)"
  grep -q '^cgroup2 /sys/fs/cgroup cgroup2 ' /proc/mounts || fail "systemd is not on the unified hierarchy"
  [[ -S /run/systemd/private ]] || fail "no /run/systemd/private"
  st=$(timeout 120 systemctl is-system-running --wait) || true
  note "systemd $(systemctl --version | awk 'NR == 1 { print $2 }'), state '$st'; $(systemd-analyze time 2>&1 | head -n 1)"
  [[ $st == running || $st == degraded ]] || fail "system state '$st'"
}

test_libpod_scope ()
{
  local u=libpod-lp1.scope pid out rc
  mk_bundle b --cgroups-path machine.slice:libpod:lp1 sleep 1000
  rt run -d --bundle b lp1 >run.out 2>&1 </dev/null
  pid=$(ct_pid lp1)
  expect_eq active "$(prop $u ActiveState)" "$u state"
  expect_eq /machine.slice/$u "$(prop $u ControlGroup)" "$u ControlGroup"
  expect_eq "$CG/machine.slice/$u" "$(cg_dir "$pid")" "cgroup of the init"
  expect_eq yes "$(prop $u Delegate)" "$u Delegate"
  out=$(systemctl status --no-pager $u) && rc=0 || rc=$?
  expect_eq 0 "$rc" "systemctl status $u"
  expect_match "[^0-9]${pid}[^0-9]" "$out" "systemctl status lists the init"
  out=$(rt exec lp1 cat /proc/self/cgroup </dev/null)
  expect_eq "0::/" "$out" "exec'd process's cgroup"
  rt delete --force lp1
  expect_no_unit $u
  [[ ! -d $CG/machine.slice/$u ]] || fail "cgroup left after delete"
  # A container that exits by itself: its scope goes; delete still works.
  mk_bundle c --cgroups-path machine.slice:libpod:lp2 sh -c 'exit 7'
  rt run --bundle c lp2 >run2.out 2>&1 </dev/null && rc=0 || rc=$?
  expect_eq 7 "$rc" "run status ($(cat run2.out))"
  expect_no_unit libpod-lp2.scope
}

test_docker_scope_resources ()
{
  local u=docker-dk1.scope cg
  mk_bundle b --cgroups-path system.slice:docker:dk1 --resources '{"memory": {"limit": 67108864},
    "pids": {"limit": 20}, "cpu": {"quota": 50000, "period": 100000}}' sleep 1000
  rt run -d --bundle b dk1 >run.out 2>&1 </dev/null
  cg=$CG/system.slice/$u
  expect_eq "$cg" "$(cg_dir "$(ct_pid dk1)")" "cgroup of the init"
  expect_eq 67108864 "$(prop $u MemoryMax)" MemoryMax
  expect_eq 20 "$(prop $u TasksMax)" TasksMax
  expect_eq 500ms "$(prop $u CPUQuotaPerSecUSec)" CPUQuotaPerSecUSec
  expect_eq 67108864 "$(cat "$cg/memory.max")" memory.max
  expect_eq 20 "$(cat "$cg/pids.max")" pids.max
  expect_eq "50000 100000" "$(cat "$cg/cpu.max")" cpu.max
  systemctl daemon-reload
  expect_eq 67108864 "$(cat "$cg/memory.max")" "memory.max after daemon-reload"
  expect_eq 20 "$(cat "$cg/pids.max")" "pids.max after daemon-reload"
  expect_eq "50000 100000" "$(cat "$cg/cpu.max")" "cpu.max after daemon-reload"
  rt update --memory 134217728 --pids-limit 40 --cpu-quota 30000 dk1
  expect_eq 134217728 "$(prop $u MemoryMax)" "MemoryMax after update"
  expect_eq 40 "$(prop $u TasksMax)" "TasksMax after update"
  expect_eq 134217728 "$(cat "$cg/memory.max")" "memory.max after update"
  expect_eq "30000 100000" "$(cat "$cg/cpu.max")" "cpu.max after update"
  systemctl daemon-reload
  expect_eq 134217728 "$(cat "$cg/memory.max")" "memory.max after update and daemon-reload"
  expect_eq 40 "$(cat "$cg/pids.max")" "pids.max after update and daemon-reload"
  rt delete --force dk1
  expect_no_unit $u
}

test_scope_limits_enforced ()
{
  local rc u=libpod-sl2.scope cg max
  mk_bundle b --cgroups-path machine.slice:libpod:sl1 \
    --resources '{"memory": {"limit": 33554432, "swap": 33554432}}' awk "$BALLOON"
  rt run --bundle b sl1 >run.out 2>&1 </dev/null && rc=0 || rc=$?
  expect_eq 137 "$rc" "run status of the balloon ($(cat run.out))"
  dmesg >dmesg.out
  grep -q 'oom_memcg=/machine.slice/libpod-sl1.scope' dmesg.out \
    || fail "no memcg OOM kill in libpod-sl1.scope in the kernel log"
  mk_bundle c --cgroups-path machine.slice:libpod:sl2 --resources '{"pids": {"limit": 10}}' sh -c "$FORKS"
  rt run -d --bundle c sl2 >run2.out 2>&1 </dev/null
  cg=$CG/machine.slice/$u
  for _ in $(seq 100); do
    grep -q loop-done run2.out && break
    sleep 0.1
  done
  max=$(cg_key "$cg/pids.events" max)
  ((max > 0)) || fail "pids.events max = $max in $u"
  expect_eq 10 "$(prop $u TasksMax)" TasksMax
  rt delete --force sl2
}

test_devices_survive_daemon_reload ()
{
  local out
  devices_bundle a "" --cgroups-path machine.slice:libpod:dv1
  out=$(rt run --bundle a dv1 </dev/null)
  expect_match "read=denied" "$out" "read of a device not allowed"
  expect_match "write=denied" "$out" "write of a device not allowed"
  expect_match "null=ok" "$out" "/dev/null"
  # A running container probed with exec, before and after daemon-reload.
  mk_bundle b --mount "$(bind_mount /dev/kmsg /dev/vmkmsg)" --cgroups-path machine.slice:libpod:dv2 \
    --resources '{"devices": [{"allow": true, "type": "c", "major": 1, "minor": 11, "access": "r"}]}' \
    sleep 1000
  rt run -d --bundle b dv2 >run.out 2>&1 </dev/null
  out=$(rt exec dv2 sh -c "$DEVICE_PROBE" </dev/null)
  expect_match "read=ok" "$out" "read of a device allowed 'r'"
  expect_match "write=denied" "$out" "write of a device allowed only 'r'"
  systemctl daemon-reload
  out=$(rt exec dv2 sh -c "$DEVICE_PROBE" </dev/null)
  expect_match "read=ok" "$out" "read allowed 'r', after daemon-reload"
  expect_match "write=denied" "$out" "write allowed only 'r', after daemon-reload"
  rt delete --force dv2
}

test_pause_resume_scope ()
{
  local u=libpod-pz1.scope cg
  mk_bundle b --cgroups-path machine.slice:libpod:pz1 sleep 1000
  rt run -d --bundle b pz1 >run.out 2>&1 </dev/null
  cg=$CG/machine.slice/$u
  rt pause pz1
  expect_eq paused "$(ct_status pz1)" "status after pause"
  expect_eq 1 "$(cg_key "$cg/cgroup.events" frozen)" "cgroup.events frozen"
  expect_eq active "$(prop $u ActiveState)" "$u while paused"
  rt resume pz1
  expect_eq running "$(ct_status pz1)" "status after resume"
  expect_eq 0 "$(cg_key "$cg/cgroup.events" frozen)" "cgroup.events frozen after resume"
  rt delete --force pz1
  expect_no_unit $u
}

test_kubepods_slice ()
{
  local u=cri-containerd-k1.scope want
  want=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1a2b.slice/$u
  mk_bundle b --cgroups-path kubepods-besteffort-pod1a2b.slice:cri-containerd:k1 sleep 1000
  rt run -d --bundle b k1 >run.out 2>&1 </dev/null
  expect_eq "$want" "$(prop $u ControlGroup)" "$u ControlGroup"
  expect_eq "$CG$want" "$(cg_dir "$(ct_pid k1)")" "cgroup of the init"
  rt delete --force k1
  expect_no_unit $u
  systemctl stop kubepods.slice
}

test_default_scope ()
{
  local u=agentrt-df1.scope
  mk_bundle b --cgroups-path "" sleep 1000
  rt run -d --bundle b df1 >run.out 2>&1 </dev/null
  expect_eq /system.slice/$u "$(prop $u ControlGroup)" "$u ControlGroup"
  rt delete --force df1
  expect_no_unit $u
}

# The scope already holds the container's init when the cpuset write
# fails; stopping it must not wait for that init to obey SIGTERM (it
# ignores it: a 30 s job timeout, then 90 s of systemd's, before the fix).
test_failed_create_leaves_no_scope ()
{
  local rc t0 ms
  mk_bundle b --cgroups-path machine.slice:libpod:bad1 --resources '{"cpu": {"cpus": "63"}}' sleep 1000
  t0=$(now_ms)
  rt create --bundle b bad1 >create.out 2>&1 </dev/null && rc=0 || rc=$?
  ms=$(($(now_ms) - t0))
  ((rc != 0)) || fail "create with cpus 63 on a $(nproc)-cpu machine succeeded"
  note "create refused in $ms ms: $(head -n 1 create.out)"
  ((ms < 20000)) || fail "the failed create took $ms ms (waiting for the scope to stop?)"
  expect_no_unit libpod-bad1.scope
  [[ ! -d $CG/machine.slice/libpod-bad1.scope ]] || fail "cgroup left after the failed create"
  expect_fail "state of the failed container" rt state bad1
}

test_hardened_scope ()
{
  local u=libpod-hs1.scope rc
  use_policy default
  mk_bundle b --cgroups-path machine.slice:libpod:hs1 sleep 1000
  rt run -d --bundle b hs1 >run.out 2>&1 </dev/null
  expect_eq 4294967296 "$(prop $u MemoryMax)" "default MemoryMax (4g)"
  expect_eq 1024 "$(prop $u TasksMax)" "default TasksMax"
  [[ -n $(pidof agentrt-egress) ]] || fail "no egress sidecar running"
  rt delete --force hs1
  expect_no_unit $u
  # The monitor sees the OOM kill although systemd removes the emptied scope.
  use_policy default '"limits": {"memory": "32m"}'
  mk_bundle c --cgroups-path machine.slice:libpod:hs2 awk "$BALLOON"
  rt run --bundle c hs2 >run2.out 2>&1 </dev/null && rc=0 || rc=$?
  expect_eq 137 "$rc" "run status of the balloon ($(cat run2.out))"
  audit_has hs2 limit oom || fail "no oom limit event in the audit trail: $(cat audit.out)"
}

run_suite systemd \
  test_systemd_host \
  test_libpod_scope \
  test_docker_scope_resources \
  test_scope_limits_enforced \
  test_devices_survive_daemon_reload \
  test_pause_resume_scope \
  test_kubepods_slice \
  test_default_scope \
  test_failed_create_leaves_no_scope \
  test_hardened_scope
