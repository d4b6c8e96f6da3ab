#!/bin/bash
# hack/conformance.sh [-t SECONDS] [-o DIR] [-k REGEX] SUITE RUNTIME...: the
# validation tests of opencontainers/runtime-tools against each RUNTIME, one
# test binary after the other, and their TAP results side by side as the
# Markdown tables of docs/conformance.md.
# hack/conformance.sh -r DIR: the tables of an earlier run (its -o DIR).
#
# SUITE is a runtime-tools checkout, already built (its runtimetest, its
# rootfs tarball and the validation/*/*.t binaries; docs/conformance.md says
# which commit): this script neither fetches nor builds it.  RUNTIME is
# `agentrt` (this tree's build in _build/), `runc`, `crun` or a path to one
# of them; the column is named by `RUNTIME --version` (agentrt by the
# commit it was configured at).
#   -t SECONDS  timeout per test binary (default 60)
#   -o DIR      where each run's TAP (NAME/TEST.tap), stderr (.err) and exit
#               status (.rc) go, and the tables (results.md); default: a new
#               directory under /tmp, kept
#   -k REGEX    only the tests whose name matches (e.g. '^linux_cgroups')
# The tests call the runtime without global flags, so each runs through a
# wrapper that adds `--root` (a state directory of this run's own, so that
# nobody else's containers are touched), logs the call (for the container
# ids) and, for agentrt, adds `--policy` with the hardening off and the
# audit trails in the run's directory: the suite judges the OCI runtime
# underneath the hardening.  crun before 1.9 refuses a hybrid cgroup host:
# there each of its test binaries runs in a private mount namespace where
# cgroup2's cgroup.controllers is covered by an empty file (as
# hack/bench.sh does).  The tests run one at a time, at nice 10, each
# killed at its timeout.  They use no network (a network namespace they
# ask for has only lo).
# After each test what it may have left is removed: the containers in the
# run's state directory (delete --force), mounts below the run's TMPDIR
# (where the suite makes its bundles), and empty cgroups made since the run
# began that the suite names (cgrouptest, testdir/cgrouptest/container) or
# that carry a container id the wrapper saw; no other cgroup is touched.
# A test binary passes when it exits 0, every TAP check it printed is ok
# and, if it printed none, no diagnostic either (the hook tests plan 1..0
# and report a failure only as a YAML diagnostic; process_rlimits_fail
# prints nothing at all when the runtime refuses as it should).
# Needs root.  Exit status 0 when every test ran (whatever their results)
# and nothing was left behind; what was is listed.
set -euo pipefail
SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
# shellcheck source=hack/lib.sh
. "$HERE/lib.sh"

usage () { sed -n '2,/^set -euo/p' "$SELF" | sed '$d; s/^# \{0,1\}//'; }

# The cgroup directories the run may leave: those the suite names
# (runtime-tools cgroups/cgroups.go: AbsCgroupPath /cgrouptest,
# RelCgroupPath testdir/cgrouptest/container) and those named by a container
# id the run's wrapper was called with (a runtime's default cgroup path
# ends in the id).  Only directories that did not exist when the run began
# (OUT/cgroups.before) are candidates; rmdir takes only empty ones.
CGROUP_NAMES='^(cgrouptest|testdir|container)$'

# new_cgroups OUT: the cgroup directories made since the run began whose
# path has a component the suite names or one of the run's container ids,
# deepest first.
new_cgroups ()
{
  local out=$1
  find /sys/fs/cgroup -mindepth 1 -type d 2>/dev/null |
    sort | comm -13 "$out/cgroups.before" - |
    awk -v names="$CGROUP_NAMES" -v idfile="$out/ids" '
      BEGIN { while ((getline id < idfile) > 0) ids[id] = 1 }
      { n = split($0, c, "/")
        for (i = 5; i <= n; i++) if (c[i] ~ names || c[i] in ids) { print; next } }' |
    sort -r
}

# clean_run OUT WRAPPER TMP: what a test left behind (it may have been
# killed by the timeout before its own cleanup): its containers, its mounts
# below TMP, TMP's content and its cgroups.
clean_run ()
{
  local out=$1 wrapper=$2 tmp=$3 id mnt cg
  for id in $("$wrapper" list -q 2>/dev/null); do
    "$wrapper" delete --force "$id" >/dev/null 2>&1 || true
  done
  # Mounts of the tests that share this mount namespace (no mount namespace
  # of their own), deepest first.
  while read -r mnt; do
    umount -l "$mnt" 2>/dev/null || true
  done < <(awk -v t="$tmp/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
  # A mount that would not go stays: never delete through it.
  rm -rf --one-file-system "${tmp:?}"/* 2>/dev/null || true
  # The container ids the wrapper saw (the suite's are UUIDs).
  grep -Eoh '[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}' "$out"/*/calls 2>/dev/null |
    sort -u >"$out/ids" || true
  while read -r cg; do rmdir "$cg" 2>/dev/null || true; done < <(new_cgroups "$out")
}

# leftovers OUT: say what the run could not remove (exit status 1 if any).
leftovers ()
{
  local out=$1 left dir
  left=$(
    new_cgroups "$out"
    awk -v t="$out/" 'index($5, t) == 1 { print "mount " $5 }' /proc/self/mountinfo
    for dir in "$out"/*/; do
      [[ -x $dir/runtime ]] && "$dir/runtime" list -q 2>/dev/null | sed 's/^/container /'
    done
  )
  [[ -z $left ]] && return 0
  printf 'conformance.sh: left behind (remove by hand):\n%s\n' "$left" >&2
  return 1
}

# in_env COLUMN-DIR CMD...: CMD as that runtime's tests run (crun on a
# hybrid host: in the private mount namespace described above).
in_env ()
{
  local dir=$1; shift
  if [[ -e $dir/hide-unified ]]; then
    # shellcheck disable=SC2016 # $0 and $@ are the inner shell's
    unshare --mount --propagation private -- sh -c \
      'mount --bind "$0" /sys/fs/cgroup/unified/cgroup.controllers && exec "$@"' \
      "$dir/hide-unified" "$@"
  else
    "$@"
  fi
}

# column OUT RUNTIME: prepare RUNTIME's directory under OUT (wrapper, state,
# TMPDIR) and add "NAME<tab>DIR" to OUT/columns.
column ()
{
  local out=$1 arg=$2 rt version word1 word2 word3 name dir extra=''
  case $arg in
    agentrt) rt=$(agentrt_default_runtime) ;;
    *) rt=$(resolve_runtime "$arg") ;;
  esac
  [[ -x $rt ]] || { echo "conformance.sh: $arg: no such runtime" >&2; return 1; }
  # "runc version 1.1.5+ds1" is runc 1.1.5; agentrt is named by its commit.
  version=$("$rt" --version)
  read -r word1 word2 word3 _ <<<"$version"
  [[ $word2 == version ]] && word2=${word3%%[+~-]*}
  name="$word1 $word2"
  [[ $word1 == agentrt ]] && name="agentrt $(sed -n 's/^commit: *\(.\{7\}\).*/\1/p' <<<"$version")"
  dir=$out/$word1
  mkdir -p "$dir/state" "$dir/tmp"
  if [[ $word1 == agentrt ]]; then
    # The audit trails stay in the run's directory, not /var/log/agentrt.
    printf '{"version": 1, "hardening": "off", "audit": {"dir": "%s/audit"}}\n' \
      "$dir" >"$dir/policy-off.json"
    extra="--policy $dir/policy-off.json"
  fi
  # The wrapper logs each call (DIR/calls: the container ids to clean up).
  printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>%q\nexec %q --root %q %s "$@"\n' \
    "$dir/calls" "$rt" "$dir/state" "$extra" >"$dir/runtime"
  chmod +x "$dir/runtime"
  if [[ $word1 == crun && -e /sys/fs/cgroup/unified/cgroup.controllers ]]; then
    : >"$dir/hide-unified"
  fi
  printf '%s\t%s\n' "$name" "$dir" >>"$out/columns"
}

# run_test SUITE DIR TEST-PATH TIMEOUT: one test binary against one runtime.
run_test ()
{
  local suite=$1 dir=$2 t=$3 timeout_s=$4 test rc=0
  test=$(basename "$t" .t)
  (cd "$suite" && export TMPDIR=$dir/tmp RUNTIME=$dir/runtime &&
    in_env "$dir" nice -n 10 timeout -k 5 "$timeout_s" "./$t") \
    >"$dir/$test.tap" 2>"$dir/$test.err" </dev/null || rc=$?
  echo "$rc" >"$dir/$test.rc"
  in_env "$dir" "$SELF" --clean "$(dirname "$dir")" "$dir/runtime" "$dir/tmp"
}

# cell DIR TEST: "pass OK/ALL", "fail OK/ALL" or "timeout OK/ALL"; "pass"
# or "fail" alone for a test that printed no check.
cell ()
{
  local tap=$1/$2.tap rc ok notok verdict
  rc=$(cat "$1/$2.rc")
  ok=$(grep -c '^ok ' "$tap" || true)
  notok=$(grep -c '^not ok ' "$tap" || true)
  if ((rc == 124 || rc == 137)); then verdict=timeout
  elif ((rc != 0 || notok > 0)); then verdict=fail
  elif ((ok > 0)) || ! grep -q '^  ---' "$tap"; then verdict=pass
  else verdict=fail
  fi
  if ((ok + notok == 0)); then printf '%s' "$verdict"; else printf '%s %d/%d' "$verdict" "$ok" $((ok + notok)); fi
}

# report OUT: the per-test table and the totals of the run in OUT.
report ()
{
  local out=$1 names=() dirs=() tests=() name dir f test c n passed ok all
  while IFS=$'\t' read -r name dir; do names+=("$name") dirs+=("$dir"); done <"$out/columns"
  for f in "${dirs[0]}"/*.rc; do tests+=("$(basename "$f" .rc)"); done
  printf '| test |'; printf ' %s |' "${names[@]}"; printf '\n|---|'; printf -- '---|%.0s' "${names[@]}"; printf '\n'
  for test in "${tests[@]}"; do
    printf '| %s |' "$test"
    for dir in "${dirs[@]}"; do printf ' %s |' "$(cell "$dir" "$test")"; done
    printf '\n'
  done
  printf '\n| | test binaries passed | TAP checks ok |\n|---|---|---|\n'
  for i in "${!names[@]}"; do
    passed=0 ok=0 all=0
    for test in "${tests[@]}"; do
      c=$(cell "${dirs[$i]}" "$test")
      [[ $c == pass* ]] && passed=$((passed + 1))
      if [[ $c == */* ]]; then
        n=${c##* }; ok=$((ok + ${n%/*})); all=$((all + ${n#*/}))
      fi
    done
    printf '| %s | %d / %d | %d / %d |\n' "${names[$i]}" "$passed" "${#tests[@]}" "$ok" "$all"
  done
}

main ()
{
  local timeout_s=60 out='' only=. opt suite f t tests=() dirs=() arg dir
  # Internal: clean_run in in_env's mount namespace.
  if [[ ${1-} == --clean ]]; then clean_run "$2" "$3" "$4"; return; fi
  while getopts 't:o:k:r:h' opt; do
    case $opt in
      t) timeout_s=$OPTARG ;;
      o) out=$OPTARG ;;
      k) only=$OPTARG ;;
      r) report "$OPTARG"; return ;;
      h) usage; return 0 ;;
      *) usage >&2; return 2 ;;
    esac
  done
  shift $((OPTIND - 1))
  if (($# < 2)); then usage >&2; return 2; fi
  suite=$(cd "$1" && pwd); shift
  for f in runtimetest "rootfs-$(uname -m | sed 's/x86_64/amd64/; s/aarch64/arm64/').tar.gz"; do
    [[ -e $suite/$f ]] || { echo "conformance.sh: $suite/$f missing: build the suite first" >&2; return 1; }
  done
  for t in "$suite"/validation/*/*.t; do
    [[ $(basename "$t" .t) =~ $only ]] && tests+=("validation/${t#"$suite"/validation/}")
  done
  ((${#tests[@]})) || { echo "conformance.sh: no test binary in $suite/validation matches" >&2; return 1; }
  [[ -n $out ]] || out=$(mktemp -d /tmp/conformance.XXXXXX)
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  [[ ! -e $out/columns ]] || { echo "conformance.sh: $out holds an earlier run" >&2; return 1; }
  find /sys/fs/cgroup -mindepth 1 -type d 2>/dev/null | sort >"$out/cgroups.before"
  if grep -Eq '/(cgrouptest|testdir)$' "$out/cgroups.before"; then
    echo "conformance.sh: warning: a cgroup the suite uses exists already (left alone):" >&2
    grep -E '/(cgrouptest|testdir)$' "$out/cgroups.before" >&2
  fi
  for arg in "$@"; do column "$out" "$arg"; done

  log "suite $suite, ${#tests[@]} tests, timeout ${timeout_s}s, results in $out"
  mapfile -t dirs < <(cut -f2 "$out/columns")
  for t in "${tests[@]}"; do
    for dir in "${dirs[@]}"; do run_test "$suite" "$dir" "$t" "$timeout_s"; done
  done
  report "$out" | tee "$out/results.md"
  leftovers "$out"
}

main "$@"; exit
