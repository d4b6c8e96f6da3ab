/* Mounts as the init will perform them: computed by the runtime before the
 * clone (option strings parsed, file-or-directory decided) so that the init
 * only issues syscalls.  Bind sources are opened here, with the runtime's
 * own privileges and in its mount namespace, and copied into detached
 * mount trees (open_tree OPEN_TREE_CLONE) that the init attaches: what the
 * hardening judged is what is mounted, whatever changes on the host
 * meanwhile, and a source the container's user namespace could not reach
 * still works. */
#ifndef AGENTRT_MOUNT_PLAN_H
#define AGENTRT_MOUNT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/config.h"

struct fs_param
{
  const char *key;
  const char *value; /* NULL: a flag such as "nouuid" */
};

enum mount_kind
{
  MOUNT_KIND_FS,      /* a new filesystem instance: fsopen/fsmount */
  MOUNT_KIND_BIND,    /* a copy of an existing tree: open_tree */
  MOUNT_KIND_CGROUP,  /* type "cgroup": expanded from the cgroup layout */
};

struct mount_step
{
  enum mount_kind kind;
  const char *destination; /* container path */
  const char *source;      /* host path (bind) or fs source name */
  int tree_fd;             /* bind: the detached copy of the source (or -1:
                              the init clones `source` itself) */
  /* A judged source the runtime could not copy (it is not root: no
   * CAP_SYS_ADMIN over its mount namespace): the init opens `source` with
   * no symlink followed and clones it only if it is this very file. */
  bool judged_reopen;
  dev_t judged_dev;
  ino_t judged_ino;
  bool deferred;           /* made after the agent's network namespace is
                              in place (sysfs shows the caller's) */
  bool idmap;              /* idmap/ridmap (set on tree_fd by the runtime) */
  bool idmap_recursive;
  const char *fstype;
  bool recursive;          /* rbind */
  bool dest_is_file;       /* the mountpoint to create is a file */
  bool copy_up;            /* tmpcopyup: copy what the mount hides into it */
  uint64_t attr_set;       /* MOUNT_ATTR_* for the mount itself */
  uint64_t attr_clr;
  uint64_t rattr_set;      /* rro, rnosuid...: for every submount too */
  uint64_t rattr_clr;
  unsigned long propagation; /* MS_SHARED|MS_SLAVE|MS_PRIVATE|MS_UNBINDABLE */
  bool propagation_recursive;
  struct fs_param *params;
  size_t n_params;
};

struct mount_plan
{
  struct mount_step *steps;
  size_t n_steps;
  bool dev_is_bind;   /* /dev comes from the host: create no device nodes */
  bool has_dev_mount; /* /dev is a mount of the bundle */
  bool has_pts;       /* /dev/pts is a devpts mount (for the ptmx link) */
  char **strings;     /* owned strings the steps point into */
  size_t n_strings;
  int container_userns_fd; /* the container's mappings, for idmap (or -1) */
};

struct host_view;

/* Builds the plan from config->mounts; bind sources relative to the bundle
 * are made absolute; a bind source that does not exist is an error naming
 * mounts[i].source.  With `judged` (a hardened container), every bind
 * source must be one the hardening opened and judged (its open file is
 * what is copied); without, sources are opened here, symlinks followed.
 * mount_label (SELinux) is added to fs mounts that take a context. */
int mount_plan_build (const struct oci_config *config, const char *bundle,
                      const struct host_view *judged, struct mount_plan *plan,
                      agentrt_error_t *err);

/* Marks the sysfs mounts, and the mounts below them, to be made only once
 * the agent's network namespace is in place. */
void mount_plan_defer_sysfs (struct mount_plan *plan);

/* Appends a read-only bind of a file the runtime made (tree_fd: its
 * detached copy, which the plan now owns) onto `destination`, after the
 * bundle's mounts: it covers whatever they put there. */
void mount_plan_add_file (struct mount_plan *plan, const char *destination,
                          int tree_fd);

void mount_plan_free (struct mount_plan *plan);

/* open_tree of a host mount: the copy, made a slave at once, or -1.  A
 * copy keeps its source's peer group, and on a host whose mounts are
 * shared (systemd's) what the init mounts on or under it would appear on
 * the host too, and stay there.  A slave still sees the host's new mounts
 * (as under runc's rslave root) and sends none. */
int mount_copy_tree (int dirfd, const char *path, unsigned int flags);

/* The mount options agentrt understands, for `features`: the i-th name, or
 * NULL past the end (unsupported names are skipped over). */
const char *mount_plan_option_name (size_t i);

#endif
