#!/bin/bash
# hack/try.sh [--verbose] [--no-deps] [CMD...]
# hack/try.sh --demo [--verbose] [--no-deps]
#
# Runs CMD under agentrt in a throwaway busybox bundle (default: a
# one-liner showing who it runs as, its proxy and a write to the root).
# Installs what is missing first (hack/deps.sh: the same step as
# hack/test.sh), builds agentrt when needed (unless RUNTIME points
# elsewhere), prints a short summary of what the hardening changed in the
# bundle (--verbose: every change and the effective config, `agentrt
# policy explain`), runs CMD with `run`, removes everything and exits with
# CMD's status.  With a terminal on stdin and stdout the container gets one
# too, so `hack/try.sh sh` is interactive.
#
# --demo: one sandbox shaped like an engine would hand over an agent's
# job (secrets in its environment, the user's home bound with .ssh and
# .aws, the engine's docker.sock, a writable root, a network namespace
# with a test server at 10.87.0.2 and .3 of the demo's own namespaces, .2
# allowlisted), in which an agent does its work and tries its attacks, one
# line each: passed or blocked, with the evidence.  Exits 0 when every
# attack was blocked and all the work passed.  Under another runtime
# (RUNTIME=runc) the same demo is the control: the attacks get through.
#
# Environment: RUNTIME (default: the agentrt in _build/), AGENTRT_BUILD_DIR.
set -euo pipefail
SELF=$(readlink -f "$0")
HACK=$(dirname "$SELF")
. "$HACK/lib.sh"
. "$HACK/deps.sh"

verbose=0 demo=0 deps=1
while [[ $# -gt 0 ]]; do
  case $1 in
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$SELF"; exit 0 ;;
    -v|--verbose) verbose=1; shift ;;
    --demo) demo=1; shift ;;
    --no-deps) deps=0; shift ;;
    --) shift; break ;;
    -*) echo "try.sh: unknown option \`$1\` (hack/try.sh --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
if ((demo && $# > 0)); then
  echo "try.sh: --demo runs its own agent, not \`$*\`" >&2
  exit 2
fi
if [[ $EUID -ne 0 ]]; then
  echo "try.sh: run as root, e.g. \`sudo hack/try.sh\` (the runtime creates namespaces, mounts and cgroups)" >&2
  exit 1
fi

if ((deps)); then
  if [[ -z ${RUNTIME:-} ]]; then
    install_deps "${DEPS_BUILD[@]}" "${DEPS_TRY[@]}"
  else
    install_deps "${DEPS_TRY[@]}"
  fi
fi

# Build (or bring up to date) the default runtime and its sidecar.
if [[ -z ${RUNTIME:-} ]]; then
  RUNTIME=$(agentrt_default_runtime)
  if [[ ! -f $AGENTRT_BUILD_DIR/Makefile ]]; then
    log "building agentrt in ${AGENTRT_BUILD_DIR} (the first time takes a few minutes)"
    (cd "$AGENTRT_TOP" && { [[ -x configure ]] || quietly ./autogen.sh; })
    mkdir -p "$AGENTRT_BUILD_DIR"
    (cd "$AGENTRT_BUILD_DIR" && quietly "$AGENTRT_TOP/configure")
  fi
  make -C "$AGENTRT_BUILD_DIR" -s -j"$(nproc)" agentrt agentrt-egress
fi
RUNTIME=$(resolve_runtime "$RUNTIME")
runtime_name=$("$RUNTIME" --version 2>/dev/null | awk 'NR == 1 { print $1 }')

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentrt-try.XXXXXX")
id=try-$$
CLEANUP=()
cleanup ()
{
  local i
  "${rt[@]}" delete --force "$id" >/dev/null 2>&1 || true
  for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do
    eval "${CLEANUP[i]}" >/dev/null 2>&1 || true
  done
  rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The default admin policy, with what a build tree lacks: the agent
# seccomp profile from the source tree (not yet under $(pkgdatadir)) and
# an audit dir of our own (not /var/log/agentrt).  Other runtimes get
# neither flag.
rt=("$RUNTIME" --root "$tmp/state")
if [[ $runtime_name == agentrt ]]; then
  jq -n --arg p "$AGENTRT_TOP/seccomp-profiles/agent-default.json" --arg a "$tmp/audit" \
    '{version: 1, seccomp: {profile: $p}, audit: {dir: $a}}' >"$tmp/policy.json"
  rt+=(--policy "$tmp/policy.json")
fi

# summary EXPLAIN-JSON: what the hardening changed, in a few lines: the
# counts and names that matter.
summary ()
{
  jq -r '
    def names($l): ($l | length | tostring)
      + (if ($l | length) > 0 then ": " + ($l[:4] | join(", "))
           + (if ($l | length) > 4 then ", +\(($l | length) - 4) more" else "" end)
         else "" end);
    def dur: if . % 3600 == 0 then "\(. / 3600)h" elif . % 60 == 0 then "\(. / 60)m" else "\(.)s" end;
    def path: sub(" \\(.*"; "");
    .changes as $c | .directives as $d
    | ($c | map(select(.why | test("socket")))) as $sock
    | "  secrets removed  " + names([$c[] | select(.kind == "env-removed") | .what]),
      "  paths masked     " + names([$c[] | select(.kind == "path-masked" and (.why | test("socket") | not)) | .what | path]),
      "  sockets dropped  " + names([$sock[] | select(.kind == "mount-dropped" or .kind == "path-masked") | .what | path]),
      "  root filesystem  " + ({readonly: "read-only", ephemeral: "ephemeral (a writable overlay in memory)",
                                 writable: "writable (the policy allows it)"}[$d.rootfs] // $d.rootfs)
        + ([$c[] | select(.kind == "tmpfs") | .what | path] | if length > 0 then "; tmpfs on " + join(", ") else "" end),
      "  egress           " + (if $d.egress == "proxy"
          then (if ($d.network.rules // "none") != "none"
                then "only through the sidecar (proxy 127.0.0.1:3128 HTTP, :1080 SOCKS5; "
                  + "any other TCP and DNS redirected to it); allowlist: "
                else "only through the proxy (127.0.0.1:3128 HTTP, :1080 SOCKS5); allowlist: " end)
            + (if ($d.egressAllow // "") == "" then "empty (deny all)" else $d.egressAllow end)
          else "none (lo only)" end),
      "  kernel           seccomp " + (($d.seccompProfile // "off") | sub(".*/"; ""))
        + ", " + ([$c[] | select(.kind == "capability")] | length | tostring) + " capabilities dropped or cleared"
        + (if .config.process.noNewPrivileges then ", no new privileges" else "" end),
      "  limits           " + ([$c[] | select(.kind == "limit") | .what | sub(", memory.swap.*"; "")]
        + ["lifetime " + ($d.lifetime | dur)] | join(", "))
  ' "$1"
}

# explain BUNDLE: the hardening's summary, or everything with --verbose.
explain ()
{
  local n
  if [[ $runtime_name != agentrt ]]; then
    log "$runtime_name: no hardening to show (agentrt's is what this compares with)"
    return 0
  fi
  if ((verbose)); then
    log "agentrt policy explain --bundle ${1#"$tmp"/}"
    "${rt[@]}" policy explain --bundle "$1"
    return 0
  fi
  "${rt[@]}" policy explain --bundle "$1" --format json >"$tmp/explain.json"
  n=$(jq '.changes | length' "$tmp/explain.json")
  log "what agentrt changed in this bundle ($n changes; --verbose lists each)"
  summary "$tmp/explain.json"
}

# ---- hack/try.sh [CMD...] ---------------------------------------------------
try_command ()
{
  mkbundle "$tmp/bundle" "$RUNTIME"
  if [[ $# -eq 0 ]]; then
    set -- sh -c 'id; hostname; echo "HTTP_PROXY=$HTTP_PROXY"; grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status; touch /probe 2>&1 || true'
  fi
  local terminal=false
  [[ -t 0 && -t 1 ]] && terminal=true
  jq --argjson t "$terminal" '.process.args = $ARGS.positional | .process.terminal = $t' \
    --args -- "$@" <"$tmp/bundle/config.json" >"$tmp/config.json"
  mv "$tmp/config.json" "$tmp/bundle/config.json"
  explain "$tmp/bundle"
  log "running: $*"
  local rc=0
  "${rt[@]}" run --bundle "$tmp/bundle" "$id" || rc=$?
  return "$rc"
}

if ((demo)); then
  . "$HACK/try-demo.bash"
  try_demo
else
  rc=0
  try_command "$@" || rc=$?
  ((verbose)) || log "hack/try.sh --demo: an agent's attacks, each blocked, with the evidence"
  exit "$rc"
fi
