/* Capability masks and their application (see caps.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/caps.h"
#include "runtime/log.h"

int
caps_last_cap (void)
{
  static int last = -1;
  if (last < 0)
    {
      char buf[16] = { 0 };
      int fd = open ("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
      if (fd >= 0)
        {
          if (read (fd, buf, sizeof buf - 1) > 0)
            last = atoi (buf);
          close (fd);
        }
      if (last <= 0)
        last = CAP_LAST_CAP;
    }
  return last;
}

int
caps_from_name (const char *name)
{
  cap_value_t v;
  if (strncasecmp (name, "CAP_", 4) != 0)
    return -1;
  if (cap_from_name (name, &v) < 0 || v > caps_last_cap ())
    return -1;
  return (int) v;
}

static uint64_t
mask_of (const struct str_list *names, const char *set)
{
  uint64_t m = 0;
  size_t i;
  for (i = 0; i < names->len; i++)
    {
      int c = caps_from_name (names->items[i]);
      if (c < 0)
        {
          log_warning ("process.capabilities.%s: unknown capability `%s` "
                       "ignored", set, names->items[i]);
          continue;
        }
      m |= 1ULL << c;
    }
  return m;
}

/* Which of `asked` this runtime itself may hand out (its bounding set):
 * the runtime-spec makes asking for more a warning, not a failure.  Only
 * the asked ones are read (a read of all forty-one was forty-one system
 * calls on every create). */
static uint64_t
grantable (uint64_t asked)
{
  uint64_t m = 0;
  int c, last = caps_last_cap ();
  for (c = 0; c <= last; c++)
    if ((asked & (1ULL << c)) && prctl (PR_CAPBSET_READ, c, 0, 0, 0) == 1)
      m |= 1ULL << c;
  return m;
}

static void
drop_ungrantable (struct cap_masks *m)
{
  uint64_t asked = m->bounding | m->effective | m->inheritable | m->permitted
                   | m->ambient;
  uint64_t ok = grantable (asked);
  int c;

  if ((asked & ~ok) == 0)
    return;
  for (c = 0; c < 64; c++)
    if ((asked & ~ok) & (1ULL << c))
      {
        char *name = cap_to_name (c);
        log_warning ("process.capabilities: %s cannot be granted (the "
                     "runtime does not hold it): ignored", name);
        cap_free (name);
      }
  m->bounding &= ok;
  m->effective &= ok;
  m->inheritable &= ok;
  m->permitted &= ok;
  m->ambient &= ok;
}

void
caps_masks_build (const struct oci_capabilities *config, struct cap_masks *out)
{
  memset (out, 0, sizeof *out);
  caps_last_cap (); /* cached now: the init must not read /proc for it */
  if (config == NULL)
    return;
  out->bounding = mask_of (&config->bounding, "bounding");
  out->effective = mask_of (&config->effective, "effective");
  out->inheritable = mask_of (&config->inheritable, "inheritable");
  out->permitted = mask_of (&config->permitted, "permitted");
  out->ambient = mask_of (&config->ambient, "ambient");
  drop_ungrantable (out);
  /* the kernel only keeps ambient capabilities that are both permitted and
   * inheritable; say so instead of failing at exec */
  if (out->ambient & ~(out->permitted & out->inheritable))
    {
      log_debug ("process.capabilities.ambient: capabilities that are not "
                 "both permitted and inheritable are ignored");
      out->ambient &= out->permitted & out->inheritable;
    }
}

int
caps_prepare_for_setuid (const struct cap_masks *masks)
{
  int last = caps_last_cap (), c;
  for (c = 0; c <= last; c++)
    if (!(masks->bounding & (1ULL << c))
        && prctl (PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
      return -errno;
  if (prctl (PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
    return -errno;
  return 0;
}

int
caps_apply (const struct cap_masks *masks)
{
  struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2];
  int last = caps_last_cap (), c;

  if (prctl (PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
    return -errno;
  memset (data, 0, sizeof data);
  data[0].effective = (uint32_t) masks->effective;
  data[1].effective = (uint32_t) (masks->effective >> 32);
  data[0].permitted = (uint32_t) masks->permitted;
  data[1].permitted = (uint32_t) (masks->permitted >> 32);
  data[0].inheritable = (uint32_t) masks->inheritable;
  data[1].inheritable = (uint32_t) (masks->inheritable >> 32);
  if (syscall (SYS_capset, &hdr, data) < 0)
    return -errno;
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0
      && errno != EINVAL)
    return -errno;
  for (c = 0; c <= last; c++)
    if ((masks->ambient & (1ULL << c))
        && prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0)
      return -errno;
  return 0;
}
