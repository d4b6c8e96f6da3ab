#!/usr/bin/env bats
# hostile-bundles: broken and malicious bundles, one table, one loop.  A
# bundle the runtime must refuse gets ONE line on stdout/stderr that names
# the field or path at fault, a non-zero exit, and leaves nothing behind
# (state, mount, cgroup, process: no_leftovers).  A bundle that points
# outside the rootfs in a way the runtime can resolve inside it must run
# with the host untouched.  (hostile.bats covers the escape attempts in
# more detail; this file is about clean refusals.)

load helpers
load helpers/security

setup ()
{
  sec_setup || return 1
  HB=$BATS_TEST_TMPDIR/hb
  mkdir -p "$HB"
  # A hanging config.json or hook must not hang the test (helpers.bash's
  # runtime reads it).
  # shellcheck disable=SC2034
  RUNTIME_TIMEOUT=20
}

# ---- what the cases do to their bundle -----------------------------------

json_file ()
{
  python3 -c "$1" >"$BUNDLE/config.json"
}

config_deep ()
{
  json_file "print('[' * 200000)"
}

config_huge_args ()
{
  # 100000 arguments: more than the parser takes.
  update_config '.process.args = ["echo"] + [range(100000) | "x"]'
}

config_args_over_arg_max ()
{
  # Under the parser's limit, over the kernel's (ARG_MAX): execve fails.
  update_config '.process.args = ["echo"] + [range(60000) | "0123456789" * 10]'
}

stale_console_socket ()
{
  # A socket whose listener is already gone (closed early).
  python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$HB/console.sock"
  update_config '.process.terminal = true'
  RUN_ARGS=(--console-socket "$HB/console.sock")
}

# ---- the table -------------------------------------------------------------
# NAME | EXPECT | WORDS the one line must contain (;-separated) | SETUP
# EXPECT: `refused` (one line, non-zero, nothing left) or `contained` (runs,
# host untouched).  SETUP is evaluated in the case's fresh bundle.
CASES=(
  'rootfs missing|refused|root.path;rootfs|rm -rf "$ROOTFS"'
  'rootfs a symlink to /|refused|root.path;/|rm -rf "$ROOTFS"; ln -s / "$ROOTFS"'
  'rootfs a symlink to nothing|refused|root.path|rm -rf "$ROOTFS"; ln -s "$HB/none" "$ROOTFS"'
  'rootfs a symlink loop|refused|root.path|rm -rf "$ROOTFS"; ln -s rootfs "$ROOTFS"'
  'rootfs a regular file|refused|root.path|rm -rf "$ROOTFS"; echo x >"$ROOTFS"'
  'rootfs a symlink to a real rootfs elsewhere|contained||mv "$ROOTFS" "$HB/real"; ln -s "$HB/real" "$ROOTFS"'
  'config.json missing|refused|config.json|rm "$BUNDLE/config.json"'
  'config.json a FIFO|refused|config.json|rm "$BUNDLE/config.json"; mkfifo "$BUNDLE/config.json"'
  'config.json a directory|refused|config.json|rm "$BUNDLE/config.json"; mkdir "$BUNDLE/config.json"'
  'config.json 1 GiB (sparse)|refused|config.json|truncate -s 1G "$BUNDLE/config.json"'
  'config.json not JSON|refused|config.json|echo "not json" >"$BUNDLE/config.json"'
  'config.json nested 200000 deep|refused|config.json;nesting|config_deep'
  'config.json a JSON string|refused|config.json|echo "\"a string\"" >"$BUNDLE/config.json"'
  'mount source missing|refused|mounts[;/mnt/vanished;source|add_bind "$HB/vanished" /mnt/vanished'
  'mount source a dangling symlink|refused|mounts[;/mnt/vanished|ln -s "$HB/gone" "$HB/link"; add_bind "$HB/link" /mnt/vanished'
  'mount destination through a symlink loop|refused|/loop1/x|ln -s loop2 "$ROOTFS/loop1"; ln -s loop1 "$ROOTFS/loop2"; add_mount /loop1/x tmpfs tmpfs'
  'mount destination relative with ..|refused|mounts[;destination|add_mount tmp/../.. tmpfs tmpfs'
  'mount destination with .. above the root|contained||add_mount "/../../../..$TARGET/x" tmpfs tmpfs size=1m'
  'mount destination an absolute symlink out of the rootfs|contained||ln -s "$TARGET" "$ROOTFS/out"; add_mount /out/x tmpfs tmpfs size=1m'
  'mount of a file on a directory|refused|/etc;Is a directory|add_bind "$CANARY" /etc'
  'mount of a directory on a file|refused|/etc/passwd;Not a directory|add_bind "$TARGET" /etc/passwd'
  'prestart hook that hangs (timeout 1)|refused|prestart;/bin/sleep;timed out|update_config ".hooks.prestart = [{path: \"/bin/sleep\", args: [\"sleep\", \"60\"], timeout: 1}]"'
  'createRuntime hook that exits 1|refused|createRuntime;/bin/false;status 1|update_config ".hooks.createRuntime = [{path: \"/bin/false\"}]"'
  'createContainer hook that exits 3|refused|createContainer;status 3|update_config ".hooks.createContainer = [{path: \"/bin/sh\", args: [\"sh\", \"-c\", \"exit 3\"]}]"'
  'console socket missing|refused|--console-socket;console.sock|update_config ".process.terminal = true"; RUN_ARGS=(--console-socket "$HB/console.sock")'
  'console socket closed early|refused|--console-socket;console.sock|stale_console_socket'
  'pid-file in a missing directory|refused|--pid-file;/nodir/pid|RUN_ARGS=(--pid-file "$HB/nodir/pid")'
  'duplicate namespaces|refused|linux.namespaces[;pid|update_config ".linux.namespaces += [{type: \"pid\"}]"'
  'namespace path that does not exist|refused|linux.namespaces[;/none|update_config "(.linux.namespaces[] | select(.type == \"network\")).path = \"$HB/none\""'
  'namespace path that is not a namespace|refused|linux.namespaces[;/etc/hostname;not a network namespace|update_config "(.linux.namespaces[] | select(.type == \"network\")).path = \"/etc/hostname\""'
  'namespace path of another type|refused|linux.namespaces[;not a network namespace|update_config "(.linux.namespaces[] | select(.type == \"network\")).path = \"/proc/self/ns/pid\""'
  'uid mappings without a user namespace|refused|linux.uidMappings|update_config ".linux.uidMappings = [{containerID: 0, hostID: 100000, size: 1000}] | .linux.gidMappings = .linux.uidMappings"'
  'process.args of 100000 entries|refused|process.args|config_huge_args'
  'process.args over the kernel ARG_MAX|refused|/bin/echo;Argument list too long|config_args_over_arg_max'
)

# run_case I LINE: one case in a fresh bundle; 0 when it behaved.
run_case ()
{
  local i=$1 name expect words setup w id=$CT_ID-$1
  IFS='|' read -r name expect words setup <<<"$2"
  BUNDLE=$HB/bundle-$i
  ROOTFS=$BUNDLE/rootfs
  RUN_ARGS=()
  # shellcheck disable=SC2034 # (host_untouched: no image canary here)
  IMAGE_CANARY=
  mkdir -p "$BUNDLE" && copy_rootfs "$(rootfs_cache)" "$ROOTFS" || return 1
  jq --arg tag "AGENTRT_TEST_TAG=$CT_ID" '.process.args = ["true"] | .process.env += [$tag]' \
    "$(_base_config)" >"$BUNDLE/config.json" || return 1
  eval "$setup" || { echo "case '$name': setup failed" >&2; return 1; }
  rt run "${RUN_ARGS[@]}" --bundle "$BUNDLE" "$id"
  if [[ $expect == contained ]]; then
    check_status 0 && host_untouched || { echo "case '$name'" >&2; return 1; }
    return 0
  fi
  IFS=';' read -r -a w <<<"$words"
  one_line_error "${w[@]}" && no_leftovers "$id" && host_untouched \
    || { echo "case '$name'" >&2; return 1; }
}

@test "hostile bundles: each is refused with one clear line and leaves nothing, or stays contained" {
  requires python3 mkfifo
  local i bad=0
  for i in "${!CASES[@]}"; do
    run_case "$i" "${CASES[i]}" || bad=$((bad + 1))
  done
  echo "# ${#CASES[@]} cases, $bad failed" >&3
  [[ $bad -eq 0 ]]
}

# ---- privileged shapes, hardened --------------------------------------------
# What engines make of "--privileged" and friends.  Under the hardening
# each either runs contained (its command finds nothing writable of the
# host's kernel and no host path) or is refused with one line; never a way
# to the host.  (hardening-host.bats runs the attacks one by one, against
# runc too.)

privileged_shape ()
{
  update_config '.linux.maskedPaths = [] | .linux.readonlyPaths = []
    | .process.capabilities = {bounding: $c, effective: $c, permitted: $c}
    | del(.linux.seccomp) | .process.noNewPrivileges = false
    | (.mounts[] | select(.type == "sysfs" or .type == "cgroup")).options |= (map(select(. != "ro")) + ["rw"])
    | .linux.resources.devices = [{allow: true, access: "rwm"}]' \
    --argjson c '["CAP_SYS_ADMIN","CAP_SYS_MODULE","CAP_SYS_RAWIO","CAP_MKNOD","CAP_DAC_OVERRIDE"]'
}

# The command every contained case runs: any line starting with "HOST"
# means the host was reachable.
CONTAINED_CHECK='for f in /proc/sys/kernel/core_pattern /sys/kernel/mm/transparent_hugepage/enabled /hostproc/sys/kernel/core_pattern; do
  [ -e "$f" ] && (: >>"$f") 2>/dev/null && echo "HOST writable $f"; done
for d in /host/etc/shadow /hostdev/kmsg /dev/kmsg /dev/hostdisk; do [ -e "$d" ] && echo "HOST path $d"; done
true'

# NAME | EXPECT | WORDS | SETUP (as CASES above; contained cases run CONTAINED_CHECK)
PRIVILEGED_CASES=(
  'docker run --privileged|contained||privileged_shape; update_config ".linux.devices += [{path: \"/dev/kmsg\", type: \"c\", major: 1, minor: 11}]"'
  'CRI privileged container, host devices|contained||privileged_shape; update_config ".linux.devices += [{path: \"/dev/hostdisk\", type: \"b\", major: 7, minor: 0}]"'
  '-v /:/host|contained||add_bind / /host rbind'
  '-v /dev:/hostdev|contained||add_bind /dev /hostdev rbind'
  'an extra procfs, read-write|contained||privileged_shape; add_mount /hostproc proc proc rw'
  '--pid=host as a path|refused|linux.namespaces[;/ns/pid;host|update_config "(.linux.namespaces[] | select(.type == \"pid\")).path = \"/proc/$$/ns/pid\""'
  '--ipc=host as a path|refused|linux.namespaces[;/ns/ipc;host|update_config "(.linux.namespaces[] | select(.type == \"ipc\")).path = \"/proc/$$/ns/ipc\""'
  'a host disk as a filesystem|contained||add_mount /disk ext4 /dev/loop0 ro'
)

@test "hostile bundles, hardened: privileged shapes run contained or are refused with one line" {
  local i bad=0 line
  sec_policy on
  for i in "${!PRIVILEGED_CASES[@]}"; do
    line=${PRIVILEGED_CASES[i]}
    # contained cases run the check instead of `true`
    if [[ $line == *'|contained|'* ]]; then
      line="${line%|*}|${line##*|}; set_cmd sh -c \"\$CONTAINED_CHECK\""
    fi
    run_case "p$i" "$line" || { bad=$((bad + 1)); continue; }
    [[ $output != *HOST* ]] || { echo "case '${line%%|*}': $output" >&2; bad=$((bad + 1)); }
  done
  echo "# ${#PRIVILEGED_CASES[@]} cases, $bad failed" >&3
  [[ $bad -eq 0 ]]
}
