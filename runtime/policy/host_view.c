/* The real host view (see host_view.h): bind sources opened once with
 * openat2, every question below them answered through the open source
 * without following a symlink.  With host_facts.c the only files of
 * runtime/policy/ that touch the filesystem; the hardening step itself
 * stays pure. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/openat2.h"
#include "common/xalloc.h"
#include "host_facts.h"
#include "host_view.h"
#include "paths.h"

#define NO_SYMLINKS (RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

struct open_source
{
  char *canonical;
  int fd; /* O_PATH */
};

struct system_ctx
{
  const char *bundle;
  struct open_source *sources;
  size_t n_sources;
  struct str_list homes;
  struct str_list private_dirs;
};

void
host_dirents_free (struct host_dirent *entries, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (entries[i].name);
  free (entries);
}

void
host_mounts_free (struct host_mount *mounts, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (mounts[i].path);
  free (mounts);
}

static enum host_kind
kind_of (mode_t mode)
{
  if (S_ISREG (mode))
    return HOST_FILE;
  if (S_ISDIR (mode))
    return HOST_DIR;
  if (S_ISSOCK (mode))
    return HOST_SOCKET;
  if (S_ISCHR (mode))
    return HOST_CHAR;
  if (S_ISBLK (mode))
    return HOST_BLOCK;
  if (S_ISLNK (mode))
    return HOST_SYMLINK;
  return HOST_OTHER;
}

static void
node_of (const struct stat *st, struct host_node *node)
{
  node->kind = kind_of (st->st_mode);
  node->major = node->minor = 0;
  if (node->kind == HOST_CHAR || node->kind == HOST_BLOCK)
    {
      node->major = major (st->st_rdev);
      node->minor = minor (st->st_rdev);
    }
}

static bool
is_missing (int e)
{
  return e == ENOENT || e == ENOTDIR;
}

/* The open source `path` is equal to or below (the deepest one), and the
 * rest of the path after it ("" when equal). */
static const struct open_source *
source_of (const struct system_ctx *c, const char *path, const char **rest)
{
  const struct open_source *best = NULL;
  size_t best_len = 0;

  for (size_t i = 0; i < c->n_sources; i++)
    {
      const char *canon = c->sources[i].canonical;
      size_t len = strlen (canon);
      if (path_is_under (path, canon) && (best == NULL || len > best_len))
        {
          best = &c->sources[i];
          best_len = len;
        }
    }
  if (best)
    *rest = strcmp (best->canonical, "/") == 0 ? path + 1 : path + best_len;
  return best;
}

/* Opens `path` for good into *fd.  With follow, symlinks in it are
 * resolved first (realpath) and the result opened with none followed: a
 * component turned into a symlink since then is an error.  Without, the
 * path must lie below an open source and is opened through it, with no
 * symlink followed (it is then missing).  Either way a path below an open
 * source is opened through that source.  *fd is -1 (and *canonical NULL)
 * when the path does not exist. */
static int
open_fresh (struct system_ctx *c, const char *path, bool follow,
            char **canonical, int *fd, agentrt_error_t *err)
{
  cleanup_free char *real = follow ? realpath (path, NULL) : path_clean (path);
  const struct open_source *s;
  const char *rest = NULL;
  int r;

  *fd = -1;
  if (real == NULL)
    return is_missing (errno) ? 0
                              : agentrt_error (err, errno, "resolve `%s`", path);
  s = source_of (c, real, &rest);
  if (s == NULL && !follow)
    return agentrt_error (err, EINVAL, "open `%s`: not below a bind source",
                          path);
  if (s)
    r = openat2_resolve (s->fd, rest, O_PATH, RESOLVE_BENEATH | NO_SYMLINKS);
  else
    r = openat2_resolve (AT_FDCWD, real, O_PATH, NO_SYMLINKS);
  if (r == -ELOOP && !follow)
    return 0; /* a path through a symlink is no source of its own */
  if (r == -ELOOP)
    return agentrt_error (err, ELOOP, "`%s` changed while it was being "
                          "checked", path);
  if (r < 0)
    return is_missing (-r) ? 0 : agentrt_error (err, -r, "open `%s`", path);
  *canonical = steal_pointer (&real);
  *fd = r;
  return 0;
}

static int
system_open_source (void *ctx, const char *path, bool follow, char **canonical,
                    struct host_node *node, agentrt_error_t *err)
{
  struct system_ctx *c = ctx;
  cleanup_free char *full = path[0] == '/' ? xstrdup (path)
                                           : xasprintf ("%s/%s", c->bundle,
                                                        path);
  cleanup_close int fd = -1;
  struct stat st;

  *canonical = NULL;
  memset (node, 0, sizeof (*node));
  if (open_fresh (c, full, follow, canonical, &fd, err) < 0)
    return -1;
  if (fd < 0)
    return 0;
  if (fstat (fd, &st) < 0)
    {
      free (steal_pointer (canonical));
      return agentrt_error (err, errno, "stat `%s`", full);
    }
  node_of (&st, node);
  node->special_fs = host_facts_special_fs (fd, &st);
  for (size_t i = 0; i < c->n_sources; i++)
    if (strcmp (c->sources[i].canonical, *canonical) == 0)
      return 0; /* the same file: the first open one stays */
  c->sources = xreallocarray (c->sources, c->n_sources + 1,
                              sizeof (*c->sources));
  c->sources[c->n_sources].canonical = xstrdup (*canonical);
  c->sources[c->n_sources++].fd = steal_fd (&fd);
  return 0;
}

/* Where a path through a symlink leads on the host (for mapping it onto
 * the container's mounts; never opened). */
static char *
symlink_target (const char *path)
{
  return realpath (path, NULL);
}

static int
system_lookup (void *ctx, const char *path, struct host_node *node,
               char **target, agentrt_error_t *err)
{
  struct system_ctx *c = ctx;
  const char *rest = NULL;
  const struct open_source *s = source_of (c, path, &rest);
  struct stat st;
  int fd;

  memset (node, 0, sizeof (*node));
  if (target)
    *target = NULL;
  if (s == NULL)
    fd = lstat (path, &st) < 0 ? -errno : 0;
  else
    {
      fd = openat2_resolve (s->fd, rest, O_PATH | O_NOFOLLOW,
                            RESOLVE_BENEATH | NO_SYMLINKS);
      if (fd >= 0)
        {
          int r = fstat (fd, &st);
          close (fd);
          fd = r < 0 ? -errno : 0;
        }
    }
  if (fd == -ELOOP)
    st.st_mode = S_IFLNK;
  else if (fd < 0)
    return is_missing (-fd) ? 0
                            : agentrt_error (err, -fd, "inspect `%s`", path);
  node_of (&st, node);
  if (node->kind == HOST_SYMLINK && target)
    *target = symlink_target (path);
  return 0;
}

static enum host_kind
dirent_kind (int dfd, const struct dirent *de)
{
  struct stat st;

  switch (de->d_type)
    {
    case DT_REG:
      return HOST_FILE;
    case DT_DIR:
      return HOST_DIR;
    case DT_SOCK:
      return HOST_SOCKET;
    case DT_CHR:
      return HOST_CHAR;
    case DT_BLK:
      return HOST_BLOCK;
    case DT_LNK:
      return HOST_SYMLINK;
    case DT_UNKNOWN:
      if (fstatat (dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return kind_of (st.st_mode);
      return HOST_OTHER;
    default:
      return HOST_OTHER;
    }
}

static int
system_list_dir (void *ctx, const char *dir, struct host_dirent **entries,
                 size_t *n, agentrt_error_t *err)
{
  struct system_ctx *c = ctx;
  const char *rest = NULL;
  const struct open_source *s = source_of (c, dir, &rest);
  cleanup_dir DIR *d = NULL;
  struct dirent *de;
  int fd;

  *entries = NULL;
  *n = 0;
  if (s == NULL)
    return agentrt_error (err, EINVAL, "list `%s`: not below a bind source",
                          dir);
  fd = openat2_resolve (s->fd, rest, O_RDONLY | O_DIRECTORY,
                        RESOLVE_BENEATH | NO_SYMLINKS);
  /* listed as a directory a moment ago: it changed meanwhile, and what it
   * holds now cannot be judged (fail closed; another container renaming
   * things in a shared volume makes the create fail, not pass) */
  if (fd == -ELOOP || fd == -ENOENT || fd == -ENOTDIR)
    return agentrt_error (err, -fd, "`%s` changed while it was being "
                          "checked", dir);
  if (fd < 0)
    return agentrt_error (err, -fd, "open directory `%s`", dir);
  d = fdopendir (fd);
  if (d == NULL)
    {
      int e = errno;
      close (fd);
      return agentrt_error (err, e, "read directory `%s`", dir);
    }
  for (errno = 0; (de = readdir (d)) != NULL; errno = 0)
    {
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      *entries = xreallocarray (*entries, *n + 1, sizeof (**entries));
      (*entries)[*n].name = xstrdup (de->d_name);
      (*entries)[(*n)++].kind = dirent_kind (dirfd (d), de);
    }
  if (errno != 0)
    {
      int e = errno;
      host_dirents_free (steal_pointer (entries), *n);
      *n = 0;
      return agentrt_error (err, e, "read directory `%s`", dir);
    }
  return 0;
}

static int
system_submounts (void *ctx, const char *dir, struct host_mount **mounts,
                  size_t *n, agentrt_error_t *err)
{
  (void) ctx;
  return host_facts_submounts (dir, mounts, n, err);
}

static int
system_ns_is_host (void *ctx, const char *path, enum oci_namespace_type type,
                   bool *is_host, agentrt_error_t *err)
{
  (void) ctx;
  return host_facts_ns_is_host (path, type, is_host, err);
}

void
host_view_system (struct host_view *view, const char *bundle_dir,
                  const struct str_list *private_dirs)
{
  struct system_ctx *c = xzalloc (sizeof (*c));

  c->bundle = bundle_dir;
  host_facts_homes (&c->homes);
  for (size_t i = 0; private_dirs && i < private_dirs->len; i++)
    {
      const char *dir = private_dirs->items[i];
      cleanup_free char *real = realpath (dir, NULL);
      cleanup_free char *clean = path_clean (dir);
      str_list_append (&c->private_dirs, clean);
      if (real && strcmp (real, clean) != 0)
        str_list_append (&c->private_dirs, real);
    }
  memset (view, 0, sizeof (*view));
  view->ctx = c;
  view->open_source = system_open_source;
  view->lookup = system_lookup;
  view->list_dir = system_list_dir;
  view->submounts = system_submounts;
  view->ns_is_host = system_ns_is_host;
  view->homes = &c->homes;
  view->private_dirs = &c->private_dirs;
}

void
host_view_system_release (struct host_view *view)
{
  struct system_ctx *c = view->ctx;

  if (c == NULL)
    return;
  for (size_t i = 0; i < c->n_sources; i++)
    {
      free (c->sources[i].canonical);
      close (c->sources[i].fd);
    }
  free (c->sources);
  str_list_free (&c->homes);
  str_list_free (&c->private_dirs);
  free (c);
  memset (view, 0, sizeof (*view));
}

int
host_view_source_fd (const struct host_view *view, const char *canonical)
{
  const struct system_ctx *c = view->ctx;

  for (size_t i = 0; c && i < c->n_sources; i++)
    if (strcmp (c->sources[i].canonical, canonical) == 0)
      return c->sources[i].fd;
  return -1;
}
