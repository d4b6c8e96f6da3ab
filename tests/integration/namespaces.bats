#!/usr/bin/env bats
# namespaces: new ones for each type the config lists, the host's for the
# others, joined ones given by path; user namespace mappings; cgroup and
# time namespaces.

load helpers

# The container prints its namespace ids with this.
print_ns_cmd='for n in mnt uts ipc net pid cgroup user; do echo "$n $(readlink /proc/self/ns/$n)"; done'

@test "namespaces: each listed type is new, each unlisted one is the host's" {
  requires root
  update_config '.linux.namespaces = [{type: "mount"}, {type: "uts"}, {type: "pid"}]'
  run_ct sh -c "$print_ns_cmd"
  check_status 0
  for ns in mnt uts pid; do
    [[ $(awk -v n=$ns '$1 == n { print $2 }' <<<"$output") != "$(ns_id self $ns)" ]] || fail "$ns is the host's"
  done
  for ns in ipc net user; do
    [[ $(awk -v n=$ns '$1 == n { print $2 }' <<<"$output") == "$(ns_id self $ns)" ]] || fail "$ns is not the host's"
  done
}

@test "namespaces: the default set gives new mount, uts, ipc, net and pid namespaces" {
  requires root
  run_ct sh -c "$print_ns_cmd; echo pid1 \$\$"
  check_status 0
  for ns in mnt uts ipc net pid; do
    [[ $(awk -v n=$ns '$1 == n { print $2 }' <<<"$output") != "$(ns_id self $ns)" ]] || fail "$ns is the host's"
  done
  [[ $(awk '$1 == "pid1" { print $2 }' <<<"$output") == 1 ]]
}

@test "namespaces: a new network namespace has only lo" {
  requires root
  run_ct sh -c 'ls /sys/class/net'
  check_status 0
  [[ $output == lo ]] || fail "interfaces: $output"
}

@test "namespaces: the runtime brings lo up in a new network namespace, before the hooks" {
  requires root ip
  log=$BATS_TEST_TMPDIR/hook.log
  # createContainer hooks run in the container's namespaces (before its
  # pivot_root, so the host's ip and paths)
  update_config '.hooks.createContainer = [{path: "/bin/sh",
      args: ["sh", "-c", "ip -o link show lo > \($log)"]}]' --arg log "$log"
  run_ct sh -c 'cat /sys/class/net/lo/flags; ip -o addr show lo'
  check_status 0
  # IFF_UP (0x1) with IFF_LOOPBACK (0x8)
  (( (${lines[0]} & 0x9) == 0x9 )) || fail "lo flags: $output"
  grep -q 'inet 127.0.0.1/8' <<<"$output" || fail "$output"
  grep -q '<LOOPBACK,UP' "$log" || fail "in the hook: $(<"$log")"
}

@test "namespaces: lo of a joined network namespace is left as it is" {
  requires root ip
  ns=agentrt-$CT_ID
  ip netns add "$ns"
  cleanup_add "ip netns del $ns"
  update_config '(.linux.namespaces[] | select(.type == "network")) .path = $p' --arg p "/run/netns/$ns"
  run_ct cat /sys/class/net/lo/flags
  check_status 0
  (( (output & 0x1) == 0 )) || fail "lo flags: $output"
}

@test "namespaces: join a network namespace by path (ip netns)" {
  requires root ip
  ns=agentrt-$CT_ID
  ip netns add "$ns"
  cleanup_add "ip netns del $ns"
  ip -n "$ns" link add dummy-"${CT_ID:0:8}" type dummy 2>/dev/null || true
  update_config '(.linux.namespaces[] | select(.type == "network")) .path = $p' --arg p "/run/netns/$ns"
  run_ct sh -c 'readlink /proc/self/ns/net'
  check_status 0
  [[ $output == "net:[$(stat -L -c %i "/run/netns/$ns")]" ]] || fail "got $output"
}

@test "namespaces: join ipc and uts namespaces by path" {
  requires root unshare
  ipc=$BATS_TEST_TMPDIR/ipcns uts=$BATS_TEST_TMPDIR/utsns
  touch "$ipc" "$uts"
  cleanup_add "umount -l $ipc; umount -l $uts"
  unshare --ipc="$ipc" --uts="$uts" hostname "joined-${CT_ID:0:20}"
  update_config 'del(.hostname)
    | (.linux.namespaces[] | select(.type == "ipc")) .path = $ipc
    | (.linux.namespaces[] | select(.type == "uts")) .path = $uts' --arg ipc "$ipc" --arg uts "$uts"
  run_ct sh -c 'hostname; readlink /proc/self/ns/ipc; readlink /proc/self/ns/uts'
  check_status 0
  [[ ${lines[0]} == "joined-${CT_ID:0:20}" ]]
  [[ ${lines[1]} == "ipc:[$(stat -L -c %i "$ipc")]" ]]
  [[ ${lines[2]} == "uts:[$(stat -L -c %i "$uts")]" ]]
}

@test "namespaces: join another container's pid namespace" {
  requires root
  start_ct "$CT_ID-a"
  apid=$(ct_pid "$CT_ID-a")
  update_config '(.linux.namespaces[] | select(.type == "pid")) .path = $p' --arg p "/proc/$apid/ns/pid"
  set_cmd sh -c 'readlink /proc/self/ns/pid; ps -o pid,args'
  rt run --bundle "$BUNDLE" "$CT_ID-b"
  check_status 0
  [[ ${lines[0]} == "$(ns_id "$apid" pid)" ]]
  grep -Eq '^ *1 +sleep inf' <<<"$output" || fail "container a's init not visible: $output"
}

@test "namespaces: a user namespace with uid and gid mappings" {
  requires root userns
  open_bundle_path
  update_config '.linux.namespaces += [{type: "user"}]
    | .linux.uidMappings = [{containerID: 0, hostID: 200000, size: 65536}]
    | .linux.gidMappings = [{containerID: 0, hostID: 300000, size: 65536}]'
  set_cmd sh -c 'cat /proc/self/uid_map /proc/self/gid_map; id -u; id -g; exec sleep inf'
  start_ct
  pid=$(ct_pid "$CT_ID")
  # Seen from the host the process runs as the mapped ids.
  [[ $(awk '$1 == "Uid:" { print $2 }' "/proc/$pid/status") == 200000 ]]
  [[ $(awk '$1 == "Gid:" { print $2 }' "/proc/$pid/status") == 300000 ]]
  [[ $(ns_id "$pid" user) != "$(ns_id self user)" ]]
  for ((i = 0; i < 50; i++)); do
    [[ $(wc -l <"$CT_OUT") -ge 4 ]] && break
    sleep 0.1
  done
  mapfile -t out <"$CT_OUT"
  [[ $(echo ${out[0]}) == "0 200000 65536" ]] || fail "uid_map: ${out[0]}"
  [[ $(echo ${out[1]}) == "0 300000 65536" ]] || fail "gid_map: ${out[1]}"
  [[ ${out[2]} == 0 && ${out[3]} == 0 ]]
}

@test "namespaces: a user namespace with several mapping ranges" {
  requires root userns
  open_bundle_path
  update_config '.linux.namespaces += [{type: "user"}]
    | .linux.uidMappings = [{containerID: 0, hostID: 200000, size: 1000}, {containerID: 1000, hostID: 210000, size: 1000}]
    | .linux.gidMappings = [{containerID: 0, hostID: 200000, size: 65536}]
    | .process.user = {uid: 1500, gid: 0}'
  run_ct sh -c 'cat /proc/self/uid_map; id -u'
  check_status 0
  [[ $(echo ${lines[0]}) == "0 200000 1000" ]]
  [[ $(echo ${lines[1]}) == "1000 210000 1000" ]]
  [[ ${lines[2]} == 1500 ]]
}

@test "namespaces: a new cgroup namespace roots /proc/self/cgroup at the container's cgroup" {
  requires root ns_cgroup
  update_config '.linux.namespaces += [{type: "cgroup"}]'
  run_ct sh -c 'cat /proc/self/cgroup; readlink /proc/self/ns/cgroup'
  check_status 0
  [[ ${lines[-1]} != "$(ns_id self cgroup)" ]]
  # Every hierarchy's path is / from inside.
  ! grep -v '^cgroup:' <<<"$output" | grep -vq ':/$' || fail "paths: $output"
}

@test "namespaces: a time namespace with monotonic and boottime offsets" {
  requires root ns_time
  update_config '.linux.namespaces += [{type: "time"}]
    | .linux.timeOffsets = {monotonic: {secs: 86400, nanosecs: 0}, boottime: {secs: 31536000, nanosecs: 0}}'
  run_ct sh -c 'cat /proc/self/timens_offsets; cut -d. -f1 /proc/uptime'
  check_status 0
  grep -Eq '^monotonic +86400 +0$' <<<"$output" || fail "offsets: $output"
  grep -Eq '^boottime +31536000 +0$' <<<"$output" || fail "offsets: $output"
  host_uptime=$(cut -d. -f1 /proc/uptime)
  [[ ${lines[-1]} -ge $((host_uptime + 31536000 - 5)) ]]
}

@test "namespaces: a namespace path of the wrong type is refused" {
  requires root ip
  ns=agentrt-$CT_ID
  ip netns add "$ns"
  cleanup_add "ip netns del $ns"
  update_config '(.linux.namespaces[] | select(.type == "uts")) .path = $p' --arg p "/run/netns/$ns"
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "namespaces: a namespace path that does not exist is refused" {
  requires root
  update_config '(.linux.namespaces[] | select(.type == "network")) .path = "/run/netns/agentrt-does-not-exist"'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}
