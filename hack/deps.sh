#!/bin/bash
# hack/deps.sh: the Debian 12 packages agentrt's scripts need, by what they
# are for, and the one step that installs whichever are missing
# (install_deps: idempotent, silent and without apt-get when everything is
# there).  hack/try.sh and hack/test.sh source it; run it to install
# groups by hand:
#
#   hack/deps.sh [build] [try] [deb] [man]   (default: build try)
#
# DEPS_BUILD   configure and make (autogen.sh needs autoconf, automake, libtool;
#              libssl-dev: the sidecar's TLS for injected credentials)
# DEPS_TRY     hack/try.sh and its --demo: the busybox root, jq for the
#              bundle and the summary, ip for the demo's network namespaces,
#              python3 for its docker.sock
# DEPS_DEB     hack/deb.sh: dpkg-buildpackage with debhelper (dh-autoreconf
#              comes with it), lintian
# DEPS_MAN     the man pages' checks: groff (man -l, groff -ww), man-db

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEPS_BUILD=(
  build-essential autoconf automake libtool pkg-config git
  libyajl-dev libseccomp-dev libcap-dev libselinux1-dev libsystemd-dev
  libssl-dev
)
DEPS_TRY=(busybox-static jq iproute2 python3)
DEPS_DEB=(debhelper dpkg-dev fakeroot lintian)
DEPS_MAN=(groff-base man-db)

# install_deps PKG...: apt-get install whatever dpkg does not list as
# installed; silent (no apt-get at all) when everything is there.  Needs
# root only when something is missing, and then says what.
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
  if ! quietly apt-get update -qq \
    || ! quietly apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    echo "could not install ${missing[*]}: is a Debian mirror reachable" \
      "(/etc/apt/sources.list)?" >&2
    return 1
  fi
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  groups=("$@")
  ((${#groups[@]} > 0)) || groups=(build try)
  pkgs=()
  for g in "${groups[@]}"; do
    case $g in
      build) pkgs+=("${DEPS_BUILD[@]}") ;;
      try) pkgs+=("${DEPS_TRY[@]}") ;;
      deb) pkgs+=("${DEPS_DEB[@]}") ;;
      man) pkgs+=("${DEPS_MAN[@]}") ;;
      -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
      *) echo "hack/deps.sh: unknown group \`$g\` (build, try, deb, man)" >&2; exit 2 ;;
    esac
  done
  install_deps "${pkgs[@]}"
fi
