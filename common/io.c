/* Writing a buffer whole (see io.h). */
#include "config.h"

#include <errno.h>
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
