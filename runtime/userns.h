/* User namespaces the runtime needs for itself: writing an id map, and a
 * user namespace fd that carries given mappings (what an idmapped mount is
 * set up with: mount_setattr MOUNT_ATTR_IDMAP takes the mapping of a user
 * namespace). */
#ifndef AGENTRT_USERNS_H
#define AGENTRT_USERNS_H

#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "oci/config.h"

/* Writes /proc/PID/FILE ("uid_map" or "gid_map").  `field` names the
 * mappings in errors ("linux.uidMappings"). */
int userns_write_map (pid_t pid, const char *file,
                      const struct oci_id_mapping *map, size_t n,
                      const char *field, agentrt_error_t *err);

/* An fd (O_CLOEXEC) of a new user namespace with these mappings, made by
 * a short-lived child that is gone when this returns. */
int userns_fd_with_maps (const struct oci_id_mapping *uid, size_t n_uid,
                         const struct oci_id_mapping *gid, size_t n_gid,
                         const char *field, agentrt_error_t *err);

#endif
