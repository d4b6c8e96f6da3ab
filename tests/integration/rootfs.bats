#!/usr/bin/env bats
# rootfs: root.path and root.readonly, pivot_root and --no-pivot, masked and
# read-only paths, the default devices and /dev symlinks, devpts and ptmx,
# linux.devices, rootfsPropagation.

load helpers

@test "rootfs: root.readonly makes / read-only" {
  requires root
  update_config '.root.readonly = true'
  run_ct sh -c 'touch /new-file 2>/dev/null; echo "touch=$?"; awk '\''$5 == "/" { print "opts=" $6 }'\'' /proc/self/mountinfo'
  check_status 0
  has_line touch=1
  grep -Eq '^opts=(ro|ro,.*)$' <<<"$output" || fail "$output"
  [[ ! -e $ROOTFS/new-file ]]
}

@test "rootfs: a writable root writes to the bundle's rootfs" {
  requires root
  update_config '.root.readonly = false'
  run_ct sh -c 'echo written > /new-file'
  check_status 0
  [[ $(<"$ROOTFS/new-file") == written ]]
}

@test "rootfs: after pivot_root only the rootfs is visible" {
  requires root
  run_ct sh -c 'ls /; grep nobody /etc/passwd'
  check_status 0
  has_line "nobody:x:65534:65534:nobody:/nonexistent:/bin/false"
  # Nothing of the host's / (e.g. /usr, this test's own directory).
  ! grep -qx usr <<<"$output" || fail "the host's /usr is visible: $output"
  [[ ! -e $ROOTFS/${BATS_TEST_TMPDIR#/} ]]
}

@test "rootfs: --no-pivot runs the container in the rootfs" {
  requires root
  set_cmd sh -c 'ls /; grep nobody /etc/passwd; exec sleep inf'
  rt_ok create --no-pivot --bundle "$BUNDLE" "$CT_ID"
  out=$RT_OUT
  rt_ok start "$CT_ID"
  wait_for_container "$CT_ID" running
  sleep 0.2
  grep -qx 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' "$out"
  ! grep -qx usr "$out" || fail "the host's /usr is visible: $(<"$out")"
  pid=$(ct_pid "$CT_ID")
  [[ $(ns_id "$pid" mnt) != "$(ns_id self mnt)" ]]
}

@test "rootfs: run --no-pivot" {
  requires root
  set_cmd sh -c 'cat /etc/group'
  rt run --no-pivot --bundle "$BUNDLE" "$CT_ID"
  check_status 0
  has_line "nogroup:x:65534:"
}

@test "rootfs: an absolute root.path" {
  requires root
  update_config '.root.path = $p' --arg p "$ROOTFS"
  run_ct true
  check_status 0
}

@test "rootfs: a relative root.path other than rootfs" {
  requires root
  mv "$ROOTFS" "$BUNDLE/other-root"
  update_config '.root.path = "./other-root"'
  cd /
  run_ct true
  check_status 0
  [[ $(jq -r .rootfs <<<"$(runtime state "$CT_ID" 2>/dev/null)") != "$ROOTFS" ]]
}

@test "rootfs: the default maskedPaths that exist on this host are hidden" {
  requires root
  checks=
  for f in /proc/kcore /proc/keys /proc/timer_list /proc/sched_debug; do
    [[ -f $f ]] && checks+="echo \"$f \$(cat $f 2>/dev/null | wc -c)\"; "
  done
  [[ -d /sys/firmware ]] && checks+='echo "/sys/firmware $(ls -A /sys/firmware | wc -l)"; '
  [[ -n $checks ]] || skip "none of the default masked paths exists on this host"
  update_config '.linux.maskedPaths = ["/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug", "/sys/firmware"]'
  run_ct sh -c "$checks"
  check_status 0
  while read -r path size; do
    [[ $size == 0 ]] || fail "$path is not masked ($size)"
  done <<<"$output"
}

@test "rootfs: maskedPaths hide files and directories; missing ones are skipped" {
  requires root
  echo s3cret >"$ROOTFS/etc/secret"
  mkdir -p "$ROOTFS/secretdir"
  echo s3cret >"$ROOTFS/secretdir/file"
  update_config '.linux.maskedPaths += ["/etc/secret", "/secretdir", "/does/not/exist"]'
  run_ct sh -c 'cat /etc/secret; echo "cat=$?"; echo "ls=[$(ls -A /secretdir)]"; touch /secretdir/x 2>/dev/null; echo "touch=$?"'
  check_status 0
  [[ $output != *s3cret* ]] || fail "$output"
  has_line cat=0
  has_line "ls=[]"
  has_line touch=1
}

@test "rootfs: readonlyPaths are read-only, including /proc/sys" {
  requires root
  src=$(host_dir src)
  add_bind "$src" /data
  update_config '.linux.readonlyPaths += ["/data"]'
  run_ct sh -c 'touch /data/x 2>/dev/null; echo "touch=$?";
    awk '\''$5 == "/proc/sys" || $5 == "/data" { print $5, $6 }'\'' /proc/self/mountinfo'
  check_status 0
  has_line touch=1
  grep -Eq '^/proc/sys ro(,|$)' <<<"$output" || fail "$output"
  grep -Eq '^/data ro(,|$)' <<<"$output" || fail "$output"
  [[ ! -e $src/x ]]
}

@test "rootfs: the default devices exist with the right numbers" {
  requires root
  run_ct sh -c 'for d in null zero full random urandom tty; do stat -c "%n %F %t:%T" /dev/$d; done
    echo x > /dev/null && echo null-ok
    [ "$(head -c 4 /dev/zero | od -An -tx1 | tr -d " ")" = 00000000 ] && echo zero-ok
    echo x 2>/dev/null > /dev/full || echo full-ok'
  check_status 0
  has_line "/dev/null character special file 1:3"
  has_line "/dev/zero character special file 1:5"
  has_line "/dev/full character special file 1:7"
  has_line "/dev/random character special file 1:8"
  has_line "/dev/urandom character special file 1:9"
  has_line "/dev/tty character special file 5:0"
  has_line null-ok
  has_line zero-ok
  has_line full-ok
}

@test "rootfs: /dev/fd, stdin, stdout, stderr and ptmx symlinks" {
  requires root
  run_ct sh -c 'for l in fd stdin stdout stderr ptmx; do echo "$l -> $(readlink /dev/$l)"; done'
  check_status 0
  has_line "fd -> /proc/self/fd"
  has_line "stdin -> /proc/self/fd/0"
  has_line "stdout -> /proc/self/fd/1"
  has_line "stderr -> /proc/self/fd/2"
  has_line "ptmx -> pts/ptmx"
}

@test "rootfs: /dev/pts is a private devpts instance with a usable ptmx" {
  requires root
  run_ct sh -c 'awk '\''$5 == "/dev/pts" { print $9 }'\'' /proc/self/mountinfo
    stat -c "%F %t:%T" /dev/pts/ptmx; ls /dev/pts'
  check_status 0
  has_line devpts
  has_line "character special file 5:2"
  # A new instance holds no host ptys.
  [[ $(grep -cv -e '^devpts$' -e '^character' -e '^ptmx$' <<<"$output") == 0 ]] || fail "$output"
}

@test "rootfs: linux.devices creates device nodes with mode and owner" {
  requires root
  update_config '.linux.devices = [{path: "/dev/agentrt-null", type: "c", major: 1, minor: 3,
      fileMode: 432, uid: 65534, gid: 65534}] | .process.user = {uid: 65534, gid: 65534}'
  run_ct sh -c 'stat -c "%F %t:%T %a %u:%g" /dev/agentrt-null; echo x > /dev/agentrt-null && echo write-ok'
  check_status 0
  has_line "character special file 1:3 660 65534:65534"
  has_line write-ok
}

@test "rootfs: linux.devices paths are taken clean (/dev/foo/ is /dev/foo)" {
  requires root
  unsupported_before crun 1.17 "mknod of a device path with a trailing slash fails"
  update_config '.linux.devices = [{path: "/dev/agentrt-a/", type: "c", major: 1, minor: 3},
      {path: "/dev/agentrt-dir/b/", type: "c", major: 1, minor: 5}]'
  run_ct sh -c 'stat -c "%F %t:%T %n" /dev/agentrt-a /dev/agentrt-dir/b'
  check_status 0
  has_line "character special file 1:3 /dev/agentrt-a"
  has_line "character special file 1:5 /dev/agentrt-dir/b"
}

@test "rootfs: rootfsPropagation rslave receives host mounts, private does not" {
  requires root
  for prop in rslave private; do
    setup_propagation_case "$prop"
    [[ $RESULT == "$EXPECT" ]] || fail "$prop: $RESULT"
  done
}

# The rootfs becomes a shared mount on the host; after the container
# started, the host mounts a tmpfs under it and asks the container to look.
setup_propagation_case ()
{
  local prop=$1 ctl
  ctl=$(host_dir "ctl-$prop")
  if ! mountpoint -q "$ROOTFS"; then
    mkdir -p "$ROOTFS/late"
    mount --bind "$ROOTFS" "$ROOTFS"
    mount --make-shared "$ROOTFS"
    cleanup_add "umount -l $ROOTFS"
  fi
  update_config '.linux.rootfsPropagation = $p' --arg p "$prop"
  add_bind "$ctl" /ctl
  set_cmd sh -c 'while [ ! -e /ctl/go ]; do sleep 0.05; done
    if [ -e /late/flag ]; then echo seen > /ctl/result; else echo unseen > /ctl/result; fi'
  start_ct "$CT_ID-$prop"
  mount -t tmpfs -o size=1m agentrt-test "$ROOTFS/late"
  touch "$ROOTFS/late/flag"
  touch "$ctl/go"
  wait_for_file "$ctl/result"
  RESULT=$(<"$ctl/result")
  umount "$ROOTFS/late"
  runtime delete --force "$CT_ID-$prop"
  [[ $prop == rslave ]] && EXPECT=seen || EXPECT=unseen
  update_config '.mounts |= map(select(.destination != "/ctl"))'
}
