/* Mounts of the container's filesystem view (see rootfs.h).  Every mount is
 * made detached (fsmount or open_tree), configured, then attached with
 * move_mount onto an fd resolved inside the rootfs: a symlink swapped in
 * after resolution cannot redirect it (the CVE-2021-30465 class). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/openat2.h"
#include "runtime/copyup.h"
#include "runtime/path_resolve.h"
#include "runtime/rootfs.h"

#define FSMOUNT_ATTRS                                                       \
  (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV                 \
   | MOUNT_ATTR_NOEXEC | MOUNT_ATTR__ATIME | MOUNT_ATTR_NODIRATIME          \
   | MOUNT_ATTR_NOSYMFOLLOW)

static void
close_quietly (int fd)
{
  if (fd >= 0)
    close (fd);
}

/* mount(2) changing only the propagation of PATH: the kernel ignores the
 * source and the type (empty strings, not NULL: valgrind reads a NULL
 * type as a bad pointer). */
static int
set_path_propagation (const char *path, unsigned long flags)
{
  return mount ("", path, "", flags, NULL);
}

/* Appends the filesystem's own explanation (the fs context log) to cerr:
 * "tmpfs: Bad value for 'size'" says more than EINVAL. */
static int
fs_error (struct child_error *cerr, int fsfd, int status, const char *what,
          const char *dest)
{
  char log[256];
  ssize_t n = fsfd >= 0 ? read (fsfd, log, sizeof log - 1) : -1;
  if (n > 2)
    {
      log[n] = '\0';
      if (log[n - 1] == '\n')
        log[n - 1] = '\0';
      return child_error (cerr, status, "%s on `%s` (%s)", what, dest, log + 2);
    }
  return child_error (cerr, status, "%s on `%s`", what, dest);
}

static int
set_attrs (int mfd, uint64_t set, uint64_t clr, bool recursive)
{
  struct mount_attr attr = { .attr_set = set, .attr_clr = clr };
  if (set == 0 && clr == 0)
    return 0;
  return mount_setattr (mfd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0),
                        &attr, sizeof attr);
}

static int
set_propagation (int mfd, unsigned long propagation, bool recursive)
{
  struct mount_attr attr = { .propagation = propagation };
  if (propagation == 0)
    return 0;
  return mount_setattr (mfd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0),
                        &attr, sizeof attr);
}

/* A new filesystem instance, detached, with its parameters applied (and,
 * when not NULL, mode= last). */
static int
make_fs_mount_mode (const struct mount_step *s, const char *mode,
                    struct child_error *cerr)
{
  int fsfd, mfd;
  size_t i;

  fsfd = fsopen (s->fstype, FSOPEN_CLOEXEC);
  if (fsfd < 0)
    return child_error (cerr, errno, "mount `%s` on `%s`", s->fstype,
                        s->destination);
  if (fsconfig (fsfd, FSCONFIG_SET_STRING, "source", s->source, 0) < 0)
    {
      fs_error (cerr, fsfd, errno, "mount source", s->destination);
      close (fsfd);
      return -1;
    }
  for (i = 0; i < s->n_params; i++)
    {
      const struct fs_param *p = &s->params[i];
      int r = p->value ? fsconfig (fsfd, FSCONFIG_SET_STRING, p->key, p->value, 0)
                       : fsconfig (fsfd, FSCONFIG_SET_FLAG, p->key, NULL, 0);
      if (r < 0)
        {
          fs_error (cerr, fsfd, errno, "mount option", s->destination);
          close (fsfd);
          return -1;
        }
    }
  if (mode && fsconfig (fsfd, FSCONFIG_SET_STRING, "mode", mode, 0) < 0)
    {
      fs_error (cerr, fsfd, errno, "mount option mode", s->destination);
      close (fsfd);
      return -1;
    }
  if (fsconfig (fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    {
      fs_error (cerr, fsfd, errno, "mount", s->destination);
      close (fsfd);
      return -1;
    }
  mfd = fsmount (fsfd, FSMOUNT_CLOEXEC,
                 (unsigned int) (s->attr_set & FSMOUNT_ATTRS));
  if (mfd < 0)
    fs_error (cerr, fsfd, errno, "mount", s->destination);
  close (fsfd);
  return mfd;
}

static int
make_fs_mount (const struct mount_step *s, struct child_error *cerr)
{
  return make_fs_mount_mode (s, NULL, cerr);
}

/* A tmpfs without mode= takes the mode of the directory it covers, as runc
 * and crun do: it would be 1777, and a 0700 directory open to everyone.
 * Looked up before the mountpoint is made: a new one keeps the default.
 * Writes "0700"-like text into mode; false when there is nothing to keep. */
static bool
tmpfs_covered_mode (int rootfd, const struct mount_step *s, char *mode,
                    size_t len)
{
  struct stat st;
  size_t i;
  int fd, r;

  if (s->kind != MOUNT_KIND_FS || strcmp (s->fstype, "tmpfs") != 0)
    return false;
  for (i = 0; i < s->n_params; i++)
    if (strcmp (s->params[i].key, "mode") == 0)
      return false;
  fd = path_open_in_root (rootfd, s->destination, O_PATH | O_DIRECTORY);
  if (fd < 0)
    return false;
  r = fstat (fd, &st);
  close (fd);
  return r == 0 && snprintf (mode, len, "%04o", st.st_mode & 07777) < (int) len;
}

/* The copy of a judged source the runtime could not make (it is not
 * root): the source opened again here, in the container's mount
 * namespace, with no symlink on the way, and cloned only when it is the
 * file the hardening judged (a swap since fails the create). */
static int
make_judged_bind (const struct mount_step *s, struct child_error *cerr)
{
  struct stat st;
  int fd, mfd;

  fd = openat2_resolve (AT_FDCWD, s->source, O_PATH,
                        RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
  if (fd < 0)
    return child_error (cerr, -fd, "bind mount `%s` on `%s`: open the judged "
                        "source again", s->source, s->destination);
  if (fstat (fd, &st) < 0 || st.st_dev != s->judged_dev
      || st.st_ino != s->judged_ino)
    {
      close (fd);
      return child_error (cerr, EXDEV, "bind mount `%s` on `%s`: the source "
                          "is not the file the hardening judged (changed "
                          "since)", s->source, s->destination);
    }
  mfd = open_tree (fd, "", AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC
                               | (s->recursive ? AT_RECURSIVE : 0));
  close (fd);
  if (mfd < 0)
    return child_error (cerr, errno, "bind mount `%s` on `%s`", s->source,
                        s->destination);
  return mfd;
}

static int
make_bind_mount (const char *source, bool recursive, const char *dest,
                 struct child_error *cerr)
{
  int mfd = open_tree (AT_FDCWD, source,
                       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC
                           | (recursive ? AT_RECURSIVE : 0));
  if (mfd < 0)
    return child_error (cerr, errno, "bind mount `%s` on `%s`", source, dest);
  return mfd;
}

/* sysfs cannot be mounted from a user namespace that does not own the
 * network namespace; like runc, show the host's /sys read-only instead. */
static bool
sysfs_needs_bind (const struct mount_step *s, int err)
{
  return err == EPERM && s->kind == MOUNT_KIND_FS
         && strcmp (s->fstype, "sysfs") == 0;
}

static int
resolve_destination (int rootfd, const struct mount_step *s,
                     struct child_error *cerr)
{
  int fd;
  bool strict = s->kind == MOUNT_KIND_FS
                && (strcmp (s->fstype, "proc") == 0
                    || strcmp (s->fstype, "sysfs") == 0);

  /* proc and sysfs must land exactly where named: a symlink there is how
   * CVE-2019-16884/19921 redirected them. */
  if (strict)
    {
      fd = path_open_in_root_nofollow (rootfd, s->destination,
                                       O_PATH | O_DIRECTORY);
      if (fd == -ENOENT)
        {
          fd = path_ensure_in_root (rootfd, s->destination, PATH_KIND_DIR);
          if (fd >= 0)
            {
              close (fd);
              fd = path_open_in_root_nofollow (rootfd, s->destination,
                                               O_PATH | O_DIRECTORY);
            }
        }
    }
  else
    fd = path_ensure_in_root (rootfd, s->destination,
                              s->dest_is_file ? PATH_KIND_FILE : PATH_KIND_DIR);
  if (fd < 0)
    return child_error (cerr, -fd, "mount destination `%s`%s", s->destination,
                        strict && (fd == -ELOOP || fd == -ENOTDIR)
                            ? " must be a directory, not a symlink"
                            : "");
  return fd;
}

static int
attach (int mfd, int destfd, const char *dest, struct child_error *cerr)
{
  if (move_mount (mfd, "", destfd, "",
                  MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)
      < 0)
    return child_error (cerr, errno, "attach mount on `%s`", dest);
  return 0;
}

/* A bind mount needs a file on a file and a directory on a directory: say
 * which, rather than the EINVAL move_mount would give. */
static int
check_bind_kind (int destfd, const struct mount_step *s,
                 struct child_error *cerr)
{
  struct stat st;
  if (fstat (destfd, &st) < 0)
    return child_error (cerr, errno, "mount destination `%s`", s->destination);
  if (S_ISDIR (st.st_mode) == !s->dest_is_file)
    return 0;
  return child_error (cerr, s->dest_is_file ? EISDIR : ENOTDIR,
                      "bind mount of the %s `%s` on `%s`",
                      s->dest_is_file ? "file" : "directory", s->source,
                      s->destination);
}

/* The runtime's copy of a bind source (judged, opened with the runtime's
 * privileges) was made before the container's mount namespace.  Since
 * Linux 6.8 /proc/self/mountinfo lists a namespace's mounts in the order
 * they were made, not attached, so the copy would come first, even before
 * `/`, where runc and crun show the listed order (runtime-tools checks it).
 * Once attached (in this namespace, where the kernel lets it be cloned), it
 * is cloned from its fd (the same tree), detached, and the clone attached
 * in its place.  Where the kernel refuses the clone or the detach, the
 * first copy stays. */
static int
renew_source_copy (int *mfd, int destfd, const struct mount_step *s,
                   struct child_error *cerr)
{
  char path[32];
  int nfd = open_tree (*mfd, "",
                       AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC
                           | (s->recursive ? AT_RECURSIVE : 0));

  if (nfd < 0)
    return 0;
  snprintf (path, sizeof path, "/proc/self/fd/%d", *mfd);
  if (umount2 (path, MNT_DETACH) < 0)
    {
      close (nfd);
      return 0;
    }
  close (*mfd);
  *mfd = nfd;
  return attach (nfd, destfd, s->destination, cerr);
}

static int
mount_step (int rootfd, const struct mount_step *s, struct child_error *cerr)
{
  int destfd, mfd = -1, hidden = -1, r = -1;
  char mode[8];
  bool keep_mode = tmpfs_covered_mode (rootfd, s, mode, sizeof mode);

  destfd = resolve_destination (rootfd, s, cerr);
  if (destfd < 0)
    return -1;
  if (s->kind == MOUNT_KIND_BIND && check_bind_kind (destfd, s, cerr) < 0)
    goto out;
  if (s->copy_up)
    {
      /* What the new mount will hide, opened before it is hidden. */
      hidden = openat (destfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (hidden < 0)
        {
          child_error (cerr, errno, "tmpcopyup: open `%s`", s->destination);
          goto out;
        }
    }

  if (s->kind == MOUNT_KIND_BIND && s->tree_fd >= 0)
    mfd = s->tree_fd; /* copied by the runtime */
  else if (s->kind == MOUNT_KIND_BIND && s->judged_reopen)
    mfd = make_judged_bind (s, cerr);
  else if (s->kind == MOUNT_KIND_BIND)
    mfd = make_bind_mount (s->source, s->recursive, s->destination, cerr);
  else
    {
      mfd = make_fs_mount_mode (s, keep_mode ? mode : NULL, cerr);
      if (mfd < 0 && sysfs_needs_bind (s, cerr->status))
        mfd = make_bind_mount ("/sys", true, s->destination, cerr);
    }
  if (mfd < 0)
    goto out;

  if (set_attrs (mfd, s->attr_set, s->attr_clr, false) < 0
      || set_attrs (mfd, s->rattr_set, s->rattr_clr, true) < 0)
    {
      child_error (cerr, errno, "set mount options of `%s`", s->destination);
      goto out;
    }
  if (attach (mfd, destfd, s->destination, cerr) < 0)
    goto out;
  if (mfd == s->tree_fd && renew_source_copy (&mfd, destfd, s, cerr) < 0)
    goto out;
  if (set_propagation (mfd, s->propagation, s->propagation_recursive) < 0)
    {
      child_error (cerr, errno, "set propagation of `%s`", s->destination);
      goto out;
    }
  if (s->copy_up && copyup_tree (hidden, mfd, s->destination, cerr) < 0)
    goto out;
  r = 0;
out:
  close_quietly (hidden);
  close_quietly (mfd);
  close (destfd);
  return r;
}

/* A fresh cgroup instance: "cpu,cpuacct" becomes one fsconfig flag per
 * controller, "name=systemd" a key/value; split in a stack buffer. */
static int
make_cgroup_mount (const struct cgroup_mount *e, const char *dest,
                   uint64_t attrs, struct child_error *cerr)
{
  struct fs_param params[16];
  struct mount_step sub;
  char buf[256];
  char *tok, *save = NULL;
  size_t n = 0;

  if (e->data && strlen (e->data) >= sizeof buf)
    return child_error (cerr, ENAMETOOLONG, "cgroup options for `%s`", dest);
  strcpy (buf, e->data ? e->data : "");
  for (tok = strtok_r (buf, ",", &save); tok && n < 16;
       tok = strtok_r (NULL, ",", &save))
    {
      char *eq = strchr (tok, '=');
      if (eq)
        *eq = '\0';
      params[n].key = tok;
      params[n].value = eq ? eq + 1 : NULL;
      n++;
    }
  memset (&sub, 0, sizeof sub);
  sub.kind = MOUNT_KIND_FS;
  sub.fstype = e->fstype;
  sub.source = "cgroup";
  sub.destination = dest;
  sub.attr_set = attrs;
  sub.params = params;
  sub.n_params = n;
  return make_fs_mount (&sub, cerr);
}

/* One cgroup hierarchy: a fresh instance inside a cgroup namespace (it then
 * shows the namespace's root), else a bind of the container's directory. */
static int
mount_cgroup_entry (int dirfd, const struct cgroup_mount *e,
                    const struct rootfs_spec *spec, const struct mount_step *s,
                    struct child_error *cerr)
{
  uint64_t attrs = s->attr_set | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV
                   | MOUNT_ATTR_NOEXEC;
  int destfd, mfd, r;

  if (e->dir[0])
    destfd = path_ensure_in_root (dirfd, e->dir, PATH_KIND_DIR);
  else
    destfd = openat (dirfd, ".", O_PATH | O_CLOEXEC);
  if (destfd < 0)
    return child_error (cerr, destfd == -1 ? errno : -destfd,
                        "cgroup mount `%s/%s`", s->destination, e->dir);

  if (spec->cgroup_ns)
    mfd = make_cgroup_mount (e, s->destination, attrs, cerr);
  else
    mfd = make_bind_mount (e->host_path, false, s->destination, cerr);
  if (mfd < 0)
    {
      close (destfd);
      return -1;
    }
  r = set_attrs (mfd, attrs, s->attr_clr, false);
  if (r < 0)
    child_error (cerr, errno, "cgroup mount options on `%s`", s->destination);
  else
    r = attach (mfd, destfd, s->destination, cerr);
  close (mfd);
  close (destfd);
  return r;
}

/* v1 and hybrid: a small tmpfs holding one directory per hierarchy plus
 * the links of co-mounted controllers ("cpu" -> "cpu,cpuacct"). */
static int
mount_cgroup_tmpfs (int rootfd, const struct cgroup_mounts *cg,
                    const struct mount_step *s, int *dirfd,
                    struct child_error *cerr)
{
  struct fs_param mode = { .key = "mode", .value = "755" };
  struct mount_step base;
  size_t i, k;

  memset (&base, 0, sizeof base);
  base.kind = MOUNT_KIND_FS;
  base.fstype = "tmpfs";
  base.source = "tmpfs";
  base.destination = s->destination;
  base.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
  base.params = &mode;
  base.n_params = 1;
  if (mount_step (rootfd, &base, cerr) < 0)
    return -1;
  *dirfd = path_open_in_root (rootfd, s->destination, O_PATH | O_DIRECTORY);
  if (*dirfd < 0)
    return child_error (cerr, -*dirfd, "cgroup mount `%s`", s->destination);
  for (i = 0; i < cg->len; i++)
    for (k = 0; cg->items[i].links && cg->items[i].links[k]; k++)
      if (symlinkat (cg->items[i].dir, *dirfd, cg->items[i].links[k]) < 0
          && errno != EEXIST)
        return child_error (cerr, errno, "cgroup link `%s/%s`", s->destination,
                            cg->items[i].links[k]);
  return 0;
}

static int
mount_cgroups (int rootfd, const struct rootfs_spec *spec,
               const struct mount_step *s, struct child_error *cerr)
{
  const struct cgroup_mounts *cg = spec->cgroups;
  int dirfd = -1, r = 0;
  size_t i;

  /* an empty tmpfs: the container has no cgroup of its own (a runtime
   * that is not root, without a delegated subtree) */
  if (cg == NULL || (cg->len == 0 && !cg->tmpfs))
    return child_error (cerr, ENOENT, "cgroup mount `%s`: no cgroup "
                        "hierarchy", s->destination);
  if (cg->tmpfs)
    {
      if (mount_cgroup_tmpfs (rootfd, cg, s, &dirfd, cerr) < 0)
        {
          close_quietly (dirfd);
          return -1;
        }
    }
  else
    {
      dirfd = path_ensure_in_root (rootfd, s->destination, PATH_KIND_DIR);
      if (dirfd < 0)
        return child_error (cerr, -dirfd, "cgroup mount `%s`", s->destination);
    }
  for (i = 0; i < cg->len && r == 0; i++)
    r = mount_cgroup_entry (dirfd, &cg->items[i], spec, s, cerr);
  /* the tmpfs itself becomes read-only once populated (an empty one
   * always: nothing is ever to be written there) */
  if (r == 0 && cg->tmpfs && ((s->attr_set & MOUNT_ATTR_RDONLY) || cg->len == 0)
      && set_attrs (dirfd, MOUNT_ATTR_RDONLY, 0, false) < 0)
    r = child_error (cerr, errno, "read-only `%s`", s->destination);
  close (dirfd);
  return r;
}

/* The upper layer: a size-limited tmpfs with upper/ and work/.  It stays
 * detached; overlayfs reaches it through /proc/self/fd. */
static int
make_ephemeral_upper (unsigned long long size, struct child_error *cerr)
{
  char bytes[32];
  struct fs_param params[2] = { { .key = "size", .value = bytes },
                                { .key = "mode", .value = "755" } };
  struct mount_step s = { .kind = MOUNT_KIND_FS, .fstype = "tmpfs",
                          .source = "tmpfs", .destination = "ephemeral root",
                          .attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                          .params = params, .n_params = 2 };
  int mfd;

  snprintf (bytes, sizeof bytes, "%llu", size);
  mfd = make_fs_mount (&s, cerr);
  if (mfd < 0)
    return -1;
  if (mkdirat (mfd, "upper", 0755) < 0 || mkdirat (mfd, "work", 0755) < 0)
    {
      close (mfd);
      return child_error (cerr, errno, "ephemeral root: prepare the tmpfs");
    }
  return mfd;
}

/* overlay(lower = the rootfs, upper = a tmpfs): writes land in memory. */
static int
make_ephemeral_root (const struct rootfs_spec *spec, int lowerfd,
                     struct child_error *cerr)
{
  char lower[64], upper[64], work[64];
  struct fs_param params[3] = { { .key = "lowerdir", .value = lower },
                                { .key = "upperdir", .value = upper },
                                { .key = "workdir", .value = work } };
  struct mount_step s = { .kind = MOUNT_KIND_FS, .fstype = "overlay",
                          .source = "overlay", .destination = "/",
                          .params = params, .n_params = 3 };
  int upperfd, mfd;

  upperfd = make_ephemeral_upper (spec->ephemeral_size, cerr);
  if (upperfd < 0)
    return -1;
  snprintf (lower, sizeof lower, "/proc/self/fd/%d", lowerfd);
  snprintf (upper, sizeof upper, "/proc/self/fd/%d/upper", upperfd);
  snprintf (work, sizeof work, "/proc/self/fd/%d/work", upperfd);
  mfd = make_fs_mount (&s, cerr);
  close (upperfd);
  return mfd;
}

/* The runtime's idmapped copy of the rootfs (the container's own user
 * namespace) becomes the root without the rootfs's path being walked: the
 * container's root may not search its parents (an engine's 0700
 * directories), and a path opened before the clone is in the runtime's
 * mount namespace.  It is attached on top of this namespace's `/` (a
 * slave by now: nothing propagates back), or an ephemeral root's overlay
 * is (the copy, attached there for a moment, its lower layer); pivot_root
 * takes it from there, right above the host's root it detaches. */
static int
prepare_idmapped_root (const struct rootfs_spec *spec, int *rootfd,
                       struct child_error *cerr)
{
  int top, mfd, ofd;

  top = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (top < 0)
    return child_error (cerr, errno, "open `/`");
  mfd = fcntl (spec->rootfs_tree, F_DUPFD_CLOEXEC, 0);
  if (mfd < 0)
    {
      close (top);
      return child_error (cerr, errno, "the idmapped rootfs `%s`",
                          spec->rootfs);
    }
  if (attach (mfd, top, spec->rootfs, cerr) < 0)
    goto fail;
  if (spec->ephemeral_size)
    {
      /* The overlay holds its own copy of the lower layer: the attached
       * one goes (pivot_root must find the host's root right under the new
       * one, to be detached) */
      char path[32];
      ofd = make_ephemeral_root (spec, mfd, cerr);
      snprintf (path, sizeof path, "/proc/self/fd/%d", mfd);
      if (ofd >= 0 && umount2 (path, MNT_DETACH) < 0)
        {
          child_error (cerr, errno, "ephemeral root: detach its lower layer");
          close (ofd);
          ofd = -1;
        }
      close (mfd);
      mfd = ofd;
      if (mfd < 0 || attach (mfd, top, spec->rootfs, cerr) < 0)
        goto fail;
    }
  close (top);
  *rootfd = mfd;
  return 0;
fail:
  close_quietly (mfd);
  close (top);
  return -1;
}

int
rootfs_prepare (const struct rootfs_spec *spec, int *rootfd,
                struct child_error *cerr)
{
  int mfd, fd;

  /* Nothing done from here on may propagate back to the host, and the new
   * root must not be shared (pivot_root refuses it); rootfsPropagation is
   * applied to the new root once it is in place. */
  if (!spec->host_mount_ns
      && set_path_propagation ("/", MS_SLAVE | MS_REC) < 0)
    return child_error (cerr, errno, "set propagation of `/`");

  if (spec->rootfs_tree >= 0)
    return prepare_idmapped_root (spec, rootfd, cerr);
  fd = open (spec->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return child_error (cerr, errno, "open rootfs `%s`", spec->rootfs);
  if (spec->ephemeral_size)
    mfd = make_ephemeral_root (spec, fd, cerr);
  else
    mfd = make_bind_mount (spec->rootfs, true, spec->rootfs, cerr);
  if (mfd < 0)
    {
      close (fd);
      return -1;
    }
  if (attach (mfd, fd, spec->rootfs, cerr) < 0)
    {
      close (mfd);
      close (fd);
      return -1;
    }
  close (fd);
  /* The mount fd now is the attached rootfs mount itself. */
  *rootfd = mfd;
  return 0;
}

int
rootfs_mount_all (const struct rootfs_spec *spec, int rootfd, bool deferred,
                  struct child_error *cerr)
{
  bool before_done = false;
  size_t i;
  for (i = 0; i < spec->mounts->n_steps; i++)
    {
      const struct mount_step *s = &spec->mounts->steps[i];
      int r;
      if (s->deferred != deferred)
        continue;
      if (s->kind == MOUNT_KIND_CGROUP && !before_done
          && spec->before_cgroup_mount)
        {
          if (spec->before_cgroup_mount (spec->before_cgroup_arg, cerr) < 0)
            return -1;
          before_done = true;
        }
      r = s->kind == MOUNT_KIND_CGROUP ? mount_cgroups (rootfd, spec, s, cerr)
                                       : mount_step (rootfd, s, cerr);
      if (r < 0)
        return -1;
    }
  return 0;
}

int
rootfs_pivot (const struct rootfs_spec *spec, int rootfd,
              struct child_error *cerr)
{
  if (fchdir (rootfd) < 0)
    return child_error (cerr, errno, "chdir to rootfs");
  if (spec->host_mount_ns)
    {
      /* pivot_root would move every process of the host's namespace */
      if (chroot (".") < 0)
        return child_error (cerr, errno, "chroot");
    }
  else if (spec->no_pivot)
    {
      if (mount (".", "/", NULL, MS_MOVE, NULL) < 0)
        return child_error (cerr, errno, "move rootfs to `/`");
      if (chroot (".") < 0)
        return child_error (cerr, errno, "chroot");
    }
  else
    {
      /* pivot_root(".", "."): the old root ends up stacked under the new
       * one, and is detached without ever being named. */
      if (syscall (SYS_pivot_root, ".", ".") < 0)
        return child_error (cerr, errno, "pivot_root");
      if (set_path_propagation (".", MS_SLAVE | MS_REC) < 0)
        return child_error (cerr, errno, "make old root a slave");
      if (umount2 (".", MNT_DETACH) < 0)
        return child_error (cerr, errno, "detach old root");
    }
  if (chdir ("/") < 0)
    return child_error (cerr, errno, "chdir to `/`");
  return 0;
}

/* The container's /dev/null, checked to be the null device: a bundle or an
 * image could have put anything there (CVE-2025-31133). */
static int
open_checked_devnull (int rootfd, struct child_error *cerr)
{
  struct stat st;
  int fd = path_open_in_root_nofollow (rootfd, "/dev/null", O_PATH);
  if (fd < 0)
    return child_error (cerr, -fd, "open `/dev/null` to mask paths");
  if (fstat (fd, &st) < 0 || !S_ISCHR (st.st_mode)
      || st.st_rdev != makedev (1, 3))
    {
      close (fd);
      return child_error (cerr, EPERM, "`/dev/null` in the container is not "
                          "the null device: cannot mask paths with it");
    }
  return fd;
}

/* What masks are made of, opened at the first mask that needs each: the
 * container's checked /dev/null for files, and for directories one empty
 * read-only tmpfs, attached at the first masked directory and cloned for
 * the others (a superblock each cost every mask an fsopen, three fsconfig
 * and an fsmount; nothing can be written to the shared one). */
struct mask_sources
{
  int devnull;
  int empty_dir; /* attached at the first masked directory */
};

/* A clone of the mount `source` (what masks are made of) attached on the
 * open destination. */
static int
attach_clone (int source, int destfd, const char *path, const char *what,
              struct child_error *cerr)
{
  int mfd = open_tree (source, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC
                                       | AT_EMPTY_PATH);
  int r;

  if (mfd < 0)
    return child_error (cerr, errno, "mask `%s` with %s", path, what);
  r = attach (mfd, destfd, path, cerr);
  close (mfd);
  return r;
}

/* The first masked directory gets the empty tmpfs itself. */
static int
mask_dir (int fd, const char *path, struct mask_sources *src,
          struct child_error *cerr)
{
  struct mount_step s = { .kind = MOUNT_KIND_FS, .fstype = "tmpfs",
                          .source = "tmpfs", .destination = path,
                          .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID
                                      | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC };
  struct fs_param params[] = { { .key = "size", .value = "0" },
                               { .key = "ro", .value = NULL } };
  int mfd;

  if (src->empty_dir >= 0)
    return attach_clone (src->empty_dir, fd, path, "an empty directory", cerr);
  s.params = params;
  s.n_params = 2;
  mfd = make_fs_mount (&s, cerr);
  if (mfd < 0)
    return -1;
  if (attach (mfd, fd, path, cerr) < 0)
    {
      close (mfd);
      return -1;
    }
  src->empty_dir = mfd;
  return 0;
}

static int
mask_file (int rootfd, int fd, const char *path, struct mask_sources *src,
           struct child_error *cerr)
{
  if (src->devnull < 0)
    src->devnull = open_checked_devnull (rootfd, cerr);
  if (src->devnull < 0)
    return -1;
  return attach_clone (src->devnull, fd, path, "/dev/null", cerr);
}

static int
mask_path (int rootfd, const char *path, bool required,
           struct mask_sources *src, struct child_error *cerr)
{
  struct stat st;
  int fd, r;

  fd = path_open_in_root (rootfd, path, O_PATH);
  if (fd == -ENOENT && !required)
    return 0; /* nothing to hide */
  if (fd < 0)
    return child_error (cerr, -fd, "masked path `%s`%s", path,
                        required ? " (found on the host: it must be masked)"
                                 : "");
  if (fstat (fd, &st) < 0)
    r = child_error (cerr, errno, "masked path `%s`", path);
  else if (S_ISDIR (st.st_mode))
    r = mask_dir (fd, path, src, cerr);
  else
    r = mask_file (rootfd, fd, path, src, cerr);
  close (fd);
  return r;
}

static int
readonly_path (int rootfd, const char *path, bool required,
               struct child_error *cerr)
{
  int fd, mfd, r;

  fd = path_open_in_root (rootfd, path, O_PATH);
  if (fd == -ENOENT && !required)
    return 0;
  if (fd < 0)
    return child_error (cerr, -fd, "read-only path `%s`", path);
  mfd = open_tree (fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH
                               | AT_RECURSIVE);
  if (mfd < 0)
    r = child_error (cerr, errno, "read-only path `%s`", path);
  else if (set_attrs (mfd, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID
                               | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
                      0, true)
           < 0)
    r = child_error (cerr, errno, "read-only path `%s`", path);
  else
    r = attach (mfd, fd, path, cerr);
  close_quietly (mfd);
  close (fd);
  return r;
}

/* A protected directory that is missing is made empty (git's hooks):
 * through its parent, with no symlink followed at the last step. */
static int
ensure_dir (int rootfd, const char *path, struct child_error *cerr)
{
  int fd = path_open_in_root (rootfd, path, O_PATH);

  if (fd >= 0)
    {
      close (fd);
      return 0;
    }
  if (fd != -ENOENT)
    return child_error (cerr, -fd, "read-only path `%s`", path);
  fd = path_ensure_in_root (rootfd, path, PATH_KIND_DIR);
  if (fd < 0)
    return child_error (cerr, -fd, "create the read-only directory `%s`",
                        path);
  close (fd);
  return 0;
}

int
rootfs_finalize (const struct rootfs_spec *spec, struct child_error *cerr)
{
  struct mask_sources masks = { -1, -1 };
  int rootfd;
  size_t i;
  int r = 0;

  rootfd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    return child_error (cerr, errno, "open `/`");
  for (i = 0; r == 0 && i < spec->n_masked_paths; i++)
    r = mask_path (rootfd, spec->masked_paths[i],
                   spec->mask_required && spec->mask_required[i], &masks,
                   cerr);
  close_quietly (masks.devnull);
  close_quietly (masks.empty_dir);
  for (i = 0; r == 0 && i < spec->n_readonly_paths; i++)
    r = readonly_path (rootfd, spec->readonly_paths[i], false, cerr);
  for (i = 0; r == 0 && i < spec->n_protected_dirs; i++)
    r = ensure_dir (rootfd, spec->protected_dirs[i], cerr);
  for (i = 0; r == 0 && i < spec->n_protected_dirs; i++)
    r = readonly_path (rootfd, spec->protected_dirs[i], true, cerr);
  for (i = 0; r == 0 && i < spec->n_protected_paths; i++)
    r = readonly_path (rootfd, spec->protected_paths[i], true, cerr);
  if (r == 0 && spec->root_propagation
      && set_path_propagation ("/", spec->root_propagation) < 0)
    r = child_error (cerr, errno, "set rootfs propagation");
  if (r == 0 && spec->readonly && set_attrs (rootfd, MOUNT_ATTR_RDONLY, 0, false) < 0)
    r = child_error (cerr, errno, "make the root filesystem read-only");
  close (rootfd);
  return r;
}

int
rootfs_bind_fd (int rootfd, int fd, const char *path, struct child_error *cerr)
{
  int destfd, mfd, r;

  destfd = path_open_in_root_nofollow (rootfd, path, O_PATH);
  if (destfd == -ENOENT)
    {
      destfd = path_ensure_in_root (rootfd, path, PATH_KIND_FILE);
      if (destfd >= 0)
        {
          close (destfd);
          destfd = path_open_in_root_nofollow (rootfd, path, O_PATH);
        }
    }
  if (destfd < 0)
    return child_error (cerr, -destfd, "bind mount on `%s`", path);
  mfd = open_tree (fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
  if (mfd < 0)
    r = child_error (cerr, errno, "bind mount on `%s`", path);
  else
    r = attach (mfd, destfd, path, cerr);
  close_quietly (mfd);
  close (destfd);
  return r;
}
