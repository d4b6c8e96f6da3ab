/* The agent's network namespace, set up by the init between clone and
 * exec: `lo` brought up (netlink), and the egress proxy's listening sockets
 * bound on 127.0.0.1 inside it.  Nothing here allocates. */
#ifndef AGENTRT_NETNS_H
#define AGENTRT_NETNS_H

#include "runtime/child_error.h"

#define EGRESS_HTTP_PORT 3128
#define EGRESS_SOCKS_PORT 1080

/* Brings up `lo` in the caller's network namespace. */
int netns_loopback_up (struct child_error *cerr);

/* A listening TCP socket on 127.0.0.1:port (non-blocking, close-on-exec). */
int netns_listen_loopback (int port, struct child_error *cerr);

#endif
