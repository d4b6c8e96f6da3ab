#!/usr/bin/env bats
# hardening-host: whatever the bundle asks, the agent gets no host control.
# Privileged shapes (a read-write /sys, /proc and cgroup, every device,
# no masks), extra procfs and sysfs instances, devices by the bundle's
# list, its rules and in the image, binds of the host's /dev, /sys, /boot
# and modules, filesystems other than the pseudo ones, host namespaces by
# path, the agent's view of sysfs, and bind sources swapped by another
# container.  Each attack also runs under the control runtime (runc),
# where it must work.

load helpers
load helpers/hardening
load helpers/security
load helpers/fault

setup ()
{
  hardening_setup
}

teardown ()
{
  teardown_bundle
}

@test "hardening: a privileged bundle's /proc, /sys and cgroup mounts come out read-only" {
  requires_control
  # this layer alone: the user namespace refuses the writes before the
  # read-only mounts do (userns-depth.bats shows it on its own)
  hardening_policy '.userns.mode = "off"'
  privileged_bundle
  run_ct sh -c "$KERNEL_WRITES"
  [[ $(grep -c ATTACK-BLOCKED <<<"$output") -ge 3 ]] || fail "too few checks: $output"
  attack_blocked
  blocked_with "Read-only file system"
  audit_events create | jq -e '[.changes[] | select(.kind == "mount-options") | .what]
      | any(startswith("/sys (sysfs)")) and any(startswith("/sys/fs/cgroup (cgroup"))' >/dev/null \
    || fail "no mount-options change recorded: $(audit_events create)"

  control_run sh -c "$KERNEL_WRITES"
  [[ $(grep -c ATTACK-OK <<<"$output") -ge 3 ]] || fail "under $CONTROL_RUNTIME: $output"
}

@test "hardening: every procfs and sysfs instance is read-only and masked, wherever it is mounted" {
  requires_control
  privileged_bundle
  add_mount /hostproc proc proc rw
  add_mount /hostsys sysfs sysfs rw
  local script='for f in /hostproc/sys/kernel/core_pattern /hostsys/kernel/mm/transparent_hugepage/enabled; do
    printf "%s: " "$f"; attack openw "$f"; done
    printf "timer_list: "; attack read /hostproc/timer_list'

  run_ct sh -c "$script"
  attack_blocked
  grep -q '^timer_list: ATTACK-BLOCKED read (empty file)' <<<"$output" || fail "timer_list: $output"
  audit_events create | jq -e '[.changes[] | select(.kind == "kernel-path") | .what]
      | index("/hostproc/timer_list") and index("/hostproc/sys")' >/dev/null \
    || fail "masks of /proc not repeated: $(audit_events create)"

  control_run sh -c "$script"
  [[ $(grep -c ATTACK-OK <<<"$output") -eq 3 ]] || fail "under $CONTROL_RUNTIME: $output"
}

@test "hardening: devices are an allowlist, whatever the bundle lists and its rules allow" {
  requires_control
  local disk
  # a loop device: a block device the host lets root open
  disk=$(stat -c '%t:%T' /dev/loop0 2>/dev/null) || skip "no /dev/loop0"
  disk=$((16#${disk%:*})):$((16#${disk#*:}))
  # this layer alone: in the user namespace the image's nodes are on a
  # nodev mount before the device rules judge them (userns-depth.bats)
  hardening_policy '.userns.mode = "off"'
  privileged_bundle
  update_config '.linux.devices += [{path: "/dev/kmsg", type: "c", major: 1, minor: 11},
      {path: "/dev/hostdisk", type: "b", major: $ma, minor: $mi}]' \
    --argjson ma "${disk%:*}" --argjson mi "${disk#*:}"
  # the same nodes in the image itself: only the device rules stop them
  mkdir -p "$ROOTFS/nodes"
  mknod "$ROOTFS/nodes/kmsg" c 1 11
  mknod "$ROOTFS/nodes/disk" b "${disk%:*}" "${disk#*:}"
  local script='for d in /dev/kmsg /dev/hostdisk /nodes/kmsg /nodes/disk; do
    printf "%s: " "$d"; attack dev "$d"; done
    printf "null: "; attack dev /dev/null'

  run_ct sh -c "$script"
  for d in /dev/kmsg /dev/hostdisk /nodes/kmsg /nodes/disk; do
    grep -q "^$d: ATTACK-BLOCKED" <<<"$output" || fail "$d: $output"
  done
  grep -q '^/nodes/disk: ATTACK-BLOCKED.*Operation not permitted' <<<"$output" \
    || fail "the image's node was not denied by the device rules: $output"
  has_line "null: ATTACK-OK device open"
  audit_events create | jq -e '[.changes[] | select(.kind == "device") | .what]
      | any(startswith("/dev/kmsg")) and any(startswith("/dev/hostdisk"))' >/dev/null \
    || fail "devices not recorded: $(audit_events create)"

  control_run sh -c "$script"
  [[ $(grep -c ATTACK-OK <<<"$output") -eq 5 ]] || fail "under $CONTROL_RUNTIME: $output"
}

@test "hardening: binds of the host's /dev, /sys, /proc, /boot, modules and device nodes are dropped" {
  requires_control
  add_bind /dev /hostdev rbind
  add_bind /sys /hostsys rbind
  add_bind /proc /hostproc rbind
  add_bind /dev/kmsg /kmsg
  [[ -d /boot ]] && add_bind /boot /hostboot rbind
  [[ -d /usr/lib/modules ]] && add_bind /usr/lib/modules /modules rbind
  local script='for p in /hostdev/null /hostsys/kernel /hostproc/1 /kmsg; do
    [ -e "$p" ] && echo "present $p"; done; echo done'

  run_ct sh -c "$script"
  check_status 0
  [[ $output != *present* ]] || fail "a host path reached the container: $output"
  audit_events create | jq -e '[.changes[] | select(.kind == "mount-dropped") | .what]
      | any(startswith("/hostdev")) and any(startswith("/hostsys"))
        and any(startswith("/hostproc")) and any(startswith("/kmsg"))' >/dev/null \
    || fail "drops not recorded: $(audit_events create)"

  control_run sh -c "$script"
  [[ $(grep -c '^present' <<<"$output") -eq 4 ]] || fail "under $CONTROL_RUNTIME: $output"
}

@test "hardening: only pseudo filesystems are mounted (an overlay of the host's /etc is dropped)" {
  requires_control
  local empty
  empty=$(host_dir empty)
  add_mount /hostetc overlay overlay "lowerdir=/etc:$empty" ro
  local script='printf "hostname: "; attack read /hostetc/hostname'

  run_ct sh -c "$script"
  attack_blocked
  audit_events create | jq -e '[.changes[] | select(.kind == "mount-dropped") | .what]
      | any(startswith("/hostetc (overlay"))' >/dev/null \
    || fail "drop not recorded: $(audit_events create)"

  control_run sh -c "$script"
  attack_worked
}

@test "hardening: a host namespace by path is refused, naming it (--pid=host and the like)" {
  requires_control
  local t file
  # this shell's namespaces are the host's (the runtime's own), as pid 1's
  # are; pid 1's may be out of this test's reach in a nested sandbox
  for t in pid ipc uts mount cgroup; do
    file=$t
    [[ $t == mount ]] && file=mnt
    update_config '.linux.namespaces = ([.linux.namespaces[] | select(.type != $t)]
        + [{type: $t, path: $p}])' --arg t "$t" --arg p "/proc/$$/ns/$file"
    rt run --bundle "$BUNDLE" "$CT_ID-$t"
    one_line_error "linux.namespaces[" "/proc/$$/ns/$file" "host's $t namespace"
    no_leftovers "$CT_ID-$t"
    update_config '.linux.namespaces |= map(select(.type != $t)) + [{type: $t}]' --arg t "$t"
  done

  # runc joins the host's pid namespace: pid 1 is the host's init
  update_config '.linux.namespaces = ([.linux.namespaces[] | select(.type != "pid")]
      + [{type: "pid", path: $p}])' --arg p "/proc/$$/ns/pid"
  control_run sh -c 'echo "comm: $(cat /proc/1/comm)"'
  check_status 0
  [[ $output == *"comm: $(cat /proc/1/comm)"* ]] || fail "under $CONTROL_RUNTIME: $output"
}

@test "hardening: the agent's sysfs shows its own network namespace, not the engine's" {
  requires_control
  requires ip nsenter
  # an engine's hook puts an interface in the bundle's network namespace
  local hook=$BATS_TEST_TMPDIR/add-link
  cat >"$hook" <<'EOF'
#!/bin/sh
pid=$(jq -r .pid)
exec nsenter -t "$pid" -n ip link add agentrt-d0 type veth peer name agentrt-d1
EOF
  chmod +x "$hook"
  update_config '.hooks.prestart = [{path: $h}]' --arg h "$hook"
  local script='echo "net: $(ls /sys/class/net | tr "\n" " ")"'

  run_ct sh -c "$script"
  check_status 0
  has_line "net: lo "

  control_run sh -c "$script"
  [[ $output == *agentrt-d0* ]] || fail "under $CONTROL_RUNTIME: $output"
}

# swap_source_at_judged VOL: create the container with the runtime stopped
# where the bind sources are judged (fault point create:judged), swap
# VOL/data for a symlink to the host's /etc meanwhile, then let it go on.
swap_source_at_judged ()
{
  local vol=$1 pid
  AGENTRT_FAULT_STAGE=create:judged AGENTRT_FAULT_SIGNAL=STOP \
    runtime run --bundle "$BUNDLE" "$CT_ID" >"$BATS_TEST_TMPDIR/swap.out" 2>&1 &
  # the runtime (below the shell and timeout) stops itself there
  pid=$(stopped_process -f -- "run --bundle $BUNDLE $CT_ID") \
    || fail "the runtime did not stop at create:judged"
  mv "$vol/data" "$vol/data.judged"
  ln -s /etc "$vol/data"
  kill -CONT "$pid"
  wait
  output=$(<"$BATS_TEST_TMPDIR/swap.out")
}

@test "hardening: a bind source swapped for a symlink after it was judged changes nothing (fault point)" {
  requires_control
  requires_fault_points
  local vol
  vol=$(host_dir volume)
  mkdir "$vol/data"
  echo judged >"$vol/data/marker"
  add_bind "$vol/data" /data
  set_cmd sh -c 'echo "marker: $(cat /data/marker)"; [ -e /data/hostname ] && echo "host /etc visible"; true'

  swap_source_at_judged "$vol"
  [[ $output == *"marker: judged"* ]] || fail "the judged directory was not mounted: $output"
  [[ $output != *"host /etc visible"* ]] || fail "the swapped-in symlink was followed: $output"

  # a runtime that resolves the source when it mounts follows the symlink
  control_run sh -c '[ -e /data/hostname ] && echo "host /etc visible"; true'
  [[ $output == *"host /etc visible"* ]] || fail "under $CONTROL_RUNTIME: $output"
}

# open_below DIR: the fds of every process on the host that point at a
# directory below DIR (not DIR itself), one "pid fd -> path" a line.
open_below ()
{
  local fd link
  for fd in /proc/[0-9]*/fd/*; do
    link=$(readlink "$fd" 2>/dev/null) || continue
    [[ $link == "$1"/* ]] && printf '%s -> %s\n' "$fd" "$link"
  done
  return 0
}

@test "hardening: the bind scan leaves no directory below a source open (init, monitor, sidecar)" {
  # the scan walks a tree through open directories; once create has
  # judged it, none of them may stay open in a process of the container:
  # they would pin the host's tree (a busy unmount) and be one fd away
  # from the host's files while the init waits for start
  local d
  d=$(host_dir tree)
  mkdir -p "$d/a/b/c/d/e" "$d/x/y"
  echo f >"$d/a/b/c/d/e/f"
  add_bind "$d" /tree rbind ro
  set_cmd sleep inf
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  local open
  open=$(open_below "$d")
  [[ -z $open ]] || fail "directories below the bind source are still open after create:"$'\n'"$open"
  rt_ok start "$CT_ID"
  open=$(open_below "$d")
  [[ -z $open ]] || fail "directories below the bind source are open after start:"$'\n'"$open"
}

@test "hardening: another container keeps swapping a shared directory with symlinks to a home and /" {
  local vol home
  vol=$(host_dir volume)
  new_canary
  home=$(host_dir victim-home)
  fake_home "$home"
  mkdir "$vol/d"
  echo shared >"$vol/d/marker"
  ln -s "$home" "$vol/h"
  ln -s / "$vol/r"
  add_bind "$vol/d" /data
  set_cmd sh -c 'cat /data/marker 2>/dev/null; cat /data/.ssh/id_rsa /data/etc/shadow 2>/dev/null; echo end'
  # the racers are the attacker's own containers: started runc-like (a
  # hardened one would refuse a volume that another keeps changing)
  local saved=("${RUNTIME_ARGS[@]}")
  use_policy off
  start_racer racer1 "$vol" d h 60
  start_racer racer2 "$vol" d r 60
  RUNTIME_ARGS=("${saved[@]}")
  local i started=0
  for i in $(seq 12); do
    rt run --bundle "$BUNDLE" "$CT_ID-$i"
    if [[ $status -eq 0 ]]; then
      started=$((started + 1))
      [[ $output != *"$CANARY"* ]] || fail "victim $i read the home's key: $output"
      [[ $output != *root:* ]] || fail "victim $i read the host's /etc/shadow: $output"
    else
      one_line_error || return 1
    fi
  done
  echo "# $started of 12 started" >&3
  runtime kill "$CT_ID-racer1" KILL
  runtime kill "$CT_ID-racer2" KILL
}

@test "hardening: an image's /etc/passwd that is a FIFO and resolv.conf that is a device node: create neither waits for nor opens them" {
  # the runtime, root on the host, reads both from the image before the
  # container starts (HOME, the agent's resolv.conf): opened, the FIFO
  # would hang create and the node would be the host's /dev/urandom
  rm -f "$ROOTFS/etc/passwd" "$ROOTFS/etc/resolv.conf"
  mkfifo "$ROOTFS/etc/passwd"
  mknod "$ROOTFS/etc/resolv.conf" c 1 9
  update_config '.process.env |= map(select(startswith("HOME=") | not))'
  RUNTIME_TIMEOUT=30 run_ct sh -c 'echo "home=$HOME"; echo "resolv: $(stat -c %F /etc/resolv.conf)"'
  check_status 0
  has_line "home=/"
  has_line "resolv: character special file"
}
