/* SELinux checks (see lsm_selinux.h). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/vfs.h>

#include "runtime/lsm_selinux.h"

#define SELINUX_MAGIC 0xf97cff8c

bool
selinux_enabled (void)
{
  static int enabled = -1;
  struct statfs sfs;
  if (enabled < 0)
    enabled = statfs ("/sys/fs/selinux", &sfs) == 0
              && (unsigned long) sfs.f_type == SELINUX_MAGIC;
  return enabled;
}

int
selinux_check_label (const char *label, const char *field,
                     agentrt_error_t *err)
{
  int (*check) (const char *);
  void *handle;

  if (label == NULL || label[0] == '\0' || !selinux_enabled ())
    return 0;
  handle = dlopen ("libselinux.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    return agentrt_error (err, 0, "%s: SELinux is on but libselinux.so.1 "
                          "(Debian package libselinux1) cannot be loaded: %s",
                          field, dlerror ());
  check = (int (*) (const char *)) dlsym (handle, "security_check_context_raw");
  if (check == NULL)
    return agentrt_error (err, 0, "%s: libselinux.so.1 has no "
                          "security_check_context_raw", field);
  if (check (label) < 0)
    return agentrt_error (err, errno, "%s: `%s` is not a valid SELinux "
                          "context", field, label);
  return 0;
}
