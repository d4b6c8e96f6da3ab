/* The container's filesystem view, built by the init between clone and exec:
 * the rootfs bind, every mount of the plan (new mount API, destinations
 * resolved inside the rootfs), pivot_root, masked and read-only paths and
 * the read-only root.  Nothing here allocates. */
#ifndef AGENTRT_ROOTFS_H
#define AGENTRT_ROOTFS_H

#include <stdbool.h>

#include "runtime/cgroup/cgroup.h"
#include "runtime/child_error.h"
#include "runtime/mount_plan.h"

struct rootfs_spec
{
  const char *rootfs;            /* absolute host path */
  /* >= 0: a detached, idmapped copy of the rootfs the runtime made (the
   * container's own user namespace): attached in place of the bind, and
   * the lower layer of an ephemeral root */
  int rootfs_tree;
  const struct mount_plan *mounts;
  const struct cgroup_mounts *cgroups; /* for "cgroup" mounts */
  /* Called once, before the first "cgroup" mount: the init waits there
   * until the runtime has moved it into its cgroup (see init.c). */
  int (*before_cgroup_mount) (void *arg, struct child_error *cerr);
  void *before_cgroup_arg;
  bool cgroup_ns;                /* the init has its own cgroup namespace */
  unsigned long root_propagation; /* MS_* | MS_REC, 0: default (rslave) */
  bool no_pivot;
  bool host_mount_ns;            /* no mount namespace: chroot, no rslave */
  bool readonly;
  /* > 0: an ephemeral root, an overlay of the rootfs under a tmpfs of this
   * many bytes that disappears with the container (the image is never
   * written). */
  unsigned long long ephemeral_size;
  const char *const *masked_paths;
  size_t n_masked_paths;
  /* Per masked path: must it be applied (a credential or socket the
   * hardening found on the host)?  Otherwise a missing path is fine. */
  const bool *mask_required;
  const char *const *readonly_paths;
  size_t n_readonly_paths;
  /* Made read-only after the masks; they must exist, but the dirs, which
   * are made (empty) when missing. */
  const char *const *protected_paths;
  size_t n_protected_paths;
  const char *const *protected_dirs;
  size_t n_protected_dirs;
};

/* Makes the mount namespace private and binds the rootfs onto itself;
 * *rootfd receives an O_PATH fd to it. */
int rootfs_prepare (const struct rootfs_spec *spec, int *rootfd,
                    struct child_error *cerr);

/* Performs the mounts of the plan under rootfd: the deferred ones
 * (mount_step.deferred) or the others. */
int rootfs_mount_all (const struct rootfs_spec *spec, int rootfd,
                      bool deferred, struct child_error *cerr);

/* pivot_root (or MS_MOVE + chroot with no_pivot) into rootfd. */
int rootfs_pivot (const struct rootfs_spec *spec, int rootfd,
                  struct child_error *cerr);

/* After the pivot: masked paths, read-only paths, protected paths, root
 * propagation and the read-only root. */
int rootfs_finalize (const struct rootfs_spec *spec, struct child_error *cerr);

/* Bind-mounts the file behind fd (e.g. a pty slave) onto `path` inside the
 * root, which must not be a symlink. */
int rootfs_bind_fd (int rootfd, int fd, const char *path,
                    struct child_error *cerr);

#endif
