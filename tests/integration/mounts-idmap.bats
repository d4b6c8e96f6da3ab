#!/usr/bin/env bats
# mounts-idmap: bind sources are opened with the runtime's own (host)
# privileges, not from inside the container's user namespace (a source
# below a root-only directory works); idmapped bind mounts (`idmap`,
# `ridmap`, a mount's uidMappings/gidMappings), with and without a user
# namespace in the bundle, as runtime-spec 1.1 describes them.  Each test
# runs against runc too (RUNTIME=runc).

load helpers


# with_userns: the container gets a user namespace, 0..65535 mapped to
# 100000..165535 on the host.
with_userns ()
{
  open_bundle_path
  update_config '.linux.namespaces += [{type: "user"}]
    | .linux.uidMappings = [{containerID: 0, hostID: 100000, size: 65536}]
    | .linux.gidMappings = [{containerID: 0, hostID: 100000, size: 65536}]'
}

# requires_idmap: the kernel and the test directory's filesystem support
# idmapped mounts (and the runtime says it does).
requires_idmap ()
{
  requires root userns
  runtime_features | jq -e '.linux.mountExtensions.idmap.enabled' >/dev/null \
    || skip "$(runtime_name) does not support idmapped mounts (features)"
}

@test "mounts: a bind source below a root-only directory works in a user namespace" {
  requires root userns
  with_userns
  local locked=$BATS_TEST_TMPDIR/locked
  mkdir -p "$locked/src"
  echo inside >"$locked/src/file"
  chmod 0755 "$locked/src"
  chmod 0644 "$locked/src/file"
  chmod 0000 "$locked"
  cleanup_add "chmod 0755 $locked"
  mkdir "$ROOTFS/data" # the mapped root may not write the image
  add_bind "$locked/src" /data
  run_ct cat /data/file
  check_status 0
  [[ $output == inside ]]
}

@test "mounts: idmap with the mount's own mappings, without a user namespace, through a symlink" {
  requires_idmap
  local src=$BATS_TEST_TMPDIR/link
  mkdir -p "$BATS_TEST_TMPDIR/real"
  ln -s real "$src"
  echo x >"$src/f"
  chown 1000:1000 "$src/f"
  update_config '.mounts += [{destination: "/data", type: "bind", source: $s,
      options: ["bind", "idmap"],
      uidMappings: [{containerID: 1000, hostID: 2000, size: 10}],
      gidMappings: [{containerID: 1000, hostID: 3000, size: 10}]}]' --arg s "$src"
  run_ct stat -c '%u:%g' /data/f
  check_status 0
  [[ $output == 2000:3000 ]]
}

@test "mounts: idmap takes the container's user namespace mappings when the mount has none" {
  requires_idmap
  with_userns
  local src=$BATS_TEST_TMPDIR/src
  mkdir -p "$src"
  chmod a+rx "$src"
  echo x >"$src/f"
  chmod a+r "$src/f"
  # owned by host root: seen as the container's root through the idmap
  # (without it, as the overflow id)
  mkdir "$ROOTFS/idmapped" "$ROOTFS/plain"
  add_bind "$src" /idmapped idmap
  add_bind "$src" /plain
  run_ct sh -c 'stat -c "%u:%g" /idmapped/f /plain/f; touch /idmapped/new && stat -c "%u" /idmapped/new'
  check_status 0
  [[ ${lines[0]} == 0:0 ]]
  [[ ${lines[1]} == "$(cat /proc/sys/kernel/overflowuid):$(cat /proc/sys/kernel/overflowgid)" ]]
  [[ ${lines[2]} == 0 ]]
  # written as the container's root, it belongs to the host's root
  [[ $(stat -c %u "$src/new") == 0 ]]
}

@test "mounts: ridmap maps the submounts of an rbind too, idmap only the top" {
  requires_idmap
  local src=$BATS_TEST_TMPDIR/src
  mkdir -p "$src/sub"
  mount -t tmpfs -o size=1m tmpfs "$src/sub"
  cleanup_add "umount $src/sub"
  touch "$src/top" "$src/sub/inner"
  local maps='uidMappings: [{containerID: 0, hostID: 5000, size: 10}],
      gidMappings: [{containerID: 0, hostID: 5000, size: 10}]'
  update_config ".mounts += [
      {destination: \"/r\", type: \"bind\", source: \$s, options: [\"rbind\", \"ridmap\"], $maps},
      {destination: \"/i\", type: \"bind\", source: \$s, options: [\"rbind\", \"idmap\"], $maps}]" \
    --arg s "$src"
  run_ct stat -c '%n %u' /r/top /r/sub/inner /i/top /i/sub/inner
  check_status 0
  has_line "/r/top 5000"
  has_line "/r/sub/inner 5000"
  has_line "/i/top 5000"
  has_line "/i/sub/inner 0"
}

@test "mounts: idmap with no mapping to apply is refused, naming the mount" {
  requires_idmap
  local src=$BATS_TEST_TMPDIR/src
  mkdir -p "$src"
  add_bind "$src" /data idmap
  rt run --bundle "$BUNDLE" "$CT_ID"
  [[ $status -ne 0 ]] || fail "accepted: $output"
  [[ $output == *mounts* ]] || fail "the error does not name the mount: $output"
  no_leftovers "$CT_ID"
}
