#!/bin/bash
# hack/valgrind.sh: valgrind memcheck of the runtime's commands and of the
# egress sidecar under load.  Run as root; needs valgrind, curl, python3,
# iproute2.  Each checked process must end with no memcheck error and no
# definite leak; the figures are printed at the end.
#
#   hack/valgrind.sh [OPTIONS]
#     --requests N   proxied requests of the sidecar load (default 300, rounded
#                    up to a multiple of 30)
#     --keep DIR     keep the valgrind logs in DIR (default: removed)
#     --no-runtime   only the sidecar
#     --no-sidecar   only the runtime
# Environment: AGENTRT_VALGRIND_BUILD_DIR (default _build-valgrind/, built
# here if needed, configured with --disable-static-egress: memcheck and the
# LD_PRELOAD below need a dynamically linked sidecar).
#
# What valgrind can and cannot see (valgrind 3.19, Debian 12):
# * The runtime: each command runs under memcheck with --trace-children=no:
#   what it execs (hooks, the container's program, the sidecar) is not
#   followed; what it forks is (the init between clone and exec, the
#   monitor).  Valgrind 3.19 implements neither the new mount API
#   (open_tree, move_mount, fsopen...) nor seccomp(2) nor Landlock, so a
#   container cannot be set up under it: `create` is checked up to its init's
#   first mount, which fails with ENOSYS, and through the rollback of that
#   failure (nothing may be left); the lifecycle (start, state, ps, exec,
#   kill, delete) is then checked on containers made by a native create,
#   plain and hardened (monitor and sidecar).  agentrt runs from a
#   read-only bind mount, as an installed binary would, so that it does not
#   re-execute itself from a sealed copy (which valgrind would not follow).
# * The sidecar: agentrt-egress under memcheck, started the way the runtime
#   starts it (tests/egress/launch.py: listeners in an agent network
#   namespace with only lo, the proxy in an outer one where a test server
#   listens), serving --requests HTTP, CONNECT and SOCKS5 requests, denied
#   ones and mutated garbage, then stopped the usual way (its watched init
#   exits).  For want of seccomp(2) and Landlock in valgrind it runs with
#   --no-landlock and with libseccomp's four calls stubbed out (LD_PRELOAD):
#   memcheck sees the proxy's own code, not the kernel's filters (the
#   ASan build, hack/test.sh --sanitize, runs it with them).
set -euo pipefail

SELF=$(readlink -f "$0")
. "$(dirname "$SELF")/lib.sh"
cd "$AGENTRT_TOP"

usage ()
{
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$SELF"
  exit "${1:-0}"
}

requests=300 keep='' do_runtime=1 do_sidecar=1 inner=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --requests) requests=$2; shift 2 ;;
    --keep) keep=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    --no-runtime) do_runtime=0; shift ;;
    --no-sidecar) do_sidecar=0; shift ;;
    --inner) inner=$2; shift 2 ;; # internal: the runtime part, in its own mount namespace
    -h|--help) usage 0 ;;
    *) usage 2 >&2 ;;
  esac
done

BUILD=${AGENTRT_VALGRIND_BUILD_DIR:-$AGENTRT_TOP/_build-valgrind}
CONFIGURE_ARGS=(--enable-werror --disable-static-egress)
VALGRIND=(valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite
  --errors-for-leak-kinds=definite --track-origins=yes --trace-children=no
  --vgdb=no --num-callers=30)

# vg_summary LOG...: one line per checked process (logs NAME.PID): errors,
# definitely lost bytes, allocations; fails if any has an error or a
# definite leak.
vg_summary ()
{
  local f name errors lost allocs bad=0
  for f in "$@"; do
    name=$(basename "$f")
    errors=$(sed -n 's/^==[0-9]*== ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$f" | tail -n 1)
    lost=$(sed -n 's/^==[0-9]*==    definitely lost: \([0-9,]*\) bytes.*/\1/p' "$f" | tail -n 1)
    allocs=$(sed -n 's/^==[0-9]*==   total heap usage: \([0-9,]*\) allocs.*/\1/p' "$f" | tail -n 1)
    [[ -n $errors ]] || continue # exec'd, not followed
    printf '  %-18s pid %-7s errors %-3s definitely lost %-6s allocations %s\n' \
      "${name%.*}" "${name##*.}" "$errors" "${lost:-0}" "${allocs:-?}"
    if [[ $errors != 0 || ${lost:-0} != 0 ]]; then
      bad=1
      sed -n '/^==[0-9]*== [A-Z].*\(Invalid\|uninitialised\|Mismatched\|definitely lost in\)/,/^==[0-9]*== $/p' "$f" | head -n 60
    fi
  done
  return "$bad"
}

build ()
{
  if [[ ! -f $BUILD/Makefile || $(cat "$BUILD/.configure-args" 2>/dev/null) != "${CONFIGURE_ARGS[*]}" ]]; then
    log "configure ${CONFIGURE_ARGS[*]} (in $BUILD)"
    [[ -x configure ]] || ./autogen.sh >/dev/null
    mkdir -p "$BUILD"
    (cd "$BUILD" && "$AGENTRT_TOP/configure" -q "${CONFIGURE_ARGS[@]}")
    printf '%s\n' "${CONFIGURE_ARGS[*]}" >"$BUILD/.configure-args"
  fi
  log "make agentrt agentrt-egress (in $BUILD)"
  make -s -C "$BUILD" -j"$(nproc)" agentrt agentrt-egress >/dev/null
}

# ---- the runtime ------------------------------------------------------------

# Runs in a private mount namespace (see --inner): T is the work dir.
runtime_inner ()
{
  local T=$1 rt bundle
  STEPS=()
  mkdir -p "$T/bin" "$T/logs"
  cp "$BUILD/agentrt" "$BUILD/agentrt-egress" "$T/bin/"
  mount --bind "$T/bin" "$T/bin"
  mount -o remount,bind,ro "$T/bin"
  rt=$T/bin/agentrt
  bundle=$T/bundle
  mkbundle "$bundle" "$rt" >/dev/null
  # whatever happens, no container outlives the check
  # shellcheck disable=SC2064 # T now
  trap "for id in \$(ls '$T/state' 2>/dev/null); do '$rt' --root '$T/state' delete --force \$id; done" EXIT
  jq '.process.args = ["sleep", "inf"] | del(.linux.seccomp)
      | .hooks.poststart = [{path: "/bin/true"}]' "$bundle/config.json" >"$T/c.json"
  mv "$T/c.json" "$bundle/config.json"
  jq -n --arg a "$T/audit" '{version: 1, hardening: "off", audit: {dir: $a}}' >"$T/off.json"
  jq -n --arg a "$T/audit" --arg p "$AGENTRT_TOP/seccomp-profiles/agent-default.json" \
    '{version: 1, seccomp: {profile: $p}, audit: {dir: $a}}' >"$T/hardened.json"

  vg () # vg NAME POLICY ARGS...: agentrt ARGS under memcheck (see vg_step)
  {
    local name=$1 policy=$2
    shift 2
    "${VALGRIND[@]}" --log-file="$T/logs/$name.%p" \
      "$rt" --root "$T/state" --policy "$T/$policy.json" "$@" </dev/null >"$T/logs/$name.out" 2>&1
  }
  native () { "$rt" --root "$T/state" --policy "$T/$1.json" "${@:2}" </dev/null >/dev/null 2>&1; }
  # vg_step NAME POLICY ARGS...: the command under memcheck; when it stops
  # at a syscall valgrind does not implement, it is repeated natively so
  # that the lifecycle goes on (its memcheck up to there still counts).
  vg_step ()
  {
    local name=$1 sys
    if vg "$@"; then
      STEPS+=("$name: completed")
      return 0
    fi
    sys=$(sed -n 's/.*unhandled amd64-linux syscall: \([0-9]*\).*/\1/p' "$T"/logs/"$name".[0-9]* | head -n 1)
    if [[ -z $sys ]]; then
      echo "$name failed under valgrind:"
      cat "$T/logs/$name.out"
      return 1
    fi
    STEPS+=("$name: stopped at $(syscall_name "$sys") ($(tail -n 1 "$T/logs/$name.out")), then run natively")
    native "${@:2}"
  }

  log "runtime: each command under memcheck (lifecycle plain and hardened)"
  vg_step explain hardened policy explain --bundle "$bundle"
  vg_step spec off spec --bundle "$T" # writes $T/config.json
  local mode id
  for mode in off hardened; do
    id=vg-$mode
    vg_step "create-$mode" "$mode" create --bundle "$bundle" "$id"
    vg_step "state-$mode" "$mode" state "$id"
    vg_step "start-$mode" "$mode" start "$id"
    vg_step "list-$mode" "$mode" list
    vg_step "ps-$mode" "$mode" ps "$id"
    vg_step "exec-$mode" "$mode" exec "$id" true
    vg_step "kill-$mode" "$mode" kill "$id" KILL
    for _ in $(seq 50); do
      [[ $(native_state "$mode" "$id") == stopped ]] && break
      sleep 0.1
    done
    vg_step "delete-$mode" "$mode" delete "$id"
    [[ ! -e $T/state/$id ]] || { echo "delete left $T/state/$id"; return 1; }
  done
  printf '  %s\n' "${STEPS[@]}"
  vg_summary "$T"/logs/*.[0-9]*
}

# syscall_name NR: the name of the x86_64 syscalls valgrind 3.19 lacks.
syscall_name ()
{
  case $1 in
    317) echo seccomp ;; 424) echo pidfd_send_signal ;; 428) echo open_tree ;;
    429) echo move_mount ;; 430) echo fsopen ;; 431) echo fsconfig ;;
    432) echo fsmount ;; 434) echo pidfd_open ;; 435) echo clone3 ;;
    437) echo openat2 ;; 438) echo pidfd_getfd ;; 442) echo mount_setattr ;;
    444) echo landlock_create_ruleset ;; *) echo "syscall $1" ;;
  esac
}

native_state ()
{
  "$T/bin/agentrt" --root "$T/state" --policy "$T/$1.json" state "$2" 2>/dev/null | jq -r .status
}

runtime_check ()
{
  local T=$1
  unshare -m --propagation private "$SELF" --inner "$T"
}

# ---- the sidecar ------------------------------------------------------------

# The stub of libseccomp's calls agentrt-egress makes (valgrind has no
# seccomp(2)): a context that accepts every rule and loads nothing.
seccomp_stub ()
{
  cat >"$1/stub.c" <<'EOF'
/* hack/valgrind.sh: libseccomp stubbed out for memcheck (no seccomp(2)). */
#include <stdint.h>
static int ctx;
void *seccomp_init (uint32_t def) { (void) def; return &ctx; }
int seccomp_rule_add (void *c, uint32_t a, int s, unsigned n, ...) { (void) c; (void) a; (void) s; (void) n; return 0; }
int seccomp_load (void *c) { (void) c; return 0; }
void seccomp_release (void *c) { (void) c; }
EOF
  cc -shared -fPIC -O1 -o "$1/libseccomp-stub.so" "$1/stub.c"
}

sidecar_check ()
{
  local T=$1 sfx=$$ A O init srv proxy n ok=0 denied=0 i rc=0
  A=agentrt-vga-$sfx O=agentrt-vgo-$sfx
  mkdir -p "$T/logs"
  seccomp_stub "$T"
  cat >"$T/proxy" <<EOF
#!/bin/sh
LD_PRELOAD=$T/libseccomp-stub.so exec ${VALGRIND[*]} --log-file=$T/logs/sidecar.%p \
  $BUILD/agentrt-egress --no-landlock "\$@"
EOF
  chmod +x "$T/proxy"
  ip netns add "$A"
  ip netns add "$O"
  SIDECAR_CLEANUP="ip netns del $A; ip netns del $O"
  ip -n "$A" link set lo up
  ip -n "$O" link set lo up
  ip netns exec "$O" python3 tests/egress/server.py http 127.0.0.1 8080 &
  srv=$!
  sleep inf &
  init=$!
  SIDECAR_CLEANUP="kill $srv $init 2>/dev/null; $SIDECAR_CLEANUP"
  ip netns exec "$O" python3 tests/egress/launch.py --proxy "$T/proxy" --listen-netns "$A" \
    --watch-pid "$init" --audit "$T/audit.jsonl" --id vg --allow 127.0.0.1:8080 \
    2>"$T/proxy.err" &
  proxy=$!
  for _ in $(seq 100); do
    ip netns exec "$A" curl -s -o /dev/null http://127.0.0.1:3128/ && break
    sleep 0.2
  done

  log "sidecar: $requests proxied requests, denials and garbage, under valgrind"
  local P=http://127.0.0.1:3128 U=http://127.0.0.1:8080 urls=() per=10
  for ((i = 0; i < per; i++)); do
    urls+=("$U/" -o /dev/null "$U/bytes/65536" -o /dev/null "$U/chunked/20000" -o /dev/null)
  done
  n=0
  while ((n < requests)); do
    case $(((n / 30) % 3)) in
      0) ip netns exec "$A" curl -sS -m 30 -w '%{http_code}\n' -x "$P" "${urls[@]}" ;;
      1) ip netns exec "$A" curl -sS -m 30 -w '%{http_code}\n' -p -x "$P" "${urls[@]}" ;;
      2) ip netns exec "$A" curl -sS -m 30 -w '%{http_code}\n' -x socks5://127.0.0.1:1080 "${urls[@]}" ;;
    esac >>"$T/codes" 2>>"$T/curl.err" || true
    n=$((n + 3 * per))
  done
  for ((i = 0; i < 20; i++)); do
    ip netns exec "$A" curl -sS -m 10 -w '%{http_code}\n' -x "$P" http://127.0.0.1:8081/ -o /dev/null \
      http://169.254.169.254/ -o /dev/null >>"$T/denied" 2>/dev/null || true
  done
  ip netns exec "$A" python3 tests/egress/client.py garbage 3128 1080 3 >/dev/null 2>&1 || true
  ok=$(grep -c '^200$' "$T/codes" || true)
  denied=$(grep -c '^403$' "$T/denied" || true)
  echo "  $ok requests answered 200 (of $n sent), $denied refused as they should"

  kill "$init"
  wait "$proxy" || rc=$?
  ((rc == 0)) || { echo "the sidecar exited with $rc:"; cat "$T/proxy.err"; return 1; }
  ((ok == n)) || { echo "only $ok of $n requests succeeded:"; sort "$T/curl.err" | uniq -c | head; return 1; }
  vg_summary "$T"/logs/sidecar.*
}

main ()
{
  local failed=0
  [[ $EUID -eq 0 ]] || { echo "run as root (namespaces, mounts, containers)" >&2; exit 1; }
  if [[ -n $inner ]]; then
    runtime_inner "$inner"
    return
  fi
  command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
  build
  WORK=$(mktemp -d /tmp/agentrt-valgrind.XXXXXX)
  SIDECAR_CLEANUP=:
  trap 'eval "$SIDECAR_CLEANUP"; [[ -z $keep ]] || cp -r "$WORK"/* "$keep/"; rm -rf "$WORK"' EXIT
  if ((do_runtime)); then
    runtime_check "$WORK/runtime" || failed=1
  fi
  if ((do_sidecar)); then
    sidecar_check "$WORK/sidecar" || failed=1
  fi
  if ((failed)); then
    echo "valgrind found problems (or a step failed)" >&2
    return 1
  fi
  log "no memcheck errors, no definite leaks"
}

main
