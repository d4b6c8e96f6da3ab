#!/usr/bin/env bats
# userns: a hardened container the bundle gives no user namespace gets one
# of its own (docs/userns.md): its uid_map is a range of the pool, not the
# identity; what the agent writes into a bound work directory belongs on
# the host to the directory's owner (under runc, the control, to root);
# two live containers never share a range; a range returns at delete,
# delete --force and after the runtime is killed (fault injection); the
# ephemeral root works; an overlay root (an engine's) is a read-only
# overlay of its idmapped layers; a writable directory bind that cannot be
# idmapped fails the create naming the mount, a file or read-only one is
# kept as it is (recorded); the policy turns user namespaces off
# (recorded); a bundle's own user namespace is kept.  On by default
# (`userns.mode` "auto"); the setup names a pool of the test's own.

load helpers
load helpers/hardening
load helpers/fault

setup ()
{
  hardening_setup
  # a pool of four ranges of our own, so that tests can exhaust it and do
  # not meet other tests' containers
  POOL=$((0x60000000 + (RANDOM % 1024) * 0x40000))
  hardening_policy '.userns.mode = "auto"
    | .userns.pool = {uid: $pool, gid: ($pool + 1048576), size: 262144}' \
    --argjson pool "$POOL"
}

teardown ()
{
  teardown_bundle
}

# uid_map_of PID: the first line of its uid_map, "INSIDE HOST SIZE".
uid_map_of ()
{
  awk 'NR == 1 { print $1, $2, $3 }' "/proc/$1/uid_map"
}

# ranges: the allocation store's lines.
ranges ()
{
  cat "$ROOT/.userns/ranges" 2>/dev/null
}

@test "userns: the agent's uid_map is a range of the pool, not the identity (runc: the identity)" {
  requires_control
  run_ct cat /proc/self/uid_map /proc/self/gid_map
  check_status 0
  [[ $(awk 'NR == 1 { print $1, $2, $3 }' <<<"$output") == "0 $POOL 65536" ]] \
    || fail "uid_map: $output"
  [[ $(awk 'NR == 2 { print $1, $2, $3 }' <<<"$output") == "0 $((POOL + 0x100000)) 65536" ]] \
    || fail "gid_map: $output"
  audit_events create | jq -e --arg r "user: uid $POOL-$((POOL + 65535))" \
    '[.changes[] | select(.kind == "namespace") | .what] | any(startswith($r))' >/dev/null \
    || fail "range not recorded: $(audit_events create)"

  control_run cat /proc/self/uid_map
  [[ $(awk '{ print $1, $2, $3 }' <<<"$output") == "0 0 4294967295" ]] \
    || fail "under $CONTROL_RUNTIME: $output"
}

@test "userns: files the agent writes to a bound work dir belong to the dir's owner on the host (runc: root)" {
  requires_control
  local work
  work=$(host_dir work)
  chown 4321:4322 "$work"
  echo data >"$work/theirs"
  chown 4321:4322 "$work/theirs"
  chmod 0600 "$work/theirs"
  add_bind "$work" /work rw
  run_ct sh -c 'cat /work/theirs && echo new >/work/mine && mkdir /work/d && ls -ln /work'
  check_status 0
  [[ $output == *data* ]] || fail "the owner's 0600 file was not readable: $output"
  [[ $(stat -c %u:%g "$work/mine") == 4321:4322 && $(stat -c %u:%g "$work/d") == 4321:4322 ]] \
    || fail "on the host: $(ls -ln "$work")"
  # inside, the owner's files are the agent's (uid 0 here)
  grep -Eq '^-.* 0 +0 .* mine$' <<<"$output" || fail "inside: $output"

  rm -rf "${work:?}/mine" "$work/d"
  control_run sh -c 'echo new >/work/mine'
  [[ $(stat -c %u "$work/mine") == 0 ]] || fail "under $CONTROL_RUNTIME: $(ls -ln "$work")"
}

@test "userns: nothing the agent writes in a bind of another owner's dir is root's or the range's" {
  local work
  work=$(host_dir shared)
  chown 4321:4322 "$work"
  chmod 0777 "$work"
  add_bind "$work" /work rw
  # a second user of the container, and a setuid copy of a shell
  run_ct sh -c 'cp /bin/busybox /work/sh && chmod 4755 /work/sh; ls -ln /work/sh;
    attack runas 1000 /bin/touch /work/by-1000; echo done'
  check_status 0
  [[ ! -e $work/by-1000 ]] || fail "uid 1000 of the container wrote: $(ls -ln "$work")"
  # the copy is the owner's, not root's
  [[ $(stat -c %u "$work/sh") == 4321 ]] || fail "on the host: $(ls -ln "$work")"
}

@test "userns: two containers get disjoint ranges, both recorded in the store" {
  start_ct "$CT_ID"
  start_ct "$CT_ID-2"
  local a b
  a=$(uid_map_of "$(ct_pid "$CT_ID")")
  b=$(uid_map_of "$(ct_pid "$CT_ID-2")")
  a=${a#0 } b=${b#0 }
  [[ ${a% *} != "${b% *}" ]] || fail "same range: $a and $b"
  (( ${a% *} + 65536 <= ${b% *} || ${b% *} + 65536 <= ${a% *} )) || fail "overlap: $a $b"
  [[ $(ranges | wc -l) == 2 ]] || fail "store: $(ranges)"
  grep -q " $CT_ID\$" <(ranges) && grep -q " $CT_ID-2\$" <(ranges) || fail "store: $(ranges)"
}

@test "userns: a store swapped for a symlink, or with a line that is not an allocation, fails the create naming it; no range is given twice" {
  start_ct "$CT_ID"
  # a symlink to a store without the live container's line: followed,
  # its range would be given again
  : >"$BATS_TEST_TMPDIR/empty"
  mv "$ROOT/.userns/ranges" "$BATS_TEST_TMPDIR/ranges"
  ln -s "$BATS_TEST_TMPDIR/empty" "$ROOT/.userns/ranges"
  rt create --bundle "$BUNDLE" "$CT_ID-2"
  [[ $status -ne 0 && $output == *"read \`$ROOT/.userns/ranges\`"* ]] || fail "a symlinked store: $output"
  [[ ! -d $ROOT/$CT_ID-2 && -L $ROOT/.userns/ranges ]] || fail "the failed create left its state or wrote the store"
  rm "$ROOT/.userns/ranges"
  { cat "$BATS_TEST_TMPDIR/ranges"; echo "1 2 three"; } >"$ROOT/.userns/ranges"
  rt create --bundle "$BUNDLE" "$CT_ID-2"
  [[ $status -ne 0 && $output == *"\`$ROOT/.userns/ranges\` line 2: not an allocation"* ]] \
    || fail "a damaged store: $output"
  # the store as it was: the next container gets another range
  mv "$BATS_TEST_TMPDIR/ranges" "$ROOT/.userns/ranges"
  start_ct "$CT_ID-2"
  [[ $(uid_map_of "$(ct_pid "$CT_ID")") != "$(uid_map_of "$(ct_pid "$CT_ID-2")")" ]] \
    || fail "one range twice: $(ranges)"
}

@test "userns: a range returns at delete and delete --force; an exhausted pool fails naming it" {
  start_ct "$CT_ID"
  start_ct "$CT_ID-2"
  start_ct "$CT_ID-3"
  start_ct "$CT_ID-4"
  rt create --bundle "$BUNDLE" "$CT_ID-5"
  [[ $status -ne 0 && $output == *"no free range of 65536 ids in the policy's userns.pool (4 ranges; 4 containers hold one)"* ]] \
    || fail "a fifth range: $output"
  [[ ! -d $ROOT/$CT_ID-5 ]] || fail "the failed create left its state"
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
  rt_ok delete "$CT_ID"
  rt_ok delete --force "$CT_ID-2"
  [[ $(ranges | wc -l) == 2 ]] || fail "store after two deletes: $(ranges)"
  start_ct "$CT_ID-5"
  start_ct "$CT_ID-6"
}

@test "userns: a range held by a runtime killed before its state dir is reclaimed, one with a state dir returns at delete --force" {
  requires_fault_points
  fault_run create:userns create --bundle "$BUNDLE" "$CT_ID"
  # the killed runtime's line stays, stale: no state dir, its runtime gone
  [[ $(ranges | wc -l) == 1 && ! -d $ROOT/$CT_ID ]] || fail "after the kill: $(ranges)"
  fault_run create:state-dir create --bundle "$BUNDLE" "$CT_ID-2"
  # the next allocation dropped the stale line and took its range
  [[ $(ranges | wc -l) == 1 ]] || fail "the stale line was not dropped: $(ranges)"
  grep -q " $CT_ID-2\$" <(ranges) || fail "store: $(ranges)"
  rt_ok delete --force "$CT_ID-2"
  [[ -z $(ranges) ]] || fail "delete --force kept the range: $(ranges)"
  rt_ok delete --force "$CT_ID"
}

@test "userns: a delete killed before or after it released the range: the range returns either way" {
  requires_fault_points
  start_ct "$CT_ID"
  rt_ok kill "$CT_ID" KILL
  wait_for_container "$CT_ID" stopped
  fault_run delete:helpers-stopped delete "$CT_ID"
  grep -q " $CT_ID\$" <(ranges) || fail "released before its processes were judged gone: $(ranges)"
  fault_run delete:userns-released delete --force "$CT_ID"
  [[ -d $ROOT/$CT_ID && -z $(ranges) ]] || fail "store: $(ranges)"
  rt_ok delete --force "$CT_ID"
}

@test "userns: the ephemeral root works in the user namespace, the image untouched" {
  add_annotation run.agentrt.rootfs ephemeral
  run_ct sh -c 'echo x >/etc/new && ls -ln /etc/new /etc/passwd && cat /proc/self/uid_map'
  check_status 0
  grep -Eq '^-.* 0 +0 .*/etc/passwd$' <<<"$output" || fail "the image's files are not root's: $output"
  grep -Eq '^-.* 0 +0 .*/etc/new$' <<<"$output" || fail "$output"
  grep -q "^ *0 *$POOL *65536" <<<"$output" || fail "$output"
  [[ ! -e $ROOTFS/etc/new ]] || fail "the image was written"
}

@test "userns: an overlay root (an engine's) runs as a read-only overlay of its layers, each idmapped; a writable one is refused naming it" {
  local ov
  ov=$(host_dir ov)
  mkdir -p "$ov/upper/etc" "$ov/work" "$ov/merged"
  echo from-upper >"$ov/upper/etc/layer"
  # as Fedora's containers-storage mounts them: metacopy=on
  mount -t overlay overlay -o "lowerdir=$ROOTFS,upperdir=$ov/upper,workdir=$ov/work,metacopy=on" "$ov/merged"
  # a chown in the container's upper layer is a metacopy file there
  chown 0:7 "$ov/merged/bin/busybox"
  [[ $(stat -c %g "$ROOTFS/bin/busybox") == 0 ]] || fail "the chown reached the image"
  cleanup_add "umount -l $ov/merged"
  update_config '.root.path = $p' --arg p "$ov/merged"
  run_ct sh -c 'cat /etc/layer; stat -c "%u %g %n" /bin/busybox /etc/layer; cat /proc/self/uid_map
    busybox true && echo busybox-runs
    echo x >/etc/new 2>/dev/null || echo read-only'
  check_status 0
  has_line from-upper
  # root's files on the host are the agent's root's, through the idmap
  has_line "0 7 /bin/busybox"
  has_line "0 0 /etc/layer"
  [[ $(awk 'NF == 3 && $3 == 65536 { print $1, $2, $3 }' <<<"$output") == "0 $POOL 65536" ]] || fail "$output"
  has_line busybox-runs
  has_line read-only
  [[ ! -e $ov/upper/etc/new && ! -e $ROOTFS/etc/new ]] || fail "a layer was written"

  # a writable root cannot be a read-only copy: refused, naming it
  hardening_policy '.userns.mode = "auto" | .rootfs.allowWritable = true
    | .userns.pool = {uid: $pool, gid: ($pool + 1048576), size: 262144}' --argjson pool "$POOL"
  add_annotation run.agentrt.rootfs writable
  rt create --bundle "$BUNDLE" "$CT_ID-w"
  [[ $status -ne 0 && $output == *"root.path \`$ov/merged\`: an overlay is idmapped as a read-only copy of its layers"* ]] \
    || fail "$output"
  [[ ! -d $ROOT/$CT_ID-w && -z $(ranges) ]] || fail "left: $(ranges)"
}

@test "userns: a bundle listing /dev/ptmx (the privileged shape) gets the devpts one, its other devices bound" {
  update_config '.linux.devices += [{path: "/dev/ptmx", type: "c", major: 5, minor: 2, fileMode: 438, uid: 0, gid: 0},
    {path: "/dev/full", type: "c", major: 1, minor: 7, fileMode: 438, uid: 0, gid: 0}]'
  run_ct sh -c 'readlink /dev/ptmx; [ -c /dev/pts/ptmx ] && echo pts-ptmx; head -c 1 /dev/full | wc -c'
  check_status 0
  has_line pts/ptmx
  has_line pts-ptmx
  has_line 1
}

@test "userns: a bind on a filesystem that cannot be idmapped fails the create naming the mount" {
  local src
  src=$(host_dir ramfs)
  mount -t ramfs ramfs "$src"
  cleanup_add "umount -l $src"
  add_bind "$src" /data
  rt create --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 && $output == *"(\`/data\`): idmap the source \`$src\`"* && $output == *'userns.mode "off"'* ]] \
    || fail "$output"
  [[ ! -d $ROOT/$CT_ID && -z $(ranges) ]] || fail "left: $(ranges)"

  # the policy turns user namespaces off: recorded, the bind works
  hardening_policy '.userns.mode = "off"'
  run_ct cat /proc/self/uid_map
  check_status 0
  [[ $(awk '{ print $1, $2, $3 }' <<<"$output") == "0 0 4294967295" ]] || fail "$output"
  audit_events create | jq -e '[.changes[] | select(.kind == "namespace") | .what + " " + .why]
      | any(startswith("no user namespace") and contains("userns.mode is \"off\""))' >/dev/null \
    || fail "not recorded: $(audit_events create)"
}

@test "userns: a file, or a read-only bind, on a filesystem that cannot be idmapped is kept as it is, recorded" {
  local src
  src=$(host_dir ramfs)
  mount -t ramfs -o mode=0755 ramfs "$src"
  cleanup_add "umount -l $src"
  mkdir "$src/dir"
  echo secret-of-root >"$src/dir/own"
  chmod 0600 "$src/dir/own"
  echo engine-file >"$src/file"
  add_bind "$src/file" /etc/engine-file
  add_bind "$src/dir" /data rbind ro rro
  run_ct sh -c 'cat /etc/engine-file; cat /data/own; touch /data/new; echo x >>/etc/engine-file; stat -c "%u" /data /etc/engine-file'
  has_line engine-file
  # the container's root is not the host's: the 0600 file stays closed,
  # the file bind cannot be written, the host owners show as nobody
  [[ $output == *"'/data/own': Permission denied"* && $output == *"/data/new: Read-only file system"* \
    && $output == *"can't create /etc/engine-file: Permission denied"* ]] || fail "$output"
  [[ $(grep -c '^65534$' <<<"$output") == 2 ]] || fail "$output"
  [[ ! -e $src/dir/new && $(cat "$src/file") == engine-file ]] || fail "written on the host"
  audit_events create | jq -e '[.changes[] | select(.kind == "mount-options") | .what]
      | (index("/etc/engine-file: not idmapped (source '"$src"'/file)") != null)
        and (index("/data: not idmapped (source '"$src"'/dir)") != null)' >/dev/null \
    || fail "not recorded: $(audit_events create)"

  # read-only on top only: a writable submount below would let the agent
  # plant files of the container's range there, so the create is refused
  mkdir "$src/dir/sub"
  mount -t tmpfs tmpfs "$src/dir/sub"
  cleanup_add "umount -l $src/dir/sub"
  update_config '.mounts |= map(if .destination == "/data" then .options = ["rbind", "ro"] else . end)'
  rt create --bundle "$BUNDLE" "$CT_ID-2"
  [[ $status -ne 0 && $output == *"(\`/data\`): idmap the source \`$src/dir\`"* ]] || fail "$output"
  [[ ! -d $ROOT/$CT_ID-2 ]] || fail "a half-created container"
}

# A pod with `hostUsers: false` as containerd 2 makes it (the CRI's
# userns_options, mode POD): the sandbox has a user namespace of its own
# with the kubelet's maps; each member joins the sandbox's user, network,
# ipc and uts namespaces by /proc/PID/ns path, repeats the maps, and gets
# its volumes as binds with the same uidMappings (idmapped: a file the
# host's root owns is the pod's root's).
@test "userns: a pod with hostUsers: false (containerd's bundles) keeps the sandbox's user namespace, and its member joins it" {
  local host=$((POOL + 4 * 65536)) spid member vol maps
  open_bundle_path
  maps='[{containerID: 0, hostID: $h, size: 65536}]'
  update_config ".linux.namespaces += [{type: \"user\"}]
    | .linux.uidMappings = $maps | .linux.gidMappings = $maps" --argjson h "$host"
  set_cmd sleep 1000
  start_ct "$CT_ID-sandbox"
  spid=$(ct_pid "$CT_ID-sandbox")
  vol=$(host_dir volume)
  echo from-host >"$vol/host-file"
  # containerd idmaps (or chowns) the image for the pod; this one is host
  # root's, so the mount point is there already
  mkdir -p "$ROOTFS/data"
  member=$BATS_TEST_TMPDIR/member
  mkdir -p "$member"
  chmod a+x "$member"
  jq --arg p "$spid" --arg root "$ROOTFS" --arg v "$vol" --argjson h "$host" "
    .root.path = \$root
    | .linux.namespaces = [.linux.namespaces[] | select(.type != \"user\" and .type != \"network\"
        and .type != \"ipc\" and .type != \"uts\")]
      + [{type: \"user\", path: \"/proc/\\(\$p)/ns/user\"}, {type: \"network\", path: \"/proc/\\(\$p)/ns/net\"},
         {type: \"ipc\", path: \"/proc/\\(\$p)/ns/ipc\"}, {type: \"uts\", path: \"/proc/\\(\$p)/ns/uts\"}]
    | .mounts += [{destination: \"/data\", type: \"bind\", source: \$v, options: [\"rbind\", \"rw\"],
        uidMappings: $maps, gidMappings: $maps}]
    | .process.args = [\"sh\", \"-c\", \"cat /proc/self/uid_map; readlink /proc/self/ns/user; stat -c %u /data/host-file; echo member >/data/new\"]" \
    "$BUNDLE/config.json" >"$member/config.json"
  rt run --bundle "$member" "$CT_ID-member"
  check_status 0
  [[ ${lines[0]} =~ ^\ *0\ +$host\ +65536$ ]] || fail "member's map: $output"
  [[ ${lines[1]} == "$(readlink "/proc/$spid/ns/user")" ]] || fail "not the sandbox's user namespace: $output"
  [[ ${lines[2]} == 0 ]] || fail "the volume is not idmapped: $output"
  [[ $(stat -c %u "$vol/new") == 0 ]] || fail "written as $(stat -c %u "$vol/new") on the host"
  [[ -z $(ranges) ]] || fail "a range was allocated: $(ranges)"
  # the member is hardened all the same, and says whose namespace it has
  audit_events create | jq -s -e --arg id "$CT_ID-member" 'map(select(.id == $id))
      | length == 1 and .[0].directives.userns == "bundle" and .[0].directives.rootfs == "readonly"' >/dev/null \
    || fail "not recorded: $(audit_events create)"
  # maps that are not the joined namespace's are refused, naming them
  jq --argjson h "$((host + 1))" '.linux.uidMappings[0].hostID = $h' "$member/config.json" >"$member/c" \
    && mv "$member/c" "$member/config.json"
  rt run --bundle "$member" "$CT_ID-liar"
  [[ $status -ne 0 && $output == *"linux.uidMappings: not the maps of the user namespace joined by path"* ]] \
    || fail "$output"
}

@test "userns: a bundle's own user namespace is kept with its maps" {
  open_bundle_path
  update_config '.linux.namespaces += [{type: "user"}]
    | .linux.uidMappings = [{containerID: 0, hostID: 200000, size: 1000}]
    | .linux.gidMappings = [{containerID: 0, hostID: 200000, size: 1000}]'
  run_ct cat /proc/self/uid_map
  check_status 0
  [[ $(awk '{ print $1, $2, $3 }' <<<"$output") == "0 200000 1000" ]] || fail "$output"
  [[ -z $(ranges) ]] || fail "a range was allocated: $(ranges)"
}
