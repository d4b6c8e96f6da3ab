#!/bin/bash
# hack/bench/rootless.sh [ROUNDS]: what running agentrt as an ordinary
# user costs next to running it as root: `run` of /bin/true, hardened,
# interleaved (hack/bench/runloop.c, 5 warm-up rounds, ROUNDS timed,
# default 40):
#   rootful   root runs `agentrt spec`'s bundle (the container gets its own
#             user namespace and range: the default), its state on a tmpfs
#   rootless  a throwaway user (made here with subordinate ranges, removed
#             at the end) runs `agentrt spec --rootless`'s bundle, its
#             state in $XDG_RUNTIME_DIR on a tmpfs of its own, with the
#             policy's limits.unenforceable "allow" when no delegated
#             cgroup v2 subtree exists (a hybrid host has none)
# Both go through setpriv (root's to root), so each pays the same extra
# exec.  Prints the median wall and CPU time of each and the ratio
# rootless / rootful (issue 15's target: at most 1.2).  Needs root,
# useradd, setpriv, jq, cc, python3; uses the agentrt in _build/ unless
# RUNTIME says.  docs/benchmarks.md has the figures.
set -euo pipefail
SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
# shellcheck source=hack/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=hack/bench/common.sh
. "$HERE/common.sh"

ROUNDS=${1:-40}
bench_require jq cc python3 useradd setpriv
RUNC=${RUNC:-/bin/true} CRUN=${CRUN:-/bin/true}
bench_runtimes

T=$(mktemp -d /tmp/agentrt-rootless-bench.XXXXXX)
chmod 0755 "$T"
STATE=$T/state
NAT_NETNS=agentrt-rootless-nat-$$
printf -v RL_USER 'agrt-bench-%x' "$$"
RL_MADE=0
RUNLOOP=
cleanup ()
{
  local p
  set +e
  [[ -z $RUNLOOP ]] || bench_stop "$RUNLOOP"
  bench_delete_all "$STATE" runtime_of
  if ((RL_MADE)); then
    for id in $(as_user "$AGENTRT" list -q 2>/dev/null); do
      as_user "$AGENTRT" delete --force "$id" >/dev/null 2>&1
    done
    for p in $(pgrep -u "$RL_USER"); do kill -KILL "$p" 2>/dev/null; done
    userdel -r "$RL_USER" 2>/dev/null
    sed -i "/^$RL_USER:/d" /etc/subuid /etc/subgid
  fi
  mountpoint -q "$T/xdg" && umount "$T/xdg"
  bench_state_dir_remove "$STATE"
  ip netns del "$NAT_NETNS" 2>/dev/null
  rm -rf --one-file-system "$T"
}
runtime_of () { echo "$AGENTRT"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# as_user CMD...: CMD as the throwaway user, in a clean environment
as_user ()
{
  setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups -- \
    env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME="$T/home" \
    XDG_RUNTIME_DIR="$T/xdg" "$@"
}

useradd -M -d "$T/home" -s /bin/sh -K SUB_UID_COUNT=65536 -K SUB_GID_COUNT=65536 "$RL_USER"
RL_MADE=1
RL_UID=$(id -u "$RL_USER")
RL_GID=$(id -g "$RL_USER")
mkdir -p "$T/home" "$T/xdg"
mount -t tmpfs -o "mode=0700,size=64m,uid=$RL_UID,gid=$RL_GID" agentrt-bench-xdg "$T/xdg"
as_user test -x "$AGENTRT" || { echo "rootless: $AGENTRT is not executable by an ordinary user" >&2; exit 1; }
bench_state_dir "$STATE"
bench_host_nat "$NAT_NETNS"
echo "$(bench_host_nat_state)" >&2
cc -D_GNU_SOURCE -O2 -Wall -o "$T/runloop" "$HERE/runloop.c"

# the same policy for both; the user's audit directory is its own
jq -n --arg a "$T/audit" --arg p "$AGENTRT_TOP/seccomp-profiles/agent-default.json" \
  '{version: 1, seccomp: {profile: $p}, audit: {dir: $a}}' >"$T/policy-root.json"
jq -n --arg a "$T/home/audit" --arg p "$AGENTRT_TOP/seccomp-profiles/agent-default.json" \
  '{version: 1, seccomp: {profile: $p}, audit: {dir: $a}, limits: {unenforceable: "allow"}}' \
  >"$T/home/policy.json"

mkbundle "$T/rootful" "$AGENTRT"
jq '.process.args = ["/bin/true"] | .process.terminal = false' "$T/rootful/config.json" >"$T/c" \
  && mv "$T/c" "$T/rootful/config.json"
mkdir -p "$T/home/bundle"
copy_rootfs "$(rootfs_cache)" "$T/home/bundle/rootfs"
chown -R "$RL_USER:" "$T/home"
(cd "$T/home/bundle" && as_user "$AGENTRT" spec --rootless)
jq '.process.args = ["/bin/true"] | .process.terminal = false' "$T/home/bundle/config.json" >"$T/c" \
  && as_user tee "$T/home/bundle/config.json" <"$T/c" >/dev/null

plan_line () { local IFS=$'\t'; printf '%s\n' "$*"; }
{
  plan_line rootful run - setpriv --reuid=0 --regid=0 --clear-groups -- \
    "$AGENTRT" --root "$STATE/root-rootful" --policy "$T/policy-root.json" \
    run --bundle "$T/rootful" "rootful-@I@"
  plan_line rootless run - setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups -- \
    env -i PATH=/usr/bin:/bin HOME="$T/home" XDG_RUNTIME_DIR="$T/xdg" \
    "$AGENTRT" --policy "$T/home/policy.json" run --bundle "$T/home/bundle" "rootless-@I@"
} >"$T/plan"

echo "== rootless against rootful \`run\`, $ROUNDS interleaved rounds ($(date -u +%FT%TZ), $(nproc) cores, $(bench_load))"
echo "   agentrt: $AGENTRT"
"$T/runloop" "$ROUNDS" 5 "$T/plan" >"$T/raw" 2>"$T/log" &
RUNLOOP=$!
wait "$RUNLOOP" || { cat "$T/log" >&2; exit 1; }
RUNLOOP=
python3 "$HERE/summary.py" "$T/raw" --step run --ratio rootless/rootful --diff rootless:rootful
echo "   $(bench_load) at the end"
[[ -z ${BENCH_KEEP:-} ]] || { mkdir -p "$BENCH_KEEP" && cp "$T/raw" "$BENCH_KEEP/rootless.raw"; }
