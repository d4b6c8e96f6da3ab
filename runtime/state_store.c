/* State directories under --root (see state_store.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/state_store.h"

bool
state_id_valid (const char *id)
{
  size_t len = strlen (id), i;
  /* a leading dot is reserved for agentrt's own entries under --root */
  if (len == 0 || len > 1024 || id[0] == '.')
    return false;
  for (i = 0; i < len; i++)
    {
      char c = id[i];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (c >= '0' && c <= '9') || c == '_' || c == '+' || c == '-'
            || c == '.'))
        return false;
    }
  return true;
}

static int
mkdir_p (const char *path, mode_t mode, agentrt_error_t *err)
{
  cleanup_free char *copy = xstrdup (path);
  char *p;
  for (p = copy + 1; *p; p++)
    {
      if (*p != '/')
        continue;
      *p = '\0';
      if (mkdir (copy, mode) < 0 && errno != EEXIST)
        return agentrt_error (err, errno, "mkdir `%s`", copy);
      *p = '/';
    }
  if (mkdir (copy, mode) < 0 && errno != EEXIST)
    return agentrt_error (err, errno, "mkdir `%s`", copy);
  return 0;
}

static int
lock_dir (int dirfd, const char *path, agentrt_error_t *err)
{
  struct stat st;
  while (flock (dirfd, LOCK_EX) < 0)
    if (errno != EINTR)
      return agentrt_error (err, errno, "lock `%s`", path);
  /* A concurrent delete may have removed the directory while we waited. */
  if (fstat (dirfd, &st) < 0)
    return agentrt_error (err, errno, "stat `%s`", path);
  if (st.st_nlink == 0)
    return agentrt_error (err, ENOENT, "state directory `%s` was removed", path);
  return 0;
}

int
state_root_create (const char *root, agentrt_error_t *err)
{
  return mkdir_p (root, 0700, err);
}

int
state_dir_create (const char *root, const char *id, struct state_dir *out,
                  agentrt_error_t *err)
{
  cleanup_free char *tmpname = NULL;
  cleanup_close int rootfd = -1;
  cleanup_close int dirfd = -1;

  if (!state_id_valid (id))
    return agentrt_error (err, 0, "invalid container id `%s`", id);
  if (state_root_create (root, err) < 0)
    return -1;
  rootfd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    return agentrt_error (err, errno, "open state root `%s`", root);

  /* Build it under a private name, lock it, then publish it with a rename
   * that refuses to replace: nobody ever sees it unlocked. */
  tmpname = xasprintf (".new-%s-%d", id, getpid ());
  if (mkdirat (rootfd, tmpname, 0700) < 0)
    return agentrt_error (err, errno, "mkdir `%s/%s`", root, tmpname);
  dirfd = openat (rootfd, tmpname, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0 || flock (dirfd, LOCK_EX) < 0)
    {
      int e = errno;
      unlinkat (rootfd, tmpname, AT_REMOVEDIR);
      return agentrt_error (err, e, "open `%s/%s`", root, tmpname);
    }
  if (renameat2 (rootfd, tmpname, rootfd, id, RENAME_NOREPLACE) < 0)
    {
      int e = errno;
      unlinkat (rootfd, tmpname, AT_REMOVEDIR);
      if (e == EEXIST || e == ENOTEMPTY)
        return agentrt_error (err, EEXIST, "container with id exists: %s", id);
      return agentrt_error (err, e, "rename state directory for `%s`", id);
    }
  out->dirfd = steal_fd (&dirfd);
  out->path = xasprintf ("%s/%s", root, id);
  out->id = xstrdup (id);
  return 0;
}

int
state_dir_open (const char *root, const char *id, struct state_dir *out,
                agentrt_error_t *err)
{
  cleanup_free char *path = NULL;
  cleanup_close int dirfd = -1;

  if (!state_id_valid (id))
    return agentrt_error (err, 0, "invalid container id `%s`", id);
  path = xasprintf ("%s/%s", root, id);
  dirfd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (dirfd < 0)
    {
      if (errno == ENOENT)
        return agentrt_error (err, ENOENT, "container `%s` does not exist", id);
      return agentrt_error (err, errno, "open `%s`", path);
    }
  if (lock_dir (dirfd, path, err) < 0)
    {
      if ((*err)->status == ENOENT)
        return agentrt_error (err, ENOENT, "container `%s` does not exist", id);
      return -1;
    }
  out->dirfd = steal_fd (&dirfd);
  out->path = steal_pointer (&path);
  out->id = xstrdup (id);
  return 0;
}

void
state_dir_close (struct state_dir *dir)
{
  if (dir->dirfd >= 0)
    close (dir->dirfd);
  dir->dirfd = -1;
  free (dir->path);
  free (dir->id);
  dir->path = dir->id = NULL;
}

int
state_dir_write (struct state_dir *dir, const char *name, const char *data,
                 size_t len, agentrt_error_t *err)
{
  cleanup_free char *tmp = xasprintf (".%s.tmp", name);
  cleanup_close int fd = -1;
  size_t off = 0;

  fd = openat (dir->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return agentrt_error (err, errno, "write `%s/%s`", dir->path, name);
  while (off < len)
    {
      ssize_t n = write (fd, data + off, len - off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int e = n < 0 ? errno : ENOSPC;
          unlinkat (dir->dirfd, tmp, 0);
          return agentrt_error (err, e, "write `%s/%s`", dir->path, name);
        }
      off += (size_t) n;
    }
  if (close (steal_fd (&fd)) < 0 || renameat (dir->dirfd, tmp, dir->dirfd, name) < 0)
    {
      int e = errno;
      unlinkat (dir->dirfd, tmp, 0);
      return agentrt_error (err, e, "write `%s/%s`", dir->path, name);
    }
  return 0;
}

int
state_dir_save (struct state_dir *dir, const struct container_state *state,
                agentrt_error_t *err)
{
  cleanup_free char *json = container_state_to_json (state, err);
  if (json == NULL)
    return -1;
  return state_dir_write (dir, STATE_FILE, json, strlen (json), err);
}

char *
state_dir_read (struct state_dir *dir, const char *name, size_t *len,
                agentrt_error_t *err)
{
  cleanup_close int fd = -1;
  cleanup_free char *buf = NULL;
  size_t size = 0, cap = 4096;
  struct stat st;

  fd = openat (dir->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return agentrt_error (err, errno, "read `%s/%s`", dir->path, name), NULL;
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    return agentrt_error (err, 0, "`%s/%s` is not a regular file",
                          dir->path, name), NULL;
  if (st.st_size > 0)
    cap = (size_t) st.st_size + 1;
  buf = xmalloc (cap);
  for (;;)
    {
      ssize_t n = read (fd, buf + size, cap - size - 1);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return agentrt_error (err, errno, "read `%s/%s`", dir->path, name), NULL;
      if (n == 0)
        break;
      size += (size_t) n;
      if (size + 1 == cap)
        buf = xrealloc (buf, cap *= 2);
    }
  buf[size] = '\0';
  if (len)
    *len = size;
  return steal_pointer (&buf);
}

struct container_state *
state_dir_load (struct state_dir *dir, agentrt_error_t *err)
{
  cleanup_free char *json = NULL;
  struct container_state *state;
  size_t len;

  json = state_dir_read (dir, STATE_FILE, &len, err);
  if (json == NULL)
    return NULL;
  state = container_state_parse (json, len, err);
  if (state == NULL)
    agentrt_error_wrap (err, "`%s/%s`", dir->path, STATE_FILE);
  return state;
}

int
state_dir_remove (struct state_dir *dir, agentrt_error_t *err)
{
  cleanup_dir DIR *d = NULL;
  struct dirent *de;
  int fd;

  fd = dup (dir->dirfd);
  if (fd < 0 || (d = fdopendir (fd)) == NULL)
    {
      if (fd >= 0)
        close (fd);
      return agentrt_error (err, errno, "open `%s`", dir->path);
    }
  while ((de = readdir (d)) != NULL)
    {
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (unlinkat (dir->dirfd, de->d_name, 0) < 0 && errno != ENOENT)
        return agentrt_error (err, errno, "remove `%s/%s`", dir->path,
                              de->d_name);
    }
  if (rmdir (dir->path) < 0 && errno != ENOENT)
    return agentrt_error (err, errno, "remove `%s`", dir->path);
  state_dir_close (dir);
  return 0;
}

static int
compare_strings (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

int
state_list_ids (const char *root, char ***ids, size_t *n, agentrt_error_t *err)
{
  cleanup_dir DIR *d = opendir (root);
  struct dirent *de;
  char **list = NULL;
  size_t len = 0;

  *ids = NULL;
  *n = 0;
  if (d == NULL)
    return errno == ENOENT ? 0 : agentrt_error (err, errno, "open `%s`", root);
  while ((de = readdir (d)) != NULL)
    {
      if (de->d_name[0] == '.' || !state_id_valid (de->d_name))
        continue;
      if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
        continue;
      list = xreallocarray (list, len + 1, sizeof *list);
      list[len++] = xstrdup (de->d_name);
    }
  if (len > 1)
    qsort (list, len, sizeof *list, compare_strings);
  *ids = list;
  *n = len;
  return 0;
}
