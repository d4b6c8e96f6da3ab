#!/usr/bin/env bats
# The Kubernetes path: containerd 1.6's CRI plugin with a runtime handler
# `agentrt` (io.containerd.runc.v2, BinaryName a wrapper that adds
# agentrt's --policy, run.agentrt.* pod and container annotations passed
# through), a bridge CNI network, and the test's own CRI client (cri.py:
# crictl is not packaged in Debian 12) in the role of the kubelet.
#
# The file's containerd runs in the engine network namespace with its own
# root, state and socket; restrict_oom_score_adj is on (this VM does not
# let containerd lower OOM scores); pod network namespaces are kept under
# its state dir; the pause image is busybox-static running `sleep inf`.

load helpers

IMAGE=localhost/art-busybox:test
PAUSE=localhost/art-pause:test
POD_SUBNET=10.213.2

setup_file ()
{
  clients_requires containerd ctr
  "$CLIENTS_PYTHON" -c 'import grpc, google.protobuf' 2>/dev/null \
    || skip "requires python3-grpcio and python3-protobuf"
  clients_setup cri
  local d=$T/containerd
  mkdir -p "$d" "$T/net.d" "$T/logs"
  export CRI_ADDRESS=$d/containerd.sock WRAPPER=$T/agentrt-policy
  export CRI_ROOT=$T/rt/k8s.io
  printf '#!/bin/sh\nexec %q --policy %q "$@"\n' "$RUNTIME" "$POLICY" >"$WRAPPER"
  chmod +x "$WRAPPER"
  jq -n --arg dir "$T/ipam" --arg s "$POD_SUBNET.0/24" '{cniVersion: "0.4.0", name: "art-cri",
      plugins: [{type: "bridge", bridge: "art-cri0", isGateway: true, ipMasq: false,
                 ipam: {type: "host-local", dataDir: $dir, ranges: [[{subnet: $s}]],
                        routes: [{dst: "0.0.0.0/0"}]}},
                {type: "loopback"}]}' >"$T/net.d/10-art-cri.conflist"
  cat >"$d/config.toml" <<EOF
version = 2
root = "$d/root"
state = "$d/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs",
  "io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]

[grpc]
  address = "$CRI_ADDRESS"

[ttrpc]
  address = "$CRI_ADDRESS.ttrpc"

[debug]
  address = ""

[metrics]
  address = ""

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE"
  restrict_oom_score_adj = true
  disable_apparmor = true
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"

  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"

    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"

    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.agentrt]
      runtime_type = "io.containerd.runc.v2"
      pod_annotations = ["run.agentrt.*"]
      container_annotations = ["run.agentrt.*"]

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.agentrt.options]
        BinaryName = "$WRAPPER"
        Root = "$T/rt"

  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$T/net.d"
    max_conf_num = 1
EOF
  export ENGINE_CLEANUP=cri_cleanup
  start_daemon containerd "$T/containerd.pid" containerd --config "$d/config.toml"
  wait_until 300 cri version || return 1
  oci_archive "$IMAGE" "$T/busybox-oci.tar" '["sh"]' || return 1
  oci_archive "$PAUSE" "$T/pause-oci.tar" '["sleep", "inf"]' || return 1
  ctr_k8s image import "$T/busybox-oci.tar" >/dev/null || return 1
  ctr_k8s image import "$T/pause-oci.tar" >/dev/null || return 1
  wait_until 50 cri image "$PAUSE"
}

teardown_file ()
{
  clients_teardown
}

cri ()
{
  timeout -k 5 120 "$CLIENTS_PYTHON" "$CLIENTS_DIR/cri.py" -s "$CRI_ADDRESS" "$@"
}

ctr_k8s ()
{
  timeout -k 5 60 ctr --address "$CRI_ADDRESS" --namespace k8s.io "$@"
}

cri_cleanup ()
{
  local id
  for id in $(cri pods); do
    cri stopp "$id"
    cri rmp "$id"
  done
  ctr_k8s image remove "$IMAGE" "$PAUSE"
  stop_pid "$T/containerd.pid"
}

# pod_config NAME NETWORK-MODE [ANNOTATIONS-JSON]: a PodSandboxConfig in
# T/NAME.json (network 0: the pod's own, on the CNI bridge; 2: the node's,
# and then no hostname of its own, as the kubelet does).
pod_config ()
{
  jq -n --arg n "$1" --argjson net "$2" --argjson a "${3:-{\}}" \
    --arg logs "$T/logs/$1" --arg cg "/$CG_PARENT/$1" '{
      metadata: {name: $n, uid: "uid-\($n)", namespace: "art", attempt: 0},
      hostname: (if $net == 2 then "" else $n end), log_directory: $logs, annotations: $a,
      linux: {cgroup_parent: $cg,
              security_context: {namespace_options: {network: $net, pid: 1, ipc: 0}}}}' \
    >"$T/$1.json"
  mkdir -p "$T/logs/$1"
}

# ctr_config NAME COMMAND-JSON [MOUNTS-JSON]: a ContainerConfig in
# T/ctr-NAME.json, logging to NAME.log in its pod's log directory.
ctr_config ()
{
  jq -n --arg n "$1" --arg img "$IMAGE" --argjson cmd "$2" --argjson m "${3:-[]}" '{
      metadata: {name: $n, attempt: 0}, image: {image: $img}, command: $cmd,
      mounts: $m, log_path: "\($n).log", linux: {}}' >"$T/ctr-$1.json"
}

ct_field ()
{
  cri inspect "$1" | jq -r ".status.$2"
}

@test "CRI: a pod sandbox runs under the agentrt handler, on the bridge network" {
  pod_config web 0
  run cri runp "$T/web.json" agentrt
  check_status 0
  pod=$output
  echo "$pod" >"$T/pod.web"
  run cri inspectp "$pod"
  check_status 0
  [[ $(jq -r '.status.state // 0' <<<"$output") == 0 ]]
  [[ $(jq -r '.status.runtime_handler' <<<"$output") == agentrt ]]
  [[ $(jq -r '.status.network.ip' <<<"$output") == "$POD_SUBNET".* ]]
  # the sandbox (pause) container is agentrt's
  assert_hardened "$pod"
  [[ -d $CRI_ROOT/$pod ]]
  [[ $("$RUNTIME" --root "$CRI_ROOT" state "$pod" | jq -r .status) == running ]]
}

@test "CRI: a container is created, started, exec'd (ExecSync), stopped with its exit code, removed" {
  pod=$(<"$T/pod.web")
  ctr_config work '["sh", "-c", "trap \"echo got-term; exit 7\" TERM; echo started; while sleep 0.2; do :; done"]'
  run cri create "$pod" "$T/ctr-work.json" "$T/web.json"
  check_status 0
  id=$output
  [[ $(ct_field "$id" state) == 0 ]] || [[ $(ct_field "$id" state) == null ]]
  run cri start "$id"
  check_status 0
  [[ $(ct_field "$id" state) == 1 ]]
  assert_hardened "$id"
  wait_until 50 grep -q ' stdout F started$' "$T/logs/web/work.log"

  run cri exec "$id" 10 sh -c 'echo out; echo err >&2; exit 5'
  check_status 5
  has_line out
  has_line err
  run cri exec "$id" 10 grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status
  check_status 0
  has_line $'NoNewPrivs:\t1'
  has_line $'Seccomp:\t2'

  run cri stop "$id" 10
  check_status 0
  [[ $(ct_field "$id" state) == 2 ]]
  [[ $(ct_field "$id" exit_code) == 7 ]]
  grep -q ' stdout F got-term$' "$T/logs/web/work.log"
  [[ $(audit_exit_status "$id") == 7 ]]
  run cri rm "$id"
  check_status 0
  [[ ! -e $CRI_ROOT/$id ]]
  run cri inspect "$id"
  check_status 2
}

@test "CRI: agentrt's own message reaches the client when agentrt fails" {
  pod=$(<"$T/pod.web")
  bad_mount_source
  msg=$(agentrt_failure_message)
  ctr_config bad '["true"]' "$(jq -n --arg s "$BAD_MOUNT_SRC" '[{container_path: "/etc", host_path: $s}]')"
  run cri create "$pod" "$T/ctr-bad.json" "$T/web.json"
  check_status 0
  id=$output
  run cri start "$id"
  check_status 2
  has_text "$msg"
  [[ $(grep -c -F -- "$msg" <<<"$output") -eq 1 ]]
  run cri rm "$id"
  check_status 0
}

# The containers of a pod join the sandbox's network namespace
# (/proc/PAUSE-PID/ns/net, whatever the pod's network mode).  Under agentrt
# that is the sandbox's own agent namespace, with only lo: agentrt sees it
# is another agentrt container's and lets the container share it, and the
# sandbox's proxy, whose connections go to the sandbox's audit trail.

# pod_egress NAME NETWORK-MODE: a pod whose annotation allowlists the test
# server, a container in it, and what an agent there can reach.
pod_egress ()
{
  local pod id
  pod_config "$1" "$2" "$(jq -n --arg ip "$SERVER_IP" '{"run.agentrt.egress.allow": $ip}')"
  pod=$(cri runp "$T/$1.json" agentrt) || return 1
  ctr_config "agent-$1" '["sleep", "1000"]'
  id=$(cri create "$pod" "$T/ctr-agent-$1.json" "$T/$1.json") || return 1
  cri start "$id" || return 1
  # the pod annotation reached the container (pod_annotations passthrough)
  jq -se --arg ip "$SERVER_IP" 'map(select(.event == "create"))[0].directives.egressAllow == $ip' \
    "$AUDIT_DIR/$id.jsonl" || return 1
  run cri exec "$id" 20 sh -c "$EGRESS_PROBE"
  egress_only_through_proxy
  jq -se '.[0].directives.network | .sharedAgentNamespace and .agent == "shared"' "$AUDIT_DIR/$id.jsonl"
  jq -se 'map(select(.event == "egress" and .decision == "allow")) | length == 1' \
    "$AUDIT_DIR/$pod.jsonl"
}

@test "CRI pod network: the allowlisted server is reached only through the proxy" {
  pod_egress bridged 0
  grep -qE "^${POD_SUBNET//./\\.}\.[0-9]+ .*\"GET / HTTP/1.1\" 200" "$T/server.log"
}

@test "CRI host-network pod: the allowlisted server is reached only through the proxy" {
  pod_egress hostnet 2
  grep -qE "^${ENGINE_IP//./\\.} .*\"GET / HTTP/1.1\" 200" "$T/server.log"
}

@test "CRI: pods stop and are removed; nothing is left behind" {
  for pod in $(cri pods); do
    run cri stopp "$pod"
    check_status 0
    run cri rmp "$pod"
    check_status 0
  done
  run cri pods
  [[ -z $output ]] || fail "pods left: $output"
  [[ -n $(agentrt_ids) ]]
  [[ -z $(ls -A "$T/containerd/state/io.containerd.grpc.v1.cri/netns" 2>/dev/null) ]] \
    || fail "pod network namespaces left: $(ls "$T/containerd/state/io.containerd.grpc.v1.cri/netns")"
  cri_cleanup >/dev/null 2>&1
  assert_no_leftovers "$CRI_ROOT"
}
