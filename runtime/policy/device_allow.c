/* The allowed character devices (see device_allow.h). */
#include "config.h"

#include <string.h>

#include "device_allow.h"

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))

static const struct device_id basic[] = {
  { "null", 1, 3 },    { "zero", 1, 5 },    { "full", 1, 7 },
  { "random", 1, 8 },  { "urandom", 1, 9 }, { "tty", 5, 0 },
  { "console", 5, 1 }, { "ptmx", 5, 2 },
  /* the pty slaves of /dev/pts (Unix98: majors 136 to 143) */
  { "pts", 136, -1 },  { "pts", 137, -1 },  { "pts", 138, -1 },
  { "pts", 139, -1 },  { "pts", 140, -1 },  { "pts", 141, -1 },
  { "pts", 142, -1 },  { "pts", 143, -1 },
};

static const struct device_id optional[] = {
  { "fuse", 10, 229 },
  { "kvm", 10, 232 },
  { "net/tun", 10, 200 },
};

const char *
device_allow_optional_name (const char *name)
{
  if (strncmp (name, "/dev/", 5) == 0)
    name += 5;
  for (size_t i = 0; i < N_ELEMENTS (optional); i++)
    if (strcmp (name, optional[i].name) == 0)
      return optional[i].name;
  return NULL;
}

const struct device_id *
device_allow_get (const struct agent_policy *policy, size_t i)
{
  if (i < N_ELEMENTS (basic))
    return &basic[i];
  i -= N_ELEMENTS (basic);
  for (size_t k = 0; k < N_ELEMENTS (optional); k++)
    if (str_list_contains (&policy->allowed_devices, optional[k].name)
        && i-- == 0)
      return &optional[k];
  return NULL;
}

bool
device_allow_contains (const struct agent_policy *policy, unsigned major,
                       unsigned minor)
{
  const struct device_id *d;

  for (size_t i = 0; (d = device_allow_get (policy, i)) != NULL; i++)
    if (d->major == major && (d->minor < 0 || (unsigned) d->minor == minor))
      return true;
  return false;
}
