/* cgroup path rules: from linux.cgroupsPath (or its absence) and the
 * container id to the path of the container's cgroup, relative to the root
 * of every hierarchy; with --systemd-cgroup, "slice:prefix:name" to the
 * transient scope's unit name and cgroup path.  Pure string work. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"

/* Like Go's filepath.Clean, which runc applies: "." and empty components
 * vanish, ".." removes the previous one and never climbs above the start.
 * Absolute in, absolute out ("/" at least); relative in, relative out ("" at
 * least). */
char *
cg_clean_path (const char *path)
{
  size_t len = strlen (path);
  char *out = xzalloc (len + 2), *o = out;
  bool abs = path[0] == '/';

  if (abs)
    *o++ = '/';
  for (const char *p = path; *p;)
    {
      size_t n = strcspn (p, "/");
      if (n == 2 && p[0] == '.' && p[1] == '.')
        {
          /* Back up over the previous component and its separator. */
          while (o > out + abs && o[-1] != '/')
            o--;
          if (o > out + abs)
            o--;
        }
      else if (n > 0 && !(n == 1 && p[0] == '.'))
        {
          if (o > out + abs)
            *o++ = '/';
          memcpy (o, p, n);
          o += n;
        }
      p += n;
      while (*p == '/')
        p++;
    }
  *o = '\0';
  return out;
}

static bool
valid_unit_chars (const char *s)
{
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
          || (*s >= '0' && *s <= '9') || strchr (":_.-@", *s)))
      return false;
  return true;
}

static bool
ends_with (const char *s, const char *suffix)
{
  size_t a = strlen (s), b = strlen (suffix);
  return a >= b && strcmp (s + a - b, suffix) == 0;
}

int
cg_slice_path (const char *slice, char **out, agentrt_error_t *err)
{
  size_t len;
  char *path, *o;

  if (strcmp (slice, "-.slice") == 0 || strcmp (slice, "-") == 0)
    {
      *out = xstrdup ("");
      return 0;
    }
  len = strlen (slice);
  if (!ends_with (slice, ".slice") || len == 6 || len > 255
      || !valid_unit_chars (slice) || slice[0] == '-' || slice[len - 7] == '-'
      || strstr (slice, "--"))
    return agentrt_error (err, 0, "invalid systemd slice `%s`", slice);
  len -= 6;
  /* One "/<prefix>.slice" per dash-separated prefix, then the whole. */
  path = o = xzalloc (len * (len + 8) + 1);
  for (size_t i = 0; i <= len; i++)
    if (i == len || slice[i] == '-')
      {
        *o++ = '/';
        memcpy (o, slice, i);
        o += i;
        memcpy (o, ".slice", 6);
        o += 6;
      }
  *o = '\0';
  *out = path;
  return 0;
}

static int
resolve_systemd (const char *id, const char *cgroups_path, struct cg_target *t,
                 agentrt_error_t *err)
{
  cleanup_free char *copy = NULL, *slice_path = NULL;
  char *parts[3], *sep;
  const char *slice;

  if (cgroups_path == NULL || *cgroups_path == '\0')
    {
      t->slice = xstrdup ("system.slice");
      t->unit = xasprintf ("agentrt-%s.scope", id);
    }
  else
    {
      copy = xstrdup (cgroups_path);
      parts[0] = copy;
      for (int i = 1; i < 3; i++)
        {
          sep = strchr (parts[i - 1], ':');
          if (sep == NULL)
            return agentrt_error (err, 0,
                                  "linux.cgroupsPath `%s`: expected "
                                  "\"slice:prefix:name\" with --systemd-cgroup",
                                  cgroups_path);
          *sep = '\0';
          parts[i] = sep + 1;
        }
      if (strchr (parts[2], ':') || parts[2][0] == '\0')
        return agentrt_error (err, 0,
                              "linux.cgroupsPath `%s`: expected "
                              "\"slice:prefix:name\" with --systemd-cgroup",
                              cgroups_path);
      if (ends_with (parts[2], ".slice"))
        return agentrt_error (err, 0,
                              "linux.cgroupsPath `%s`: creating a slice is "
                              "not supported, only scopes",
                              cgroups_path);
      slice = parts[0][0] ? parts[0] : "system.slice";
      t->slice = strcmp (slice, "-") == 0 ? xstrdup ("-.slice") : xstrdup (slice);
      t->unit = parts[1][0] ? xasprintf ("%s-%s.scope", parts[1], parts[2])
                            : xasprintf ("%s.scope", parts[2]);
    }
  if (!valid_unit_chars (t->unit) || strlen (t->unit) > 255)
    return agentrt_error (err, 0, "invalid systemd unit name `%s`", t->unit);
  if (cg_slice_path (t->slice, &slice_path, err) < 0)
    return agentrt_error_wrap (err, "linux.cgroupsPath");
  t->path = xasprintf ("%s/%s", slice_path, t->unit);
  return 0;
}

/* Relative paths start at this process's cgroup: in the systemd named
 * hierarchy on v1/hybrid, and at the parent of it on v2 (a cgroup with
 * processes cannot enable controllers for children), as runc does. */
static const char *
relative_base (const struct cgroup_layout *l, char **to_free)
{
  *to_free = NULL;
  if (l->mode == CGROUP_MODE_V2)
    {
      const char *own = l->h[0].own;
      const char *slash = strrchr (own, '/');
      *to_free = xstrndup (own, slash > own ? (size_t) (slash - own) : 1);
      return *to_free;
    }
  for (size_t i = 0; i < l->n; i++)
    if (l->h[i].data && strstr (l->h[i].data, "name=systemd"))
      return l->h[i].own;
  return l->h[0].own;
}

int
cg_resolve (const struct cgroup_layout *layout, const char *id,
            const char *cgroups_path, bool systemd, struct cg_target *t,
            agentrt_error_t *err)
{
  cleanup_free char *clean = NULL, *base_buf = NULL;
  const char *p;

  memset (t, 0, sizeof *t);
  if (id == NULL || *id == '\0' || strchr (id, '/') || strcmp (id, ".") == 0
      || strcmp (id, "..") == 0)
    return agentrt_error (err, 0, "invalid container id `%s` for a cgroup",
                          id ? id : "");
  if (systemd)
    {
      if (resolve_systemd (id, cgroups_path, t, err) == 0)
        return 0;
      cg_target_release (t);
      return -1;
    }
  p = cgroups_path && *cgroups_path ? cgroups_path : id;
  clean = cg_clean_path (p);
  if (clean[0] == '/')
    t->path = steal_pointer (&clean);
  else
    {
      const char *base = relative_base (layout, &base_buf);
      cleanup_free char *joined = xasprintf ("%s/%s", base, clean);
      t->path = cg_clean_path (joined);
    }
  if (strcmp (t->path, "/") == 0)
    {
      free (t->path);
      t->path = NULL;
      return agentrt_error (err, 0,
                            "linux.cgroupsPath `%s` resolves to the root cgroup",
                            p);
    }
  return 0;
}

char *
cg_user_manager_root (const char *own)
{
  const char *p = own;

  while ((p = strstr (p, "/user@")) != NULL)
    {
      const char *end = strchr (p + 1, '/');
      size_t len = end ? (size_t) (end - own) : strlen (own);

      /* a whole component "user@UID.service", UID not empty */
      if (len - (size_t) (p - own) > strlen ("/user@.service")
          && strncmp (own + len - 8, ".service", 8) == 0)
        return xstrndup (own, len);
      p++;
    }
  return NULL;
}

void
cg_target_release (struct cg_target *t)
{
  free (t->path);
  free (t->unit);
  free (t->slice);
  memset (t, 0, sizeof *t);
}
