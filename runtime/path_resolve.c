/* Safe path resolution inside the rootfs (see path_resolve.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/io.h"
#include "common/openat2.h"
#include "runtime/path_resolve.h"

#define PATH_BUF 4096

int
path_open_in_root (int rootfd, const char *path, int flags)
{
  return openat2_resolve (rootfd, path, flags,
                        RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
}

int
path_open_in_root_nofollow (int rootfd, const char *path, int flags)
{
  return openat2_resolve (rootfd, path, flags,
                        RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
                            | RESOLVE_NO_MAGICLINKS);
}

int
path_open_regular_in_root (int rootfd, const char *path)
{
  int pathfd = path_open_in_root (rootfd, path, O_PATH), fd;

  if (pathfd < 0)
    return pathfd;
  fd = io_open_regular (pathfd);
  return fd < 0 ? -errno : fd;
}

static int
create_final (int parentfd, const char *name, enum path_kind kind)
{
  int r;
  if (kind == PATH_KIND_DIR)
    r = mkdirat (parentfd, name, 0755);
  else
    {
      r = openat (parentfd, name,
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (r >= 0)
        {
          close (r);
          r = 0;
        }
    }
  return r < 0 ? -errno : 0;
}

/* Replaces the component at buf[start..end) (a dangling symlink whose
 * target `link` is relative to the component's directory, or absolute) by
 * the target, keeping the rest of the path. */
static int
splice_link (char *buf, size_t bufsize, size_t start, size_t end,
             const char *link)
{
  char tmp[PATH_BUF];
  size_t prefix = link[0] == '/' ? 0 : start;
  int n = snprintf (tmp, sizeof tmp, "%.*s%s%s", (int) prefix, buf, link,
                    buf + end);
  if (n < 0 || (size_t) n >= sizeof tmp || (size_t) n >= bufsize)
    return -ENAMETOOLONG;
  memcpy (buf, tmp, (size_t) n + 1);
  return 0;
}

int
path_ensure_in_root (int rootfd, const char *path, enum path_kind kind)
{
  char buf[PATH_BUF];
  size_t len, i, start;
  int parentfd, fd, r, hops = 0;

  fd = path_open_in_root (rootfd, path, O_PATH);
  if (fd >= 0 || fd != -ENOENT)
    return fd;

  len = strlen (path);
  if (len + 1 > sizeof buf)
    return -ENAMETOOLONG;
  memcpy (buf, path, len + 1);

restart:
  /* Walk the components from the root; each existing prefix is resolved
   * inside the root again, so a symlink never leads out of it. */
  len = strlen (buf);
  parentfd = path_open_in_root (rootfd, "/", O_PATH | O_DIRECTORY);
  if (parentfd < 0)
    return parentfd;
  for (i = 0; i <= len;)
    {
      bool last;
      char saved;

      while (i < len && buf[i] == '/')
        i++;
      if (i >= len)
        break;
      start = i;
      while (i < len && buf[i] != '/')
        i++;
      saved = buf[i];
      buf[i] = '\0';
      last = (saved == '\0') || strspn (buf + i + 1, "/") == len - i - 1;
      fd = path_open_in_root (rootfd, buf, O_PATH);
      if (fd == -ENOENT)
        {
          if (strcmp (buf + start, "..") == 0 || strcmp (buf + start, ".") == 0)
            {
              close (parentfd);
              return -ENOENT;
            }
          r = create_final (parentfd, buf + start,
                            last ? kind : PATH_KIND_DIR);
          if (r == -EEXIST)
            {
              /* A dangling symlink: create what it points to, inside the
               * root, like the images that link /etc/resolv.conf expect. */
              char link[PATH_BUF];
              ssize_t n = readlinkat (parentfd, buf + start, link,
                                      sizeof link - 1);
              close (parentfd);
              if (n < 0)
                return -errno;
              link[n] = '\0';
              buf[i] = saved;
              if (++hops > 40)
                return -ELOOP;
              r = splice_link (buf, sizeof buf, start, i, link);
              if (r < 0)
                return r;
              goto restart;
            }
          if (r < 0)
            {
              close (parentfd);
              return r;
            }
          fd = path_open_in_root (rootfd, buf, O_PATH);
        }
      close (parentfd);
      if (fd < 0)
        return fd;
      parentfd = fd;
      buf[i] = saved;
      if (last)
        break;
    }
  return parentfd;
}
