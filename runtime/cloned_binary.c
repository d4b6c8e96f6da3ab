/* Running from a sealed copy of the agentrt binary (see cloned_binary.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/cloned_binary.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

extern char **environ;

/* The original path travels through the re-exec in the environment, and is
 * taken out of it at once so that nothing started later inherits it. */
#define ORIGIN_ENV "_AGENTRT_ORIGIN"

const char *
cloned_binary_origin (void)
{
  static char origin[4096];
  static bool done;

  if (!done)
    {
      const char *env = getenv (ORIGIN_ENV);
      ssize_t n;
      done = true;
      if (env && strlen (env) < sizeof origin)
        strcpy (origin, env);
      else if ((n = readlink ("/proc/self/exe", origin, sizeof origin - 1)) > 0)
        origin[n] = '\0';
      unsetenv (ORIGIN_ENV);
    }
  return origin[0] == '/' ? origin : NULL;
}

static bool
image_is_safe (int exe)
{
  struct statvfs sv;
  int seals = fcntl (exe, F_GET_SEALS);
  if (seals >= 0 && (seals & SEALS) == SEALS)
    return true; /* already a sealed copy */
  return fstatvfs (exe, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

static int
sealed_copy (int exe, agentrt_error_t *err)
{
  cleanup_close int fd = -1;
  struct stat st;
  off_t off = 0;

  if (fstat (exe, &st) < 0)
    return agentrt_error (err, errno, "stat /proc/self/exe");
  fd = memfd_create ("agentrt", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && errno == EINVAL) /* kernels before 6.3 know no MFD_EXEC */
    fd = memfd_create ("agentrt", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return agentrt_error (err, errno, "memfd_create");
  while (off < st.st_size)
    {
      ssize_t n = sendfile (fd, exe, &off, (size_t) (st.st_size - off));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return agentrt_error (err, n < 0 ? errno : EIO, "copy the agentrt "
                              "binary");
    }
  if (fcntl (fd, F_ADD_SEALS, SEALS) < 0)
    return agentrt_error (err, errno, "seal the agentrt copy");
  return steal_fd (&fd);
}

int
cloned_binary_ensure (char **argv, agentrt_error_t *err)
{
  cleanup_close int exe = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  cleanup_close int copy = -1;

  if (exe < 0)
    return agentrt_error (err, errno, "open /proc/self/exe");
  if (image_is_safe (exe))
    return 0;
  copy = sealed_copy (exe, err);
  if (copy < 0)
    return -1;
  if (cloned_binary_origin ())
    setenv (ORIGIN_ENV, cloned_binary_origin (), 1);
  fexecve (copy, argv, environ);
  unsetenv (ORIGIN_ENV);
  return agentrt_error (err, errno, "re-execute from the sealed copy");
}

bool
cloned_binary_needed (const struct oci_capabilities *caps)
{
  const struct str_list *sets[5];
  size_t i, k;

  if (caps == NULL)
    return false;
  sets[0] = &caps->bounding;
  sets[1] = &caps->effective;
  sets[2] = &caps->inheritable;
  sets[3] = &caps->permitted;
  sets[4] = &caps->ambient;
  for (i = 0; i < 5; i++)
    for (k = 0; k < sets[i]->len; k++)
      if (strcasecmp (sets[i]->items[k], "CAP_SYS_PTRACE") == 0)
        return true;
  return false;
}
