#!/usr/bin/env bats
# process: user, groups, umask, cwd, env, rlimits, the five capability sets,
# noNewPrivileges, oomScoreAdj, sysctl, hostname/domainname, personality,
# LSM labels.

load helpers

@test "process: uid, gid and additionalGids" {
  requires root
  update_config '.process.user = {uid: 65534, gid: 65534, additionalGids: [5, 100, 1000]}'
  run_ct sh -c 'id -u; id -g; grep -E "^(Uid|Gid|Groups):" /proc/self/status'
  check_status 0
  [[ ${lines[0]} == 65534 && ${lines[1]} == 65534 ]]
  grep -Eq '^Uid:\s+65534\s+65534\s+65534\s+65534$' <<<"$output"
  grep -Eq '^Gid:\s+65534\s+65534\s+65534\s+65534$' <<<"$output"
  [[ $(awk '$1 == "Groups:" { $1 = ""; print }' <<<"$output" | xargs -n1 | sort -n | xargs) == "5 100 1000" ]] || fail "$output"
}

@test "process: root with no additionalGids has no supplementary groups" {
  requires root
  run_ct sh -c 'grep "^Groups:" /proc/self/status'
  check_status 0
  [[ $(awk '{ $1 = ""; print }' <<<"$output" | xargs) == "" ]] || fail "$output"
}

@test "process: umask" {
  requires root
  update_config '.process.user.umask = 63'
  run_ct sh -c 'umask'
  check_status 0
  [[ $output == 0077 ]]
}

@test "process: cwd" {
  requires root
  update_config '.process.cwd = "/etc"'
  run_ct pwd
  check_status 0
  [[ $output == /etc ]]
}

@test "process: a cwd the image lacks is created, also under a read-only root" {
  requires root
  update_config '.root.readonly = true | .process.cwd = "/no/such/dir"
    | .process.user = {uid: 65534, gid: 65534}'
  run_ct sh -c 'pwd; stat -c %F /no/such/dir'
  check_status 0
  [[ ${lines[0]} == /no/such/dir && ${lines[1]} == directory ]] || fail "$output"
  # made in the rootfs, before the root became read-only
  [[ -d $ROOTFS/no/such/dir ]]
}

@test "process: a cwd that is a file fails create" {
  requires root
  update_config '.process.cwd = "/etc/passwd"'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

# run_split: `run` the bundle with stdout and stderr two pipes, into
# $out and $err (stdin from /dev/null).
run_split ()
{
  local o=$BATS_TEST_TMPDIR/split.out e=$BATS_TEST_TMPDIR/split.err
  { runtime run --bundle "$BUNDLE" "$CT_ID" 2>&1 1>&3 </dev/null | cat >"$e"; } 3>&1 | cat >"$o"
  out=$(<"$o") err=$(<"$e")
}

@test "process: a non-root user owns its stdio pipes and can reopen /dev/stdout and /dev/stderr" {
  requires root
  update_config '.process.user = {uid: 65534, gid: 65534}'
  set_cmd sh -c 'echo out >/dev/stdout && echo err >/dev/stderr && stat -L -c %u:%g /proc/self/fd/1 /proc/self/fd/2'
  run_split
  [[ $out == $'out\n'65534:* && $err == err ]] || fail "stdout: $out; stderr: $err"
  # crun and agentrt give the gid too; runc only the uid
  [[ $(runtime_name) == runc || $out == $'out\n65534:65534\n65534:65534' ]] || fail "stdout: $out"
}

@test "process: a regular file as stdout is given to the user too" {
  requires root
  update_config '.process.user = {uid: 65534, gid: 65534}'
  set_cmd sh -c 'echo again >>/dev/stdout'
  # create's stdio (rt: a file) is the container's (runc's `run` would
  # put pipes of its own in between)
  rt_ok create --bundle "$BUNDLE" "$CT_ID"
  f=$RT_OUT
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" stopped
  [[ $(<"$f") == again && $(stat -c %u "$f") == 65534 ]] || fail "$(stat -c %u:%g "$f"): $(<"$f")"
}

@test "process: the init leads a session and process group of its pid namespace" {
  requires root
  run_ct sh -c 'read -r pid comm st ppid pgrp sid rest </proc/self/stat; echo "$pid $pgrp $sid"'
  check_status 0
  [[ $output == "1 1 1" ]] || fail "pid pgrp sid: $output"
}

@test "process: env is exactly the config's (plus what the spec allows)" {
  requires root
  update_config '.process.env = ["PATH=/bin", "ONE=1", "SPACED=a b  c", "EMPTY=", "AGENTRT_TEST_TAG=\($id)"]' --arg id "$CT_ID"
  run_ct env
  check_status 0
  has_line "ONE=1"
  has_line "SPACED=a b  c"
  has_line "EMPTY="
  has_line "PATH=/bin"
  # Nothing of the runtime's own environment leaks in.
  ! grep -q -e '^BATS_' -e '^_LIBCONTAINER' -e '^RUNTIME=' <<<"$output"
}

@test "process: rlimits" {
  requires root
  update_config '.process.rlimits = [{type: "RLIMIT_NOFILE", soft: 123, hard: 456},
      {type: "RLIMIT_NPROC", soft: 1000, hard: 2000}, {type: "RLIMIT_CORE", soft: 0, hard: 0}]'
  run_ct cat /proc/self/limits
  check_status 0
  grep -Eq '^Max open files +123 +456 +files' <<<"$output" || fail "$output"
  grep -Eq '^Max processes +1000 +2000 +processes' <<<"$output" || fail "$output"
  grep -Eq '^Max core file size +0 +0 +bytes' <<<"$output" || fail "$output"
}

@test "process: an unknown rlimit type is refused" {
  requires root
  update_config '.process.rlimits = [{type: "RLIMIT_AGENTRT_NOPE", soft: 1, hard: 1}]'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

# caps_line: "CapInh:=... CapPrm:=..." from /proc/self/status in $output.
caps_line ()
{
  awk '/^Cap(Inh|Prm|Eff|Bnd|Amb):/ { printf "%s=%s ", $1, $2 }' <<<"$output"
}

@test "process: all five capability sets as configured (root)" {
  requires root
  # For root, execve makes effective = permitted, and permitted = bounding |
  # inheritable unless no_new_privs caps it at the permitted set the
  # runtime gave: with noNewPrivileges every configured set is observable.
  update_config '.process.noNewPrivileges = true | .process.capabilities = {
      bounding: ["CAP_CHOWN", "CAP_KILL", "CAP_NET_RAW", "CAP_SETUID"],
      effective: ["CAP_CHOWN", "CAP_KILL", "CAP_NET_RAW"],
      permitted: ["CAP_CHOWN", "CAP_KILL", "CAP_NET_RAW"],
      inheritable: ["CAP_KILL", "CAP_NET_RAW"],
      ambient: ["CAP_KILL"]}'
  run_ct cat /proc/self/status
  check_status 0
  got=$(caps_line)
  [[ $got == *"CapBnd:=$(cap_mask CAP_CHOWN CAP_KILL CAP_NET_RAW CAP_SETUID) "* ]] || fail "bounding: $got"
  [[ $got == *"CapPrm:=$(cap_mask CAP_CHOWN CAP_KILL CAP_NET_RAW) "* ]] || fail "permitted: $got"
  [[ $got == *"CapEff:=$(cap_mask CAP_CHOWN CAP_KILL CAP_NET_RAW) "* ]] || fail "effective: $got"
  [[ $got == *"CapInh:=$(cap_mask CAP_KILL CAP_NET_RAW) "* ]] || fail "inheritable: $got"
  [[ $got == *"CapAmb:=$(cap_mask CAP_KILL) "* ]] || fail "ambient: $got"
}

@test "process: a non-root user keeps ambient capabilities across exec" {
  requires root
  update_config '.process.user = {uid: 65534, gid: 65534}
    | .process.capabilities = {bounding: ["CAP_NET_BIND_SERVICE", "CAP_KILL"],
        effective: ["CAP_NET_BIND_SERVICE"], permitted: ["CAP_NET_BIND_SERVICE"],
        inheritable: ["CAP_NET_BIND_SERVICE"], ambient: ["CAP_NET_BIND_SERVICE"]}'
  run_ct cat /proc/self/status
  check_status 0
  got=$(caps_line)
  want=$(cap_mask CAP_NET_BIND_SERVICE)
  [[ $got == *"CapEff:=$want "* && $got == *"CapAmb:=$want "* ]] || fail "$got"
}

@test "process: a non-root user without ambient capabilities has none effective" {
  requires root
  update_config '.process.user = {uid: 65534, gid: 65534}
    | .process.capabilities = {bounding: ["CAP_KILL"], effective: ["CAP_KILL"], permitted: ["CAP_KILL"]}'
  run_ct cat /proc/self/status
  check_status 0
  [[ $(caps_line) == *"CapEff:=0000000000000000 "* ]] || fail "$(caps_line)"
}

@test "process: the empty capability sets drop everything" {
  requires root
  update_config '.process.capabilities = {bounding: [], effective: [], permitted: [], inheritable: [], ambient: []}'
  run_ct cat /proc/self/status
  check_status 0
  for s in CapInh CapPrm CapEff CapBnd CapAmb; do
    [[ $(caps_line) == *"$s:=0000000000000000 "* ]] || fail "$(caps_line)"
  done
}

@test "process: capabilities are enforced (chown needs CAP_CHOWN)" {
  requires root
  update_config '.root.readonly = false | .process.capabilities = {bounding: [], effective: [], permitted: []}'
  run_ct sh -c 'touch /tmp/f; chown 65534 /tmp/f 2>/dev/null; echo "chown=$?"'
  has_line chown=1
  update_config '.process.capabilities = {bounding: ["CAP_CHOWN"], effective: ["CAP_CHOWN"], permitted: ["CAP_CHOWN"]}'
  run_ct sh -c 'touch /tmp/f; chown 65534 /tmp/f; echo "chown=$?"'
  has_line chown=0
}

@test "process: an unknown capability name is a warning, not a failure" {
  requires root
  update_config '.process.capabilities.bounding += ["CAP_AGENTRT_NOT_REAL"]'
  run_ct true
  check_status 0
}

@test "process: noNewPrivileges sets NoNewPrivs" {
  requires root
  update_config '.process.noNewPrivileges = true'
  run_ct grep NoNewPrivs /proc/self/status
  check_status 0
  [[ $(awk '{ print $2 }' <<<"$output") == 1 ]]
  update_config '.process.noNewPrivileges = false'
  run_ct grep NoNewPrivs /proc/self/status
  check_status 0
  [[ $(awk '{ print $2 }' <<<"$output") == 0 ]]
}

@test "process: oomScoreAdj" {
  requires root
  update_config '.process.oomScoreAdj = 500'
  run_ct cat /proc/self/oom_score_adj
  check_status 0
  [[ $output == 500 ]]
}

@test "process: sysctl in the container's network and ipc namespaces" {
  requires root
  update_config '.linux.sysctl = {"net.ipv4.ip_forward": "1", "kernel.shm_rmid_forced": "1", "net.ipv4.ping_group_range": "0 0"}'
  host_before=$(cat /proc/sys/net/ipv4/ping_group_range /proc/sys/kernel/shm_rmid_forced)
  run_ct sh -c 'cat /proc/sys/net/ipv4/ip_forward /proc/sys/kernel/shm_rmid_forced /proc/sys/net/ipv4/ping_group_range'
  check_status 0
  [[ ${lines[0]} == 1 && ${lines[1]} == 1 ]]
  [[ $(echo ${lines[2]}) == "0 0" ]]
  # The host's values are untouched.
  [[ $(cat /proc/sys/net/ipv4/ping_group_range /proc/sys/kernel/shm_rmid_forced) == "$host_before" ]]
}

@test "process: a sysctl of a namespace the container shares with the host is refused" {
  requires root
  update_config '.linux.namespaces |= map(select(.type != "network")) | .linux.sysctl = {"net.ipv4.ip_forward": "1"}'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "process: the kernel.hostname sysctl is refused (the hostname field sets it)" {
  requires root
  update_config '.hostname = "by-field" | .linux.sysctl = {"kernel.hostname": "by-sysctl"}'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
  update_config 'del(.hostname)'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "process: the kernel.domainname sysctl alone sets the domain name" {
  requires root
  update_config '.linux.sysctl = {"kernel.domainname": "by-sysctl"}'
  run_ct cat /proc/sys/kernel/domainname
  check_status 0
  [[ $output == by-sysctl ]]
}

@test "process: a kernel.domainname sysctl that contradicts the domainname field is refused" {
  requires root
  unsupported_by runc "runc takes the sysctl whatever the domainname field says (1.1.5 ignores the field); agentrt follows crun"
  update_config '.domainname = "by-field" | .linux.sysctl = {"kernel.domainname": "by-sysctl"}'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
  update_config '.linux.sysctl = {"kernel.domainname": "by-field"}'
  run_ct cat /proc/sys/kernel/domainname
  check_status 0
  [[ $output == by-field ]]
}

@test "process: linux.memoryPolicy applies to the init and to exec'd processes" {
  requires root memory_policy
  cp "$(test_program showmempolicy)" "$ROOTFS/bin/showmempolicy"
  update_config '.linux.memoryPolicy = {mode: "MPOL_BIND", nodes: "0", flags: ["MPOL_F_STATIC_NODES"]}'
  set_cmd sh -c 'showmempolicy; exec sleep inf'
  start_ct
  rt exec "$CT_ID" showmempolicy
  check_status 0
  [[ $output == "MPOL_BIND MPOL_F_STATIC_NODES nodes=0" ]] || fail "exec: $output"
  [[ $(<"$CT_OUT") == "MPOL_BIND MPOL_F_STATIC_NODES nodes=0" ]] || fail "init: $(<"$CT_OUT")"
  update_config '.linux.memoryPolicy = {mode: "MPOL_INTERLEAVE", nodes: "0"}'
  set_cmd showmempolicy
  rt run --bundle "$BUNDLE" "$CT_ID-2"
  check_status 0
  [[ $output == "MPOL_INTERLEAVE nodes=0" ]] || fail "$output"
}

@test "process: a linux.memoryPolicy the kernel refuses (a node without memory) fails create" {
  requires root memory_policy
  # one past the highest online node
  node=$(( $(tr ',' '\n' </sys/devices/system/node/online | tail -n 1 | sed 's/.*-//') + 1 ))
  update_config '.linux.memoryPolicy = {mode: "MPOL_BIND", nodes: $n}' --arg n "$node"
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]] || fail "create succeeded"
  [[ $(runtime_name) != agentrt || $output == *"linux.memoryPolicy: set_mempolicy MPOL_BIND nodes \`$node\`"* ]] || fail "$output"
  no_leftovers "$CT_ID"
}

@test "process: a linux.memoryPolicy set_mempolicy(2) forbids is refused" {
  requires root memory_policy
  for mp in '{"mode": "MPOL_DEFAULT", "nodes": "0"}' '{"mode": "MPOL_BIND"}' \
      '{"mode": "MPOL_BIND", "nodes": "0", "flags": ["MPOL_F_STATIC_NODES", "MPOL_F_RELATIVE_NODES"]}' \
      '{"mode": "MPOL_BIND", "nodes": "0-"}'; do
    update_config '.linux.memoryPolicy = $mp' --argjson mp "$mp"
    rt create --bundle "$BUNDLE" "$CT_ID"
    [[ $status -ne 0 ]] || fail "create succeeded with $mp"
    [[ $(runtime_name) != agentrt || $output == *linux.memoryPolicy.* ]] || fail "$mp: $output"
    no_leftovers "$CT_ID"
  done
}

@test "process: hostname" {
  requires root
  update_config '.hostname = $h' --arg h "h-$CT_ID"
  run_ct hostname
  check_status 0
  [[ $output == "h-$CT_ID" ]]
  [[ $(hostname) != "h-$CT_ID" ]]
}

@test "process: domainname" {
  requires root
  unsupported_by runc "runc 1.1.5 ignores the domainname field (added in runc 1.2)"
  update_config '.domainname = "agentrt.test"'
  run_ct cat /proc/sys/kernel/domainname
  check_status 0
  [[ $output == agentrt.test ]]
}

@test "process: personality LINUX32" {
  requires root
  unsupported_by runc "runc 1.1.5 ignores linux.personality (added in runc 1.2)"
  update_config '.linux.personality = {domain: "LINUX32"}'
  run_ct uname -m
  check_status 0
  [[ $output == i686 ]]
}

@test "process: apparmorProfile while AppArmor is unavailable is an error" {
  requires root
  [[ ! -e /sys/module/apparmor/parameters/enabled || $(cat /sys/module/apparmor/parameters/enabled) != Y ]] \
    || skip "AppArmor is enabled on this host"
  update_config '.process.apparmorProfile = "agentrt-test-profile"'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "process: selinuxLabel is a no-op when SELinux is off (agentrt)" {
  requires root agentrt
  [[ ! -e /sys/fs/selinux/enforce ]] || skip "SELinux is on here"
  update_config '.process.selinuxLabel = "system_u:system_r:container_t:s0" | .linux.mountLabel = "system_u:object_r:container_file_t:s0"'
  run_ct true
  check_status 0
}

@test "process: args are passed verbatim" {
  requires root
  run_ct sh -c 'for a; do echo "<$a>"; done' zero '' 'two words' '$HOME' '"q"' "new
line"
  check_status 0
  [[ $output == $'<>\n<two words>\n<$HOME>\n<"q">\n<new\nline>' ]] || fail "$output"
}
