/* realpath(3) with one openat2 when no symlink is on the way (see
 * real_path.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/openat2.h"
#include "common/real_path.h"
#include "common/xalloc.h"

/* Absolute, with no "." or ".." component (what the kernel walks is then
 * what the string says, component by component), and of three components
 * or more (realpath's readlinks of a shorter one cost no more than an open
 * and a close). */
static bool
worth_one_open (const char *path)
{
  size_t components = 0;

  if (path[0] != '/')
    return false;
  for (const char *p = path; *p;)
    {
      size_t len;
      while (*p == '/')
        p++;
      len = strcspn (p, "/");
      if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
        return false;
      components += len > 0;
      p += len;
    }
  return components >= 3;
}

/* path with repeated and trailing slashes dropped ("/" stays). */
static char *
squeeze_slashes (const char *path)
{
  char *out = xmalloc (strlen (path) + 1), *o = out;

  for (const char *p = path; *p; p++)
    if (*p != '/' || o == out || o[-1] != '/')
      *o++ = *p;
  if (o > out + 1 && o[-1] == '/')
    o--;
  *o = '\0';
  return out;
}

char *
real_path (const char *path)
{
  int fd;

  if (!worth_one_open (path))
    return realpath (path, NULL);
  fd = openat2_resolve (AT_FDCWD, path, O_PATH, RESOLVE_NO_SYMLINKS);
  if (fd >= 0)
    {
      close (fd);
      return squeeze_slashes (path);
    }
  /* missing before any symlink: realpath stops at the same component */
  if (fd == -ENOENT || fd == -ENOTDIR)
    {
      errno = -fd;
      return NULL;
    }
  return realpath (path, NULL); /* a symlink on the way, or a denial */
}
