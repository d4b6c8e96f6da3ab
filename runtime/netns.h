/* The agent's network namespace, set up by its maker (the init between
 * clone and exec, or the monitor): `lo` brought up, the default routes of
 * the transparent path (netlink), and the egress sidecar's sockets bound
 * inside it.  Nothing here allocates.  The nftables rules that go with the
 * routes: netns_rules.h. */
#ifndef AGENTRT_NETNS_H
#define AGENTRT_NETNS_H

#include <stdbool.h>

#include "runtime/child_error.h"

#define EGRESS_HTTP_PORT 3128
#define EGRESS_SOCKS_PORT 1080
#define EGRESS_TRANSPARENT_PORT 15001
#define EGRESS_DNS_PORT 53

/* The sidecar's sockets in the agent's namespace, in the order they are
 * handed over (docs/egress.md, Command-line contract). */
enum egress_socket
{
  EGRESS_SOCK_HTTP,         /* TCP 127.0.0.1:3128, --http-fd */
  EGRESS_SOCK_SOCKS,        /* TCP 127.0.0.1:1080, --socks-fd */
  EGRESS_SOCK_TRANSPARENT,  /* TCP 127.0.0.1:15001, --transparent-fd */
  EGRESS_SOCK_TRANSPARENT6, /* TCP [::1]:15001, --transparent6-fd */
  EGRESS_SOCK_DNS_UDP,      /* UDP 127.0.0.1:53, --dns-udp-fd */
  EGRESS_SOCK_DNS_TCP,      /* TCP 127.0.0.1:53, --dns-tcp-fd */
  EGRESS_SOCK_DNS_UDP6,     /* UDP [::1]:53, --dns-udp6-fd */
  EGRESS_SOCK_DNS_TCP6,     /* TCP [::1]:53, --dns-tcp6-fd */
  EGRESS_SOCKETS,
};
/* Without the transparent path: the first two. */
#define EGRESS_PROXY_SOCKETS 2

/* Brings up `lo` in the caller's network namespace. */
int netns_loopback_up (struct child_error *cerr);

/* The sidecar's sockets in the caller's network namespace: the proxy's
 * two listeners, and with `transparent` the transparent listeners and
 * the DNS stub's sockets (all non-blocking, close-on-exec).  fds[i] is -1
 * for a socket not made: those not asked for, and the IPv6 ones when the
 * namespace has no IPv6 (nothing can then connect over it).  On failure
 * none is left open. */
int netns_egress_sockets (bool transparent, int fds[EGRESS_SOCKETS],
                          struct child_error *cerr);

/* How many of fds[] are open; closing them all (each set to -1). */
int netns_egress_count (const int fds[EGRESS_SOCKETS]);
void netns_egress_close (int fds[EGRESS_SOCKETS]);

/* agentrt-egress's option for socket i ("--http-fd"...). */
const char *netns_egress_option (enum egress_socket i);

/* Default routes out of `lo` (IPv4 with 127.0.0.1 as its source, IPv6),
 * so that a connection to any address passes routing and reaches the
 * nftables rules that redirect it (without a route, connect fails with
 * ENETUNREACH before any rule sees it).  A packet the rules did not
 * redirect goes nowhere: lo only loops it back, and nothing here forwards.
 * Without IPv6 in the namespace only the IPv4 route is made. */
int netns_default_routes (struct child_error *cerr);

#endif
