/* A runtime run by a user other than root: its default directories and
 * the facts the hardening judges it by (see rootless.h). */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/rootless.h"

bool
rootless_is (void)
{
  return geteuid () != 0;
}

/* An XDG variable, only when it is an absolute path. */
static const char *
xdg (const char *name)
{
  const char *v = getenv (name);
  return v && v[0] == '/' ? v : NULL;
}

/* $HOME when absolute, else the passwd entry's (malloc'd), or NULL. */
static char *
home_dir (void)
{
  const char *env = getenv ("HOME");
  struct passwd pw, *found = NULL;
  char buf[4096];

  if (env && env[0] == '/')
    return xstrdup (env);
  if (getpwuid_r (geteuid (), &pw, buf, sizeof buf, &found) == 0 && found
      && found->pw_dir && found->pw_dir[0] == '/')
    return xstrdup (found->pw_dir);
  return NULL;
}

char *
rootless_state_root (agentrt_error_t *err)
{
  const char *runtime_dir = xdg ("XDG_RUNTIME_DIR");
  char user_dir[64];
  struct stat st;

  if (runtime_dir)
    return xasprintf ("%s/agentrt", runtime_dir);
  snprintf (user_dir, sizeof user_dir, "/run/user/%u", (unsigned) geteuid ());
  if (stat (user_dir, &st) == 0 && S_ISDIR (st.st_mode)
      && st.st_uid == geteuid ())
    return xasprintf ("%s/agentrt", user_dir);
  agentrt_error (err, 0, "state root: running as uid %u, XDG_RUNTIME_DIR is "
                 "not set and %s is not this user's: set XDG_RUNTIME_DIR or "
                 "give --root DIR", (unsigned) geteuid (), user_dir);
  return NULL;
}

/* mkdir -p of an absolute path, each missing directory 0700. */
static int
mkdir_parents (const char *path, agentrt_error_t *err)
{
  cleanup_free char *copy = xstrdup (path);

  for (char *p = copy + 1;; p++)
    {
      if (*p != '/' && *p != '\0')
        continue;
      char saved = *p;
      *p = '\0';
      if (mkdir (copy, 0700) < 0 && errno != EEXIST)
        return agentrt_error (err, errno, "audit: mkdir `%s`", copy);
      *p = saved;
      if (saved == '\0')
        return 0;
    }
}

char *
rootless_audit_dir (agentrt_error_t *err)
{
  const char *state = xdg ("XDG_STATE_HOME");
  cleanup_free char *home = NULL, *base = NULL;

  if (state)
    base = xstrdup (state);
  else if ((home = home_dir ()) != NULL)
    base = xasprintf ("%s/.local/state", home);
  else
    {
      agentrt_error (err, 0, "audit: running as uid %u, XDG_STATE_HOME and "
                     "HOME are not set: set one, or the policy's audit.dir",
                     (unsigned) geteuid ());
      return NULL;
    }
  if (mkdir_parents (base, err) < 0)
    return NULL;
  return xasprintf ("%s/agentrt", base);
}

char *
rootless_user_policy (agentrt_error_t *err)
{
  const char *config = xdg ("XDG_CONFIG_HOME");
  cleanup_free char *home = NULL;

  if (config)
    return xasprintf ("%s/agentrt/policy.json", config);
  home = home_dir ();
  if (home)
    return xasprintf ("%s/.config/agentrt/policy.json", home);
  agentrt_error (err, 0, "user policy: running as uid %u, XDG_CONFIG_HOME "
                 "and HOME are not set", (unsigned) geteuid ());
  return NULL;
}

void
rootless_facts (const struct cgroup_request *req, struct host_runtime *out)
{
  memset (out, 0, sizeof *out);
  out->uid = geteuid ();
  out->gid = getegid ();
  out->cgroup = cgroup_delegation (req, &out->controllers, &out->cgroup_why)
                > 0;
}

void
rootless_facts_release (struct host_runtime *facts)
{
  str_list_free (&facts->controllers);
  free (facts->cgroup_why);
  memset (facts, 0, sizeof *facts);
}
