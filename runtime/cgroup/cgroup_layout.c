/* cgroup layout detection: which hierarchies are mounted under
 * /sys/fs/cgroup (v1, hybrid or v2), which controllers each carries, and
 * this process's cgroup in each.  Parsed from mountinfo and /proc/self/cgroup
 * text, so tests can feed a copied mountinfo pointing at a fake tree. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mountinfo.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"

#define SYS_FS_CGROUP "/sys/fs/cgroup"

static const char *const v1_names[CG_NCTRL] = {
  [CG_CPU] = "cpu",         [CG_CPUACCT] = "cpuacct", [CG_CPUSET] = "cpuset",
  [CG_MEMORY] = "memory",   [CG_DEVICES] = "devices", [CG_FREEZER] = "freezer",
  [CG_BLKIO] = "blkio",     [CG_PIDS] = "pids",       [CG_HUGETLB] = "hugetlb",
  [CG_NET_CLS] = "net_cls", [CG_NET_PRIO] = "net_prio", [CG_RDMA] = "rdma",
};

const char *
cg_ctrl_name (enum cg_ctrl ctrl, bool v2)
{
  if (v2 && ctrl == CG_BLKIO)
    return "io";
  if (v2 && ctrl == CG_CPUACCT)
    return "cpu";
  return v1_names[ctrl];
}

int
cg_ctrl_from_name (const char *name, size_t len, bool v2)
{
  for (int c = 0; c < CG_NCTRL; c++)
    {
      const char *n = cg_ctrl_name (c, v2);
      if (strlen (n) == len && memcmp (n, name, len) == 0)
        return c;
    }
  return -1;
}

char *
cg_hier_path (const struct cg_hier *h, const char *path)
{
  return xasprintf ("%s%s", h->mount_point, strcmp (path, "/") ? path : "");
}

/* Options in a v1 cgroup superblock that are not controllers. */
static bool
is_v1_flag (const char *opt, size_t len)
{
  static const char *const flags[]
      = { "rw", "ro", "xattr", "noprefix", "clone_children", "cpuset_v2_mode",
          "favordynmods", "nofavordynmods", "memory_localevents",
          "memory_recursiveprot", "nsdelegate", NULL };
  for (size_t i = 0; flags[i]; i++)
    if (strlen (flags[i]) == len && memcmp (flags[i], opt, len) == 0)
      return true;
  return len > 14 && memcmp (opt, "release_agent=", 14) == 0;
}

/* v1: controllers and name= from the super options.  Returns false for
 * hierarchies agentrt does not join (named ones other than systemd). */
static bool
v1_hier (struct cg_hier *h, const char *opts)
{
  size_t len = strlen (opts) + 16;
  char *data = xzalloc (len), *name = NULL;

  for (const char *p = opts; *p;)
    {
      size_t n = strcspn (p, ",");
      if (n > 5 && memcmp (p, "name=", 5) == 0)
        name = xstrndup (p, n);
      else if (n > 0 && !is_v1_flag (p, n))
        {
          int c = cg_ctrl_from_name (p, n, false);
          if (c >= 0)
            h->ctrls |= 1u << c;
          if (*data)
            strcat (data, ",");
          strncat (data, p, n);
        }
      p += n + (p[n] == ',');
    }
  if (*data == '\0' && (name == NULL || strcmp (name, "name=systemd") != 0))
    {
      free (data);
      free (name);
      return false;
    }
  if (name)
    {
      if (*data == '\0')
        strcat (data, "none");
      strcat (data, ",");
      strncat (data, name, len - strlen (data) - 1);
      free (name);
    }
  h->data = data;
  return true;
}

/* Sorted copy of a comma list, so "cpuacct,cpu" equals "cpu,cpuacct". */
static int
cmp_str (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static char *
canonical_list (const char *list)
{
  cleanup_free char *copy = xstrdup (list);
  char *items[64], *save = NULL, *out;
  size_t n = 0, len = 0;

  for (char *t = strtok_r (copy, ",", &save); t && n < 64;
       t = strtok_r (NULL, ",", &save))
    {
      if (strcmp (t, "none") == 0)
        continue;
      items[n++] = t;
      len += strlen (t) + 1;
    }
  qsort (items, n, sizeof items[0], cmp_str);
  out = xzalloc (len + 1);
  for (size_t i = 0; i < n; i++)
    {
      if (i)
        strcat (out, ",");
      strcat (out, items[i]);
    }
  return out;
}

static bool
same_hierarchy (const struct cg_hier *h, const char *num, const char *ctrls)
{
  cleanup_free char *want = NULL, *have = NULL;

  if (h->v2)
    return strcmp (num, "0") == 0 && *ctrls == '\0';
  want = canonical_list (h->data);
  have = canonical_list (ctrls);
  return *have && strcmp (want, have) == 0;
}

char *
cg_proc_cgroup_path (const struct cg_hier *h, const char *proc_cgroup)
{
  const char *line = proc_cgroup;

  while (line && *line)
    {
      const char *end = strchr (line, '\n');
      size_t len = end ? (size_t) (end - line) : strlen (line);
      cleanup_free char *copy = xstrndup (line, len);
      char *c1 = strchr (copy, ':'), *c2 = c1 ? strchr (c1 + 1, ':') : NULL;

      line = end ? end + 1 : NULL;
      if (c2 == NULL || c2[1] != '/')
        continue;
      *c1 = *c2 = '\0';
      if (same_hierarchy (h, copy, c1 + 1))
        return cg_clean_path (c2 + 1);
    }
  return NULL;
}

/* Fills h->own from /proc/self/cgroup text ("4:memory:/x", "0::/y"). */
static void
find_own (struct cg_hier *h, const char *self_cgroup)
{
  char *own = cg_proc_cgroup_path (h, self_cgroup);

  if (own)
    {
      free (h->own);
      h->own = own;
    }
}

static void
hier_release (struct cg_hier *h)
{
  free (h->dir);
  free (h->mount_point);
  free (h->data);
  free (h->own);
}

void
cgroup_layout_free (struct cgroup_layout *layout)
{
  if (layout == NULL)
    return;
  for (size_t i = 0; i < layout->n; i++)
    hier_release (&layout->h[i]);
  free (layout->h);
  free (layout);
}

/* Adds (or, for a mount stacked on the same directory, replaces) a
 * hierarchy. */
static void
add_hier (struct cgroup_layout *l, struct cg_hier *h)
{
  for (size_t i = 0; i < l->n; i++)
    if (strcmp (l->h[i].dir, h->dir) == 0)
      {
        hier_release (&l->h[i]);
        l->h[i] = *h;
        return;
      }
  l->h = xreallocarray (l->h, l->n + 1, sizeof *l->h);
  l->h[l->n++] = *h;
}

/* The mount that is visible at /sys/fs/cgroup (the last one there). */
static bool
find_top (const char *mountinfo, struct mountinfo_line *top, char **buf)
{
  bool found = false;
  const char *line = mountinfo;

  *buf = NULL;
  while (line && *line)
    {
      const char *end = strchr (line, '\n');
      size_t len = end ? (size_t) (end - line) : strlen (line);
      char *copy = xstrndup (line, len);
      struct mountinfo_line m;

      line = end ? end + 1 : NULL;
      if (mountinfo_split (copy, &m) == 0 && strcmp (m.mount_point, SYS_FS_CGROUP) == 0)
        {
          free (*buf);
          *buf = copy;
          *top = m;
          found = true;
        }
      else
        free (copy);
    }
  return found;
}

static void
consider_mount (struct cgroup_layout *l, struct mountinfo_line *m,
                const struct mountinfo_line *top, const char *root)
{
  struct cg_hier h = { 0 };
  const char *rel;
  bool v2 = strcmp (m->fstype, "cgroup2") == 0;

  if (!v2 && strcmp (m->fstype, "cgroup") != 0)
    return;
  if (strncmp (m->mount_point, SYS_FS_CGROUP "/", sizeof SYS_FS_CGROUP) != 0)
    return;
  rel = m->mount_point + sizeof SYS_FS_CGROUP;
  if (*rel == '\0' || strchr (rel, '/') || strcmp (rel, "..") == 0
      || strcmp (rel, ".") == 0)
    return;
  if (top && m->parent != top->id)
    return; /* hidden below a later mount of /sys/fs/cgroup */
  h.v2 = v2;
  if (!v2 && !v1_hier (&h, m->super_opts))
    return;
  h.dir = xstrdup (rel);
  h.mount_point = xasprintf ("%s/%s", root, rel);
  h.own = xstrdup ("/");
  add_hier (l, &h);
}

/* v2 controllers available at the root of the hierarchy. */
static void
read_v2_controllers (struct cg_hier *h)
{
  cleanup_free char *path = xasprintf ("%s/cgroup.controllers", h->mount_point);
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  char buf[512];
  ssize_t n;

  h->ctrls = 1u << CG_DEVICES | 1u << CG_FREEZER;
  if (fd < 0 || (n = read (fd, buf, sizeof buf - 1)) <= 0)
    return;
  buf[n] = '\0';
  h->ctrls |= cg_parse_v2_ctrls (buf);
}

unsigned
cg_parse_v2_ctrls (const char *text)
{
  unsigned mask = 0;

  for (const char *p = text; *p;)
    {
      size_t n = strcspn (p, " \n");
      int c = n ? cg_ctrl_from_name (p, n, true) : -1;
      if (c >= 0)
        mask |= 1u << c;
      p += n;
      p += strspn (p, " \n");
    }
  if (mask & (1u << CG_CPU))
    mask |= 1u << CG_CPUACCT;
  return mask;
}

static void
route (struct cgroup_layout *l)
{
  for (int c = 0; c < CG_NCTRL; c++)
    {
      l->route[c] = -1;
      for (size_t i = 0; i < l->n; i++)
        if (!l->h[i].v2 && (l->h[i].ctrls & (1u << c)))
          l->route[c] = (int) i;
      /* Controllers not on a v1 hierarchy go to cgroup2 when it has them. */
      if (l->route[c] < 0 && l->unified >= 0
          && (l->h[l->unified].ctrls & (1u << c)))
        l->route[c] = l->unified;
    }
}

struct cgroup_layout *
cgroup_layout_parse (const char *mountinfo, const char *self_cgroup,
                     const char *cgroup_root, agentrt_error_t *err)
{
  struct cgroup_layout *l = xzalloc (sizeof *l);
  const char *root = cgroup_root ? cgroup_root : SYS_FS_CGROUP;
  cleanup_free char *topbuf = NULL;
  struct mountinfo_line top;
  bool has_top = find_top (mountinfo, &top, &topbuf);

  l->fake = cgroup_root != NULL;
  l->unified = -1;
  if (has_top && strcmp (top.fstype, "cgroup2") == 0)
    {
      struct cg_hier h = { .dir = xstrdup (""), .mount_point = xstrdup (root),
                           .own = xstrdup ("/"), .v2 = true };
      add_hier (l, &h);
    }
  else
    {
      const char *line = mountinfo;
      while (line && *line)
        {
          const char *end = strchr (line, '\n');
          cleanup_free char *copy
              = xstrndup (line, end ? (size_t) (end - line) : strlen (line));
          struct mountinfo_line m;

          line = end ? end + 1 : NULL;
          if (mountinfo_split (copy, &m) == 0)
            consider_mount (l, &m, has_top ? &top : NULL, root);
        }
    }
  if (l->n == 0)
    {
      cgroup_layout_free (l);
      agentrt_error (err, 0, "no cgroup filesystem is mounted on or below %s",
                     SYS_FS_CGROUP);
      return NULL;
    }
  for (size_t i = 0; i < l->n; i++)
    {
      if (l->h[i].v2)
        {
          l->unified = (int) i;
          read_v2_controllers (&l->h[i]);
        }
      find_own (&l->h[i], self_cgroup ? self_cgroup : "");
    }
  if (l->n == 1 && l->unified == 0 && l->h[0].dir[0] == '\0')
    l->mode = CGROUP_MODE_V2;
  else
    l->mode = l->unified >= 0 ? CGROUP_MODE_HYBRID : CGROUP_MODE_V1;
  route (l);
  return l;
}

static char *
read_proc (const char *path, agentrt_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  size_t size = 8192, len = 0;
  cleanup_free char *buf = NULL;

  if (fd < 0)
    {
      agentrt_error (err, errno, "open `%s`", path);
      return NULL;
    }
  buf = xmalloc (size);
  for (;;)
    {
      ssize_t r = read (fd, buf + len, size - len - 1);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          agentrt_error (err, errno, "read `%s`", path);
          return NULL;
        }
      if (r == 0)
        break;
      len += (size_t) r;
      if (len + 1 == size)
        buf = xrealloc (buf, size *= 2);
    }
  buf[len] = '\0';
  return steal_pointer (&buf);
}

const struct cgroup_layout *
cgroup_layout_host (agentrt_error_t *err)
{
  static struct cgroup_layout *host;
  cleanup_free char *mountinfo = NULL, *self = NULL;

  if (host)
    return host;
  mountinfo = read_proc ("/proc/self/mountinfo", err);
  if (mountinfo == NULL)
    return NULL;
  self = read_proc ("/proc/self/cgroup", err);
  if (self == NULL)
    return NULL;
  host = cgroup_layout_parse (mountinfo, self, NULL, err);
  return host;
}

enum cgroup_mode
cgroup_layout_mode (const struct cgroup_layout *layout)
{
  return layout->mode;
}

const char *
cgroup_mode_name (enum cgroup_mode mode)
{
  switch (mode)
    {
    case CGROUP_MODE_V1:
      return "v1";
    case CGROUP_MODE_HYBRID:
      return "hybrid";
    case CGROUP_MODE_V2:
      return "v2";
    }
  return "unknown";
}
