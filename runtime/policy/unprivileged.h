/* What changes when a user other than root runs the runtime (rootless):
 * decided from the facts of struct host_runtime, recorded as changes.
 *
 * - The sidecar runs as that user (it cannot switch to sidecar.uid and
 *   sidecar.gid), unless the runtime is root of a user namespace of its
 *   own (rootless Podman's): then it switches to them as that namespace
 *   maps them; its lockdown is otherwise the same.
 * - Limits: a group of linux.resources (pids, memory, cpu, blockIO,
 *   hugepageLimits, rdma, network, unified keys) is enforced only through
 *   a cgroup of the container's own with that controller: a delegated
 *   cgroup v2 subtree.  One that cannot be enforced fails the create,
 *   naming the groups and why, unless the policy's limits.unenforceable
 *   is "allow": then it is removed, recorded as a `limit` change.
 * - Device rules (linux.resources.devices) are removed, recorded: a
 *   cgroup device program needs privileges the user lacks, and in the
 *   container's user namespace no device node can be made (the host's
 *   are bound in, with their host permissions).
 * Pure code. */
#ifndef AGENTRT_POLICY_UNPRIVILEGED_H
#define AGENTRT_POLICY_UNPRIVILEGED_H

#include "common/error.h"
#include "oci/config.h"
#include "changes.h"
#include "host_view.h"
#include "policy.h"

/* The limits and device rules (see above).  Also for a container whose
 * hardening the policy turned off (changes may then be a scratch list). */
int unprivileged_limits (struct oci_config *config,
                         const struct agent_policy *policy,
                         const struct host_runtime *rt,
                         struct change_list *changes, agentrt_error_t *err);

/* The sidecar's ids: the runtime's own, or sidecar.uid and sidecar.gid
 * kept when it can switch ids. */
void unprivileged_sidecar (const struct host_runtime *rt, uint32_t *uid,
                           uint32_t *gid, struct change_list *changes);

#endif
