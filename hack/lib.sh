# shellcheck shell=bash
# hack/lib.sh: what the hack/ scripts and tests/integration/helpers.bash
# share: step logging, where the tree and the build are, the busybox-static root
# filesystem (built once, cached, copied per bundle) and OCI bundle
# creation.  Source it from bash; it sets no shell options.

AGENTRT_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${AGENTRT_BUILD_DIR:=$AGENTRT_TOP/_build}"
: "${BUSYBOX:=/bin/busybox}"

# Bump when the layout mkrootfs or the cache produce changes: stale caches
# are rebuilt.
AGENTRT_ROOTFS_LAYOUT=2

# log MESSAGE: a step of a hack/ script.
log ()
{
  printf '==> %s\n' "$*"
}

# quietly CMD...: run CMD with its output kept aside; shown (the last 200
# lines) only if it fails.
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

# The runtime the scripts use unless RUNTIME says otherwise.
agentrt_default_runtime ()
{
  printf '%s\n' "$AGENTRT_BUILD_DIR/agentrt"
}

# resolve_runtime NAME-OR-PATH: an absolute path for a runtime given as
# `runc`, `./agentrt` or `/usr/sbin/runc`.
resolve_runtime ()
{
  local r=$1
  if [[ $r != */* ]]; then
    command -v "$r" || printf '%s\n' "$r"
  else
    printf '%s\n' "$(cd "$(dirname "$r")" 2>/dev/null && pwd)/$(basename "$r")"
  fi
}

# mkrootfs DIR: a minimal root filesystem from busybox-static.  The applet
# symlinks are made from the host side (what `busybox --install -s` would
# do, but everything in /bin).
mkrootfs ()
{
  local dir=$1 applet
  if [[ ! -x $BUSYBOX ]]; then
    echo "mkrootfs: $BUSYBOX missing (apt-get install busybox-static)" >&2
    return 1
  fi
  mkdir -p "$dir"/{bin,proc,sys,dev,tmp,etc,root,run,var/tmp} || return 1
  chmod 1777 "$dir/tmp" "$dir/var/tmp"
  chmod 0700 "$dir/root"
  cp "$BUSYBOX" "$dir/bin/busybox" || return 1
  for applet in $("$BUSYBOX" --list); do
    [[ $applet == busybox ]] || ln -s busybox "$dir/bin/$applet"
  done
  cat >"$dir/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
  cat >"$dir/etc/group" <<'EOF'
root:x:0:
tty:x:5:
nogroup:x:65534:
EOF
}

# The cache key: layout version plus the identity of the busybox binary.
_rootfs_cache_key ()
{
  printf '%s %s\n' "$AGENTRT_ROOTFS_LAYOUT" "$(stat -L -c '%s %Y %i' "$BUSYBOX")"
}

# rootfs_cache: prints the path of an up-to-date cached rootfs, building it
# when needed.  The cache holds the rootfs twice: CACHE/rootfs complete, and
# split for copy_rootfs into CACHE/links (directories and symlinks) and
# CACHE/files (the regular files).  Safe when several runs race: each
# builds in a private directory and renames it into place.
rootfs_cache ()
{
  local cache=${AGENTRT_ROOTFS_CACHE:-${TMPDIR:-/tmp}/agentrt-rootfs-cache-$(id -u)}
  local key tmp
  key=$(_rootfs_cache_key) || return 1
  if [[ -f $cache/key && $(<"$cache/key") == "$key" ]]; then
    printf '%s\n' "$cache/rootfs"
    return 0
  fi
  tmp=$(mktemp -d "$cache.new.XXXXXX") || return 1
  if ! mkrootfs "$tmp/rootfs" || ! _split_rootfs "$tmp"; then
    rm -rf "$tmp"
    return 1
  fi
  printf '%s\n' "$key" >"$tmp/key"
  # Replace a stale cache; if another run won the race, use theirs.
  if [[ -e $cache ]]; then
    rm -rf "$cache.old.$$"
    mv -T "$cache" "$cache.old.$$" 2>/dev/null && rm -rf "$cache.old.$$"
  fi
  mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"
  printf '%s\n' "$cache/rootfs"
}

# _split_rootfs CACHE: CACHE/links and CACHE/files from CACHE/rootfs.
_split_rootfs ()
{
  local c=$1
  (cd "$c/rootfs" && find . -type d -print0 | (cd "$c" && mkdir -p links files && \
    cd links && xargs -0 mkdir -p)) || return 1
  (cd "$c/rootfs" && find . -type d -exec sh -c 'chmod --reference="$1" "$2/$1"' _ {} "$c/links" \;) || return 1
  (cd "$c/rootfs" && find . ! -type d ! -type f -exec cp -a --parents {} "$c/links" \;) || return 1
  (cd "$c/rootfs" && find . -type f -exec cp -a --parents {} "$c/files" \;)
}

# base_config RUNTIME: prints a config.json: `RUNTIME spec` when that works
# and yields a usable spec, else hack/config-template.json.  Either way the
# process is non-interactive (`sh`, no terminal) and root.path is rootfs.
base_config ()
{
  local runtime=$1 tmp src=$AGENTRT_TOP/hack/config-template.json
  tmp=$(mktemp -d) || return 1
  if [[ -n $runtime && ${MKBUNDLE_TEMPLATE:-0} != 1 ]] \
    && (cd "$tmp" && "$runtime" spec) >/dev/null 2>&1 \
    && jq -e '.ociVersion and .process.args and .root and .linux.namespaces' \
      "$tmp/config.json" >/dev/null 2>&1; then
    src=$tmp/config.json
  fi
  jq '.process.terminal = false | .process.args = ["sh"] | .root.path = "rootfs"' "$src"
  local rc=$?
  rm -rf "$tmp"
  return $rc
}

# copy_rootfs CACHED-ROOTFS TO: a private copy of a rootfs from the cache.
# Creating symlinks is slow on some disks (~1 ms each), so directories and
# symlinks are hard-linked from CACHE/links (a symlink cannot be changed in
# place, so sharing its inode is safe) and the regular files are copied
# from CACHE/files: a container with a writable root must never write
# through to the cache.  Any other directory is copied plainly.
copy_rootfs ()
{
  local from=$1 to=$2 cache=${1%/rootfs}
  if [[ -d $cache/links && -d $cache/files ]] && cp -al "$cache/links" "$to" 2>/dev/null; then
    cp -a "$cache/files/." "$to/"
    return
  fi
  rm -rf "$to"
  cp -a "$from" "$to"
}

# mkbundle DIR [RUNTIME]: an OCI bundle in DIR (created if needed): DIR/rootfs
# copied from the cache, DIR/config.json from base_config.
mkbundle ()
{
  local dir=$1 runtime=${2:-} cache
  cache=$(rootfs_cache) || return 1
  mkdir -p "$dir" || return 1
  if [[ -e $dir/rootfs || -e $dir/config.json ]]; then
    echo "mkbundle: $dir already holds a bundle" >&2
    return 1
  fi
  copy_rootfs "$cache" "$dir/rootfs" || return 1
  base_config "$runtime" >"$dir/config.json"
}
