# shellcheck shell=bash
# tests/clients/helpers.bash: what the engine suites (podman, docker,
# containerd via ctr, containerd via CRI) share.  Each .bats file starts
# the engine it tests itself, inside a world of its own:
#
#   T (a short private directory, /tmp/art-ENGINE.XXXXXX): every root,
#     state dir, socket, config file, log and audit trail of the file;
#   an "engine" network namespace the daemons (and podman) run in, so that
#     the bridges, addresses, routes, sysctls and iptables state an engine
#     sets up never touch the host's network;
#   a "server" network namespace joined to it by a veth pair
#     (10.213.0.1 engine side, 10.213.0.2 server side: the test's own
#     "internet", never a real address) with a small HTTP server;
#   a cgroup parent of its own for the containers.
#
# clients_setup starts this world, clients_teardown removes all of it (also
# after a failure), and clients_leftovers lists what an engine left behind
# once its containers are removed and its daemon stopped: the last test of
# every file asserts that list is empty.

CLIENTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../hack/lib.sh
. "$CLIENTS_DIR/../../hack/lib.sh"

RUNTIME=$(resolve_runtime "${RUNTIME:-$(agentrt_default_runtime)}")
# Debian's python3 (python3-grpcio, python3-protobuf), not one from PATH.
CLIENTS_PYTHON=/usr/bin/python3
SERVER_IP=10.213.0.2
ENGINE_IP=10.213.0.1
SERVER_TEXT=hello-from-the-art-test-server
# Host paths engines create outside any root they are given (libcni's
# cache, containerd's shim sockets, dockerd's plugin dir, podman's blob
# cache): removed at the end when the file created them and they are empty.
# In those of CLIENTS_HOST_DIRS engines keep one entry per container (CNI
# results, shim sockets, fifos): an entry left there is a leak.
CLIENTS_HOST_DIRS=(/var/lib/cni/results /run/containerd/s /run/containerd/fifo)
CLIENTS_HOST_PATHS=(
  /var/lib/containers/cache/blob-info-cache-v1.boltdb
  /var/lib/containers/cache /var/lib/containers
  /var/lib/cni/results /var/lib/cni/networks /var/lib/cni
  /run/containerd/s /run/containerd/fifo /run/containerd
  /run/docker/plugins /run/docker
)

# fail MESSAGE: end the test with a message.
fail ()
{
  printf '%s\n' "$*" >&2
  return 1
}

# check_status WANT: after `run`, insist on an exit status.
# shellcheck disable=SC2154 # status and output are bats' (set by run)
check_status ()
{
  if [[ $status -ne $1 ]]; then
    printf 'exit status %s, expected %s; output:\n%s\n' "$status" "$1" "$output" >&2
    return 1
  fi
}

# has_line LINE: $output contains exactly this line.
has_line ()
{
  grep -qxF -- "$1" <<<"$output" || fail "no line '$1' in output:"$'\n'"$output"
}

# has_text TEXT: $output contains TEXT somewhere.
has_text ()
{
  [[ $output == *"$1"* ]] || fail "no '$1' in output:"$'\n'"$output"
}

# wait_until TRIES CMD...: run CMD every 0.1 s until it succeeds.
wait_until ()
{
  local tries=$1
  shift
  while ((tries-- > 0)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  "$@"
}

# clients_requires CMD...: skip the whole file (call it from setup_file)
# unless we are root, the runtime is agentrt with its egress sidecar next
# to it, and every CMD is installed (tests/clients/packages lists them).
clients_requires ()
{
  local c
  [[ $EUID -eq 0 ]] || skip "requires root"
  [[ -x $RUNTIME ]] || skip "requires the runtime ($RUNTIME is not built)"
  [[ $("$RUNTIME" --version 2>/dev/null | awk 'NR == 1 { print $1 }') == agentrt ]] \
    || skip "requires agentrt (the engines are given agentrt's --policy)"
  [[ -x $(dirname "$RUNTIME")/agentrt-egress ]] \
    || skip "requires agentrt-egress next to $RUNTIME"
  for c in "$@" ip nsenter jq curl script "$BUSYBOX"; do
    command -v "$c" >/dev/null || skip "requires $c (see tests/clients/packages)"
  done
}

# ---- the test's world -----------------------------------------------------

# clients_setup NAME: T, the two network namespaces (ENGINE_NS, SERVER_NS
# paths), the HTTP server, POLICY (hardening on, the source tree's agent
# seccomp profile, audit in T/audit), CG_PARENT and BUSYBOX_TAR (a root
# filesystem from busybox-static).  Everything is written down in T so
# that clients_teardown can undo it from another process.
clients_setup ()
{
  local name=$1 tag p
  T=$(mktemp -d "/tmp/art-$name.XXXXXX") || return 1
  tag=${T##*.}
  export T CLIENTS_NAME=$name CLIENTS_TAG=$tag
  export ENGINE_NETNS=art-$name-$tag-e SERVER_NETNS=art-$name-$tag-s
  export ENGINE_NS=/run/netns/$ENGINE_NETNS SERVER_NS=/run/netns/$SERVER_NETNS
  export CG_PARENT=art-$name-$tag
  export POLICY=$T/policy.json AUDIT_DIR=$T/audit
  for p in "${CLIENTS_HOST_PATHS[@]}"; do
    [[ -e $p ]] && printf '%s\n' "$p"
  done >"$T/host-paths-before"
  ls /run/netns 2>/dev/null | sort >"$T/netns-before"
  mkdir -p "$AUDIT_DIR" "$T/www" || return 1

  jq -n --arg p "$AGENTRT_TOP/seccomp-profiles/agent-default.json" --arg a "$AUDIT_DIR" \
    '{version: 1, seccomp: {profile: $p}, audit: {dir: $a}}' >"$POLICY" || return 1
  _clients_network || return 1
  _clients_server || return 1
  export BUSYBOX_TAR=$T/busybox.tar
  tar -C "$(rootfs_cache)" -cf "$BUSYBOX_TAR" . || return 1
}

# _clients_network: ENGINE_NETNS <-veth-> SERVER_NETNS.  The server's
# default route points at the engine namespace, where the engines' bridges
# and routes live (their forwarding sysctls are that namespace's own).
_clients_network ()
{
  local e=ae$CLIENTS_TAG s=as$CLIENTS_TAG
  ip netns add "$ENGINE_NETNS" && echo "$ENGINE_NETNS" >>"$T/netns-mine" || return 1
  ip netns add "$SERVER_NETNS" && echo "$SERVER_NETNS" >>"$T/netns-mine" || return 1
  ip link add "$e" netns "$ENGINE_NETNS" type veth peer name "$s" netns "$SERVER_NETNS" || return 1
  ip -n "$ENGINE_NETNS" link set lo up &&
    ip -n "$ENGINE_NETNS" addr add "$ENGINE_IP/24" dev "$e" &&
    ip -n "$ENGINE_NETNS" link set "$e" up &&
    ip -n "$SERVER_NETNS" link set lo up &&
    ip -n "$SERVER_NETNS" addr add "$SERVER_IP/24" dev "$s" &&
    ip -n "$SERVER_NETNS" link set "$s" up &&
    ip -n "$SERVER_NETNS" route add default via "$ENGINE_IP"
}

# _clients_server: http_server.py on SERVER_IP:80 serving one page;
# its log (T/server.log) names the address every request came from.
_clients_server ()
{
  echo "$SERVER_TEXT" >"$T/www/index.html"
  (exec nsenter --net="$SERVER_NS" "$CLIENTS_PYTHON" "$CLIENTS_DIR/http_server.py" \
    "$SERVER_IP" 80 "$T/www" >"$T/server.log" 2>&1 </dev/null) &
  echo $! >"$T/server.pid"
  wait_until 100 in_engine curl -sf -o /dev/null "http://$SERVER_IP/"
}

# in_engine CMD...: CMD in the engine network namespace (only that one:
# same mounts, same everything else).
in_engine ()
{
  nsenter --net="$ENGINE_NS" -- "$@"
}

# start_daemon NAME PIDFILE CMD...: start a daemon in the engine network
# namespace, its output in T/NAME.log; its pid goes to PIDFILE.
start_daemon ()
{
  local name=$1 pidfile=$2
  shift 2
  (exec nsenter --net="$ENGINE_NS" -- "$@" >"$T/$name.log" 2>&1 </dev/null) &
  echo $! >"$pidfile"
}

# stop_pid PIDFILE: SIGTERM the process, wait up to 20 s, then SIGKILL.
stop_pid ()
{
  local pid i
  [[ -s $1 ]] || return 0
  pid=$(<"$1")
  kill -TERM "$pid" 2>/dev/null || { rm -f "$1"; return 0; }
  for ((i = 0; i < 200; i++)); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$1"; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null
  rm -f "$1"
}

# oci_archive NAME OUT CMD-JSON: an OCI image layout archive (what `ctr
# image import` reads) of BUSYBOX_TAR as its one layer, named NAME (e.g.
# localhost/art-busybox:test), whose default command is CMD-JSON.
oci_archive ()
{
  local name=$1 out=$2 cmd=$3 d l c m
  d=$(mktemp -d "$T/oci.XXXXXX") || return 1
  mkdir -p "$d/blobs/sha256"
  l=$(_oci_blob "$d" <"$BUSYBOX_TAR") || return 1
  c=$(jq -cn --arg l "sha256:${l%% *}" --argjson cmd "$cmd" \
    '{architecture: "amd64", os: "linux", config: {Cmd: $cmd, Env: ["PATH=/bin"]},
      rootfs: {type: "layers", diff_ids: [$l]}}' | _oci_blob "$d") || return 1
  m=$(jq -cn --arg c "sha256:${c%% *}" --argjson cs "${c##* }" \
    --arg l "sha256:${l%% *}" --argjson ls "${l##* }" \
    '{schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
      layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $l, size: $ls}]}' \
    | _oci_blob "$d") || return 1
  jq -cn --arg m "sha256:${m%% *}" --argjson ms "${m##* }" --arg n "$name" \
    '{schemaVersion: 2, manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json",
      digest: $m, size: $ms, annotations: {"io.containerd.image.name": $n,
      "org.opencontainers.image.ref.name": ($n | sub(".*:"; ""))}}]}' >"$d/index.json"
  echo '{"imageLayoutVersion": "1.0.0"}' >"$d/oci-layout"
  tar -C "$d" -cf "$out" oci-layout index.json blobs
  local rc=$?
  rm -rf "$d"
  return $rc
}

# _oci_blob DIR: store stdin as a blob of the layout; prints "HASH SIZE".
_oci_blob ()
{
  local tmp=$1/blob.tmp h
  cat >"$tmp" || return 1
  h=$(sha256sum "$tmp") || return 1
  h=${h%% *}
  printf '%s %s\n' "$h" "$(stat -c %s "$tmp")"
  mv "$tmp" "$1/blobs/sha256/$h"
}

# ---- egress from inside an agent ------------------------------------------

# EGRESS_PROBE: run by `sh -c` in an agent whose allowlist holds SERVER_IP:
# its interfaces, the allowlisted server through the proxy (busybox wget
# takes HTTP_PROXY), an address off the list; then, as a program that
# ignores proxy variables, the server again (the transparent path: an IP
# entry allows a raw IP) and a direct connection to the other address.
EGRESS_PROBE='
    ip -o link | cut -d: -f2
    echo "proxy=$HTTP_PROXY"
    wget -q -O- http://'"$SERVER_IP"'/; echo "wget=$?"
    wget -q -O- http://10.213.0.9/; echo "denied=$?"
    unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY
    wget -q -O- http://'"$SERVER_IP"'/ | sed "s/^/transparent: /"
    printf "GET / HTTP/1.0\r\n\r\n" | nc -w 2 10.213.0.9 80 | wc -l | sed "s/^ */direct-lines /"'

# egress_only_through_sidecar: what EGRESS_PROBE printed (in $output)
# shows an agent with only lo, its proxy on loopback, the server reached
# through it and, without proxy variables, through the transparent path,
# the other address refused both ways: no way out but the sidecar.
egress_only_through_sidecar ()
{
  check_status 0
  has_line " lo"
  [[ $(grep -c '^ ' <<<"$output") -eq 1 ]] || fail "the agent sees more than lo: $output"
  has_line "proxy=http://127.0.0.1:3128"
  has_line "$SERVER_TEXT"
  has_line wget=0
  has_text "403 Forbidden"
  has_line denied=1
  has_line "transparent: $SERVER_TEXT"
  has_line "direct-lines 0"
}

# NO_WAY_OUT_PROBE: run by `sh -c` in an agent of an engine's
# `--network none` whose allowlist may hold SERVER_IP: its interfaces, the
# server through the proxy, then a direct connection to it (the
# transparent path).
NO_WAY_OUT_PROBE='
    ip -o link | cut -d: -f2
    wget -q -O- http://'"$SERVER_IP"'/; echo "wget=$?"
    printf "GET / HTTP/1.0\r\n\r\n" | nc -w 2 '"$SERVER_IP"' 80 | wc -l | sed "s/^ */direct-lines /"'

# no_way_out TRAIL: what NO_WAY_OUT_PROBE printed (in $output) shows only
# lo and the server reached neither way (the sidecar's own connects fail:
# the engine's namespace leads nowhere), and the trail TRAIL has both
# connect failures.
no_way_out ()
{
  check_status 0
  has_line " lo"
  has_text "502 Bad Gateway"
  has_line wget=1
  has_line "direct-lines 0"
  [[ $output != *"$SERVER_TEXT"* ]] || fail "the server was reached: $output"
  jq -se 'map(select(.event == "egress" and .reason == "connect-failed")) | length == 2' \
    "$1" >/dev/null || fail "not two connect failures in $1: $(cat "$1")"
}

# exec_confined ENGINE NAME: `ENGINE exec NAME` gives back the process's
# output and exit status, and the exec'd process is confined like the
# container's own (no_new_privs, seccomp).
exec_confined ()
{
  run "$1" exec "$2" sh -c 'echo in-exec; echo exec-err >&2; exit 4'
  check_status 4 || return 1
  has_line in-exec || return 1
  has_line exec-err || return 1
  run "$1" exec "$2" grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status
  check_status 0 || return 1
  has_line $'NoNewPrivs:\t1' || return 1
  has_line $'Seccomp:\t2'
}

# ---- what ran, and what is left -------------------------------------------

# agentrt_ids: every container agentrt created for this file (each one
# starts an audit trail in AUDIT_DIR).
agentrt_ids ()
{
  local f
  for f in "$AUDIT_DIR"/*.jsonl; do
    [[ -e $f ]] && basename "$f" .jsonl
  done
}

# audit_of ID: the container's audit trail.
audit_of ()
{
  cat "$AUDIT_DIR/$1.jsonl"
}

# with_userns_auto CMD...: CMD with the clients' policy asking for a user
# namespace of agentrt's own (userns.mode "auto"), the policy put back
# afterwards.
with_userns_auto ()
{
  local rc=0
  cp "$POLICY" "$T/policy.saved"
  jq '.userns.mode = "auto"' "$T/policy.saved" >"$POLICY"
  "$@" || rc=$?
  cp "$T/policy.saved" "$POLICY"
  return "$rc"
}

# What a container says of its user namespace (OWN_USERNS_PROBE), and
# assert_own_userns: its output shows a range that is not the identity,
# the image's root-owned files the agent root's, and a read-only root.
# (The shell reports a failed redirection before a later 2> applies: the
# group's stderr is the one redirected, or Docker's separately copied
# stderr may land in the middle of a stdout line.)
OWN_USERNS_PROBE='cat /proc/self/uid_map; stat -c "%u %n" /bin/busybox
  { echo y >/etc/y; } 2>/dev/null || echo rootfs-ro'
assert_own_userns ()
{
  [[ $(awk 'NF == 3 { print $1, $3 }' <<<"$output") == "0 65536" ]] || fail "$output"
  [[ $(awk 'NF == 3 { print $2 }' <<<"$output") != 0 ]] || fail "the identity: $output"
  has_line "0 /bin/busybox"
  has_line rootfs-ro
}

# assert_hardened ID: agentrt created the container, with hardening on.
assert_hardened ()
{
  [[ -s $AUDIT_DIR/$1.jsonl ]] || fail "agentrt has no audit trail for $1"
  jq -se 'map(select(.event == "create"))[0].hardened == true' "$AUDIT_DIR/$1.jsonl" >/dev/null \
    || fail "container $1 was not hardened: $(head -c 400 "$AUDIT_DIR/$1.jsonl")"
}

# audit_exit_status ID: the status of the container's last `exit` record
# (its monitor writes it when the init exits, maybe just after the engine
# saw the exit: waits up to 5 s for it).
audit_exit_status ()
{
  local tries=50 st
  while :; do
    st=$(jq -rs 'map(select(.event == "exit"))[-1].status // empty' "$AUDIT_DIR/$1.jsonl")
    [[ -n $st || $((--tries)) -le 0 ]] && break
    sleep 0.1
  done
  printf '%s\n' "$st"
}

# bad_mount_source: BAD_MOUNT_SRC, a file; the deliberate failure every
# engine is given is a bind mount of it over the image's /etc directory.
bad_mount_source ()
{
  BAD_MOUNT_SRC=$T/a-file
  echo not-a-directory >"$BAD_MOUNT_SRC"
}

# agentrt_failure_message: what agentrt itself says (stderr, without its
# "agentrt: " prefix) for that failure, run directly on a bundle.
agentrt_failure_message ()
{
  local b=$T/fail-bundle out
  rm -rf "$b"
  mkbundle "$b" "$RUNTIME" >/dev/null || return 1
  jq --arg s "$BAD_MOUNT_SRC" '.process.args = ["true"]
      | .mounts += [{destination: "/etc", type: "bind", source: $s, options: ["rbind", "ro"]}]' \
    "$b/config.json" >"$b/config.json.new" && mv "$b/config.json.new" "$b/config.json"
  out=$("$RUNTIME" --root "$T/fail-root" --policy "$POLICY" run --bundle "$b" fail-probe 2>&1 </dev/null)
  rm -f "$AUDIT_DIR/fail-probe.jsonl"
  rm -rf "$b"
  [[ $(wc -l <<<"$out") -eq 1 && -n $out ]] || { echo "expected one line from agentrt, got: $out" >&2; return 1; }
  printf '%s\n' "${out#agentrt: }"
}

# _procs_of_test: pids (other than ours and the test server's) whose
# command line or working directory mentions T, whose command line names
# one of agentrt's container ids (monitors, sidecars), or that run in the
# engine network namespace.
_procs_of_test ()
(
  cd / || exit 1
  ids=$(agentrt_ids | paste -sd '|')
  # the link /proc/PID/ns/net shows, as a find -lname pattern
  netns=$(stat -L -c 'net:\[%i\]' "$ENGINE_NS" 2>/dev/null)
  self=$BASHPID
  mine=" $$ $self $PPID $(cat "$T/server.pid" 2>/dev/null) "
  {
    grep -lsaE -- "$T${ids:+|$ids}" /proc/[0-9]*/cmdline
    find /proc/[0-9]*/cwd -maxdepth 0 \( -lname "$T" -o -lname "$T/*" \) -print 2>/dev/null
    [[ -n $netns ]] && find /proc/[0-9]*/ns/net -maxdepth 0 -lname "$netns" -print 2>/dev/null
  } | awk -F/ -v mine="$mine" 'index(mine, " " $3 " ") == 0 { print $3 }' | sort -un \
    | while read -r p; do
      # not the pipeline above (its grep reads its own command line)
      ppid=$(awk '$1 == "PPid:" { print $2 }' "/proc/$p/status" 2>/dev/null) || continue
      [[ -n $ppid && $ppid != "$self" ]] && echo "$p"
    done
)

# clients_leftovers [ROOT...]: one line per thing of this file still there
# besides the world clients_setup made: processes, mounts under T or of
# its containers, cgroups of its containers or under CG_PARENT, agentrt
# state of its containers in each ROOT, network namespaces the engines
# made (podman's netns-*), host paths the engines created.
clients_leftovers ()
{
  local id ids p r m c
  mapfile -t ids < <(agentrt_ids)
  for p in $(_procs_of_test); do
    echo "process $p $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")"
  done
  while read -r m; do
    echo "mount $m"
  done < <(awk -v t="$T" -v ids="$(IFS='|'; echo "${ids[*]}")" \
    'index($5, t) == 1 || (ids != "" && $5 ~ ids) { print $5 }' /proc/self/mountinfo)
  for id in "${ids[@]}"; do
    while read -r c; do
      [[ -n $c ]] && echo "cgroup $c"
    done < <(find /sys/fs/cgroup -mindepth 2 -maxdepth 8 -type d -name "*$id*" 2>/dev/null)
    for r in "$@"; do
      [[ -e $r/$id ]] && echo "state $r/$id"
    done
  done
  # below CG_PARENT, the parents engines made (podman's conmon, a pod's)
  # may stay; processes may not
  while read -r c; do
    [[ -n $c ]] && echo "processes in cgroup ${c%/cgroup.procs}"
  done < <(find /sys/fs/cgroup/*/"$CG_PARENT" -name cgroup.procs -size +0 2>/dev/null)
  comm -13 "$T/netns-before" <(ls /run/netns 2>/dev/null | sort) \
    | grep -E '^(netns|cni)-' | sed 's/^/netns /'
  for p in "${CLIENTS_HOST_DIRS[@]}"; do
    [[ -d $p ]] && ls -A "$p" | sed "s|^|left in $p: |"
  done
  return 0
}

# assert_no_leftovers [ROOT...]: fail, listing them, if clients_leftovers
# finds anything.
assert_no_leftovers ()
{
  local left
  left=$(clients_leftovers "$@")
  [[ -z $left ]] || fail "left behind:"$'\n'"$left"
}

# clients_teardown: undo everything of the world, whatever state it is in
# (the engine's own cleanup, ENGINE_CLEANUP, runs first).  Kills what is
# left of this file's processes, unmounts, removes cgroups (rmdir only),
# deletes the network namespaces, removes the host paths the file created
# (rmdir, never recursive) and T.
clients_teardown ()
{
  local p i m
  [[ -n ${T:-} && -d $T ]] || return 0
  if [[ -n ${ENGINE_CLEANUP:-} ]]; then
    "$ENGINE_CLEANUP" >/dev/null 2>&1 || true
  fi
  for ((i = 0; i < 3; i++)); do
    p=$(_procs_of_test)
    [[ -z $p ]] && break
    # shellcheck disable=SC2086
    kill -KILL $p 2>/dev/null
    sleep 0.2
  done
  stop_pid "$T/server.pid"
  while read -r m; do
    umount -l "$m" 2>/dev/null
  done < <(awk -v t="$T" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
  for id in $(agentrt_ids); do
    find /sys/fs/cgroup -mindepth 2 -maxdepth 8 -depth -type d -name "*$id*" \
      -exec rmdir {} + 2>/dev/null
  done
  find /sys/fs/cgroup/*/"$CG_PARENT" -depth -type d -exec rmdir {} + 2>/dev/null
  comm -13 "$T/netns-before" <(ls /run/netns 2>/dev/null | sort) | grep '^netns-' \
    | while read -r p; do
      ip netns del "$p" 2>/dev/null
    done
  if [[ -f $T/netns-mine ]]; then
    while read -r p; do
      ip netns del "$p" 2>/dev/null
    done <"$T/netns-mine"
  fi
  for p in "${CLIENTS_HOST_PATHS[@]}"; do
    grep -qxF "$p" "$T/host-paths-before" && continue
    if [[ -d $p ]]; then
      rmdir "$p" 2>/dev/null
    elif [[ $p == *.boltdb ]]; then
      rm -f "$p"
    fi
  done
  rm -rf --one-file-system "$T"
}

# The checks a --privileged container runs: kernel settings, its own
# cgroup limits and the host's devices out of reach, one line each.
# shellcheck disable=SC2016 # expanded in the container
PRIVILEGED_CHECKS='for f in /proc/sys/kernel/core_pattern /sys/kernel/mm/transparent_hugepage/enabled \
  /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max; do
  [ -e "$f" ] || continue
  if (: >>"$f") 2>/dev/null; then echo "writable $f"; else echo "read-only $f"; fi
done
for d in /dev/*; do [ -b "$d" ] && echo "block device $d"; done
grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status'

# assert_privileged_hardened ID: after a run of PRIVILEGED_CHECKS in a
# --privileged container: nothing was writable, no block device, and the
# audit trail shows the kernel mounts made read-only.
assert_privileged_hardened ()
{
  [[ $output == *read-only* ]] || fail "no check ran: $output"
  [[ $output != *writable* && $output != *"block device"* ]] || fail "$output"
  has_line $'NoNewPrivs:\t1'
  assert_hardened "$1"
  jq -se 'map(select(.event == "create"))[0].changes
      | any(.kind == "mount-options" and (.what | startswith("/sys (sysfs)")))' \
    "$AUDIT_DIR/$1.jsonl" >/dev/null \
    || fail "no read-only /sys recorded: $(head -c 600 "$AUDIT_DIR/$1.jsonl")"
}

# ---- a throwaway user (the rootless suites) -------------------------------

# rootless_user_setup PREFIX: an ordinary user PREFIX-TAG with ranges in
# /etc/subuid and /etc/subgid (useradd's, 65536 ids each) and an
# XDG_RUNTIME_DIR of its own, RL_XDG (T/xdg, mode 0700).  Exports RL_USER,
# RL_HOME, RL_UID, RL_GID, RL_SUBUID, RL_XDG; the name is written down in
# T/user for rootless_user_remove.  T becomes 0711: the user reaches what
# the test gives it there, and nothing else.
rootless_user_setup ()
{
  printf -v RL_USER '%s-%s' "$1" "$CLIENTS_TAG"
  RL_USER=${RL_USER,,}
  echo "$RL_USER" >"$T/user"
  useradd -m -s /bin/sh -K SUB_UID_COUNT=65536 -K SUB_GID_COUNT=65536 "$RL_USER" || return 1
  RL_HOME=$(getent passwd "$RL_USER" | cut -d: -f6)
  RL_UID=$(id -u "$RL_USER")
  RL_GID=$(id -g "$RL_USER")
  RL_SUBUID=$(awk -F: -v u="$RL_USER" '$1 == u { print $2 }' /etc/subuid)
  RL_XDG=$T/xdg
  export RL_USER RL_HOME RL_UID RL_GID RL_SUBUID RL_XDG
  [[ -n $RL_SUBUID ]] || fail "useradd gave $RL_USER no /etc/subuid range" || return 1
  grep -q "^$RL_USER:" /etc/subgid || fail "useradd gave $RL_USER no /etc/subgid range" || return 1
  mkdir -p "$RL_XDG" && chown "$RL_USER:" "$RL_XDG" && chmod 0700 "$RL_XDG" && chmod 0711 "$T"
}

# rootless_engine_teardown CLEANUP: a rootless engine suite's end, whatever
# happened: /dev/net/tun's mode back, CLEANUP (the engine's containers and
# images) while the user exists, then whatever the user still runs, by
# pid, the user itself, and the suite's directory.
rootless_engine_teardown ()
{
  restore_tun
  if [[ -n ${T:-} && -s $T/user ]] && id "$(<"$T/user")" >/dev/null 2>&1; then
    "$1" >/dev/null 2>&1
  fi
  rootless_user_remove
  clients_teardown
}

# rootless_user_remove: kill, by pid, whatever still runs as the user or
# as an id of its range (its engine's helpers, a sidecar), then remove
# the user, its home and its ranges.  Safe to call whatever happened.
rootless_user_remove ()
{
  local user sub p i
  [[ -n ${T:-} && -s $T/user ]] || return 0
  user=$(<"$T/user")
  if id "$user" >/dev/null 2>&1; then
    sub=$(awk -F: -v u="$user" '$1 == u { print $2 }' /etc/subuid)
    for ((i = 0; i < 3; i++)); do
      p=$(ps -e -o pid=,uid= | awk -v u="$(id -u "$user")" -v s="${sub:-0}" \
        '$2 == u || (s > 0 && $2 >= s && $2 < s + 65536) { print $1 }')
      [[ -z $p ]] && break
      # shellcheck disable=SC2086
      kill -KILL $p 2>/dev/null
      sleep 0.2
    done
    userdel -r "$user" 2>/dev/null
  fi
  # shadow's userdel drops the ranges; make sure
  sed -i "/^$user:/d" /etc/subuid /etc/subgid
}

# as_user CMD...: CMD as the test user in the engine network namespace,
# with a clean environment (HOME, USER, XDG_RUNTIME_DIR and PATH), as a
# login would give it.
as_user ()
{
  nsenter --net="$ENGINE_NS" -- setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups -- \
    env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME="$RL_HOME" \
    USER="$RL_USER" LOGNAME="$RL_USER" XDG_RUNTIME_DIR="$RL_XDG" "$@"
}

# widen_tun: slirp4netns opens /dev/net/tun as the user; this machine
# ships it 0600.  restore_tun puts the mode back (each suite
# calls it in teardown and teardown_file).
widen_tun ()
{
  [[ -c /dev/net/tun ]] || skip "requires /dev/net/tun"
  if [[ ! -s $T/tun-mode ]]; then
    stat -c %a /dev/net/tun >"$T/tun-mode" || return 1
  fi
  chmod 0666 /dev/net/tun
}

restore_tun ()
{
  [[ -n ${T:-} && -s $T/tun-mode ]] || return 0
  chmod "$(<"$T/tun-mode")" /dev/net/tun && rm -f "$T/tun-mode"
}

# host_uid PID: the owner of a process as the host sees it.
host_uid ()
{
  stat -c %u "/proc/$1"
}
