#!/bin/bash
# hack/bench/create-cost.sh [ROUNDS]: what hardening adds to `create`, and
# what a change adds to or saves from it: `create` then `delete --force`
# of a detached `sleep`, interleaved (hack/bench/runloop.c, 5 warm-up
# rounds, ROUNDS timed, default 100), under agentrt with hardening off and
# hardened, and AGENTRT_BASELINE (another build, e.g. the previous
# commit's) hardened, on bundles shaped like what the hardening checks:
#   none    bench.sh's base bundle, run.agentrt.egress=none (no sidecar:
#           its process start is the largest and noisiest part otherwise)
#   binds   + an engine's binds (resolv.conf, hosts, hostname) and a
#           writable /work of a few hundred files (the source tree's docs,
#           runtime and tests: what the bind scan walks)
#   srv     + a writable /srv of 4 homes, each with credential stores,
#           a socket, shell startup files and a git repository of a few
#           hundred files (what the scan masks and protects)
#   sidecar bench.sh's base bundle with the egress sidecar (hardened only)
# and the same on engine-shaped bundles (BENCH_ENGINES, default "docker
# podman": the engine's seccomp profile, masks, read-only paths,
# capabilities and limits as hack/bench/engines has them, and its binds):
#   ENGINE          as `none`
#   ENGINE-sidecar  as `sidecar` (hardened only)
# Besides off, hardened (policy userns.mode "off") and the baseline (the
# same, or the defaults for a build from before userns.mode), the
# bundles without sidecar are created hardened with the container's own
# user namespace (userns.mode "auto": "userns"), and the sidecar ones
# with the sidecar's transparent path off (egress.transparent false:
# "opaque").
# Prints per variant the median wall and CPU time of `create` (CPU: the
# command's and its reaped children's, not the container's init or the
# monitor, which outlive it), and the paired differences hardened - off,
# userns - hardened, hardened - opaque and hardened - baseline.
# Run on an "engine host" (hack/bench/common.sh, bench_host_nat) unless
# BENCH_BARE_HOST=1.  docs/benchmarks.md has the figures.  Needs root, jq, cc, python3; uses
# the agentrt in _build/ unless RUNTIME says.
set -euo pipefail
SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
# shellcheck source=hack/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=hack/bench/common.sh
. "$HERE/common.sh"

ROUNDS=${1:-100}
bench_require jq cc python3
# runc and crun are not measured here: only agentrt is needed
RUNC=${RUNC:-/bin/true} CRUN=${CRUN:-/bin/true}
bench_runtimes
BASELINE=${AGENTRT_BASELINE:+$(resolve_runtime "$AGENTRT_BASELINE")}

T=$(mktemp -d /tmp/agentrt-create-cost.XXXXXX)
STATE=$T/state
NAT_NETNS=agentrt-create-cost-nat-$$
SOCK_PIDS=()
RUNLOOP=
cleanup ()
{
  local pid
  set +e
  [[ -z $RUNLOOP ]] || bench_stop "$RUNLOOP"
  bench_delete_all "$STATE" runtime_of
  for pid in "${SOCK_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${SOCK_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  bench_state_dir_remove "$STATE"
  ip netns del "$NAT_NETNS" 2>/dev/null
  rm -rf --one-file-system "$T"
}
# runtime_of ROOT: the agentrt owning the state root ROOT
runtime_of ()
{
  if [[ $1 == *-base ]]; then echo "$BASELINE"; else echo "$AGENTRT"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bench_state_dir "$STATE"
bench_host_nat "$NAT_NETNS"
echo "$(bench_host_nat_state)" >&2
bench_policies "$T"
cc -D_GNU_SOURCE -O2 -Wall -o "$T/runloop" "$HERE/runloop.c"

mkbundle "$T/bundle" "$AGENTRT"
jq '.ociVersion = "1.0.2" | .process.args = ["sleep", "100000"]' \
  "$T/bundle/config.json" >"$T/base.json"
bundle () { bench_bundle "$T" "$@"; } # NAME JQ-FILTER [JQ-ARGS...]
NONE='.annotations["run.agentrt.egress"] = "none"'
ENGINE_BINDS=$BENCH_ENGINE_BINDS
bench_engine_files "$T/engine-files"
mkdir -p "$T/work"
cp -r "$AGENTRT_TOP/docs" "$AGENTRT_TOP/runtime" "$AGENTRT_TOP/tests" "$T/work/"
# /srv: four homes as a shared host's
for u in alice bob carol dave; do
  h=$T/srv/$u
  mkdir -p "$h/.ssh" "$h/.aws" "$h/.config/gh" "$h/.docker" "$h/.run" "$h/proj"
  : >"$h/.ssh/id_ed25519"
  : >"$h/.aws/credentials"
  : >"$h/.config/gh/hosts.yml"
  : >"$h/.docker/config.json"
  : >"$h/.bashrc"
  : >"$h/.profile"
  cp -r "$AGENTRT_TOP/runtime/policy" "$AGENTRT_TOP/docs" "$h/proj/"
  mkdir -p "$h/proj/.git/objects" "$h/proj/.git/refs" "$h/proj/.git/hooks"
  : >"$h/proj/.git/HEAD"
  : >"$h/proj/.git/config"
  python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); time.sleep(1e6)' "$h/.run/agent.sock" &
  SOCK_PIDS+=($!)
done
bundle none "$NONE"
bundle binds "$NONE | $ENGINE_BINDS
  | .mounts += [{destination: \"/work\", type: \"bind\", source: \$w, options: [\"rbind\", \"rw\"]}]" \
  --arg e "$T/engine-files" --arg w "$T/work"
bundle srv "$NONE | $ENGINE_BINDS
  | .mounts += [{destination: \"/srv\", type: \"bind\", source: \$s, options: [\"rbind\", \"rw\"]}]" \
  --arg e "$T/engine-files" --arg s "$T/srv"
bundle sidecar '.'
read -r -a ENGINES <<<"${BENCH_ENGINES:-docker podman}"
for e in "${ENGINES[@]}"; do
  mapfile -t eargs < <(bench_engine_args "$e")
  bundle "$e" "$NONE | $BENCH_ENGINE_FULL | $ENGINE_BINDS" --arg e "$T/engine-files" "${eargs[@]}"
  bundle "$e-sidecar" "$BENCH_ENGINE_FULL | $ENGINE_BINDS" --arg e "$T/engine-files" "${eargs[@]}"
done
for _ in $(seq 100); do
  [[ -S $T/srv/dave/.run/agent.sock ]] && break
  sleep 0.05
done

plan_line () { local IFS=$'\t'; printf '%s\n' "$*"; }
# hardened: the container's own user namespace pinned, off (hard) and
# auto (userns), whatever the built-in default; the baseline off too,
# unless it is a build from before userns.mode (it refuses the key, and
# has no user namespace of its own)
cp "$T/policy-hard.json" "$T/policy-defaults.json"
jq '.userns.mode = "off"' "$T/policy-defaults.json" >"$T/policy-hard.json"
jq '.userns.mode = "auto"' "$T/policy-defaults.json" >"$T/policy-userns.json"
cp "$T/policy-hard.json" "$T/policy-base.json"
if [[ -n $BASELINE ]] && ! "$BASELINE" --policy "$T/policy-hard.json" policy explain \
    --bundle "$T/none" >/dev/null 2>&1; then
  cp "$T/policy-defaults.json" "$T/policy-base.json"
fi
jq '.egress.transparent = false' "$T/policy-hard.json" >"$T/policy-opaque.json"
OFF=("$AGENTRT" --root "$STATE/root-off" --policy "$T/policy-off.json")
HARD=("$AGENTRT" --root "$STATE/root-hard" --policy "$T/policy-hard.json")
USERNS=("$AGENTRT" --root "$STATE/root-userns" --policy "$T/policy-userns.json")
OPAQUE=("$AGENTRT" --root "$STATE/root-opaque" --policy "$T/policy-opaque.json")
BASE=("$BASELINE" --root "$STATE/root-base" --policy "$T/policy-base.json")
BUNDLES=(none binds srv sidecar)
for e in "${ENGINES[@]}"; do BUNDLES+=("$e" "$e-sidecar"); done
diffs=()
{
  for b in "${BUNDLES[@]}"; do
    case $b in
      sidecar|*-sidecar) variants=(hard opaque) ;;
      binds|srv) variants=(hard off) ;;
      *) variants=(hard off userns) ;;
    esac
    [[ -z $BASELINE ]] || variants+=(base)
    for v in "${variants[@]}"; do
      case $v in
        off) rt=("${OFF[@]}") ;; hard) rt=("${HARD[@]}") ;; base) rt=("${BASE[@]}") ;;
        userns) rt=("${USERNS[@]}") ;; opaque) rt=("${OPAQUE[@]}") ;;
      esac
      plan_line "$v-$b" create - "${rt[@]}" create --bundle "$T/$b" "$v-$b-@I@"
      plan_line "$v-$b" delete - "${rt[@]}" delete --force "$v-$b-@I@"
      case $v in
        off) diffs+=(--diff "hard-$b:off-$b") ;;
        userns) diffs+=(--diff "userns-$b:hard-$b") ;;
        opaque) diffs+=(--diff "hard-$b:opaque-$b") ;;
        base) diffs+=(--diff "hard-$b:base-$b") ;;
      esac
    done
  done
} >"$T/plan"

echo "== create, $ROUNDS interleaved rounds ($(date -u +%FT%TZ), $(nproc) cores, $(bench_load))"
echo "   agentrt: $AGENTRT${BASELINE:+; baseline: $BASELINE}"
echo "   /work: $(find "$T/work" | wc -l) entries; /srv: $(find "$T/srv" | wc -l)"
"$T/runloop" "$ROUNDS" 5 "$T/plan" >"$T/raw" 2>"$T/log" &
RUNLOOP=$!
wait "$RUNLOOP" || { cat "$T/log" >&2; exit 1; }
RUNLOOP=
python3 "$HERE/summary.py" "$T/raw" --step create "${diffs[@]}"
echo "   $(bench_load) at the end"
[[ -z ${BENCH_KEEP:-} ]] || { mkdir -p "$BENCH_KEEP" && cp "$T/raw" "$BENCH_KEEP/create-cost.raw"; }
