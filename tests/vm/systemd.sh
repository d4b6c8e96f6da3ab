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
# calls it before looking for leaked cgroups), and the rootless test's
# user and session.
suite_cleanup ()
{
  local u left=0
  _rootless_cleanup
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
  rt run -d --bundle b hs1 >run.out 2>&1 </dev/null || fail "run -d: $(cat run.out)"
  expect_eq 4294967296 "$(prop $u MemoryMax)" "default MemoryMax (4g)"
  expect_eq 1024 "$(prop $u TasksMax)" "default TasksMax"
  sidecar_started hs1 || fail "no egress sidecar after the first connection"
  rt delete --force hs1
  expect_no_unit $u
  # The monitor sees the OOM kill although systemd removes the emptied scope.
  use_policy default '"limits": {"memory": "32m"}'
  mk_bundle c --cgroups-path machine.slice:libpod:hs2 awk "$BALLOON"
  rt run --bundle c hs2 >run2.out 2>&1 </dev/null && rc=0 || rc=$?
  expect_eq 137 "$rc" "run status of the balloon ($(cat run2.out))"
  audit_has hs2 limit oom || fail "no oom limit event in the audit trail: $(cat audit.out)"
}

# ---- rootless ------------------------------------------------------------------

RL_USER=vmrootless

# as_rl CMD...: CMD as the rootless test user, with a clean environment.
as_rl ()
{
  setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups -- \
    env -i PATH="$PATH" HOME="/home/$RL_USER" "$@"
}

# in_caller CMD...: CMD (a function or program) in the user's own cgroup
# below its session's delegated subtree (RL_CALLER), as a shell of the
# user's session would be.
in_caller ()
{
  (
    echo "$BASHPID" >"$RL_CALLER/cgroup.procs"
    "$@"
  )
}

# urt ARGS...: agentrt as that user, with its own state root and policy.
urt ()
{
  as_rl "$VM_RT" --root "$TEST_DIR/ustate" --policy "$TEST_DIR/upolicy.json" "$@"
}

# _rootless_cleanup: what test_rootless_delegated made, also when it failed
# (from suite_cleanup): the user's containers, its session, the user.
_rootless_cleanup ()
{
  local id uid d
  uid=$(id -u "$RL_USER" 2>/dev/null) || return 0
  for d in "$VM_WORK"/*/ustate; do
    [[ -d $d ]] || continue
    for id in $(ls "$d"); do
      setpriv --reuid="$uid" --regid="$(id -g "$RL_USER")" --init-groups -- \
        "$VM_RT" --root "$d" delete --force "$id" >/dev/null 2>&1 || true
    done
  done
  systemctl stop "user@$uid.service" "user-runtime-dir@$uid.service" >/dev/null 2>&1 || true
  userdel -r "$RL_USER" >/dev/null 2>&1 || true
  rm -rf "/run/systemd/system/user-runtime-dir@$uid.service.d" \
    "/run/systemd/system/user@$uid.service.d"
  systemctl daemon-reload
}

# A bundle of the template for a user namespace of the user's own ids (what
# `agentrt spec --rootless` maps): devpts without gid=5 (unmapped).
rootless_bundle ()
{
  local dir=$1 c
  shift
  mk_bundle "$dir" --cgroups-path "" "$@"
  c=$(<"$dir/config.json")
  c=${c/',"gid=5"'/}
  c=${c/'{"type":"cgroup"}]'/"{\"type\":\"cgroup\"},{\"type\":\"user\"}],\"uidMappings\":[{\"containerID\":0,\"hostID\":$RL_UID,\"size\":1}],\"gidMappings\":[{\"containerID\":0,\"hostID\":$RL_GID,\"size\":1}]"}
  [[ $c == *'"uidMappings"'* ]] || fail "rootless_bundle: no namespaces list to extend in the template"
  printf '%s\n' "$c" >"$dir/config.json"
}

# test_rootless_delegated: agentrt run by an ordinary user inside its
# systemd user session (user@UID.service, whose cgroup subtree systemd
# delegates to the user): the container's cgroup is made there and the
# hardening's default limits are enforced in it, with limits.unenforceable
# left at "fail"; exec, ps and delete go through that cgroup.  Run from a
# cgroup of root's (this suite's service), the same create is refused,
# naming the limits and the directory.  No D-Bus here: the scope
# `systemd-run --user --scope` would make is made by hand, by the user.
# With --systemd-cgroup the user's systemd makes the container's scope
# (its private socket: no D-Bus needed).
test_rootless_delegated ()
{
  local svc id=rl1 pid cg out rc
  command -v useradd >/dev/null || skip "no useradd in the image"
  useradd -m -s /bin/sh "$RL_USER"
  RL_UID=$(id -u "$RL_USER") RL_GID=$(id -g "$RL_USER")
  # systemd-user-runtime-dir asks logind over D-Bus, which this image
  # lacks: /run/user/UID is made by hand (what it would make)
  mkdir -p "/run/systemd/system/user-runtime-dir@$RL_UID.service.d"
  printf '%s\n' '[Service]' 'ExecStart=' \
    "ExecStart=/bin/sh -c 'mkdir -p /run/user/$RL_UID && chown $RL_UID:$RL_GID /run/user/$RL_UID && chmod 0700 /run/user/$RL_UID'" \
    'ExecStop=' "ExecStop=/bin/rm -rf /run/user/$RL_UID" \
    >"/run/systemd/system/user-runtime-dir@$RL_UID.service.d/vmtest.conf"
  # ... and pam_systemd, which would set XDG_RUNTIME_DIR for the manager
  mkdir -p "/run/systemd/system/user@$RL_UID.service.d"
  printf '%s\n' '[Service]' "Environment=XDG_RUNTIME_DIR=/run/user/$RL_UID" \
    >"/run/systemd/system/user@$RL_UID.service.d/vmtest.conf"
  systemctl daemon-reload
  if ! systemctl start "user@$RL_UID.service"; then
    systemctl status --no-pager "user-runtime-dir@$RL_UID.service" "user@$RL_UID.service" >&2 || true
    journalctl -b --no-pager -n 40 >&2 || true
    fail "systemctl start user@$RL_UID.service"
  fi
  svc=$CG/user.slice/user-$RL_UID.slice/user@$RL_UID.service
  [[ -d $svc ]] || fail "no $svc"
  expect_eq "$RL_UID" "$(stat -c %u "$svc")" "owner of $svc (delegated)"
  note "user@$RL_UID.service's controllers: $(cat "$svc/cgroup.controllers")"
  RL_CALLER=$svc/vmtest.slice/caller.scope
  as_rl mkdir -p "$RL_CALLER"
  chmod 0755 "$TEST_DIR"
  mkdir -p ustate uaudit
  chmod 0700 uaudit
  printf '{"version": 1, "seccomp": {"profile": %s}, "audit": {"dir": %s}}\n' \
    "$(json_str "$VM_PROFILE")" "$(json_str "$TEST_DIR/uaudit")" >upolicy.json
  rootless_bundle b sleep 1000
  chown -R "$RL_UID:$RL_GID" ustate uaudit upolicy.json b
  in_caller urt run -d --bundle b "$id" >run.out 2>&1 </dev/null \
    || fail "run as $RL_USER: $(cat run.out)"
  pid=$(json_get "$(urt state "$id")" pid)
  cg=$(cg_dir "$pid")
  expect_eq "$svc/vmtest.slice/$id" "$cg" "the container's cgroup (next to its caller's)"
  expect_eq "$RL_UID" "$(stat -c %u "$cg")" "owner of the container's cgroup"
  expect_eq 1024 "$(cat "$cg/pids.max")" "pids.max (the hardening's default)"
  if grep -qw memory "$svc/cgroup.controllers"; then
    expect_eq 4294967296 "$(cat "$cg/memory.max")" "memory.max (the hardening's default)"
  fi
  out=$(in_caller urt exec "$id" cat /proc/self/cgroup </dev/null)
  expect_eq "0::/" "$out" "exec'd process's cgroup"
  # an exec from outside the user's subtree cannot join the cgroup: refused
  out=$(urt exec "$id" true 2>&1 </dev/null) && rc=0 || rc=$?
  [[ $rc -ne 0 ]] || fail "exec from a cgroup of root's joined the container's"
  expect_match "clone into the container's cgroup \(a runtime that is not root must run in the same delegated cgroup subtree\)" "$out" "exec refused"
  out=$(urt ps --format json "$id")
  expect_match "\[$pid\]|[,\[]$pid[],]" "$out" "ps through the cgroup"
  grep -q '"kind":"limit","what":"linux.resources' "$TEST_DIR/uaudit/$id.jsonl" \
    && fail "a limit was recorded as not enforced: $(cat "$TEST_DIR/uaudit/$id.jsonl")"
  urt delete --force "$id"
  [[ ! -d $cg ]] || fail "cgroup left after delete"
  # --systemd-cgroup (rootless Podman's default on such a host): the user's
  # own systemd makes the scope, delegated, below user@UID.service
  rootless_bundle bs --cgroups-path "user.slice:agentrt:rl3" sleep 1000
  chown -R "$RL_UID:$RL_GID" bs
  in_caller as_rl env XDG_RUNTIME_DIR="/run/user/$RL_UID" "$VM_RT" --root "$TEST_DIR/ustate" \
    --policy "$TEST_DIR/upolicy.json" --systemd-cgroup run -d --bundle bs rl3 >run3.out 2>&1 </dev/null \
    || fail "run --systemd-cgroup as $RL_USER: $(cat run3.out)"
  pid=$(json_get "$(urt state rl3)" pid)
  cg=$(cg_dir "$pid")
  expect_eq "$svc/user.slice/agentrt-rl3.scope" "$cg" "the container's scope (the user's systemd's)"
  expect_eq 1024 "$(cat "$cg/pids.max")" "pids.max in the scope (the hardening's default)"
  grep -q '"kind":"limit","what":"linux.resources' "$TEST_DIR/uaudit/rl3.jsonl" \
    && fail "a limit was recorded as not enforced: $(cat "$TEST_DIR/uaudit/rl3.jsonl")"
  # delete finds the user's systemd without the flag (the scope's unit is
  # in the state)
  as_rl env XDG_RUNTIME_DIR="/run/user/$RL_UID" "$VM_RT" --root "$TEST_DIR/ustate" \
    --policy "$TEST_DIR/upolicy.json" delete --force rl3
  wait_gone "$pid"
  for _ in $(seq 50); do [[ -d $cg ]] || break; sleep 0.1; done
  [[ ! -d $cg ]] || fail "scope left after delete: $cg"
  # from this suite's own cgroup (root's, in system.slice): refused
  out=$(urt run --bundle b rl2 2>&1 </dev/null) && rc=0 || rc=$?
  [[ $rc -ne 0 ]] || fail "created from a cgroup of root's: $out"
  expect_match "linux.resources.pids, linux.resources.memory: cannot be enforced as uid $RL_UID" "$out" "refusal"
  expect_match "is not writable by uid $RL_UID" "$out" "refusal's reason"
  _rootless_cleanup
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
  test_hardened_scope \
  test_rootless_delegated
