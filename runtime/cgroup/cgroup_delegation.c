/* Whether a runtime that is not root can make a container's cgroup: a
 * delegated cgroup v2 subtree (a systemd user session delegates
 * user@UID.service and what is below it) that this user may write, and
 * that holds the runtime's own cgroup too, since moving a process needs
 * write access where the two meet.  Nothing is created or written. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"

/* The directory is this user's to change: enter, make directories in,
 * move processes through (cgroup.procs) and enable controllers below
 * (cgroup.subtree_control). */
static bool
writable (const char *dir)
{
  cleanup_close int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  return fd >= 0 && faccessat (fd, ".", W_OK | X_OK, AT_EACCESS) == 0
         && faccessat (fd, "cgroup.procs", W_OK, AT_EACCESS) == 0
         && faccessat (fd, "cgroup.subtree_control", W_OK, AT_EACCESS) == 0;
}

/* The longest common ancestor of two absolute cgroup paths. */
static char *
meeting_point (const char *a, const char *b)
{
  size_t last = 0, i;

  for (i = 0; a[i] && a[i] == b[i]; i++)
    if (a[i] == '/')
      last = i;
  if ((a[i] == '\0' || a[i] == '/') && (b[i] == '\0' || b[i] == '/'))
    last = i;
  return last == 0 ? xstrdup ("/") : xstrndup (a, last);
}

/* The parent of the container's cgroup, or its nearest existing
 * ancestor: where the runtime makes directories. */
static char *
base_dir (const struct cg_hier *h, const char *path)
{
  cleanup_free char *p = xstrdup (path);

  for (;;)
    {
      char *slash = strrchr (p, '/');
      char *dir;
      struct stat st;

      if (slash == NULL || slash == p)
        return xstrdup (h->mount_point);
      *slash = '\0';
      dir = xasprintf ("%s%s", h->mount_point, p);
      if (stat (dir, &st) == 0)
        return dir;
      free (dir);
    }
}

static void
read_controllers (const char *dir, struct str_list *out)
{
  cleanup_close int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct cg_dir d = { .fd = fd, .path = (char *) dir };
  char text[512], *save = NULL;
  agentrt_error_t ignored = NULL;

  if (fd < 0 || cg_read_buf (&d, "cgroup.controllers", text, sizeof text,
                             &ignored) < 0)
    {
      agentrt_error_release (&ignored);
      return;
    }
  for (char *tok = strtok_r (text, " \n", &save); tok;
       tok = strtok_r (NULL, " \n", &save))
    str_list_append (out, tok);
}

/* --systemd-cgroup as an ordinary user: the user's systemd makes the scope
 * (cgroup_systemd_user_manager), below the user@UID.service that holds
 * the runtime's own cgroup, and delegates it; its controllers are that
 * service's. */
static int
user_manager_delegation (const struct cg_hier *h, struct str_list *controllers,
                         char **why)
{
  cleanup_free char *root = cg_user_manager_root (h->own), *dir = NULL;

  if (access (cg_systemd_socket (), F_OK) < 0)
    {
      *why = xasprintf ("--systemd-cgroup: the user's systemd is not running "
                        "(no %s)", cg_systemd_socket ());
      return 0;
    }
  if (root == NULL)
    {
      *why = xasprintf ("--systemd-cgroup: the runtime's cgroup `%s` is not "
                        "below a user@UID.service (run it in the user's "
                        "systemd session)", h->own);
      return 0;
    }
  dir = xasprintf ("%s%s", h->mount_point, root);
  read_controllers (dir, controllers);
  return 1;
}

int
cgroup_delegation (const struct cgroup_request *req,
                   struct str_list *controllers, char **why)
{
  cleanup_error agentrt_error_t err = NULL;
  const struct cgroup_layout *l = req->layout;
  cleanup_free char *base = NULL, *meet = NULL, *meet_dir = NULL;
  const struct cg_hier *h;
  struct cg_target t;
  uid_t uid = geteuid ();

  *why = NULL;
  if (l == NULL && (l = cgroup_layout_host (&err)) == NULL)
    {
      *why = xasprintf ("the cgroup layout cannot be read: %s", err->msg);
      return 0;
    }
  if (l->mode != CGROUP_MODE_V2)
    {
      *why = xasprintf ("the cgroup layout is %s: its v1 hierarchies belong "
                        "to root (a delegated subtree needs cgroup v2)",
                        cgroup_mode_name (l->mode));
      return 0;
    }
  if (req->systemd)
    return user_manager_delegation (&l->h[0], controllers, why);
  if (cg_resolve (l, req->id, req->cgroups_path, false, &t, &err) < 0)
    {
      *why = xstrdup (err->msg);
      return 0;
    }
  h = &l->h[0];
  base = base_dir (h, t.path);
  meet = meeting_point (t.path, h->own);
  meet_dir = xasprintf ("%s%s", h->mount_point, strcmp (meet, "/") ? meet : "");
  cg_target_release (&t);
  if (!writable (base))
    {
      *why = xasprintf ("`%s` is not writable by uid %u: no delegated cgroup "
                        "subtree (a systemd user session delegates "
                        "user@%u.service)", base, (unsigned) uid,
                        (unsigned) uid);
      return 0;
    }
  if (!writable (meet_dir))
    {
      *why = xasprintf ("the runtime's cgroup `%s` and the container's meet at "
                        "`%s`, which uid %u cannot write (run it inside the "
                        "delegated subtree, e.g. `systemd-run --user "
                        "--scope`)", h->own, meet_dir, (unsigned) uid);
      return 0;
    }
  read_controllers (base, controllers);
  return 1;
}
