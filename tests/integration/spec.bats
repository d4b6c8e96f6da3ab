#!/usr/bin/env bats
# spec: writes a default config.json that runs.

load helpers

@test "spec: writes a valid default config.json in the working directory" {
  dir=$(host_dir spec)
  cd "$dir"
  run "$RUNTIME" spec
  cd /
  check_status 0
  cfg=$dir/config.json
  jq -e . "$cfg" >/dev/null
  [[ $(jq -r .ociVersion "$cfg") =~ ^1\.[0-9]+\.[0-9]+ ]]
  [[ $(jq -r .root.path "$cfg") == rootfs ]]
  [[ $(jq -r '.process.args[0]' "$cfg") == sh ]]
  [[ $(jq -r .process.terminal "$cfg") == true ]]
  [[ $(jq -r .process.cwd "$cfg") == / ]]
  for ns in pid mount network ipc uts; do
    jq -e --arg n "$ns" '.linux.namespaces | map(.type) | index($n)' "$cfg" >/dev/null \
      || fail "no $ns namespace in the default spec"
  done
  for m in /proc /dev /dev/pts /sys; do
    jq -e --arg m "$m" '.mounts | map(.destination) | index($m)' "$cfg" >/dev/null \
      || fail "no $m mount in the default spec"
  done
}

@test "spec --bundle DIR: writes into DIR" {
  dir=$(host_dir spec-bundle)
  run "$RUNTIME" spec --bundle "$dir"
  check_status 0
  jq -e .process "$dir/config.json" >/dev/null
}

@test "spec: an existing config.json is not overwritten" {
  dir=$(host_dir spec-exists)
  echo '{"keep": "me"}' >"$dir/config.json"
  run "$RUNTIME" spec --bundle "$dir"
  [[ $status -ne 0 ]]
  [[ $(jq -r .keep "$dir/config.json") == me ]]
}

@test "spec: the default config runs /bin/true in the busybox rootfs" {
  requires root
  dir=$(host_dir spec-run)
  (cd "$dir" && "$RUNTIME" spec)
  copy_rootfs "$(rootfs_cache)" "$dir/rootfs"
  CONFIG=$dir/config.json update_config '.process.terminal = false | .process.args = ["true"]'
  rt_ok run --bundle "$dir" "$CT_ID"
}
