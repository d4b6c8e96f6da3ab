/* Bind mounts against credentials and control sockets (see binds.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "binds.h"
#include "paths.h"

/* One bind mount being judged. */
struct bind
{
  const struct agent_policy *policy;
  const struct host_view *host;
  struct oci_config *config;
  struct change_list *changes;
  char *dest;   /* clean destination */
  char *source; /* as written, cleaned ("/"-rooted when relative) */
  char *canon;  /* real path */
  enum host_kind kind;
  struct str_list subdirs;
  bool has_socket;
};

static bool
has_option (const struct oci_mount *m, const char *opt)
{
  return str_list_contains (&m->options, opt);
}

bool
binds_is_bind (const struct oci_mount *m)
{
  return (m->type && strcmp (m->type, "bind") == 0) || has_option (m, "bind")
         || has_option (m, "rbind");
}

void
binds_mount_release (struct oci_mount *m)
{
  free (m->destination);
  free (m->type);
  free (m->source);
  str_list_free (&m->options);
  free (m->uid_mappings);
  free (m->gid_mappings);
  memset (m, 0, sizeof (*m));
}

static void
add_mask (struct bind *b, const char *path, const char *why)
{
  cleanup_free char *clean = path_clean (path);
  struct oci_linux *l;

  if (b->config->linux_cfg == NULL)
    b->config->linux_cfg = xzalloc (sizeof (*b->config->linux_cfg));
  l = b->config->linux_cfg;
  if (str_list_contains (&l->masked_paths, clean))
    return;
  str_list_append (&l->masked_paths, clean);
  change_add (b->changes, CHANGE_PATH_MASKED, clean, why);
}

/* Masks container_path when canon/rel exists on the host. */
static int
mask_if_exists (struct bind *b, const char *rel, const char *container_path,
                const char *why, agentrt_error_t *err)
{
  cleanup_free char *full = path_join (b->canon, rel);
  bool exists = false;

  if (b->host->exists (b->host->ctx, full, &exists, err) < 0)
    return -1;
  if (exists)
    add_mask (b, container_path, why);
  return 0;
}

static char *
dest_reason (const struct bind *b)
{
  const struct str_list *creds = &b->policy->credential_paths;

  for (size_t i = 0; i < creds->len; i++)
    {
      const char *e = creds->items[i];
      if (e[0] == '/' ? path_is_under (b->dest, e)
                      : path_has_components (b->dest, e, false))
        return xasprintf ("the destination is a credential location (%s)", e);
    }
  return NULL;
}

static char *
socket_reason (const struct bind *b)
{
  const struct str_list *socks = &b->policy->socket_paths;

  if (b->kind == HOST_SOCKET)
    return xstrdup ("the source is a unix socket");
  for (size_t i = 0; i < socks->len; i++)
    {
      const char *rest = NULL;
      switch (path_relate (b->canon, socks->items[i], &rest))
        {
        case PATH_MATCH:
          return xasprintf ("the source is an engine socket path (%s)",
                            socks->items[i]);
        case PATH_ABOVE:
          if (rest[0] == '*' && (rest[1] == '/' || rest[1] == '\0'))
            return xasprintf ("the source holds engine socket dirs (%s)",
                              socks->items[i]);
          break;
        default:
          break;
        }
    }
  if (b->has_socket)
    return xstrdup ("the source directory holds unix sockets");
  return NULL;
}

static char *
source_reason (const struct bind *b)
{
  const struct str_list *creds = &b->policy->credential_paths;

  if (strcmp (b->canon, "/") == 0)
    return xstrdup ("the source is the host's root directory");
  if (path_is_under (b->canon, "/proc"))
    return xstrdup ("the source is in the host's /proc");
  for (size_t i = 0; i < creds->len; i++)
    {
      const char *e = creds->items[i];
      bool hit = e[0] == '/'
                     ? path_is_under (b->canon, e)
                           || path_is_under (b->source, e)
                     : path_has_components (b->canon, e, false)
                           || path_has_components (b->source, e, false);
      if (hit)
        return xasprintf ("the source is a credential path (%s)", e);
    }
  return socket_reason (b);
}

/* Engine socket paths below the source: masked at the deepest component
 * before a `*`. */
static int
socket_masks (struct bind *b, agentrt_error_t *err)
{
  const struct str_list *socks = &b->policy->socket_paths;

  for (size_t i = 0; i < socks->len; i++)
    {
      const char *rest = NULL, *star;
      if (path_relate (b->canon, socks->items[i], &rest) != PATH_ABOVE)
        continue;
      star = strstr (rest, "/*");
      cleanup_free char *rel
          = star ? xstrndup (rest, (size_t) (star - rest)) : xstrdup (rest);
      cleanup_free char *target = path_join (b->dest, rel);
      cleanup_free char *why = xasprintf ("engine socket path %s in the bind "
                                          "mount of %s", socks->items[i],
                                          b->canon);
      if (mask_if_exists (b, rel, target, why, err) < 0)
        return -1;
    }
  return 0;
}

/* A relative credential entry: in the source, in each subdirectory (a
 * mounted /home), and its tail when the source or the destination is one
 * of its leading components (a mounted ~/.docker or ~/.config). */
static int
relative_masks (struct bind *b, const char *e, const char *why,
                agentrt_error_t *err)
{
  cleanup_free char *direct = path_join (b->dest, e);

  if (mask_if_exists (b, e, direct, why, err) < 0)
    return -1;
  for (const char *slash = strchr (e, '/'); slash; slash = strchr (slash + 1, '/'))
    {
      cleanup_free char *head = xstrndup (e, (size_t) (slash - e));
      cleanup_free char *tail_target = path_join (b->dest, slash + 1);
      if ((path_has_components (b->canon, head, true)
           || path_has_components (b->dest, head, true))
          && mask_if_exists (b, slash + 1, tail_target, why, err) < 0)
        return -1;
    }
  for (size_t i = 0; i < b->subdirs.len; i++)
    {
      cleanup_free char *rel = path_join (b->subdirs.items[i], e);
      cleanup_free char *target = path_join (b->dest, rel);
      if (mask_if_exists (b, rel, target, why, err) < 0)
        return -1;
    }
  return 0;
}

/* An absolute credential entry below the source (a host path), or below
 * the destination (a container path). */
static int
absolute_masks (struct bind *b, const char *e, const char *why,
                agentrt_error_t *err)
{
  const char *rest = NULL;

  if (path_relate (b->canon, e, &rest) == PATH_ABOVE)
    {
      cleanup_free char *target = path_join (b->dest, rest);
      if (mask_if_exists (b, rest, target, why, err) < 0)
        return -1;
    }
  if (path_relate (b->dest, e, &rest) == PATH_ABOVE
      && mask_if_exists (b, rest, e, why, err) < 0)
    return -1;
  return 0;
}

static int
credential_masks (struct bind *b, agentrt_error_t *err)
{
  const struct str_list *creds = &b->policy->credential_paths;

  for (size_t i = 0; i < creds->len; i++)
    {
      const char *e = creds->items[i];
      cleanup_free char *why = xasprintf ("credential path %s in the bind "
                                          "mount of %s", e, b->canon);
      if (e[0] == '/' ? absolute_masks (b, e, why, err) < 0
                      : relative_masks (b, e, why, err) < 0)
        return -1;
    }
  return 0;
}

/* Judges one bind mount: *why_drop is set when it must not be kept. */
static int
judge (struct bind *b, const struct oci_mount *m, char **why_drop,
       agentrt_error_t *err)
{
  cleanup_free char *rooted = xasprintf ("/%s", m->source);
  const struct host_view *h = b->host;

  b->source = path_clean (m->source[0] == '/' ? m->source : rooted);
  *why_drop = dest_reason (b);
  if (*why_drop)
    return 0;
  if (h->resolve (h->ctx, m->source, &b->canon, &b->kind, err) < 0)
    return -1;
  if (b->canon == NULL)
    return agentrt_error (err, ENOENT, "bind source `%s` does not exist",
                          m->source);
  if (b->kind == HOST_DIR
      && h->scan_dir (h->ctx, b->canon, &b->subdirs, &b->has_socket, err) < 0)
    return -1;
  *why_drop = source_reason (b);
  if (*why_drop || b->kind != HOST_DIR)
    return 0;
  if (socket_masks (b, err) < 0)
    return -1;
  return credential_masks (b, err);
}

static void
bind_release (struct bind *b)
{
  free (b->dest);
  free (b->source);
  free (b->canon);
  str_list_free (&b->subdirs);
}

/* Returns 1 to keep the mount, 0 to drop it, -1 on error. */
static int
harden_one (struct bind *b, struct oci_mount *m, agentrt_error_t *err)
{
  cleanup_free char *why = NULL;

  if (m->source == NULL)
    return 1;
  b->dest = path_clean (m->destination);
  if (judge (b, m, &why, err) < 0)
    return -1;
  if (why)
    {
      change_addf (b->changes, CHANGE_MOUNT_DROPPED, why, "%s (source %s)",
                   b->dest, m->source);
      return 0;
    }
  if (b->canon && strcmp (b->canon, m->source) != 0)
    {
      change_addf (b->changes, CHANGE_MOUNT_SOURCE,
                   "what is mounted is the path that was checked",
                   "%s: %s -> %s", b->dest, m->source, b->canon);
      free (m->source);
      m->source = xstrdup (b->canon);
    }
  return 1;
}

int
binds_harden (struct oci_config *config, const struct agent_policy *policy,
              const struct host_view *host, struct change_list *changes,
              agentrt_error_t *err)
{
  size_t out = 0;

  for (size_t i = 0; i < config->n_mounts; i++)
    {
      struct oci_mount *m = &config->mounts[i];
      struct bind b = { .policy = policy, .host = host, .config = config,
                        .changes = changes };
      int keep = binds_is_bind (m) ? harden_one (&b, m, err) : 1;

      bind_release (&b);
      if (keep < 0)
        {
          agentrt_error_wrap (err, "mounts[%zu] (`%s`)", i, m->destination);
          /* Close the gap left by dropped mounts so the config stays
           * freeable. */
          for (size_t j = i; j < config->n_mounts; j++)
            config->mounts[out++] = config->mounts[j];
          config->n_mounts = out;
          return -1;
        }
      if (keep)
        config->mounts[out++] = *m;
      else
        binds_mount_release (m);
    }
  config->n_mounts = out;
  return 0;
}
