/* No host-side persistence through a writable bind (see bind_rules.h).
 * What the host user's own tools run later must stay read-only to the
 * agent:
 * - a home directory keeps its top level read-only (its files, the dot
 *   files and dot directories that shells, sessions, editors and git read
 *   and run, `bin`, and no new entry can be made there); its other
 *   directories (projects, documents) are bound again writable on top;
 * - a git directory keeps `config`, `hooks` (made empty when missing: git
 *   treats both alike), `info` and `config.worktree` read-only; the agent
 *   can still commit (objects, refs, the index stay writable). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "bind_rules.h"
#include "paths.h"

static char *
join (const char *dir, const char *rel)
{
  return rel[0] ? path_join (dir, rel) : xstrdup (dir);
}

/* Replaces ro/rw (and rro/rrw) in the options by `mode`. */
static void
set_mode (struct oci_mount *m, const char *mode, const char *rmode)
{
  size_t out = 0;

  for (size_t i = 0; i < m->options.len; i++)
    {
      const char *o = m->options.items[i];
      if (strcmp (o, "ro") == 0 || strcmp (o, "rw") == 0
          || strcmp (o, "rro") == 0 || strcmp (o, "rrw") == 0)
        free (m->options.items[i]);
      else
        m->options.items[out++] = m->options.items[i];
    }
  m->options.len = out;
  if (m->options.items)
    m->options.items[out] = NULL;
  str_list_append (&m->options, mode);
  if (rmode)
    str_list_append (&m->options, rmode);
}

/* Adds {dest, source, rbind} right after the kept bind, its source opened
 * below the kept one's (no symlink on the way: a directory swapped for one
 * since the scan is left out). */
static int
add_bind (struct binds_ctx *ctx, size_t after, const char *dest,
          const char *source, bool writable, agentrt_error_t *err)
{
  cleanup_free char *canon = NULL;
  struct added_mount *a;
  struct host_node node;

  if (ctx->host->open_source (ctx->host->ctx, source, false, &canon, &node,
                              err) < 0)
    return -1;
  if (node.kind != HOST_DIR)
    return 0;
  ctx->added = xreallocarray (ctx->added, ctx->n_added + 1,
                              sizeof (*ctx->added));
  a = &ctx->added[ctx->n_added++];
  memset (a, 0, sizeof (*a));
  a->after = after;
  a->mount.destination = xstrdup (dest);
  a->mount.type = xstrdup ("bind");
  a->mount.source = steal_pointer (&canon);
  str_list_append (&a->mount.options, "rbind");
  str_list_append (&a->mount.options, "nosuid");
  str_list_append (&a->mount.options, "nodev");
  set_mode (&a->mount, writable ? "rw" : "ro", writable ? NULL : "rro");
  return 0;
}

/* A home's other directories, writable again over its read-only top. */
static bool
stays_writable (const struct host_dirent *e)
{
  return e->kind == HOST_DIR && e->name[0] != '.'
         && strcmp (e->name, "bin") != 0;
}

static int
protect_home (struct binds_ctx *ctx, size_t ki, const struct found_dir *home,
              agentrt_error_t *err)
{
  const struct kept_bind *kb = &ctx->kept[ki];
  const char *rel = home->rel;
  cleanup_free char *host = join (kb->canon, rel);
  cleanup_free char *dest = join (kb->dest, rel);
  int r = 0;

  if (rel[0] == '\0')
    set_mode (&ctx->config->mounts[kb->index], "ro", "rro");
  else if (add_bind (ctx, ki, dest, host, false, err) < 0)
    return -1;
  change_addf (ctx->changes, CHANGE_PATH_READONLY,
               "a home in a writable bind: what shells, sessions, editors "
               "and git run later stays as the host user left it",
               "%s (its top level, dot files and dot directories)", dest);
  for (size_t i = 0; r == 0 && i < home->n; i++)
    {
      const struct host_dirent *e = &home->ents[i];
      if (!stays_writable (e))
        continue;
      cleanup_free char *sub_dest = path_join (dest, e->name);
      cleanup_free char *sub_host = path_join (host, e->name);
      r = add_bind (ctx, ki, sub_dest, sub_host, true, err);
    }
  return r;
}

static void
protect (struct binds_ctx *ctx, struct str_list *list, const char *path,
         const char *why)
{
  if (!str_list_contains (ctx->protected_paths, path)
      && !str_list_contains (ctx->protected_dirs, path))
    str_list_append (list, path);
  change_add (ctx->changes, CHANGE_PATH_READONLY, path, why);
}

static void
protect_git (struct binds_ctx *ctx, const struct kept_bind *kb,
             const struct found_dir *git)
{
  static const char *const names[] = { "config", "config.worktree", "info" };
  static const char why[] = "git runs what these name on the host "
                            "(core.hooksPath, core.fsmonitor, hooks)";
  cleanup_free char *dest = join (kb->dest, git->rel);
  cleanup_free char *hooks = path_join (dest, "hooks");
  bool has_hooks = false;

  for (size_t i = 0; i < git->n; i++)
    {
      const char *name = git->ents[i].name;
      if (strcmp (name, "hooks") == 0)
        has_hooks = true;
      for (size_t k = 0; k < sizeof (names) / sizeof (names[0]); k++)
        if (strcmp (name, names[k]) == 0)
          {
            cleanup_free char *path = path_join (dest, names[k]);
            protect (ctx, ctx->protected_paths, path, why);
          }
    }
  protect (ctx, has_hooks ? ctx->protected_paths : ctx->protected_dirs, hooks,
           has_hooks ? why : "git runs hooks on the host (made as an empty "
                             "directory: it was missing)");
}

/* Is the home `rel` inside the read-only part of an earlier home (a home
 * found in a dot directory stays read-only as a whole)? */
static bool
inside_protected (const struct found_dirs *homes, size_t i)
{
  const char *rel = homes->items[i].rel;

  for (size_t k = 0; k < i; k++)
    {
      const char *outer = homes->items[k].rel;
      size_t n = strlen (outer);
      const char *rest;
      if (n && (strncmp (rel, outer, n) != 0 || rel[n] != '/'))
        continue;
      rest = n ? rel + n + 1 : rel;
      if (rest[0] == '.'
          || (strncmp (rest, "bin", 3) == 0
              && (rest[3] == '\0' || rest[3] == '/')))
        return true;
    }
  return false;
}

int
persistence_protect (struct binds_ctx *ctx, size_t ki,
                     const struct found_dirs *homes,
                     const struct found_dirs *git, agentrt_error_t *err)
{
  if (!ctx->policy->protect_persistence)
    return 0;
  for (size_t i = 0; i < homes->len; i++)
    if (!inside_protected (homes, i)
        && protect_home (ctx, ki, &homes->items[i], err) < 0)
      return -1;
  for (size_t i = 0; i < git->len; i++)
    protect_git (ctx, &ctx->kept[ki], &git->items[i]);
  return 0;
}
