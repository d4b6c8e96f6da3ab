/* The transparent path's routes and nftables rules in the agent's network
 * namespace (docs/egress.md, The runtime's half): every TCP connection to
 * a non-loopback address goes to the sidecar's transparent listener, every
 * DNS query (UDP and TCP port 53, any address, loopback too) to its stub,
 * and every other packet that would leave lo is dropped, so that a UDP or
 * ICMP send fails at once (EPERM) and a stray TCP one is reset.  Set by
 * the namespace's maker before the agent runs; the agent, without
 * CAP_NET_ADMIN, cannot change them.  libnftables allocates: only the
 * monitor and the runtime call this, never the init between clone and
 * exec.  libnftables is loaded on demand (dlopen), in a short-lived child
 * of the caller's: linked, every command would pay for loading it and its
 * five libraries, and the monitor would keep them mapped. */
#ifndef AGENTRT_NETNS_RULES_H
#define AGENTRT_NETNS_RULES_H

#include "common/error.h"

/* The ruleset, as nft(8) reads it (for docs, tests and errors). */
extern const char netns_rules_ruleset[];

/* Default routes and the rules in the caller's network namespace.  A
 * kernel without nftables NAT and REDIRECT fails with an error naming
 * them and the policy's way out (egress.transparent false). */
int netns_rules_install (agentrt_error_t *err);

/* The same in the namespace netns_fd, entered through the user namespace
 * that owns it when that is not the caller's (a runtime that is not root,
 * a container with a user namespace); the caller's own are kept. */
int netns_rules_install_in (int netns_fd, agentrt_error_t *err);

#endif
