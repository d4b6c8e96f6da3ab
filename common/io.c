/* Writing a buffer whole, reading a file whole, opening a regular file
 * only (see io.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

int
io_write_all (int fd, const void *buf, size_t len, size_t *done)
{
  const char *p = buf;
  size_t off = 0;

  while (off < len)
    {
      ssize_t n = write (fd, p + off, len - off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = EIO;
          break;
        }
      off += (size_t) n;
    }
  if (done)
    *done = off;
  return off == len ? 0 : -1;
}

int
io_read_all (int fd, size_t max, char **out, size_t *len)
{
  struct stat st;
  size_t cap = 4096, got = 0;
  char *buf, *bigger;

  *out = NULL;
  *len = 0;
  /* a regular file's size is a good first guess; /proc files say 0 */
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0)
    cap = (uint64_t) st.st_size < max ? (size_t) st.st_size + 2 : max + 2;
  if (cap > max + 2)
    cap = max + 2;
  buf = malloc (cap);
  if (buf == NULL)
    return -1;
  for (;;)
    {
      ssize_t n;
      if (got + 1 == cap)
        {
          /* full, and read once more than max allows: too large */
          if (got > max)
            break;
          cap = cap <= (max + 2) / 2 ? cap * 2 : max + 2;
          if ((bigger = realloc (buf, cap)) == NULL)
            {
              free (buf);
              return -1;
            }
          buf = bigger;
        }
      n = read (fd, buf + got, cap - 1 - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          free (buf);
          errno = saved;
          return -1;
        }
      if (n == 0)
        break;
      got += (size_t) n;
    }
  if (got > max)
    {
      free (buf);
      errno = EFBIG;
      return -1;
    }
  buf[got] = '\0';
  *out = buf;
  *len = got;
  return 0;
}

char *
io_read_small_file (const char *path, size_t max)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  char *buf;
  size_t len;
  int r, saved;

  if (fd < 0)
    return NULL;
  r = io_read_all (fd, max, &buf, &len);
  saved = errno;
  close (fd);
  errno = saved;
  return r < 0 ? NULL : buf;
}

int
io_open_regular (int pathfd)
{
  struct stat st;
  char proc[64];
  int fd, saved;

  if (pathfd < 0)
    return -1;
  if (fstat (pathfd, &st) < 0)
    fd = -1;
  else if (!S_ISREG (st.st_mode))
    {
      errno = EINVAL;
      fd = -1;
    }
  else
    {
      snprintf (proc, sizeof proc, "/proc/self/fd/%d", pathfd);
      fd = open (proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    }
  saved = errno;
  close (pathfd);
  errno = saved;
  return fd;
}
