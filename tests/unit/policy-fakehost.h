/* An in-memory host view for the policy unit tests: a table of nodes
 * (files, dirs, sockets, symlinks); every ancestor of a node is a
 * directory.  Symlinks are followed the way realpath does, relative paths
 * are taken against /bundle, and one path can be made to fail (EACCES) to
 * test that the hardening refuses what it cannot inspect. */
#ifndef AGENTRT_POLICY_FAKEHOST_H
#define AGENTRT_POLICY_FAKEHOST_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "runtime/policy/host_view.h"

struct fake_node
{
  const char *path;
  char type; /* 'f' file, 'd' dir, 's' socket, 'o' other, 'l' symlink */
  const char *target;
};

struct fake_host
{
  const struct fake_node *nodes; /* terminated by a NULL path */
  const char *fail_path;         /* calls about this path fail */
  unsigned calls;
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

static int
fake_resolve (void *ctx, const char *path, char **canonical,
              enum host_kind *kind, agentrt_error_t *err)
{
  struct fake_host *fh = ctx;
  char t;

  *canonical = NULL;
  *kind = HOST_MISSING;
  if (fake_check_fail (fh, path, err) < 0)
    return -1;
  *canonical = fake_follow (fh, path);
  if (*canonical == NULL)
    return 0;
  t = fake_type (fh, *canonical);
  *kind = t == 'f' ? HOST_FILE : t == 'd' ? HOST_DIR
        : t == 's' ? HOST_SOCKET : HOST_OTHER;
  return 0;
}

static int
fake_exists (void *ctx, const char *path, bool *exists, agentrt_error_t *err)
{
  struct fake_host *fh = ctx;
  const char *slash = strrchr (path, '/');
  char *dir, *real_dir, *full;

  *exists = false;
  if (fake_check_fail (fh, path, err) < 0)
    return -1;
  dir = slash == path ? xstrdup ("/") : xstrndup (path, (size_t) (slash - path));
  real_dir = fake_follow (fh, dir);
  if (real_dir)
    {
      full = xasprintf ("%s/%s", strcmp (real_dir, "/") ? real_dir : "",
                        slash + 1);
      *exists = fake_type (fh, full) != 0;
      free (full);
    }
  free (real_dir);
  free (dir);
  return 0;
}

static int
fake_scan_dir (void *ctx, const char *dir, struct str_list *subdirs,
               bool *has_socket, agentrt_error_t *err)
{
  struct fake_host *fh = ctx;
  size_t n = strlen (dir);

  *has_socket = false;
  if (fake_check_fail (fh, dir, err) < 0)
    return -1;
  for (const struct fake_node *f = fh->nodes; f->path; f++)
    {
      const char *child;
      char *name, *full;
      char t;

      if (strncmp (f->path, dir, n) != 0 || f->path[n] != '/')
        continue;
      child = f->path + n + 1;
      name = xstrndup (child, strcspn (child, "/"));
      full = xasprintf ("%s/%s", dir, name);
      t = fake_type (fh, full);
      if (t == 'd' && !str_list_contains (subdirs, name))
        str_list_append (subdirs, name);
      else if (t == 's')
        *has_socket = true;
      free (full);
      free (name);
    }
  return 0;
}

static void
fake_host_view (struct host_view *view, struct fake_host *fh)
{
  view->ctx = fh;
  view->resolve = fake_resolve;
  view->exists = fake_exists;
  view->scan_dir = fake_scan_dir;
}

#endif
