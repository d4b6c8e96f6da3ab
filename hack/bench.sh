#!/bin/bash
# hack/bench.sh [--quick] [SECTION...]: agentrt's cost next to runc, crun,
# the bare kernel and tinyproxy, measured in one run (docs/benchmarks.md).
# Sections (default: all):
#   run        `run` of /bin/true in a busybox bundle: agentrt unhardened,
#              hardened without and with the egress sidecar, runc, crun and
#              the kernel floor (unshare of the same namespaces), interleaved;
#              a bundle with an engine's bind mounts (resolv.conf, hosts,
#              hostname, a work directory of a few hundred files: what the
#              hardening opens, judges and scans) under each runtime; and
#              engine-shaped bundles under crun and agentrt off and hardened:
#              Docker's and Podman's seccomp profile as the engines send it
#              (hack/bench/engines), alone and with the engine's masks,
#              read-only paths, capabilities and limits ("-full"); and
#              agentrt hardened running one and two `wget`s through its
#              proxy ("conn1", "conn2"): what the first connection, which
#              starts the sidecar, and a second one add to `run`
#   lifecycle  create, start and delete --force of a detached `sleep`, the
#              same runtimes interleaved, each step timed; agentrt hardened
#              with its user namespace (the default) and without (policy
#              userns.mode "off": "-nouserns"), on the plain bundle and on
#              the engine's binds (what the range allocation and the
#              idmapped mounts add); and the "-full" engine-shaped bundles
#              under crun and agentrt off, hardened, and hardened without
#              its user namespace
#   parallel   PARALLEL_N (default 100) detached `sleep`s created at once,
#              then started at once, killed and deleted (hack/bench/scale.py),
#              for each "-full" engine-shaped bundle, under crun and agentrt
#              hardened and off, PARALLEL_ROUNDS (default 3) rounds in
#              rotating order
#   rootless   `run` of /bin/true hardened, by a throwaway user (`spec
#              --rootless`) and by root (hack/bench/rootless.sh),
#              ROUNDS_ROOTLESS (default 40) interleaved rounds
#   podman     `podman run --rm` of a busybox image with crun, runc and
#              agentrt (hardened and off) as podman's runtime, ROUNDS_PODMAN
#              (default 20) interleaved rounds
#   egress     agentrt-egress against a direct loopback connection and
#              tinyproxy: throughput, CPU per GiB, added time per new
#              connection, memory idle and with 500 tunnels; once started
#              directly (the proxy alone) and once as a container's sidecar
#              (curl and netbench inside a hardened container); new
#              connections also through netbench's minimal relay, the
#              reference for what relaying costs on the machine, and
#              through agentrt-egress --busy-poll-us 0 (no poll window);
#              CPU per connection also when connections come 1 ms apart;
#              the transparent path (the container's netbench and curl
#              connecting straight to the server's address, no proxy) and
#              the DNS stub's cached answer; injected credentials
#              (hack/bench/egress-tls.sh: an intercepted HTTPS download
#              against a direct TLS one, and the time a new intercepted
#              connection adds, EGRESS_TLS_BYTES, EGRESS_TLS_CONNS)
# --quick: a few iterations of everything (CI smoke: the figures mean
# nothing then).  Figures are medians of interleaved rounds and ratios of
# runtimes measured in the same run; the script judges nothing and exits 0
# when every measurement ran (and `parallel` found nothing left behind).
# Needs root, runc, crun, jq, tinyproxy and curl (egress), podman and
# conmon (podman).
# Every section runs on an "engine host": a nat chain on the output hook
# exists (in a network namespace of the script's own), as Docker's,
# Podman's and kube-proxy's rules make one; BENCH_BARE_HOST=1 measures a
# kernel that has none (hack/bench/common.sh, bench_host_nat).
# Environment: RUNTIME (default: agentrt built in _build/, with
# agentrt-egress next to it), RUNC, CRUN, ROUNDS_RUN, ROUNDS_LIFECYCLE,
# EGRESS_BYTES, PARALLEL_N, PARALLEL_ROUNDS, ROUNDS_PODMAN, ROUNDS_ROOTLESS, BENCH_ENGINES
# (default "docker podman"), BENCH_BARE_HOST, BENCH_KEEP (directory to copy the raw figures to),
# AGENTRT_BASELINE (another agentrt build, e.g. the previous commit's:
# `run` and `lifecycle` measure it hardened too, in the same rounds, and
# print what the current one adds to it).
set -euo pipefail
SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
# shellcheck source=hack/lib.sh
. "$HERE/lib.sh"
# shellcheck source=hack/bench/common.sh
. "$HERE/bench/common.sh"

quick=0
sections=()
for arg; do
  case $arg in
    --quick) quick=1 ;;
    run|lifecycle|parallel|podman|egress|rootless) sections+=("$arg") ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$SELF"; exit 0 ;;
    *) echo "bench.sh: unknown argument \`$arg\` (see --help)" >&2; exit 2 ;;
  esac
done
[[ ${#sections[@]} -gt 0 ]] || sections=(run lifecycle parallel podman egress rootless)
bench_require runc crun jq nsenter unshare ip cc python3 numfmt
[[ -n ${BENCH_BARE_HOST:-} ]] || bench_require nft
[[ " ${sections[*]} " != *" egress "* ]] || bench_require tinyproxy curl
[[ " ${sections[*]} " != *" podman "* ]] || bench_require podman conmon
bench_runtimes
BASELINE=${AGENTRT_BASELINE:+$(resolve_runtime "$AGENTRT_BASELINE")}

read -r -a ENGINES <<<"${BENCH_ENGINES:-docker podman}"
if [[ $quick == 1 ]]; then
  : "${ROUNDS_RUN:=4}" "${ROUNDS_LIFECYCLE:=3}" "${EGRESS_BYTES:=67108864}"
  : "${PARALLEL_N:=10}" "${PARALLEL_ROUNDS:=1}" "${ROUNDS_PODMAN:=2}" "${ROUNDS_ROOTLESS:=3}"
  EGRESS_ARGS=(--rounds 1 --conn-rounds 2 --conns 25 --hold 50 --sparse-rounds 1 --sparse-conns 10
    --dns-queries 20)
  WARMUP=1
else
  : "${ROUNDS_RUN:=150}" "${ROUNDS_LIFECYCLE:=80}" "${EGRESS_BYTES:=1073741824}"
  : "${PARALLEL_N:=100}" "${PARALLEL_ROUNDS:=3}" "${ROUNDS_PODMAN:=20}" "${ROUNDS_ROOTLESS:=40}"
  EGRESS_ARGS=(--rounds 5 --conn-rounds 8 --conns 125 --hold 500)
  WARMUP=5
fi

T=$(mktemp -d /tmp/agentrt-bench.XXXXXX)
STATE=$T/state
NETNS=agentrt-bench-$$
# the network namespace the lifecycle's "-path" variants join by path
PATH_NETNS=agentrt-bench-path-$$
# the engine host's nat chain (common.sh: bench_host_nat)
NAT_NETNS=agentrt-bench-nat-$$
CG_PARENT=agentrt-bench-$$
# What podman creates outside the roots it is given: removed at the end
# when this script created them.
HOST_PATHS=(/var/lib/containers/cache/blob-info-cache-v1.boltdb /var/lib/containers/cache
  /var/lib/containers)
PODMAN_CLEANUP=
# Set when scale.py reports a failure: the other sections still run, the
# script exits 1 at the end.
PARALLEL_FAILED=
CRUN_PID=
PIDS=()
STEP=
cleanup ()
{
  local pid
  set +e
  [[ -z $STEP ]] || bench_stop "$STEP"
  bench_delete_all "$STATE" runtime_of
  ip netns del "$NETNS" 2>/dev/null
  ip netns del "$PATH_NETNS" 2>/dev/null
  ip netns del "$NAT_NETNS" 2>/dev/null
  if [[ -n $PODMAN_CLEANUP ]]; then
    nsenter --mount="$CRUN_NS" podman rm --all --force --time 0 >/dev/null 2>&1
    nsenter --mount="$CRUN_NS" podman rmi --all --force >/dev/null 2>&1
    awk -v t="$T/" 'index($5, t) == 1 { print $5 }' "/proc/$CRUN_PID/mountinfo" | sort -r \
      | while read -r m; do nsenter --mount="$CRUN_NS" umount -l "$m"; done
  fi
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  bench_cgroup_remove "$CG_PARENT"
  [[ ! -f $T/podman-made-dirs ]] || xargs -r rmdir <"$T/podman-made-dirs" 2>/dev/null
  bench_host_paths_remove "$T/host-paths-before" "${HOST_PATHS[@]}"
  bench_state_dir_remove "$STATE"
  rm -rf --one-file-system "$T"
}
# runtime_of ROOT: the runtime owning the state root ROOT (for the cleanup)
runtime_of ()
{
  case $1 in
    *-runc) echo "$RUNC" ;;
    *-crun) [[ -z ${CRUN_NS:-} ]] || printf '%s\n' nsenter --mount="$CRUN_NS"; echo "$CRUN" ;;
    *-base) echo "$BASELINE" ;;
    *) echo "$AGENTRT" ;;
  esac
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bench_state_dir "$STATE"
bench_host_nat "$NAT_NETNS"
bench_host_paths_record "$T/host-paths-before" "${HOST_PATHS[@]}"

log () { printf '%s\n' "$*" >&2; }
# step CMD...: CMD in the background, waited for: a signal reaches the
# trap at once instead of after CMD (the cleanup stops it).
step ()
{
  local rc=0
  "$@" &
  STEP=$!
  wait "$STEP" || rc=$?
  STEP=
  return "$rc"
}
load () { bench_load; }

cc -D_GNU_SOURCE -O2 -Wall -o "$T/runloop" "$HERE/bench/runloop.c"
cc -D_GNU_SOURCE -O2 -Wall -o "$T/netbench" "$HERE/bench/netbench.c"

# Bundles: one busybox rootfs, config from `agentrt spec` with an
# ociVersion crun 1.8 accepts; variants differ only in process and
# annotations.
mkbundle "$T/bundle" "$AGENTRT"
jq '.ociVersion = "1.0.2"' "$T/bundle/config.json" >"$T/base.json"
bundle () { bench_bundle "$T" "$@"; } # NAME JQ-FILTER [JQ-ARGS...]
bundle true '.process.args = ["/bin/true"]'
bundle true-none '.process.args = ["/bin/true"] | .annotations["run.agentrt.egress"] = "none"'
# N requests through the proxy (refused: the name is not allowlisted)
WGET='wget -q -O /dev/null http://first.invalid/ 2>/dev/null'
bundle true-conn1 '.process.args = ["sh", "-c", $w + "; true"]' --arg w "$WGET"
bundle true-conn2 '.process.args = ["sh", "-c", $w + "; " + $w + "; true"]' --arg w "$WGET"
bundle sleep '.process.args = ["sleep", "100000"]'
# What engines bind into every container, and a work directory.
bench_engine_files "$T/engine-files"
mkdir -p "$T/work"
cp -r "$AGENTRT_TOP/docs" "$AGENTRT_TOP/runtime" "$AGENTRT_TOP/tests" "$T/work/"
bundle true-binds ".process.args = [\"/bin/true\"] | $BENCH_ENGINE_BINDS
  | .mounts += [{destination: \"/work\", type: \"bind\", source: \$w, options: [\"rbind\", \"rw\"]}]" \
  --arg e "$T/engine-files" --arg w "$T/work"
bundle sleep-none '.process.args = ["sleep", "100000"] | .annotations["run.agentrt.egress"] = "none"'
bundle sleep-binds '.process.args = ["sleep", "100000"]
  | .mounts += [{destination: "/etc/resolv.conf", type: "bind", source: ($e + "/resolv.conf"), options: ["rbind", "ro"]},
      {destination: "/etc/hosts", type: "bind", source: ($e + "/hosts"), options: ["rbind", "ro"]},
      {destination: "/etc/hostname", type: "bind", source: ($e + "/hostname"), options: ["rbind", "ro"]},
      {destination: "/work", type: "bind", source: $w, options: ["rbind", "rw"]}]' \
  --arg e "$T/engine-files" --arg w "$T/work"
# Joining a network namespace by path, as CRI and Podman's CNI hand it
# (Docker's new namespace comes with a prestart hook: the same for agentrt).
# Without egress agentrt then makes the agent's own namespace too, so the
# "-path" pair differs only by the sidecar; the pair above (a new namespace
# no hook configures) is egress=none's shortcut (docs/policy.md, `fresh`).
JOIN_PATH='.linux.namespaces |= map(if .type == "network" then .path = $p else . end)'
bundle sleep-none-path ".process.args = [\"sleep\", \"100000\"] | .annotations[\"run.agentrt.egress\"] = \"none\" | $JOIN_PATH" \
  --arg p "/run/netns/$PATH_NETNS"
bundle sleep-path ".process.args = [\"sleep\", \"100000\"] | $JOIN_PATH" --arg p "/run/netns/$PATH_NETNS"

# Engine-shaped bundles: ENGINE, the base with the engine's seccomp profile
# as the engine sent it; ENGINE-full, with the engine's masked and
# read-only paths, capabilities and limits too (common.sh).
ENGINE_FULL=$BENCH_ENGINE_FULL
for e in "${ENGINES[@]}"; do
  mapfile -t eargs < <(bench_engine_args "$e")
  bundle "true-$e" '.process.args = ["/bin/true"] | .linux.seccomp = $s[0]' "${eargs[@]}"
  bundle "true-$e-full" ".process.args = [\"/bin/true\"] | $ENGINE_FULL" "${eargs[@]}"
  bundle "sleep-$e-full" ".process.args = [\"sleep\", \"100000\"] | $ENGINE_FULL" "${eargs[@]}"
done

bench_policies "$T"

# crun 1.8 refuses this machine's hybrid cgroups: it runs in a private
# mount namespace (held by a sleep of ours) where cgroup2's
# cgroup.controllers is covered by an empty file.  runloop joins it with
# setns before exec; nothing changes on the host.
: >"$T/empty"
# shellcheck disable=SC2016 # \$1 is the inner shell's
unshare --mount --propagation private -- sh -c \
  'mount --bind "$1" /sys/fs/cgroup/unified/cgroup.controllers && exec sleep 1000000' \
  sh "$T/empty" &
PIDS+=($!)
CRUN_PID=$!
for _ in $(seq 100); do
  grep -q ' /sys/fs/cgroup/unified/cgroup.controllers ' "/proc/$CRUN_PID/mountinfo" 2>/dev/null && break
  sleep 0.05
done
CRUN_NS=/proc/$CRUN_PID/ns/mnt
if [[ $(nsenter --mount="$CRUN_NS" cat /sys/fs/cgroup/unified/cgroup.controllers) != "" ]]; then
  log "bench.sh: could not prepare crun's mount namespace"
  exit 1
fi

# plan_line VARIANT STEP MNTNS ARGS...: one runloop step.
plan_line () { local IFS=$'\t'; printf '%s\n' "$*"; }
AGENTRT_OFF=("$AGENTRT" --root "$STATE/root-off" --policy "$T/policy-off.json")
AGENTRT_HARD=("$AGENTRT" --root "$STATE/root-hard" --policy "$T/policy-hard.json")
BASELINE_HARD=("$BASELINE" --root "$STATE/root-base" --policy "$T/policy-hard.json")
# hardened without the container's own user namespace (policy userns.mode
# "off"; the default has one): what it and its idmapped mounts add
jq '.userns.mode = "off"' "$T/policy-hard.json" >"$T/policy-hard-nouserns.json"
AGENTRT_NOUSERNS=("$AGENTRT" --root "$STATE/root-nouserns" --policy "$T/policy-hard-nouserns.json")

# section_header NAME TITLE: the title, date and load; the load goes to
# the summary too.
section_header ()
{
  log ""
  log "== $1: $2 ($(date -u +%FT%TZ), $(load); $(bench_host_nat_state))"
  printf 'load.%s %s\n' "$1" "$(load | cut -d' ' -f2 | tr -d ,)" >>"$T/raw-load.kv"
}

# The engine-shaped variants, and summary.py's figures for them: agentrt
# (off and hardened) against crun on the same bundle, what hardening adds
# there, and what the engine's profile adds to each runtime.
ENGINE_VARIANTS=()
for e in "${ENGINES[@]}"; do ENGINE_VARIANTS+=("$e" "$e-full"); done
# engine_figures SECTION
engine_figures ()
{
  local v
  for v in "${ENGINE_VARIANTS[@]}"; do
    [[ $1 == run || $v == *-full ]] || continue
    printf -- '--ratio %s ' "agentrt-hard-$v/crun-$v" "agentrt-$v/crun-$v"
    printf -- '--diff %s ' "agentrt-hard-$v:agentrt-$v"
    [[ $1 != run ]] || printf -- '--diff %s ' "crun-$v:crun" "agentrt-hard-$v:agentrt-hard"
    [[ $1 != lifecycle ]] || printf -- '--diff %s ' "agentrt-hard-$v:agentrt-hard-$v-nouserns"
    [[ -z $BASELINE ]] || printf -- '--ratio %s --diff %s ' "baseline-hard-$v/crun-$v" \
      "agentrt-hard-$v:baseline-hard-$v"
  done
}

# ---- run -------------------------------------------------------------------
section_run ()
{
  section_header run "/bin/true, $ROUNDS_RUN interleaved rounds"
  {
    plan_line floor run - unshare --mount --pid --net --uts --ipc --fork /bin/true
    plan_line runc run - "$RUNC" --root "$STATE/root-runc" run --bundle "$T/true" r@I@
    plan_line crun run "$CRUN_NS" "$CRUN" --root "$STATE/root-crun" run --bundle "$T/true" c@I@
    plan_line agentrt run - "${AGENTRT_OFF[@]}" run --bundle "$T/true" a@I@
    plan_line agentrt-hard-none run - "${AGENTRT_HARD[@]}" run --bundle "$T/true-none" n@I@
    plan_line agentrt-hard run - "${AGENTRT_HARD[@]}" run --bundle "$T/true" h@I@
    plan_line agentrt-hard-conn1 run - "${AGENTRT_HARD[@]}" run --bundle "$T/true-conn1" h1@I@
    plan_line agentrt-hard-conn2 run - "${AGENTRT_HARD[@]}" run --bundle "$T/true-conn2" h2@I@
    plan_line runc-binds run - "$RUNC" --root "$STATE/root-runc" run --bundle "$T/true-binds" rb@I@
    plan_line crun-binds run "$CRUN_NS" "$CRUN" --root "$STATE/root-crun" run --bundle "$T/true-binds" cb@I@
    plan_line agentrt-binds run - "${AGENTRT_OFF[@]}" run --bundle "$T/true-binds" ab@I@
    plan_line agentrt-hard-binds run - "${AGENTRT_HARD[@]}" run --bundle "$T/true-binds" hb@I@
    if [[ -n $BASELINE ]]; then
      plan_line baseline-hard run - "${BASELINE_HARD[@]}" run --bundle "$T/true" bh@I@
      plan_line baseline-hard-conn1 run - "${BASELINE_HARD[@]}" run --bundle "$T/true-conn1" b1@I@
      plan_line baseline-hard-binds run - "${BASELINE_HARD[@]}" run --bundle "$T/true-binds" bb@I@
    fi
    for v in "${ENGINE_VARIANTS[@]}"; do
      plan_line "crun-$v" run "$CRUN_NS" "$CRUN" --root "$STATE/root-crun" run --bundle "$T/true-$v" "c$v@I@"
      plan_line "agentrt-$v" run - "${AGENTRT_OFF[@]}" run --bundle "$T/true-$v" "a$v@I@"
      plan_line "agentrt-hard-$v" run - "${AGENTRT_HARD[@]}" run --bundle "$T/true-$v" "h$v@I@"
      [[ -z $BASELINE ]] \
        || plan_line "baseline-hard-$v" run - "${BASELINE_HARD[@]}" run --bundle "$T/true-$v" "b$v@I@"
    done
  } >"$T/plan-run"
  step "$T/runloop" "$ROUNDS_RUN" "$WARMUP" "$T/plan-run" >"$T/raw-run" 2>"$T/log-run" \
    || { cat "$T/log-run" >&2; return 1; }
  python3 "$HERE/bench/summary.py" "$T/raw-run" --prefix run. \
    --ratio agentrt/runc --ratio agentrt/crun --ratio agentrt/floor --ratio crun/runc \
    --ratio crun/floor --ratio agentrt-hard/crun --ratio agentrt-hard-binds/crun-binds \
    --ratio agentrt-binds/crun-binds \
    --diff agentrt-hard-none:agentrt --diff agentrt-hard:agentrt-hard-none \
    --diff agentrt-hard:agentrt --diff agentrt-hard-binds:agentrt-hard \
    --diff agentrt-hard-binds:agentrt-binds \
    --diff agentrt-hard-conn1:agentrt-hard --diff agentrt-hard-conn2:agentrt-hard-conn1 \
    ${BASELINE:+--ratio baseline-hard/crun --diff agentrt-hard:baseline-hard} \
    ${BASELINE:+--diff agentrt-hard-conn1:baseline-hard-conn1} \
    ${BASELINE:+--diff agentrt-hard-binds:baseline-hard-binds} \
    $(engine_figures run) >&2
  log "   $(load) at the end"
}

# ---- lifecycle ---------------------------------------------------------------
section_lifecycle ()
{
  local v ns b rt=()
  section_header lifecycle "create, start, delete --force of sleep, $ROUNDS_LIFECYCLE interleaved rounds"
  ip netns add "$PATH_NETNS"
  local variants=(runc crun agentrt agentrt-hard-none agentrt-hard agentrt-hard-none-path
    agentrt-hard-path agentrt-hard-nouserns agentrt-hard-binds agentrt-hard-binds-nouserns)
  for v in "${ENGINE_VARIANTS[@]}"; do
    [[ $v == *-full ]] || continue
    variants+=("crun-$v" "agentrt-$v" "agentrt-hard-$v" "agentrt-hard-$v-nouserns")
    [[ -z $BASELINE ]] || variants+=("baseline-hard-$v")
  done
  for v in "${variants[@]}"; do
    ns=- b=$T/sleep
    case $v in
      runc) rt=("$RUNC" --root "$STATE/root-runc") ;;
      crun) rt=("$CRUN" --root "$STATE/root-crun") ns=$CRUN_NS ;;
      agentrt) rt=("${AGENTRT_OFF[@]}") ;;
      agentrt-hard-none) rt=("${AGENTRT_HARD[@]}") b=$T/sleep-none ;;
      agentrt-hard) rt=("${AGENTRT_HARD[@]}") ;;
      agentrt-hard-none-path) rt=("${AGENTRT_HARD[@]}") b=$T/sleep-none-path ;;
      agentrt-hard-path) rt=("${AGENTRT_HARD[@]}") b=$T/sleep-path ;;
      agentrt-hard-nouserns) rt=("${AGENTRT_NOUSERNS[@]}") ;;
      agentrt-hard-binds) rt=("${AGENTRT_HARD[@]}") b=$T/sleep-binds ;;
      agentrt-hard-binds-nouserns) rt=("${AGENTRT_NOUSERNS[@]}") b=$T/sleep-binds ;;
      crun-*) rt=("$CRUN" --root "$STATE/root-crun") ns=$CRUN_NS b=$T/sleep-${v#crun-} ;;
      agentrt-hard-*-nouserns) rt=("${AGENTRT_NOUSERNS[@]}") b=$T/sleep-${v#agentrt-hard-} b=${b%-nouserns} ;;
      agentrt-hard-*) rt=("${AGENTRT_HARD[@]}") b=$T/sleep-${v#agentrt-hard-} ;;
      agentrt-*) rt=("${AGENTRT_OFF[@]}") b=$T/sleep-${v#agentrt-} ;;
      baseline-hard-*) rt=("${BASELINE_HARD[@]}") b=$T/sleep-${v#baseline-hard-} ;;
    esac
    plan_line "$v" create "$ns" "${rt[@]}" create --bundle "$b" "l$v-@I@"
    plan_line "$v" start "$ns" "${rt[@]}" start "l$v-@I@"
    plan_line "$v" delete "$ns" "${rt[@]}" delete --force "l$v-@I@"
  done >"$T/plan-lifecycle"
  step "$T/runloop" "$ROUNDS_LIFECYCLE" "$WARMUP" "$T/plan-lifecycle" >"$T/raw-lifecycle" \
    2>"$T/log-lifecycle" || { cat "$T/log-lifecycle" >&2; return 1; }
  local step
  for step in create start delete ""; do
    python3 "$HERE/bench/summary.py" "$T/raw-lifecycle" --prefix lifecycle. ${step:+--step "$step"} \
      --ratio agentrt/runc --ratio agentrt/crun --ratio crun/runc \
      --diff agentrt-hard-none:agentrt --diff agentrt-hard:agentrt-hard-none \
      --diff agentrt-hard-path:agentrt-hard-none-path \
      --diff agentrt-hard:agentrt-hard-nouserns \
      --diff agentrt-hard-binds:agentrt-hard-binds-nouserns $(engine_figures lifecycle) >&2
  done
  log "   $(load) at the end"
}

# ---- parallel -----------------------------------------------------------------
# hack/bench/scale.py on the engine-shaped bundles.  Every runtime's
# commands go through the same small exec wrapper (inns: setns into crun's
# mount namespace for crun, nothing for the others), so that none pays an
# exec the others do not.
section_parallel ()
{
  local v args
  section_header parallel "$PARALLEL_N containers at once, $PARALLEL_ROUNDS rounds"
  cc -D_GNU_SOURCE -O2 -Wall -o "$T/inns" "$HERE/bench/inns.c"
  for v in "${ENGINE_VARIANTS[@]}"; do
    [[ $v == *-full ]] || continue
    log "-- $v (bundle $T/sleep-$v)"
    args=(--runtime "crun=$STATE/root-crun=$T/inns $CRUN_NS $CRUN --root $STATE/root-crun"
      --runtime "agentrt-hard=$STATE/root-hard=$T/inns - ${AGENTRT_HARD[*]}"
      --runtime "agentrt=$STATE/root-off=$T/inns - ${AGENTRT_OFF[*]}")
    step python3 "$HERE/bench/scale.py" -n "$PARALLEL_N" --rounds "$PARALLEL_ROUNDS" \
      --prefix "par$$-$v" --bundle "$T/sleep-$v" --logs "$T/logs-parallel" \
      --kv "$T/parallel-$v.kv" --ratio agentrt-hard/crun --ratio agentrt/crun \
      "${args[@]}" >&2 || PARALLEL_FAILED=1
    sed "s/^scale\./parallel.$v./" "$T/parallel-$v.kv" >>"$T/raw-parallel.kv"
  done
  log "   $(load) at the end"
}

# ---- egress ------------------------------------------------------------------
# The egress section's world: a network namespace of ours with only lo up,
# holding the server, tinyproxy, agentrt-egress started directly (as
# tests/egress/launch.py starts it for its harness: listeners inherited,
# pidfd of a watched process, audit file), and the outside of a hardened
# agentrt container whose sidecar is allowed to reach the server.  The
# server also has 1.2.3.10 (on lo, a "public" address: the container's
# programs reach it through the transparent path, which leaves loopback
# alone), named bench.test in the hosts file the container is given.
section_egress ()
{
  local port=18080 tp_port=18081 eg_port=18082 relay_port=18084 np_port=18086 id=egress-bench
  section_header egress "$(numfmt --to=iec "$EGRESS_BYTES") downloads, new connections, memory"
  ip netns add "$NETNS"
  ip -n "$NETNS" link set lo up
  ip -n "$NETNS" addr add 1.2.3.10/32 dev lo
  local inns=(nsenter --net="/run/netns/$NETNS")

  "${inns[@]}" "$T/netbench" serve "$port" &
  PIDS+=($!)
  local server_pid=$!
  cat >"$T/tinyproxy.conf" <<EOF
Port $tp_port
Listen 127.0.0.1
Timeout 600
MaxClients 1000
Allow 127.0.0.1
LogLevel Critical
User nobody
Group nogroup
EOF
  "${inns[@]}" tinyproxy -d -c "$T/tinyproxy.conf" &
  PIDS+=($!)
  local tp_pid=$!
  # The reference for what relaying costs per connection here: netbench's
  # minimal relay (blocking, one connection at a time, no checks).
  "${inns[@]}" "$T/netbench" relay "$relay_port" "$port" &
  PIDS+=($!)
  local relay_pid=$!
  "${inns[@]}" sleep 1000000 &
  PIDS+=($!)
  local watched=$!
  "${inns[@]}" python3 "$AGENTRT_TOP/tests/egress/launch.py" --proxy "$EGRESS_BIN" \
    --watch-pid "$watched" --audit "$T/egress-direct.jsonl" --http-port "$eg_port" \
    --socks-port $((eg_port + 1)) --allow "127.0.0.1:$port" &
  PIDS+=($!)
  local eg_pid=$!
  # The same proxy that never polls before sleeping (--busy-poll-us 0):
  # what the poll window buys and costs.
  "${inns[@]}" python3 "$AGENTRT_TOP/tests/egress/launch.py" --proxy "$EGRESS_BIN" \
    --watch-pid "$watched" --audit "$T/egress-no-poll.jsonl" --http-port "$np_port" \
    --socks-port $((np_port + 1)) --allow "127.0.0.1:$port" --busy-poll-us 0 &
  PIDS+=($!)
  local np_pid=$!

  # The container: busybox plus the host's /usr (curl) read-only, netbench
  # in /bin, its outside network namespace ours.
  mkdir -p "$T/egress-bundle"
  copy_rootfs "$(rootfs_cache)" "$T/egress-bundle/rootfs"
  mkdir -p "$T/egress-bundle/rootfs/usr"
  ln -s usr/lib "$T/egress-bundle/rootfs/lib"
  ln -s usr/lib64 "$T/egress-bundle/rootfs/lib64"
  cp "$T/netbench" "$T/egress-bundle/rootfs/bin/netbench"
  printf '127.0.0.1 localhost\n1.2.3.10 bench.test\n' >"$T/egress-hosts"
  jq --arg ns "/run/netns/$NETNS" --arg allow "127.0.0.1:$port,1.2.3.10:$port,bench.test:$port" \
     --arg hosts "$T/egress-hosts" '
      .process.args = ["sleep", "100000"]
    | .annotations["run.agentrt.egress.allow"] = $allow
    | .mounts += [{destination: "/usr", type: "bind", source: "/usr",
                   options: ["rbind", "ro", "nosuid", "nodev"]},
                  {destination: "/etc/hosts", type: "bind", source: $hosts,
                   options: ["bind", "ro"]}]
    | .linux.namespaces = [.linux.namespaces[] | if .type == "network" then .path = $ns else . end]' \
    "$T/base.json" >"$T/egress-bundle/config.json"
  "${AGENTRT_HARD[@]}" run --detach --bundle "$T/egress-bundle" "$id" </dev/null >/dev/null 2>"$T/log-egress-ct" \
    || { cat "$T/log-egress-ct" >&2; return 1; }
  local sc_pid
  sc_pid=$(jq .sidecarPid "$STATE/root-hard/$id/state.json")

  for _ in $(seq 100); do
    grep -q "Seccomp:	2" "/proc/$eg_pid/status" 2>/dev/null \
      && grep -q "Seccomp:	2" "/proc/$np_pid/status" 2>/dev/null \
      && "${inns[@]}" "$T/netbench" conns "$tp_port" "$port" 1 >/dev/null 2>&1 && break
    sleep 0.05
  done
  step python3 "$HERE/bench/egress.py" --netbench "$T/netbench" --netns "/run/netns/$NETNS" \
    --port "$port" --server-pid "$server_pid" --bytes "$EGRESS_BYTES" "${EGRESS_ARGS[@]}" \
    --proxy "agentrt-egress:$eg_port:$eg_pid" --proxy "egress-no-poll:$np_port:$np_pid" \
    --proxy "tinyproxy:$tp_port:$tp_pid" \
    --reference "minimal-relay:$relay_port:$relay_pid" \
    --container "sidecar:$sc_pid" --exec "${AGENTRT_HARD[*]} exec $id" \
    --transparent "transparent:1.2.3.10" --dns-name bench.test \
    --kv "$T/raw-egress.kv" >&2
  "${AGENTRT_HARD[@]}" delete --force "$id"
  step "$HERE/bench/egress-tls.sh" "$EGRESS_BIN" "${EGRESS_TLS_BYTES:-$((512 << 20))}" \
    "${EGRESS_TLS_CONNS:-200}" >&2
  log "   $(load) at the end"
}

# ---- podman ------------------------------------------------------------------
# Through a real engine: `podman run --rm --network none IMAGE true` of a
# busybox image with each runtime as podman's --runtime, interleaved.
# Podman (with conmon and podman's own cleanup process) runs in crun's
# mount namespace for every runtime, where a tmpfs is mounted on each
# runtime's default state directory (podman gives runtimes no --root):
# the state is on a tmpfs as on a standard host, and nothing shows on the
# host.  Podman's storage, run root and containers.conf are the section's
# own; its containers go in a cgroup parent of the script's.
section_podman ()
{
  local dir
  section_header podman "podman run --rm, $ROUNDS_PODMAN interleaved rounds"
  bench_podman_world "$T/podman"
  PODMAN_CLEANUP=1
  for dir in /run/crun /run/runc /run/agentrt; do
    [[ -d $dir ]] || { mkdir -p "$dir" && echo "$dir" >>"$T/podman-made-dirs"; }
    nsenter --mount="$CRUN_NS" mount -t tmpfs -o mode=0700,size=64m agentrt-bench-podman "$dir"
  done
  tar -C "$(rootfs_cache)" -cf "$T/busybox.tar" .
  nsenter --mount="$CRUN_NS" podman import "$T/busybox.tar" localhost/art-bench:latest >/dev/null
  local pm=(podman --cgroup-manager cgroupfs)
  local run=(run --rm --network none --cgroup-parent "/$CG_PARENT" localhost/art-bench:latest true)
  {
    plan_line podman-crun run "$CRUN_NS" "${pm[@]}" --runtime "$CRUN" "${run[@]}"
    plan_line podman-runc run "$CRUN_NS" "${pm[@]}" --runtime "$RUNC" "${run[@]}"
    plan_line podman-agentrt-hard run "$CRUN_NS" "${pm[@]}" --runtime "$AGENTRT" \
      --runtime-flag "policy=$T/policy-hard.json" "${run[@]}"
    plan_line podman-agentrt run "$CRUN_NS" "${pm[@]}" --runtime "$AGENTRT" \
      --runtime-flag "policy=$T/policy-off.json" "${run[@]}"
  } >"$T/plan-podman"
  step "$T/runloop" "$ROUNDS_PODMAN" "$WARMUP" "$T/plan-podman" >"$T/raw-podman" \
    2>"$T/log-podman" || { cat "$T/log-podman" >&2; return 1; }
  # each agentrt container left its audit trail: the hardened ones say so
  log "   agentrt's audit trails: $(find "$T/audit" -name '*.jsonl' -newer "$T/plan-podman" \
    -exec cat {} + | jq -s '[.[] | select(.event == "create")] | "\(map(select(.hardened)) | length) hardened, \(map(select(.hardened | not)) | length) not"' -r)"
  python3 "$HERE/bench/summary.py" "$T/raw-podman" --prefix podman. \
    --ratio podman-agentrt-hard/podman-crun --ratio podman-agentrt-hard/podman-runc \
    --ratio podman-agentrt/podman-crun --diff podman-agentrt-hard:podman-crun >&2
  log "   $(load) at the end"
}

# A throwaway user runs agentrt against root running it (hack/bench/rootless.sh).
section_rootless ()
{
  section_header rootless "agentrt run by an ordinary user and by root, $ROUNDS_ROOTLESS interleaved rounds"
  RUNTIME=$AGENTRT "$HERE/bench/rootless.sh" "$ROUNDS_ROOTLESS" >&2
}

# ---- summary -------------------------------------------------------------------
for s in "${sections[@]}"; do
  "section_$s"
done
cat "$T"/raw-*.kv >"$T/all.kv" 2>/dev/null || true
log ""
log "== summary ($(date -u +%FT%TZ), $(nproc) cores, $(load))"
python3 "$HERE/bench/table.py" "$T/all.kv" >&2
if [[ -n ${BENCH_KEEP:-} ]]; then
  mkdir -p "$BENCH_KEEP"
  cp "$T"/raw-* "$T/all.kv" "$BENCH_KEEP/"
fi
if [[ -n $PARALLEL_FAILED ]]; then
  log "bench.sh: parallel: a command failed or something was left behind (above)"
  exit 1
fi
