/* Bind mounts against credentials, control sockets, the host's kernel and
 * host-side persistence (see binds.h).  Three passes: each bind is judged
 * by its source, opened once through the host view, and dropped or kept;
 * what the kept ones expose is scanned (bind_scan.c) and what the host
 * runs later is protected in writable ones (persistence.c); the mounts are
 * then rebuilt with what was added. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "bind_rules.h"
#include "binds.h"
#include "device_allow.h"
#include "host_paths.h"
#include "paths.h"

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

void
binds_mask (struct binds_ctx *ctx, const char *path, const char *why)
{
  cleanup_free char *clean = path_clean (path);
  struct oci_linux *l;

  if (ctx->config->linux_cfg == NULL)
    ctx->config->linux_cfg = xzalloc (sizeof (*ctx->config->linux_cfg));
  l = ctx->config->linux_cfg;
  if (str_list_contains (ctx->required_masks, clean))
    return;
  str_list_append (ctx->required_masks, clean);
  if (str_list_contains (&l->masked_paths, clean))
    return; /* the bundle's, or a config hardened before */
  str_list_append (&l->masked_paths, clean);
  change_add (ctx->changes, CHANGE_PATH_MASKED, clean, why);
}

void
binds_container_paths (const struct binds_ctx *ctx, const char *target,
                       struct str_list *out)
{
  for (size_t i = 0; i < ctx->n_kept; i++)
    {
      const struct kept_bind *k = &ctx->kept[i];
      if (!path_is_under (target, k->canon))
        continue;
      cleanup_free char *p
          = xasprintf ("%s%s", k->dest,
                       strcmp (k->canon, "/") ? target + strlen (k->canon)
                                              : target);
      cleanup_free char *clean = path_clean (p);
      if (!str_list_contains (out, clean))
        str_list_append (out, clean);
    }
}

/* The bind being judged in the first pass. */
struct bind
{
  struct binds_ctx *ctx;
  const struct oci_mount *m;
  char *dest;   /* clean destination */
  char *source; /* as written, cleaned ("/"-rooted when relative) */
  char *canon;  /* canonical path of the open source */
  struct host_node node;
};

static void
bind_release (struct bind *b)
{
  free (b->dest);
  free (b->source);
  free (b->canon);
}

static bool
allowed_device (const struct bind *b)
{
  return b->node.kind == HOST_CHAR
         && device_allow_contains (b->ctx->policy, b->node.major,
                                   b->node.minor);
}

/* Orders relative credential entries by their first component. */
static int
compare_heads (const void *a, const void *b)
{
  const char *x = *(const char *const *) a, *y = *(const char *const *) b;
  size_t nx = strcspn (x, "/"), ny = strcspn (y, "/");
  int r = strncmp (x, y, nx < ny ? nx : ny);

  return r ? r : (nx > ny) - (nx < ny);
}

/* The relative credential entries sorted by their first component: the
 * policy's own strings, not copies; made for the first bind judged (a
 * bundle without one needs none). */
void
binds_credential_heads (struct binds_ctx *ctx)
{
  const struct str_list *creds = &ctx->policy->credential_paths;

  if (ctx->credential_heads)
    return;
  ctx->credential_heads = xreallocarray (NULL, creds->len + 1, sizeof (char *));
  for (size_t i = 0; i < creds->len; i++)
    {
      const char *e = creds->items[i];
      unsigned char first = (unsigned char) e[0];
      if (first == '/')
        continue;
      ctx->credential_heads[ctx->n_credential_heads++] = e;
      ctx->head_first_bytes[first / 64] |= UINT64_C (1) << (first % 64);
    }
  qsort (ctx->credential_heads, ctx->n_credential_heads, sizeof (char *),
         compare_heads);
}

/* A component looked for among the heads: not NUL-terminated in a path. */
struct component
{
  const char *name;
  size_t len;
};

static int
compare_component_head (const void *key, const void *entry)
{
  const struct component *c = key;
  const char *e = *(const char *const *) entry;
  size_t n = strcspn (e, "/");
  int r = strncmp (c->name, e, c->len < n ? c->len : n);

  return r ? r : (c->len > n) - (c->len < n);
}

bool
binds_credential_head (const struct binds_ctx *ctx, const char *name,
                       size_t len)
{
  unsigned char first = (unsigned char) name[0];
  struct component c = { name, len };

  if (len == 0
      || !(ctx->head_first_bytes[first / 64] & (UINT64_C (1) << (first % 64))))
    return false;
  return bsearch (&c, ctx->credential_heads, ctx->n_credential_heads,
                  sizeof (char *), compare_component_head) != NULL;
}

/* Whether some component of the absolute or relative `path` is the first
 * component of a relative credential entry: when none is, no relative
 * entry can be components of it (path_has_components). */
static bool
has_credential_head (const struct binds_ctx *ctx, const char *path)
{
  for (const char *p = path; *p;)
    {
      size_t len = strcspn (p, "/");
      if (binds_credential_head (ctx, p, len))
        return true;
      p += len + (p[len] == '/');
    }
  return false;
}

/* The first pattern of the list that `path` is (PATH_MATCH) or lies below
 * (below too). */
static const char *
matching (const char *path, const char *const *patterns, size_t n, bool below)
{
  for (size_t i = 0; i < n; i++)
    {
      const char *rest = NULL;
      enum path_relation r = path_relate (path, patterns[i], &rest);
      if (r == PATH_MATCH || (below && r == PATH_BELOW))
        return patterns[i];
    }
  return NULL;
}

static const char *
matching_list (const char *path, const struct str_list *l, bool below)
{
  return matching (path, (const char *const *) l->items, l->len, below);
}

static char *
dest_reason (const struct bind *b)
{
  const struct str_list *creds = &b->ctx->policy->credential_paths;
  bool relative = has_credential_head (b->ctx, b->dest);

  for (size_t i = 0; i < creds->len; i++)
    {
      const char *e = creds->items[i];
      if (e[0] == '/' ? matching (b->dest, &e, 1, true) != NULL
                      : relative && path_has_components (b->dest, e, false))
        return xasprintf ("the destination is a credential location (%s)", e);
    }
  return NULL;
}

static char *
device_reason (const struct bind *b)
{
  if (b->node.kind == HOST_BLOCK)
    return xasprintf ("the source is a block device (%u:%u)", b->node.major,
                      b->node.minor);
  if (b->node.kind == HOST_CHAR && !allowed_device (b))
    return xasprintf ("the source is a character device not allowed "
                      "(%u:%u; the policy's devices.allow)", b->node.major,
                      b->node.minor);
  return NULL;
}

static char *
kernel_reason (const struct bind *b)
{
  const char *k;

  if (allowed_device (b))
    return NULL;
  if (b->node.special_fs)
    return xasprintf ("the source is on %s, a kernel interface of the host",
                      b->node.special_fs);
  k = matching (b->canon, host_paths_kernel.items, host_paths_kernel.len, true);
  return k ? xasprintf ("the source is the host's %s or below it", k) : NULL;
}

static char *
credential_reason (const struct bind *b)
{
  const struct str_list *creds = &b->ctx->policy->credential_paths;
  bool relative = has_credential_head (b->ctx, b->canon)
                  || has_credential_head (b->ctx, b->source);
  const char *hit;

  for (size_t i = 0; i < creds->len; i++)
    {
      const char *e = creds->items[i];
      bool found = e[0] == '/'
                       ? matching (b->canon, &e, 1, true)
                             || matching (b->source, &e, 1, true)
                       : relative
                             && (path_has_components (b->canon, e, false)
                                 || path_has_components (b->source, e, false));
      if (found)
        return xasprintf ("the source is a credential path (%s)", e);
    }
  hit = matching (b->canon, host_paths_stores.items, host_paths_stores.len,
                  false);
  if (hit)
    return xasprintf ("the source is a credential store of the host (%s)",
                      hit);
  hit = matching_list (b->canon, b->ctx->host->private_dirs, true);
  return hit ? xasprintf ("the source is agentrt's own directory %s", hit)
             : NULL;
}

static int
socket_reason (const struct bind *b, char **why, agentrt_error_t *err)
{
  const struct str_list *socks = &b->ctx->policy->socket_paths;
  const struct host_view *h = b->ctx->host;
  struct host_dirent *ents = NULL;
  size_t n = 0;
  const char *hit;

  *why = NULL;
  if (b->node.kind == HOST_SOCKET)
    {
      *why = xstrdup ("the source is a unix socket");
      return 0;
    }
  hit = matching_list (b->canon, socks, false);
  if (hit)
    {
      *why = xasprintf ("the source is a control socket path (%s)", hit);
      return 0;
    }
  if (b->node.kind != HOST_DIR)
    return 0;
  if (h->list_dir (h->ctx, b->canon, &ents, &n, err) < 0)
    return -1;
  for (size_t i = 0; *why == NULL && i < n; i++)
    if (ents[i].kind == HOST_SOCKET)
      *why = xstrdup ("the source directory holds unix sockets");
  free (ents);
  return 0;
}

/* Judges one bind: *why_drop is set when it must not be kept. */
static int
judge (struct bind *b, char **why_drop, agentrt_error_t *err)
{
  const struct host_view *h = b->ctx->host;
  cleanup_free char *rooted = xasprintf ("/%s", b->m->source);

  b->source = path_clean (b->m->source[0] == '/' ? b->m->source : rooted);
  *why_drop = dest_reason (b);
  if (*why_drop)
    return 0;
  if (h->open_source (h->ctx, b->m->source, true, &b->canon, &b->node, err)
      < 0)
    return -1;
  if (b->canon == NULL)
    return agentrt_error (err, ENOENT, "bind source `%s` does not exist",
                          b->m->source);
  if (strcmp (b->canon, "/") == 0)
    *why_drop = xstrdup ("the source is the host's root directory");
  if (*why_drop == NULL)
    *why_drop = device_reason (b);
  if (*why_drop == NULL)
    *why_drop = kernel_reason (b);
  if (*why_drop == NULL)
    *why_drop = credential_reason (b);
  if (*why_drop == NULL)
    return socket_reason (b, why_drop, err);
  return 0;
}

static void
add_option (struct oci_mount *m, const char *opt)
{
  if (!has_option (m, opt))
    str_list_append (&m->options, opt);
}

static void
remove_option (struct oci_mount *m, const char *opt)
{
  size_t out = 0;

  for (size_t i = 0; i < m->options.len; i++)
    if (strcmp (m->options.items[i], opt) == 0)
      free (m->options.items[i]);
    else
      m->options.items[out++] = m->options.items[i];
  m->options.len = out;
  if (m->options.items)
    m->options.items[out] = NULL;
}

static bool
is_writable (const struct oci_mount *m)
{
  return !has_option (m, "ro") && !has_option (m, "rro");
}

/* A writable bind of a host system directory, or of what lies in a
 * home's dot directories or bin (what the host runs later), is made
 * read-only: why, or NULL. */
static const char *
readonly_reason (const struct bind *b)
{
  const struct str_list *homes = b->ctx->host->homes;

  if (matching (b->canon, host_paths_system.items, host_paths_system.len,
                true))
    return "a system directory of the host: what root on the host runs";
  if (!b->ctx->policy->protect_persistence)
    return NULL;
  for (size_t i = 0; i < homes->len; i++)
    {
      const char *rest;
      if (!path_is_under (b->canon, homes->items[i])
          || strcmp (b->canon, homes->items[i]) == 0)
        continue;
      rest = b->canon + strlen (homes->items[i]) + 1;
      if (rest[0] == '.' || strcmp (rest, "bin") == 0
          || strncmp (rest, "bin/", 4) == 0)
        return "in a home's dot directories or bin: what the host user's "
               "tools run later";
    }
  return NULL;
}

/* A kept bind: its checked source, no setuid or device files (unless it
 * is an allowed device itself), read-only where the host runs what it
 * holds. */
static void
keep (struct bind *b, struct oci_mount *m, size_t index)
{
  struct binds_ctx *ctx = b->ctx;
  struct kept_bind *k;
  const char *ro;

  if (strcmp (b->canon, m->source) != 0)
    {
      change_addf (ctx->changes, CHANGE_MOUNT_SOURCE,
                   "what is mounted is the path that was checked",
                   "%s: %s -> %s", b->dest, m->source, b->canon);
      free (m->source);
      m->source = xstrdup (b->canon);
    }
  if (!has_option (m, "nosuid") || (!allowed_device (b) && !has_option (m, "nodev")))
    change_addf (ctx->changes, CHANGE_MOUNT_OPTIONS,
                 "no setuid files or device nodes through a bind mount",
                 "%s: nosuid%s", b->dest, allowed_device (b) ? "" : ", nodev");
  remove_option (m, "suid");
  add_option (m, "nosuid");
  if (!allowed_device (b))
    {
      remove_option (m, "dev");
      add_option (m, "nodev");
    }
  ro = is_writable (m) ? readonly_reason (b) : NULL;
  if (ro)
    {
      remove_option (m, "rw");
      remove_option (m, "rrw");
      add_option (m, "ro");
      add_option (m, "rro");
      change_addf (ctx->changes, CHANGE_MOUNT_OPTIONS, ro, "%s: read-only",
                   b->dest);
    }
  ctx->kept = xreallocarray (ctx->kept, ctx->n_kept + 1, sizeof (*ctx->kept));
  k = &ctx->kept[ctx->n_kept++];
  k->index = index;
  k->dest = steal_pointer (&b->dest);
  k->canon = steal_pointer (&b->canon);
  k->node = b->node;
  k->writable = is_writable (m);
  k->recursive = has_option (m, "rbind");
}

/* Returns 1 to keep the mount, 0 to drop it, -1 on error. */
static int
first_pass (struct binds_ctx *ctx, struct oci_mount *m, size_t index,
            agentrt_error_t *err)
{
  struct bind b = { .ctx = ctx, .m = m };
  cleanup_free char *why = NULL;
  int r = 1;

  if (m->source == NULL)
    return 1;
  binds_credential_heads (ctx);
  b.dest = path_clean (m->destination);
  if (judge (&b, &why, err) < 0)
    r = -1;
  else if (why)
    {
      change_addf (ctx->changes, CHANGE_MOUNT_DROPPED, why, "%s (source %s)",
                   b.dest, m->source);
      r = 0;
    }
  else
    keep (&b, m, index);
  bind_release (&b);
  return r;
}

static int
second_pass (struct binds_ctx *ctx, agentrt_error_t *err)
{
  for (size_t i = 0; i < ctx->n_kept; i++)
    {
      struct found_dirs homes = { NULL, 0 }, git = { NULL, 0 };
      int r;
      if (ctx->kept[i].node.kind != HOST_DIR)
        continue;
      r = bind_scan (ctx, &ctx->kept[i], &homes, &git, err);
      if (r == 0 && ctx->kept[i].writable)
        r = persistence_protect (ctx, i, &homes, &git, err);
      found_dirs_free (&homes);
      found_dirs_free (&git);
      if (r < 0)
        return agentrt_error_wrap (err, "mounts[%zu] (`%s`)",
                                   ctx->kept[i].index, ctx->kept[i].dest);
    }
  return 0;
}

/* The mounts in their order, the dropped ones left out, the added ones
 * right after the kept bind they belong to. */
static void
rebuild (struct binds_ctx *ctx, const bool *kept)
{
  struct oci_config *c = ctx->config;
  size_t n = 0, total = c->n_mounts + ctx->n_added, k = 0;
  struct oci_mount *out = xzalloc ((total + 1) * sizeof (*out));

  for (size_t i = 0; i < c->n_mounts; i++)
    {
      if (!kept[i])
        {
          binds_mount_release (&c->mounts[i]);
          continue;
        }
      out[n++] = c->mounts[i];
      while (k < ctx->n_kept && ctx->kept[k].index < i)
        k++;
      if (k < ctx->n_kept && ctx->kept[k].index == i)
        for (size_t a = 0; a < ctx->n_added; a++)
          if (ctx->added[a].after == k)
            {
              out[n++] = ctx->added[a].mount;
              memset (&ctx->added[a].mount, 0, sizeof (ctx->added[a].mount));
            }
    }
  free (c->mounts);
  c->mounts = out;
  c->n_mounts = n;
}

static void
ctx_release (struct binds_ctx *ctx)
{
  for (size_t i = 0; i < ctx->n_kept; i++)
    {
      free (ctx->kept[i].dest);
      free (ctx->kept[i].canon);
    }
  free (ctx->kept);
  for (size_t i = 0; i < ctx->n_added; i++)
    binds_mount_release (&ctx->added[i].mount);
  free (ctx->added);
  free (ctx->credential_heads);
}

int
binds_harden (struct oci_config *config, const struct agent_policy *policy,
              const struct host_view *host, struct harden_directives *d,
              struct change_list *changes, agentrt_error_t *err)
{
  struct binds_ctx ctx = { .config = config, .policy = policy, .host = host,
                           .changes = changes,
                           .required_masks = &d->required_masks,
                           .protected_paths = &d->protected_paths,
                           .protected_dirs = &d->protected_dirs };
  cleanup_free bool *kept = xzalloc ((config->n_mounts + 1) * sizeof (bool));
  int r = 0;

  for (size_t i = 0; r == 0 && i < config->n_mounts; i++)
    {
      struct oci_mount *m = &config->mounts[i];
      int keep_it = binds_is_bind (m) ? first_pass (&ctx, m, i, err) : 1;
      if (keep_it < 0)
        r = agentrt_error_wrap (err, "mounts[%zu] (`%s`)", i, m->destination);
      kept[i] = keep_it == 1;
    }
  if (r == 0)
    r = second_pass (&ctx, err);
  if (r == 0)
    rebuild (&ctx, kept);
  ctx_release (&ctx);
  return r;
}
