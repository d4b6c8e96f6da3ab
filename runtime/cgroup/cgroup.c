/* The container cgroup's lifecycle: cgroup_enter (create or join, apply
 * the resources and device rules, move the process in, undo everything on
 * failure), reopening from the state, joining more processes, update,
 * destroy, and the mount plan for the container's init. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"

const char *
cgroup_path (const struct cgroup *cg)
{
  return cg->path;
}

const char *
cgroup_systemd_unit (const struct cgroup *cg)
{
  return cg->systemd_unit;
}

bool
cgroup_owned (const struct cgroup *cg)
{
  return cg->owned;
}

static void
close_dirs (struct cgroup *cg)
{
  for (size_t i = 0; i < cg->layout->n; i++)
    if (cg->dirs[i].fd >= 0)
      {
        close (cg->dirs[i].fd);
        cg->dirs[i].fd = -1;
      }
}

void
cgroup_free (struct cgroup *cg)
{
  if (cg == NULL)
    return;
  close_dirs (cg);
  for (size_t i = 0; i < cg->layout->n; i++)
    free (cg->dirs[i].path);
  free (cg->dirs);
  free (cg->path);
  free (cg->systemd_unit);
  free (cg);
}

static void
cleanup_cgroup_fn (struct cgroup **cg)
{
  cgroup_free (*cg);
}
#define cleanup_cgroup __attribute__ ((cleanup (cleanup_cgroup_fn)))

void
cgroup_result_release (struct cgroup_result *result)
{
  str_list_free (&result->warnings);
}

struct cgroup *
cgroup_open (const struct cgroup_layout *layout, const char *path,
             const char *systemd_unit, bool owned, agentrt_error_t *err)
{
  cleanup_free char *clean = path ? cg_clean_path (path) : NULL;

  if (layout == NULL && (layout = cgroup_layout_host (err)) == NULL)
    return NULL;
  /* Only what cgroup_enter produces: absolute, clean, not the root. */
  if (path == NULL || path[0] != '/' || strcmp (path, "/") == 0
      || strcmp (clean, path) != 0)
    {
      agentrt_error (err, 0, "invalid cgroup path `%s` in the state",
                     path ? path : "");
      return NULL;
    }
  return cg_new (layout, path, systemd_unit, owned);
}

static char *
read_proc_cgroup (pid_t pid)
{
  char path[64], buf[8192];
  cleanup_close int fd = -1;
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/cgroup", (int) pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  n = fd < 0 ? -1 : read (fd, buf, sizeof buf - 1);
  if (n < 0)
    return NULL;
  buf[n] = '\0';
  return xstrdup (buf);
}

/* After a failed move: back to where the process was in the hierarchies
 * already written, so that the new directories can be removed. */
static void
move_back (struct cgroup *cg, size_t upto, pid_t pid, const char *before)
{
  char buf[24];

  snprintf (buf, sizeof buf, "%d", (int) pid);
  for (size_t i = 0; before && i < upto; i++)
    {
      cleanup_free char *own = cg_proc_cgroup_path (&cg->layout->h[i], before);
      cleanup_free char *dir = own ? cg_hier_path (&cg->layout->h[i], own) : NULL;
      cleanup_close int fd = dir ? open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                 : -1;
      struct cg_dir d = { .fd = fd, .path = dir };
      agentrt_error_t ignored = NULL;

      if (fd >= 0)
        cg_write (&d, "cgroup.procs", buf, &ignored);
      agentrt_error_release (&ignored);
    }
}

int
cgroup_add_pid (struct cgroup *cg, pid_t pid, agentrt_error_t *err)
{
  cleanup_free char *before = read_proc_cgroup (pid);
  char buf[24];

  snprintf (buf, sizeof buf, "%d", (int) pid);
  for (size_t i = 0; i < cg->layout->n; i++)
    {
      struct cg_dir *d = cg_dir (cg, i, err);
      if (d == NULL || cg_write (d, "cgroup.procs", buf, err) < 0)
        {
          move_back (cg, i, pid, before);
          return agentrt_error_wrap (err, "move process %d into its cgroup",
                                     (int) pid);
        }
    }
  return 0;
}

bool
cgroup_clone_into_possible (const struct cgroup_layout *layout, bool systemd)
{
  return layout->mode == CGROUP_MODE_V2 && !systemd;
}

int
cgroup_unified_fd (struct cgroup *cg, agentrt_error_t *err)
{
  struct cg_dir *d;

  if (cg->layout->unified < 0)
    return agentrt_error (err, 0, "cgroup: no cgroup2 hierarchy to clone into");
  d = cg_dir (cg, (size_t) cg->layout->unified, err);
  return d ? d->fd : -1;
}

static int
configure (struct cgroup *cg, const struct cgroup_request *req,
           const int *created, struct cg_apply *a, agentrt_error_t *err)
{
  int devices = cg->layout->route[CG_DEVICES];

  if (cg_apply_resources (a, req->resources, err) < 0)
    return -1;
  /* A cgroup that existed may carry an earlier agentrt device program. */
  if (!req->unprivileged
      && cg_apply_devices (cg, req->resources, req->devices, req->n_devices,
                           devices >= 0 && created[devices] < 0, err) < 0)
    return -1;
  if (req->pid > 0 && cgroup_add_pid (cg, req->pid, err) < 0)
    return -1;
  return 0;
}

/* The scope the user's systemd makes (--systemd-cgroup, not root) is
 * below its own cgroup, user@UID.service, which the path from the slice
 * does not name: it is the one holding the runtime's cgroup. */
static int
resolve (const struct cgroup_layout *l, const struct cgroup_request *req,
         struct cg_target *t, agentrt_error_t *err)
{
  cleanup_free char *root = NULL;
  char *path;

  if (cg_resolve (l, req->id, req->cgroups_path, req->systemd, t, err) < 0)
    return -1;
  if (!req->systemd || !req->unprivileged)
    return 0;
  root = cg_user_manager_root (l->h[0].own);
  if (root == NULL)
    {
      cg_target_release (t);
      return agentrt_error (err, 0, "--systemd-cgroup: the runtime's cgroup "
                            "`%s` is not below a user@UID.service",
                            l->h[0].own);
    }
  path = xasprintf ("%s%s", root, t->path);
  free (t->path);
  t->path = path;
  return 0;
}

int
cgroup_enter (const struct cgroup_request *req, struct cgroup_result *result,
              agentrt_error_t *err)
{
  const struct cgroup_layout *l = req->layout;
  cleanup_cgroup struct cgroup *cg = NULL;
  cleanup_free int *created = NULL;
  struct cg_target t;
  struct cg_apply a = { .warnings = &result->warnings };
  int ret;

  memset (result, 0, sizeof *result);
  if (l == NULL && (l = cgroup_layout_host (err)) == NULL)
    return -1;
  if (resolve (l, req, &t, err) < 0)
    return -1;
  cg = cg_new (l, t.path, t.unit, req->systemd);
  created = xreallocarray (NULL, l->n, sizeof *created);
  for (size_t i = 0; i < l->n; i++)
    created[i] = -1;
  ret = req->systemd ? cg_systemd_start (cg, &t, req, err) : 0;
  cg_target_release (&t);
  if (ret < 0)
    return -1;
  a.cg = cg;
  if (cg_create_dirs (cg, cg_resources_needed (req->resources), created, err)
          < 0
      || configure (cg, req, created, &a, err) < 0)
    {
      agentrt_error_t ignored = NULL;
      cg_remove_created (cg, created);
      if (cg->systemd_unit)
        cg_systemd_stop (cg->systemd_unit, &ignored);
      agentrt_error_release (&ignored);
      str_list_free (&result->warnings);
      return -1;
    }
  result->cgroup = steal_pointer (&cg);
  return 0;
}

int
cgroup_plan (const struct cgroup_request *req, char **path, char **unit,
             agentrt_error_t *err)
{
  const struct cgroup_layout *l = req->layout;
  struct cg_target t;

  if (l == NULL && (l = cgroup_layout_host (err)) == NULL)
    return -1;
  if (resolve (l, req, &t, err) < 0)
    return -1;
  *path = steal_pointer (&t.path);
  *unit = steal_pointer (&t.unit);
  cg_target_release (&t);
  return 0;
}

void
cgroup_remove_planned (const struct cgroup_layout *layout, const char *path,
                       const char *unit)
{
  agentrt_error_t ignored = NULL;

  for (size_t i = 0; i < layout->n; i++)
    {
      cleanup_free char *dir = cg_hier_path (&layout->h[i], path);
      /* ENOENT: not made yet; EBUSY: not ours to remove, or not empty */
      (void) rmdir (dir);
    }
  if (unit)
    cg_systemd_stop (unit, &ignored);
  agentrt_error_release (&ignored);
}

int
cgroup_update (struct cgroup *cg, const struct oci_resources *resources,
               struct str_list *warnings, agentrt_error_t *err)
{
  struct cg_apply a = { .cg = cg, .warnings = warnings, .update = true };

  if (resources == NULL)
    return 0;
  if (resources->n_devices)
    cg_warn (&a, "linux.resources.devices cannot be changed by update; "
                 "the device rules stay as they were");
  if (cg->systemd_unit && cg_systemd_set (cg, resources, err) < 0)
    return -1;
  return cg_apply_resources (&a, resources, err);
}

int
cgroup_destroy (struct cgroup *cg, agentrt_error_t *err)
{
  int ret = 0;

  close_dirs (cg);
  if (cg->systemd_unit && cg_systemd_stop (cg->systemd_unit, err) < 0)
    return -1;
  if (!cg->owned)
    return 0;
  for (size_t i = 0; i < cg->layout->n; i++)
    {
      agentrt_error_t e = NULL;
      if (cg_rmdir_tree (cg->dirs[i].path, &e) < 0 && ret == 0)
        {
          agentrt_error_move (err, &e);
          ret = -1;
        }
      agentrt_error_release (&e);
    }
  return ret;
}

/* ---- The mount plan ---- */

struct mounts_storage
{
  struct cgroup_mounts pub;
  void **owned;
  size_t n_owned;
};

static void *
keep (struct mounts_storage *s, void *p)
{
  s->owned = xreallocarray (s->owned, s->n_owned + 1, sizeof *s->owned);
  s->owned[s->n_owned++] = p;
  return p;
}

/* "cpu,cpuacct" -> { "cpu", "cpuacct", NULL }; no links for one name. */
static const char *const *
links_for (struct mounts_storage *s, const char *dir)
{
  static const char *const none[] = { NULL };
  size_t n = 1;
  const char **links;
  char *copy, *save = NULL;

  if (strchr (dir, ',') == NULL)
    return none;
  for (const char *p = dir; *p; p++)
    n += *p == ',';
  links = keep (s, xzalloc ((n + 1) * sizeof *links));
  copy = keep (s, xstrdup (dir));
  n = 0;
  for (char *t = strtok_r (copy, ",", &save); t; t = strtok_r (NULL, ",", &save))
    links[n++] = t;
  return links;
}

struct cgroup_mounts *
cgroup_mounts_plan (const struct cgroup_request *req, agentrt_error_t *err)
{
  const struct cgroup_layout *l = req->layout;
  struct mounts_storage *s;
  struct cg_target t;

  if (req->none)
    {
      s = xzalloc (sizeof *s);
      s->pub.tmpfs = true; /* and nothing in it */
      return &s->pub;
    }
  if (l == NULL && (l = cgroup_layout_host (err)) == NULL)
    return NULL;
  if (resolve (l, req, &t, err) < 0)
    return NULL;
  s = xzalloc (sizeof *s);
  s->pub.items = keep (s, xzalloc (l->n * sizeof *s->pub.items));
  s->pub.len = l->n;
  s->pub.tmpfs = l->mode != CGROUP_MODE_V2;
  for (size_t i = 0; i < l->n; i++)
    {
      const struct cg_hier *h = &l->h[i];
      struct cgroup_mount *m = &s->pub.items[i];

      m->dir = h->dir;
      m->fstype = h->v2 ? "cgroup2" : "cgroup";
      m->data = h->data;
      m->host_path = keep (s, cg_hier_path (h, t.path));
      m->links = links_for (s, h->dir);
    }
  cg_target_release (&t);
  return &s->pub;
}

void
cgroup_mounts_free (struct cgroup_mounts *mounts)
{
  struct mounts_storage *s = (struct mounts_storage *) mounts;

  if (s == NULL)
    return;
  for (size_t i = 0; i < s->n_owned; i++)
    free (s->owned[i]);
  free (s->owned);
  free (s);
}
