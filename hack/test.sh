#!/bin/bash
# hack/test.sh: what CI runs (.ci/run).  Installs the build and test
# dependencies (apt-get, only what is missing), builds agentrt out of tree,
# runs the unit tests (make check), the unit tests again built with clang,
# ASan and UBSan (the fast part of --sanitize), each fuzz target briefly
# (hack/fuzz.sh), every bats suite against the built binary (configured
# with the test-only fault points, --enable-fault-injection), the Debian
# package (hack/deb.sh: built, listed, installed into a scratch root) and
# the cgroup v2 VM.  Before the bats suites, hack/lint-bats.sh refuses test
# code that cannot fail.  Each stage starts with `==> [i/N] NAME (time so
# far)`.  Exits non-zero on any failure.
#
#   hack/test.sh [OPTIONS] [BATS-FILE...]
#     --sanitize        clang + --enable-sanitizers in _build-sanitize/
#                       (ASan+UBSan), then the same unit and bats tests;
#                       every process's reports go to files under
#                       _build-sanitize/sanitizer-reports/, and any fails
#                       the run (docs/security.md)
#     --runtime R       run the bats suites against R (e.g. runc) instead
#                       of the built agentrt; skips the build and unit tests
#     --no-deps         do not check or install packages
#     --no-unit         skip make check (both builds)
#     --no-sanitized-unit  skip the unit tests under ASan+UBSan
#     --no-integration  skip the bats suites
#     --no-vm           skip the cgroup v2 VM (hack/vm-test.sh --only v2)
#     --no-deb          skip building and checking the Debian package
#                       (hack/deb.sh; it runs only with the whole
#                       integration suite: not with BATS-FILE..., --runtime,
#                       --sanitize or --no-integration)
#     --no-fuzz         skip the fuzz targets (AGENTRT_FUZZ_SECONDS each,
#                       default 10; not with --sanitize or --runtime)
#     --filter REGEX    only bats tests whose name matches
#     --jobs N          run N bats tests at once (installs GNU parallel);
#                       the tests are isolated, but timing-sensitive ones
#                       get slower under load: serial is the default
#     -j N              make parallelism (default: number of CPUs)
#   BATS-FILE...        run these bats files instead of every suite
# Environment: AGENTRT_BUILD_DIR (default _build/),
# AGENTRT_SANITIZE_BUILD_DIR (default _build-sanitize/), RUNTIME_TIMEOUT.
set -euo pipefail

SELF=$(readlink -f "$0")
. "$(dirname "$SELF")/lib.sh"
. "$(dirname "$SELF")/deps.sh"
cd "$AGENTRT_TOP"

# Build and test dependencies (Debian 12 package names): what building,
# hack/try.sh, the package and the man pages need is in hack/deps.sh.
PACKAGES=(
  "${DEPS_BUILD[@]}" "${DEPS_TRY[@]}" "${DEPS_DEB[@]}" "${DEPS_MAN[@]}" nftables
  bats busybox-static jq iproute2 util-linux coreutils procps python3
  libcap2-bin crun runc publicsuffix
)
# A suite that needs more lists it in tests/<suite>/packages, one a line.
for list in tests/*/packages; do
  [[ -f $list ]] && PACKAGES+=($(grep -v '^#' "$list"))
done
SANITIZE_PACKAGES=(clang)
# The sanitizer build's configuration, shared by --sanitize and the
# sanitized unit tests (one build dir, configured once).
SANITIZE_CONF=(--enable-werror --enable-fault-injection --enable-sanitizers CC=clang)
FUZZ_PACKAGES=(clang)

# The bats suites, in order; a directory without .bats files is skipped.
BATS_SUITES=(
  tests/integration
  tests/clients
)

usage ()
{
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$SELF"
  exit "${1:-0}"
}

sanitize=0 sanitized_unit=1 deb=1 deps=1 unit=1 integration=1 vm=1 fuzz=1 fuzz_ci=0 runtime= filter= jobs=$(nproc) bats_jobs=1
bats_files=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --sanitize) sanitize=1; shift ;;
    --runtime) runtime=$(resolve_runtime "$2"); unit=0; shift 2 ;;
    --no-deps) deps=0; shift ;;
    --no-unit) unit=0; shift ;;
    --no-sanitized-unit) sanitized_unit=0; shift ;;
    --no-integration) integration=0; shift ;;
    --no-vm) vm=0; shift ;;
    --no-deb) deb=0; shift ;;
    --no-fuzz) fuzz=0; shift ;;
    --filter) filter=$2; shift 2 ;;
    --jobs) bats_jobs=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    -*) usage 2 >&2 ;;
    *) bats_files+=("$1"); shift ;;
  esac
done

# step MESSAGE: a step inside a stage.
step ()
{
  printf '  -> %s\n' "$*"
}

# build BUILD-DIR CONFIGURE-ARGS...: autogen when needed, configure once
# (again when the arguments change), make.  make reruns automake/configure
# itself when their inputs change.
build ()
{
  local dir=$1
  shift
  if [[ ! -x configure || configure.ac -nt configure ]]; then
    step "autogen"
    quietly ./autogen.sh
  fi
  mkdir -p "$dir"
  if [[ ! -f $dir/Makefile || $(cat "$dir/.configure-args" 2>/dev/null) != "$*" ]]; then
    step "configure $* (in $dir)"
    (cd "$dir" && quietly "$AGENTRT_TOP/configure" "$@")
    printf '%s\n' "$*" >"$dir/.configure-args"
  fi
  step "make (in $dir)"
  quietly make -C "$dir" -j"$jobs"
}

unit_tests ()
{
  local dir=$1
  step "make check (in $dir)"
  if ! make -C "$dir" -s -j"$jobs" check; then
    [[ -f $dir/test-suite.log ]] && cat "$dir/test-suite.log"
    return 1
  fi
}

# sanitizer_reports DIR BUILD-DIR: prints every report written under DIR
# (unsymbolized frames resolved with llvm-symbolizer; those of the sealed
# copy agentrt runs from, "/memfd:agentrt", against BUILD-DIR/agentrt) and
# fails if there is any.
sanitizer_reports ()
{
  local dir=$1 build=$2 f line obj files=()
  local frame='\((/[^+()]*|/memfd:agentrt \(deleted\))\+(0x[0-9a-f]+)\)'
  mapfile -t files < <(find "$dir" -type f -size +0 2>/dev/null)
  ((${#files[@]} > 0)) || return 0
  for f in "${files[@]}"; do
    log "sanitizer report $f"
    while IFS= read -r line; do
      if [[ $line =~ $frame ]]; then
        obj=${BASH_REMATCH[1]}
        [[ $obj == /memfd:* ]] && obj=$build/agentrt
        line+="  $(llvm-symbolizer --obj="$obj" "${BASH_REMATCH[2]}" 2>/dev/null | head -n 2 | tr '\n' ' ')"
      fi
      printf '%s\n' "$line"
    done <"$f"
  done
  echo "${#files[@]} sanitizer report(s) in $dir" >&2
  return 1
}

# sanitizer_env REPORTS-DIR: every instrumented process sends its reports
# to files there (the monitor and the sidecar have no stdio; children
# inside a container report on its stderr), and any report aborts it.
sanitizer_env ()
{
  # writable by every uid (sticky): the tests start processes under other
  # ids (the sidecar as 65534, rootless runs), and UBSan opens its log when
  # a process starts and exits when it cannot
  rm -rf "$1" && mkdir -p "$1" && chmod 1777 "$1"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-log_path=$1/asan:detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-log_path=$1/ubsan:print_stacktrace=1:halt_on_error=1}
}

# sanitized_unit_tests: the unit tests (parsers, path resolution, policy,
# seccomp, the sidecar's harness) built with ASan+UBSan; any report fails.
sanitized_unit_tests ()
{
  local dir=${AGENTRT_SANITIZE_BUILD_DIR:-$AGENTRT_TOP/_build-sanitize}
  build "$dir" "${SANITIZE_CONF[@]}"
  (
    sanitizer_env "$dir/sanitizer-reports"
    unit_tests "$dir" && sanitizer_reports "$dir/sanitizer-reports" "$dir"
  )
}

# integration_tests RUNTIME: every bats file of every suite (or the ones
# given on the command line), in one bats run.
integration_tests ()
{
  local rt=$1 files=() suite args=(--timing)
  if ((${#bats_files[@]} > 0)); then
    files=("${bats_files[@]}")
  else
    for suite in "${BATS_SUITES[@]}"; do
      compgen -G "$suite/*.bats" >/dev/null && files+=("$suite"/*.bats)
    done
  fi
  if ((${#files[@]} == 0)); then
    echo "no bats files found" >&2
    return 1
  fi
  [[ -n $filter ]] && args+=(--filter "$filter")
  ((bats_jobs > 1)) && args+=(--jobs "$bats_jobs")
  step "RUNTIME=$rt bats ${files[*]}"
  RUNTIME=$rt bats "${args[@]}" "${files[@]}" </dev/null
}

# plan_stage NAME: a stage this run will go through (counted for "[i/N]").
plan_stage ()
{
  STAGES+=("$1")
}

# stage NAME: the start of a planned stage: "==> [i/N] NAME (time so far)".
stage ()
{
  local i n=${#STAGES[@]} t=$((SECONDS - STARTED))
  for ((i = 0; i < n; i++)); do
    [[ ${STAGES[i]} == "$1" ]] && break
  done
  printf '==> [%d/%d] %s (%dm%02ds so far)\n' $((i + 1)) "$n" "$1" $((t / 60)) $((t % 60))
}

main ()
{
  local pkgs=("${PACKAGES[@]}") build_dir=$AGENTRT_BUILD_DIR reports=
  local conf=(--enable-werror --enable-fault-injection)
  local vm_run=0 deb_run=0
  ((sanitize)) || [[ -n $runtime ]] || fuzz_ci=$fuzz
  if ((sanitize)) || [[ -n $runtime ]] || ((!unit)); then sanitized_unit=0; fi
  ((vm)) && ((!sanitize)) && [[ -z $runtime ]] && vm_run=1
  # The package is built with the full run of the integration tests.
  ((deb && integration && !sanitize)) && [[ -z $runtime ]] && ((${#bats_files[@]} == 0)) && deb_run=1
  if ((sanitize)); then
    pkgs+=("${SANITIZE_PACKAGES[@]}")
    build_dir=${AGENTRT_SANITIZE_BUILD_DIR:-$AGENTRT_TOP/_build-sanitize}
    conf=("${SANITIZE_CONF[@]}")
    # Any report fails the test that triggered it (errors abort), and the run.
    reports=$build_dir/sanitizer-reports
    sanitizer_env "$reports"
    trap "sanitizer_reports $(printf '%q %q' "$reports" "$build_dir")" EXIT
  fi
  ((fuzz_ci)) && pkgs+=("${FUZZ_PACKAGES[@]}")
  ((sanitized_unit)) && pkgs+=("${SANITIZE_PACKAGES[@]}")
  ((bats_jobs > 1)) && pkgs+=(parallel)

  STAGES=() STARTED=$SECONDS
  ((deps)) && plan_stage "packages (apt-get, only what is missing)"
  if [[ -z $runtime ]]; then
    plan_stage "build (in ${build_dir#"$AGENTRT_TOP"/})"
    ((unit)) && plan_stage "unit tests (make check)"
    ((sanitized_unit)) && plan_stage "unit tests under ASan+UBSan"
    ((fuzz_ci)) && plan_stage "fuzz targets, ${AGENTRT_FUZZ_SECONDS:-10} s each (hack/fuzz.sh)"
  fi
  ((deb_run)) && plan_stage "Debian package (hack/deb.sh)"
  ((integration)) && plan_stage "integration tests (bats)"
  ((vm_run)) && plan_stage "cgroup v2 VM (hack/vm-test.sh --only v2)"

  if ((deps)); then
    stage "packages (apt-get, only what is missing)"
    install_deps "${pkgs[@]}"
  fi
  if [[ -z $runtime ]]; then
    stage "build (in ${build_dir#"$AGENTRT_TOP"/})"
    build "$build_dir" "${conf[@]}"
    if ((unit)); then
      stage "unit tests (make check)"
      unit_tests "$build_dir"
    fi
    if ((sanitized_unit)); then
      stage "unit tests under ASan+UBSan"
      sanitized_unit_tests
    fi
    if ((fuzz_ci)); then
      stage "fuzz targets, ${AGENTRT_FUZZ_SECONDS:-10} s each (hack/fuzz.sh)"
      "$AGENTRT_TOP/hack/fuzz.sh" -j "$jobs" "${AGENTRT_FUZZ_SECONDS:-10}"
    fi
    runtime=$build_dir/agentrt
  fi
  if ((deb_run)); then
    stage "Debian package (hack/deb.sh)"
    "$AGENTRT_TOP/hack/deb.sh" -j "$jobs" $( ((deps)) || echo --no-deps)
  fi
  if ((integration)); then
    stage "integration tests (bats)"
    [[ $EUID -eq 0 ]] || echo "warning: not root: most integration tests will be skipped" >&2
    step "bats lint: no check that cannot fail (hack/lint-bats.sh)"
    "$AGENTRT_TOP/hack/lint-bats.sh" "${bats_files[@]}"
    integration_tests "$runtime"
  fi
  # A pure cgroup v2 kernel under qemu (the systemd VM is on demand:
  # hack/vm-test.sh); not for sanitizer builds or another runtime.
  if ((vm_run)); then
    stage "cgroup v2 VM (hack/vm-test.sh --only v2)"
    AGENTRT_BUILD_DIR=$build_dir "$AGENTRT_TOP/hack/vm-test.sh" --only v2 \
      $( ((deps)) || echo --no-deps)
  fi
  if [[ -n $reports ]]; then
    trap - EXIT
    sanitizer_reports "$reports" "$build_dir"
  fi
  local t=$((SECONDS - STARTED))
  log "all tests passed ($((t / 60))m$(printf '%02d' $((t % 60)))s)"
}
main
