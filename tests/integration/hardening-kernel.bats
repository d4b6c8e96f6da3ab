#!/usr/bin/env bats
# hardening-kernel: an agent in a careless bundle (every capability, no
# seccomp filter, writable root) cannot change the image, trace a sibling,
# mount, make a user namespace, load BPF, use io_uring or open packet, raw,
# vsock or non-route netlink sockets; a setuid binary it plants gives it
# nothing.  Each attack is run again under the control runtime (runc),
# where it must work.

load helpers
load helpers/hardening

setup ()
{
  hardening_setup
}

teardown ()
{
  teardown_bundle
}

@test "hardening: the root filesystem cannot be written" {
  requires_control
  local script='touch /bin/planted; echo "x:x:0:0::/:/bin/sh" >>/etc/passwd; rm /bin/ls
    [ -e /bin/planted ] && echo ATTACK-OK planted || echo ATTACK-BLOCKED planted
    grep -q ^x: /etc/passwd && echo ATTACK-OK passwd || echo ATTACK-BLOCKED passwd
    [ -e /bin/ls ] && echo ATTACK-BLOCKED rm || echo ATTACK-OK rm'
  local before
  before=$(cd "$ROOTFS" && find . -printf '%p %s %m\n' | sort | sha256sum)

  run_ct sh -c "$script"
  attack_blocked
  [[ $output == *"Read-only file system"* ]] || fail "$output"
  [[ $(cd "$ROOTFS" && find . -printf '%p %s %m\n' | sort | sha256sum) == "$before" ]] \
    || fail "the image changed on disk"

  control_run sh -c "$script"
  attack_worked
  [[ -e $ROOTFS/bin/planted ]] || fail "under $CONTROL_RUNTIME the image should have changed"
}

@test "hardening: ptrace of a sibling process is refused" {
  requires_control
  local script='sleep 60 & attack ptrace $!; kill $!'

  run_ct sh -c "$script"
  blocked_with "Operation not permitted"

  control_run sh -c "$script"
  attack_worked
}

@test "hardening: mount is refused" {
  requires_control
  local script='mkdir -p /tmp/m && mount -t tmpfs none /tmp/m && echo ATTACK-OK mounted || echo ATTACK-BLOCKED mount'

  run_ct sh -c "$script"
  attack_blocked
  [[ ${output,,} == *"operation not permitted"* || ${output,,} == *"permission denied"* ]] || fail "$output"

  control_run sh -c "$script"
  attack_worked
}

@test "hardening: no new user namespace (unshare -U, clone)" {
  requires userns
  requires_control
  local script='unshare -U true && echo ATTACK-OK unshare || echo ATTACK-BLOCKED unshare; attack userns'

  run_ct sh -c "$script"
  attack_blocked
  [[ $(grep -c ATTACK-BLOCKED <<<"$output") -eq 2 ]] || fail "$output"

  control_run sh -c "$script"
  [[ $(grep -c ATTACK-OK <<<"$output") -eq 2 ]] || fail "under $CONTROL_RUNTIME: $output"
}

@test "hardening: a BPF program cannot be loaded" {
  requires_control
  run_ct attack bpf
  blocked_with "Operation not permitted"

  control_run attack bpf
  attack_worked
}

@test "hardening: io_uring cannot be set up" {
  requires_control
  [[ $(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0) == 0 ]] \
    || skip "io_uring is disabled on this host (kernel.io_uring_disabled)"
  run_ct attack io_uring
  blocked_with "Operation not permitted"

  control_run attack io_uring
  attack_worked
}

@test "hardening: packet, raw, vsock and non-route netlink sockets are refused; route netlink works" {
  requires_control
  local kinds=(packet raw raw6 netlink-audit netlink-uevent vsock) script='' k
  for k in "${kinds[@]}"; do
    script+="printf '$k: '; attack socket $k;"
  done
  script+='printf "route: "; attack socket netlink-route; ip -o link show lo'

  run_ct sh -c "$script"
  for k in "${kinds[@]}"; do
    has_line "$k: ATTACK-BLOCKED socket: Operation not permitted"
  done
  has_line "route: ATTACK-OK socket created"
  [[ $output == *"lo: <LOOPBACK"* ]] || fail "ip link does not work: $output"

  control_run sh -c "$script"
  for k in "${kinds[@]}"; do
    has_line "$k: ATTACK-OK socket created"
  done
}

# The agent is root in its container.  It tries to plant a setuid-root copy
# of a program in the read-write work directory (lessons.md: the host user
# may run it later): the agent profile refuses setuid/setgid mode bits, and
# inside no_new_privs would make such a bit useless anyway.
@test "hardening: a setuid binary cannot be planted in the work dir" {
  requires_control
  local work=$BATS_TEST_TMPDIR/work
  mkdir -p "$work"
  add_bind "$work" /work rw
  local script='cp /bin/showid /work/showid && chmod u+s /work/showid; ls -l /work/showid
    attack runas 65534 /work/showid'

  run_ct sh -c "$script"
  has_line "uid=65534 euid=65534"
  # what the host sees: no setuid bit on the planted file
  [[ -e $work/showid && ! -u $work/showid && ! -g $work/showid ]] \
    || fail "planted: $(stat -c '%A %U' "$work/showid" 2>&1)"
  # setgid on a directory and a setuid file created directly: refused too
  run_ct sh -c 'mkdir /work/d && chmod g+s /work/d; echo "chmod=$?";
    install -m 4755 /bin/showid /work/direct; echo "install=$?"'
  has_line "chmod=1"
  [[ ! -g $work/d && ! -u $work/direct ]] || fail "$(ls -l "$work")"
  # the process cannot give a bit meaning for itself either
  run_ct grep NoNewPrivs /proc/self/status
  [[ $output == *"NoNewPrivs:"*1 ]] || fail "$output"

  rm -rf "$work/showid" "$work/d" "$work/direct"
  control_run sh -c "$script"
  has_line "uid=65534 euid=0"
}

# agent_net_view: run the container, print its network namespace and its
# links (one line each: "ns net:[N]", then `ip -o link`).
agent_net_view ()
{
  run_ct sh -c 'echo "ns $(readlink /proc/self/ns/net)"; ip -o link'
}

@test "hardening: without egress, a new network namespace no hook configures is the agent's own: only lo, up (plan own/none)" {
  add_annotation run.agentrt.egress none
  agent_net_view
  check_status 0
  [[ $(grep -c ': <' <<<"$output") -eq 1 && $output == *"1: lo: <LOOPBACK,UP"* ]] || fail "$output"
  audit_events create | jq -e '.directives.network | .bundle == "new" and .agent == "own" and .outside == "none"' >/dev/null || fail "$(audit_events create)"
}

@test "hardening: with a prestart hook (it may configure the bundle's namespace) the agent still gets one of its own (plan inner)" {
  local hook=$BATS_TEST_TMPDIR/hook.sh seen=$BATS_TEST_TMPDIR/hook-ns
  add_annotation run.agentrt.egress none
  printf '#!/bin/sh\nreadlink "/proc/$(jq .pid)/ns/net" > %s\n' "$seen" >"$hook"
  chmod +x "$hook"
  update_config '.hooks.prestart = [{path: $h}]' --arg h "$hook"
  agent_net_view
  check_status 0
  [[ -s $seen && $output == *"ns net:["* && $output != *"ns $(<"$seen")"* ]] \
    || fail "the hook saw $(cat "$seen" 2>/dev/null), the agent: $output"
  [[ $(grep -c ': <' <<<"$output") -eq 1 ]] || fail "$output"
  audit_events create | jq -e '.directives.network | .bundle == "new" and .hooks and .agent == "inner"' >/dev/null || fail "$(audit_events create)"
}
