/* Loading the embedded exec stub into a sealed memfd (see exec_stub.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/exec_stub.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

int
exec_stub_memfd (agentrt_error_t *err)
{
  cleanup_close int fd = memfd_create ("agentrt-exec-stub",
                                       MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  size_t off = 0;

  if (fd < 0 && errno == EINVAL) /* kernels before 6.3 know no MFD_EXEC */
    fd = memfd_create ("agentrt-exec-stub", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return agentrt_error (err, errno, "exec stub: memfd_create");
  while (off < exec_stub_image_size)
    {
      ssize_t n = write (fd, exec_stub_image + off, exec_stub_image_size - off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return agentrt_error (err, n < 0 ? errno : EIO, "exec stub: write");
      off += (size_t) n;
    }
  if (fcntl (fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW
                                  | F_SEAL_WRITE) < 0)
    return agentrt_error (err, errno, "exec stub: seal");
  return steal_fd (&fd);
}

void
exec_stub_run (int stub_fd, char *const stub_argv[], char *const envp[])
{
  syscall (SYS_execveat, stub_fd, "", stub_argv, envp, AT_EMPTY_PATH);
}
