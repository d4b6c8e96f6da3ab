/* The real host view (see host_view.h): realpath, lstat and one readdir
 * pass.  The only file of runtime/policy/ that touches the filesystem;
 * the hardening step itself stays pure. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "host_view.h"

static enum host_kind
kind_of (mode_t mode)
{
  if (S_ISREG (mode))
    return HOST_FILE;
  if (S_ISDIR (mode))
    return HOST_DIR;
  if (S_ISSOCK (mode))
    return HOST_SOCKET;
  return HOST_OTHER;
}

static bool
is_missing (int e)
{
  return e == ENOENT || e == ENOTDIR;
}

static int
system_resolve (void *ctx, const char *path, char **canonical,
                enum host_kind *kind, agentrt_error_t *err)
{
  const char *bundle = ctx;
  cleanup_free char *full = path[0] == '/' ? xstrdup (path)
                                           : xasprintf ("%s/%s", bundle, path);
  cleanup_free char *real = realpath (full, NULL);
  struct stat st;

  *canonical = NULL;
  *kind = HOST_MISSING;
  if (real == NULL)
    {
      if (is_missing (errno))
        return 0;
      return agentrt_error (err, errno, "resolve `%s`", full);
    }
  if (stat (real, &st) < 0)
    {
      if (is_missing (errno))
        return 0;
      return agentrt_error (err, errno, "stat `%s`", real);
    }
  *kind = kind_of (st.st_mode);
  *canonical = steal_pointer (&real);
  return 0;
}

static int
system_exists (void *ctx, const char *path, bool *exists,
               agentrt_error_t *err)
{
  struct stat st;

  *exists = lstat (path, &st) == 0;
  if (!*exists && !is_missing (errno))
    return agentrt_error (err, errno, "lstat `%s`", path);
  return 0;
}

static int
entry_type (int dfd, const struct dirent *de)
{
  struct stat st;

  if (de->d_type != DT_UNKNOWN)
    return de->d_type;
  if (fstatat (dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return DT_UNKNOWN;
  return S_ISDIR (st.st_mode) ? DT_DIR : S_ISSOCK (st.st_mode) ? DT_SOCK
                                                               : DT_REG;
}

static int
system_scan_dir (void *ctx, const char *dir, struct str_list *subdirs,
                 bool *has_socket, agentrt_error_t *err)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  cleanup_dir DIR *d = NULL;
  struct dirent *de;

  *has_socket = false;
  if (fd < 0)
    return agentrt_error (err, errno, "open directory `%s`", dir);
  d = fdopendir (fd);
  if (d == NULL)
    {
      int e = errno;
      close (fd);
      return agentrt_error (err, e, "read directory `%s`", dir);
    }
  errno = 0;
  while ((de = readdir (d)) != NULL)
    {
      int type;
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      type = entry_type (dirfd (d), de);
      if (type == DT_DIR)
        str_list_append (subdirs, de->d_name);
      else if (type == DT_SOCK)
        *has_socket = true;
      errno = 0;
    }
  if (errno != 0)
    return agentrt_error (err, errno, "read directory `%s`", dir);
  return 0;
}

void
host_view_system (struct host_view *view, const char *bundle_dir)
{
  view->ctx = (void *) bundle_dir;
  view->resolve = system_resolve;
  view->exists = system_exists;
  view->scan_dir = system_scan_dir;
}
