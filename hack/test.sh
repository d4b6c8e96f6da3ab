#!/bin/bash
# hack/test.sh: what CI runs (.ci/run).  Installs the build and test
# dependencies (apt-get, only what is missing), builds agentrt out of tree,
# runs the unit tests (make check) and every bats suite against the built
# binary.  Exits non-zero on any failure.
#
#   hack/test.sh [OPTIONS] [BATS-FILE...]
#     --sanitize        clang + --enable-sanitizers in _build-sanitize/
#                       (ASan+UBSan), then the same unit and bats tests
#     --runtime R       run the bats suites against R (e.g. runc) instead
#                       of the built agentrt; skips the build and unit tests
#     --no-deps         do not check or install packages
#     --no-unit         skip make check
#     --no-integration  skip the bats suites
#     --no-vm           skip the cgroup v2 VM (hack/vm-test.sh --only v2)
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
cd "$AGENTRT_TOP"

# Build and test dependencies (Debian 12 package names).
PACKAGES=(
  build-essential autoconf automake libtool pkg-config git
  libyajl-dev libseccomp-dev libcap-dev libselinux1-dev libsystemd-dev
  bats busybox-static jq iproute2 util-linux coreutils procps python3
  libcap2-bin crun runc
)
# A suite that needs more lists it in tests/<suite>/packages, one a line.
for list in tests/*/packages; do
  [[ -f $list ]] && PACKAGES+=($(grep -v '^#' "$list"))
done
SANITIZE_PACKAGES=(clang)

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

sanitize=0 deps=1 unit=1 integration=1 vm=1 runtime= filter= jobs=$(nproc) bats_jobs=1
bats_files=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --sanitize) sanitize=1; shift ;;
    --runtime) runtime=$(resolve_runtime "$2"); unit=0; shift 2 ;;
    --no-deps) deps=0; shift ;;
    --no-unit) unit=0; shift ;;
    --no-integration) integration=0; shift ;;
    --no-vm) vm=0; shift ;;
    --filter) filter=$2; shift 2 ;;
    --jobs) bats_jobs=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    -*) usage 2 >&2 ;;
    *) bats_files+=("$1"); shift ;;
  esac
done

log ()
{
  printf '==> %s\n' "$*"
}

# quietly CMD...: run CMD with its output kept aside; shown only if it fails.
quietly ()
{
  local out rc=0
  out=$(mktemp)
  "$@" >"$out" 2>&1 || rc=$?
  if ((rc != 0)); then
    tail -n 200 "$out"
    echo "failed ($rc): $*" >&2
  fi
  rm -f "$out"
  return "$rc"
}

# install_deps PKG...: apt-get install whatever dpkg does not list as
# installed; silent (no apt-get at all) when everything is there.
install_deps ()
{
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' \
      || missing+=("$p")
  done
  ((${#missing[@]} > 0)) || return 0
  if [[ $EUID -ne 0 ]]; then
    echo "missing packages: ${missing[*]} (run as root, or apt-get install them)" >&2
    return 1
  fi
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  quietly apt-get update -qq
  quietly apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# build BUILD-DIR CONFIGURE-ARGS...: autogen when needed, configure once,
# make.  make reruns automake/configure itself when their inputs change.
build ()
{
  local dir=$1
  shift
  if [[ ! -x configure || configure.ac -nt configure ]]; then
    log "autogen"
    quietly ./autogen.sh
  fi
  mkdir -p "$dir"
  if [[ ! -f $dir/Makefile ]]; then
    log "configure $* (in $dir)"
    (cd "$dir" && quietly "$AGENTRT_TOP/configure" "$@")
  fi
  log "make (in $dir)"
  quietly make -C "$dir" -j"$jobs"
}

unit_tests ()
{
  local dir=$1
  log "unit tests (make check in $dir)"
  if ! make -C "$dir" -s -j"$jobs" check; then
    [[ -f $dir/test-suite.log ]] && cat "$dir/test-suite.log"
    return 1
  fi
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
  log "integration tests: RUNTIME=$rt bats ${files[*]}"
  RUNTIME=$rt bats "${args[@]}" "${files[@]}" </dev/null
}

main ()
{
  local pkgs=("${PACKAGES[@]}") build_dir=$AGENTRT_BUILD_DIR conf=(--enable-werror)
  if ((sanitize)); then
    pkgs+=("${SANITIZE_PACKAGES[@]}")
    build_dir=${AGENTRT_SANITIZE_BUILD_DIR:-$AGENTRT_TOP/_build-sanitize}
    conf+=(--enable-sanitizers CC=clang)
    # Any sanitizer report fails the test that triggered it.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  fi
  ((bats_jobs > 1)) && pkgs+=(parallel)
  if ((deps)); then
    install_deps "${pkgs[@]}"
  fi

  if [[ -z $runtime ]]; then
    build "$build_dir" "${conf[@]}"
    if ((unit)); then
      unit_tests "$build_dir"
    fi
    runtime=$build_dir/agentrt
  fi
  if ((integration)); then
    [[ $EUID -eq 0 ]] || echo "warning: not root: most integration tests will be skipped" >&2
    integration_tests "$runtime"
  fi
  # A pure cgroup v2 kernel under qemu (the systemd VM is on demand:
  # hack/vm-test.sh); not for sanitizer builds or another runtime.
  if ((vm)) && ((!sanitize)) && [[ $runtime == "$build_dir/agentrt" ]]; then
    log "cgroup v2 VM (hack/vm-test.sh --only v2)"
    AGENTRT_BUILD_DIR=$build_dir "$AGENTRT_TOP/hack/vm-test.sh" --only v2 \
      $( ((deps)) || echo --no-deps)
  fi
  log "all tests passed"
}

main
