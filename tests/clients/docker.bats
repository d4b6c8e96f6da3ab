#!/usr/bin/env bats
# Docker 20.10 drives agentrt: the file's own dockerd (in the engine
# network namespace, with its own data-root, exec-root, pidfile, socket and
# trust key, iptables off) has `runtimes` entries for agentrt whose
# runtimeArgs give agentrt its --policy, and containers run with
# `docker run --runtime agentrt`.
#
# Docker 20.10 cannot pass OCI annotations (`--annotation` came with
# Docker 24, API 1.43; labels never reach the runtime), so a per-container
# egress allowlist is a runtime entry of its own whose policy lists it
# (`agentrt-egress-test` below): that is what the docs recommend too.

load helpers

IMAGE=art-busybox:test
# the docker CLI of docker.io (20.10), whatever else is on PATH
DOCKER_CLI=/usr/bin/docker

setup_file ()
{
  clients_requires dockerd "$DOCKER_CLI"
  clients_setup docker
  local d=$T/docker
  mkdir -p "$d/cli"
  export DOCKER_HOST=unix://$d/docker.sock DOCKER_CONFIG=$d/cli
  export DOCKER_ROOT=$d/exec/runtime-runc/moby
  export POLICY_EGRESS=$T/policy-egress.json
  jq --arg ip "$SERVER_IP" '.egress.allow = [$ip]' "$POLICY" >"$POLICY_EGRESS"
  jq -n --arg d "$d" --arg rt "$RUNTIME" --arg p "$POLICY" --arg pe "$POLICY_EGRESS" \
    --arg cg "/$CG_PARENT" '{
      "data-root": "\($d)/data", "exec-root": "\($d)/exec",
      "pidfile": "\($d)/docker.pid", "hosts": ["unix://\($d)/docker.sock"],
      "deprecated-key-path": "\($d)/key.json",
      "iptables": false, "ip-masq": false, "storage-driver": "overlay2",
      "exec-opts": ["native.cgroupdriver=cgroupfs"], "cgroup-parent": $cg,
      "log-driver": "json-file",
      "runtimes": {
        "agentrt": {"path": $rt, "runtimeArgs": ["--policy", $p]},
        "agentrt-egress-test": {"path": $rt, "runtimeArgs": ["--policy", $pe]}
      }}' >"$d/daemon.json"
  export ENGINE_CLEANUP=docker_cleanup
  start_daemon dockerd "$T/dockerd.pid" dockerd --config-file "$d/daemon.json"
  wait_until 300 dk version || return 1
  dk import "$BUSYBOX_TAR" "$IMAGE" >/dev/null
}

teardown_file ()
{
  clients_teardown
}

dk ()
{
  timeout -k 5 60 "$DOCKER_CLI" "$@"
}

docker_cleanup ()
{
  local ids
  ids=$(dk ps --all --quiet)
  [[ -z $ids ]] || dk rm --force $ids
  stop_pid "$T/dockerd.pid"
}

# host_cgroup NAME CONTROLLER: the container's v1 cgroup directory.
host_cgroup ()
{
  local pid
  pid=$(dk inspect --format '{{.State.Pid}}' "$1") || return 1
  awk -F: -v c="$2" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print "/sys/fs/cgroup/" c $3 }' \
    "/proc/$pid/cgroup"
}

logged ()
{
  dk logs "$1" 2>&1 | grep -qxF -- "$2"
}

@test "docker run --runtime agentrt: output and exit status come back, hardened" {
  run dk run --runtime agentrt --name one "$IMAGE" sh -c 'echo hello; echo oops >&2; exit 3'
  check_status 3
  has_line hello
  has_line oops
  id=$(dk inspect --format '{{.Id}}' one)
  [[ $(dk inspect --format '{{.HostConfig.Runtime}}' one) == agentrt ]]
  assert_hardened "$id"
  [[ $(audit_exit_status "$id") == 3 ]]
  run dk rm one
  check_status 0
  [[ ! -e $DOCKER_ROOT/$id ]]
  # --rm
  run dk run --rm --runtime agentrt "$IMAGE" sh -c 'cat /proc/self/status'
  check_status 0
  has_line $'NoNewPrivs:\t1'
  has_line $'Seccomp:\t2'
}

@test "docker run --privileged --runtime agentrt starts, hardened: no writable kernel setting, no host device" {
  run dk run --privileged --runtime agentrt --name priv "$IMAGE" sh -c "$PRIVILEGED_CHECKS"
  check_status 0
  assert_privileged_hardened "$(dk inspect --format '{{.Id}}' priv)"
  dk rm priv
}

# script(1) starts $SHELL -c: pinned, so that CI (dash) and a bash login
# here run the client alike (see tty_run in podman.bats)
@test "docker run with agentrt's own user namespace (userns.mode auto): the overlay2 root idmapped, the agent's root not the host's" {
  run with_userns_auto dk run --rm --runtime agentrt "$IMAGE" sh -c "$OWN_USERNS_PROBE"
  check_status 0
  assert_own_userns
}

@test "docker run -it: a terminal through the shim" {
  run env SHELL=/bin/sh script -qec "$DOCKER_CLI run --rm -it --runtime agentrt $IMAGE sh -c 'tty; test -t 0 && echo stdin-is-a-tty; exit 5'" /dev/null </dev/null
  check_status 5
  has_text /dev/pts/0
  has_text stdin-is-a-tty
  # typed input comes from a file: script(1) of util-linux 2.38 sometimes
  # exits 0 whatever the command's status when its input is a pipe
  printf 'echo typed-$((6 * 7))\nexit 7\n' >"$T/tty.in"
  run env SHELL=/bin/sh script -qec "$DOCKER_CLI run --rm -it --runtime agentrt $IMAGE sh" /dev/null <"$T/tty.in"
  check_status 7
  has_text typed-42
}

@test "docker run -d, exec, top, stop, start, rm" {
  dk run -d --runtime agentrt --name worker "$IMAGE" \
    sh -c 'trap "echo got-term; exit 3" TERM; echo ready; sleep 1000 & wait'
  wait_until 50 logged worker ready
  id=$(dk inspect --format '{{.Id}}' worker)
  run "$RUNTIME" --root "$DOCKER_ROOT" state "$id"
  check_status 0
  [[ $(jq -r .status <<<"$output") == running ]]

  run dk exec worker sh -c 'echo in-exec; echo exec-err >&2; exit 4'
  check_status 4
  has_line in-exec
  has_line exec-err

  # top lists the container's processes (agentrt ps), and only them
  pid=$(dk inspect --format '{{.State.Pid}}' worker)
  run dk top worker
  check_status 0
  awk 'NR > 1 { print $2 }' <<<"$output" | grep -qx "$pid"
  has_text 'trap "echo got-term; exit 3" TERM'
  has_text 'sleep 1000'
  [[ $output != *agentrt* ]]
  [[ $(awk 'NR > 1 { print $2 }' <<<"$output" | sort -n) == \
    "$(sort -n "$(host_cgroup worker pids)/cgroup.procs")" ]]

  run dk stop --time 10 worker
  check_status 0
  run dk inspect --format '{{.State.Status}} {{.State.ExitCode}}' worker
  has_line "exited 3"
  run dk logs worker
  has_line got-term
  [[ $(audit_exit_status "$id") == 3 ]]

  run dk start worker
  check_status 0
  wait_until 50 sh -c "[ \$($DOCKER_CLI logs worker 2>&1 | grep -c '^ready\$') = 2 ]"
  run dk inspect --format '{{.State.Status}}' worker
  has_line running
  run dk rm --force worker
  check_status 0
  [[ ! -e $DOCKER_ROOT/$id ]]
}

@test "docker pause and unpause" {
  dk run -d --runtime agentrt --name sleeper "$IMAGE" sleep 1000
  id=$(dk inspect --format '{{.Id}}' sleeper)
  run dk pause sleeper
  check_status 0
  run dk inspect --format '{{.State.Status}} {{.State.Paused}}' sleeper
  has_line "paused true"
  [[ $(<"$(host_cgroup sleeper freezer)/freezer.state") == FROZEN ]]
  [[ $("$RUNTIME" --root "$DOCKER_ROOT" state "$id" | jq -r .status) == paused ]]
  run dk unpause sleeper
  check_status 0
  run dk inspect --format '{{.State.Status}}' sleeper
  has_line running
  [[ $(<"$(host_cgroup sleeper freezer)/freezer.state") == THAWED ]]
  # a paused container is removed by force
  dk run -d --runtime agentrt --name frozen "$IMAGE" sleep 1000
  id=$(dk inspect --format '{{.Id}}' frozen)
  run dk pause frozen
  check_status 0
  run dk rm --force frozen
  check_status 0
  [[ ! -e $DOCKER_ROOT/$id ]] || fail "agentrt still has $id"
}

@test "docker update changes the container's limits" {
  run dk update --memory 64m --memory-swap 64m --pids-limit 99 --cpu-shares 512 sleeper
  check_status 0
  [[ $(<"$(host_cgroup sleeper memory)/memory.limit_in_bytes") == 67108864 ]]
  [[ $(<"$(host_cgroup sleeper pids)/pids.max") == 99 ]]
  [[ $(<"$(host_cgroup sleeper cpu)/cpu.shares") == 512 ]]
  run dk rm --force sleeper
  check_status 0
}

@test "docker default bridge: the allowlisted server is reached only through the sidecar (proxy or transparent)" {
  run dk run --rm --cidfile "$T/cid.net" --runtime agentrt-egress-test "$IMAGE" sh -c "$EGRESS_PROBE"
  egress_only_through_sidecar
  id=$(<"$T/cid.net")
  # the proxy connected from an address on docker0 (in the namespace
  # libnetwork's hook set up), and the audit trail says so
  subnet=$(dk network inspect bridge --format '{{(index .IPAM.Config 0).Subnet}}')
  [[ $subnet == 172.17.0.0/16 ]]
  grep -qE '^172\.17\.[0-9]+\.[0-9]+ .*"GET / HTTP/1.1" 200' "$T/server.log"
  jq -se --arg ip "$SERVER_IP" 'map(select(.event == "egress" and .addr == $ip
      and .decision == "allow")) | length == 2' "$AUDIT_DIR/$id.jsonl"
  # without the allowlist (the plain agentrt runtime) the proxy refuses
  run dk run --rm --runtime agentrt "$IMAGE" wget -q -O- "http://$SERVER_IP/"
  check_status 1
  has_text "403 Forbidden"
}

@test "docker shows agentrt's own message when agentrt fails" {
  bad_mount_source
  msg=$(agentrt_failure_message)
  run dk run --rm --runtime agentrt -v "$BAD_MOUNT_SRC:/etc" "$IMAGE" true
  check_status 125
  has_text "$msg"
  [[ $(grep -c -F -- "$msg" <<<"$output") -eq 1 ]]
}

@test "docker: nothing is left behind" {
  run dk ps --all --quiet
  [[ -z $output ]] || fail "containers left: $output"
  [[ -n $(agentrt_ids) ]]
  run dk rmi "$IMAGE"
  check_status 0
  stop_pid "$T/dockerd.pid"
  assert_no_leftovers "$DOCKER_ROOT"
}
