/* The kernel surface a root process in the container could otherwise use
 * against the host or to read its disks, closed in OCI terms: runc's
 * default masked and read-only /proc and /sys paths are added when a
 * bundle (a privileged one) lacks them (/proc/sys/kernel/core_pattern is a
 * host code-execution path), and devices are an allowlist
 * (device_allow.h): no other device node is created, and the device rules
 * deny every device but the allowed ones, whatever the bundle's rules
 * allowed (reading a host disk reads every credential on it). */
#ifndef AGENTRT_POLICY_KERNEL_SURFACE_H
#define AGENTRT_POLICY_KERNEL_SURFACE_H

#include "oci/config.h"
#include "changes.h"
#include "policy.h"

void kernel_surface_harden (struct oci_config *config,
                            const struct agent_policy *policy,
                            struct change_list *changes);

#endif
