/* Device nodes and /dev symlinks (see devices.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "runtime/devices.h"
#include "runtime/path_resolve.h"

const struct device_node devices_default[] = {
  { "/dev/null", 'c', 1, 3, 0666, 0, 0 },
  { "/dev/zero", 'c', 1, 5, 0666, 0, 0 },
  { "/dev/full", 'c', 1, 7, 0666, 0, 0 },
  { "/dev/random", 'c', 1, 8, 0666, 0, 0 },
  { "/dev/urandom", 'c', 1, 9, 0666, 0, 0 },
  { "/dev/tty", 'c', 5, 0, 0666, 0, 0 },
};
const size_t devices_default_count
    = sizeof devices_default / sizeof devices_default[0];

static const struct
{
  const char *target;
  const char *name;
} dev_links[] = {
  { "/proc/self/fd", "fd" },
  { "/proc/self/fd/0", "stdin" },
  { "/proc/self/fd/1", "stdout" },
  { "/proc/self/fd/2", "stderr" },
  { "/proc/kcore", "core" },
};

/* Splits "/dev/x/y" into an O_PATH fd of "/dev/x" and the name "y". */
static int
open_parent (int rootfd, const char *path, char *dir, size_t dirlen,
             const char **name)
{
  const char *slash = strrchr (path, '/');
  size_t len;
  if (slash == NULL || slash[1] == '\0')
    return -EINVAL;
  len = (size_t) (slash - path);
  if (len + 1 > dirlen)
    return -ENAMETOOLONG;
  memcpy (dir, path, len);
  dir[len] = '\0';
  *name = slash + 1;
  return path_ensure_in_root (rootfd, len ? dir : "/", PATH_KIND_DIR);
}

static mode_t
node_type (char type)
{
  switch (type)
    {
    case 'b':
      return S_IFBLK;
    case 'p':
      return S_IFIFO;
    default:
      return S_IFCHR;
    }
}

static int
bind_host_device (int rootfd, const struct device_node *d,
                  struct child_error *cerr)
{
  int destfd, mfd, r = 0;
  destfd = path_ensure_in_root (rootfd, d->path, PATH_KIND_FILE);
  if (destfd < 0)
    return child_error (cerr, -destfd, "device `%s`", d->path);
  mfd = open_tree (AT_FDCWD, d->path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
  if (mfd < 0
      || move_mount (mfd, "", destfd, "",
                     MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)
             < 0)
    r = child_error (cerr, errno, "bind host device `%s`", d->path);
  if (mfd >= 0)
    close (mfd);
  close (destfd);
  return r;
}

static int
make_node (int rootfd, const struct device_node *d, struct child_error *cerr)
{
  char dir[4096];
  const char *name;
  int parent, r = 0;

  parent = open_parent (rootfd, d->path, dir, sizeof dir, &name);
  if (parent < 0)
    return child_error (cerr, -parent, "device `%s`", d->path);
  /* An image may ship its own /dev entries: replace them. */
  if (unlinkat (parent, name, 0) < 0 && errno != ENOENT && errno != EISDIR)
    r = child_error (cerr, errno, "device `%s`", d->path);
  else if (mknodat (parent, name, node_type (d->type) | (d->mode & 07777),
                    makedev (d->major, d->minor))
           < 0)
    r = child_error (cerr, errno, "mknod `%s`", d->path);
  else if (fchownat (parent, name, d->uid, d->gid, AT_SYMLINK_NOFOLLOW) < 0
           || fchmodat (parent, name, d->mode & 07777, 0) < 0)
    r = child_error (cerr, errno, "device `%s`", d->path);
  close (parent);
  return r;
}

static int
make_links (int rootfd, bool ptmx_link, struct child_error *cerr)
{
  int devfd;
  size_t i;

  devfd = path_ensure_in_root (rootfd, "/dev", PATH_KIND_DIR);
  if (devfd < 0)
    return child_error (cerr, -devfd, "open `/dev`");
  for (i = 0; i < sizeof dev_links / sizeof dev_links[0]; i++)
    if (symlinkat (dev_links[i].target, devfd, dev_links[i].name) < 0
        && errno != EEXIST)
      {
        close (devfd);
        return child_error (cerr, errno, "symlink `/dev/%s`", dev_links[i].name);
      }
  if (ptmx_link)
    {
      /* replace whatever ptmx the image has with the devpts one */
      if ((unlinkat (devfd, "ptmx", 0) < 0 && errno != ENOENT)
          || symlinkat ("pts/ptmx", devfd, "ptmx") < 0)
        {
          close (devfd);
          return child_error (cerr, errno, "symlink `/dev/ptmx`");
        }
    }
  close (devfd);
  return 0;
}

int
devices_create (int rootfd, const struct devices_spec *spec,
                struct child_error *cerr)
{
  size_t i;
  for (i = 0; i < spec->n_nodes; i++)
    {
      const struct device_node *d = &spec->nodes[i];
      int r;
      /* the devpts ptmx replaces a bundle's (make_links), which a bind of
       * the host's (in a user namespace) would leave busy */
      if (spec->ptmx_link && strcmp (d->path, "/dev/ptmx") == 0)
        continue;
      r = spec->bind_from_host ? bind_host_device (rootfd, d, cerr)
                               : make_node (rootfd, d, cerr);
      if (r < 0)
        return -1;
    }
  return make_links (rootfd, spec->ptmx_link, cerr);
}
