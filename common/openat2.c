/* openat2 with a resolve mask (see openat2.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/openat2.h"

int
openat2_resolve (int dirfd, const char *path, int flags,
                 unsigned long long resolve)
{
  struct open_how how;
  int fd;

  memset (&how, 0, sizeof how);
  how.flags = (unsigned long long) (flags | O_CLOEXEC);
  how.resolve = resolve;
  while (dirfd != AT_FDCWD && *path == '/')
    path++;
  if (*path == '\0')
    path = ".";
  do
    fd = (int) syscall (SYS_openat2, dirfd, path, &how, sizeof how);
  while (fd < 0 && (errno == EINTR || errno == EAGAIN));
  return fd < 0 ? -errno : fd;
}
