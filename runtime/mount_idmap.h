/* Idmapped bind mounts (runtime-spec 1.1 `idmap`, `ridmap`, a mount's
 * uidMappings/gidMappings): the runtime sets the mapping on the detached
 * copy of the source it made (mount_plan.h) with mount_setattr
 * MOUNT_ATTR_IDMAP, before the clone, with its own privileges; the init
 * attaches it as it is. */
#ifndef AGENTRT_MOUNT_IDMAP_H
#define AGENTRT_MOUNT_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/mount_plan.h"
#include "runtime/policy/changes.h"

/* Applies the mapping the mount asks for to step->tree_fd: the mount's own
 * mappings, else the container's user namespace mappings (one user
 * namespace made for them, kept in plan->container_userns_fd).  A mount
 * with neither, or that is no bind mount, is an error naming
 * mounts[index]; so is a filesystem that cannot be idmapped. */
int mount_idmap_apply (struct mount_plan *plan, const struct mount_step *step,
                       const struct oci_mount *m,
                       const struct oci_config *config, size_t index,
                       agentrt_error_t *err);

/* A container given its own user namespace (docs/userns.md): every bind
 * step that has no mapping of its own is idmapped so that its source's
 * owner (uid and gid) is the agent's ids (agent_uid, agent_gid, container
 * ids), host ids uid_start + agent_uid and gid_start + agent_gid
 * (runtime/policy/userns_auto.h); one user namespace per distinct owner.
 * A source on a filesystem that cannot be idmapped (tmpfs before Linux
 * 6.3) is kept as it is when the agent could create nothing through it
 * (a read-only bind, or one of a single file), recorded in `changes`;
 * any other is an error naming mounts[i], its destination and source, and
 * the policy's way out. */
struct mount_auto_idmap
{
  uint32_t uid_start;
  uint32_t gid_start;
  uint32_t agent_uid;
  uint32_t agent_gid;
  struct change_list *changes;
};
int mount_idmap_auto (struct mount_plan *plan, const struct mount_auto_idmap *a,
                      agentrt_error_t *err);

/* A recursive copy of the rootfs at `path`, idmapped with the container's
 * own mappings (image id k is container id k): the fd of the detached
 * tree (nodev: the image's device nodes would be the container root's), or
 * -1 with an error naming root.path.  An overlayfs root (an engine's),
 * which cannot be idmapped itself, becomes an overlay of its layers, each
 * idmapped, over a tmpfs for the mount points (the init makes the root
 * read-only); refused when the root is to be `writable`. */
int mount_idmap_rootfs (struct mount_plan *plan, const struct oci_config *config,
                        const char *path, bool writable, agentrt_error_t *err);

#endif
