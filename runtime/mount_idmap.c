/* Idmapped bind mounts (see mount_idmap.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/mount_idmap.h"
#include "runtime/userns.h"

/* The user namespace fd carrying the mapping (owned by the caller when
 * *owned, else the plan's). */
static int
mapping_fd (struct mount_plan *plan, const struct oci_mount *m,
            const struct oci_config *config, size_t index, bool *owned,
            agentrt_error_t *err)
{
  const struct oci_linux *l = config->linux_cfg;

  *owned = m->n_uid_mappings > 0;
  if (*owned)
    return userns_fd_with_maps (m->uid_mappings, m->n_uid_mappings,
                                m->gid_mappings, m->n_gid_mappings,
                                "mounts[].uidMappings", err);
  if (l == NULL || l->n_uid_mappings == 0 || l->n_gid_mappings == 0)
    return agentrt_error (err, EINVAL, "mounts[%zu].options: idmap needs "
                          "uidMappings and gidMappings on the mount, or a "
                          "user namespace with mappings", index);
  if (plan->container_userns_fd < 0)
    plan->container_userns_fd = userns_fd_with_maps (
        l->uid_mappings, l->n_uid_mappings, l->gid_mappings,
        l->n_gid_mappings, "linux.uidMappings", err);
  return plan->container_userns_fd;
}

int
mount_idmap_apply (struct mount_plan *plan, const struct mount_step *step,
                   const struct oci_mount *m, const struct oci_config *config,
                   size_t index, agentrt_error_t *err)
{
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
  bool owned = false;
  int fd, r;

  if (m->n_uid_mappings != m->n_gid_mappings
      && (m->n_uid_mappings == 0 || m->n_gid_mappings == 0))
    return agentrt_error (err, EINVAL, "mounts[%zu]: uidMappings and "
                          "gidMappings go together", index);
  if (step->kind != MOUNT_KIND_BIND)
    return agentrt_error (err, EINVAL, "mounts[%zu].options: idmap is for "
                          "bind mounts", index);
  if (step->tree_fd < 0)
    return agentrt_error (err, EPERM, "mounts[%zu]: an idmapped mount needs "
                          "CAP_SYS_ADMIN over the runtime's mount namespace",
                          index);
  fd = mapping_fd (plan, m, config, index, &owned, err);
  if (fd < 0)
    return -1;
  attr.userns_fd = (unsigned long long) fd;
  r = mount_setattr (step->tree_fd, "",
                     AT_EMPTY_PATH | (step->idmap_recursive ? AT_RECURSIVE : 0),
                     &attr, sizeof attr);
  if (r < 0)
    r = agentrt_error (err, errno, "mounts[%zu] (`%s`): idmap the source `%s`%s",
                       index, m->destination, step->source,
                       errno == EINVAL ? " (a filesystem that cannot be "
                                         "idmapped?)"
                                       : "");
  if (owned)
    close (fd);
  return r;
}
