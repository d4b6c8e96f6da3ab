/* Every mount that is not a bind is judged (bind mounts: binds.h).  Only
 * the pseudo filesystems a container needs are kept: tmpfs, devpts,
 * mqueue, proc, sysfs, cgroup and cgroup2; any other filesystem (a disk,
 * an overlay with host layers, nfs, a kernel interface such as debugfs or
 * securityfs) is dropped, recorded.  Kernel interfaces (proc, sysfs,
 * cgroup, cgroup2) are read-only, nosuid, nodev and noexec at whatever
 * destination; tmpfs and mqueue get nosuid and nodev (but a tmpfs on /dev,
 * which holds the device nodes), devpts nosuid and noexec.  Every proc and
 * sysfs instance besides /proc and /sys gets the masks and read-only paths
 * that /proc and /sys have (run this after the masks are final).  Pure
 * code. */
#ifndef AGENTRT_POLICY_FS_MOUNTS_H
#define AGENTRT_POLICY_FS_MOUNTS_H

#include "oci/config.h"
#include "changes.h"

void fs_mounts_harden (struct oci_config *config, struct change_list *changes);

#endif
