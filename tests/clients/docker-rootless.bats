#!/usr/bin/env bats
# Rootless Docker 20.10 drives agentrt: an ordinary user's dockerd, started
# by docker.io's contrib/dockerd-rootless.sh under Debian's rootlesskit,
# configured as docs/engines.md tells a user to (agentrt in
# ~/.config/docker/daemon.json, its policy through runtimeArgs; this
# hybrid-cgroup host has no delegated subtree: the test's admin policy says
# limits.unenforceable "allow").
#
# The file makes a throwaway user with /etc/subuid and /etc/subgid ranges
# and an XDG_RUNTIME_DIR under T; its dockerd keeps its data root in the
# user's home (~/.local/share/docker, the rootless default) and agentrt's
# trail goes to ~/.local/state/agentrt (the rootless default too).  rootlesskit makes the user's
# namespace (uid 0 mapped to the user, 1.. to its range) with mount and
# network namespaces of its own; dockerd and containerd run in them as uid
# 0 of that namespace, and so does agentrt.  rootlesskit's network is
# slirp4netns (the one rootless network Debian packages: no vpnkit; with
# --net=host dockerd cannot make its bridge in a namespace its user
# namespace does not own): slirp4netns opens /dev/net/tun as the user, so
# the device (0600 here) is widened only while the daemon starts and put
# back as soon as it answers.  dockerd-rootless.sh runs in the file's
# engine network namespace, so slirp4netns connects out from there to the
# test server.  Docker 20.10 passes no OCI annotations: the allowlist is a
# runtime entry of its own (as in docker.bats).  teardown_file removes the
# user, its home and its processes (by pid), restores /dev/net/tun's mode
# and undoes the world, whatever happened.

load helpers

IMAGE=art-busybox:test
DOCKER_CLI=/usr/bin/docker
DOCKERD_ROOTLESS=/usr/share/docker.io/contrib/dockerd-rootless.sh

setup_file ()
{
  clients_requires dockerd "$DOCKER_CLI" rootlesskit newuidmap newgidmap slirp4netns \
    useradd userdel setpriv
  [[ -x $DOCKERD_ROOTLESS ]] || skip "requires $DOCKERD_ROOTLESS (docker.io's contrib)"
  [[ -c /dev/net/tun ]] || skip "requires /dev/net/tun (rootlesskit's slirp4netns network)"
  clients_setup docker-rootless
  stat -c %a /dev/net/tun >"$T/tun-mode-at-start" || return 1
  rootless_user_setup agrt-dr || return 1
  # U: where the user's docker writes cid files
  export U=$T/u
  mkdir -p "$U" && chown "$RL_USER:" "$U" || return 1
  as_user test -x "$RUNTIME" || skip "the runtime $RUNTIME is not executable by an ordinary user"
  as_user test -r "$AGENTRT_TOP/seccomp-profiles/agent-default.json" \
    || skip "the source tree is not readable by an ordinary user"
  # the policy names no audit dir, as docs/engines.md's: agentrt, rootless
  # under the user's dockerd, keeps the trail in the user's home
  export AUDIT_DIR=$RL_HOME/.local/state/agentrt
  jq '.limits.unenforceable = "allow" | del(.audit)' "$POLICY" >"$POLICY.new" &&
    mv "$POLICY.new" "$POLICY" || return 1
  export POLICY_EGRESS=$T/policy-egress.json POLICY_STRICT=$T/policy-strict.json
  jq --arg ip "$SERVER_IP" '.egress.allow = [$ip]' "$POLICY" >"$POLICY_EGRESS"
  jq 'del(.limits)' "$POLICY" >"$POLICY_STRICT"
  chmod 0644 "$POLICY" "$POLICY_EGRESS" "$POLICY_STRICT" "$BUSYBOX_TAR"
  # what docs/engines.md gives a user to paste, and this file's runtimes
  # for the allowlist and the strict policy
  as_user mkdir -p "$RL_HOME/.config/docker"
  jq -n --arg rt "$RUNTIME" --arg p "$POLICY" --arg pe "$POLICY_EGRESS" --arg ps "$POLICY_STRICT" '{
      "runtimes": {
        "agentrt": {"path": $rt, "runtimeArgs": ["--policy", $p]},
        "agentrt-egress-test": {"path": $rt, "runtimeArgs": ["--policy", $pe]},
        "agentrt-strict": {"path": $rt, "runtimeArgs": ["--policy", $ps]}
      }}' | as_user tee "$RL_HOME/.config/docker/daemon.json" >/dev/null
  # exec-root $XDG_RUNTIME_DIR/docker: Docker gives every runtime its
  # runtime-runc/moby below it as --root
  export DOCKER_ROOT=$RL_XDG/docker/runtime-runc/moby
  export ENGINE_CLEANUP=docker_cleanup
  start_rootless_dockerd || return 1
  dk import "$BUSYBOX_TAR" "$IMAGE" >/dev/null
}

teardown_file ()
{
  # then rootlesskit, slirp4netns, containerd, shims, monitors, sidecars
  rootless_engine_teardown docker_cleanup
}

teardown ()
{
  restore_tun
}

# start_rootless_dockerd: dockerd-rootless.sh as the user, in the engine
# network namespace (its pid, rootlesskit's, in T/dockerd.pid), with
# /dev/net/tun usable by the user only until the daemon answers.
start_rootless_dockerd ()
{
  local rc=0
  widen_tun || return 1
  start_daemon dockerd "$T/dockerd.pid" setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups -- \
    env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME="$RL_HOME" \
    USER="$RL_USER" LOGNAME="$RL_USER" XDG_RUNTIME_DIR="$RL_XDG" \
    DOCKERD_ROOTLESS_ROOTLESSKIT_NET=slirp4netns "$DOCKERD_ROOTLESS"
  wait_until 300 dk version || rc=1
  restore_tun
  ((rc == 0)) || fail "rootless dockerd did not start: $(tail -n 20 "$T/dockerd.log")"
}

# dk ARGS...: the user's docker CLI, on its daemon's socket.
dk ()
{
  as_user env DOCKER_HOST="unix://$RL_XDG/docker.sock" timeout -k 5 60 "$DOCKER_CLI" "$@"
}

# urt ARGS...: agentrt as the user, on the state root its dockerd gives it.
urt ()
{
  as_user "$RUNTIME" --root "$DOCKER_ROOT" "$@"
}

docker_cleanup ()
{
  local ids
  ids=$(dk ps --all --quiet)
  [[ -z $ids ]] || dk rm --force $ids
  stop_pid "$T/dockerd.pid"
}

# user_procs: the processes of the user and of its range.
user_procs ()
{
  ps -e -o pid=,uid=,stat=,args= | awk -v u="$RL_UID" -v s="$RL_SUBUID" '$2 == u || ($2 >= s && $2 < s + 65536)'
}

no_user_procs ()
{
  [[ -z $(user_procs) ]]
}

logged ()
{
  dk logs "$1" 2>&1 | grep -qxF -- "$2"
}

has_status ()
{
  [[ $(dk inspect --format '{{.State.Status}}' "$1") == "$2" ]]
}

@test "rootless docker run --runtime agentrt: hardened, root of the user's namespace only" {
  run dk run --rm --pull never --runtime agentrt --network none --cidfile "$U/cid.1" \
    -e GITHUB_TOKEN=ghp_not-a-real-token-0123456789 "$IMAGE" sh -c '
    id; cat /proc/self/uid_map
    grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status
    ip -o link | cut -d: -f2
    echo "token=${GITHUB_TOKEN:-none}"
    echo "proxy=$HTTP_PROXY"
    touch /root-is-writable 2>/dev/null && echo root-writable || echo root-read-only
    exit 3'
  check_status 3
  has_line "uid=0(root) gid=0(root) groups=0(root)"
  # uid 0 is the user on the host, the rest its subordinate range
  [[ $(grep -E '^ +0 ' <<<"$output" | tr -s ' ') == " 0 $RL_UID 1" ]] || fail "$output"
  has_line $'NoNewPrivs:\t1'
  has_line $'Seccomp:\t2'
  has_line " lo"
  has_line token=none
  has_line "proxy=http://127.0.0.1:3128"
  has_line root-read-only
  id=$(<"$U/cid.1")
  assert_hardened "$id"
  [[ $(audit_exit_status "$id") == 3 ]]
  # `agentrt audit` as the user, with the daemon's --root and policy: the
  # trail is the user's, and says what was done
  run urt --policy "$POLICY" audit "$id"
  check_status 0
  jq -se 'map(select(.event == "create"))[0] | .hardened == true
      and any(.changes[]; .kind == "env-removed" and .what == "GITHUB_TOKEN")
      and any(.changes[]; .kind == "namespace" and .what == "no user namespace of agentrt'"'"'s")' \
      <<<"$output" >/dev/null \
    || fail "$output"
  [[ $(stat -c %u "$AUDIT_DIR/$id.jsonl") == "$RL_UID" ]]
  # nothing went to root's state root or trail
  [[ ! -e /run/agentrt/$id && ! -e /run/docker/runtime-runc/moby/$id ]]
  [[ ! -e /var/log/agentrt/$id.jsonl ]]

  # the control: runc, through the same dockerd, leaves it all open
  run dk run --rm --pull never --runtime runc --network none \
    -e GITHUB_TOKEN=ghp_not-a-real-token-0123456789 "$IMAGE" sh -c '
    grep -E "^NoNewPrivs:" /proc/self/status
    echo "token=${GITHUB_TOKEN:-none}"
    touch /root-is-writable 2>/dev/null && echo root-writable || echo root-read-only'
  check_status 0
  has_line $'NoNewPrivs:\t0'
  has_line token=ghp_not-a-real-token-0123456789
  has_line root-writable
}

@test "rootless docker run -d, exec, top, logs, kill, rm" {
  dk run -d --pull never --runtime agentrt --network none --name worker "$IMAGE" \
    sh -c 'trap "echo got-usr1" USR1; echo ready; while sleep 0.2; do :; done'
  wait_until 50 logged worker ready
  id=$(dk inspect --format '{{.Id}}' worker)
  # agentrt's state is under the user's XDG_RUNTIME_DIR, where dockerd's
  # --root says, and says running
  [[ -d $DOCKER_ROOT/$id ]] || fail "no state in $DOCKER_ROOT"
  run urt state "$id"
  check_status 0
  [[ $(jq -r .status <<<"$output") == running ]] || fail "$output"
  init=$(jq -r .pid <<<"$output")
  [[ $(host_uid "$init") == "$RL_UID" ]] || fail "the init is not the user's on the host"
  [[ $(dk inspect --format '{{.State.Pid}}' worker) == "$init" ]]
  # the sidecar (it starts on the agent's first connection): the policy's
  # uid 65534 as the user's namespace maps it, outside the agent's
  # network namespace
  dk exec worker busybox nc -w 1 127.0.0.1 3128 </dev/null >/dev/null 2>&1 || true
  wait_until 50 pgrep -f -- "agentrt-egress --id $id"
  sidecar=$(pgrep -f -- "agentrt-egress --id $id")
  [[ -n $sidecar ]] || fail "no sidecar for $id"
  [[ $(host_uid "$sidecar") == $((RL_SUBUID + 65533)) ]] \
    || fail "sidecar runs as host uid $(host_uid "$sidecar")"
  [[ $(readlink "/proc/$sidecar/ns/net") != "$(readlink "/proc/$init/ns/net")" ]]

  exec_confined dk worker
  jq -se 'map(select(.event == "exec")) | length > 0' "$AUDIT_DIR/$id.jsonl"
  run dk top worker
  check_status 0
  [[ $output == *"sleep"* ]] || fail "$output"
  [[ $output != *agentrt* ]] || fail "$output"

  run dk kill --signal USR1 worker
  check_status 0
  wait_until 50 logged worker got-usr1
  has_status worker running
  run dk kill worker
  check_status 0
  wait_until 50 has_status worker exited
  run dk inspect --format '{{.State.ExitCode}}' worker
  has_line 137
  run dk logs worker
  has_line ready
  has_line got-usr1
  [[ $(jq -rs 'map(select(.event == "exit"))[-1].signal' "$AUDIT_DIR/$id.jsonl") == 9 ]]
  run dk rm worker
  check_status 0
  [[ ! -e $DOCKER_ROOT/$id ]] || fail "agentrt still has $id"
  run urt list -q
  check_status 0
  [[ $output != *"$id"* ]] || fail "$output"
}

# script(1) starts $SHELL -c: pinned, as in docker.bats; typed input comes
# from a file (script(1) of util-linux 2.38 may exit 0 whatever the
# command's status when its input is a pipe)
@test "rootless docker run -it: a terminal through the shim" {
  run as_user env SHELL=/bin/sh DOCKER_HOST="unix://$RL_XDG/docker.sock" script -qec \
    "timeout --foreground 60 $DOCKER_CLI run --rm -it --pull never --runtime agentrt --network none $IMAGE sh -c 'tty; test -t 0 && echo stdin-is-a-tty; exit 5'" \
    /dev/null </dev/null
  check_status 5
  has_text /dev/pts/0
  has_text stdin-is-a-tty
  printf 'echo typed-$((6 * 7))\nexit 7\n' >"$U/tty.in"
  run as_user env SHELL=/bin/sh DOCKER_HOST="unix://$RL_XDG/docker.sock" script -qec \
    "timeout --foreground 60 $DOCKER_CLI run --rm -it --pull never --runtime agentrt --network none $IMAGE sh" \
    /dev/null <"$U/tty.in"
  check_status 7
  has_text typed-42
}

@test "rootless docker exec -u, stop, start; pause refused without a cgroup" {
  dk run -d --pull never --runtime agentrt --network none --name worker2 "$IMAGE" \
    sh -c 'trap "echo got-term; exit 3" TERM; echo ready; sleep 1000 & wait'
  wait_until 50 logged worker2 ready
  id=$(dk inspect --format '{{.Id}}' worker2)
  # a user of the image: its uid 1000 is the range's on the host
  run dk exec -u 1000:1000 worker2 id -u
  check_status 0
  has_line 1000
  dk exec -d -u 1000:1000 worker2 sleep 31
  wait_until 50 pgrep -u "$((RL_SUBUID + 999))" -x sleep
  [[ $(pgrep -u "$((RL_SUBUID + 999))" -x sleep) =~ ^[0-9]+$ ]] || fail "no sleep as host uid $((RL_SUBUID + 999))"
  run dk stop --time 10 worker2
  check_status 0
  run dk inspect --format '{{.State.Status}} {{.State.ExitCode}}' worker2
  has_line "exited 3"
  [[ $(audit_exit_status "$id") == 3 ]]
  run dk start worker2
  check_status 0
  wait_until 50 sh -c "[ \$(DOCKER_HOST=unix://$RL_XDG/docker.sock $DOCKER_CLI logs worker2 2>&1 | grep -c '^ready\$') = 2 ]"
  has_status worker2 running
  run urt state "$id"
  check_status 0
  [[ $(jq -r .status <<<"$output") == running ]] || fail "$output"
  # no cgroup the user may freeze on this host: refused, saying so, and
  # the container keeps running
  run dk pause worker2
  if [[ -z $(jq -r '.cgroupPath // empty' "$DOCKER_ROOT/$id/state.json") ]]; then
    ((status != 0)) || fail "pause succeeded without a cgroup: $output"
    has_text "pause: container \`$id\` has no cgroup to freeze"
    has_status worker2 running
  else
    check_status 0
    has_status worker2 paused
    run dk unpause worker2
    check_status 0
  fi
  run dk rm --force worker2
  check_status 0
  [[ ! -e $DOCKER_ROOT/$id ]] || fail "agentrt still has $id"
}

@test "rootless docker default bridge (slirp4netns): the allowlisted server is reached only through the sidecar (proxy or transparent)" {
  # slirp4netns holds the device it opened at the daemon's start: the
  # user needs /dev/net/tun no longer
  [[ $(stat -c %a /dev/net/tun) == "$(<"$T/tun-mode-at-start")" ]]
  run dk run --rm --pull never --runtime agentrt-egress-test --cidfile "$U/cid.net" \
    "$IMAGE" sh -c "$EGRESS_PROBE"
  egress_only_through_sidecar
  id=$(<"$U/cid.net")
  # the proxy connected out of rootlesskit's namespace through slirp4netns:
  # the server saw the engine namespace's address, where slirp4netns runs
  grep -qE "^$ENGINE_IP .*\"GET / HTTP/1.1\" 200" "$T/server.log" \
    || fail "server log: $(cat "$T/server.log")"
  jq -se --arg ip "$SERVER_IP" 'map(select(.event == "egress" and .addr == $ip
      and .decision == "allow" and .reason == "ok")) | length == 2' "$AUDIT_DIR/$id.jsonl"
  jq -se 'map(select(.event == "egress" and .decision == "deny")) | length == 2' "$AUDIT_DIR/$id.jsonl"
  # without the allowlist (the plain agentrt runtime) the proxy refuses
  run dk run --rm --pull never --runtime agentrt "$IMAGE" wget -q -O- "http://$SERVER_IP/"
  check_status 1
  has_text "403 Forbidden"
  # the control: runc, on the same bridge, reaches the server directly
  run dk run --rm --pull never --runtime runc "$IMAGE" sh -c "echo | nc -w 2 $SERVER_IP 80; echo direct=\$?"
  check_status 0
  has_line direct=0
}

@test "rootless docker --network none: no way out, not even through the sidecar" {
  run dk run --rm --pull never --runtime agentrt-egress-test --network none --cidfile "$U/cid.none" \
    "$IMAGE" sh -c "$NO_WAY_OUT_PROBE"
  no_way_out "$AUDIT_DIR/$(<"$U/cid.none").jsonl"
}

@test "rootless docker: limits no cgroup can enforce fail the create unless the admin allows it; Docker shows agentrt's message" {
  run dk run --rm --pull never --runtime agentrt-strict --network none "$IMAGE" true
  check_status 125
  has_text "linux.resources.pids, linux.resources.memory: cannot be enforced as uid 0 of a user namespace (uid $RL_UID outside it)"
  has_text 'limits.unenforceable "allow"'
  run dk ps --all --quiet
  [[ -z $output ]] || fail "a container was left: $output"
}

@test "rootless docker: nothing is left behind" {
  run dk ps --all --quiet
  [[ -z $output ]] || fail "containers left: $output"
  [[ -n $(agentrt_ids) ]]
  run dk rmi "$IMAGE"
  check_status 0
  stop_pid "$T/dockerd.pid"
  # the daemon's helpers went with it: nothing runs as the user or its
  # range (a shim orphaned by containerd's exit may be a zombie until this
  # machine's init reaps it: a few seconds)
  wait_until 100 no_user_procs
  left=$(user_procs)
  [[ -z $left ]] || fail "left running: $left"
  [[ -z $(ls -A "$DOCKER_ROOT" | grep -v '^\.') ]] || fail "state left: $(ls -A "$DOCKER_ROOT")"
  [[ ! -e $T/tun-mode && $(stat -c %a /dev/net/tun) == "$(<"$T/tun-mode-at-start")" ]] \
    || fail "/dev/net/tun left mode $(stat -c %a /dev/net/tun), was $(<"$T/tun-mode-at-start")"
  assert_no_leftovers "$DOCKER_ROOT"
}
