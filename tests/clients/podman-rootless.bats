#!/usr/bin/env bats
# Rootless Podman 4.3 drives agentrt: an ordinary user's `podman --runtime
# agentrt`, configured as docs/engines.md tells a user to (the runtime in
# ~/.config/containers/containers.conf), with the policy given by
# `--runtime-flag policy=FILE` (this hybrid-cgroup host has no delegated
# subtree: the test's admin policy says limits.unenforceable "allow").
#
# The file makes a throwaway user with /etc/subuid and /etc/subgid ranges,
# XDG_RUNTIME_DIR under T, and imports a busybox image into its storage
# (no registry: --pull=never everywhere).  Podman runs agentrt as root of
# the user's namespace (uid 0 mapped to the user, 1.. to its range): the
# runtime must see that it is not root of the host.  Every podman command
# runs in the file's engine network namespace, so that slirp4netns (the
# default network of rootless Podman 4.3) connects out from there to the
# test server.  teardown_file removes the user, its storage and its
# processes, restores /dev/net/tun's mode and undoes the world, whatever
# happened.

load helpers

IMAGE=localhost/art-busybox:test

setup_file ()
{
  clients_requires podman conmon newuidmap newgidmap slirp4netns useradd userdel setpriv
  clients_setup podman-rootless
  rootless_user_setup agrt-pr || return 1
  # U: where its podman writes cid files
  export U=$T/u
  mkdir -p "$U" && chown "$RL_USER:" "$U" "$AUDIT_DIR"
  # the user reaches the runtime, the policy, the image and its audit dir
  chmod 0644 "$POLICY" "$BUSYBOX_TAR"
  jq '.limits.unenforceable = "allow"' "$POLICY" >"$POLICY.new" && mv "$POLICY.new" "$POLICY"
  chmod 0644 "$POLICY"
  as_user test -x "$RUNTIME" || skip "the runtime $RUNTIME is not executable by an ordinary user"
  as_user test -r "$AGENTRT_TOP/seccomp-profiles/agent-default.json" \
    || skip "the source tree is not readable by an ordinary user"
  # what docs/engines.md gives a user to paste, and this file's own
  # settings (no journald here; the image is only local)
  as_user mkdir -p "$RL_HOME/.config/containers"
  as_user tee "$RL_HOME/.config/containers/containers.conf" >/dev/null <<EOF
[engine]
runtime = "agentrt"
runtime_supports_json = ["crun", "runc", "kata", "runsc", "krun", "agentrt"]
events_logger = "file"

[engine.runtimes]
agentrt = ["$RUNTIME"]
EOF
  echo 'unqualified-search-registries = []' | as_user tee "$RL_HOME/.config/containers/registries.conf" >/dev/null
  export ENGINE_CLEANUP=rootless_cleanup
  upm import "$BUSYBOX_TAR" "$IMAGE" >/dev/null
}

teardown_file ()
{
  # then its pause process, slirp4netns, conmons
  rootless_engine_teardown rootless_cleanup
}

teardown ()
{
  restore_tun
}

# upm ARGS...: the user's podman (its containers.conf names agentrt),
# with the test's policy.
upm ()
{
  as_user timeout -k 5 60 podman --runtime-flag "policy=$POLICY" "$@"
}

# rootless_cleanup: the containers, the image, and Podman's pause process
# (it holds the user's namespace between podman commands).
# rpm ARGS...: the control, the same podman with runc.
rpm ()
{
  as_user timeout -k 5 60 podman --runtime runc "$@"
}

rootless_cleanup ()
{
  upm rm --all --force --time 0
  upm rmi --all --force
  stop_pid "$RL_XDG/libpod/tmp/pause.pid"
}

logged ()
{
  upm logs "$1" 2>&1 | grep -qxF -- "$2"
}

has_status ()
{
  [[ $(upm inspect --format '{{.State.Status}}' "$1") == "$2" ]]
}

@test "rootless podman run: hardened under agentrt, root of the user's namespace only" {
  run upm run --rm --pull=never --network none --cidfile "$U/cid.1" "$IMAGE" sh -c '
    id -u; cat /proc/self/uid_map
    grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status
    ip -o link | cut -d: -f2
    echo "proxy=$HTTP_PROXY"
    touch /root-is-writable 2>/dev/null && echo root-writable || echo root-read-only
    exit 3'
  check_status 3
  has_line 0
  # uid 0 is the user on the host, the rest its subordinate range
  [[ $(grep -E '^ +0 ' <<<"$output" | tr -s ' ') == " 0 $RL_UID 1" ]] || fail "$output"
  has_line $'NoNewPrivs:\t1'
  has_line $'Seccomp:\t2'
  has_line " lo"
  has_line "proxy=http://127.0.0.1:3128"
  has_line root-read-only
  id=$(<"$U/cid.1")
  assert_hardened "$id"
  [[ $(audit_exit_status "$id") == 3 ]]
  # the trail is the user's; nothing went to root's state root
  [[ $(stat -c %u "$AUDIT_DIR/$id.jsonl") == "$RL_UID" ]]
  [[ ! -e /run/agentrt/$id ]]

  # the control: runc, through the same podman, leaves it all open
  run rpm run --rm --pull=never --network none "$IMAGE" sh -c '
    grep -E "^NoNewPrivs:" /proc/self/status
    touch /root-is-writable 2>/dev/null && echo root-writable || echo root-read-only'
  check_status 0
  has_line $'NoNewPrivs:\t0'
  has_line root-writable
}

@test "rootless podman run -d, exec, ps, logs, kill, rm" {
  upm run -d --pull=never --network none --name worker "$IMAGE" \
    sh -c 'trap "echo got-usr1" USR1; trap "echo got-hup; exit 9" HUP; echo ready; while sleep 0.2; do :; done'
  wait_until 50 logged worker ready
  id=$(upm inspect --format '{{.Id}}' worker)
  run upm ps --format '{{.Names}} {{.Status}}'
  check_status 0
  [[ $output == *"worker Up"* ]] || fail "$output"
  # agentrt's state is in the user's XDG_RUNTIME_DIR, and says running
  [[ -d $RL_XDG/agentrt/$id ]] || fail "no state in $RL_XDG/agentrt"
  [[ ! -e /run/agentrt/$id ]]
  run as_user "$RUNTIME" --root "$RL_XDG/agentrt" state "$id"
  check_status 0
  [[ $(jq -r .status <<<"$output") == running ]] || fail "$output"
  init=$(jq -r .pid <<<"$output")
  [[ $(host_uid "$init") == "$RL_UID" ]] || fail "the init is not the user's on the host"
  # the sidecar: the policy's uid 65534 as the user's namespace maps it
  # (neither root nor the user), outside the agent's network namespace
  # it starts on the agent's first connection
  upm exec worker busybox nc -w 1 127.0.0.1 3128 </dev/null >/dev/null 2>&1 || true
  wait_until 50 pgrep -f -- "agentrt-egress --id $id"
  sidecar=$(pgrep -f -- "agentrt-egress --id $id")
  [[ -n $sidecar ]] || fail "no sidecar for $id"
  [[ $(host_uid "$sidecar") == $((RL_SUBUID + 65533)) ]] \
    || fail "sidecar runs as host uid $(host_uid "$sidecar")"
  [[ $(readlink "/proc/$sidecar/ns/net") != "$(readlink "/proc/$init/ns/net")" ]]

  exec_confined upm worker
  jq -se 'map(select(.event == "exec")) | length > 0' "$AUDIT_DIR/$id.jsonl"
  run upm top worker pid args
  check_status 0
  [[ $output == *"sleep"* ]] || fail "$output"

  run upm kill --signal USR1 worker
  check_status 0
  wait_until 50 logged worker got-usr1
  has_status worker running
  run upm kill --signal HUP worker
  check_status 0
  wait_until 50 has_status worker exited
  run upm inspect --format '{{.State.ExitCode}}' worker
  has_line 9
  run upm logs worker
  has_line ready
  has_line got-hup
  run upm rm worker
  check_status 0
  [[ ! -e $RL_XDG/agentrt/$id ]] || fail "agentrt still has $id"
  [[ $(audit_exit_status "$id") == 9 ]]
}

@test "rootless podman pause: a cgroup the user may freeze, else a clear refusal" {
  upm run -d --pull=never --network none --name sleeper "$IMAGE" sleep 1000
  id=$(upm inspect --format '{{.Id}}' sleeper)
  run upm pause sleeper
  cg=$(jq -r '.cgroupPath // empty' "$RL_XDG/agentrt/$id/state.json")
  if [[ -z $cg ]]; then
    # no cgroup the user may write (this hybrid host: v1 hierarchies are
    # root's): Podman refuses, and so does agentrt, saying why
    ((status != 0)) || fail "pause succeeded without a cgroup: $output"
    has_text "cgroup"
    run as_user "$RUNTIME" --root "$RL_XDG/agentrt" pause "$id"
    ((status != 0)) || fail "agentrt paused a container without a cgroup: $output"
    has_text "pause: container \`$id\` has no cgroup to freeze"
    has_status sleeper running
  else
    # a delegated cgroup v2 subtree (the VM): frozen and thawed
    check_status 0
    has_status sleeper paused
    run upm unpause sleeper
    check_status 0
    has_status sleeper running
  fi
  run upm rm --force --time 0 sleeper
  check_status 0
}

@test "rootless podman, slirp4netns: the allowlisted server is reached only through the sidecar (proxy or transparent)" {
  widen_tun
  run upm run --rm --pull=never --cidfile "$U/cid.net" \
    --annotation "run.agentrt.egress.allow=$SERVER_IP" "$IMAGE" sh -c "$EGRESS_PROBE"
  egress_only_through_sidecar
  id=$(<"$U/cid.net")
  # the proxy connected out of slirp4netns's namespace: the server saw
  # the engine namespace's address, where slirp4netns runs
  grep -qE "^$ENGINE_IP .*\"GET / HTTP/1.1\" 200" "$T/server.log" \
    || fail "server log: $(cat "$T/server.log")"
  # the proxy's request and the transparent connection, each allowed; the
  # other address refused both ways
  jq -se --arg ip "$SERVER_IP" 'map(select(.event == "egress" and .addr == $ip
      and .decision == "allow" and .reason == "ok")) | length == 2' "$AUDIT_DIR/$id.jsonl"
  jq -se --arg ip "$SERVER_IP" 'any(.[]; .event == "egress" and .addr == $ip and .via == "addr")' \
    "$AUDIT_DIR/$id.jsonl"
  jq -se 'map(select(.event == "egress" and .decision == "deny")) | length == 2' "$AUDIT_DIR/$id.jsonl"
  # the control: runc, on the same network, reaches the server directly
  run rpm run --rm --pull=never "$IMAGE" sh -c "echo | nc -w 2 $SERVER_IP 80; echo direct=\$?"
  check_status 0
  has_line direct=0
}

@test "rootless podman --network none: no way out, not even through the sidecar (proxy or transparent)" {
  # a direct connection is accepted by the sidecar's transparent listener
  # and closed when its own connect fails: no line comes back
  run upm run --rm --pull=never --network none --cidfile "$U/cid.none" \
    --annotation "run.agentrt.egress.allow=$SERVER_IP" "$IMAGE" sh -c "$NO_WAY_OUT_PROBE"
  no_way_out "$AUDIT_DIR/$(<"$U/cid.none").jsonl"
}

@test "rootless podman: limits no cgroup can enforce fail the create unless the admin allows it" {
  jq 'del(.limits)' "$POLICY" >"$T/strict.json" && chmod 0644 "$T/strict.json"
  run as_user timeout -k 5 60 podman --runtime-flag "policy=$T/strict.json" \
    run --rm --pull=never --network none "$IMAGE" true
  ((status != 0)) || fail "ran without its limits: $output"
  has_text "linux.resources.pids, linux.resources.memory: cannot be enforced as uid 0 of a user namespace (uid $RL_UID outside it)"
  has_text 'limits.unenforceable "allow"'
}

@test "rootless podman: nothing is left behind" {
  run upm ps --all --quiet
  [[ -z $output ]] || fail "containers left: $output"
  rootless_cleanup >/dev/null 2>&1
  [[ -n $(agentrt_ids) ]]
  run ls -A "$RL_XDG/agentrt"
  [[ -z $(ls -A "$RL_XDG/agentrt" | grep -v '^\.') ]] || fail "state left: $output"
  # no monitor or sidecar of a container is left (podman's own pause
  # process stays until the user is removed)
  run pgrep -a -u "$RL_USER,$((RL_SUBUID + 65533))" -f 'agentrt'
  [[ -z $output ]] || fail "left: $output"
  assert_no_leftovers "$RL_XDG/agentrt"
}
