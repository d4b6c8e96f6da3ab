#!/bin/bash
# hack/deb.sh [-j N] [--no-deps] [--no-lintian]: builds the Debian package
# from the tree and checks it, without touching the checkout:
#   1. copies the tree (what git tracks, and new files it does not ignore)
#      to a temporary directory;
#   2. dpkg-buildpackage -us -uc -b there (DEB_BUILD_OPTIONS=nocheck:
#      hack/test.sh runs the tests; noddebs: no debug symbols package);
#   3. lintian: any error or warning fails (a warning we keep would need a
#      debian/agentrt.lintian-overrides entry with a comment saying why;
#      there is none);
#   4. dpkg -c: the files the package must hold, nothing under /usr/local;
#   5. dpkg -x into a scratch root, and from there the installed agentrt
#      --version, features and policy explain (with the example policy),
#      agentrt-egress's usage, and the man pages rendered.
# The .deb and the build log are left in _build-deb/.  Called by
# hack/test.sh; installs its packages through hack/deps.sh (deb, man).
set -euo pipefail
SELF=$(readlink -f "$0")
. "$(dirname "$SELF")/lib.sh"
. "$(dirname "$SELF")/deps.sh"

jobs=$(nproc) deps=1 lintian=1
while [[ $# -gt 0 ]]; do
  case $1 in
    -j) jobs=$2; shift 2 ;;
    --no-deps) deps=0; shift ;;
    --no-lintian) lintian=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$SELF"; exit 0 ;;
    *) echo "hack/deb.sh: unknown argument \`$1\` (hack/deb.sh --help)" >&2; exit 2 ;;
  esac
done

OUT=$AGENTRT_TOP/_build-deb
VERSION=$(dpkg-parsechangelog -l "$AGENTRT_TOP/debian/changelog" -S Version)
ARCH=$(dpkg --print-architecture)
DEB=agentrt_${VERSION}_$ARCH.deb

((deps)) && install_deps "${DEPS_BUILD[@]}" "${DEPS_DEB[@]}" "${DEPS_MAN[@]}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentrt-deb.XXXXXX")
trap 'rm -rf --one-file-system "$tmp"' EXIT
src=$tmp/agentrt-$VERSION

# copy_tree DEST: the checkout's files without build products (git's view
# when there is one: tracked, and untracked but not ignored).
copy_tree ()
{
  mkdir -p "$1"
  if git -C "$AGENTRT_TOP" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$AGENTRT_TOP" && git ls-files -z --cached --others --exclude-standard \
      | while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done \
      | tar --null -T - -cf -) | tar -xf - -C "$1"
  else
    (cd "$AGENTRT_TOP" && tar --exclude='./_build*' --exclude=./autom4te.cache -cf - .) \
      | tar -xf - -C "$1"
  fi
}

# the commit `agentrt --version` names (the copy has no .git)
commit=$(git -C "$AGENTRT_TOP" rev-parse --verify -q HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown && -n $(git -C "$AGENTRT_TOP" status --porcelain 2>/dev/null) ]]; then
  commit+=-dirty
fi

log "copy of the tree in $src (commit $commit)"
copy_tree "$src"
mkdir -p "$OUT"
rm -f "$OUT"/agentrt_*

log "dpkg-buildpackage -us -uc -b (log: ${OUT#"$AGENTRT_TOP"/}/build.log)"
start=$SECONDS
if ! (cd "$src" && AGENTRT_GIT_COMMIT=$commit DEB_BUILD_OPTIONS="nocheck noddebs parallel=$jobs" \
  dpkg-buildpackage -us -uc -b) >"$OUT/build.log" 2>&1; then
  tail -n 60 "$OUT/build.log"
  echo "hack/deb.sh: dpkg-buildpackage failed (the whole log: $OUT/build.log)" >&2
  exit 1
fi
echo "  built $DEB in $((SECONDS - start)) s"
cp "$tmp/$DEB" "$tmp"/agentrt_*.changes "$tmp"/agentrt_*.buildinfo "$OUT/"

if ((lintian)); then
  log "lintian (any error or warning fails)"
  if ! lintian --fail-on error,warning --display-level '>=warning' "$OUT/$DEB"; then
    echo "hack/deb.sh: lintian found problems in $OUT/$DEB" >&2
    exit 1
  fi
fi

log "dpkg -c: the files the package must hold"
dpkg -c "$OUT/$DEB" | awk '{ print $6 }' | sed 's|^\./|/|' >"$tmp/files"
expected=(
  /usr/bin/agentrt
  /usr/libexec/agentrt/agentrt-egress
  /usr/share/agentrt/agent-default.json
  /usr/share/man/man8/agentrt.8.gz
  /usr/share/man/man8/agentrt-egress.8.gz
  /usr/share/man/man5/agentrt-policy.5.gz
  /usr/share/doc/agentrt/examples/policy.example.json
  /usr/share/doc/agentrt/copyright
  /usr/share/doc/agentrt/changelog.gz
)
bad=0
for f in "${expected[@]}"; do
  grep -qxF "$f" "$tmp/files" || { echo "  missing: $f" >&2; bad=1; }
done
if grep -E '^/usr/local/|/tests?/|\.a$|\.la$' "$tmp/files" >&2; then
  echo "  (files that do not belong in the package)" >&2
  bad=1
fi
((bad == 0)) || { echo "hack/deb.sh: $DEB does not hold what it should" >&2; exit 1; }
echo "  $(grep -c -v '/$' "$tmp/files") files, the ${#expected[@]} expected ones among them"

log "dpkg -x into a scratch root; the installed agentrt runs from there"
root=$tmp/root
dpkg -x "$OUT/$DEB" "$root"
version=$("$root/usr/bin/agentrt" --version)
[[ $version == "agentrt version ${VERSION%%-*}"*"commit: $commit"* ]] \
  || { echo "hack/deb.sh: agentrt --version: $version (expected ${VERSION%%-*}, commit $commit)" >&2; exit 1; }
echo "  agentrt --version: $(head -n 1 <<<"$version"), commit $commit"
"$root/usr/bin/agentrt" features | jq -e '.annotations["run.agentrt.egress.allow"] and .linux.seccomp.enabled' >/dev/null \
  || { echo "hack/deb.sh: the installed agentrt features lacks agentrt's annotations or seccomp" >&2; exit 1; }
echo "  agentrt features: agentrt's annotations, seccomp enabled"
# policy explain under the installed example policy: the paths compiled in
# and the example's are the package's own
mkdir -p "$tmp/bundle/rootfs"
(cd "$tmp/bundle" && "$root/usr/bin/agentrt" spec)
explain=$("$root/usr/bin/agentrt" --policy "$root/usr/share/doc/agentrt/examples/policy.example.json" \
  policy explain --bundle "$tmp/bundle")
[[ $explain == *"seccomp: /usr/share/agentrt/agent-default.json"* ]] \
  || { echo "hack/deb.sh: policy explain under the example policy: $explain" >&2; exit 1; }
echo "  agentrt policy explain with the example policy: seccomp /usr/share/agentrt/agent-default.json"
usage=$("$root/usr/libexec/agentrt/agentrt-egress" --no-such-option 2>&1 || true)
[[ $usage == *"usage: agentrt-egress"* ]] || { echo "hack/deb.sh: agentrt-egress: $usage" >&2; exit 1; }
echo "  agentrt-egress: runs (its usage)"
for page in "$root"/usr/share/man/man*/*.gz; do
  warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  [[ -z $warnings ]] || { echo "hack/deb.sh: man -l $page: $warnings" >&2; exit 1; }
done
echo "  man pages render"
log "package ok: ${OUT#"$AGENTRT_TOP"/}/$DEB ($((SECONDS - start)) s)"
