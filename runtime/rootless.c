/* A runtime run by a user other than root: its default directories and
 * the facts the hardening judges it by (see rootless.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "runtime/idmap.h"
#include "runtime/rootless.h"

/* CAP_SYS_ADMIN in the effective set (of the process's own user
 * namespace: the caller has checked it is the initial one). */
static bool
has_sys_admin (void)
{
  struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2] = { { 0 } };

  if (syscall (SYS_capget, &hdr, data) < 0)
    return false;
  return (data[CAP_TO_INDEX (CAP_SYS_ADMIN)].effective
          & CAP_TO_MASK (CAP_SYS_ADMIN)) != 0;
}

/* The initial user namespace's inode number (the kernel's
 * PROC_USER_INIT_INO, fixed since Linux 3.8; every other namespace's is
 * allocated from 0xF0000000 up). */
#define INITIAL_USERNS_INO 0xEFFFFFFDu

/* 1 in the initial user namespace, 0 in another, -1 when it cannot be
 * told (a kernel without user namespaces has no /proc/self/ns/user: the
 * initial).  The namespace's inode number tells; its uid_map would not:
 * real root may give a child namespace the initial one's line
 * "0 0 4294967295". */
static int
initial_userns (void)
{
  struct stat st;

  if (stat ("/proc/self/ns/user", &st) < 0)
    return errno == ENOENT ? 1 : -1;
  return st.st_ino == INITIAL_USERNS_INO;
}

/* Root of the host: euid 0 in the initial user namespace, with
 * CAP_SYS_ADMIN there.  A kernel without user namespaces has no
 * /proc/self/uid_map: every process is in the initial one.  Anything
 * that cannot be read is taken for another namespace. */
static bool
host_root (void)
{
  return geteuid () == 0 && initial_userns () == 1 && has_sys_admin ();
}

bool
rootless_is (void)
{
  static int cached = -1;

  if (cached < 0)
    cached = !host_root ();
  return cached;
}

uid_t
rootless_unmapped_uid (void)
{
  static uid_t cached;
  static bool known;
  cleanup_free char *text = NULL;
  unsigned long v;
  char *end;

  if (known)
    return cached;
  known = true;
  cached = (uid_t) -1;
  if (initial_userns () != 0)
    return cached;
  text = io_read_small_file ("/proc/sys/kernel/overflowuid", 64);
  if (text == NULL)
    return cached;
  errno = 0;
  v = strtoul (text, &end, 10);
  if (errno == 0 && end != text && (*end == '\n' || *end == '\0')
      && v < (unsigned long) (uid_t) -1)
    cached = (uid_t) v;
  return cached;
}

bool
rootless_ns_foreign (const char *type)
{
  char path[64];
  cleanup_close int ns = -1;
  cleanup_close int owner = -1;
  struct stat a, b;

  snprintf (path, sizeof path, "/proc/self/ns/%s", type);
  ns = open (path, O_RDONLY | O_CLOEXEC);
  if (ns < 0)
    return false;
  owner = ioctl (ns, NS_GET_USERNS);
  /* EPERM: the owner is outside this process's namespace scope */
  if (owner < 0)
    return errno == EPERM;
  return fstat (owner, &a) == 0 && stat ("/proc/self/ns/user", &b) == 0
         && (a.st_dev != b.st_dev || a.st_ino != b.st_ino);
}

uid_t
rootless_outer_uid (void)
{
  cleanup_free char *map = io_read_small_file ("/proc/self/uid_map", 16384);
  uint32_t outer;

  if (map && idmap_outer_id (map, (uint32_t) geteuid (), &outer) == 0)
    return (uid_t) outer;
  return geteuid ();
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

/* Whether `dir` (followed) is a directory of this user's that nobody
 * else may write (the XDG rule for XDG_RUNTIME_DIR: owned by the user,
 * 0700): the state root in it holds what later commands trust (the
 * container's pid, its hardening record). */
static bool
own_dir (const char *dir, struct stat *st)
{
  return stat (dir, st) == 0 && S_ISDIR (st->st_mode)
         && st->st_uid == geteuid () && (st->st_mode & 022) == 0;
}

char *
rootless_state_root (agentrt_error_t *err)
{
  const char *runtime_dir = xdg ("XDG_RUNTIME_DIR");
  char user_dir[64];
  struct stat st;

  if (runtime_dir)
    {
      memset (&st, 0, sizeof st);
      if (own_dir (runtime_dir, &st))
        return xasprintf ("%s/agentrt", runtime_dir);
      agentrt_error (err, 0, "state root: XDG_RUNTIME_DIR `%s` is not a "
                     "directory of uid %u that only it may write (owner %u, "
                     "mode %03o): set it to one, or give --root DIR",
                     runtime_dir, (unsigned) geteuid (), (unsigned) st.st_uid,
                     (unsigned) (st.st_mode & 07777));
      return NULL;
    }
  /* the user's directory is named by its id on the host (root of a
   * user namespace sees it as its own) */
  snprintf (user_dir, sizeof user_dir, "/run/user/%u",
            (unsigned) rootless_outer_uid ());
  if (own_dir (user_dir, &st))
    return xasprintf ("%s/agentrt", user_dir);
  agentrt_error (err, 0, "state root: running as uid %u without root's "
                 "privileges, XDG_RUNTIME_DIR is not set and %s is not this "
                 "user's: set XDG_RUNTIME_DIR or give --root DIR",
                 (unsigned) geteuid (), user_dir);
  return NULL;
}

char *
rootless_systemd_socket (void)
{
  const char *runtime_dir = xdg ("XDG_RUNTIME_DIR");

  if (runtime_dir)
    return xasprintf ("%s/systemd/private", runtime_dir);
  return xasprintf ("/run/user/%u/systemd/private",
                    (unsigned) rootless_outer_uid ());
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
  /* root of a user namespace (the host's root is not rootless) */
  out->switch_ids = out->uid == 0;
  out->host_uid = rootless_outer_uid ();
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
