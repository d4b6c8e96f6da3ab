#!/bin/bash
# hack/bench/engine-configs.sh [OUT-DIR]: what Docker and Podman put in the
# config.json of a container, captured from the engines installed here, for
# hack/bench.sh's engine-shaped bundles.  Each engine runs `true` in a
# busybox image twice, once plainly (`run --rm IMAGE true`) and once with
# limits (`--memory 256m --pids-limit 512 --cpu-shares 512`), with a runtime
# of ours that copies the bundle's config.json at `create` and then runs
# runc.  Kept from each copy, what does not depend on the machine or the
# container's paths: OUT-DIR/ENGINE-seccomp.json, the plain run's
# linux.seccomp as the engine sent it, and OUT-DIR/ENGINE.json,
#   {engine, version, generated, maskedPaths, readonlyPaths, capabilities,
#    resources}
# (the plain run's linux.maskedPaths, linux.readonlyPaths and
# process.capabilities, the limited run's linux.resources).  OUT-DIR
# defaults to hack/bench/engines.
# Docker: the docker.io package's dockerd (20.10: its default profile is
# compiled into dockerd, no file ships with it), a private daemon (own
# data-root, exec-root, socket, network namespace, no iptables, no bridge).
# Podman: podman 4.3 with storage, run root and containers.conf of its own;
# its profile comes from containers-common's /usr/share/containers/seccomp.json,
# turned by podman into what the runtime sees (syscalls granted by the
# container's capabilities included or not).
# Needs root, dockerd, docker (/usr/bin/docker), podman, conmon, runc, jq.
set -euo pipefail
SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
# shellcheck source=hack/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=hack/bench/common.sh
. "$HERE/common.sh"

OUT=${1:-$HERE/engines}
DOCKER_CLI=/usr/bin/docker
for tool in dockerd "$DOCKER_CLI" podman conmon runc jq nsenter ip; do
  command -v "$tool" >/dev/null || { echo "engine-configs.sh: $tool missing" >&2; exit 1; }
done
[[ $EUID -eq 0 ]] || { echo "engine-configs.sh: run as root" >&2; exit 1; }

T=$(mktemp -d /tmp/art-engcfg.XXXXXX)
NETNS=art-engcfg-$$
CG_PARENT=art-engcfg-$$
# What the engines create outside the roots they are given: removed at the
# end when this script created them.
HOST_PATHS=(/var/lib/containers/cache/blob-info-cache-v1.boltdb /var/lib/containers/cache
  /var/lib/containers /run/docker/plugins /run/docker)
bench_host_paths_record "$T/host-paths-before" "${HOST_PATHS[@]}"
DOCKERD=
cleanup ()
{
  set +e
  if [[ -n $DOCKERD ]]; then
    kill "$DOCKERD" 2>/dev/null
    for _ in $(seq 200); do kill -0 "$DOCKERD" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$DOCKERD" 2>/dev/null
  fi
  if [[ -n ${CONTAINERS_CONF:-} ]]; then
    pm rm --all --force --time 0 >/dev/null 2>&1
    pm rmi --all --force >/dev/null 2>&1
  fi
  ip netns del "$NETNS" 2>/dev/null
  bench_cgroup_remove "$CG_PARENT"
  bench_host_paths_remove "$T/host-paths-before" "${HOST_PATHS[@]}"
  # overlay mounts the engines may have left under T
  grep -o " $T/[^ ]*" /proc/self/mountinfo | sort -r | while read -r m; do umount -l "$m"; done
  rm -rf --one-file-system "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The runtime both engines are given: copies config.json to T/copy/NAME,
# NAME from the environment file the wrapper reads (the engines pass no
# environment of ours), then is runc.
mkdir -p "$T/copy"
cat >"$T/copy-runtime" <<EOF
#!/bin/sh
prev=
for a; do
  if [ "\$prev" = --bundle ] || [ "\$prev" = -b ]; then
    cp "\$a/config.json" "$T/copy/\$(cat "$T/copy-name")"
  fi
  prev=\$a
done
exec runc "\$@"
EOF
chmod +x "$T/copy-runtime"
tar -C "$(rootfs_cache)" -cf "$T/busybox.tar" .
ip netns add "$NETNS"
ip -n "$NETNS" link set lo up

# capture NAME CMD...: CMD runs one container; its config.json is T/copy/NAME.
capture ()
{
  local name=$1
  shift
  echo "$name" >"$T/copy-name"
  "$@" >/dev/null
  [[ -s $T/copy/$name ]] || { echo "engine-configs.sh: no config.json for $name" >&2; exit 1; }
}

LIMITS=(--memory 256m --pids-limit 512 --cpu-shares 512)

# ---- Docker ------------------------------------------------------------------
d=$T/docker
mkdir -p "$d/cli"
jq -n --arg d "$d" --arg rt "$T/copy-runtime" --arg cg "/$CG_PARENT" '{
    "data-root": "\($d)/data", "exec-root": "\($d)/exec",
    "pidfile": "\($d)/docker.pid", "hosts": ["unix://\($d)/docker.sock"],
    "deprecated-key-path": "\($d)/key.json", "bridge": "none",
    "iptables": false, "ip-masq": false, "storage-driver": "overlay2",
    "exec-opts": ["native.cgroupdriver=cgroupfs"], "cgroup-parent": $cg,
    "runtimes": {"copy": {"path": $rt}}}' >"$d/daemon.json"
nsenter --net="/run/netns/$NETNS" dockerd --config-file "$d/daemon.json" >"$d/dockerd.log" 2>&1 </dev/null &
DOCKERD=$!
dk () { DOCKER_HOST=unix://$d/docker.sock DOCKER_CONFIG=$d/cli timeout -k 5 120 "$DOCKER_CLI" "$@"; }
for _ in $(seq 300); do dk version >/dev/null 2>&1 && break; sleep 0.1; done
dk version >/dev/null || { tail -20 "$d/dockerd.log" >&2; exit 1; }
dk import "$T/busybox.tar" art-busybox:cfg >/dev/null
capture docker dk run --rm --network none --runtime copy art-busybox:cfg true
capture docker-limits dk run --rm --network none --runtime copy "${LIMITS[@]}" art-busybox:cfg true
docker_version=$(dk version --format '{{.Server.Version}}')
kill "$DOCKERD"
wait "$DOCKERD" 2>/dev/null || true
DOCKERD=

# ---- Podman ------------------------------------------------------------------
bench_podman_world "$T/podman"
pm ()
{
  timeout -k 5 120 nsenter --net="/run/netns/$NETNS" podman --runtime "$T/copy-runtime" "$@"
}
pm import "$T/busybox.tar" localhost/art-busybox:cfg >/dev/null
capture podman pm run --rm --network none --cgroup-parent "/$CG_PARENT" localhost/art-busybox:cfg true
capture podman-limits pm run --rm --network none --cgroup-parent "/$CG_PARENT" "${LIMITS[@]}" \
  localhost/art-busybox:cfg true
podman_version=$(pm version --format '{{.Client.Version}}')

# ---- what is kept ------------------------------------------------------------
mkdir -p "$OUT"
keep ()
{
  local engine=$1 version=$2 how=$3
  jq .linux.seccomp "$T/copy/$engine" >"$OUT/$engine-seccomp.json"
  jq -n --slurpfile plain "$T/copy/$engine" --slurpfile limits "$T/copy/$engine-limits" \
    --arg e "$engine" --arg v "$version" --arg how "$how" '{
      engine: $e, version: $v, generated: $how,
      maskedPaths: $plain[0].linux.maskedPaths,
      readonlyPaths: $plain[0].linux.readonlyPaths,
      capabilities: $plain[0].process.capabilities,
      resources: $limits[0].linux.resources}' >"$OUT/$engine.json"
  echo "$OUT/$engine-seccomp.json: $(jq '.syscalls | map(.names | length) | add' "$OUT/$engine-seccomp.json") syscalls named, architectures $(jq -c .architectures "$OUT/$engine-seccomp.json")"
}
keep docker "$docker_version" "hack/bench/engine-configs.sh on $(date -u +%F): dockerd $docker_version (Debian docker.io), docker run --rm --network none IMAGE true; resources from the same with ${LIMITS[*]}"
keep podman "$podman_version" "hack/bench/engine-configs.sh on $(date -u +%F): podman $podman_version (Debian), containers-common $(dpkg-query -W -f '${Version}' golang-github-containers-common 2>/dev/null || echo '?'), podman run --rm --network none IMAGE true; resources from the same with ${LIMITS[*]}"
