#!/usr/bin/env bats
# Podman 4.3 with conmon drives agentrt: `podman --runtime PATH` with the
# policy given by `--runtime-flag policy=FILE`.  Podman has no daemon; every
# podman command runs in the file's engine network namespace, with its own
# containers.conf (runtime_supports_json lists agentrt, default_ulimits for
# nofile and nproc: Podman's 1048576 default needs CAP_SYS_RESOURCE, which
# this VM lacks), storage.conf and CNI configuration under T.
#
# Podman gives agentrt no --root (its state is in /run/agentrt, agentrt's
# default) and its cleanup process (conmon's exit command) none of the
# --runtime-flag options: only `delete` runs there, which needs neither.

load helpers

IMAGE=localhost/art-busybox:test
AGENTRT_ROOT=/run/agentrt

setup_file ()
{
  clients_requires podman conmon
  clients_setup podman
  local d=$T/podman
  mkdir -p "$d/net" "$d/tmp"
  cat >"$d/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$d/events.log"
tmp_dir = "$d/tmp"
volume_path = "$d/volumes"
runtime_supports_json = ["crun", "runc", "kata", "runsc", "krun", "agentrt"]

[engine.runtimes]
agentrt = ["$RUNTIME"]

[network]
network_backend = "cni"
network_config_dir = "$d/net"
cni_plugin_dirs = ["/usr/lib/cni"]
EOF
  cat >"$d/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$d/root"
runroot = "$d/run"
EOF
  echo 'unqualified-search-registries = []' >"$d/registries.conf"
  # The default network, "podman": a bridge in the engine namespace, with
  # the IPAM state under T.
  jq -n --arg dir "$d/ipam" '{cniVersion: "0.4.0", name: "podman", plugins: [
      {type: "bridge", bridge: "art-pod0", isGateway: true, ipMasq: false, hairpinMode: true,
       ipam: {type: "host-local", dataDir: $dir, routes: [{dst: "0.0.0.0/0"}],
              ranges: [[{subnet: "10.213.1.0/24", gateway: "10.213.1.1"}]]}}]}' \
    >"$d/net/87-podman-bridge.conflist"
  export CONTAINERS_CONF=$d/containers.conf CONTAINERS_STORAGE_CONF=$d/storage.conf
  export CONTAINERS_REGISTRIES_CONF=$d/registries.conf
  export ENGINE_CLEANUP=podman_cleanup
  # pm: podman, in the engine namespace, with agentrt and its policy (a
  # script, so that `script` can run it too)
  cat >"$T/pm" <<EOF
#!/bin/sh
exec timeout \${PM_TTY:+--foreground} -k 5 60 nsenter --net="$ENGINE_NS" -- \\
  podman --runtime "$RUNTIME" --runtime-flag "policy=$POLICY" "\$@"
EOF
  chmod +x "$T/pm"
  pm import "$BUSYBOX_TAR" "$IMAGE" >/dev/null
}

teardown_file ()
{
  clients_teardown
}

pm ()
{
  "$T/pm" "$@"
}

# pm_run ARGS...: `podman run` with the file's cgroup parent.
pm_run ()
{
  pm run --cgroup-parent "/$CG_PARENT" "$@"
}

podman_cleanup ()
{
  pm rm --all --force --time 0
  pm rmi --all --force
}

# logged NAME LINE: the container's log has that line.
logged ()
{
  pm logs "$1" 2>&1 | grep -qxF -- "$2"
}

# has_status NAME STATUS: podman says the container is in that state.
has_status ()
{
  [[ $(pm inspect --format '{{.State.Status}}' "$1") == "$2" ]]
}

ct_id ()
{
  pm inspect --format '{{.Id}}' "$1"
}

# host_cgroup ID CONTROLLER: the container's v1 cgroup directory.
host_cgroup ()
{
  local pid
  pid=$(pm inspect --format '{{.State.Pid}}' "$1") || return 1
  awk -F: -v c="$2" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print "/sys/fs/cgroup/" c $3 }' \
    "/proc/$pid/cgroup"
}

@test "podman run: output and exit status come back, the container ran hardened under agentrt" {
  run pm_run --rm --cidfile "$T/cid.1" "$IMAGE" sh -c 'echo hello; echo oops >&2; exit 3'
  check_status 3
  has_line hello
  has_line oops
  id=$(<"$T/cid.1")
  assert_hardened "$id"
  [[ $(audit_exit_status "$id") == 3 ]]
  # --rm: podman and agentrt both forgot it
  run pm ps --all --quiet --no-trunc
  [[ $output != *"$id"* ]]
  [[ ! -e $AGENTRT_ROOT/$id ]]
  [[ -z $(find /sys/fs/cgroup -maxdepth 4 -name "*$id*") ]]
}

@test "podman run --privileged starts, hardened: no writable kernel setting, no host device" {
  run pm_run --privileged --cidfile "$T/cid.priv" "$IMAGE" sh -c "$PRIVILEGED_CHECKS"
  check_status 0
  assert_privileged_hardened "$(<"$T/cid.priv")"
  pm rm "$(<"$T/cid.priv")"
}

@test "podman run --uidmap (the engine's user namespace): hardened, kept, the agent's root is not the host's" {
  run pm_run --rm --cidfile "$T/cid.userns" --uidmap 0:200000:65536 --gidmap 0:200000:65536 "$IMAGE" \
    sh -c 'cat /proc/self/uid_map; id -u; echo x >/tmp/x && echo tmp-ok; echo y >/etc/y 2>/dev/null || echo rootfs-ro'
  check_status 0
  [[ $(awk 'NF == 3 { print $1, $2, $3 }' <<<"$output") == "0 200000 65536" ]] || fail "$output"
  has_line 0
  has_line tmp-ok
  has_line rootfs-ro
  id=$(<"$T/cid.userns")
  assert_hardened "$id"
  # agentrt kept the engine's namespace: no range of its own
  jq -se '.[0].directives.network.userNamespace and .[0].directives.userns == "bundle"' \
    "$AUDIT_DIR/$id.jsonl" >/dev/null || fail "$(head -n 1 "$AUDIT_DIR/$id.jsonl")"
}

@test "podman run with agentrt's own user namespace (userns.mode auto): the image's overlay root idmapped, the agent's root not the host's" {
  run with_userns_auto pm_run --rm --cidfile "$T/cid.auto" "$IMAGE" sh -c "$OWN_USERNS_PROBE"
  check_status 0
  assert_own_userns
  id=$(<"$T/cid.auto")
  assert_hardened "$id"
  jq -se '.[0].directives.userns == "auto"' "$AUDIT_DIR/$id.jsonl" >/dev/null \
    || fail "$(head -n 1 "$AUDIT_DIR/$id.jsonl")"
}

@test "podman run -d, exec, stop, rm" {
  pm_run -d --name worker "$IMAGE" \
    sh -c 'trap "echo got-term; exit 3" TERM; echo ready; while sleep 0.2; do :; done'
  wait_until 50 logged worker ready
  id=$(ct_id worker)
  run pm inspect --format '{{.State.Status}}' worker
  has_line running
  run "$RUNTIME" --root "$AGENTRT_ROOT" state "$id"
  check_status 0
  [[ $(jq -r .status <<<"$output") == running ]]

  exec_confined pm worker
  jq -se 'map(select(.event == "exec")) | length > 0' "$AUDIT_DIR/$id.jsonl"

  run pm stop --time 10 worker
  check_status 0
  run pm inspect --format '{{.State.Status}} {{.State.ExitCode}}' worker
  has_line "exited 3"
  run pm logs worker
  has_line got-term
  run pm rm worker
  check_status 0
  [[ ! -e $AGENTRT_ROOT/$id ]]
  [[ $(audit_exit_status "$id") == 3 ]]
}

# tty_run CMD [INPUT]: `podman run --rm -it IMAGE CMD` under script(1),
# which gives podman a terminal, INPUT typed in; sets bats' status and
# output.  pm's timeout runs in the foreground (PM_TTY): by default timeout
# puts podman in a process group of its own, a background group on the
# terminal, and podman making the terminal raw is stopped by SIGTTOU for
# good; that was CI's hang, whose script(1) starts dash (which forks the
# command) where bash here exec'd it.  SHELL is pinned so that both see the
# same.  The input is a file: script(1) from util-linux 2.38 sometimes
# exits 0 whatever the command's status when its input is a pipe.
tty_run ()
{
  printf '%s' "${2:-}" >"$T/tty.in"
  run env SHELL=/bin/sh PM_TTY=1 \
    script -qec "$T/pm run --rm -it --cgroup-parent /$CG_PARENT $IMAGE $1" /dev/null <"$T/tty.in"
}

@test "podman run -it: a terminal through conmon" {
  # podman 4.3 attaches to conmon only after `start`: what a container
  # prints at once is sometimes lost, with runc as well (containers/podman
  # #9859; 10 of 40 runs with runc here), hence the pause before the first
  # output
  tty_run "sh -c 'sleep 1; tty; test -t 0 && echo stdin-is-a-tty; exit 5'"
  check_status 5
  [[ $output == *"/dev/pts/0"* ]] || fail "no tty in: $output"
  has_text stdin-is-a-tty
  # typed input reaches the shell, the shell's exit status comes back
  tty_run sh $'echo typed-$((6 * 7))\nexit 7\n'
  check_status 7
  has_text typed-42
}

@test "podman pause and unpause freeze the container's cgroup" {
  pm_run -d --name sleeper "$IMAGE" sleep 1000
  id=$(ct_id sleeper)
  run pm pause sleeper
  check_status 0
  run pm inspect --format '{{.State.Status}}' sleeper
  has_line paused
  [[ $(<"$(host_cgroup sleeper freezer)/freezer.state") == FROZEN ]]
  [[ $("$RUNTIME" --root "$AGENTRT_ROOT" state "$id" | jq -r .status) == paused ]]
  run pm unpause sleeper
  check_status 0
  run pm inspect --format '{{.State.Status}}' sleeper
  has_line running
  [[ $(<"$(host_cgroup sleeper freezer)/freezer.state") == THAWED ]]
  # a paused container is removed by force
  pm_run -d --name frozen "$IMAGE" sleep 1000
  id=$(ct_id frozen)
  run pm pause frozen
  check_status 0
  run pm rm --force frozen
  check_status 0
  [[ ! -e $AGENTRT_ROOT/$id ]] || fail "agentrt still has $id"
}

@test "podman update changes the container's limits" {
  mem=$(host_cgroup sleeper memory)
  cpu=$(host_cgroup sleeper cpu)
  run pm update --memory 64m --cpu-shares 512 sleeper
  check_status 0
  [[ $(<"$mem/memory.limit_in_bytes") == 67108864 ]]
  [[ $(<"$cpu/cpu.shares") == 512 ]]
  run pm rm --force --time 0 sleeper
  check_status 0
}

@test "podman kill delivers the signals it is given" {
  pm_run -d --name target "$IMAGE" \
    sh -c 'trap "echo got-usr1" USR1; trap "echo got-hup; exit 9" HUP; echo ready; while sleep 0.1; do :; done'
  wait_until 50 logged target ready
  run pm kill --signal USR1 target
  check_status 0
  wait_until 50 logged target got-usr1
  run pm inspect --format '{{.State.Status}}' target
  has_line running
  run pm kill --signal HUP target
  check_status 0
  wait_until 50 has_status target exited
  run pm inspect --format '{{.State.ExitCode}}' target
  has_line 9
  pm_run -d --name victim "$IMAGE" sleep 1000
  run pm kill victim
  check_status 0
  wait_until 50 has_status victim exited
  run pm inspect --format '{{.State.ExitCode}}' victim
  has_line 137
  pm rm target victim
}

@test "podman default network: the allowlisted server is reached only through the sidecar (proxy or transparent)" {
  run pm_run --rm --cidfile "$T/cid.net" --annotation "run.agentrt.egress.allow=$SERVER_IP" "$IMAGE" sh -c "$EGRESS_PROBE"
  egress_only_through_sidecar
  id=$(<"$T/cid.net")
  # the server saw the request come from podman's network (the outside
  # the proxy connects from), and the audit trail says why
  grep -qE '^10\.213\.1\.[0-9]+ .*"GET / HTTP/1.1" 200' "$T/server.log"
  jq -se --arg ip "$SERVER_IP" 'map(select(.event == "egress" and .addr == $ip
      and .decision == "allow" and .reason == "ok")) | length == 2' "$AUDIT_DIR/$id.jsonl"
  jq -se --arg ip "$SERVER_IP" 'any(.[]; .event == "egress" and .addr == $ip and .via == "addr"
      and .proto == "tcp")' "$AUDIT_DIR/$id.jsonl"
  jq -se 'map(select(.event == "egress" and .decision == "deny")) | length == 2' "$AUDIT_DIR/$id.jsonl"
}

@test "podman --network none: no way out, not even through the sidecar (proxy or transparent); with egress.uplink runtime, the runtime's network by the allowlist" {
  # --network none is a new namespace that podman, naming itself
  # (io.container.manager), left with only lo: the sidecar's way out is
  # that namespace (docs/policy.md, egress.uplink auto), where nothing
  # leads anywhere; egress.uplink runtime takes the runtime's own
  run pm_run --rm --network none --cidfile "$T/cid.none" \
    --annotation "run.agentrt.egress.allow=$SERVER_IP" "$IMAGE" sh -c "$NO_WAY_OUT_PROBE"
  # (the proxy's request and the transparent connection, each tried from
  # podman's empty namespace, fail)
  no_way_out "$AUDIT_DIR/$(<"$T/cid.none").jsonl"
  jq -se '.[0].directives.network | .outside == "bundle" and .engine and .uplink == "auto"
      and .rules != "none"' "$AUDIT_DIR/$(<"$T/cid.none").jsonl"
  jq -se 'any(.[]; .event == "egress" and .reason == "connect-failed" and .via == "addr")' \
    "$AUDIT_DIR/$(<"$T/cid.none").jsonl"
  cp "$POLICY" "$T/policy.auto"
  jq '.egress.uplink = "runtime"' "$T/policy.auto" >"$POLICY"
  run pm_run --rm --network none --cidfile "$T/cid.runtime" \
    --annotation "run.agentrt.egress.allow=$SERVER_IP" "$IMAGE" sh -c "$NO_WAY_OUT_PROBE"
  cp "$T/policy.auto" "$POLICY"
  check_status 0
  has_line wget=0
  [[ $(grep -c "$SERVER_TEXT" <<<"$output") -eq 1 ]]
  [[ $output != *"direct-lines 0"* ]]
  jq -se '.[0].directives.network | .outside == "runtime" and .uplink == "runtime"' \
    "$AUDIT_DIR/$(<"$T/cid.runtime").jsonl"
}

@test "podman shows agentrt's own message when agentrt fails" {
  bad_mount_source
  msg=$(agentrt_failure_message)
  run pm_run --rm -v "$BAD_MOUNT_SRC:/etc" "$IMAGE" true
  check_status 126
  has_text "$msg"
  [[ $(grep -c -F -- "$msg" <<<"$output") -eq 1 ]]
}

@test "podman: nothing is left behind" {
  run pm ps --all --quiet
  [[ -z $output ]] || fail "containers left: $output"
  podman_cleanup >/dev/null 2>&1
  [[ -n $(agentrt_ids) ]]
  assert_no_leftovers "$AGENTRT_ROOT"
}
