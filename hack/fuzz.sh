#!/bin/bash
# hack/fuzz.sh: builds every libFuzzer target of tests/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) against the sources and runs each
# for SECONDS (default 60) from its committed seed corpus.  Prints the
# executions, speed and new coverage per target.  A crash, leak, timeout
# or sanitizer report keeps its input (the artifact) and makes the script
# exit non-zero.  What CI runs: `hack/fuzz.sh 10` (from hack/test.sh).
#
#   hack/fuzz.sh [OPTIONS] [SECONDS] [TARGET...]
#     TARGET            config, http, socks5, allowlist, policy-file, peek,
#                       dns-query, annotations, inject, ask-answer (default:
#                       all of them)
#     --corpus-out DIR  keep the new corpus entries in DIR/TARGET/ (default:
#                       a temporary directory, removed; commit only small,
#                       useful seeds to tests/fuzz/corpus/ by hand)
#     --build-only      build the targets and stop
#     -j N              make parallelism (default: number of CPUs)
# Environment: AGENTRT_FUZZ_BUILD_DIR (default _build-fuzz/: the libraries
# built with clang and fuzzer instrumentation, the targets, and artifacts/
# where crashing inputs are kept).
set -euo pipefail

SELF=$(readlink -f "$0")
. "$(dirname "$SELF")/lib.sh"
cd "$AGENTRT_TOP"

BUILD=${AGENTRT_FUZZ_BUILD_DIR:-$AGENTRT_TOP/_build-fuzz}
SANITIZERS=-fsanitize=address,undefined
# The libraries every target links against, in link order.
LIBS=(libpolicyfile.a libpolicy.a libegress.a liboci.a libcommon.a)
ALL_TARGETS=(config http socks5 allowlist policy-file annotations peek dns-query inject
             ask-answer)

usage ()
{
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$SELF"
  exit "${1:-0}"
}

seconds=60 corpus_out='' build_only=0 jobs=$(nproc)
targets=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --corpus-out) corpus_out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    --build-only) build_only=1; shift ;;
    -j) jobs=$2; shift 2 ;;
    -j[0-9]*) jobs=${1#-j}; shift ;;
    -h|--help) usage 0 ;;
    -*) usage 2 >&2 ;;
    *[!0-9]*) targets+=("$1"); shift ;;
    *) seconds=$1; shift ;;
  esac
done
((${#targets[@]} > 0)) || targets=("${ALL_TARGETS[@]}")
for t in "${targets[@]}"; do
  [[ -f tests/fuzz/fuzz-$t.c ]] || { echo "no target tests/fuzz/fuzz-$t.c" >&2; exit 2; }
done

# The libraries, instrumented for coverage (fuzzer-no-link) and built with
# the same sanitizers as the targets; configured once, make keeps them
# up to date with the sources.
build_libs ()
{
  command -v clang >/dev/null || { echo "clang is needed (apt-get install clang)" >&2; return 1; }
  if [[ ! -x configure || configure.ac -nt configure ]]; then
    log "autogen"
    quietly ./autogen.sh
  fi
  mkdir -p "$BUILD"
  if [[ ! -f $BUILD/Makefile ]]; then
    log "configure (in $BUILD)"
    (cd "$BUILD" && quietly "$AGENTRT_TOP/configure" -q CC=clang --enable-sanitizers \
      CFLAGS="-g -O1 -fsanitize=fuzzer-no-link")
  fi
  log "make ${LIBS[*]} (in $BUILD)"
  quietly make -C "$BUILD" -j"$jobs" "${LIBS[@]}"
}

# build_target NAME: $BUILD/fuzz-NAME, relinked when its source or a
# library is newer.
build_target ()
{
  local name=$1 src=tests/fuzz/fuzz-$1.c out=$BUILD/fuzz-$1 lib stale=0
  [[ -x $out && $out -nt $src ]] || stale=1
  for lib in "${LIBS[@]}"; do
    [[ $out -nt $BUILD/$lib ]] || stale=1
  done
  ((stale)) || return 0
  quietly clang -g -O1 -fsanitize=fuzzer "$SANITIZERS" -fno-sanitize-recover=all \
    -fno-omit-frame-pointer -I"$AGENTRT_TOP" -I"$BUILD" "$src" \
    "${LIBS[@]/#/$BUILD/}" -lyajl -o "$out"
}

# fuzz_stat NAME FILE: a libFuzzer final statistic (-print_final_stats=1).
fuzz_stat ()
{
  awk -v k="stat::$1:" '$1 == k { print $2 }' "$2" | tail -n 1
}

# run_target NAME: fuzz for $seconds; prints one summary line; returns
# non-zero on any finding.
run_target ()
{
  local name=$1 out=$BUILD/fuzz-$1.log new rc=0 max_len=4096 execs rate units
  if [[ -n $corpus_out ]]; then
    new=$corpus_out/$name
  else
    new=$TMP/corpus-$name
  fi
  mkdir -p "$new" "$BUILD/artifacts"
  case $name in
    config|policy-file) max_len=65536 ;;
  esac
  "$BUILD/fuzz-$name" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/$name-" \
    "$new" "tests/fuzz/corpus/${name%-file}" >"$out" 2>&1 || rc=$?
  execs=$(fuzz_stat number_of_executed_units "$out")
  rate=$(fuzz_stat average_exec_per_sec "$out")
  units=$(fuzz_stat new_units_added "$out")
  printf '%-12s %8s s %12s execs %8s/s %6s new  %s\n' "$name" "$seconds" \
    "${execs:-?}" "${rate:-?}" "${units:-?}" "$( ((rc == 0)) && echo ok || echo "FAILED (exit $rc)")"
  if ((rc != 0)); then
    grep -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|artifact_prefix|Test unit written' "$out" | head -n 20
    echo "full log: $out"
    return 1
  fi
}

main ()
{
  local failed=() t
  build_libs
  log "link ${targets[*]}"
  for t in "${targets[@]}"; do
    build_target "$t"
  done
  ((build_only)) && return 0

  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  # The targets' own settings, not those of a caller (hack/test.sh
  # --sanitize sends reports to files).
  unset ASAN_OPTIONS LSAN_OPTIONS
  export UBSAN_OPTIONS=print_stacktrace=1
  log "fuzzing each target for $seconds s"
  for t in "${targets[@]}"; do
    run_target "$t" || failed+=("$t")
  done
  if ((${#failed[@]} > 0)); then
    echo "fuzzing found problems in: ${failed[*]} (inputs kept in $BUILD/artifacts/)" >&2
    return 1
  fi
}

main
