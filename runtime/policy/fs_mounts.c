/* Filesystem mounts other than binds (see fs_mounts.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "binds.h"
#include "fs_mounts.h"
#include "paths.h"

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))

/* The options a kind of filesystem is forced to have, and those (their
 * opposites) it loses. */
struct forced
{
  const char *const *set;
  const char *const *clear;
};

static const char *const kernel_set[]
    = { "ro", "nosuid", "nodev", "noexec", "rro", NULL };
static const char *const kernel_clear[]
    = { "rw", "suid", "dev", "exec", "rrw", "rsuid", "rdev", "rexec", NULL };
static const char *const scratch_set[] = { "nosuid", "nodev", NULL };
static const char *const scratch_clear[] = { "suid", "dev", NULL };
static const char *const devfs_set[] = { "nosuid", NULL };
static const char *const devfs_clear[] = { "suid", NULL };
static const char *const pts_set[] = { "nosuid", "noexec", NULL };
static const char *const pts_clear[] = { "suid", "exec", NULL };

static bool
is_kernel_fs (const char *type)
{
  return strcmp (type, "proc") == 0 || strcmp (type, "sysfs") == 0
         || strcmp (type, "cgroup") == 0 || strcmp (type, "cgroup2") == 0;
}

/* What a kept filesystem type is forced to; false for a type that is not
 * kept. */
static bool
forced_options (const char *type, const char *dest, struct forced *f)
{
  if (is_kernel_fs (type))
    *f = (struct forced){ kernel_set, kernel_clear };
  else if (strcmp (type, "tmpfs") == 0 && strcmp (dest, "/dev") == 0)
    *f = (struct forced){ devfs_set, devfs_clear };
  else if (strcmp (type, "tmpfs") == 0 || strcmp (type, "mqueue") == 0)
    *f = (struct forced){ scratch_set, scratch_clear };
  else if (strcmp (type, "devpts") == 0)
    *f = (struct forced){ pts_set, pts_clear };
  else
    return false;
  return true;
}

/* Applies f to m's options; true when they changed. */
static bool
force (struct oci_mount *m, const struct forced *f)
{
  bool changed = false;
  size_t out = 0;

  for (size_t i = 0; i < m->options.len; i++)
    {
      bool drop = false;
      for (size_t k = 0; f->clear[k]; k++)
        drop |= strcmp (m->options.items[i], f->clear[k]) == 0;
      if (drop)
        {
          free (m->options.items[i]);
          changed = true;
        }
      else
        m->options.items[out++] = m->options.items[i];
    }
  m->options.len = out;
  if (m->options.items)
    m->options.items[out] = NULL;
  for (size_t k = 0; f->set[k]; k++)
    if (!str_list_contains (&m->options, f->set[k]))
      {
        str_list_append (&m->options, f->set[k]);
        changed = true;
      }
  return changed;
}

/* The /proc (or /sys) masks and read-only paths again below `dest`. */
static void
replicate (struct str_list *paths, const char *base, const char *dest,
           const char *why, struct change_list *changes)
{
  size_t n = paths->len;

  for (size_t i = 0; i < n; i++)
    {
      const char *p = paths->items[i];
      if (!path_is_under (p, base) || strcmp (p, base) == 0)
        continue;
      cleanup_free char *copy = xasprintf ("%s%s", dest, p + strlen (base));
      if (str_list_contains (paths, copy))
        continue;
      str_list_append (paths, copy);
      change_add (changes, CHANGE_KERNEL_PATH, copy, why);
    }
}

static void
replicate_masks (struct oci_config *c, const char *type, const char *dest,
                 struct change_list *changes)
{
  const char *base = strcmp (type, "proc") == 0    ? "/proc"
                     : strcmp (type, "sysfs") == 0 ? "/sys"
                                                   : NULL;
  cleanup_free char *why = NULL;

  if (base == NULL || strcmp (dest, base) == 0)
    return;
  if (c->linux_cfg == NULL)
    c->linux_cfg = xzalloc (sizeof (*c->linux_cfg));
  why = xasprintf ("another %s instance gets the masks of %s", type, base);
  replicate (&c->linux_cfg->masked_paths, base, dest, why, changes);
  replicate (&c->linux_cfg->readonly_paths, base, dest, why, changes);
}

void
fs_mounts_harden (struct oci_config *config, struct change_list *changes)
{
  size_t out = 0;

  for (size_t i = 0; i < config->n_mounts; i++)
    {
      struct oci_mount *m = &config->mounts[i];
      cleanup_free char *dest = path_clean (m->destination);
      struct forced f;

      if (binds_is_bind (m) || m->type == NULL)
        {
          config->mounts[out++] = *m;
          continue;
        }
      if (!forced_options (m->type, dest, &f))
        {
          change_addf (changes, CHANGE_MOUNT_DROPPED,
                       "only tmpfs, devpts, mqueue, proc, sysfs and cgroup "
                       "filesystems are mounted",
                       "%s (%s from %s)", dest, m->type,
                       m->source ? m->source : m->type);
          binds_mount_release (m);
          continue;
        }
      if (force (m, &f))
        {
          struct str_list set = { (char **) f.set, 0 };
          while (f.set[set.len])
            set.len++;
          cleanup_free char *opts = str_list_join (&set, ", ");
          change_addf (changes, CHANGE_MOUNT_OPTIONS,
                       is_kernel_fs (m->type)
                           ? "kernel interfaces are never writable"
                           : "no setuid files or devices on scratch space",
                       "%s (%s): %s", dest, m->type, opts);
        }
      replicate_masks (config, m->type, dest, changes);
      config->mounts[out++] = *m;
    }
  config->n_mounts = out;
}
