#!/bin/bash
# tests/vm/cgroup-v2.sh: agentrt on a pure cgroup v2 host (the guest of
# hack/vm-test.sh: cgroup2 on /sys/fs/cgroup, every controller enabled,
# no v1 hierarchy).  Lifecycle, limits the kernel actually enforces
# (memory, pids, cpu), pause/resume, update, the eBPF device program, and
# the hardening that rests on cgroups (default limits, lifetime, OOM and
# pids events in the audit trail) under the default policy.
# shellcheck source=lib.sh
. /opt/agentrt/tests/lib.sh

test_cgroup2_layout ()
{
  local c
  grep -q '^cgroup2 /sys/fs/cgroup cgroup2 ' /proc/mounts || fail "no cgroup2 on /sys/fs/cgroup"
  if grep -q ' cgroup ' /proc/mounts; then
    fail "a cgroup v1 hierarchy is mounted"
  fi
  for c in cpu cpuset io memory pids hugetlb; do
    grep -qw "$c" "$CG/cgroup.subtree_control" || fail "controller $c not enabled"
  done
  rt features >features.json
  grep -q '"v2": *true' features.json || fail "features: no cgroup v2"
}

test_lifecycle ()
{
  local pid cg out
  # An init ignores signals it has no handler for: this one handles TERM.
  mk_bundle b sh -c 'trap "exit 0" TERM; while :; do sleep 0.2; done'
  rt create --bundle b lc >create.out 2>&1 </dev/null
  expect_eq created "$(ct_status lc)" "status after create"
  pid=$(ct_pid lc)
  cg=$(cg_dir "$pid")
  expect_eq "$CG/$CG_TEST_PARENT/b" "$cg" "cgroup of the init"
  grep -qx "$pid" "$cg/cgroup.procs" || fail "init $pid not in $cg/cgroup.procs"
  rt start lc
  expect_eq running "$(ct_status lc)" "status after start"
  out=$(rt exec lc cat /proc/self/cgroup </dev/null)
  expect_eq "0::/" "$out" "exec'd process's cgroup (in the container's cgroup namespace)"
  out=$(rt ps --format json lc)
  expect_match "[^0-9]${pid}[^0-9]" "$out" "ps lists the init"
  rt kill lc TERM
  wait_gone "$pid"
  wait_status lc stopped
  rt delete lc
  [[ ! -d $cg ]] || fail "$cg still exists after delete"
  expect_fail "state after delete" rt state lc
}

test_run_exit_codes ()
{
  local rc run
  mk_bundle b sh -c 'exit 3'
  rt run --bundle b rc3 </dev/null && rc=0 || rc=$?
  expect_eq 3 "$rc" "run status of 'exit 3'"
  # The init SIGKILLed from outside: run exits 128 + 9.
  mk_bundle b sleep 1000
  rt run --bundle b rc137 </dev/null >run.out 2>&1 &
  run=$!
  wait_status rc137 running
  kill -KILL "$(ct_pid rc137)"
  wait "$run" && rc=0 || rc=$?
  expect_eq 137 "$rc" "run status of a SIGKILLed init"
  [[ ! -d $CG/$CG_TEST_PARENT/b ]] || fail "cgroup left after run"
}

# Without cgroupsPath the container's cgroup is named after its id, next
# to the caller's own cgroup (runc's rule on v2), and removed at delete.
test_default_cgroup_path ()
{
  local pid rc
  mk_bundle b --cgroups-path "" sleep 1000
  rt create --bundle b dflt1 >create.out 2>&1 </dev/null
  pid=$(ct_pid dflt1)
  expect_eq "$CG/dflt1" "$(cg_dir "$pid")" "cgroup of a caller in the root cgroup"
  rt delete --force dflt1
  [[ ! -d $CG/dflt1 ]] || fail "$CG/dflt1 left after delete"
  # Now from a caller in /vmtest/caller.
  mkdir -p "$CG/$CG_TEST_PARENT/caller"
  echo "$BASHPID" >"$CG/$CG_TEST_PARENT/caller/cgroup.procs"
  rt create --bundle b dflt2 >create2.out 2>&1 </dev/null && rc=0 || rc=$?
  echo "$BASHPID" >"$CG/cgroup.procs"
  expect_eq 0 "$rc" "create from /$CG_TEST_PARENT/caller ($(cat create2.out))"
  pid=$(ct_pid dflt2)
  expect_eq "$CG/$CG_TEST_PARENT/dflt2" "$(cg_dir "$pid")" "cgroup of a caller in /$CG_TEST_PARENT/caller"
  rt delete --force dflt2
  [[ ! -d $CG/$CG_TEST_PARENT/dflt2 ]] || fail "dflt2's cgroup left after delete"
  rmdir "$CG/$CG_TEST_PARENT/caller"
}

test_memory_limit_oom_kill ()
{
  local pid cg kills rc
  mk_bundle b --resources '{"memory": {"limit": 33554432, "swap": 33554432}}' awk "$BALLOON"
  rt create --bundle b oom >create.out 2>&1 </dev/null
  pid=$(ct_pid oom)
  cg=$(cg_dir "$pid")
  expect_eq 33554432 "$(cat "$cg/memory.max")" memory.max
  expect_eq 0 "$(cat "$cg/memory.swap.max")" memory.swap.max
  rt start oom
  wait_gone "$pid" 60
  wait_status oom stopped
  kills=$(cg_key "$cg/memory.events" oom_kill)
  ((kills >= 1)) || fail "memory.events oom_kill = $kills"
  note "balloon OOM-killed at 32 MiB (oom_kill=$kills, memory.peak=$(cat "$cg/memory.peak" 2>/dev/null))"
  rt delete oom
  # Below the limit the same program runs to the end.
  mk_bundle b --resources '{"memory": {"limit": 33554432, "swap": 33554432}}' \
    awk 'BEGIN { s = "x"; for (i = 0; i < 22; i++) s = s s; print length(s) }'
  rt run --bundle b small >small.out 2>&1 </dev/null && rc=0 || rc=$?
  expect_eq 0 "$rc" "a 4 MiB string under a 32 MiB limit ($(cat small.out))"
}

test_pids_limit_fork_fails ()
{
  local pid cg cur max=0
  mk_bundle b --resources '{"pids": {"limit": 10}}' sh -c "$FORKS"
  rt create --bundle b pids >out 2>&1 </dev/null
  pid=$(ct_pid pids)
  cg=$(cg_dir "$pid")
  expect_eq 10 "$(cat "$cg/pids.max")" pids.max
  rt start pids
  for _ in $(seq 100); do
    grep -q loop-done out && break
    sleep 0.1
  done
  max=$(cg_key "$cg/pids.events" max)
  cur=$(cat "$cg/pids.current")
  ((max > 0)) || fail "pids.events max = $max (pids.current $cur)"
  ((cur <= 10)) || fail "pids.current = $cur above the limit"
  grep -qi "fork" out || fail "no fork failure reported: $(cat out)"
  note "pids.max 10: $max fork(s) refused, pids.current $cur"
  expect_eq running "$(ct_status pids)" "status after the refused forks"
  rt delete --force pids
}

# cpu_usage_us CGROUP: usage_usec from cpu.stat.
cpu_usage_us ()
{
  cg_key "$1/cpu.stat" usage_usec
}

test_cpu_quota ()
{
  local cq cf uq0 uf0 uq1 uf1 t0 t1 rq rf thr
  mk_bundle q --resources '{"cpu": {"quota": 20000, "period": 100000}}' sh -c 'while :; do :; done'
  mk_bundle f sh -c 'while :; do :; done'
  rt run -d --bundle q quota >q.out 2>&1 </dev/null
  rt run -d --bundle f free >f.out 2>&1 </dev/null
  cq=$(cg_dir "$(ct_pid quota)")
  cf=$(cg_dir "$(ct_pid free)")
  expect_eq "20000 100000" "$(cat "$cq/cpu.max")" cpu.max
  sleep 1
  t0=$(now_ms) uq0=$(cpu_usage_us "$cq") uf0=$(cpu_usage_us "$cf")
  sleep 4
  t1=$(now_ms) uq1=$(cpu_usage_us "$cq") uf1=$(cpu_usage_us "$cf")
  rq=$(awk -v u=$((uq1 - uq0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.2f", u / (t * 1000) }')
  rf=$(awk -v u=$((uf1 - uf0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.2f", u / (t * 1000) }')
  thr=$(cg_key "$cq/cpu.stat" nr_throttled)
  note "busy loop: quota 0.2 cpu -> $rq cpu (nr_throttled $thr); no quota -> $rf cpu"
  awk -v r="$rq" 'BEGIN { exit !(r > 0.05 && r < 0.35) }' || fail "quota 0.2: measured $rq cpu"
  awk -v q="$rq" -v f="$rf" 'BEGIN { exit !(f > 2 * q) }' || fail "unlimited loop got $rf cpu, not clearly more than $rq"
  ((thr > 0)) || fail "nr_throttled = $thr"
  rt delete --force quota
  rt delete --force free
}

test_pause_resume ()
{
  local pid cg c1 c2 c3
  mkdir out
  mk_bundle b --mount "$(bind_mount "$TEST_DIR/out" /out)" \
    sh -c 'while :; do echo tick >>/out/ticks; sleep 0.1; done'
  rt run -d --bundle b pz >run.out 2>&1 </dev/null
  pid=$(ct_pid pz)
  cg=$(cg_dir "$pid")
  sleep 1
  rt pause pz
  expect_eq paused "$(ct_status pz)" "status after pause"
  expect_eq 1 "$(cat "$cg/cgroup.freeze")" cgroup.freeze
  expect_eq 1 "$(cg_key "$cg/cgroup.events" frozen)" "cgroup.events frozen"
  # lines appended, counted: a file rewritten in place reads empty at times
  c1=$(wc -l <out/ticks)
  sleep 1
  c2=$(wc -l <out/ticks)
  expect_eq "$c1" "$c2" "counter while paused"
  rt resume pz
  expect_eq running "$(ct_status pz)" "status after resume"
  expect_eq 0 "$(cg_key "$cg/cgroup.events" frozen)" "cgroup.events frozen after resume"
  sleep 1
  c3=$(wc -l <out/ticks)
  ((c3 > c2)) || fail "counter did not move after resume ($c2 -> $c3)"
  # exec --ignore-paused: the process joins the frozen cgroup once set up
  # and runs on resume.
  rt pause pz
  rt exec --detach --ignore-paused --pid-file exec.pid pz sh -c 'echo ran >/out/exec' </dev/null
  expect_eq "$(cat "/proc/$pid/cgroup")" "$(cat "/proc/$(cat exec.pid)/cgroup")" "the exec'd process's cgroup"
  sleep 0.3
  [[ ! -e out/exec ]] || fail "the exec'd process ran while paused"
  rt resume pz
  local tries=50
  until [[ -s out/exec ]] || ((tries-- == 0)); do sleep 0.1; done
  expect_eq ran "$(cat out/exec 2>/dev/null)" "the exec'd process after resume"
  # A paused container can still be killed.
  rt pause pz
  rt kill pz KILL
  wait_gone "$pid"
  wait_status pz stopped
  rt delete pz
}

test_update ()
{
  local cg stats
  mk_bundle b --resources '{"memory": {"limit": 67108864}, "pids": {"limit": 20},
    "cpu": {"quota": 50000, "period": 100000, "shares": 1024}}' sleep 1000
  rt run -d --bundle b up >run.out 2>&1 </dev/null
  cg=$(cg_dir "$(ct_pid up)")
  expect_eq 67108864 "$(cat "$cg/memory.max")" memory.max
  expect_eq 20 "$(cat "$cg/pids.max")" pids.max
  expect_eq "50000 100000" "$(cat "$cg/cpu.max")" cpu.max
  expect_eq 100 "$(cat "$cg/cpu.weight")" "cpu.weight (shares 1024)"
  rt update --memory 134217728 --pids-limit 40 --cpu-quota 30000 up
  expect_eq 134217728 "$(cat "$cg/memory.max")" "memory.max after update"
  expect_eq 40 "$(cat "$cg/pids.max")" "pids.max after update"
  expect_eq "30000 100000" "$(cat "$cg/cpu.max")" "cpu.max after update"
  echo '{"memory": {"limit": 100663296}, "cpu": {"shares": 512}, "pids": {"limit": -1}}' >r.json
  rt update --resources r.json up
  expect_eq 100663296 "$(cat "$cg/memory.max")" "memory.max after update -r"
  # crun 1.23's and runc 1.3's conversion (1024 -> 100, 512 -> 59).
  expect_eq 59 "$(cat "$cg/cpu.weight")" "cpu.weight after update -r (shares 512)"
  expect_eq max "$(cat "$cg/pids.max")" "pids.max after update -r (-1)"
  stats=$(rt events --stats up)
  expect_match '"pids":\{"current":[1-9]' "$stats" "events --stats pids"
  expect_match '"usage":\{"limit":100663296,"usage":[1-9]' "$stats" "events --stats memory"
  rt delete --force up
}

test_devices_ebpf ()
{
  local out
  devices_bundle a ""
  out=$(rt run --bundle a dev-a </dev/null)
  expect_match "read=denied" "$out" "read of a device not allowed"
  expect_match "write=denied" "$out" "write of a device not allowed"
  expect_match "Operation not permitted" "$out" "the error"
  expect_match "null=ok" "$out" "/dev/null"
  devices_bundle b '{"allow": true, "type": "c", "major": 1, "minor": 11, "access": "r"}'
  out=$(rt run --bundle b dev-b </dev/null)
  expect_match "read=ok" "$out" "read of a device allowed 'r'"
  expect_match "write=denied" "$out" "write of a device allowed only 'r'"
  expect_match "null=ok" "$out" "/dev/null"
}

# The same device denial for a hardened container whose bundle allows
# every device: the bind of the host's /dev/kmsg is dropped, and a node
# the image itself holds is refused by the eBPF program (not a nodev
# mount: "Operation not permitted").
test_devices_hardened ()
{
  local out node=/opt/agentrt/rootfs/vmkmsg-node all='{"allow": true, "access": "rwm"}'
  use_policy default
  devices_bundle a "$all"
  out=$(rt run --bundle a dev-h </dev/null)
  expect_match "can't open /dev/vmkmsg: no such file" "$out" "the bind of a host device node dropped"
  mknod "$node" c 1 11
  mk_bundle b --resources "{\"devices\": [$all]}" sh -c "${DEVICE_PROBE//\/dev\/vmkmsg//vmkmsg-node}"
  # the device rules alone: with the container's user namespace the
  # image's root is nodev as well, which would refuse first
  use_policy default '"userns": {"mode": "off"}'
  out=$(rt run --bundle b dev-h2 </dev/null)
  rm -f "$node"
  expect_match "read=denied" "$out" "read of an image's device not allowed"
  expect_match "write=denied" "$out" "write of an image's device not allowed"
  expect_match "Operation not permitted" "$out" "the error (the device rules, not nodev)"
  expect_match "null=ok" "$out" "/dev/null"
}

test_hardened_default_limits ()
{
  local cg pid
  use_policy default
  mk_bundle b sleep 1000
  rt run -d --bundle b hd >run.out 2>&1 </dev/null
  pid=$(ct_pid hd)
  cg=$(cg_dir "$pid")
  expect_eq 4294967296 "$(cat "$cg/memory.max")" "default memory.max (4g)"
  expect_eq 0 "$(cat "$cg/memory.swap.max")" "default memory.swap.max (no swap)"
  expect_eq 1024 "$(cat "$cg/pids.max")" "default pids.max"
  rt audit hd >audit.out
  grep -qF '"kind":"limit","what":"pids.limit=1024"' audit.out || fail "audit: no pids default: $(cat audit.out)"
  grep -qF '"kind":"limit","what":"memory.limit=4g' audit.out || fail "audit: no memory default: $(cat audit.out)"
  sidecar_started hd || fail "no egress sidecar after the first connection"
  rt kill hd KILL
  wait_gone "$pid"
  wait_status hd stopped
  rt delete hd
  [[ ! -d $cg ]] || fail "$cg left after delete"
}

test_hardened_oom_audited ()
{
  local rc
  use_policy default '"limits": {"memory": "32m"}'
  mk_bundle b awk "$BALLOON"
  rt run --bundle b ho >run.out 2>&1 </dev/null && rc=0 || rc=$?
  expect_eq 137 "$rc" "run status of the OOM-killed balloon ($(cat run.out))"
  audit_has ho limit oom || fail "no oom limit event in the audit trail: $(cat audit.out)"
  audit_has ho exit || fail "no exit event in the audit trail: $(cat audit.out)"
}

test_hardened_pids_audited ()
{
  local cg
  use_policy default '"limits": {"pids": 12}'
  mk_bundle b sh -c "$FORKS"
  rt run -d --bundle b hp >run.out 2>&1 </dev/null
  cg=$(cg_dir "$(ct_pid hp)")
  expect_eq 12 "$(cat "$cg/pids.max")" "pids.max from the policy"
  for _ in $(seq 50); do
    audit_has hp limit pids && break
    sleep 0.2
  done
  audit_has hp limit pids \
    || fail "no pids limit event in the audit trail (pids.events: $(cat "$cg/pids.events")): $(cat audit.out)"
  rt delete --force hp
}

test_lifetime_kill ()
{
  local t0 t1 pid
  use_policy default
  mk_bundle b --annotation run.agentrt.timeout 3 sleep 1000
  t0=$(now_ms)
  rt run -d --bundle b lt >run.out 2>&1 </dev/null
  pid=$(ct_pid lt)
  [[ -n $pid ]] || fail "no pid for lt"
  wait_gone "$pid" 60
  t1=$(now_ms)
  wait_status lt stopped
  (((t1 - t0) >= 2900)) || fail "stopped after $((t1 - t0)) ms, before the 3 s lifetime"
  note "lifetime 3 s: stopped $((t1 - t0)) ms after run"
  audit_has lt limit lifetime || fail "no lifetime event in the audit trail: $(cat audit.out)"
  rt delete lt
}

# Where clone3 is refused (a kernel before 5.3, a seccomp profile that
# hides it), the init and exec'd processes are cloned the old way and then
# moved into the cgroup: they must end up in it all the same.
test_clone3_refused ()
{
  local pid cg out
  mk_bundle b sleep 1000
  rt_no_clone3 create --bundle b nc >create.out 2>&1 </dev/null \
    || fail "create without clone3: $(cat create.out)"
  pid=$(ct_pid nc)
  cg=$(cg_dir "$pid")
  expect_eq "$CG/$CG_TEST_PARENT/b" "$cg" "cgroup of the init cloned without clone3"
  rt_no_clone3 start nc
  out=$(rt_no_clone3 exec nc cat /proc/self/cgroup </dev/null)
  expect_eq "0::/" "$out" "exec'd process's cgroup without clone3"
  rt delete --force nc
  [[ ! -d $cg ]] || fail "$cg still exists after delete"
}

rt_no_clone3 ()
{
  /opt/agentrt/bin/no-clone3 "$VM_RT" --root "$VM_STATE" --policy "$POLICY" "${VM_RT_FLAGS[@]}" "$@"
}

run_suite cgroup-v2 \
  test_cgroup2_layout \
  test_lifecycle \
  test_clone3_refused \
  test_run_exit_codes \
  test_default_cgroup_path \
  test_memory_limit_oom_kill \
  test_pids_limit_fork_fails \
  test_cpu_quota \
  test_pause_resume \
  test_update \
  test_devices_ebpf \
  test_devices_hardened \
  test_hardened_default_limits \
  test_hardened_oom_audited \
  test_hardened_pids_audited \
  test_lifetime_kill
