/* Facts about the host for the real host view (host_view.c): which
 * filesystems are kernel interfaces, the host's mounts, its users' homes
 * and its namespaces.  I/O; used only by host_view.c. */
#ifndef AGENTRT_POLICY_HOST_FACTS_H
#define AGENTRT_POLICY_HOST_FACTS_H

#include <stdbool.h>
#include <sys/stat.h>

#include "common/error.h"
#include "host_view.h"

/* The name of the kernel interface or device filesystem the open file fd
 * (with stat st) is on, or NULL for an ordinary filesystem (see struct
 * host_node). */
const char *host_facts_special_fs (int fd, const struct stat *st);

/* The special filesystem of an fstype name from mountinfo, or NULL. */
const char *host_facts_special_fs_name (const char *fstype);

/* Appends to *homes the canonical home directories of root and of the
 * ordinary users (uid 1000 to 65533) of /etc/passwd that exist and are
 * not "/".  A missing or unreadable /etc/passwd gives none. */
void host_facts_homes (struct str_list *homes);

/* Every mount of the host (the runtime's mount namespace) strictly below
 * `dir`, from /proc/self/mountinfo. */
int host_facts_submounts (const char *dir, struct host_mount **mounts,
                          size_t *n, agentrt_error_t *err);

/* Is `path` the namespace of that type that pid 1 or this process is in? */
int host_facts_ns_is_host (const char *path, enum oci_namespace_type type,
                           bool *is_host, agentrt_error_t *err);

#endif
