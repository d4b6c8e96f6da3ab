/* What a kept directory bind exposes (see bind_rules.h): a bounded walk of
 * its source through the host view (no symlink followed) that masks every
 * credential entry at any depth (where a symlink to one leads, too), every
 * unix socket, the host's credential, socket, kernel and runtime paths
 * below it, and the kernel filesystems an rbind carries; and that notes
 * the homes and git directories of writable binds for persistence.c. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "bind_rules.h"
#include "host_paths.h"
#include "paths.h"

/* A directory listed to match credential entries below it (a home's
 * .config, .docker), kept for the walk, which lists it next. */
struct listing
{
  char *dir;
  struct host_dirent *ents; /* NULL once the walk took it */
  size_t n;
};

struct walk
{
  struct binds_ctx *ctx;
  const struct kept_bind *kb;
  struct found_dirs *homes;
  struct found_dirs *git;
  struct listing *kept;
  size_t n_kept;
};

static char *
join (const char *dir, const char *rel)
{
  return rel[0] ? path_join (dir, rel) : xstrdup (dir);
}

void
found_dirs_free (struct found_dirs *d)
{
  for (size_t i = 0; i < d->len; i++)
    {
      free (d->items[i].rel);
      free (d->items[i].ents);
    }
  free (d->items);
  d->items = NULL;
  d->len = 0;
}

/* Records the directory `rel` with a copy of the n entries listed there. */
static void
found_add (struct found_dirs *d, const char *rel,
           const struct host_dirent *ents, size_t n)
{
  struct found_dir *f;

  d->items = xreallocarray (d->items, d->len + 1, sizeof (*d->items));
  f = &d->items[d->len++];
  f->rel = xstrdup (rel);
  f->ents = host_dirents_pack (ents, n);
  f->n = n;
}

/* Masks `rel` below the bind when it is there; a symlink is masked where
 * it leads inside the container's mounts. */
static int
mask_rel (struct walk *w, const char *rel, const char *why,
          agentrt_error_t *err)
{
  const struct kept_bind *kb = w->kb;
  cleanup_free char *host = join (kb->canon, rel);
  cleanup_free char *target = NULL;
  struct host_node node;

  if (w->ctx->host->lookup (w->ctx->host->ctx, host, &node, &target, err) < 0)
    return -1;
  if (node.kind == HOST_MISSING)
    return 0;
  if (node.kind == HOST_SYMLINK)
    {
      struct str_list where = { NULL, 0 };
      cleanup_free char *via = NULL;
      if (target == NULL)
        return 0; /* leads nowhere */
      via = xasprintf ("%s (a symlink to %s)", why, target);
      binds_container_paths (w->ctx, target, &where);
      for (size_t i = 0; i < where.len; i++)
        binds_mask (w->ctx, where.items[i], via);
      str_list_free (&where);
      return 0;
    }
  cleanup_free char *container = join (kb->dest, rel);
  binds_mask (w->ctx, container, why);
  return 0;
}

/* Masks what the absolute host pattern names below the bind: `rest`
 * (components, globs allowed) below the directory `rel`. */
static int
expand_pattern (struct walk *w, const char *rel, const char *rest,
                const char *why, agentrt_error_t *err)
{
  size_t len = strcspn (rest, "/");
  const char *next = rest[len] ? rest + len + 1 : NULL;
  struct host_dirent *ents = NULL;
  size_t n = 0;
  int r = 0;

  if (!path_is_pattern (rest, len))
    {
      cleanup_free char *comp = xstrndup (rest, len);
      cleanup_free char *sub = rel[0] ? path_join (rel, comp) : xstrdup (comp);
      if (next == NULL)
        return mask_rel (w, sub, why, err);
      return expand_pattern (w, sub, next, why, err);
    }
  cleanup_free char *dir = join (w->kb->canon, rel);
  struct host_node node;
  if (w->ctx->host->lookup (w->ctx->host->ctx, dir, &node, NULL, err) < 0)
    return -1;
  if (node.kind != HOST_DIR)
    return 0;
  if (w->ctx->host->list_dir (w->ctx->host->ctx, dir, &ents, &n, err) < 0)
    return -1;
  for (size_t i = 0; r == 0 && i < n; i++)
    {
      cleanup_free char *sub = NULL;
      if (!path_component_match (rest, len, ents[i].name,
                                 strlen (ents[i].name)))
        continue;
      sub = rel[0] ? path_join (rel, ents[i].name) : xstrdup (ents[i].name);
      if (next == NULL)
        r = mask_rel (w, sub, why, err);
      else if (ents[i].kind == HOST_DIR)
        r = expand_pattern (w, sub, next, why, err);
    }
  free (ents);
  return r;
}

/* Host paths of a list below the bind's source are masked. */
static int
ancestor_masks (struct walk *w, const char *const *patterns, size_t n,
                const char *what, agentrt_error_t *err)
{
  for (size_t i = 0; i < n; i++)
    {
      const char *rest = NULL;
      if (patterns[i][0] != '/'
          || path_relate (w->kb->canon, patterns[i], &rest) != PATH_ABOVE)
        continue;
      cleanup_free char *why = xasprintf ("%s %s in the bind mount of %s",
                                          what, patterns[i], w->kb->canon);
      if (expand_pattern (w, "", rest, why, err) < 0)
        return -1;
    }
  return 0;
}

static int
list_masks (struct walk *w, const struct str_list *l, const char *what,
            agentrt_error_t *err)
{
  return ancestor_masks (w, (const char *const *) l->items, l->len, what, err);
}

/* Absolute credential entries are container paths too (where engines put
 * service-account tokens): below the destination, masked when the source
 * has them. */
static int
destination_masks (struct walk *w, agentrt_error_t *err)
{
  const struct str_list *creds = &w->ctx->policy->credential_paths;

  for (size_t i = 0; i < creds->len; i++)
    {
      const char *rest = NULL;
      if (creds->items[i][0] != '/'
          || path_relate (w->kb->dest, creds->items[i], &rest) != PATH_ABOVE)
        continue;
      cleanup_free char *why = xasprintf ("credential location %s",
                                          creds->items[i]);
      if (expand_pattern (w, "", rest, why, err) < 0)
        return -1;
    }
  return 0;
}

static int
check_credential (struct walk *w, const char *rel, const char *entry,
                  agentrt_error_t *err)
{
  cleanup_free char *sub = rel[0] ? path_join (rel, entry) : xstrdup (entry);
  cleanup_free char *why = xasprintf ("credential path %s in the bind mount "
                                      "of %s", entry, w->kb->canon);
  return mask_rel (w, sub, why, err);
}

/* A relative entry whose leading components are the source's or the
 * destination's last ones (a mounted ~/.docker holds config.json). */
static int
tail_masks (struct walk *w, agentrt_error_t *err)
{
  const struct str_list *creds = &w->ctx->policy->credential_paths;

  for (size_t i = 0; i < creds->len; i++)
    {
      const char *e = creds->items[i];
      if (e[0] == '/')
        continue;
      for (const char *slash = strchr (e, '/'); slash;
           slash = strchr (slash + 1, '/'))
        {
          cleanup_free char *head = xstrndup (e, (size_t) (slash - e));
          if ((path_has_components (w->kb->canon, head, true)
               || path_has_components (w->kb->dest, head, true))
              && check_credential (w, "", slash + 1, err) < 0)
            return -1;
        }
    }
  return 0;
}

/* A relative credential entry being matched below the directory `rel`
 * where its first component was found: `rest` is what is left of it. */
struct cred_match
{
  const char *entry, *rest;
};

struct cred_matches
{
  const char *rel; /* where the entries start */
  struct cred_match *items;
  size_t len;
};

static void
cred_matches_add (struct cred_matches *m, const char *entry, const char *rest)
{
  m->items = xreallocarray (m->items, m->len + 1, sizeof (*m->items));
  m->items[m->len].entry = entry;
  m->items[m->len++].rest = rest;
}

/* The directory entry `sub` (below the bind, of kind `kind` as listed) is
 * the credential path `entry`: masked, or where it leads when it is a
 * symlink. */
static int
mask_listed (struct walk *w, const char *rel, const char *entry,
             const char *sub, enum host_kind kind, agentrt_error_t *err)
{
  if (kind == HOST_SYMLINK)
    return check_credential (w, rel, entry, err);
  cleanup_free char *container = path_join (w->kb->dest, sub);
  cleanup_free char *why = xasprintf ("credential path %s in the bind mount "
                                      "of %s", entry, w->kb->canon);
  binds_mask (w->ctx, container, why);
  return 0;
}

static int list_counted (struct walk *w, const char *dir,
                         struct host_dirent **ents, size_t *n,
                         agentrt_error_t *err);

static void
keep_listing (struct walk *w, const char *dir, struct host_dirent *ents,
              size_t n)
{
  w->kept = xreallocarray (w->kept, w->n_kept + 1, sizeof (*w->kept));
  w->kept[w->n_kept++] = (struct listing){ xstrdup (dir), ents, n };
}

/* The listing of `dir` kept for the walk, if any (counted already). */
static bool
take_listing (struct walk *w, const char *dir, struct host_dirent **ents,
              size_t *n)
{
  for (size_t i = 0; i < w->n_kept; i++)
    if (w->kept[i].ents && strcmp (w->kept[i].dir, dir) == 0)
      {
        *ents = w->kept[i].ents;
        *n = w->kept[i].n;
        w->kept[i].ents = NULL;
        w->kept[i].n = 0;
        return true;
      }
  return false;
}

/* Drops the listings kept since the walk had `from` of them. */
static void
drop_listings (struct walk *w, size_t from)
{
  for (size_t i = from; i < w->n_kept; i++)
    {
      free (w->kept[i].ents);
      free (w->kept[i].dir);
    }
  w->n_kept = from;
}

/* The rest of the entries m below `sub` (a directory entry below the bind,
 * of kind `kind` as listed).  A directory is listed once and each rest's
 * next component looked for in the listing (a bound home's .config matches
 * some forty entries, nearly all absent: a lookup each cost more than the
 * listing); a symlink is looked up entry by entry (the mask goes where it
 * leads); anything else holds nothing.  With `keep`, the listing is kept
 * for the walk, which goes on into `sub` next (not listed twice). */
static int
credential_rests (struct walk *w, const char *sub, enum host_kind kind,
                  const struct cred_matches *m, bool keep, agentrt_error_t *err)
{
  struct host_dirent *ents = NULL;
  size_t n = 0;
  int r = 0;

  if (kind == HOST_SYMLINK)
    {
      for (size_t i = 0; i < m->len; i++)
        if (check_credential (w, m->rel, m->items[i].entry, err) < 0)
          return -1;
      return 0;
    }
  if (kind != HOST_DIR)
    return 0;
  cleanup_free char *dir = path_join (w->kb->canon, sub);
  if (list_counted (w, dir, &ents, &n, err) < 0)
    return -1;
  for (size_t e = 0; r == 0 && e < n; e++)
    {
      const char *child = ents[e].name;
      size_t len = strlen (child);
      struct cred_matches deeper = { m->rel, NULL, 0 };
      cleanup_free char *below = path_join (sub, child);
      for (size_t i = 0; r == 0 && i < m->len; i++)
        {
          const char *rest = m->items[i].rest;
          if (strncmp (rest, child, len) != 0
              || (rest[len] != '\0' && rest[len] != '/'))
            continue;
          if (rest[len] == '\0')
            r = mask_listed (w, m->rel, m->items[i].entry, below,
                             ents[e].kind, err);
          else
            cred_matches_add (&deeper, m->items[i].entry, rest + len + 1);
        }
      if (r == 0 && deeper.len)
        r = credential_rests (w, below, ents[e].kind, &deeper, false, err);
      free (deeper.items);
    }
  if (r == 0 && keep)
    keep_listing (w, dir, ents, n);
  else
    free (ents);
  return r;
}

/* Relative credential entries whose first component is the entry `ent`
 * of the directory `rel` (the sorted first components make a miss, the
 * usual case, cheap). */
static int
credential_entries (struct walk *w, const char *rel,
                    const struct host_dirent *ent, agentrt_error_t *err)
{
  const struct str_list *creds = &w->ctx->policy->credential_paths;
  const char *name = ent->name;
  size_t n = strlen (name);
  struct cred_matches m = { rel, NULL, 0 };
  int r = 0;

  if (!binds_credential_head (w->ctx, name, n))
    return 0;
  cleanup_free char *sub = rel[0] ? path_join (rel, name) : xstrdup (name);
  for (size_t i = 0; r == 0 && i < creds->len; i++)
    {
      const char *e = creds->items[i];
      if (e[0] == '/' || strncmp (e, name, n) != 0)
        continue;
      if (e[n] == '\0')
        r = mask_listed (w, rel, e, sub, ent->kind, err);
      else if (e[n] == '/')
        cred_matches_add (&m, e, e + n + 1);
    }
  if (r == 0 && m.len)
    r = credential_rests (w, sub, ent->kind, &m, true, err);
  free (m.items);
  return r;
}

static bool
is_masked (const struct walk *w, const char *rel)
{
  cleanup_free char *container = join (w->kb->dest, rel);
  return str_list_contains (w->ctx->required_masks, container);
}

static int
budget (struct walk *w, size_t n, const char *dir, agentrt_error_t *err)
{
  uint64_t limit = w->ctx->policy->bind_scan_entries;

  w->ctx->scanned += n;
  if (w->ctx->scanned <= limit)
    return 0;
  return agentrt_error (err, E2BIG, "more than %llu entries to check for "
                        "credentials and sockets (reached in `%s`; the "
                        "policy's binds.scanEntries)",
                        (unsigned long long) limit, dir);
}

/* Lists `dir` and counts its entries against the scan's budget; nothing
 * to free on failure. */
static int
list_counted (struct walk *w, const char *dir, struct host_dirent **ents,
              size_t *n, agentrt_error_t *err)
{
  if (w->ctx->host->list_dir (w->ctx->host->ctx, dir, ents, n, err) < 0
      || budget (w, *n, dir, err) < 0)
    {
      free (*ents);
      *ents = NULL;
      *n = 0;
      return -1;
    }
  return 0;
}

/* A bare repository: HEAD, config, objects/ and refs/. */
static bool
is_git_dir (const struct host_dirent *ents, size_t n)
{
  unsigned seen = 0;

  for (size_t i = 0; i < n; i++)
    {
      const char *name = ents[i].name;
      enum host_kind k = ents[i].kind;
      if (k == HOST_FILE && strcmp (name, "HEAD") == 0)
        seen |= 1;
      else if (k == HOST_FILE && strcmp (name, "config") == 0)
        seen |= 2;
      else if (k == HOST_DIR && strcmp (name, "objects") == 0)
        seen |= 4;
      else if (k == HOST_DIR && strcmp (name, "refs") == 0)
        seen |= 8;
    }
  return seen == 15;
}

static void
mask_socket (struct walk *w, const char *rel, const char *name)
{
  cleanup_free char *sub = rel[0] ? path_join (rel, name) : xstrdup (name);
  cleanup_free char *container = path_join (w->kb->dest, sub);
  binds_mask (w->ctx, container, "a unix socket in a bind mount");
}

static int git_dir_scan (struct walk *w, const char *gitdir, unsigned depth,
                         agentrt_error_t *err);

/* The git directories in `kind` (modules: submodules, which nest;
 * worktrees) of the .git one `gitdir`. */
static int
git_children (struct walk *w, const char *gitdir, const char *kind,
              unsigned depth, agentrt_error_t *err)
{
  cleanup_free char *rel = path_join (gitdir, kind);
  cleanup_free char *dir = path_join (w->kb->canon, rel);
  struct host_dirent *ents = NULL;
  size_t n = 0;
  int r = 0;

  if (list_counted (w, dir, &ents, &n, err) < 0)
    return -1;
  for (size_t i = 0; r == 0 && i < n; i++)
    if (ents[i].kind == HOST_DIR)
      {
        cleanup_free char *sub = path_join (rel, ents[i].name);
        r = git_dir_scan (w, sub, depth + 1, err);
      }
  free (ents);
  return r;
}

/* A git directory the walk does not go through: its sockets (git's
 * fsmonitor daemon listens at fsmonitor--daemon.ipc in it), what
 * persistence.c protects in it, and the git directories it holds (found
 * in its listing, not looked up). */
static int
git_dir_scan (struct walk *w, const char *gitdir, unsigned depth,
              agentrt_error_t *err)
{
  cleanup_free char *dir = path_join (w->kb->canon, gitdir);
  struct host_dirent *ents = NULL;
  size_t n = 0;
  int r = 0;

  if (list_counted (w, dir, &ents, &n, err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++)
    if (ents[i].kind == HOST_SOCKET)
      mask_socket (w, gitdir, ents[i].name);
  if (w->kb->writable)
    found_add (w->git, gitdir, ents, n);
  for (size_t i = 0; r == 0 && i < n && depth < w->ctx->policy->bind_scan_depth;
       i++)
    if (ents[i].kind == HOST_DIR
        && (strcmp (ents[i].name, "modules") == 0
            || strcmp (ents[i].name, "worktrees") == 0))
      r = git_children (w, gitdir, ents[i].name, depth, err);
  free (ents);
  return r;
}

static bool
is_home (const struct walk *w, const char *dir, const struct host_dirent *ents,
         size_t n)
{
  if (str_list_contains (w->ctx->host->homes, dir))
    return true;
  for (size_t i = 0; i < n; i++)
    if (host_paths_is_home_marker (ents[i].name))
      return true;
  return false;
}

static int walk_dir (struct walk *w, const char *rel, unsigned depth,
                     agentrt_error_t *err);

/* The directories below `rel` the walk goes on into. */
static int
descend (struct walk *w, const char *rel, const struct host_dirent *ents,
         size_t n, unsigned depth, agentrt_error_t *err)
{
  for (size_t i = 0; i < n; i++)
    {
      const char *name = ents[i].name;
      cleanup_free char *sub = NULL;

      if (ents[i].kind != HOST_DIR)
        continue;
      sub = rel[0] ? path_join (rel, name) : xstrdup (name);
      if (is_masked (w, sub))
        continue;
      if (strcmp (name, ".git") == 0)
        {
          if (git_dir_scan (w, sub, depth + 1, err) < 0)
            return -1;
          continue;
        }
      if (host_paths_is_pruned (name)
          || depth + 1 >= w->ctx->policy->bind_scan_depth)
        continue;
      if (walk_dir (w, sub, depth + 1, err) < 0)
        return -1;
    }
  return 0;
}

static int
walk_dir (struct walk *w, const char *rel, unsigned depth,
          agentrt_error_t *err)
{
  cleanup_free char *dir = join (w->kb->canon, rel);
  struct host_dirent *ents = NULL;
  size_t n = 0, kept = w->n_kept;
  int r = 0;

  if (take_listing (w, dir, &ents, &n))
    ;
  else if (w->ctx->host->list_dir (w->ctx->host->ctx, dir, &ents, &n, err) < 0)
    {
      cleanup_free char *container = join (w->kb->dest, rel);
      return agentrt_error_wrap (err, "`%s`", container);
    }
  else if (budget (w, n, dir, err) < 0)
    {
      free (ents);
      return -1;
    }
  for (size_t i = 0; r == 0 && i < n; i++)
    {
      r = credential_entries (w, rel, &ents[i], err);
      if (r == 0 && ents[i].kind == HOST_SOCKET)
        mask_socket (w, rel, ents[i].name);
    }
  /* persistence.c protects what the host runs later in writable binds */
  if (r == 0 && w->kb->writable && is_home (w, dir, ents, n))
    found_add (w->homes, rel, ents, n);
  if (r == 0 && w->kb->writable && is_git_dir (ents, n))
    found_add (w->git, rel, ents, n);
  if (r == 0)
    r = descend (w, rel, ents, n, depth, err);
  drop_listings (w, kept);
  free (ents);
  return r;
}

/* Kernel interfaces an rbind brings along from below its source. */
static int
submount_masks (struct walk *w, agentrt_error_t *err)
{
  struct host_mount *mounts = NULL;
  size_t n = 0;

  if (!w->kb->recursive)
    return 0;
  if (w->ctx->host->submounts (w->ctx->host->ctx, w->kb->canon, &mounts, &n,
                               err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++)
    if (mounts[i].special_fs)
      {
        const char *rest = mounts[i].path + strlen (w->kb->canon);
        cleanup_free char *container = xasprintf ("%s%s", w->kb->dest, rest);
        cleanup_free char *why = xasprintf ("a %s mount of the host in the "
                                            "bind mount of %s",
                                            mounts[i].special_fs,
                                            w->kb->canon);
        binds_mask (w->ctx, container, why);
      }
  host_mounts_free (mounts, n);
  return 0;
}

int
bind_scan (struct binds_ctx *ctx, const struct kept_bind *kb,
           struct found_dirs *homes, struct found_dirs *git,
           agentrt_error_t *err)
{
  struct walk w = { ctx, kb, homes, git, NULL, 0 };
  const struct agent_policy *p = ctx->policy;
  int r;

  if (list_masks (&w, &p->credential_paths, "credential path", err) < 0
      || list_masks (&w, &p->socket_paths, "control socket path", err) < 0
      || ancestor_masks (&w, host_paths_stores.items, host_paths_stores.len,
                         "credential store", err) < 0
      || ancestor_masks (&w, host_paths_kernel.items, host_paths_kernel.len,
                         "host kernel path", err) < 0
      || list_masks (&w, ctx->host->private_dirs, "agentrt's own directory",
                     err) < 0
      || destination_masks (&w, err) < 0 || tail_masks (&w, err) < 0
      || submount_masks (&w, err) < 0)
    return -1;
  r = walk_dir (&w, "", 0, err);
  drop_listings (&w, 0);
  free (w.kept);
  return r;
}
