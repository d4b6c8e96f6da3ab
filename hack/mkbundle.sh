#!/bin/bash
# hack/mkbundle.sh: make an OCI bundle (busybox-static rootfs + config.json).
#   hack/mkbundle.sh [-r RUNTIME] [--template] DIR
# config.json comes from `RUNTIME spec` when that works (default runtime:
# the built agentrt), else from hack/config-template.json; --template
# forces the template.  The process is `sh` without a terminal: edit it
# with jq.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage ()
{
  sed -n '2,7s/^# \{0,1\}//p' "$0"
  exit "${1:-0}"
}

runtime=${RUNTIME:-$(agentrt_default_runtime)}
while [[ $# -gt 0 ]]; do
  case $1 in
    -r|--runtime) runtime=$(resolve_runtime "$2"); shift 2 ;;
    --template) export MKBUNDLE_TEMPLATE=1; shift ;;
    -h|--help) usage 0 ;;
    -*) usage 2 >&2 ;;
    *) break ;;
  esac
done
[[ $# -eq 1 ]] || usage 2 >&2
mkbundle "$1" "$runtime"
