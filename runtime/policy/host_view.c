/* The real host view (see host_view.h): bind sources opened once with
 * openat2, every question below them answered through the open source
 * without following a symlink.  With host_facts.c the only files of
 * runtime/policy/ that touch the filesystem; the hardening step itself
 * stays pure.
 *
 * The bind scan walks a tree depth first: the directories it listed last
 * stay open (a chain from a source down, struct open_dir), and the next
 * question is resolved from the deepest of them that holds its path, one
 * component or a few, with the same RESOLVE_BENEATH and no symlinks as
 * from the source (a path resolved from the source each time cost the
 * scan a walk of the whole path per directory and per entry looked up).
 * Every directory on the chain was beneath its source when it was opened:
 * no symlink and no ".." leads out of it.  One renamed out of the source
 * while it is open is read where it went, as a directory renamed between
 * the open and the read always was: the scan reads a tree others may be
 * changing, and judges what it read (what changes after it is not judged
 * either way). */
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
#include "common/real_path.h"
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

/* A directory the scan listed, still open (O_RDONLY | O_DIRECTORY). */
struct open_dir
{
  char *path;    /* canonical */
  size_t source; /* the source it was opened below (index) */
  int fd;
};

/* getdents64's buffer, and what it grows by: a directory entry's d_name
 * is at most NAME_MAX + 1 bytes, so half of it always holds a record. */
#define DIRENT_BUF_SIZE 8192

/* As deep as the chain of open directories goes (the policy's scan depth
 * is 8 by default); deeper ones are resolved from the deepest kept. */
#define OPEN_DIRS_MAX 32

struct system_ctx
{
  const char *bundle;
  struct open_source *sources;
  size_t n_sources;
  struct open_dir dirs[OPEN_DIRS_MAX]; /* dirs[i + 1] is below dirs[i] */
  size_t n_dirs;
  struct str_list homes;
  struct str_list private_dirs;
  /* One buffer for every listing, which grows to hold the largest
   * directory's records: on the stack, each level of the walk's recursion
   * put two fresh pages under it (a page fault each). */
  char *dirent_buf;
  size_t dirent_cap;
};

struct host_dirent *
host_dirents_pack (const struct host_dirent *entries, size_t n)
{
  size_t size = n * sizeof (*entries);
  struct host_dirent *out;
  char *names;

  if (n == 0)
    return NULL;
  for (size_t i = 0; i < n; i++)
    size += strlen (entries[i].name) + 1;
  out = xmalloc (size);
  names = (char *) (out + n);
  for (size_t i = 0; i < n; i++)
    {
      size_t len = strlen (entries[i].name) + 1;
      out[i].name = memcpy (names, entries[i].name, len);
      out[i].kind = entries[i].kind;
      names += len;
    }
  return out;
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

static void
dirs_pop (struct system_ctx *c, size_t keep)
{
  while (c->n_dirs > keep)
    {
      struct open_dir *d = &c->dirs[--c->n_dirs];
      free (d->path);
      close (d->fd);
    }
}

/* Where `path` (below the open source s) is resolved from: the deepest
 * open directory of s's that is it or holds it, else s itself; *rest is
 * the path after it ("" when it is the path).  Open directories that do
 * not hold it are closed: the walk is done with them. */
static int
anchor_of (struct system_ctx *c, const struct open_source *s,
           const char *path, const char **rest)
{
  size_t src = (size_t) (s - c->sources), keep = 0;

  while (keep < c->n_dirs && c->dirs[keep].source == src
         && path_is_under (path, c->dirs[keep].path))
    keep++;
  dirs_pop (c, keep);
  if (keep == 0)
    return s->fd; /* *rest is the path after the source already */
  *rest = path + strlen (c->dirs[keep - 1].path);
  return c->dirs[keep - 1].fd;
}

/* Keeps the directory `path` (below source s, opened as fd) open for what
 * is asked below it next; takes fd. */
static void
dirs_push (struct system_ctx *c, const struct open_source *s,
           const char *path, int fd)
{
  if (c->n_dirs == OPEN_DIRS_MAX)
    {
      close (fd);
      return;
    }
  c->dirs[c->n_dirs].path = xstrdup (path);
  c->dirs[c->n_dirs].source = (size_t) (s - c->sources);
  c->dirs[c->n_dirs++].fd = fd;
}

/* Opens `path` for good into *fd.  With follow, symlinks in it are
 * resolved first (real_path) and the result opened with none followed: a
 * component turned into a symlink since then is an error.  Without, the
 * path must lie below an open source and is opened through it, with no
 * symlink followed (it is then missing).  Either way a path below an open
 * source is opened through that source.  *fd is -1 (and *canonical NULL)
 * when the path does not exist. */
static int
open_fresh (struct system_ctx *c, const char *path, bool follow,
            char **canonical, int *fd, agentrt_error_t *err)
{
  cleanup_free char *real = follow ? real_path (path) : path_clean (path);
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

/* Single components are stat'ed where they are (a name of a directory
 * entry has no '/', and "." and ".." go through openat2, which keeps
 * them beneath); longer paths are opened without following anything. */
static int
stat_beneath (int dfd, const char *rest, struct stat *st)
{
  int fd;

  while (*rest == '/')
    rest++;
  if (*rest && strchr (rest, '/') == NULL && strcmp (rest, ".") != 0
      && strcmp (rest, "..") != 0)
    return fstatat (dfd, rest, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
  fd = openat2_resolve (dfd, rest, O_PATH | O_NOFOLLOW,
                        RESOLVE_BENEATH | NO_SYMLINKS);
  if (fd < 0)
    return fd;
  if (fstat (fd, st) < 0)
    fd = -errno;
  else
    {
      close (fd);
      fd = 0;
    }
  return fd;
}

static int
system_lookup (void *ctx, const char *path, struct host_node *node,
               char **target, agentrt_error_t *err)
{
  struct system_ctx *c = ctx;
  const char *rest = NULL;
  const struct open_source *s = source_of (c, path, &rest);
  struct stat st;
  int r;

  memset (node, 0, sizeof (*node));
  if (target)
    *target = NULL;
  if (s == NULL)
    r = lstat (path, &st) < 0 ? -errno : 0;
  else
    {
      int dfd = anchor_of (c, s, path, &rest);
      r = stat_beneath (dfd, rest, &st);
    }
  /* a symlink on the way (ELOOP), or the last component one */
  if (r == -ELOOP)
    st.st_mode = S_IFLNK;
  else if (r < 0)
    return is_missing (-r) ? 0 : agentrt_error (err, -r, "inspect `%s`", path);
  node_of (&st, node);
  if (node->kind == HOST_SYMLINK && target)
    *target = symlink_target (path);
  return 0;
}

static enum host_kind
dirent_kind (int dfd, unsigned char type, const char *name)
{
  struct stat st;

  switch (type)
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
      if (fstatat (dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return kind_of (st.st_mode);
      return HOST_OTHER;
    default:
      return HOST_OTHER;
    }
}

static bool
is_dot_or_dotdot (const char *name)
{
  return name[0] == '.'
         && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* Reads all of the open directory dfd's records into c's buffer: *len
 * bytes of them. */
static int
read_records (struct system_ctx *c, int dfd, size_t *len)
{
  ssize_t got;

  *len = 0;
  do
    {
      /* room for a few records more (never less than one fits: getdents
       * refuses a buffer smaller than the next record) */
      if (c->dirent_cap - *len < DIRENT_BUF_SIZE / 2)
        {
          c->dirent_cap = c->dirent_cap ? 2 * c->dirent_cap : DIRENT_BUF_SIZE;
          c->dirent_buf = xrealloc (c->dirent_buf, c->dirent_cap);
        }
      got = getdents64 (dfd, c->dirent_buf + *len, c->dirent_cap - *len);
      if (got > 0)
        *len += (size_t) got;
    }
  while (got > 0);
  return got < 0 ? -errno : 0;
}

/* The entries of the records read from dfd ("." and ".." left out), in
 * a listing's one allocation (host_dirents_pack). */
static struct host_dirent *
pack_records (int dfd, char *buf, size_t len, size_t *n)
{
  /* a record takes 24 bytes at least: 19 before the name, and 8-aligned */
  cleanup_free struct host_dirent *ents
      = xreallocarray (NULL, len / 24 + 1, sizeof (*ents));
  size_t count = 0;

  for (size_t off = 0; off < len;)
    {
      struct dirent64 *de = (struct dirent64 *) (buf + off);
      off += de->d_reclen;
      if (is_dot_or_dotdot (de->d_name))
        continue;
      ents[count].name = de->d_name;
      ents[count++].kind = dirent_kind (dfd, de->d_type, de->d_name);
    }
  *n = count;
  return host_dirents_pack (ents, count);
}

static int
system_list_dir (void *ctx, const char *dir, struct host_dirent **entries,
                 size_t *n, agentrt_error_t *err)
{
  struct system_ctx *c = ctx;
  const char *rest = NULL;
  const struct open_source *s = source_of (c, dir, &rest);
  cleanup_close int fd = -1;
  size_t len;
  int r, dfd;

  *entries = NULL;
  *n = 0;
  if (s == NULL)
    return agentrt_error (err, EINVAL, "list `%s`: not below a bind source",
                          dir);
  dfd = anchor_of (c, s, dir, &rest);
  r = openat2_resolve (dfd, rest, O_RDONLY | O_DIRECTORY,
                       RESOLVE_BENEATH | NO_SYMLINKS);
  /* listed as a directory a moment ago: it changed meanwhile, and what it
   * holds now cannot be judged (fail closed; another container renaming
   * things in a shared volume makes the create fail, not pass) */
  if (r == -ELOOP || r == -ENOENT || r == -ENOTDIR)
    return agentrt_error (err, -r, "`%s` changed while it was being "
                          "checked", dir);
  if (r < 0)
    return agentrt_error (err, -r, "open directory `%s`", dir);
  fd = r;
  r = read_records (c, fd, &len);
  if (r < 0)
    return agentrt_error (err, -r, "read directory `%s`", dir);
  *entries = pack_records (fd, c->dirent_buf, len, n);
  /* what is asked next is below it (the walk goes depth first) */
  if (rest[0] != '\0' && strcmp (rest, "/") != 0)
    dirs_push (c, s, dir, steal_fd (&fd));
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
      cleanup_free char *real = real_path (dir);
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
host_view_system_scanned (struct host_view *view)
{
  if (view->ctx)
    dirs_pop (view->ctx, 0);
}

void
host_view_system_release (struct host_view *view)
{
  struct system_ctx *c = view->ctx;

  if (c == NULL)
    return;
  dirs_pop (c, 0);
  for (size_t i = 0; i < c->n_sources; i++)
    {
      free (c->sources[i].canonical);
      close (c->sources[i].fd);
    }
  free (c->sources);
  str_list_free (&c->homes);
  str_list_free (&c->private_dirs);
  free (c->dirent_buf);
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
