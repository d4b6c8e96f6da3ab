/* User namespaces the runtime needs for itself: writing a new user
 * namespace's id maps the way runtime/idmap.h decided (itself, or through
 * newuidmap and newgidmap when it is not root), and a user namespace fd
 * that carries given mappings (what an idmapped mount is set up with:
 * mount_setattr MOUNT_ATTR_IDMAP takes the mapping of a user namespace). */
#ifndef AGENTRT_USERNS_H
#define AGENTRT_USERNS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/idmap.h"

/* Writes /proc/PID/FILE ("uid_map" or "gid_map").  `field` names the
 * mappings in errors ("linux.uidMappings"). */
int userns_write_map (pid_t pid, const char *file,
                      const struct oci_id_mapping *map, size_t n,
                      const char *field, agentrt_error_t *err);

/* A bundle that joins a user namespace by path (userns_fd) and gives
 * mappings as well, as containerd does for a pod with `hostUsers: false`:
 * the mappings must be that namespace's own (as runc checks), read by a
 * short-lived child that enters it.  0, or an error naming the field. */
int userns_check_joined_maps (int userns_fd, const struct oci_linux *l,
                              agentrt_error_t *err);

/* An fd (O_CLOEXEC) of a new user namespace with these mappings, made by
 * a short-lived child that is gone when this returns. */
int userns_fd_with_maps (const struct oci_id_mapping *uid, size_t n_uid,
                         const struct oci_id_mapping *gid, size_t n_gid,
                         const char *field, agentrt_error_t *err);

/* What the caller is and has, for idmap_plan_decide (the helpers are
 * looked for only when it is not root). */
void userns_caller (struct idmap_caller *out);

/* The path (malloc'd) of newuidmap or newgidmap in /usr/bin, /usr/sbin,
 * /bin or /sbin (never PATH); NULL when missing. */
char *userns_find_helper (const char *name);

/* Writes both maps of PID's user namespace as the plan says: "deny" to
 * setgroups first when it asks, a helper's failure reported with its own
 * message and the ranges /etc/subuid or /etc/subgid gives the user.  The
 * child must be dumpable when the plan is unprivileged. */
int userns_write_maps (pid_t pid, const struct idmap_plan *plan,
                       const struct oci_id_mapping *uid, size_t n_uid,
                       const struct oci_id_mapping *gid, size_t n_gid,
                       agentrt_error_t *err);

/* Whether PID's user namespace denies setgroups(2) (its maps were written
 * by a user other than root without newgidmap): an exec'd process then
 * keeps the groups it has. */
int userns_setgroups_denied (pid_t pid, bool *denied, agentrt_error_t *err);

/* Gives the caller's stdio pipes and sockets (fds 0-2) to the container
 * process user uid:gid as the host sees it through the user namespace's
 * mappings (the init, inside, could not: they are host root's), so that
 * a process that is not root may reopen /dev/stdout.  Nothing when the
 * ids are not mapped; a refusal is left as it is (the process then cannot
 * reopen them, as before). */
void userns_give_stdio (const struct oci_linux *l, uint32_t uid, uint32_t gid);

#endif
