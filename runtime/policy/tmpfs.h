/* Writable scratch space on a read-only root: size-limited tmpfs (nosuid,
 * nodev) on /tmp, /run and /dev/shm, replacing what the bundle mounted
 * there, and on HOME when HOME is on a read-only root filesystem (not
 * under any mount of the bundle, whose mode is kept). */
#ifndef AGENTRT_POLICY_TMPFS_H
#define AGENTRT_POLICY_TMPFS_H

#include "oci/config.h"
#include "changes.h"
#include "harden.h"
#include "policy.h"

/* HOME is read from process.env (harden_process sets it when absent). */
void tmpfs_harden (struct oci_config *config, const struct agent_policy *policy,
                   enum harden_rootfs rootfs, struct change_list *changes);

#endif
