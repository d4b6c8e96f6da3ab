/* Containers that join another agentrt container's agent network namespace
 * (Kubernetes puts every container of a pod into the pause container's):
 * they share it, and its egress proxy, as they are.  Giving them a fresh
 * namespace of their own would leave their proxy with no way out. */
#ifndef AGENTRT_SHARED_NETNS_H
#define AGENTRT_SHARED_NETNS_H

#include "common/error.h"
#include "oci/config.h"
#include "runtime/context.h"
#include "runtime/policy/harden.h"

/* "dev:inode" of the network namespace of pid (malloc'd; NULL if gone). */
char *shared_netns_id (pid_t pid);

/* When config joins by path the agent namespace of a running hardened
 * container under --root, marks the network facts shared
 * (net_facts.shared_agent_ns) and records the change.  The container's
 * egress mode (run.agentrt.egress) and allowlist must be the owner's: its
 * egress goes through the owner's proxy, or nowhere.  Returns 0 (also
 * when nothing is shared) or < 0 with *err. */
int shared_netns_apply (const struct runtime_context *rt,
                        const struct oci_config *config,
                        struct harden_result *result, agentrt_error_t *err);

#endif
