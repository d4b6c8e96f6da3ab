#!/usr/bin/env bats
# containerd 1.6 drives agentrt through its runc shim (io.containerd.runc.v2),
# from ctr: `ctr run --runc-binary WRAPPER`.  The shim runs the binary it is
# given with no way to add global flags, so WRAPPER is a two-line script
# that execs agentrt with --policy (the docs show the same for
# containerd's BinaryName).  `ctr run --no-pivot` would ignore
# --runc-binary: it is not used.
#
# The file's containerd runs in the engine network namespace with its own
# root, state, sockets and config (CRI plugin off); containers get their
# own namespace (art-TAG), agentrt its own --root (ctr --runc-root).

load helpers

IMAGE=localhost/art-busybox:test

setup_file ()
{
  clients_requires containerd ctr
  clients_setup containerd
  local d=$T/containerd
  mkdir -p "$d"
  export CTR_ADDRESS=$d/containerd.sock CTR_NS=art-$CLIENTS_TAG
  export CTR_ROOT=$T/rt WRAPPER=$T/agentrt-policy
  printf '#!/bin/sh\nexec %q --policy %q "$@"\n' "$RUNTIME" "$POLICY" >"$WRAPPER"
  chmod +x "$WRAPPER"
  cat >"$d/config.toml" <<EOF
version = 2
root = "$d/root"
state = "$d/state"
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.aufs", "io.containerd.internal.v1.tracing",
  "io.containerd.tracing.processor.v1.otlp"]

[grpc]
  address = "$CTR_ADDRESS"

[ttrpc]
  address = "$CTR_ADDRESS.ttrpc"

[debug]
  address = ""

[metrics]
  address = ""
EOF
  export ENGINE_CLEANUP=containerd_cleanup
  start_daemon containerd "$T/containerd.pid" containerd --config "$d/config.toml"
  wait_until 300 c version || return 1
  oci_archive "$IMAGE" "$T/busybox-oci.tar" '["sh"]' || return 1
  c image import "$T/busybox-oci.tar" >/dev/null
}

teardown_file ()
{
  clients_teardown
}

# c ARGS...: ctr on the file's containerd and namespace.
c ()
{
  timeout -k 5 60 ctr --address "$CTR_ADDRESS" --namespace "$CTR_NS" "$@"
}

# ctr_run ARGS...: `ctr run` through agentrt, with the file's cgroup parent
# (the last two arguments before the command are the image and the id).
ctr_run ()
{
  c run --runc-binary "$WRAPPER" --runc-root "$CTR_ROOT" --fifo-dir "$T/fifo" "$@"
}

containerd_cleanup ()
{
  local id
  for id in $(c task ls --quiet); do
    c task kill --signal SIGKILL "$id"
    c task delete --force "$id"
  done
  for id in $(c container ls --quiet); do
    c container delete "$id"
  done
  c image remove "$IMAGE"
  stop_pid "$T/containerd.pid"
}

task_status ()
{
  c task ls | awk -v id="$1" '$1 == id { print $3 }'
}

@test "ctr run: output and exit status come back, hardened" {
  run ctr_run --rm --cgroup "/$CG_PARENT/one" "$IMAGE" "one-$CLIENTS_TAG" sh -c 'echo hello; echo oops >&2; exit 3'
  check_status 3
  has_line hello
  has_line oops
  assert_hardened "one-$CLIENTS_TAG"
  [[ $(audit_exit_status "one-$CLIENTS_TAG") == 3 ]]
  run c container ls --quiet
  [[ -z $output ]]
  [[ ! -e $CTR_ROOT/$CTR_NS/one-$CLIENTS_TAG ]]
}

# SHELL pinned for script(1), as in podman.bats' tty_run
@test "ctr run -t: a terminal through the shim" {
  run env SHELL=/bin/sh script -qec "ctr --address $CTR_ADDRESS --namespace $CTR_NS run --rm -t --runc-binary $WRAPPER --runc-root $CTR_ROOT --fifo-dir $T/fifo --cgroup /$CG_PARENT/tty $IMAGE tty-$CLIENTS_TAG sh -c 'tty; test -t 0 && echo stdin-is-a-tty; exit 5'" /dev/null </dev/null
  check_status 5
  has_text /dev/pts/0
  has_text stdin-is-a-tty
}

@test "ctr: exec, ps, pause, resume, kill, delete" {
  w=worker-$CLIENTS_TAG
  ctr_run -d --log-uri "file://$T/worker.log" --cgroup "/$CG_PARENT/worker" "$IMAGE" "$w" \
    sh -c 'trap "echo got-usr1" USR1; trap "echo got-term; exit 9" TERM; echo ready; while sleep 0.1; do :; done'
  wait_until 50 grep -qx ready "$T/worker.log"
  run "$RUNTIME" --root "$CTR_ROOT/$CTR_NS" state "$w"
  check_status 0
  [[ $(jq -r .status <<<"$output") == running ]]

  run c task exec --exec-id e1 --fifo-dir "$T/fifo" "$w" sh -c 'echo in-exec; echo exec-err >&2; exit 4'
  check_status 4
  has_line in-exec
  has_line exec-err

  run c task pause "$w"
  check_status 0
  [[ $(task_status "$w") == PAUSED ]]
  [[ $(</sys/fs/cgroup/freezer/$CG_PARENT/worker/freezer.state) == FROZEN ]]

  # ps: the pids of the container's cgroup (agentrt ps --format json),
  # compared while frozen: the worker's loop starts a new sleep every 0.1 s
  run c task ps "$w"
  check_status 0
  got=$(awk 'NR > 1 { print $1 }' <<<"$output" | sort -n)
  want=$(sort -n "/sys/fs/cgroup/pids/$CG_PARENT/worker/cgroup.procs")
  [[ -n $got && $got == "$want" ]] || fail "ps: '$got', cgroup: '$want'"
  run c task resume "$w"
  check_status 0
  [[ $(task_status "$w") == RUNNING ]]

  run c task kill --signal SIGUSR1 "$w"
  check_status 0
  wait_until 50 grep -qx got-usr1 "$T/worker.log"
  [[ $(task_status "$w") == RUNNING ]]
  run c task kill --signal SIGTERM "$w"
  check_status 0
  wait_until 50 sh -c "ctr --address $CTR_ADDRESS --namespace $CTR_NS task ls | grep -q '^$w .*STOPPED'"
  grep -qx got-term "$T/worker.log"
  run c task delete "$w"
  check_status 0
  has_text "exit code 9"
  [[ $(audit_exit_status "$w") == 9 ]]
  run c container delete "$w"
  check_status 0
  [[ ! -e $CTR_ROOT/$CTR_NS/$w ]]
}

@test "ctr run --net-host: the allowlisted server is reached only through the sidecar (proxy or transparent)" {
  # without a network namespace of the bundle's, agentrt adds one with
  # only lo and its proxy connects out from the host's: here containerd's
  run ctr_run --rm --net-host --cgroup "/$CG_PARENT/net" \
    --annotation "run.agentrt.egress.allow=$SERVER_IP" "$IMAGE" "net-$CLIENTS_TAG" sh -c "$EGRESS_PROBE"
  egress_only_through_sidecar
  grep -qE "^${ENGINE_IP//./\\.} .*\"GET / HTTP/1.1\" 200" "$T/server.log"
  jq -se 'map(select(.event == "egress" and .decision == "allow")) | length == 2' \
    "$AUDIT_DIR/net-$CLIENTS_TAG.jsonl"
}

@test "ctr shows agentrt's own message when agentrt fails (bad mount, missing rootfs)" {
  bad_mount_source
  msg=$(agentrt_failure_message)
  run ctr_run --rm --cgroup "/$CG_PARENT/bad" \
    --mount "type=bind,src=$BAD_MOUNT_SRC,dst=/etc,options=rbind:ro" "$IMAGE" "bad-$CLIENTS_TAG" true
  check_status 1
  has_text "$msg"
  [[ $(grep -c -F -- "$msg" <<<"$output") -eq 1 ]]

  run ctr_run --rm --cgroup "/$CG_PARENT/norootfs" --rootfs "$T/no-such-rootfs" "norootfs-$CLIENTS_TAG" true
  check_status 1
  has_text "root.path: \`$T/no-such-rootfs\`: No such file or directory"
  run c container ls --quiet
  [[ -z $output ]] || fail "containers left: $output"
}

@test "containerd: nothing is left behind" {
  run c task ls --quiet
  [[ -z $output ]] || fail "tasks left: $output"
  [[ -n $(agentrt_ids) ]]
  containerd_cleanup >/dev/null 2>&1
  assert_no_leftovers "$CTR_ROOT/$CTR_NS"
}
