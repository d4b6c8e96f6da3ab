/* Idmapped bind mounts (runtime-spec 1.1 `idmap`, `ridmap`, a mount's
 * uidMappings/gidMappings): the runtime sets the mapping on the detached
 * copy of the source it made (mount_plan.h) with mount_setattr
 * MOUNT_ATTR_IDMAP, before the clone, with its own privileges; the init
 * attaches it as it is. */
#ifndef AGENTRT_MOUNT_IDMAP_H
#define AGENTRT_MOUNT_IDMAP_H

#include <stddef.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/mount_plan.h"

/* Applies the mapping the mount asks for to step->tree_fd: the mount's own
 * mappings, else the container's user namespace mappings (one user
 * namespace made for them, kept in plan->container_userns_fd).  A mount
 * with neither, or that is no bind mount, is an error naming
 * mounts[index]; so is a filesystem that cannot be idmapped. */
int mount_idmap_apply (struct mount_plan *plan, const struct mount_step *step,
                       const struct oci_mount *m,
                       const struct oci_config *config, size_t index,
                       agentrt_error_t *err);

#endif
