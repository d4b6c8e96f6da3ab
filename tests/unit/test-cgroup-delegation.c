/* Whether a runtime that is not root can make a container's cgroup
 * (cgroup_delegation, runtime/cgroup_delegation.c), against a fake cgroup
 * v2 tree shaped like a systemd user session: refusals first (a v1 or
 * hybrid layout, --systemd-cgroup without the user's systemd or from a
 * cgroup outside it, a directory the user cannot write, a
 * container path that meets the runtime's own cgroup above the delegated
 * subtree), then the subtree that works and its controllers.  As root the
 * checks run in a child that became uid 65534 (root may write anything). */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"
#include "tests/unit/unit.h"

#define SESSION "/user.slice/user-1000.slice"
#define SERVICE SESSION "/user@1000.service"
#define OWN SERVICE "/app.slice/run-1.scope"

static char tmp[] = "/tmp/agentrt-cgroup-deleg-XXXXXX";
static struct cgroup_layout *v2;         /* the runtime in app.slice */
static struct cgroup_layout *v2_session; /* ... in the login session */

static void
make_dir (const char *rel, const char *controllers, mode_t mode)
{
  cleanup_free char *dir = xasprintf ("%s%s", tmp, rel);
  static const char *const files[]
      = { "cgroup.procs", "cgroup.subtree_control", "cgroup.controllers", NULL };

  CHECK (mkdir (dir, 0755) == 0);
  for (size_t i = 0; files[i]; i++)
    {
      cleanup_free char *f = xasprintf ("%s/%s", dir, files[i]);
      int fd = open (f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const char *text = i == 2 ? controllers : "";
      CHECK (fd >= 0 && write (fd, text, strlen (text)) == (ssize_t) strlen (text));
      close (fd);
      CHECK (chmod (f, i == 2 ? 0444 : (mode & 0200 ? 0644 : 0444)) == 0);
    }
  CHECK (chmod (dir, mode) == 0);
}

/* "ok: CONTROLLERS" or "no: WHY". */
static char *
judge (const struct cgroup_layout *l, const char *cgroups_path, bool systemd)
{
  struct cgroup_request req = { .layout = l, .id = "c1",
                                .cgroups_path = cgroups_path,
                                .systemd = systemd };
  struct str_list ctrls = { NULL, 0 };
  char *why = NULL, *out;
  int r = cgroup_delegation (&req, &ctrls, &why);

  if (r > 0)
    {
      cleanup_free char *list = str_list_join (&ctrls, " ");
      out = xasprintf ("ok: %s", list);
    }
  else
    out = xasprintf ("no: %s", why ? why : "(no reason)");
  str_list_free (&ctrls);
  free (why);
  return out;
}

/* The user's systemd's own cgroup, from a cgroup below it (pure). */
static void
test_user_manager_root (void)
{
  static const struct
  {
    const char *own, *root;
  } cases[] = {
    { OWN, SERVICE },
    { SERVICE, SERVICE },
    { SERVICE "/user.slice/libpod-1.scope/container", SERVICE },
    { SESSION "/session-1.scope", NULL },
    { "/", NULL },
    { "/system.slice/user@1000.service.d/x", NULL }, /* not a whole component */
    { "/a/user@x.servicex/b", NULL },
    { "/user@.service", NULL },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      cleanup_free char *r = cg_user_manager_root (cases[i].own);
      if (cases[i].root)
        CHECK_STR_EQ (r ? r : "(null)", cases[i].root);
      else
        CHECK (r == NULL);
    }
}

static void
test_refusals (void)
{
  static const char hybrid[]
      = "25 24 0:22 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
        "26 24 0:23 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
  agentrt_error_t err = NULL;
  struct cgroup_layout *h
      = cgroup_layout_parse (hybrid, "4:memory:/\n0::/\n", tmp, &err);
  char *s;

  CHECK (h != NULL);
  s = judge (h, NULL, false);
  CHECK_CONTAINS (s, "no: the cgroup layout is hybrid: its v1 hierarchies "
                  "belong to root");
  free (s);
  cgroup_layout_free (h);
  cg_systemd_set_socket ("/nonexistent/systemd/private");
  s = judge (v2, NULL, true);
  CHECK_CONTAINS (s, "no: --systemd-cgroup: the user's systemd is not "
                  "running (no /nonexistent/systemd/private)");
  free (s);
  /* the user's systemd is there, but the runtime runs in a login
   * session's scope, which is not below it */
  cg_systemd_set_socket (tmp);
  s = judge (v2_session, NULL, true);
  CHECK_CONTAINS (s, "no: --systemd-cgroup: the runtime's cgroup `" SESSION
                  "/session-1.scope` is not below a user@UID.service");
  free (s);
  cg_systemd_set_socket (NULL);
  /* the login session's scope belongs to root: its parent too */
  s = judge (v2, SESSION "/session-1.scope/c1", false);
  CHECK_CONTAINS (s, "no: `");
  CHECK_CONTAINS (s, SESSION "/session-1.scope` is not writable by uid");
  free (s);
  /* the user's own subtree, reached from a cgroup outside it (a login
   * session's scope): moving the init would need write access where the
   * two meet */
  s = judge (v2_session, SERVICE "/app.slice/c1", false);
  CHECK_CONTAINS (s, "no: the runtime's cgroup `" SESSION "/session-1.scope` "
                  "and the container's meet at `");
  CHECK_CONTAINS (s, SESSION "`, which uid");
  free (s);
  /* a path that climbs out (cleaned like runc) */
  s = judge (v2, SERVICE "/app.slice/../../../c1", false);
  CHECK_CONTAINS (s, "is not writable by uid");
  free (s);
}

static void
test_delegated (void)
{
  char *s;

  /* --systemd-cgroup: the user's systemd makes the scope below the
   * user@UID.service holding the runtime; its controllers count */
  cg_systemd_set_socket (tmp);
  s = judge (v2, "user.slice:agentrt:c1", true);
  CHECK_STR_EQ (s, "ok: cpu memory pids");
  free (s);
  cg_systemd_set_socket (NULL);

  /* relative (and absent): the parent of the runtime's own cgroup */
  s = judge (v2, NULL, false);
  CHECK_STR_EQ (s, "ok: cpu memory pids");
  free (s);
  s = judge (v2, "agents/c1", false);
  CHECK_STR_EQ (s, "ok: cpu memory pids");
  free (s);
  s = judge (v2, SERVICE "/app.slice/deep/er/c1", false);
  CHECK_STR_EQ (s, "ok: cpu memory pids");
  free (s);
  /* another slice of the same service: they meet at the service */
  s = judge (v2, SERVICE "/other.slice/c1", false);
  CHECK_STR_EQ (s, "ok: cpu memory pids");
  free (s);
}

int
main (void)
{
  static const char mountinfo[]
      = "31 23 0:28 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";
  agentrt_error_t err = NULL;
  bool root = geteuid () == 0;
  pid_t pid;
  int status;

  if (mkdtemp (tmp) == NULL || chmod (tmp, 0755) < 0)
    return 99;
  make_dir ("/user.slice", "cpuset cpu io memory pids\n", 0755);
  make_dir (SESSION, "cpu memory pids\n", 0755);
  make_dir (SESSION "/session-1.scope", "", 0555);
  make_dir (SERVICE, "cpu memory pids\n", 0755);
  make_dir (SERVICE "/app.slice", "cpu memory pids\n", 0755);
  make_dir (OWN, "", 0755);
  make_dir (SERVICE "/other.slice", "cpu memory pids\n", 0755);
  v2 = cgroup_layout_parse (mountinfo, "0::" OWN "\n", tmp, &err);
  v2_session = cgroup_layout_parse (mountinfo, "0::" SESSION
                                    "/session-1.scope\n", tmp, &err);
  CHECK (v2 != NULL && v2_session != NULL);
  /* root-owned above the service, as on a real host */
  for (const char *const *d = (const char *const[]){ "", "/user.slice",
                                                     SESSION, NULL };
       *d; d++)
    {
      cleanup_free char *dir = xasprintf ("%s%s", tmp, *d);
      cleanup_free char *procs = xasprintf ("%s/cgroup.procs", dir);
      CHECK (chmod (procs, 0444) == 0 || **d == '\0');
      CHECK (chmod (dir, 0555) == 0);
    }
  if (root)
    {
      cleanup_free char *cmd = xasprintf ("chown -R 65534:65534 '%s%s'", tmp,
                                          SERVICE);
      CHECK (system (cmd) == 0);
    }
  pid = root ? fork () : 0;
  if (pid == 0)
    {
      if (root && (setresgid (65534, 65534, 65534) < 0
                   || setresuid (65534, 65534, 65534) < 0))
        _exit (98);
      if (v2 && v2_session)
        {
          RUN_TEST (test_user_manager_root);
          RUN_TEST (test_refusals);
          RUN_TEST (test_delegated);
        }
      if (root)
        _exit (unit_failures ? 1 : 0);
    }
  if (root)
    {
      CHECK (waitpid (pid, &status, 0) == pid && WIFEXITED (status)
             && WEXITSTATUS (status) == 0);
    }
  cgroup_layout_free (v2);
  cgroup_layout_free (v2_session);
  {
    cleanup_free char *rm = xasprintf ("chmod -R u+w '%s' && rm -rf '%s'", tmp,
                                       tmp);
    if (system (rm) != 0)
      fprintf (stderr, "could not remove %s\n", tmp);
  }
  return UNIT_EXIT ();
}
