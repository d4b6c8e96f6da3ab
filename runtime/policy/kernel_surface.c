/* Default /proc and /sys masks, and no block devices (see
 * kernel_surface.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
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

static void
drop_block_devices (struct oci_linux *l, struct change_list *changes)
{
  size_t out = 0;

  for (size_t i = 0; i < l->n_devices; i++)
    {
      struct oci_device *d = &l->devices[i];
      if (d->type != 'b')
        {
          l->devices[out++] = *d;
          continue;
        }
      change_add (changes, CHANGE_DEVICE, d->path,
                  "block device not created: it would expose a host disk");
      free (d->path);
    }
  l->n_devices = out;
}

/* Appends "deny b *:* rwm" when a rule of the bundle allows block
 * devices (the last matching rule wins). */
static void
deny_block_devices (struct oci_resources *r, struct change_list *changes)
{
  bool allowed = false;
  struct oci_device_rule *rule;

  for (size_t i = 0; i < r->n_devices; i++)
    if (r->devices[i].type == 'a' || r->devices[i].type == 'b')
      allowed = r->devices[i].allow;
  if (!allowed)
    return;
  r->devices = xreallocarray (r->devices, r->n_devices + 1,
                              sizeof (*r->devices));
  rule = &r->devices[r->n_devices++];
  memset (rule, 0, sizeof (*rule));
  rule->allow = false;
  rule->type = 'b';
  rule->access = xstrdup ("rwm");
  change_add (changes, CHANGE_DEVICE, "deny b *:* rwm",
              "the bundle's device rules allowed block devices");
}

void
kernel_surface_harden (struct oci_config *config, struct change_list *changes)
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
  drop_block_devices (l, changes);
  if (l->resources)
    deny_block_devices (l->resources, changes);
}
