#!/usr/bin/env bats
# hostile: bundles that try to reach the host through the rootfs (symlinked
# or ..-laden mount destinations), broken bundles, and create failing
# midway.  Whatever the runtime does, nothing may land on the host and a
# failed create leaves nothing behind.

load helpers

# A host directory and file a hostile image aims at; they must stay as they
# are.
setup ()
{
  setup_bundle
  TARGET=$(host_dir host-target)
  CANARY=$BATS_TEST_TMPDIR/host-canary
  echo canary >"$CANARY"
  update_config '.root.readonly = false'
}

# host_untouched: TARGET is still empty and unmounted, CANARY intact.
host_untouched ()
{
  [[ -z $(ls -A "$TARGET") ]] || fail "something landed in the host directory: $(ls -A "$TARGET")"
  [[ -z $(mounts_under "$TARGET") ]] || fail "mounted on the host: $(mounts_under "$TARGET")"
  [[ $(<"$CANARY") == canary ]] || fail "host file changed: $(<"$CANARY")"
  [[ -z $(mounts_under "$CANARY") ]] || fail "mounted on the host file"
}

# escape_case DEST: mount a tmpfs at DEST (which goes through a hostile
# symlink or ..), then, if the runtime accepted it, write through it from
# inside.  Either way the host must be untouched.
escape_case ()
{
  add_mount "$1" tmpfs tmpfs size=1m
  set_cmd sh -c "echo pwned > '$1/pwned' 2>/dev/null; mkdir -p '$1/dir' 2>/dev/null; true"
  rt run --bundle "$BUNDLE" "$CT_ID"
  host_untouched
  if [[ $status -ne 0 ]]; then
    no_leftovers "$CT_ID"
  fi
}

@test "hostile: mount destination through an absolute symlink to a host path" {
  requires root
  ln -s "$TARGET" "$ROOTFS/escape"
  escape_case /escape/sub
}

@test "hostile: mount destination that is itself an absolute symlink" {
  requires root
  ln -s "$TARGET" "$ROOTFS/escape"
  escape_case /escape
}

@test "hostile: mount destination through a ../../.. symlink" {
  requires root
  ln -s "../../../../../../../../../../../..$TARGET" "$ROOTFS/escape"
  escape_case /escape/sub
}

@test "hostile: mount destination with .. components" {
  requires root
  escape_case "/../../../../../../../../../..$TARGET"
}

@test "hostile: mount destination through a symlink to the host's /etc" {
  requires root
  # A name /etc does not have: a runtime that followed the link on the host
  # would create it there (cleaned up below, and reported).
  victim=/etc/agentrt-test-$CT_ID
  cleanup_add "umount -l $victim; rm -rf --one-file-system $victim"
  ln -s /etc "$ROOTFS/escape"
  add_mount "/escape/agentrt-test-$CT_ID" tmpfs tmpfs size=1m
  set_cmd sh -c "echo pwned > /escape/agentrt-test-$CT_ID/pwned 2>/dev/null; true"
  rt run --bundle "$BUNDLE" "$CT_ID"
  [[ ! -e $victim ]] || fail "$victim was created on the host"
  [[ -z $(mounts_under "$victim") ]] || fail "mounted on the host's /etc"
  [[ $status -eq 0 ]] || no_leftovers "$CT_ID"
}

@test "hostile: a bind file destination that is a symlink to a host file" {
  requires root
  ln -s "$CANARY" "$ROOTFS/etc/hostfile"
  echo evil >"$BATS_TEST_TMPDIR/evil"
  add_bind "$BATS_TEST_TMPDIR/evil" /etc/hostfile
  set_cmd sh -c 'echo pwned > /etc/hostfile 2>/dev/null; true'
  rt run --bundle "$BUNDLE" "$CT_ID"
  host_untouched
}

@test "hostile: /proc in the image is a symlink to a host directory" {
  requires root
  rmdir "$ROOTFS/proc"
  ln -s "$TARGET" "$ROOTFS/proc"
  set_cmd sh -c 'ls /proc > /dev/null'
  rt run --bundle "$BUNDLE" "$CT_ID"
  host_untouched
  [[ $status -eq 0 ]] || no_leftovers "$CT_ID"
}

@test "hostile: a symlink loop as mount destination fails cleanly" {
  requires root
  ln -s loop2 "$ROOTFS/loop1"
  ln -s loop1 "$ROOTFS/loop2"
  add_mount /loop1/x tmpfs tmpfs
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "hostile: missing rootfs" {
  requires root
  rm -rf "$ROOTFS"
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  [[ -n $output ]]
  no_leftovers "$CT_ID"
}

@test "hostile: rootfs is a regular file" {
  requires root
  rm -rf "$ROOTFS"
  echo not-a-dir >"$ROOTFS"
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "hostile: missing config.json" {
  requires root
  rm "$BUNDLE/config.json"
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "hostile: invalid and wrongly typed config.json" {
  requires root
  good=$(<"$BUNDLE/config.json")
  bad_configs=(
    ''
    '{'
    'null'
    '[]'
    '"a string"'
    "${good%?}"
    "$(jq -c '.process.args = "sh"' <<<"$good")"
    "$(jq -c '.process.user.uid = -1' <<<"$good")"
    "$(jq -c '.process.user.uid = "root"' <<<"$good")"
    "$(jq -c '.linux.namespaces = {}' <<<"$good")"
    "$(jq -c '.mounts = [{"destination": 42}]' <<<"$good")"
    "$(jq -c 'del(.process)' <<<"$good")"
    "$(jq -c '.process.args = []' <<<"$good")"
    "$(jq -c '.linux.namespaces += [{"type": "no-such-namespace"}]' <<<"$good")"
  )
  for cfg in "${bad_configs[@]}"; do
    printf '%s' "$cfg" >"$BUNDLE/config.json"
    rt create --bundle "$BUNDLE" "$CT_ID"
    [[ $status -ne 0 ]] || fail "accepted: ${cfg:0:200}"
    [[ -n $output ]] || fail "no message for: ${cfg:0:200}"
    no_leftovers "$CT_ID"
  done
}

@test "hostile: duplicate namespaces are refused" {
  requires root
  update_config '.linux.namespaces += [{type: "pid"}]'
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
}

@test "hostile: a bundle path with spaces and odd characters works" {
  requires root
  odd="$BATS_TEST_TMPDIR/odd dir 'q' \$x"
  mv "$BUNDLE" "$odd"
  BUNDLE=$odd
  run_ct sh -c 'echo fine'
  check_status 0
  [[ $output == fine ]]
}

@test "hostile: create failing midway (after cgroups, namespaces and mounts) leaves nothing" {
  requires root ip
  ns=agentrt-$CT_ID
  ip netns add "$ns"
  cleanup_add "ip netns del $ns"
  src=$(host_dir src)
  update_config '.linux.cgroupsPath = $cg | .linux.resources = {memory: {limit: 67108864}, pids: {limit: 50}}
    | (.linux.namespaces[] | select(.type == "network")) .path = $netns' \
    --arg cg "/agentrt-$CT_ID" --arg netns "/run/netns/$ns"
  add_bind "$src" /first
  add_mount /second tmpfs tmpfs size=1m
  # The last mount fails.
  add_bind "$BATS_TEST_TMPDIR/vanished-source" /third
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]]
  no_leftovers "$CT_ID"
  # The joined namespace belongs to the caller: still there.
  [[ -e /run/netns/$ns ]]
  ip netns list | grep -q "^$ns"
}

@test "hostile: create failing in the last step (exec of a missing binary) leaves nothing" {
  requires root
  update_config '.linux.cgroupsPath = $cg | .linux.resources = {pids: {limit: 50}}' --arg cg "/agentrt-$CT_ID"
  set_cmd /no/such/program
  rt create --bundle "$BUNDLE" "$CT_ID"
  if [[ $status -eq 0 ]]; then
    # Runtimes that check at start (runc looks the binary up at create).
    rt start "$CT_ID"
    [[ $status -ne 0 ]]
    rt_ok delete --force "$CT_ID"
  fi
  no_leftovers "$CT_ID"
}

@test "hostile: the container cannot see or signal host processes" {
  requires root
  sleep inf &
  host_pid=$!
  cleanup_add "kill $host_pid"
  run_ct sh -c "kill -0 $host_pid 2>/dev/null && echo reachable || echo unreachable; ls /proc | grep -c '^[0-9]'"
  check_status 0
  has_line unreachable
  [[ ${lines[-1]} -le 3 ]] || fail "sees ${lines[-1]} processes"
}
