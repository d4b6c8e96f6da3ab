/* Creating the container's cgroup directories in every hierarchy, with what
 * each needs before a process can join (v1 cpuset.cpus/mems copied from the
 * parent, v2 controllers enabled in the ancestors' subtree_control), and
 * removing exactly the directories a failed create made. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"

/* Number of components of an absolute path ("/a/b" -> 2). */
static int
path_depth (const char *path)
{
  int n = 0;
  for (const char *p = path; *p; p++)
    if (*p == '/' && p[1] != '\0')
      n++;
  return n;
}

/* mount_point + the first `levels` components of path. */
static char *
prefix_path (const char *mount_point, const char *path, int levels)
{
  const char *p = path;
  for (int i = 0; i < levels && *p; i++)
    {
      p++;
      p += strcspn (p, "/");
    }
  return xasprintf ("%s%.*s", mount_point, (int) (p - path), path);
}

/* mkdir -p of the container path; *first is the level (0-based) of the
 * first directory created, -1 when all existed.  Retries when a parent
 * vanishes under us (a concurrent failed create removing what it made). */
static int
mkdir_chain (const char *mount_point, const char *path, int *first,
             agentrt_error_t *err)
{
  int depth = path_depth (path);
  cleanup_free char *leaf = prefix_path (mount_point, path, depth);

  *first = -1;
  if (mkdir (leaf, 0755) == 0)
    {
      *first = depth - 1;
      return 0;
    }
  if (errno == EEXIST)
    return 0;
  if (errno != ENOENT)
    return agentrt_error (err, errno, "create cgroup `%s`", leaf);
  for (int attempt = 0; attempt < 5; attempt++)
    {
      int level;
      *first = -1;
      for (level = 1; level <= depth; level++)
        {
          cleanup_free char *dir = prefix_path (mount_point, path, level);
          if (mkdir (dir, 0755) == 0)
            {
              if (*first < 0)
                *first = level - 1;
            }
          else if (errno == ENOENT)
            break;
          else if (errno != EEXIST)
            return agentrt_error (err, errno, "create cgroup `%s`", dir);
        }
      if (level > depth)
        return 0;
    }
  return agentrt_error (err, ENOENT, "create cgroup `%s`", leaf);
}

static ssize_t
read_at_level (const char *mount_point, const char *path, int level,
               const char *file, char *buf, size_t size, agentrt_error_t *err)
{
  cleanup_free char *dir = prefix_path (mount_point, path, level);
  cleanup_close int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct cg_dir d = { .fd = fd, .path = dir };

  if (fd < 0)
    return agentrt_error (err, errno, "open cgroup `%s`", dir);
  return cg_read_buf (&d, file, buf, size, err);
}

/* v1 cpuset: a new cgroup has empty cpus/mems and refuses tasks until they
 * are set.  Fills `file` at `level` from its parent, filling empty
 * ancestors first (an ancestor someone else created may be empty too). */
static int
fill_cpuset (const char *mount_point, const char *path, int level,
             const char *file, agentrt_error_t *err)
{
  char have[4096], want[4096];
  cleanup_free char *dir = NULL;
  cleanup_close int fd = -1;
  struct cg_dir d;

  if (read_at_level (mount_point, path, level, file, have, sizeof have, err) < 0)
    return -1;
  if (have[0] != '\0' && have[0] != '\n')
    return 0;
  if (read_at_level (mount_point, path, level - 1, file, want, sizeof want, err)
      < 0)
    return -1;
  if ((want[0] == '\0' || want[0] == '\n') && level > 1)
    {
      if (fill_cpuset (mount_point, path, level - 1, file, err) < 0
          || read_at_level (mount_point, path, level - 1, file, want,
                            sizeof want, err) < 0)
        return -1;
    }
  dir = prefix_path (mount_point, path, level);
  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  d = (struct cg_dir){ .fd = fd, .path = dir };
  if (fd < 0)
    return agentrt_error (err, errno, "open cgroup `%s`", dir);
  return cg_write (&d, file, want, err);
}

static int
init_cpuset (const char *mount_point, const char *path, agentrt_error_t *err)
{
  int depth = path_depth (path);

  if (fill_cpuset (mount_point, path, depth, "cpuset.cpus", err) < 0
      || fill_cpuset (mount_point, path, depth, "cpuset.mems", err) < 0)
    return agentrt_error_wrap (err, "initialise the cpuset");
  return 0;
}

static void
ctrl_list (unsigned mask, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int c = 0; c < CG_NCTRL; c++)
    if ((mask & (1u << c)) && c != CG_CPUACCT && c != CG_DEVICES
        && c != CG_FREEZER)
      {
        size_t len = strlen (buf);
        snprintf (buf + len, size - len, "%s+%s", len ? " " : "",
                  cg_ctrl_name (c, true));
      }
}

/* Enables `want` in one level's cgroup.subtree_control: all at once, and
 * when the kernel refuses, one by one, failing only on a `need`ed one. */
static int
enable_level (const char *dir, unsigned want, unsigned need,
              agentrt_error_t *err)
{
  cleanup_close int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct cg_dir d = { .fd = fd, .path = (char *) dir };
  char text[512], list[256];
  unsigned missing;

  if (fd < 0)
    return agentrt_error (err, errno, "open cgroup `%s`", dir);
  if (cg_read_buf (&d, "cgroup.controllers", text, sizeof text, err) < 0)
    return -1;
  want &= cg_parse_v2_ctrls (text);
  if (cg_read_buf (&d, "cgroup.subtree_control", text, sizeof text, err) < 0)
    return -1;
  missing = want & ~cg_parse_v2_ctrls (text);
  ctrl_list (missing, list, sizeof list);
  if (list[0] == '\0' || cg_write (&d, "cgroup.subtree_control", list, err) == 0)
    return 0;
  agentrt_error_release (err);
  for (int c = 0; c < CG_NCTRL; c++)
    {
      ctrl_list (missing & (1u << c), list, sizeof list);
      if (list[0] && cg_write (&d, "cgroup.subtree_control", list, err) < 0)
        {
          if (need & (1u << c))
            return agentrt_error_wrap (err, "enable the %s controller",
                                       cg_ctrl_name (c, true));
          agentrt_error_release (err);
        }
    }
  return 0;
}

/* v2: makes `want` available in the container's cgroup.  Fast path: the
 * parent already delegates everything; else walk down from the root. */
static int
enable_controllers (const struct cg_hier *h, const char *path, unsigned want,
                    unsigned need, agentrt_error_t *err)
{
  int depth = path_depth (path);
  cleanup_free char *parent = prefix_path (h->mount_point, path, depth - 1);
  cleanup_close int fd = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct cg_dir d = { .fd = fd, .path = parent };
  char text[512];

  if (want == 0)
    return 0;
  if (fd < 0)
    return agentrt_error (err, errno, "open cgroup `%s`", parent);
  if (cg_read_buf (&d, "cgroup.subtree_control", text, sizeof text, err) < 0)
    return -1;
  if ((want & ~cg_parse_v2_ctrls (text)) == 0)
    return 0;
  for (int level = 0; level < depth; level++)
    {
      cleanup_free char *dir = prefix_path (h->mount_point, path, level);
      if (enable_level (dir, want, need, err) < 0)
        return -1;
    }
  return 0;
}

static unsigned
v2_wanted (const struct cgroup_layout *l, unsigned needed)
{
  /* devices and freezer are core cgroup2 features, cpuacct is cpu's. */
  unsigned pseudo = 1u << CG_CPUACCT | 1u << CG_DEVICES | 1u << CG_FREEZER;
  unsigned mine = 0;

  for (int c = 0; c < CG_NCTRL; c++)
    if (l->route[c] == l->unified)
      mine |= 1u << c;
  mine &= ~pseudo;
  needed &= ~pseudo;
  /* v2: everything it has, as runc does; hybrid: only what is needed, so
   * the host's cgroup2 root is changed only for a requested limit. */
  return l->mode == CGROUP_MODE_V2 ? mine : mine & needed;
}

int
cg_create_dirs (struct cgroup *cg, unsigned needed, int *created,
                agentrt_error_t *err)
{
  const struct cgroup_layout *l = cg->layout;

  for (size_t i = 0; i < l->n; i++)
    created[i] = -1;
  for (size_t i = 0; i < l->n; i++)
    {
      const struct cg_hier *h = &l->h[i];

      if (mkdir_chain (h->mount_point, cg->path, &created[i], err) < 0)
        return -1;
      if (!h->v2 && (h->ctrls & (1u << CG_CPUSET))
          && init_cpuset (h->mount_point, cg->path, err) < 0)
        return -1;
      if (h->v2
          && enable_controllers (h, cg->path, v2_wanted (l, needed), needed, err)
                 < 0)
        return -1;
      if (created[i] >= 0)
        cg->owned = true;
    }
  return 0;
}

void
cg_remove_created (struct cgroup *cg, const int *created)
{
  int depth = path_depth (cg->path);

  for (size_t i = 0; i < cg->layout->n; i++)
    {
      if (created[i] < 0)
        continue;
      if (cg->dirs[i].fd >= 0)
        {
          close (cg->dirs[i].fd);
          cg->dirs[i].fd = -1;
        }
      for (int level = depth; level > created[i]; level--)
        {
          cleanup_free char *dir
              = prefix_path (cg->layout->h[i].mount_point, cg->path, level);
          agentrt_error_t ignored = NULL;
          /* Parents may have gained siblings meanwhile: EBUSY keeps them. */
          if (level == depth)
            cg_rmdir_tree (dir, &ignored);
          else
            rmdir (dir);
          agentrt_error_release (&ignored);
        }
    }
}
