# shellcheck shell=bash
# shellcheck disable=SC2154 # status, output, lines: set by helpers.bash's rt
# tests/integration/helpers/security.bash: what the cve-*.bats and
# hostile-bundles.bats files share.  Load it after helpers.bash.
#
# The CVE tests attack the runtime from inside a container the way each
# advisory describes, and check the host afterwards: canary files and
# directories that must stay as they are, and (CVE-2019-5736) a private
# copy of the runtime binary whose hash must not change.  The tests work
# with any runc-compatible runtime (RUNTIME=runc compares with runc); the
# hardened variants need agentrt.

SEC_PROFILE=$AGENTRT_TOP/seccomp-profiles/agent-default.json

# sec_setup: a bundle (helpers.bash's setup_bundle) with a writable root,
# a host canary file CANARY and an empty host directory TARGET that
# hostile bundles aim at.
sec_setup ()
{
  setup_bundle || return 1
  requires root
  TARGET=$(host_dir host-target)
  CANARY=$BATS_TEST_TMPDIR/host-canary
  echo canary >"$CANARY"
  IMAGE_CANARY=$ROOTFS/cve-canary
  echo canary >"$IMAGE_CANARY"
  update_config '.root.readonly = false'
}

# sec_policy off|on [JQ-FILTER [JQ-ARGS...]]: `off` is runc-like (no
# hardening); `on` is the built-in defaults with the source tree's agent
# seccomp profile and this test's audit directory, edited by JQ-FILTER.
# Other runtimes have no policy: `on` skips the test for them.
sec_policy ()
{
  local mode=$1 filter=${2:-.}
  shift 2 || shift $#
  if [[ $mode == off ]]; then
    use_policy off
    return
  fi
  requires agentrt
  jq -n --arg p "$SEC_PROFILE" --arg a "$BATS_TEST_TMPDIR/audit" "$@" \
    "{version: 1, seccomp: {profile: \$p}, audit: {dir: \$a}} | $filter" \
    >"$BATS_TEST_TMPDIR/policy-on.json" || return 1
  use_policy "$BATS_TEST_TMPDIR/policy-on.json"
}

# host_untouched: TARGET still empty and unmounted, CANARY intact, and the
# image's /cve-canary (IMAGE_CANARY: what a redirected mount would expose)
# too.
host_untouched ()
{
  [[ -z $(ls -A "$TARGET") ]] || fail "something landed in the host directory: $(ls -A "$TARGET")"
  [[ -z $(mounts_under "$TARGET") ]] || fail "mounted on the host: $(mounts_under "$TARGET")"
  [[ $(<"$CANARY") == canary ]] || fail "host file changed: $(head -c 200 "$CANARY")"
  [[ -z $(mounts_under "$CANARY") ]] || fail "mounted on the host file"
  [[ -z ${IMAGE_CANARY:-} || $(<"$IMAGE_CANARY") == canary ]] \
    || fail "the image's /cve-canary changed: $(head -c 200 "$IMAGE_CANARY")"
}

# in_rootfs NAME...: copy test programs (helpers/NAME.c, built statically)
# into the rootfs's /bin; in_rootfs_of DIR NAME... into another rootfs's.
in_rootfs ()
{
  in_rootfs_of "$ROOTFS" "$@"
}

in_rootfs_of ()
{
  local dir=$1 p
  shift
  for p in "$@"; do
    cp "$(test_program "$p")" "$dir/bin/$p" || return 1
  done
}

# private_runtime: run this test with a copy of the runtime under test
# (and agentrt-egress next to it), so that an attack on the binary harms
# nothing else.  Sets RUNTIME_COPY, RUNTIME_ID (dev:ino) and RUNTIME_SUM.
private_runtime ()
{
  local dir=$BATS_TEST_TMPDIR/bin egress
  mkdir -p "$dir"
  cp "$RUNTIME" "$dir/" || return 1
  egress=$(dirname "$RUNTIME")/agentrt-egress
  [[ ! -x $egress ]] || cp "$egress" "$dir/"
  RUNTIME=$dir/$(basename "$RUNTIME")
  RUNTIME_COPY=$RUNTIME
  # shellcheck disable=SC2034 # for the tests
  RUNTIME_ID=$(stat -c %d:%i "$RUNTIME")
  RUNTIME_SUM=$(sha256sum <"$RUNTIME")
}

# runtime_unchanged: the private copy still has its hash.
runtime_unchanged ()
{
  [[ $(sha256sum <"$RUNTIME_COPY") == "$RUNTIME_SUM" ]] \
    || fail "the runtime binary on the host was modified: $(tail -c 40 "$RUNTIME_COPY" | tr -c '[:print:]' .)"
}

# runtime_libs_in_rootfs: the runtime's shared libraries and loader in the
# rootfs at their host paths, as any distribution image has them, so that
# the host binary can actually run inside the container.
runtime_libs_in_rootfs ()
{
  local l
  for l in $(ldd "$RUNTIME" 2>/dev/null | grep -o '/[^ ]*'); do
    mkdir -p "$ROOTFS$(dirname "$l")" && cp -L "$l" "$ROOTFS$l" || return 1
  done
}

# wait_for_line FILE REGEX [TRIES]: poll (0.1 s) until a line of FILE
# matches.
wait_for_line ()
{
  local f=$1 re=$2 tries=${3:-100}
  while ((tries-- > 0)); do
    grep -qE -- "$re" "$f" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "no line matching '$re' in $f:"$'\n'"$(cat "$f" 2>/dev/null)"
}

# no_line REGEX: $output has no line matching REGEX.
no_line ()
{
  ! grep -qE -- "$1" <<<"$output" || fail "unexpected line /$1/ in:"$'\n'"$output"
}

# one_line_error WORD...: the last `rt` failed with exactly one line of
# output that mentions every WORD (a field name, a path).
one_line_error ()
{
  local w
  [[ $status -ne 0 ]] || fail "accepted (exit 0); output: $output"
  [[ ${#lines[@]} -eq 1 ]] || fail "expected one line, got ${#lines[@]}:"$'\n'"$output"
  for w in "$@"; do
    [[ $output == *"$w"* ]] || fail "the message does not name '$w': $output"
  done
}

# second_bundle NAME [JQ-FILTER [JQ-ARGS...]]: another bundle, DIR
# BATS_TEST_TMPDIR/NAME (printed), whose config is BUNDLE's with the same
# rootfs, edited by JQ-FILTER.
second_bundle ()
{
  local dir=$BATS_TEST_TMPDIR/$1 filter=${2:-.}
  shift 2 || shift $#
  mkdir -p "$dir" || return 1
  jq --arg r "$ROOTFS" "$@" ".root.path = \$r | $filter" "$BUNDLE/config.json" \
    >"$dir/config.json" || return 1
  printf '%s\n' "$dir"
}

# dev_from_host_dir: the container's /dev becomes a bind mount of a host
# directory DEVDIR holding a null device and the mount points, as a shared
# volume would: the image, or another container, then controls /dev.
dev_from_host_dir ()
{
  DEVDIR=$(host_dir dev)
  mknod "$DEVDIR/null" c 1 3 && mkdir -p "$DEVDIR"/{pts,shm,mqueue} \
    && ln -s pts/ptmx "$DEVDIR/ptmx" || return 1
  update_config '(.mounts[] | select(.destination == "/dev"))
    |= {destination: "/dev", type: "bind", source: $d, options: ["rbind"]}' --arg d "$DEVDIR"
}

# start_console_sink: CONSOLE_SOCKET accepts any number of pty masters
# and keeps them open (cve-tools console-sink), until teardown.
start_console_sink ()
{
  local i
  CONSOLE_SOCKET=$BATS_TEST_TMPDIR/console.sock
  "$(test_program cve-tools)" console-sink "$CONSOLE_SOCKET" &
  cleanup_add "kill $!"
  for ((i = 0; i < 50; i++)); do
    [[ -S $CONSOLE_SOCKET ]] && return 0
    sleep 0.1
  done
  fail "console-sink did not start"
}

# start_racer NAME DIR A B SECONDS: a container NAME (id CT_ID-NAME, its
# own rootfs) with host directory DIR at /shared that exchanges /shared/A
# and /shared/B (cve-tools swap) for SECONDS: the other container of the
# advisories.  Its processes carry their own test tag, so that
# no_leftovers ID does not count them (teardown removes the racer with
# every other container).
start_racer ()
{
  local b r=$BATS_TEST_TMPDIR/$1-rootfs
  copy_rootfs "$(rootfs_cache)" "$r" && in_rootfs_of "$r" cve-tools || return 1
  b=$(second_bundle "$1" '.root.path = $own
    | .process.args = ["cve-tools", "swap", "/shared", $a, $b, $s]
    | .process.terminal = false
    | .process.env |= map(if startswith("AGENTRT_TEST_TAG=") then . + "-racer" else . end)
    | (.mounts[] | select(.destination == "/dev"))
      |= {destination: "/dev", type: "tmpfs", source: "tmpfs", options: ["nosuid", "mode=755"]}
    | .mounts += [{destination: "/shared", type: "bind", source: $d, options: ["rbind"]}]' \
    --arg own "$r" --arg a "$3" --arg b "$4" --arg s "$5" --arg d "$2") || return 1
  rt_ok create --bundle "$b" "$CT_ID-$1" || return 1
  RACER_OUT=$RT_OUT
  rt_ok start "$CT_ID-$1" || return 1
  wait_for_line "$RACER_OUT" '^swapping'
}
