#!/bin/bash
# hack/bench/audit-summary.sh [--trails N] [--rounds R]: how long `agentrt
# audit --summary` takes over N trails (default 10000) shaped like an
# engine's jobs (hack/bench/audit_trails.py: about 7.5 kB and 21 lines a
# trail), with the files in the page cache: the table, the JSON, and
# --since a time after every trail (each one opened and judged, none
# read).  Prints the median and the fastest of R rounds (default 5) and
# agentrt's largest resident set (docs/benchmarks.md).  RUNTIME: the agentrt
# to measure (default: built in _build/).
set -euo pipefail
SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
# shellcheck source=hack/lib.sh
. "$HERE/../lib.sh"

trails=10000 rounds=5
while [[ $# -gt 0 ]]; do
  case $1 in
    --trails) trails=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,10s/^# \{0,1\}//p' "$SELF"; exit 0 ;;
    *) echo "audit-summary.sh: unknown argument \`$1\` (see --help)" >&2; exit 2 ;;
  esac
done
for tool in python3 jq; do
  command -v "$tool" >/dev/null || { echo "audit-summary.sh: $tool missing (apt-get install $tool)" >&2; exit 1; }
done
if [[ -z ${RUNTIME:-} ]]; then
  make -C "$AGENTRT_BUILD_DIR" -s -j2 agentrt
fi
AGENTRT=$(resolve_runtime "${RUNTIME:-$(agentrt_default_runtime)}")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentrt-bench-audit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -m 0700 "$tmp/audit"
jq -n --arg a "$tmp/audit" '{version: 1, audit: {dir: $a}}' >"$tmp/policy.json"
echo "writing $trails trails ($(python3 "$HERE/audit_trails.py" "$tmp/audit" "$trails"))"
cat "$tmp/audit"/*.jsonl >/dev/null # into the page cache

python3 - "$AGENTRT" "$tmp/policy.json" "$rounds" <<'PY'
import statistics, subprocess, sys, time
agentrt, policy, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
cases = [("table", []), ("json", ["--format", "json"]),
         ("--since (none read)", ["--since", "2100-01-01"])]
for name, args in cases:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        subprocess.run([agentrt, "--policy", policy, "audit", "--summary"] + args,
                       check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    print("%-22s median %6.3f s   fastest %6.3f s" % (name, statistics.median(times), min(times)))
PY
# the resident set of agentrt alone (a Python child's would count the
# interpreter it was forked from)
if [[ -x /usr/bin/time ]]; then
  /usr/bin/time -f 'largest resident set   %M kB' \
    "$AGENTRT" --policy "$tmp/policy.json" audit --summary --format json >/dev/null
else
  echo "largest resident set   (not measured: /usr/bin/time missing, apt-get install time)"
fi
