#!/bin/bash
# hack/try.sh [CMD...]: run CMD under agentrt in a throwaway busybox bundle.
# Builds agentrt first when needed (unless RUNTIME points elsewhere), makes
# the bundle in a temporary directory, runs CMD with `run` (default: a
# one-liner printing id, hostname and the mounts), removes everything and
# exits with CMD's status.  With a terminal on stdin and stdout the
# container gets one too, so `hack/try.sh sh` is interactive.
# Environment: RUNTIME (default: the agentrt in _build/), AGENTRT_BUILD_DIR.
set -euo pipefail
SELF=$(readlink -f "$0")
. "$(dirname "$SELF")/lib.sh"

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,8s/^# \{0,1\}//p' "$SELF"
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
  "$RUNTIME" --root "$tmp/state" delete --force "$id" >/dev/null 2>&1 || true
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

# What agentrt's hardening would change in this bundle (once the verb exists).
if "$RUNTIME" policy explain --help >/dev/null 2>&1; then
  "$RUNTIME" policy explain --bundle "$tmp/bundle" >&2 || true
fi

rc=0
"$RUNTIME" --root "$tmp/state" run --bundle "$tmp/bundle" "$id" || rc=$?
exit "$rc"
