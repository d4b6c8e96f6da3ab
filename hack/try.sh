#!/bin/bash
# hack/try.sh [CMD...]: run CMD under agentrt in a throwaway busybox bundle.
# Builds agentrt first when needed (unless RUNTIME points elsewhere), makes
# the bundle in a temporary directory, runs CMD with `run` (default: a
# one-liner printing id, hostname and the mounts) after printing what the
# hardening changes in the bundle (`policy explain`), removes everything
# and exits with CMD's status.  With a terminal on stdin and stdout the
# container gets one too, so `hack/try.sh sh` is interactive.
# Environment: RUNTIME (default: the agentrt in _build/), AGENTRT_BUILD_DIR.
set -euo pipefail
SELF=$(readlink -f "$0")
. "$(dirname "$SELF")/lib.sh"

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,9s/^# \{0,1\}//p' "$SELF"
  exit 0
fi
if [[ $EUID -ne 0 ]]; then
  echo "try.sh: run as root (the runtime creates namespaces, mounts and cgroups)" >&2
  exit 1
fi

# Build (or bring up to date) the default runtime.
if [[ -z ${RUNTIME:-} ]]; then
  RUNTIME=$(agentrt_default_runtime)
  if [[ ! -f $AGENTRT_BUILD_DIR/Makefile ]]; then
    (cd "$AGENTRT_TOP" && { [[ -x configure ]] || ./autogen.sh >/dev/null; })
    mkdir -p "$AGENTRT_BUILD_DIR"
    (cd "$AGENTRT_BUILD_DIR" && "$AGENTRT_TOP/configure" -q)
  fi
  make -C "$AGENTRT_BUILD_DIR" -s -j"$(nproc)" agentrt
fi
RUNTIME=$(resolve_runtime "$RUNTIME")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentrt-try.XXXXXX")
id=try-$$
cleanup ()
{
  "$RUNTIME" --root "$tmp/state" --policy "$tmp/policy.json" delete --force "$id" >/dev/null 2>&1 || true
  rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT

mkbundle "$tmp/bundle" "$RUNTIME"
if [[ $# -eq 0 ]]; then
  set -- sh -c 'id; hostname; cat /proc/self/mounts'
fi
terminal=false
[[ -t 0 && -t 1 ]] && terminal=true
jq --argjson t "$terminal" '.process.args = $ARGS.positional | .process.terminal = $t' \
  --args -- "$@" <"$tmp/bundle/config.json" >"$tmp/config.json"
mv "$tmp/config.json" "$tmp/bundle/config.json"

# The default admin policy, with what a build tree lacks: the agent
# seccomp profile from the source tree (not yet under $(pkgdatadir)) and
# an audit dir of our own (not /var/log/agentrt).
jq -n --arg p "$AGENTRT_TOP/seccomp-profiles/agent-default.json" --arg a "$tmp/audit" \
  '{version: 1, seccomp: {profile: $p}, audit: {dir: $a}}' >"$tmp/policy.json"
rt=("$RUNTIME" --root "$tmp/state" --policy "$tmp/policy.json")

# What the hardening changes in this bundle, then the run itself.
"${rt[@]}" policy explain --bundle "$tmp/bundle" >&2
rc=0
"${rt[@]}" run --bundle "$tmp/bundle" "$id" || rc=$?
exit "$rc"
