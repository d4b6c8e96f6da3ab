# shellcheck shell=bash
# tests/integration/helpers/egress.bash: the egress-*.bats files' own
# small "internet", built once per file (setup_file) and removed in
# teardown_file whatever happened:
#
#   netns OUT (EGRESS_OUT)                 netns SRV (EGRESS_SRV)
#   1.2.3.1/24  3ffe:213::1/64 ── veth ── 1.2.3.10 web.test, .11 other.test
#   routes to 169.254.169.254/32 and               169.254.169.254  metadata.test
#   10.213.0.0/24 over the veth                    10.213.0.10      private.test
#                                                  3ffe:213::10 web6.test
#                                                  1.2.3.53 a DNS server
#
# OUT is what a bundle's network namespace path points at (the way Podman
# and CRI hand one over): agentrt starts the sidecar there and gives the
# agent a fresh namespace with only lo.  SRV runs helpers/egress-servers.py.
# The "public" servers need addresses the egress proxy takes as public,
# which the documentation ranges are not (docs/egress.md, Address policy):
# 1.2.3/24 and 3ffe:213::/64 (the old 6bone, returned to IANA), with
# link-local and private test addresses, only inside these namespaces,
# which have no default route: nothing can leave them.  Names come
# from EGRESS_HOSTS, bind-mounted at /etc/hosts (with EGRESS_RESOLV at
# /etc/resolv.conf, naming the DNS server) in the bundle, or in a private
# mount namespace for egress_hostnet.  The DNS server
# (tests/egress/dns_server.py) answers the names of EGRESS_DNS_NAMES only,
# which are in no hosts file (a program finds them through DNS), NXDOMAIN
# for the rest, and logs every question it gets to EGRESS_DNS_LOG.  Load
# after helpers.bash and helpers/hardening.bash.

EGRESS_HELPERS=$INTEGRATION_DIR/helpers

# The allowlist most tests use: every test name (so that denials come
# from the address checks), echo ports on web.test, nothing else.
EGRESS_ALLOW='web.test,*.web.test,web6.test,metadata.test,loop.test,private.test,web.test:22'

# What the DNS server answers: dns.test on web's address, ssh.test and
# dns-other.test on other's, rebind.test on loopback, private-dns.test in
# private space, dns6.test on web6's.
EGRESS_DNS_NAMES=(dns.test=1.2.3.10 ssh.test=1.2.3.11 dns-other.test=1.2.3.11
  rebind.test=127.0.0.1 private-dns.test=10.213.0.10 dns6.test=3ffe:213::10)
_egress_python ()
{
  # the system python starts faster than a pyenv shim
  if [[ -x /usr/bin/python3 ]]; then echo /usr/bin/python3; else command -v python3; fi
}

# egress_net_up: the namespaces, veth, addresses, routes and servers (from
# setup_file).  Sets EGRESS_OUT, EGRESS_SRV, EGRESS_DIR, EGRESS_HOSTS,
# EGRESS_RESOLV, EGRESS_UDP_LOG, EGRESS_DNS_LOG, EGRESS_SERVER_PID,
# EGRESS_DNS_PID, and exports them.
# Without root or the tools it builds nothing (the tests skip); a failure
# half-way removes what was made.
egress_net_up ()
{
  [[ $EUID -eq 0 ]] || return 0
  command -v ip >/dev/null && command -v nsenter >/dev/null || return 0
  _egress_net_build || { egress_net_down; return 1; }
}

_egress_net_build ()
{
  local sfx py
  printf -v sfx '%x%x' "$$" "$RANDOM"
  EGRESS_OUT=agentrt-eo-$sfx EGRESS_SRV=agentrt-es-$sfx
  EGRESS_DIR=$BATS_FILE_TMPDIR/egress-net
  mkdir -p "$EGRESS_DIR"
  EGRESS_HOSTS=$EGRESS_DIR/hosts EGRESS_RESOLV=$EGRESS_DIR/resolv.conf
  EGRESS_UDP_LOG=$EGRESS_DIR/udp.log EGRESS_DNS_LOG=$EGRESS_DIR/dns.log
  export EGRESS_OUT EGRESS_SRV EGRESS_DIR EGRESS_HOSTS EGRESS_RESOLV EGRESS_UDP_LOG EGRESS_DNS_LOG
  ip netns add "$EGRESS_OUT" || return 1
  ip netns add "$EGRESS_SRV" || return 1
  ip link add "eo$sfx" netns "$EGRESS_OUT" type veth peer name "es$sfx" netns "$EGRESS_SRV" || return 1
  ip -n "$EGRESS_OUT" link set lo up
  ip -n "$EGRESS_SRV" link set lo up
  ip -n "$EGRESS_OUT" addr add 1.2.3.1/24 dev "eo$sfx"
  ip -n "$EGRESS_OUT" addr add 3ffe:213::1/64 dev "eo$sfx" nodad
  ip -n "$EGRESS_OUT" link set "eo$sfx" up
  ip -n "$EGRESS_OUT" route add 169.254.169.254/32 dev "eo$sfx"
  ip -n "$EGRESS_OUT" route add 10.213.0.0/24 dev "eo$sfx"
  local a
  for a in 1.2.3.10/24 1.2.3.11/24 1.2.3.53/24 169.254.169.254/32 10.213.0.10/24; do
    ip -n "$EGRESS_SRV" addr add "$a" dev "es$sfx" || return 1
  done
  ip -n "$EGRESS_SRV" addr add 3ffe:213::10/64 dev "es$sfx" nodad
  ip -n "$EGRESS_SRV" link set "es$sfx" up

  cat >"$EGRESS_HOSTS" <<'EOF'
# agentrt egress tests: test names only
127.0.0.1 localhost
1.2.3.10 web.test www.web.test
1.2.3.11 other.test
169.254.169.254 metadata.test
127.0.0.1 loop.test
10.213.0.10 private.test
3ffe:213::10 web6.test
EOF
  printf 'nameserver 1.2.3.53\noptions timeout:1 attempts:1\n' >"$EGRESS_RESOLV"
  : >"$EGRESS_UDP_LOG"
  : >"$EGRESS_DNS_LOG"

  py=$(_egress_python)
  (cd / && exec ip netns exec "$EGRESS_SRV" "$py" "$EGRESS_HELPERS/egress-servers.py" \
    "$EGRESS_DIR/ready" "$EGRESS_UDP_LOG" web=1.2.3.10 other=1.2.3.11 \
    metadata=169.254.169.254 private=10.213.0.10 web6=3ffe:213::10 \
    </dev/null >"$EGRESS_DIR/servers.log" 2>&1) &
  EGRESS_SERVER_PID=$!
  (cd / && exec ip netns exec "$EGRESS_SRV" "$py" "$INTEGRATION_DIR/../egress/dns_server.py" \
    1.2.3.53 "${EGRESS_DNS_NAMES[@]}" </dev/null >/dev/null 2>>"$EGRESS_DNS_LOG") &
  EGRESS_DNS_PID=$!
  export EGRESS_SERVER_PID EGRESS_DNS_PID
  local tries=100
  while ((tries-- > 0)) && [[ ! -s $EGRESS_DIR/ready ]]; do sleep 0.05; done
  [[ -s $EGRESS_DIR/ready ]] || { cat "$EGRESS_DIR/servers.log" >&2; return 1; }
  tries=100
  until ip netns exec "$EGRESS_SRV" ss -Hlun 'sport = :53' | grep -q 1.2.3.53; do
    ((tries-- > 0)) || { cat "$EGRESS_DNS_LOG" >&2; return 1; }
    sleep 0.05
  done
}

# egress_net_down: everything egress_net_up made (from teardown_file).
egress_net_down ()
{
  local pid
  for pid in ${EGRESS_SERVER_PID:-} ${EGRESS_DNS_PID:-}; do
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  [[ -n ${EGRESS_OUT:-} ]] && ip netns del "$EGRESS_OUT" 2>/dev/null
  [[ -n ${EGRESS_SRV:-} ]] && ip netns del "$EGRESS_SRV" 2>/dev/null
  return 0
}

# requires_egress_net: skip unless egress_net_up could build the network.
requires_egress_net ()
{
  requires root agentrt ip nsenter
  [[ -n ${EGRESS_OUT:-} && -e /run/netns/$EGRESS_OUT ]] || skip "the test network could not be built"
}

# egress_setup [ALLOW]: per-test setup: a bundle (helpers.bash), the
# default-style policy (helpers/hardening.bash), its network namespace the
# test's OUT, the test hosts and resolv.conf mounted, the host's /usr
# mounted read-only at /host/usr (for curl: /lib and /lib64 of the rootfs
# point into it), the attacker at /bin/attack (for UDP), and
# run.agentrt.egress.allow=ALLOW (EGRESS_ALLOW by
# default; "" for none).
egress_setup ()
{
  setup_bundle || return 1
  requires_egress_net
  hardening_policy || return 1
  update_config '.linux.namespaces |= map(if .type == "network" then .path = $p else . end)' \
    --arg p "/run/netns/$EGRESS_OUT" || return 1
  add_bind "$EGRESS_HOSTS" /etc/hosts ro
  add_bind "$EGRESS_RESOLV" /etc/resolv.conf ro
  add_bind /usr /host/usr rbind ro
  ln -s host/usr/lib "$ROOTFS/lib"
  ln -s host/usr/lib64 "$ROOTFS/lib64"
  cp "$(test_program hardening-attack)" "$ROOTFS/bin/attack" || return 1
  local allow=${1-$EGRESS_ALLOW}
  [[ -z $allow ]] || add_annotation run.agentrt.egress.allow "$allow"
}

# requires_curl: curl from the host's /usr runs in the container.
requires_curl ()
{
  [[ -x /usr/bin/curl ]] || skip "requires curl on the host (mounted into the container)"
}

# egress_events: the container's egress audit lines, one JSON a line.
egress_events ()
{
  audit_events egress
}

# egress_sidecar_pid: the sidecar of container CT_ID (from its command line).
egress_sidecar_pid ()
{
  local p
  for p in $(pgrep -x agentrt-egress 2>/dev/null); do
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--id ${1:-$CT_ID} " && echo "$p"
  done
  return 0
}

# egress_first_connection [ID]: the agent's first connection, which
# starts the sidecar of container ID (default CT_ID): one connection to
# the proxy port from the container's network namespace.
egress_first_connection ()
{
  local init
  init=$(ct_pid "${1:-$CT_ID}")
  [[ -n $init ]] || return 0
  nsenter --net="/proc/$init/ns/net" bash -c 'exec 3<>/dev/tcp/127.0.0.1/3128' 2>/dev/null
  return 0
}

# egress_sidecar_started [ID]: egress_first_connection, then the pid of
# the sidecar once it runs (nothing when it does not within 5 s).
egress_sidecar_started ()
{
  local tries=50 sidecar
  egress_first_connection "$@"
  until sidecar=$(egress_sidecar_pid "$@"); [[ -n $sidecar ]]; do
    ((tries-- > 0)) || return 0
    sleep 0.1
  done
  echo "$sidecar"
}

# egress_hostnet ARGS...: the runtime, run the way it would be on a host
# whose own network is OUT: in OUT (nsenter), in a private mount namespace
# where the test's hosts and resolv.conf are bind-mounted over /etc's.
egress_hostnet ()
{
  nsenter --net="/run/netns/$EGRESS_OUT" unshare -m --propagation slave \
    sh -c 'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf && shift 2 && exec "$@"' \
    sh "$EGRESS_HOSTS" "$EGRESS_RESOLV" \
    timeout -k 5 "$RUNTIME_TIMEOUT" "$RUNTIME" --root "$ROOT" "${RUNTIME_ARGS[@]}" "$@"
}
