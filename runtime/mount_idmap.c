/* Idmapped bind mounts (see mount_idmap.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/mountinfo.h"
#include "common/xalloc.h"
#include "runtime/mount_idmap.h"
#include "runtime/overlay_layers.h"
#include "runtime/policy/userns_auto.h"
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

/* The hint every failure of the automatic idmap ends with. */
#define AUTO_HINT                                                           \
  " (the container's user namespace needs idmapped mounts; the policy's "  \
  "userns.mode \"off\" runs without one)"

/* Why a bind on a filesystem that cannot be idmapped may stay as it is. */
#define KEPT_WHY                                                            \
  "the kernel cannot idmap this filesystem (tmpfs cannot before Linux "     \
  "6.3); the bind is read-only or a single file, so the agent creates "     \
  "nothing there and reads it as any other user would (host owners show "  \
  "as nobody)"

/* A bind through which no process of the container can create a file:
 * one of a single file, or read-only down to its submounts.  Such a bind
 * needs no idmap to keep the container's ids out of the host's tree. */
static bool
creates_nothing (const struct mount_step *s, const struct stat *st)
{
  if (!S_ISDIR (st->st_mode))
    return true;
  return (s->attr_set & MOUNT_ATTR_RDONLY)
         && (!s->recursive || (s->rattr_set & MOUNT_ATTR_RDONLY));
}

static int
set_idmap (int tree_fd, int userns_fd, uint64_t more)
{
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP | more,
                             .userns_fd = (unsigned long long) userns_fd };
  return mount_setattr (tree_fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
                        sizeof attr);
}

/* The user namespaces made for the owners met so far, by owner. */
struct owner_ns
{
  uid_t uid;
  gid_t gid;
  int fd;
};

static int
owner_userns (struct owner_ns *seen, size_t *n, size_t max, uid_t uid,
              gid_t gid, const struct mount_auto_idmap *a, agentrt_error_t *err)
{
  struct oci_id_mapping u, g;

  for (size_t i = 0; i < *n; i++)
    if (seen[i].uid == uid && seen[i].gid == gid)
      return seen[i].fd;
  u = userns_auto_bind_map ((uint32_t) uid, a->agent_uid, a->uid_start);
  g = userns_auto_bind_map ((uint32_t) gid, a->agent_gid, a->gid_start);
  if (*n == max)
    return agentrt_error (err, E2BIG, "idmapped binds: more than %zu owners",
                          max);
  seen[*n].uid = uid;
  seen[*n].gid = gid;
  seen[*n].fd = userns_fd_with_maps (&u, 1, &g, 1, "idmapped bind", err);
  if (seen[*n].fd < 0)
    return -1;
  return seen[(*n)++].fd;
}

int
mount_idmap_auto (struct mount_plan *plan, const struct mount_auto_idmap *a,
                  agentrt_error_t *err)
{
  struct owner_ns seen[64];
  size_t n = 0;
  int r = 0;

  for (size_t i = 0; r == 0 && i < plan->n_steps; i++)
    {
      struct mount_step *s = &plan->steps[i];
      struct stat st;
      int fd;

      if (s->kind != MOUNT_KIND_BIND || s->idmap)
        continue;
      if (s->tree_fd < 0 || fstat (s->tree_fd, &st) < 0)
        {
          r = agentrt_error (err, s->tree_fd < 0 ? EPERM : errno,
                             "mounts[%zu] (`%s`): the source `%s` cannot be "
                             "idmapped" AUTO_HINT, i, s->destination,
                             s->source);
          break;
        }
      fd = owner_userns (seen, &n, sizeof seen / sizeof *seen, st.st_uid,
                         st.st_gid, a, err);
      if (fd < 0)
        r = agentrt_error_wrap (err, "mounts[%zu] (`%s`)", i, s->destination);
      else if (set_idmap (s->tree_fd, fd, 0) == 0)
        s->idmap = true;
      else if (errno == EINVAL && creates_nothing (s, &st))
        change_addf (a->changes, CHANGE_MOUNT_OPTIONS, KEPT_WHY,
                     "%s: not idmapped (source %s)", s->destination,
                     s->source);
      else
        r = agentrt_error (err, errno, "mounts[%zu] (`%s`): idmap the source "
                           "`%s`%s" AUTO_HINT, i, s->destination, s->source,
                           errno == EINVAL ? ": a filesystem that cannot be "
                                             "idmapped" : "");
    }
  for (size_t i = 0; i < n; i++)
    close (seen[i].fd);
  return r;
}

/* The super options of the overlayfs mounted at `point` (the topmost
 * mount there) in the runtime's mount namespace, or NULL. */
static char *
overlay_options_at (const char *point, agentrt_error_t *err)
{
  cleanup_close int fd = open ("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  cleanup_free char *text = NULL;
  char *opts = NULL, *save = NULL;
  size_t len;

  if (fd < 0 || io_read_all (fd, 64 << 20, &text, &len) < 0)
    return agentrt_error (err, errno, "read /proc/self/mountinfo"), NULL;
  for (char *line = strtok_r (text, "\n", &save); line;
       line = strtok_r (NULL, "\n", &save))
    {
      struct mountinfo_line m;
      if (mountinfo_split (line, &m) == 0 && strcmp (m.fstype, "overlay") == 0
          && strcmp (m.mount_point, point) == 0)
        {
          free (opts);
          opts = xstrdup (m.super_opts);
        }
    }
  if (opts == NULL)
    agentrt_error (err, 0, "no overlay is mounted at `%s`", point);
  return opts;
}

/* The overlay's upper layer: a small tmpfs, where the init makes the
 * bundle's missing mount points before it makes the root read-only.  The
 * fd of its detached mount, with `upper` and `work` in it. */
static int
mount_point_layer (agentrt_error_t *err)
{
  int fs = fsopen ("tmpfs", FSOPEN_CLOEXEC), mnt = -1;

  if (fs < 0 || fsconfig (fs, FSCONFIG_SET_STRING, "size", "4m", 0) < 0
      || fsconfig (fs, FSCONFIG_SET_STRING, "mode", "755", 0) < 0
      || fsconfig (fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0
      || (mnt = fsmount (fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0
      || mkdirat (mnt, "upper", 0755) < 0 || mkdirat (mnt, "work", 0755) < 0)
    {
      agentrt_error (err, errno, "a tmpfs for its mount points");
      if (mnt >= 0)
        close (mnt);
      mnt = -1;
    }
  if (fs >= 0)
    close (fs);
  return mnt;
}

/* An overlay of `layers`, each an idmapped copy, over a tmpfs upper: the
 * fd of the detached mount. */
static int
overlay_of_idmapped (const struct overlay_layers *layers, int userns_fd,
                     agentrt_error_t *err)
{
  size_t n = layers->dirs.len, i;
  cleanup_free int *fds = xreallocarray (NULL, n, sizeof *fds);
  cleanup_free char *lowerdir = xzalloc (n * 32);
  char upper[48], work[48];
  int fs = -1, mnt = -1, top = -1;

  for (i = 0; i < n; i++)
    fds[i] = -1;
  for (i = 0; i < n; i++)
    {
      const char *dir = layers->dirs.items[i];
      fds[i] = mount_copy_tree (AT_FDCWD, dir, 0);
      if (fds[i] < 0 || set_idmap (fds[i], userns_fd, MOUNT_ATTR_NODEV) < 0)
        {
          agentrt_error (err, errno, "its layer `%s`: idmap it", dir);
          goto out;
        }
      sprintf (lowerdir + strlen (lowerdir), "%s/proc/self/fd/%d", i ? ":" : "",
               fds[i]);
    }
  if ((top = mount_point_layer (err)) < 0)
    goto out;
  snprintf (upper, sizeof upper, "/proc/self/fd/%d/upper", top);
  snprintf (work, sizeof work, "/proc/self/fd/%d/work", top);
  fs = fsopen ("overlay", FSOPEN_CLOEXEC);
  if (fs < 0 || fsconfig (fs, FSCONFIG_SET_STRING, "lowerdir", lowerdir, 0) < 0
      || fsconfig (fs, FSCONFIG_SET_STRING, "upperdir", upper, 0) < 0
      || fsconfig (fs, FSCONFIG_SET_STRING, "workdir", work, 0) < 0
      || (layers->userxattr
          && fsconfig (fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) < 0)
      || (layers->metacopy
          && fsconfig (fs, FSCONFIG_SET_STRING, "metacopy", layers->metacopy, 0) < 0)
      || (layers->redirect_dir
          && fsconfig (fs, FSCONFIG_SET_STRING, "redirect_dir", layers->redirect_dir, 0) < 0)
      || fsconfig (fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0
      || (mnt = fsmount (fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NODEV)) < 0)
    agentrt_error (err, errno, "an overlay of its idmapped layers");
out:
  if (fs >= 0)
    close (fs);
  if (top >= 0)
    close (top);
  for (i = 0; i < n; i++)
    if (fds[i] >= 0)
      close (fds[i]); /* the overlay holds its layers */
  return mnt;
}

/* An engine's root filesystem is an overlayfs mount, which cannot be
 * idmapped itself: the hardened root is read-only, so an overlay of the
 * same layers, each idmapped, is the same tree (the engine's upper
 * directory as its topmost lower layer; its own mount keeps using it),
 * over a tmpfs that takes the mount points the init makes before it makes
 * the root read-only.  -1 with err set; -2 when `path` is no overlayfs
 * mount's root. */
static int
idmapped_overlay_copy (const char *path, bool writable, int userns_fd,
                       agentrt_error_t *err)
{
  cleanup_free char *real = realpath (path, NULL);
  cleanup_free char *opts = NULL;
  struct overlay_layers layers;
  struct statfs fs;
  int mnt;

  if (real == NULL || statfs (real, &fs) < 0 || fs.f_type != OVERLAYFS_SUPER_MAGIC)
    return -2;
  if (writable)
    return agentrt_error (err, 0, "root.path `%s`: an overlay is idmapped as "
                          "a read-only copy of its layers, and the root is "
                          "writable" AUTO_HINT, path);
  opts = overlay_options_at (real, err);
  if (opts == NULL || overlay_layers_parse (opts, &layers, err) < 0)
    return agentrt_error_wrap (err, "root.path `%s`, an overlay", path), -1;
  mnt = overlay_of_idmapped (&layers, userns_fd, err);
  overlay_layers_release (&layers);
  if (mnt < 0)
    return agentrt_error_wrap (err, "root.path `%s`, an overlay" AUTO_HINT, path), -1;
  return mnt;
}

int
mount_idmap_rootfs (struct mount_plan *plan, const struct oci_config *config,
                    const char *path, bool writable, agentrt_error_t *err)
{
  const struct oci_linux *l = config->linux_cfg;
  int tree, copy;

  if (plan->container_userns_fd < 0)
    plan->container_userns_fd = userns_fd_with_maps (
        l->uid_mappings, l->n_uid_mappings, l->gid_mappings,
        l->n_gid_mappings, "linux.uidMappings", err);
  if (plan->container_userns_fd < 0)
    return -1;
  tree = mount_copy_tree (AT_FDCWD, path, AT_RECURSIVE);
  if (tree < 0)
    return agentrt_error (err, errno, "root.path `%s`: copy it to idmap it",
                          path);
  /* nodev: the image's device nodes show as the container root's
   * through the idmap; the container's devices are the host's, bound */
  if (set_idmap (tree, plan->container_userns_fd, MOUNT_ATTR_NODEV) == 0)
    return tree;
  {
    int e = errno;
    close (tree);
    if (e == EINVAL && (copy = idmapped_overlay_copy (
                            path, writable, plan->container_userns_fd, err))
                           != -2)
      return copy;
    return agentrt_error (err, e, "root.path `%s`: idmap it%s" AUTO_HINT,
                          path, e == EINVAL ? ": a filesystem that cannot "
                                              "be idmapped" : "");
  }
}
