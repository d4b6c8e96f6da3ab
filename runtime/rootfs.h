/* The container's filesystem view, built by the init between clone and exec:
 * the rootfs bind, every mount of the plan (new mount API, destinations
 * resolved inside the rootfs), pivot_root, masked and read-only paths and
 * the read-only root.  Nothing here allocates. */
#ifndef AGENTRT_ROOTFS_H
#define AGENTRT_ROOTFS_H

#include <stdbool.h>

#include "runtime/cgroup.h"
#include "runtime/child_error.h"
#include "runtime/mount_plan.h"

struct rootfs_spec
{
  const char *rootfs;            /* absolute host path */
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
  const char *const *readonly_paths;
  size_t n_readonly_paths;
};

/* Makes the mount namespace private and binds the rootfs onto itself;
 * *rootfd receives an O_PATH fd to it. */
int rootfs_prepare (const struct rootfs_spec *spec, int *rootfd,
                    struct child_error *cerr);

/* Performs every mount of the plan under rootfd. */
int rootfs_mount_all (const struct rootfs_spec *spec, int rootfd,
                      struct child_error *cerr);

/* pivot_root (or MS_MOVE + chroot with no_pivot) into rootfd. */
int rootfs_pivot (const struct rootfs_spec *spec, int rootfd,
                  struct child_error *cerr);

/* After the pivot: masked paths, read-only paths, root propagation and the
 * read-only root. */
int rootfs_finalize (const struct rootfs_spec *spec, struct child_error *cerr);

/* Bind-mounts the file behind fd (e.g. a pty slave) onto `path` inside the
 * root, which must not be a symlink. */
int rootfs_bind_fd (int rootfd, int fd, const char *path,
                    struct child_error *cerr);

#endif
