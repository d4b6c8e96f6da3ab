/* Unit tests of common/io.c's readers: a file over the limit, at it, empty;
 * a pipe and a /proc file (no size to go by); a FIFO nobody writes; a
 * directory. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "unit.h"

static char dir[] = "/tmp/agentrt-test-io-XXXXXX";

static char *
file_of (const char *name, size_t size)
{
  static char path[256];
  int fd;

  snprintf (path, sizeof path, "%s/%s", dir, name);
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  for (size_t i = 0; fd >= 0 && i < size; i++)
    if (write (fd, "x", 1) != 1)
      break;
  if (fd >= 0)
    close (fd);
  return path;
}

static void
test_sizes (void)
{
  char *buf;

  buf = io_read_small_file (file_of ("at", 100), 100);
  CHECK (buf && strlen (buf) == 100);
  free (buf);
  errno = 0;
  CHECK (io_read_small_file (file_of ("over", 101), 100) == NULL && errno == EFBIG);
  /* the first guess comes from the size: far over the limit too */
  errno = 0;
  CHECK (io_read_small_file (file_of ("far", 100000), 100) == NULL && errno == EFBIG);
  buf = io_read_small_file (file_of ("empty", 0), 100);
  CHECK (buf && buf[0] == '\0');
  free (buf);
  /* larger than the first 4096-byte guess of a file without a size */
  buf = io_read_small_file (file_of ("big", 70000), 70000);
  CHECK (buf && strlen (buf) == 70000);
  free (buf);
}

static void
test_without_a_size (void)
{
  char *buf;
  size_t len = 0;
  int p[2];
  char chunk[1000];

  /* /proc files say 0 bytes */
  buf = io_read_small_file ("/proc/self/status", 1 << 16);
  CHECK (buf && strstr (buf, "Name:") != NULL);
  free (buf);
  errno = 0;
  CHECK (io_read_small_file ("/proc/self/status", 10) == NULL && errno == EFBIG);

  /* a pipe: read to its end, and refused past the limit */
  memset (chunk, 'p', sizeof chunk);
  CHECK (pipe (p) == 0);
  CHECK (write (p[1], chunk, sizeof chunk) == (ssize_t) sizeof chunk);
  close (p[1]);
  CHECK (io_read_all (p[0], sizeof chunk, &buf, &len) == 0 && len == sizeof chunk);
  free (buf);
  close (p[0]);
  CHECK (pipe (p) == 0);
  CHECK (write (p[1], chunk, sizeof chunk) == (ssize_t) sizeof chunk);
  close (p[1]);
  buf = (char *) "untouched";
  CHECK (io_read_all (p[0], sizeof chunk - 1, &buf, &len) < 0 && errno == EFBIG
         && buf == NULL);
  close (p[0]);
}

static void
test_other_kinds (void)
{
  char fifo[256];

  /* a FIFO nobody writes to: no wait (O_NONBLOCK), nothing read */
  snprintf (fifo, sizeof fifo, "%s/fifo", dir);
  CHECK (mkfifo (fifo, 0600) == 0);
  char *buf = io_read_small_file (fifo, 100);
  CHECK (buf && buf[0] == '\0');
  free (buf);
  unlink (fifo);
  /* a directory cannot be read */
  errno = 0;
  CHECK (io_read_small_file (dir, 100) == NULL && errno == EISDIR);
  CHECK (io_read_small_file ("/nonexistent/x", 100) == NULL && errno == ENOENT);
}

int
main (void)
{
  if (mkdtemp (dir) == NULL)
    return 99;
  RUN_TEST (test_sizes);
  RUN_TEST (test_without_a_size);
  RUN_TEST (test_other_kinds);
  for (const char *n = "at\0over\0far\0empty\0big\0"; *n; n += strlen (n) + 1)
    unlink (file_of (n, 0));
  rmdir (dir);
  return UNIT_EXIT ();
}
