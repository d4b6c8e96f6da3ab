/* An in-memory host view for the policy unit tests: a table of nodes
 * (files, dirs, sockets, devices, symlinks); every ancestor of a node is a
 * directory.  Bind sources are followed the way realpath does (relative
 * paths against /bundle); every other question follows no symlink.  The
 * host's mounts (for kernel filesystems), its namespaces, homes and the
 * runtime's private dirs are tables too; one path can be made to fail
 * (EACCES) to test that the hardening refuses what it cannot inspect. */
#ifndef AGENTRT_POLICY_FAKEHOST_H
#define AGENTRT_POLICY_FAKEHOST_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "runtime/policy/host_facts.h"
#include "runtime/policy/host_view.h"

struct fake_node
{
  const char *path;
  char type; /* 'f' file, 'd' dir, 's' socket, 'o' other, 'l' symlink,
                'c' char device, 'b' block device */
  const char *target; /* symlinks: the target; devices: "MAJOR:MINOR" */
};

/* A mount of the fake host: path and filesystem type. */
struct fake_mount
{
  const char *path;
  const char *fstype;
};

struct fake_host
{
  const struct fake_node *nodes;   /* terminated by a NULL path */
  const char *fail_path;           /* calls about this path fail */
  unsigned calls;
  const struct fake_mount *mounts; /* NULL-terminated, or NULL */
  const char *const *host_ns;      /* namespace files that are the host's */
  struct str_list homes;
  struct str_list private_dirs;
};

/* The node's type, 'd' for an implied directory, 0 when missing. */
static char
fake_type (const struct fake_host *fh, const char *path)
{
  size_t n = strlen (path);

  if (strcmp (path, "/") == 0)
    return 'd';
  for (const struct fake_node *f = fh->nodes; f->path; f++)
    if (strcmp (f->path, path) == 0)
      return f->type;
  for (const struct fake_node *f = fh->nodes; f->path; f++)
    if (strncmp (f->path, path, n) == 0 && f->path[n] == '/')
      return 'd';
  return 0;
}

static const char *
fake_target (const struct fake_host *fh, const char *path)
{
  for (const struct fake_node *f = fh->nodes; f->path; f++)
    if (strcmp (f->path, path) == 0)
      return f->target;
  return NULL;
}

static int
fake_check_fail (struct fake_host *fh, const char *path, agentrt_error_t *err)
{
  fh->calls++;
  if (fh->fail_path && strcmp (fh->fail_path, path) == 0)
    return agentrt_error (err, EACCES, "inspect `%s`", path);
  return 0;
}

/* Resolves every symlink the way realpath does; NULL when missing or
 * looping. */
static char *
fake_follow (const struct fake_host *fh, const char *path)
{
  int loop = 0;
  char *p = xstrdup (path);

  for (;;)
    {
      char *rest = p[0] == '/' ? xstrdup (p) : xasprintf ("/bundle/%s", p);
      char *cur = xstrdup (""), *q = rest, *next = NULL;

      free (p);
      p = NULL;
      while (*q && next == NULL)
        {
          size_t n;
          char *cand;
          char t;

          while (*q == '/')
            q++;
          n = strcspn (q, "/");
          if (n == 0)
            break;
          if ((n == 1 && q[0] == '.') || (n == 2 && q[0] == '.' && q[1] == '.'))
            {
              char *slash = n == 2 ? strrchr (cur, '/') : NULL;
              if (slash)
                *slash = '\0';
              q += n;
              continue;
            }
          cand = xasprintf ("%s/%.*s", cur, (int) n, q);
          t = fake_type (fh, cand);
          q += n;
          if (t == 0)
            {
              free (cand);
              free (cur);
              free (rest);
              return NULL;
            }
          if (t == 'l')
            {
              const char *target = fake_target (fh, cand);
              next = target[0] == '/' ? xasprintf ("%s%s", target, q)
                                      : xasprintf ("%s/%s%s", cur, target, q);
              free (cand);
              continue;
            }
          free (cur);
          cur = cand;
        }
      free (rest);
      if (next == NULL)
        {
          if (cur[0] == '\0')
            {
              free (cur);
              return xstrdup ("/");
            }
          return cur;
        }
      free (cur);
      if (++loop > 40)
        {
          free (next);
          return NULL;
        }
      p = next;
    }
}

/* The special filesystem of the deepest mount holding `path`. */
static const char *
fake_special_fs (const struct fake_host *fh, const char *path)
{
  const struct fake_mount *best = NULL;

  for (const struct fake_mount *m = fh->mounts; m && m->path; m++)
    {
      size_t n = strlen (m->path);
      if ((strncmp (path, m->path, n) == 0
           && (path[n] == '\0' || path[n] == '/' || strcmp (m->path, "/") == 0))
          && (best == NULL || n > strlen (best->path)))
        best = m;
    }
  return best ? host_facts_special_fs_name (best->fstype) : NULL;
}

static void
fake_node_of (const struct fake_host *fh, const char *path, char t,
              struct host_node *node)
{
  const char *target = fake_target (fh, path);

  memset (node, 0, sizeof (*node));
  node->kind = t == 'f' ? HOST_FILE : t == 'd' ? HOST_DIR
             : t == 's' ? HOST_SOCKET : t == 'c' ? HOST_CHAR
             : t == 'b' ? HOST_BLOCK : t == 'l' ? HOST_SYMLINK
             : t ? HOST_OTHER : HOST_MISSING;
  if ((t == 'c' || t == 'b') && target)
    sscanf (target, "%u:%u", &node->major, &node->minor);
  node->special_fs = fake_special_fs (fh, path);
}

/* The first symlink on the way to `path` (itself included), or 0/type. */
static char
fake_type_nofollow (const struct fake_host *fh, const char *path)
{
  char *prefix = xstrdup (path);
  char t = 0;

  for (char *p = prefix + 1;; p++)
    {
      char saved = *p;
      if (saved != '/' && saved != '\0')
        continue;
      *p = '\0';
      t = fake_type (fh, prefix);
      *p = saved;
      if (t == 0 || t == 'l' || saved == '\0')
        break;
    }
  free (prefix);
  return t;
}

static int
fake_open_source (void *ctx, const char *path, bool follow, char **canonical,
                  struct host_node *node, agentrt_error_t *err)
{
  struct fake_host *fh = ctx;
  char t;

  *canonical = NULL;
  memset (node, 0, sizeof (*node));
  if (fake_check_fail (fh, path, err) < 0)
    return -1;
  if (follow)
    *canonical = fake_follow (fh, path);
  else if (fake_type_nofollow (fh, path) != 'l')
    *canonical = xstrdup (path);
  if (*canonical == NULL)
    return 0;
  t = fake_type (fh, *canonical);
  if (t == 0)
    {
      free (*canonical);
      *canonical = NULL;
      return 0;
    }
  fake_node_of (fh, *canonical, t, node);
  return 0;
}

static int
fake_lookup (void *ctx, const char *path, struct host_node *node, char **target,
             agentrt_error_t *err)
{
  struct fake_host *fh = ctx;
  char t;

  memset (node, 0, sizeof (*node));
  if (target)
    *target = NULL;
  if (fake_check_fail (fh, path, err) < 0)
    return -1;
  t = fake_type_nofollow (fh, path);
  fake_node_of (fh, path, t, node);
  if (t == 'l' && target)
    *target = fake_follow (fh, path);
  return 0;
}

/* The listing in its one-allocation form (host_dirents_pack), names and
 * array made one by one released. */
static void
pack_listing (struct host_dirent **entries, size_t n)
{
  struct host_dirent *packed = host_dirents_pack (*entries, n);

  for (size_t i = 0; i < n; i++)
    free ((*entries)[i].name);
  free (*entries);
  *entries = packed;
}

static int
fake_list_dir (void *ctx, const char *dir, struct host_dirent **entries,
               size_t *n, agentrt_error_t *err)
{
  struct fake_host *fh = ctx;
  size_t len = strcmp (dir, "/") ? strlen (dir) : 0;

  *entries = NULL;
  *n = 0;
  if (fake_check_fail (fh, dir, err) < 0)
    return -1;
  if (fake_type_nofollow (fh, dir) != 'd')
    return agentrt_error (err, ENOTDIR, "list `%s`", dir);
  for (const struct fake_node *f = fh->nodes; f->path; f++)
    {
      const char *child;
      char *name, *full;
      bool seen = false;
      struct host_node node;

      if (strncmp (f->path, dir, len) != 0 || f->path[len] != '/')
        continue;
      child = f->path + len + 1;
      name = xstrndup (child, strcspn (child, "/"));
      for (size_t i = 0; i < *n; i++)
        seen |= strcmp ((*entries)[i].name, name) == 0;
      if (seen)
        {
          free (name);
          continue;
        }
      full = xasprintf ("%s/%s", len ? dir : "", name);
      fake_node_of (fh, full, fake_type (fh, full), &node);
      free (full);
      *entries = xreallocarray (*entries, *n + 1, sizeof (**entries));
      (*entries)[*n].name = name;
      (*entries)[(*n)++].kind = node.kind;
    }
  pack_listing (entries, *n);
  return 0;
}

static int
fake_submounts (void *ctx, const char *dir, struct host_mount **mounts,
                size_t *n, agentrt_error_t *err)
{
  struct fake_host *fh = ctx;
  size_t len = strlen (dir);

  (void) err;
  *mounts = NULL;
  *n = 0;
  for (const struct fake_mount *m = fh->mounts; m && m->path; m++)
    if (strncmp (m->path, dir, len) == 0 && m->path[len] == '/')
      {
        *mounts = xreallocarray (*mounts, *n + 1, sizeof (**mounts));
        (*mounts)[*n].path = xstrdup (m->path);
        (*mounts)[(*n)++].special_fs = host_facts_special_fs_name (m->fstype);
      }
  return 0;
}

static int
fake_ns_is_host (void *ctx, const char *path, enum oci_namespace_type type,
                 bool *is_host, agentrt_error_t *err)
{
  struct fake_host *fh = ctx;

  (void) type;
  *is_host = false;
  if (fake_check_fail (fh, path, err) < 0)
    return -1;
  for (size_t i = 0; fh->host_ns && fh->host_ns[i]; i++)
    *is_host |= strcmp (fh->host_ns[i], path) == 0;
  return 0;
}

/* A test bundle's config.json text parsed, or NULL (the reason on
 * stderr). */
static inline struct oci_config *
fake_config (const char *json)
{
  agentrt_error_t err = NULL;
  struct oci_config *c = oci_config_parse (json, strlen (json), "test", &err);

  if (c == NULL)
    fprintf (stderr, "parse: %s\n", err->msg);
  agentrt_error_release (&err);
  return c;
}

static void
fake_host_view (struct host_view *view, struct fake_host *fh)
{
  memset (view, 0, sizeof (*view));
  view->ctx = fh;
  view->open_source = fake_open_source;
  view->lookup = fake_lookup;
  view->list_dir = fake_list_dir;
  view->submounts = fake_submounts;
  view->ns_is_host = fake_ns_is_host;
  view->homes = &fh->homes;
  view->private_dirs = &fh->private_dirs;
}

static void
fake_host_release (struct fake_host *fh)
{
  str_list_free (&fh->homes);
  str_list_free (&fh->private_dirs);
}

#endif
