# shellcheck shell=bash
# hack/bench/common.sh: what hack/bench.sh, hack/scale.sh and
# hack/bench/engine-configs.sh share on top of hack/lib.sh: root and tool
# checks, the runtimes under test (building agentrt when RUNTIME is not
# given), the admin policies, the load line, a podman of the script's own
# and removing what engines leave (cgroups, host paths).
# Source it after hack/lib.sh; it sets AGENTRT, EGRESS_BIN, RUNC, CRUN.

# bench_require TOOL...: exit with the Debian packages to install when a
# tool is missing, or when not root.
bench_require ()
{
  local tool
  if [[ $EUID -ne 0 ]]; then
    echo "$(basename "$0"): run as root (containers, namespaces, cgroups)" >&2
    exit 1
  fi
  for tool; do
    if ! command -v "$tool" >/dev/null; then
      echo "$(basename "$0"): $tool missing (apt-get install runc crun tinyproxy-bin curl jq gcc python3 iproute2 util-linux)" >&2
      exit 1
    fi
  done
}

# bench_runtimes: AGENTRT (RUNTIME, else built in _build/ with make -j2),
# EGRESS_BIN next to it, RUNC and CRUN (from PATH unless set).
bench_runtimes ()
{
  if [[ -z ${RUNTIME:-} ]]; then
    RUNTIME=$(agentrt_default_runtime)
    if [[ ! -f $AGENTRT_BUILD_DIR/Makefile ]]; then
      (cd "$AGENTRT_TOP" && { [[ -x configure ]] || ./autogen.sh >/dev/null; })
      mkdir -p "$AGENTRT_BUILD_DIR"
      (cd "$AGENTRT_BUILD_DIR" && "$AGENTRT_TOP/configure" -q)
    fi
    make -C "$AGENTRT_BUILD_DIR" -s -j2 agentrt agentrt-egress
  fi
  AGENTRT=$(resolve_runtime "$RUNTIME")
  EGRESS_BIN=$(dirname "$AGENTRT")/agentrt-egress
  [[ -x $EGRESS_BIN ]] || EGRESS_BIN=/usr/local/libexec/agentrt/agentrt-egress
  RUNC=$(resolve_runtime "${RUNC:-runc}")
  CRUN=$(resolve_runtime "${CRUN:-crun}")
}

# bench_state_dir DIR: a tmpfs at DIR for the runtimes' --root state, as
# /run is on a standard host.  On this VM /run lives on the ext4 root file
# system, where each state file replaced by rename costs 0.5-1 ms (ext4
# writes such a file out at once: auto_da_alloc), a cost no runtime pays
# on a host with a tmpfs /run.  bench_state_dir_remove DIR unmounts it.
bench_state_dir ()
{
  mkdir -p "$1" && mount -t tmpfs -o mode=0700,size=256m agentrt-bench-state "$1"
}
bench_state_dir_remove ()
{
  if mountpoint -q "$1"; then umount "$1"; fi
}

# bench_host_nat NETNS: what an engine's host has and a bare kernel lacks,
# in a network namespace of the bench's own (NETNS, which the caller
# deletes), never the host's: nat and filter chains on the output hook, as
# Docker's, Podman's and kube-proxy's rules make in the host's namespace.
# The first such chain anywhere switches the kernel's netfilter hooks on
# (static keys, patched into the kernel's text on every CPU) and the last
# one gone switches them off: without it every container's transparent
# rules pay both (about 3 ms of `run` on the 2-CPU VM).  BENCH_BARE_HOST=1
# skips it (docs/benchmarks.md, "How it measures").
bench_host_nat ()
{
  [[ -z ${BENCH_BARE_HOST:-} ]] || return 0
  ip netns add "$1" || return 1
  printf '%s\n' 'table inet engine-host {' \
    '  chain nat-out { type nat hook output priority -100; policy accept; }' \
    '  chain filter-out { type filter hook output priority 0; policy accept; }' \
    '}' | ip netns exec "$1" nft -f -
}

# bench_host_nat_state: how bench_host_nat left the host, for the logs.
bench_host_nat_state ()
{
  if [[ -n ${BENCH_BARE_HOST:-} ]]; then echo "bare host: no nat chain anywhere of the bench's"
  else echo "engine host: a nat output chain in a namespace of the bench's"; fi
}

# bench_policies DIR: DIR/policy-off.json (hardening off: agentrt as runc)
# and DIR/policy-hard.json (the defaults, with the source tree's agent
# seccomp profile), both auditing to DIR/audit.
bench_policies ()
{
  local dir=$1
  mkdir -p "$dir/audit"
  jq -n --arg a "$dir/audit" '{version: 1, hardening: "off", audit: {dir: $a}}' \
    >"$dir/policy-off.json"
  jq -n --arg a "$dir/audit" --arg p "$AGENTRT_TOP/seccomp-profiles/agent-default.json" \
    '{version: 1, seccomp: {profile: $p}, audit: {dir: $a}}' >"$dir/policy-hard.json"
}

# bench_bundle DIR NAME JQ-FILTER [JQ-ARGS...]: the bundle DIR/NAME, its
# config DIR/base.json through JQ-FILTER, its root DIR/bundle/rootfs (one
# busybox rootfs for every bundle).
bench_bundle ()
{
  local dir=$1 name=$2 filter=$3
  shift 3
  mkdir -p "$dir/$name"
  jq --arg rootfs "$dir/bundle/rootfs" "$@" "$filter | .root.path = \$rootfs" \
    "$dir/base.json" >"$dir/$name/config.json"
}

# bench_engine_files DIR: what engines bind into every container
# (resolv.conf, hosts, hostname) in DIR; BENCH_ENGINE_BINDS, the jq filter
# adding their binds, takes DIR as $e.
bench_engine_files ()
{
  mkdir -p "$1"
  printf 'nameserver 192.0.2.53\n' >"$1/resolv.conf"
  printf '127.0.0.1 localhost\n' >"$1/hosts"
  printf 'bench\n' >"$1/hostname"
}
# shellcheck disable=SC2034,SC2016 # used by the scripts that source it; $e is jq's
BENCH_ENGINE_BINDS='.mounts += [
    {destination: "/etc/resolv.conf", type: "bind", source: ($e + "/resolv.conf"), options: ["rbind", "ro"]},
    {destination: "/etc/hosts", type: "bind", source: ($e + "/hosts"), options: ["rbind", "ro"]},
    {destination: "/etc/hostname", type: "bind", source: ($e + "/hostname"), options: ["rbind", "ro"]}]'

# Engine-shaped bundles (hack/bench/engines, made by
# hack/bench/engine-configs.sh): BENCH_ENGINE_FULL, the jq filter giving a
# bundle the engine's seccomp profile as the engine sent it, its masked
# and read-only paths, capabilities and limits (memory, swap, pids, cpu
# shares, devices); it takes bench_engine_args ENGINE's $s and $x.
# shellcheck disable=SC2034,SC2016 # used by the scripts that source it; $s and $x are jq's
BENCH_ENGINE_FULL='.linux.seccomp = $s[0] | .linux.maskedPaths = $x[0].maskedPaths
  | .linux.readonlyPaths = $x[0].readonlyPaths | .process.capabilities = $x[0].capabilities
  | .linux.resources = $x[0].resources'
# bench_engine_args ENGINE: jq's arguments for BENCH_ENGINE_FULL (and for
# `.linux.seccomp = $s[0]` alone).
bench_engine_args ()
{
  local dir
  dir=$(dirname "${BASH_SOURCE[0]}")/engines
  printf '%s\n' --slurpfile s "$dir/$1-seccomp.json" --slurpfile x "$dir/$1.json"
}

# bench_delete_all STATE RUNTIME-OF: delete --force of every container
# left in the state roots STATE/root-*; RUNTIME-OF ROOT prints the command
# running the runtime that owns ROOT, one word a line.
bench_delete_all ()
{
  local r id cmd
  for r in "$1"/root-*; do
    [[ -d $r ]] || continue
    mapfile -t cmd < <("$2" "$r")
    for id in $("${cmd[@]}" --root "$r" list -q 2>/dev/null); do
      "${cmd[@]}" --root "$r" delete --force "$id" >/dev/null 2>&1
    done
  done
}

# bench_load: "load 1.00, 0.80, 0.50" (uptime's load averages).
bench_load ()
{
  uptime | sed 's/.*load average: /load /'
}

# bench_stop PID: stops a driver process (runloop, egress.py, scale.py)
# and waits until the runtime commands it had started have finished, so
# that what they create can then be listed and deleted.
bench_stop ()
{
  local pid=$1 kids
  kids=$(pgrep -P "$pid" | tr '\n' ' ')
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  for _ in $(seq 300); do
    # shellcheck disable=SC2086
    kill -0 $kids 2>/dev/null || break
    sleep 0.1
  done
}

# bench_host_paths_record FILE PATH...: which of PATH... exist now (what
# engines create outside the roots they are given: podman's blob cache,
# dockerd's plugin dir), written to FILE for bench_host_paths_remove.
bench_host_paths_record ()
{
  local file=$1 p
  shift
  for p; do [[ -e $p ]] && echo "$p"; done >"$file"
  return 0
}

# bench_host_paths_remove FILE PATH...: removes those of PATH... that
# FILE does not list (directories only when empty); children first.
bench_host_paths_remove ()
{
  local file=$1 p
  shift
  for p; do
    grep -qxF "$p" "$file" 2>/dev/null && continue
    if [[ -d $p ]]; then rmdir "$p"; elif [[ -f $p ]]; then rm -f "$p"; fi
  done 2>/dev/null
  return 0
}

# bench_cgroup_remove NAME: removes the cgroup NAME and what is under it in
# every hierarchy, waiting up to 5 s for processes to leave it (conmon and
# podman's cleanup process leave after the container).
bench_cgroup_remove ()
{
  local h
  for _ in $(seq 50); do
    for h in /sys/fs/cgroup/*/; do
      [[ -d $h$1 ]] && find "$h$1" -depth -type d -exec rmdir {} + 2>/dev/null
    done
    compgen -G "/sys/fs/cgroup/*/$1" >/dev/null || return 0
    sleep 0.1
  done
  return 0
}

# bench_podman_world DIR: containers.conf, storage.conf and
# registries.conf of a podman of its own under DIR (storage, run root, tmp
# dir, events log there; cgroupfs; no registries), exported in
# CONTAINERS_CONF, CONTAINERS_STORAGE_CONF and CONTAINERS_REGISTRIES_CONF.
bench_podman_world ()
{
  local d=$1
  mkdir -p "$d/tmp"
  printf '%s\n' '[containers]' 'default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]' \
    '[engine]' 'cgroup_manager = "cgroupfs"' 'events_logger = "file"' \
    "events_logfile_path = \"$d/events.log\"" "tmp_dir = \"$d/tmp\"" \
    "volume_path = \"$d/volumes\"" 'runtime_supports_json = ["crun", "runc", "agentrt"]' \
    >"$d/containers.conf"
  printf '%s\n' '[storage]' 'driver = "overlay"' "graphroot = \"$d/root\"" \
    "runroot = \"$d/run\"" >"$d/storage.conf"
  echo 'unqualified-search-registries = []' >"$d/registries.conf"
  export CONTAINERS_CONF=$d/containers.conf CONTAINERS_STORAGE_CONF=$d/storage.conf
  export CONTAINERS_REGISTRIES_CONF=$d/registries.conf
}
