/* Default /proc and /sys masks, and the device allowlist (see
 * kernel_surface.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "device_allow.h"
#include "kernel_surface.h"

/* runc's and Docker's defaults. */
static const char *const masked[] = {
  "/proc/acpi",         "/proc/asound",       "/proc/interrupts",
  "/proc/kcore",        "/proc/keys",         "/proc/latency_stats",
  "/proc/sched_debug",  "/proc/scsi",         "/proc/timer_list",
  "/proc/timer_stats",  "/sys/devices/virtual/powercap",
  "/sys/firmware",
};

static const char *const readonly[] = {
  "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

static void
add_paths (struct str_list *list, const char *const *paths, size_t n,
           const char *why, struct change_list *changes)
{
  for (size_t i = 0; i < n; i++)
    if (!str_list_contains (list, paths[i]))
      {
        str_list_append (list, paths[i]);
        change_add (changes, CHANGE_KERNEL_PATH, paths[i], why);
      }
}

static bool
device_kept (const struct oci_device *d, const struct agent_policy *policy)
{
  if (d->type == 'p')
    return true; /* a fifo */
  return (d->type == 'c' || d->type == 'u') && d->major >= 0 && d->minor >= 0
         && d->major <= UINT32_MAX && d->minor <= UINT32_MAX
         && device_allow_contains (policy, (unsigned) d->major,
                                   (unsigned) d->minor);
}

static void
drop_devices (struct oci_linux *l, const struct agent_policy *policy,
              struct change_list *changes)
{
  size_t out = 0;

  for (size_t i = 0; i < l->n_devices; i++)
    {
      struct oci_device *d = &l->devices[i];
      if (device_kept (d, policy))
        {
          l->devices[out++] = *d;
          continue;
        }
      change_addf (changes, CHANGE_DEVICE,
                   "not an allowed character device (the policy's "
                   "devices.allow)", "%s (%c %lld:%lld) not created", d->path,
                   d->type, (long long) d->major, (long long) d->minor);
      free (d->path);
    }
  l->n_devices = out;
}

static void
set_rule (struct oci_device_rule *r, bool allow, char type, long long major,
          long long minor)
{
  memset (r, 0, sizeof (*r));
  r->allow = allow;
  r->type = type;
  r->has_major = major >= 0;
  r->major = major;
  r->has_minor = minor >= 0;
  r->minor = minor;
  r->access = xstrdup ("rwm");
}

static bool
same_rule (const struct oci_device_rule *a, const struct oci_device_rule *b)
{
  return a->allow == b->allow && a->type == b->type
         && a->has_major == b->has_major && a->has_minor == b->has_minor
         && (!a->has_major || a->major == b->major)
         && (!a->has_minor || a->minor == b->minor) && a->access
         && strcmp (a->access, b->access) == 0;
}

static void
free_rules (struct oci_device_rule *rules, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (rules[i].access);
  free (rules);
}

/* The device rules become "deny all" and one allow rule per allowed
 * device, whatever the bundle's said (they may allow everything). */
static void
replace_device_rules (struct oci_resources *r,
                      const struct agent_policy *policy,
                      struct change_list *changes)
{
  const struct device_id *d;
  struct oci_device_rule *rules;
  size_t n = 1;
  bool same;

  while (device_allow_get (policy, n - 1))
    n++;
  rules = xzalloc (n * sizeof (*rules));
  set_rule (&rules[0], false, 'a', -1, -1);
  for (size_t i = 0; (d = device_allow_get (policy, i)) != NULL; i++)
    set_rule (&rules[i + 1], true, 'c', d->major, d->minor);
  same = r->n_devices == n;
  for (size_t i = 0; same && i < n; i++)
    same = same_rule (&r->devices[i], &rules[i]);
  if (same)
    {
      free_rules (rules, n);
      return;
    }
  free_rules (r->devices, r->n_devices);
  r->devices = rules;
  r->n_devices = n;
  change_add (changes, CHANGE_DEVICE, "linux.resources.devices: deny all "
              "but the allowed character devices",
              "the bundle's device rules are replaced");
}

void
kernel_surface_harden (struct oci_config *config,
                       const struct agent_policy *policy,
                       struct change_list *changes)
{
  struct oci_linux *l;

  if (config->linux_cfg == NULL)
    config->linux_cfg = xzalloc (sizeof (*config->linux_cfg));
  l = config->linux_cfg;
  add_paths (&l->masked_paths, masked, sizeof (masked) / sizeof (*masked),
             "kernel information the container has no use for", changes);
  add_paths (&l->readonly_paths, readonly,
             sizeof (readonly) / sizeof (*readonly),
             "kernel settings of the host (core_pattern, sysrq) stay "
             "read-only", changes);
  drop_devices (l, policy, changes);
  if (l->resources == NULL)
    l->resources = xzalloc (sizeof (*l->resources));
  replace_device_rules (l->resources, policy, changes);
}
