#!/usr/bin/env bats
# rootless: agentrt run by an ordinary user, as runc and crun are.  The
# file makes a throwaway user with /etc/subuid and /etc/subgid ranges
# (setup_file; removed in teardown_file whatever happened) and runs
# `agentrt spec --rootless` bundles as that user (setpriv) with the
# hardening on: the lifecycle (run, create, start, state, exec, ps, kill,
# delete), the hardening (environment scrubbed, read-only root,
# no_new_privs, seccomp, no network but the proxy, the sidecar as the
# user and locked down) with runc as the control where the attack must
# work, the XDG defaults, the user's own policy (it may only tighten),
# limits no cgroup can enforce, and id ranges through newuidmap.  On this
# hybrid-cgroup host no cgroup can be delegated: the hardened policy says
# limits.unenforceable "allow" except where the refusal is the point.

load helpers
load helpers/hardening
load helpers/fault

setup_file ()
{
  [[ $EUID -eq 0 ]] || return 0
  command -v useradd >/dev/null && command -v setpriv >/dev/null || return 0
  printf -v RL_USER 'agrt-rl-%x' "$$"
  export RL_USER
  useradd -m -s /bin/sh -K SUB_UID_COUNT=65536 -K SUB_GID_COUNT=65536 "$RL_USER" || return 1
  export RL_HOME RL_UID RL_GID
  RL_HOME=$(getent passwd "$RL_USER" | cut -d: -f6)
  RL_UID=$(id -u "$RL_USER")
  RL_GID=$(id -g "$RL_USER")
}

teardown_file ()
{
  [[ -n ${RL_USER:-} ]] || return 0
  local p
  # whatever a broken test left running as the user, by pid
  for p in $(pgrep -u "$RL_USER"); do kill -KILL "$p" 2>/dev/null; done
  userdel -r "$RL_USER" 2>/dev/null
  # shadow's userdel drops the ranges; make sure
  sed -i "/^$RL_USER:/d" /etc/subuid /etc/subgid
}

setup ()
{
  [[ -n ${RL_USER:-} ]] || skip "requires root, useradd and setpriv (a throwaway user is made)"
  requires userns
  setup_bundle || return 1
  requires agentrt
  grep -q "^$RL_USER:" /etc/subuid && grep -q "^$RL_USER:" /etc/subgid \
    || fail "useradd gave $RL_USER no /etc/subuid and /etc/subgid ranges"
  RL_DIR=$RL_HOME/t$BATS_TEST_NUMBER
  rm -rf "$RL_DIR"
  mkdir -p "$RL_DIR/bundle" "$RL_DIR/xdg-run"
  chmod 0700 "$RL_DIR/xdg-run"
  as_user test -x "$RUNTIME" \
    || skip "the runtime $RUNTIME is not executable by an ordinary user"
  as_user test -r "$HARDENING_PROFILE" || skip "$HARDENING_PROFILE is not readable by an ordinary user"
  cp -a "$(rootfs_cache)" "$RL_DIR/bundle/rootfs"
  RL_AUDIT=$RL_DIR/audit
  RL_POLICY=$RL_DIR/policy.json
  rl_policy '.limits.unenforceable = "allow"'
  chown -R "$RL_USER:" "$RL_DIR"
  (cd "$RL_DIR/bundle" && as_user "$RUNTIME" spec --rootless) || return 1
  RL_CONFIG=$RL_DIR/bundle/config.json
  CONFIG=$RL_CONFIG update_config '.process.args = ["sleep", "inf"] | .process.terminal = false
    | .process.env += [$tag]' --arg tag "AGENTRT_TEST_TAG=$CT_ID"
}

teardown ()
{
  local id leaks=() p
  [[ -n ${RL_DIR:-} ]] || return 0
  for id in $(urt list -q 2>/dev/null); do
    urt delete --force "$id" >/dev/null 2>&1
  done
  for id in $(urunc list -q 2>/dev/null); do
    urunc delete --force "$id" >/dev/null 2>&1
  done
  for id in $(as_user env XDG_RUNTIME_DIR="$RL_DIR/xdg-run" "$RUNTIME" list -q 2>/dev/null); do
    as_user env XDG_RUNTIME_DIR="$RL_DIR/xdg-run" "$RUNTIME" delete --force "$id" >/dev/null 2>&1
  done
  for ((p = ${#CLEANUP_CMDS[@]} - 1; p >= 0; p--)); do
    eval "${CLEANUP_CMDS[p]}" >/dev/null 2>&1 || true
  done
  for ((i = 0; i < 30; i++)); do
    [[ -z $(pgrep -u "$RL_USER") ]] && break
    sleep 0.1
  done
  for p in $(pgrep -u "$RL_USER"); do
    leaks+=("process $(_describe_pid "$p")")
    kill -KILL "$p" 2>/dev/null
  done
  while read -r p; do
    [[ -n $p ]] && leaks+=("mount $p") && umount -l "$p"
  done < <(mounts_under "$RL_DIR" | sort -r)
  while read -r p; do
    [[ -n $p ]] && leaks+=("cgroup $p")
  done < <(cgroups_named "$CT_ID")
  rm -rf "$RL_DIR"
  teardown_bundle || return 1
  if ((${#leaks[@]} > 0)); then
    printf 'teardown: the test left behind:\n' >&2
    printf '  %s\n' "${leaks[@]}" >&2
    return 1
  fi
}

# as_user CMD...: CMD as the test user (setpriv execs it in place: no
# parent in between that would stop with it), with a clean environment:
# HOME, XDG_RUNTIME_DIR (the test's; no systemd session here) and PATH
# (RL_PATH when a test sets it).
as_user ()
{
  setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups -- \
    env -i PATH="${RL_PATH:-/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin}" \
    HOME="$RL_HOME" XDG_RUNTIME_DIR="$RL_DIR/xdg-run" "$@"
}

# urt ARGS...: agentrt as the user, with the test's --root and policy.
urt ()
{
  as_user timeout -k 5 "$RUNTIME_TIMEOUT" "$RUNTIME" --root "$RL_DIR/state" \
    --policy "$RL_POLICY" "$@"
}

# urunc ARGS...: the control runtime as the user.
urunc ()
{
  as_user timeout -k 5 "$RUNTIME_TIMEOUT" "$CONTROL_RUNTIME" --root "$RL_DIR/runc" "$@"
}

# ur NAME ARGS...: like `rt`, for urt or urunc (sets status, output).
ur ()
{
  RT_SEQ=$((${RT_SEQ:-0} + 1))
  RT_OUT=$BATS_TEST_TMPDIR/ur.$RT_SEQ.out
  "$@" >"$RT_OUT" 2>&1 </dev/null && status=0 || status=$?
  output=$(<"$RT_OUT")
  mapfile -t lines <"$RT_OUT"
}

# rl_policy [JQ-FILTER]: the admin policy (--policy) of the test, like
# hardening_policy's: the source tree's agent profile, the test's audit dir.
rl_policy ()
{
  jq -n --arg p "$HARDENING_PROFILE" --arg a "$RL_AUDIT" \
    "{version: 1, seccomp: {profile: \$p}, audit: {dir: \$a}} | ${1:-.}" >"$RL_POLICY"
  chown "$RL_USER:" "$RL_POLICY" 2>/dev/null || true
}

rl_cmd ()
{
  local args
  args=$(jq -n '$ARGS.positional' --args -- "$@") || return 1
  CONFIG=$RL_CONFIG update_config '.process.args = $a' --argjson a "$args"
}

# The careless shape of the bundle (writable root, no no_new_privs, a
# token in the environment): what the control must show the attacks on.
rl_careless ()
{
  CONFIG=$RL_CONFIG update_config '.root.readonly = false | .process.noNewPrivileges = false
    | .process.env += ["GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz"]'
}

# _loopback_server: an HTTP server on the host's 127.0.0.1 (SRV_PORT).
_loopback_server ()
{
  local dir=$BATS_TEST_TMPDIR/www
  mkdir -p "$dir"
  echo "hello from the host" >"$dir/index.html"
  python3 - "$dir" >"$BATS_TEST_TMPDIR/port" 2>/dev/null <<'EOF' &
import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
print(s.server_address[1], flush=True)
s.serve_forever()
EOF
  cleanup_add "kill $!"
  wait_for_file "$BATS_TEST_TMPDIR/port" || return 1
  SRV_PORT=$(<"$BATS_TEST_TMPDIR/port")
}

@test "rootless: create, start, state, exec, ps, kill, delete as an ordinary user, hardened" {
  ur urt create --bundle "$RL_DIR/bundle" "$CT_ID"
  check_status 0
  ur urt state "$CT_ID"
  check_status 0
  [[ $(jq -r .status <<<"$output") == created ]] || fail "$output"
  ur urt start "$CT_ID"
  check_status 0
  ur urt state "$CT_ID"
  [[ $(jq -r .status <<<"$output") == running ]] || fail "$output"
  init=$(jq -r .pid <<<"$output")
  # the init is the user's, its root is the user
  [[ $(stat -c %u "/proc/$init") == "$RL_UID" ]] || fail "init $init is not uid $RL_UID"
  ur urt exec "$CT_ID" sh -c 'id -u; cat /proc/self/uid_map; echo $$'
  check_status 0
  [[ ${lines[0]} == 0 ]] || fail "$output"
  [[ $(echo ${lines[1]}) == "0 $RL_UID 1" ]] || fail "$output"
  # in the container's pid namespace (a small pid, not the host's)
  ((lines[2] < 100)) || fail "exec'd process outside the pid namespace: $output"
  ur urt exec -d "$CT_ID" sleep 300
  check_status 0
  ur urt ps --format json "$CT_ID"
  check_status 0
  [[ $(jq length <<<"$output") -eq 2 ]] || fail "ps: $output"
  jq -e --argjson p "$init" 'index($p) != null' <<<"$output" >/dev/null || fail "ps: $output"
  ur urt ps "$CT_ID"
  check_status 0
  [[ $output == *"sleep 300"* && $output == *"sleep inf"* ]] || fail "ps: $output"
  ur urt kill --all "$CT_ID" KILL
  check_status 0
  for ((i = 0; i < 50; i++)); do
    [[ $(urt state "$CT_ID" | jq -r .status) == stopped ]] && break
    sleep 0.1
  done
  [[ $(urt state "$CT_ID" | jq -r .status) == stopped ]] || fail "not stopped after kill"
  ur urt delete "$CT_ID"
  check_status 0
  ur urt state "$CT_ID"
  [[ $status -ne 0 ]] || fail "state after delete: $output"
  [[ -z $(ls -A "$RL_DIR/state" | grep -v '^\.') ]] || fail "state left: $(ls -A "$RL_DIR/state")"
  # the audit trail is the user's, with what was changed and why
  trail=$RL_AUDIT/$CT_ID.jsonl
  [[ $(stat -c %u "$trail") == "$RL_UID" ]] || fail "trail not the user's"
  jq -s -e '[.[] | select(.event == "create") | .changes[]
    | select(.kind == "egress" and (.what | contains("the sidecar runs as uid '"$RL_UID"'")))] | length == 1' \
    "$trail" >/dev/null || fail "no sidecar change: $(cat "$trail")"
  jq -s -e '[.[] | select(.event == "create") | .changes[]
    | select(.kind == "limit" and (.what | contains("not enforced")))] | length == 2' \
    "$trail" >/dev/null || fail "no unenforced limits recorded: $(cat "$trail")"
}

@test "rootless: run attaches and returns the exit status" {
  rl_cmd sh -c 'echo out; exit 7'
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID"
  [[ $status -eq 7 && $output == out ]] || fail "status $status: $output"
}

@test "rootless: the hardening holds (env scrubbed, read-only root, no_new_privs, seccomp, caps); runc as the user does not" {
  requires_control
  rl_careless
  script='echo token=${GITHUB_TOKEN:-none}
    if touch /probe 2>/dev/null; then echo root=writable; else echo root=readonly; fi
    grep -E "^(NoNewPrivs|Seccomp|CapBnd):" /proc/self/status
    cat /proc/self/uid_map'
  rl_cmd sh -c "$script"
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID"
  check_status 0
  agentrt_out=$output
  ur urunc run --bundle "$RL_DIR/bundle" "$CT_ID-c"
  check_status 0
  runc_out=$output
  # under runc, as the same user: every attack works
  [[ $runc_out == *token=ghp_* && $runc_out == *root=writable* ]] || fail "control: $runc_out"
  [[ $(status_field "$runc_out" NoNewPrivs) == 0 && $(status_field "$runc_out" Seccomp) == 0 ]] \
    || fail "control: $runc_out"
  # under agentrt: none
  [[ $agentrt_out == *token=none* && $agentrt_out == *root=readonly* ]] || fail "agentrt: $agentrt_out"
  [[ $(status_field "$agentrt_out" NoNewPrivs) == 1 && $(status_field "$agentrt_out" Seccomp) == 2 ]] \
    || fail "agentrt: $agentrt_out"
  # the capabilities are the safe set's intersection with the bundle's
  (((0x$(status_field "$agentrt_out" CapBnd) & ~0x$(cap_mask CAP_KILL CAP_NET_BIND_SERVICE)) == 0)) \
    || fail "agentrt caps: $agentrt_out"
  [[ $(echo $(grep -E '^ *0 ' <<<"$agentrt_out")) == "0 $RL_UID 1" ]] || fail "$agentrt_out"
}

@test "rootless: a bound home's keys are masked; runc as the user shows them" {
  requires_control
  mkdir -p "$RL_DIR/home/.ssh" "$RL_DIR/home/src"
  echo "-----BEGIN OPENSSH PRIVATE KEY-----" >"$RL_DIR/home/.ssh/id_ed25519"
  echo work >"$RL_DIR/home/src/main.go"
  chown -R "$RL_USER:" "$RL_DIR/home"
  CONFIG=$RL_CONFIG update_config '.mounts += [{destination: "/home/u", type: "bind", source: $s, options: ["rbind", "rw"]}]' \
    --arg s "$RL_DIR/home"
  rl_cmd sh -c 'cat /home/u/src/main.go; cat /home/u/.ssh/id_ed25519 2>&1 || echo key=unreadable'
  ur urunc run --bundle "$RL_DIR/bundle" "$CT_ID-c"
  check_status 0
  [[ $output == *"BEGIN OPENSSH PRIVATE KEY"* ]] || fail "control: $output"
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID"
  check_status 0
  [[ $output == *work* && $output != *"BEGIN OPENSSH"* ]] || fail "agentrt: $output"
  jq -s -e '[.[] | select(.event == "create") | .changes[] | select(.kind == "path-masked"
    and (.what | contains("/home/u/.ssh")))] | length >= 1' "$RL_AUDIT/$CT_ID.jsonl" >/dev/null \
    || fail "no path-masked change: $(cat "$RL_AUDIT/$CT_ID.jsonl")"
}

@test "rootless: no network but the proxy; runc as the user reaches the host's loopback" {
  requires_control python3
  _loopback_server
  script="ip -o link | wc -l
    busybox wget -q -Y off -O - http://127.0.0.1:$SRV_PORT/ 2>&1 || echo direct=failed
    busybox wget -q -O - http://127.0.0.1:$SRV_PORT/ 2>&1 || echo proxied=failed"
  rl_cmd sh -c "$script"
  ur urunc run --bundle "$RL_DIR/bundle" "$CT_ID-c"
  check_status 0
  [[ $output == *"hello from the host"* && $output != *direct=failed* ]] \
    || fail "control: the host's loopback is not reachable under runc: $output"
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID"
  check_status 0
  [[ ${lines[0]} -eq 1 ]] || fail "interfaces other than lo: $output"
  [[ $output == *direct=failed* && $output == *proxied=failed* && $output != *"hello from the host"* ]] \
    || fail "agentrt: $output"
  [[ $output == *403* ]] || fail "the proxy did not refuse: $output"
  # listed by the policy (an IP literal), the proxy, as the user, goes there
  CONFIG=$RL_CONFIG update_config '.annotations["run.agentrt.egress.allow"] = $a' \
    --arg a "127.0.0.1:$SRV_PORT"
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID-2"
  check_status 0
  [[ $output == *direct=failed* && $output == *"hello from the host"* ]] || fail "agentrt: $output"
  # the transparent path holds as the user: the init installed the rules
  # in the container's user namespace, and a DNS query to any server
  # meets the sidecar's stub, which refuses a name off the allowlist
  rl_cmd sh -c 'busybox nslookup leak.example 192.0.2.53 >/dev/null 2>&1; echo dns=$?'
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID-3"
  check_status 0
  has_line dns=1
  jq -se '.[0].directives.network.rules == "init"
      and any(.[]; .event == "dns" and .name == "leak.example" and .decision == "deny")' \
    "$RL_AUDIT/$CT_ID-3.jsonl" >/dev/null || fail "no stub answer: $(cat "$RL_AUDIT/$CT_ID-3.jsonl")"
}

@test "rootless: the sidecar runs as the user with no capabilities, no_new_privs and seccomp" {
  ur urt run -d --bundle "$RL_DIR/bundle" "$CT_ID"
  check_status 0
  # it starts on the agent's first connection
  ur urt exec "$CT_ID" busybox nc -w 1 127.0.0.1 3128 </dev/null
  sidecar=
  for ((i = 0; i < 50; i++)); do
    for p in $(pgrep -u "$RL_USER"); do
      tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "^agentrt-egress --id $CT_ID " && sidecar=$p
    done
    [[ -n $sidecar ]] && break
    sleep 0.1
  done
  [[ -n $sidecar ]] || fail "no sidecar running for $CT_ID"
  st=$(<"/proc/$sidecar/status")
  [[ $(status_field "$st" Uid) == "$RL_UID" && $(status_field "$st" Gid) == "$RL_GID" ]] || fail "$st"
  [[ $(status_field "$st" CapEff) == 0000000000000000 && $(status_field "$st" CapPrm) == 0000000000000000 ]] \
    || fail "$st"
  [[ $(status_field "$st" NoNewPrivs) == 1 && $(status_field "$st" Seccomp) == 2 ]] || fail "$st"
  # it is outside the agent's network namespace, in the user's own
  [[ $(readlink "/proc/$sidecar/ns/net") == "$(readlink /proc/self/ns/net)" ]] || fail "sidecar netns"
}

@test "rootless: defaults are the XDG directories (state, audit)" {
  rm -f "$RL_POLICY"
  jq -n --arg p "$HARDENING_PROFILE" '{version: 1, seccomp: {profile: $p}, limits: {unenforceable: "allow"}}' >"$RL_POLICY"
  chown "$RL_USER:" "$RL_POLICY"
  rl_cmd true
  ur as_user "$RUNTIME" --policy "$RL_POLICY" run --bundle "$RL_DIR/bundle" "$CT_ID"
  check_status 0
  [[ -f $RL_HOME/.local/state/agentrt/$CT_ID.jsonl ]] || fail "no trail in ~/.local/state/agentrt"
  [[ $(stat -c '%u %a' "$RL_HOME/.local/state/agentrt") == "$RL_UID 700" ]] || fail "audit dir"
  # the state root while it runs
  rl_cmd sleep inf
  ur as_user "$RUNTIME" --policy "$RL_POLICY" run -d --bundle "$RL_DIR/bundle" "$CT_ID-2"
  check_status 0
  [[ -d $RL_DIR/xdg-run/agentrt/$CT_ID-2 ]] || fail "no state in \$XDG_RUNTIME_DIR/agentrt"
  ur as_user "$RUNTIME" list -q
  [[ $output == "$CT_ID-2" ]] || fail "list: $output"
  ur as_user "$RUNTIME" delete --force "$CT_ID-2"
  check_status 0
  # XDG_STATE_HOME when set; a relative one is ignored (the XDG rule)
  rl_cmd true
  ur as_user XDG_STATE_HOME="$RL_DIR/st" "$RUNTIME" --policy "$RL_POLICY" run --bundle "$RL_DIR/bundle" "$CT_ID-3"
  check_status 0
  [[ -f $RL_DIR/st/agentrt/$CT_ID-3.jsonl ]] || fail "no trail in \$XDG_STATE_HOME/agentrt"
  # without XDG_RUNTIME_DIR and /run/user/UID: an error saying what to set
  ur setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups -- \
    env -i PATH=/usr/bin:/bin HOME="$RL_HOME" "$RUNTIME" list
  [[ -d /run/user/$RL_UID ]] || {
    [[ $status -ne 0 && $output == *"XDG_RUNTIME_DIR is not set"*"--root"* ]] || fail "$output"
  }
  # spec and features need no state root
  ur setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups -- \
    env -i PATH=/usr/bin:/bin HOME="$RL_HOME" "$RUNTIME" features
  check_status 0
}

@test "rootless: limits no cgroup can enforce fail the create, naming them, unless the policy allows" {
  [[ $(_cgroup_mode) != v2 ]] || skip "a cgroup v2 host may delegate a subtree (the VM's rootless test)"
  rl_policy
  rl_cmd true
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID"
  [[ $status -ne 0 ]] || fail "created without its limits"
  [[ $output == *"linux.resources.pids, linux.resources.memory: cannot be enforced as uid $RL_UID"* ]] \
    || fail "$output"
  [[ $output == *'limits.unenforceable "allow"'* ]] || fail "$output"
  [[ -z $(ls -A "$RL_DIR/state" 2>/dev/null | grep -v '^\.') ]] || fail "state left"
  # a bundle's own limit too, with the hardening off
  rl_policy '.hardening = "off"'
  CONFIG=$RL_CONFIG update_config '.linux.resources.pids = {limit: 10}'
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID-2"
  [[ $status -ne 0 && $output == *"linux.resources.pids: cannot be enforced"* ]] || fail "$output"
  rl_policy '.hardening = "off" | .limits.unenforceable = "allow"'
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID-3"
  check_status 0
  [[ $output == *"linux.resources.pids not enforced"* ]] || fail "no warning: $output"
}

@test "rootless: the user's own policy may tighten the admin's, never loosen it" {
  mkdir -p "$RL_HOME/.config/agentrt"
  cleanup_add "rm -rf '$RL_HOME/.config'"
  echo '{"limits": {"pids": 64, "lifetime": "1h"}}' >"$RL_HOME/.config/agentrt/policy.json"
  chown -R "$RL_USER:" "$RL_HOME/.config"
  rl_cmd true
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID"
  check_status 0
  trail=$RL_AUDIT/$CT_ID.jsonl
  jq -s -e '[.[] | select(.event == "create") | .changes[] | select(.kind == "policy"
    and (.what | endswith("/.config/agentrt/policy.json")))] | length == 1' "$trail" >/dev/null \
    || fail "user policy not recorded: $(cat "$trail")"
  jq -s -e '[.[] | select(.event == "create") | .changes[] | select(.kind == "lifetime"
    and .what == "3600s")] | length == 1' "$trail" >/dev/null || fail "lifetime: $(cat "$trail")"
  # loosening is refused, naming the field (and nothing is created)
  for bad in '{"hardening": "off"}' '{"limits": {"pids": 100000}}' \
    '{"egress": {"allow": ["example.com"]}}' '{"seccomp": {"profile": null}}' \
    '{"capabilities": {"safe": ["CAP_SYS_ADMIN"]}}'; do
    echo "$bad" >"$RL_HOME/.config/agentrt/policy.json"
    ur urt run --bundle "$RL_DIR/bundle" "$CT_ID-x"
    [[ $status -ne 0 && $output == *"a user's policy may only tighten the admin's"* ]] \
      || fail "$bad: status $status: $output"
  done
  # XDG_CONFIG_HOME is where it is looked for when set
  ur as_user XDG_CONFIG_HOME="$RL_DIR/none" timeout 20 "$RUNTIME" --root "$RL_DIR/state" \
    --policy "$RL_POLICY" run --bundle "$RL_DIR/bundle" "$CT_ID-y"
  check_status 0
}

# rl_subid_maps: the bundle maps the user's own ids to 0 and its
# /etc/subuid and /etc/subgid ranges from 1 (what needs newuidmap and
# newgidmap); sets sub_u and sub_g, the ranges' starts.  Skips without
# the helpers.
rl_subid_maps ()
{
  command -v newuidmap >/dev/null && command -v newgidmap >/dev/null \
    || skip "requires newuidmap and newgidmap (package uidmap)"
  read -r sub_u <<<"$(awk -F: -v u="$RL_USER" '$1 == u { print $2; exit }' /etc/subuid)"
  read -r sub_g <<<"$(awk -F: -v u="$RL_USER" '$1 == u { print $2; exit }' /etc/subgid)"
  CONFIG=$RL_CONFIG update_config '.linux.uidMappings = [{containerID: 0, hostID: $u, size: 1},
      {containerID: 1, hostID: $su, size: 65536}]
    | .linux.gidMappings = [{containerID: 0, hostID: $g, size: 1},
      {containerID: 1, hostID: $sg, size: 65536}]' \
    --argjson u "$RL_UID" --argjson g "$RL_GID" --argjson su "$sub_u" --argjson sg "$sub_g"
}

@test "rootless: id ranges go through newuidmap and newgidmap, as under runc" {
  rl_subid_maps
  mkdir -p "$RL_DIR/work"
  chown "$RL_USER:" "$RL_DIR/work"
  CONFIG=$RL_CONFIG update_config '.mounts += [{destination: "/work", type: "bind", source: $s, options: ["rbind", "rw"]}]
    | .process.capabilities |= with_entries(.value += ["CAP_CHOWN"])' --arg s "$RL_DIR/work"
  rl_cmd sh -c 'cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups
    chown 1000:1000 /work 2>&1 || echo chown=failed'
  ur urunc run --bundle "$RL_DIR/bundle" "$CT_ID-c"
  check_status 0
  runc_out=$output
  chown "$RL_USER:" "$RL_DIR/work"
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID"
  check_status 0
  [[ $(echo $output) == "0 $RL_UID 1 1 $sub_u 65536 0 $RL_GID 1 1 $sub_g 65536 allow" ]] || fail "$output"
  [[ $(echo $runc_out) == "0 $RL_UID 1 1 $sub_u 65536 0 $RL_GID 1 1 $sub_g 65536 allow" ]] || fail "runc: $runc_out"
  # container uid 1000 is the subordinate id 999 above the range's start
  [[ $(stat -c '%u:%g' "$RL_DIR/work") == "$((sub_u + 999)):$((sub_g + 999))" ]] || fail "$(stat -c '%u:%g' "$RL_DIR/work")"
  # a range that is not the user's: newuidmap's refusal, and where ranges come from
  CONFIG=$RL_CONFIG update_config '.linux.uidMappings[1].hostID = 1'
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID-2"
  [[ $status -ne 0 && $output == *"linux.uidMappings: "*"newuidmap failed"*"not allowed"*"/etc/subuid gives $RL_USER $sub_u-"* ]] \
    || fail "$output"
}

@test "rootless: newuidmap and newgidmap are the system's, never a planted one on the caller's PATH; runc runs it" {
  # A directory of the user's first on PATH (a work directory an agent
  # could write): a newuidmap and a newgidmap there note that they ran,
  # then do the real helper's work, so both runtimes' containers start.
  rl_subid_maps
  local real_u real_g
  real_u=$(command -v newuidmap) real_g=$(command -v newgidmap)
  mkdir -p "$RL_DIR/bin"
  printf '#!/bin/sh\necho "$0" >>%q\nexec %q "$@"\n' "$RL_DIR/ran" "$real_u" >"$RL_DIR/bin/newuidmap"
  printf '#!/bin/sh\necho "$0" >>%q\nexec %q "$@"\n' "$RL_DIR/ran" "$real_g" >"$RL_DIR/bin/newgidmap"
  chmod 0755 "$RL_DIR/bin/newuidmap" "$RL_DIR/bin/newgidmap"
  chown -R "$RL_USER:" "$RL_DIR/bin"
  RL_PATH=$RL_DIR/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
  rl_cmd cat /proc/self/uid_map /proc/self/gid_map
  # the control: runc looks the helpers up on PATH and runs the planted ones
  ur urunc run --bundle "$RL_DIR/bundle" "$CT_ID-c"
  check_status 0
  [[ $(echo $output) == "0 $RL_UID 1 1 $sub_u 65536 0 $RL_GID 1 1 $sub_g 65536" ]] || fail "runc: $output"
  [[ -f $RL_DIR/ran && $(sort "$RL_DIR/ran" | uniq | xargs) == "$RL_DIR/bin/newgidmap $RL_DIR/bin/newuidmap" ]] \
    || fail "runc did not run the planted helpers: $(cat "$RL_DIR/ran" 2>&1)"
  rm -f "$RL_DIR/ran"
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID"
  check_status 0
  [[ $(echo $output) == "0 $RL_UID 1 1 $sub_u 65536 0 $RL_GID 1 1 $sub_g 65536" ]] || fail "$output"
  [[ ! -e $RL_DIR/ran ]] || fail "agentrt ran a helper from PATH: $(cat "$RL_DIR/ran")"
}

@test "rootless: a gid map of the user's own gid denies setgroups; additionalGids is refused naming the field" {
  rl_cmd cat /proc/self/setgroups
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID"
  check_status 0
  [[ $output == deny ]] || fail "$output"
  CONFIG=$RL_CONFIG update_config '.process.user.additionalGids = [5]'
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID-2"
  [[ $status -ne 0 && $output == *"process.user.additionalGids"*newgidmap* ]] || fail "$output"
}

@test "rootless: a judged bind source swapped before the init mounts it fails the create (fault point)" {
  requires_fault_points
  mkdir -p "$RL_DIR/vol/data"
  echo judged >"$RL_DIR/vol/data/marker"
  chown -R "$RL_USER:" "$RL_DIR/vol"
  CONFIG=$RL_CONFIG update_config '.mounts += [{destination: "/data", type: "bind", source: $s, options: ["rbind"]}]' \
    --arg s "$RL_DIR/vol/data"
  rl_cmd cat /data/marker
  as_user AGENTRT_FAULT_STAGE=create:judged AGENTRT_FAULT_SIGNAL=STOP "$RUNTIME" --root "$RL_DIR/state" \
    --policy "$RL_POLICY" run --bundle "$RL_DIR/bundle" "$CT_ID" >"$BATS_TEST_TMPDIR/swap.out" 2>&1 &
  pid=$(stopped_process -u "$RL_USER" -f -- "run --bundle $RL_DIR/bundle $CT_ID") \
    || fail "the runtime did not stop at create:judged"
  # the judged directory moves away, another takes its name
  mv "$RL_DIR/vol/data" "$RL_DIR/vol/data.judged"
  mkdir "$RL_DIR/vol/data"
  echo swapped >"$RL_DIR/vol/data/marker"
  chown -R "$RL_USER:" "$RL_DIR/vol"
  kill -CONT "$pid"
  wait
  output=$(<"$BATS_TEST_TMPDIR/swap.out")
  [[ $output == *"bind mount \`$RL_DIR/vol/data\` on \`/data\`: the source is not the file the hardening judged"* ]] \
    || fail "$output"
  [[ $output != *swapped* ]] || fail "the swapped directory was mounted: $output"
  # the same bundle, nothing swapped, runs
  ur urt run --bundle "$RL_DIR/bundle" "$CT_ID-2"
  check_status 0
  [[ $output == swapped ]] || fail "$output"
}

@test "rootless: an XDG_RUNTIME_DIR another user may write, or another user's, is no state root; runc takes it" {
  # a directory every user may write (as /tmp), and a symlink of the
  # user's to root's: a state root there is another user's to rewrite
  mkdir -m 1777 "$RL_DIR/shared"
  mkdir -m 0755 "$RL_DIR/roots"
  ln -s "$RL_DIR/roots" "$RL_DIR/link"
  chown -h "$RL_USER:" "$RL_DIR/link"
  ur as_user env XDG_RUNTIME_DIR="$RL_DIR/shared" "$CONTROL_RUNTIME" list
  check_status 0
  local d
  for d in "$RL_DIR/shared" "$RL_DIR/link"; do
    ur as_user env XDG_RUNTIME_DIR="$d" "$RUNTIME" list
    [[ $status -ne 0 && $output == *"XDG_RUNTIME_DIR \`$d\` is not a directory of uid $RL_UID that only it may write"*"--root"* ]] \
      || fail "$d: $output"
    [[ ! -e $d/agentrt ]] || fail "a state root was made in $d"
  done
  # the user's own (0700, as the XDG rules ask) is taken
  ur as_user "$RUNTIME" list
  check_status 0
}

# full_map CMD...: CMD, with a clean environment, as root of a child user
# namespace that real root gave the initial one's map, "0 0 4294967295"
# (sets status, output).
full_map ()
{
  local out=$BATS_TEST_TMPDIR/full-map.out pid i
  unshare --user -- sh -c 'while [ -z "$(cat /proc/self/uid_map)" ]; do sleep 0.05; done
    exec env -i PATH=/usr/bin:/bin "$@"' sh "$@" >"$out" 2>&1 </dev/null &
  pid=$!
  # written from outside once the namespace exists (before, the map is
  # the initial one's, already written: refused)
  for ((i = 0; i < 200; i++)); do
    echo '0 0 4294967295' 2>/dev/null >"/proc/$pid/uid_map" && break
    sleep 0.02
  done
  echo '0 0 4294967295' >"/proc/$pid/gid_map" || fail "gid_map of $pid"
  wait "$pid" && status=0 || status=$?
  output=$(<"$out")
}

@test "rootless: root of a child user namespace with the full identity map is not root of the host; runc takes it for root" {
  [[ $EUID -eq 0 ]] || skip "requires root (to give a namespace the full map)"
  [[ -d /run/user/0 ]] && skip "/run/user/0 exists: it would be the state root found"
  full_map cat /proc/self/uid_map
  [[ $status -eq 0 && $(echo $output) == "0 0 4294967295" ]] || fail "the map: $output"
  # the control lists root's containers (/run/runc)
  full_map "$CONTROL_RUNTIME" list
  check_status 0
  full_map "$RUNTIME" list
  [[ $status -ne 0 && $output == *"running as uid 0 without root's privileges, XDG_RUNTIME_DIR is not set"* ]] \
    || fail "taken for root: $output"
}
