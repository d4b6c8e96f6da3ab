/* Opening the audit trail safely (see audit_open.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/audit_open.h"
#include "runtime/rootless.h"

int
audit_judge (const struct stat *st, enum audit_node node, uid_t euid,
             uid_t unmapped, char *why, size_t size)
{
  unsigned mode = (unsigned) st->st_mode & 07777;

  if (S_ISLNK (st->st_mode))
    snprintf (why, size, "is a symlink (not followed)");
  else if (node != AUDIT_FILE && !S_ISDIR (st->st_mode))
    snprintf (why, size, "is not a directory");
  else if (node == AUDIT_FILE && !S_ISREG (st->st_mode))
    snprintf (why, size, "is not a regular file");
  else if (st->st_uid != 0 && st->st_uid != euid
           && !(node == AUDIT_ANCESTOR && st->st_uid == unmapped))
    snprintf (why, size, "is owned by uid %u, not by root or the runtime "
              "(uid %u)", (unsigned) st->st_uid, (unsigned) euid);
  else if (node != AUDIT_ANCESTOR && (mode & (S_IWGRP | S_IWOTH)))
    snprintf (why, size, "is writable by %s (mode %04o)",
              mode & S_IWOTH ? "anyone" : "its group", mode);
  else if (node == AUDIT_FILE && st->st_nlink != 1)
    snprintf (why, size, "has %lu links (another name for the same file "
              "exists)", (unsigned long) st->st_nlink);
  else
    return 0;
  return -1;
}

/* Judges the node at fd, `path` (its first len bytes) for the message. */
static int
judge_fd (int fd, enum audit_node node, const char *path, int len,
          agentrt_error_t *err)
{
  struct stat st;
  char why[128];

  if (fstat (fd, &st) < 0)
    return agentrt_error (err, errno, "audit: stat `%.*s`", len, path);
  if (audit_judge (&st, node, geteuid (), rootless_unmapped_uid (), why,
                   sizeof why) < 0)
    return agentrt_error (err, 0, "audit: `%.*s` %s", len, path, why);
  return 0;
}

/* Opens one component below parent as an O_PATH fd that is never a
 * followed symlink (a symlink is opened as itself, and judged as one). */
static int
open_component (int parent, const char *name, bool create, const char *path,
                int len, agentrt_error_t *err)
{
  int fd = openat (parent, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

  if (fd < 0 && errno == ENOENT && create)
    {
      if (mkdirat (parent, name, 0700) < 0 && errno != EEXIST)
        return agentrt_error (err, errno, "audit: mkdir `%.*s`", len, path);
      fd = openat (parent, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    }
  if (fd < 0)
    return agentrt_error (err, errno, "audit: open `%.*s`", len, path);
  return fd;
}

/* The audit dir, walked from `/` one component at a time. */
static int
open_dir (const char *dir, bool create, agentrt_error_t *err)
{
  cleanup_close int fd = -1;
  const char *p = dir;

  if (dir[0] != '/')
    return agentrt_error (err, EINVAL, "audit: `%s` is not an absolute path",
                          dir);
  fd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return agentrt_error (err, errno, "audit: open `/`");
  for (;;)
    {
      cleanup_free char *name = NULL;
      size_t n;
      bool last;
      int sub;

      p += strspn (p, "/");
      n = strcspn (p, "/");
      if (n == 0)
        break;
      name = xstrndup (p, n);
      last = p[n + strspn (p + n, "/")] == '\0';
      if (strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
        return agentrt_error (err, EINVAL, "audit: `%s` has a `%s` component",
                              dir, name);
      sub = open_component (fd, name, last && create, dir, (int) (p + n - dir),
                            err);
      if (sub < 0)
        return -1;
      close (fd);
      fd = sub;
      p += n;
      if (!last && judge_fd (fd, AUDIT_ANCESTOR, dir, (int) (p - dir), err) < 0)
        return -1;
    }
  if (judge_fd (fd, AUDIT_DIR, dir, (int) strlen (dir), err) < 0)
    return -1;
  return steal_fd (&fd);
}

char *
audit_path (const char *dir, const char *id)
{
  return xasprintf ("%s/%s.jsonl", dir, id);
}

/* A trail in the dir at dirfd: O_NOFOLLOW and O_NONBLOCK (a FIFO planted
 * there must not block the open), then judged on its fd; path is for
 * messages. */
static int
open_in_dir (int dirfd, const char *name, const char *path, int flags,
             agentrt_error_t *err)
{
  cleanup_close int fd = -1;
  struct stat st;
  char why[128];

  fd = openat (dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY
                                | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int saved = errno;
      /* say what is there instead, when something is */
      if (saved != ENOENT && fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
          && audit_judge (&st, AUDIT_FILE, geteuid (),
                          rootless_unmapped_uid (), why, sizeof why) < 0)
        return agentrt_error (err, 0, "audit: `%s` %s", path, why);
      return agentrt_error (err, saved, "audit: open `%s`", path);
    }
  if (judge_fd (fd, AUDIT_FILE, path, (int) strlen (path), err) < 0)
    return -1;
  if (fcntl (fd, F_SETFL, flags & (O_APPEND)) < 0)
    return agentrt_error (err, errno, "audit: `%s`: fcntl", path);
  return steal_fd (&fd);
}

static int
open_trail (const char *dir, const char *id, int flags, agentrt_error_t *err)
{
  cleanup_free char *path = audit_path (dir, id);
  cleanup_free char *name = xasprintf ("%s.jsonl", id);
  cleanup_close int dirfd = -1;

  if (strchr (id, '/') || id[0] == '.' || id[0] == '\0')
    return agentrt_error (err, EINVAL, "audit: invalid container id `%s`", id);
  dirfd = open_dir (dir, flags & O_CREAT, err);
  if (dirfd < 0)
    return -1;
  return open_in_dir (dirfd, name, path, flags, err);
}

int
audit_open (const char *dir, const char *id, agentrt_error_t *err)
{
  return open_trail (dir, id, O_WRONLY | O_APPEND | O_CREAT, err);
}

int
audit_open_read (const char *dir, const char *id, agentrt_error_t *err)
{
  return open_trail (dir, id, O_RDONLY, err);
}

int
audit_open_dir (const char *dir, agentrt_error_t *err)
{
  cleanup_close int pathfd = open_dir (dir, false, err);
  int fd;

  if (pathfd < 0)
    return -1;
  fd = openat (pathfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return agentrt_error (err, errno, "audit: open `%s`", dir);
  return fd;
}

int
audit_open_read_at (int dirfd, const char *dir, const char *name,
                    agentrt_error_t *err)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, name);
  return open_in_dir (dirfd, name, path, O_RDONLY, err);
}
