/* Child-side installation of compiled seccomp programs (see
 * seccomp_load.h): plain syscalls only. */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/seccomp/seccomp_load.h"

int
seccomp_program_load (const struct seccomp_program *program, int *listener_fd)
{
  struct sock_fprog fprog = {
    .len = program->len,
    .filter = program->insns,
  };
  long ret;

  *listener_fd = -1;
  ret = syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, program->flags, &fprog);
  if (ret < 0)
    return -errno;
  if (program->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)
    *listener_fd = (int) ret;
  return 0;
}

int
seccomp_programs_load (const struct seccomp_program *const *programs,
                       size_t n, int *listener_fd)
{
  size_t i, listeners = 0;
  int ret;

  *listener_fd = -1;
  for (i = 0; i < n; i++)
    if (programs[i] && (programs[i]->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER))
      listeners++;
  if (listeners > 1)
    return -EBUSY;

  for (i = 0; i < n; i++)
    {
      int fd;

      if (programs[i] == NULL)
        continue;
      ret = seccomp_program_load (programs[i], &fd);
      if (ret < 0)
        {
          if (*listener_fd >= 0)
            close (*listener_fd);
          *listener_fd = -1;
          return ret;
        }
      if (fd >= 0)
        *listener_fd = fd;
    }
  return 0;
}
