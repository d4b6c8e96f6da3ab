#!/usr/bin/env bats
# userns-depth: defense in depth, shown.  The kernel-interface and device
# attacks of hardening-host.bats run with that layer switched off
# (AGENTRT_FAULT_LAYER_OFF=kernel-surface, only in a build configured with
# --enable-fault-injection): the privileged bundle's /proc, /sys and cgroup
# stay read-write, its device list and rules stay as written.  The
# container's own user namespace still stops them (its root is not the
# host's: host-owned kernel files and device nodes refuse it, the image's
# device nodes are on a nodev mount).  The same runs with the user
# namespace off too, where the attacks work: the switch really removed the
# layer; and under runc, the control.

load helpers
load helpers/hardening
load helpers/fault

setup ()
{
  hardening_setup
  requires_fault_points
  hardening_policy '.userns.mode = "auto"'
  export AGENTRT_FAULT_LAYER_OFF=kernel-surface
}

teardown ()
{
  unset AGENTRT_FAULT_LAYER_OFF
  teardown_bundle
}

@test "userns-depth: with the kernel-interface layer off, host kernel settings are still not writable" {
  requires_control
  privileged_bundle
  run_ct sh -c "$KERNEL_WRITES"
  [[ $(grep -c ATTACK-BLOCKED <<<"$output") -ge 3 ]] || fail "too few checks: $output"
  blocked_with "Permission denied"
  audit_events create | jq -e '[.changes[] | .why] | index("test build: AGENTRT_FAULT_LAYER_OFF=kernel-surface")' >/dev/null \
    || fail "the switch is not recorded: $(audit_events create)"
  audit_events create | jq -e '[.changes[] | select(.kind == "mount-options") | .what]
      | any(startswith("/sys (sysfs)")) | not' >/dev/null \
    || fail "the layer was applied: $(audit_events create)"

  # the layer is off indeed: without the user namespace the same works
  hardening_policy '.userns.mode = "off"'
  run_ct sh -c "$KERNEL_WRITES"
  [[ $(grep -c ATTACK-OK <<<"$output") -ge 3 ]] || fail "without the user namespace: $output"

  control_run sh -c "$KERNEL_WRITES"
  [[ $(grep -c ATTACK-OK <<<"$output") -ge 3 ]] || fail "under $CONTROL_RUNTIME: $output"
}

@test "userns-depth: with the device allowlist off, the host's disk and the image's nodes stay closed" {
  requires_control
  local disk
  disk=$(stat -c '%t:%T' /dev/loop0 2>/dev/null) || skip "no /dev/loop0"
  disk=$((16#${disk%:*})):$((16#${disk#*:}))
  privileged_bundle
  # in a user namespace a device is the host's node of that path, bound
  update_config '.linux.devices += [{path: "/dev/loop0", type: "b", major: $ma, minor: $mi}]' \
    --argjson ma "${disk%:*}" --argjson mi "${disk#*:}"
  mkdir -p "$ROOTFS/nodes"
  mknod "$ROOTFS/nodes/disk" b "${disk%:*}" "${disk#*:}"
  mknod "$ROOTFS/nodes/kmsg" c 1 11
  local script='for d in /dev/loop0 /nodes/disk /nodes/kmsg; do
    printf "%s: " "$d"; attack dev "$d"; done'

  run_ct sh -c "$script"
  for d in /dev/loop0 /nodes/disk /nodes/kmsg; do
    grep -q "^$d: ATTACK-BLOCKED.*Permission denied" <<<"$output" || fail "$d: $output"
  done
  attack_blocked

  hardening_policy '.userns.mode = "off"'
  run_ct sh -c "$script"
  # (kmsg wants CAP_SYSLOG too, which the safe set lacks)
  for d in /dev/loop0 /nodes/disk; do
    grep -q "^$d: ATTACK-OK" <<<"$output" || fail "without the user namespace, $d: $output"
  done

  control_run sh -c "$script"
  [[ $(grep -c ATTACK-OK <<<"$output") -ge 3 ]] || fail "under $CONTROL_RUNTIME: $output"
}
