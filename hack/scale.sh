#!/bin/bash
# hack/scale.sh [N]: N containers (default 200) at once, then nothing left.
# For runc, agentrt hardened with egress (each container has a monitor and
# an egress sidecar) and agentrt unhardened, one after the other, from one
# long-lived driver (hack/bench/scale.py): N detached `sleep 600` created
# concurrently, then started concurrently, listed, killed and deleted
# concurrently.  Reports containers per second for create+start, what the
# runtime leaves per running container (PSS of its own processes: monitor
# and sidecar; the container's process excluded) and the kernel memory
# growth; then checks that no state dir, cgroup, mount, network namespace,
# runtime process or driver fd is left.  Exits 1 if anything was left or a
# command failed.  Needs root, runc, jq, python3.
# Environment: RUNTIME (default: agentrt built in _build/), RUNC,
# SCALE_RUNTIMES (default "runc agentrt agentrt-off").
set -euo pipefail
SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
# shellcheck source=hack/lib.sh
. "$HERE/lib.sh"
# shellcheck source=hack/bench/common.sh
. "$HERE/bench/common.sh"

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,15s/^# \{0,1\}//p' "$SELF"
  exit 0
fi
N=${1:-200}
[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || { echo "scale.sh: N must be a positive number" >&2; exit 2; }
bench_require runc jq python3
bench_runtimes

T=$(mktemp -d /tmp/agentrt-scale.XXXXXX)
STATE=$T/state
PREFIX=scale$$
DRIVER=
# shellcheck disable=SC2317 # called by the trap
cleanup ()
{
  local r rt id
  set +e
  [[ -z $DRIVER ]] || bench_stop "$DRIVER"
  for r in "$STATE"/root-*; do
    [[ -d $r ]] || continue
    case $r in *-runc) rt=$RUNC ;; *) rt=$AGENTRT ;; esac
    for id in $("$rt" --root "$r" list -q 2>/dev/null); do
      "$rt" --root "$r" delete --force "$id" >/dev/null 2>&1
    done
  done
  bench_state_dir_remove "$STATE"
  rm -rf --one-file-system "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bench_state_dir "$STATE"

mkbundle "$T/bundle" "$AGENTRT"
jq '.ociVersion = "1.0.2" | .process.args = ["sleep", "600"]' "$T/bundle/config.json" \
  >"$T/config.json"
mv "$T/config.json" "$T/bundle/config.json"
bench_policies "$T"

args=()
for name in ${SCALE_RUNTIMES:-runc agentrt agentrt-off}; do
  case $name in
    runc) args+=(--runtime "runc=$STATE/root-runc=$RUNC --root $STATE/root-runc") ;;
    agentrt) args+=(--runtime "agentrt=$STATE/root-hard=$AGENTRT --root $STATE/root-hard --policy $T/policy-hard.json") ;;
    agentrt-off) args+=(--runtime "agentrt-off=$STATE/root-off=$AGENTRT --root $STATE/root-off --policy $T/policy-off.json") ;;
    *) echo "scale.sh: unknown runtime \`$name\` in SCALE_RUNTIMES" >&2; exit 2 ;;
  esac
done

echo "== scale: $N containers ($(date -u +%FT%TZ), $(nproc) cores, $(bench_load))"
rc=0
# In the background and waited for, so that a signal reaches the trap at
# once; the cleanup stops the driver and deletes what it left.
python3 "$HERE/bench/scale.py" -n "$N" --prefix "$PREFIX" --bundle "$T/bundle" \
  --logs "$T/logs" --kv "$T/scale.kv" "${args[@]}" &
DRIVER=$!
wait "$DRIVER" || rc=$?
DRIVER=
echo "   $(bench_load) at the end"
if [[ -n ${BENCH_KEEP:-} ]]; then
  mkdir -p "$BENCH_KEEP"
  cp "$T/scale.kv" "$BENCH_KEEP/"
fi
exit "$rc"
