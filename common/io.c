/* Writing a buffer whole, reading a small file whole (see io.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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

char *
io_read_small_file (const char *path, size_t max)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  char *buf;
  size_t len = 0;
  int saved;

  if (fd < 0)
    return NULL;
  buf = malloc (max + 1);
  if (buf == NULL)
    {
      close (fd);
      return NULL;
    }
  for (;;)
    {
      ssize_t n = read (fd, buf + len, max + 1 - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          saved = n < 0 ? errno : 0;
          break;
        }
      len += (size_t) n;
      if (len > max)
        {
          saved = EFBIG;
          break;
        }
    }
  close (fd);
  if (saved)
    {
      free (buf);
      errno = saved;
      return NULL;
    }
  buf[len] = '\0';
  return buf;
}
