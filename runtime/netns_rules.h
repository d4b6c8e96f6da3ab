/* The transparent path's routes and nftables rules in the agent's network
 * namespace (docs/egress.md, The runtime's half): every TCP connection to
 * a non-loopback address goes to the sidecar's transparent listener, every
 * DNS query (UDP and TCP port 53, any address, loopback too) to its stub,
 * and every other packet that would leave lo is dropped, so that a UDP or
 * ICMP send fails at once (EPERM) and a stray TCP one is reset.  Set by
 * the namespace's maker (the monitor, or the init between clone and
 * exec) before the agent runs; the agent, without CAP_NET_ADMIN, cannot
 * change them.  The rules go to the kernel as one nfnetlink batch built
 * here (nft_batch.h), on the stack: nothing allocates, no library is
 * loaded. */
#ifndef AGENTRT_NETNS_RULES_H
#define AGENTRT_NETNS_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/child_error.h"

/* Messages in the batch between its begin and its end. */
#define NETNS_RULES_MESSAGES 12

/* The batch (netns_rules.c shows it as nft(8) would read it) in buf,
 * numbered from seq (its NFNL_MSG_BATCH_BEGIN); what[i] names message
 * seq + 1 + i for errors.  Its length, or -ENOSPC when cap is too small. */
long netns_rules_batch (void *buf, size_t cap, uint32_t seq,
                        const char *what[NETNS_RULES_MESSAGES]);

/* Default routes and the rules in the caller's network namespace.  A
 * kernel without nftables NAT and REDIRECT fails with an error naming
 * them and the policy's way out (egress.transparent false). */
int netns_rules_install (struct child_error *cerr);

#endif
