/* Size-limited tmpfs on /tmp, /run, /dev/shm and a read-only HOME (see
 * tmpfs.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "binds.h"
#include "env_scrub.h"
#include "paths.h"
#include "tmpfs.h"

struct tmpfs_spec
{
  const char *dest;
  uint64_t size;
  const char *mode;
  uint32_t uid; /* owner; 0 adds no uid=/gid= options */
  uint32_t gid;
};

static bool
dest_is (const struct oci_mount *m, const char *dest)
{
  cleanup_free char *clean = path_clean (m->destination);
  return strcmp (clean, dest) == 0;
}

static bool
dest_below (const struct oci_mount *m, const char *dest)
{
  cleanup_free char *clean = path_clean (m->destination);
  return strcmp (clean, dest) != 0 && path_is_under (clean, dest);
}

/* A tmpfs of the bundle's that is at least as tight as ours is kept. */
static bool
tight_enough (const struct oci_mount *m, uint64_t size)
{
  uint64_t have = 0;

  if (m->type == NULL || strcmp (m->type, "tmpfs") != 0 || binds_is_bind (m)
      || !str_list_contains (&m->options, "nosuid")
      || !str_list_contains (&m->options, "nodev"))
    return false;
  for (size_t i = 0; i < m->options.len; i++)
    if (strncmp (m->options.items[i], "size=", 5) == 0
        && policy_parse_size (m->options.items[i] + 5, &have) < 0)
      return false;
  return have > 0 && have <= size;
}

static void
fill_tmpfs (struct oci_mount *m, const struct tmpfs_spec *s)
{
  char size[POLICY_SIZE_STR_LEN];

  memset (m, 0, sizeof (*m));
  m->destination = xstrdup (s->dest);
  m->type = xstrdup ("tmpfs");
  m->source = xstrdup ("tmpfs");
  str_list_append (&m->options, "nosuid");
  str_list_append (&m->options, "nodev");
  cleanup_free char *mode = xasprintf ("mode=%s", s->mode);
  str_list_append (&m->options, mode);
  cleanup_free char *sz = xasprintf ("size=%s",
                                     policy_format_size (s->size, size));
  str_list_append (&m->options, sz);
  if (s->uid != 0 || s->gid != 0)
    {
      cleanup_free char *uid = xasprintf ("uid=%u", s->uid);
      cleanup_free char *gid = xasprintf ("gid=%u", s->gid);
      str_list_append (&m->options, uid);
      str_list_append (&m->options, gid);
    }
}

/* Puts the tmpfs at s->dest: in place of the bundle's mounts there, else
 * before the first mount below it (so that those stay visible). */
static void
put_tmpfs (struct oci_config *c, const struct tmpfs_spec *s, const char *why,
           struct change_list *changes)
{
  size_t first = c->n_mounts, n_at = 0, out = 0;
  char size[POLICY_SIZE_STR_LEN];

  for (size_t i = 0; i < c->n_mounts; i++)
    if (dest_is (&c->mounts[i], s->dest) && n_at++ == 0)
      first = i;
  if (n_at == 1 && tight_enough (&c->mounts[first], s->size))
    return;
  if (n_at == 0)
    {
      for (first = 0; first < c->n_mounts; first++)
        if (dest_below (&c->mounts[first], s->dest))
          break;
      c->mounts = xreallocarray (c->mounts, c->n_mounts + 1,
                                 sizeof (*c->mounts));
      memmove (&c->mounts[first + 1], &c->mounts[first],
               (c->n_mounts - first) * sizeof (*c->mounts));
      c->n_mounts++;
    }
  else
    binds_mount_release (&c->mounts[first]);
  fill_tmpfs (&c->mounts[first], s);
  for (size_t i = 0; i < c->n_mounts; i++)
    {
      if (i != first && dest_is (&c->mounts[i], s->dest))
        binds_mount_release (&c->mounts[i]);
      else
        c->mounts[out++] = c->mounts[i];
    }
  c->n_mounts = out;
  change_addf (changes, CHANGE_TMPFS,
               n_at ? "replaces the bundle's mount there" : why,
               "%s (%s, nosuid, nodev)", s->dest,
               policy_format_size (s->size, size));
}

/* The mount HOME is on, or NULL for the root filesystem. */
static const struct oci_mount *
covering_mount (const struct oci_config *c, const char *home)
{
  const struct oci_mount *best = NULL;
  size_t best_len = 0;

  for (size_t i = 0; i < c->n_mounts; i++)
    {
      cleanup_free char *d = path_clean (c->mounts[i].destination);
      if (path_is_under (home, d) && (best == NULL || strlen (d) >= best_len))
        {
          best = &c->mounts[i];
          best_len = strlen (d);
        }
    }
  return best;
}

static void
home_tmpfs (struct oci_config *c, const struct agent_policy *policy,
            struct change_list *changes)
{
  const char *env_home = c->process ? env_get (&c->process->env, "HOME")
                                    : NULL;
  cleanup_free char *home = NULL;
  struct tmpfs_spec s;

  if (env_home == NULL || env_home[0] != '/')
    return;
  home = path_clean (env_home);
  if (strcmp (home, "/") == 0 || covering_mount (c, home))
    return;
  s = (struct tmpfs_spec){ home, policy->home_size, "0700",
                           c->process->user.uid, c->process->user.gid };
  put_tmpfs (c, &s, "HOME is on the read-only root filesystem", changes);
}

void
tmpfs_harden (struct oci_config *config, const struct agent_policy *policy,
              enum harden_rootfs rootfs, struct change_list *changes)
{
  const struct tmpfs_spec specs[] = {
    { "/tmp", policy->tmp_size, "1777", 0, 0 },
    { "/run", policy->run_size, "0755", 0, 0 },
    { "/dev/shm", policy->shm_size, "1777", 0, 0 },
  };

  for (size_t i = 0; i < sizeof (specs) / sizeof (specs[0]); i++)
    put_tmpfs (config, &specs[i], "size-limited scratch space", changes);
  if (rootfs == HARDEN_ROOTFS_READONLY)
    home_tmpfs (config, policy, changes);
}
