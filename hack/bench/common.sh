# shellcheck shell=bash
# hack/bench/common.sh: what hack/bench.sh and hack/scale.sh share on top
# of hack/lib.sh: root and tool checks, the runtimes under test (building
# agentrt when RUNTIME is not given), the admin policies, the load line.
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
