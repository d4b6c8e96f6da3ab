/* The container process's identity and limits (see process_setup.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/ioprio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "runtime/id_list.h"
#include "runtime/path_resolve.h"
#include "runtime/process_setup.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static const struct
{
  const char *name;
  uint32_t policy;
} sched_policies[] = {
  { "SCHED_OTHER", 0 }, { "SCHED_FIFO", 1 },  { "SCHED_RR", 2 },
  { "SCHED_BATCH", 3 }, { "SCHED_ISO", 4 },   { "SCHED_IDLE", 5 },
  { "SCHED_DEADLINE", 6 },
};

static const struct
{
  const char *name;
  uint64_t flag;
} sched_flags[] = {
  { "SCHED_FLAG_RESET_ON_FORK", 0x01 }, { "SCHED_FLAG_RECLAIM", 0x02 },
  { "SCHED_FLAG_DL_OVERRUN", 0x04 },    { "SCHED_FLAG_KEEP_POLICY", 0x08 },
  { "SCHED_FLAG_KEEP_PARAMS", 0x10 },   { "SCHED_FLAG_UTIL_CLAMP_MIN", 0x20 },
  { "SCHED_FLAG_UTIL_CLAMP_MAX", 0x40 },
};

static int
build_scheduler (const struct oci_scheduler *s, struct sched_settings *out,
                 agentrt_error_t *err)
{
  size_t i, j;
  bool found = false;

  memset (out, 0, sizeof *out);
  out->size = sizeof *out;
  for (i = 0; i < sizeof sched_policies / sizeof sched_policies[0]; i++)
    if (strcmp (s->policy, sched_policies[i].name) == 0)
      {
        out->policy = sched_policies[i].policy;
        found = true;
      }
  if (!found)
    return agentrt_error (err, 0, "process.scheduler.policy: unknown "
                          "policy `%s`", s->policy);
  for (i = 0; i < s->flags.len; i++)
    {
      for (j = 0; j < sizeof sched_flags / sizeof sched_flags[0]; j++)
        if (strcmp (s->flags.items[i], sched_flags[j].name) == 0)
          break;
      if (j == sizeof sched_flags / sizeof sched_flags[0])
        return agentrt_error (err, 0, "process.scheduler.flags[%zu]: "
                              "unknown flag `%s`", i, s->flags.items[i]);
      out->flags |= sched_flags[j].flag;
    }
  out->nice = s->nice;
  out->priority = (uint32_t) s->priority;
  out->runtime = s->runtime;
  out->deadline = s->deadline;
  out->period = s->period;
  return 0;
}

static int
build_ioprio (const struct oci_io_priority *p, int *out, agentrt_error_t *err)
{
  int klass;
  if (strcmp (p->klass, "IOPRIO_CLASS_RT") == 0)
    klass = IOPRIO_CLASS_RT;
  else if (strcmp (p->klass, "IOPRIO_CLASS_BE") == 0)
    klass = IOPRIO_CLASS_BE;
  else if (strcmp (p->klass, "IOPRIO_CLASS_IDLE") == 0)
    klass = IOPRIO_CLASS_IDLE;
  else
    return agentrt_error (err, 0, "process.ioPriority.class: unknown "
                          "class `%s`", p->klass);
  if (p->priority < 0 || p->priority > 7)
    return agentrt_error (err, 0, "process.ioPriority.priority: must be "
                          "between 0 and 7");
  *out = IOPRIO_PRIO_VALUE (klass, p->priority);
  return 0;
}

/* "0-3,7" -> cpu set */
static int
parse_cpu_list (const char *list, cpu_set_t *set, const char *field,
                agentrt_error_t *err)
{
  unsigned long bits[CPU_SETSIZE / ID_LIST_WORD_BITS];
  size_t i;

  if (id_list_parse (list, bits, CPU_SETSIZE, NULL) < 0)
    return agentrt_error (err, 0, "%s: invalid cpu list `%s`", field, list);
  CPU_ZERO (set);
  for (i = 0; i < CPU_SETSIZE; i++)
    if (id_list_has (bits, i))
      CPU_SET (i, set);
  return 0;
}

static bool
env_name_equal (const char *a, const char *b)
{
  size_t la = strcspn (a, "="), lb = strcspn (b, "=");
  return la == lb && strncmp (a, b, la) == 0;
}

static void
env_set (char ***envp, size_t *n, const char *entry)
{
  size_t i;
  for (i = 0; i < *n; i++)
    if (env_name_equal ((*envp)[i], entry))
      {
        free ((*envp)[i]);
        (*envp)[i] = xstrdup (entry);
        return;
      }
  *envp = xreallocarray (*envp, *n + 2, sizeof **envp);
  (*envp)[(*n)++] = xstrdup (entry);
  (*envp)[*n] = NULL;
}

static bool
env_has (char **envp, size_t n, const char *name)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (env_name_equal (envp[i], name))
      return true;
  return false;
}

/* An image's /etc/passwd larger than this is not read (HOME is then "/"). */
#define PASSWD_MAX (4 * 1024 * 1024)

char *
process_default_home (int rootfd, uid_t uid)
{
  cleanup_close int fd = rootfd < 0 ? -1 : path_open_regular_in_root (rootfd, "/etc/passwd");
  cleanup_free char *text = NULL;
  size_t len;
  char *line, *next;

  if (fd < 0 || io_read_all (fd, PASSWD_MAX, &text, &len) < 0)
    return xstrdup ("/");
  for (line = text; line != NULL; line = next)
    {
      char *fields[7], *tok = line;
      int n = 0;

      next = strchr (line, '\n');
      if (next)
        *next++ = '\0';
      for (; n < 7; n++)
        {
          fields[n] = tok;
          tok = strchr (tok, ':');
          if (tok == NULL)
            break;
          *tok++ = '\0';
        }
      if (n >= 5 && fields[2][0] != '\0'
          && (uid_t) strtoul (fields[2], NULL, 10) == uid)
        return xstrdup (fields[5][0] ? fields[5] : "/");
    }
  return xstrdup ("/");
}

static void
build_env (const struct oci_process *process, int rootfd, char *const *extra,
           struct process_spec *out)
{
  size_t n = 0, i;
  char **envp = xzalloc (sizeof *envp);

  for (i = 0; i < process->env.len; i++)
    env_set (&envp, &n, process->env.items[i]);
  for (i = 0; extra && extra[i]; i++)
    env_set (&envp, &n, extra[i]);
  if (!env_has (envp, n, "HOME"))
    {
      cleanup_free char *home = process_default_home (rootfd, process->user.uid);
      cleanup_free char *entry = xasprintf ("HOME=%s", home);
      env_set (&envp, &n, entry);
    }
  out->envp = envp;
}

static int
build_identity (const struct oci_process *process, struct process_spec *out,
                agentrt_error_t *err)
{
  size_t i;
  out->uid = process->user.uid;
  out->gid = process->user.gid;
  out->may_setgroups = true;
  out->n_groups = process->user.n_additional_gids;
  out->groups = xreallocarray (NULL, out->n_groups + 1, sizeof *out->groups);
  for (i = 0; i < out->n_groups; i++)
    out->groups[i] = process->user.additional_gids[i];
  out->has_umask = process->user.has_umask;
  out->umask = (mode_t) process->user.umask;
  caps_masks_build (process->capabilities, &out->caps);
  out->no_new_privileges = process->no_new_privileges;
  out->apparmor_profile = process->apparmor_profile;
  out->selinux_label = process->selinux_label;
  out->cwd = process->cwd;
  out->argv = xreallocarray (NULL, process->args.len + 1, sizeof *out->argv);
  for (i = 0; i < process->args.len; i++)
    out->argv[i] = process->args.items[i];
  out->argv[process->args.len] = NULL;
  out->stub_argv = xzalloc ((process->args.len + 3) * sizeof *out->stub_argv);
  out->stub_argv[0] = (char *) "agentrt-exec-stub";
  for (i = 0; i < process->args.len; i++)
    out->stub_argv[i + 2] = process->args.items[i];
  (void) err;
  return 0;
}

bool
process_apparmor_enabled (void)
{
  char c = 'N';
  int fd = open ("/sys/module/apparmor/parameters/enabled", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  if (read (fd, &c, 1) != 1)
    c = 'N';
  close (fd);
  return c == 'Y';
}

int
process_spec_build (const struct oci_process *process, int rootfd,
                    char *const *extra_env, struct process_spec *out,
                    agentrt_error_t *err)
{
  size_t i;

  memset (out, 0, sizeof *out);
  if (process->args.len == 0)
    return agentrt_error (err, 0, "process.args: must not be empty");
  if (process->apparmor_profile && process->apparmor_profile[0]
      && !process_apparmor_enabled ())
    return agentrt_error (err, 0, "process.apparmorProfile: AppArmor is not "
                          "enabled on this host");
  build_identity (process, out, err);
  out->rlimits = xreallocarray (NULL, process->n_rlimits + 1,
                                sizeof *out->rlimits);
  for (i = 0; i < process->n_rlimits; i++)
    {
      out->rlimits[i].resource = process->rlimits[i].resource;
      out->rlimits[i].limit.rlim_cur = process->rlimits[i].soft;
      out->rlimits[i].limit.rlim_max = process->rlimits[i].hard;
    }
  out->n_rlimits = process->n_rlimits;
  if (process->scheduler)
    {
      if (build_scheduler (process->scheduler, &out->scheduler, err) < 0)
        goto fail;
      out->has_scheduler = true;
    }
  if (process->io_priority)
    {
      if (build_ioprio (process->io_priority, &out->ioprio, err) < 0)
        goto fail;
      out->has_ioprio = true;
    }
  if (process->exec_cpu_affinity && process->exec_cpu_affinity->final)
    {
      if (parse_cpu_list (process->exec_cpu_affinity->final,
                          &out->final_affinity,
                          "process.execCPUAffinity.final", err)
          < 0)
        goto fail;
      out->has_final_affinity = true;
    }
  build_env (process, rootfd, extra_env, out);
  return 0;
fail:
  process_spec_free (out);
  return -1;
}

void
process_spec_free (struct process_spec *spec)
{
  size_t i;
  free (spec->groups);
  free (spec->rlimits);
  free (spec->argv);
  free (spec->stub_argv);
  for (i = 0; spec->envp && spec->envp[i]; i++)
    free (spec->envp[i]);
  free (spec->envp);
  memset (spec, 0, sizeof *spec);
}

static int
write_attr (int procfd, const char *name, const char *value,
            struct child_error *cerr)
{
  char path[64];
  size_t len = strlen (value);
  ssize_t n;
  int fd;

  snprintf (path, sizeof path, "thread-self/attr/%s", name);
  fd = openat (procfd, path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return child_error (cerr, errno, "open /proc/thread-self/attr/%s", name);
  n = write (fd, value, len);
  close (fd);
  if (n != (ssize_t) len)
    return child_error (cerr, n < 0 ? errno : EIO, "set %s label `%s`", name,
                        value);
  return 0;
}

int
process_apply_labels (const struct process_spec *spec, int procfd,
                      struct child_error *cerr)
{
  if (spec->apparmor_profile && spec->apparmor_profile[0])
    {
      char buf[512];
      snprintf (buf, sizeof buf, "exec %s", spec->apparmor_profile);
      if (write_attr (procfd, "apparmor/exec", buf, cerr) < 0
          && write_attr (procfd, "exec", buf, cerr) < 0)
        return -1;
    }
  if (spec->selinux_label && spec->selinux_label[0]
      && write_attr (procfd, "exec", spec->selinux_label, cerr) < 0)
    return -1;
  return 0;
}

int
process_apply_limits (const struct process_spec *spec, struct child_error *cerr)
{
  size_t i;
  for (i = 0; i < spec->n_rlimits; i++)
    if (setrlimit ((__rlimit_resource_t) spec->rlimits[i].resource,
                   &spec->rlimits[i].limit)
        < 0)
      return child_error (cerr, errno, "setrlimit %d (soft %llu, hard %llu)",
                          spec->rlimits[i].resource,
                          (unsigned long long) spec->rlimits[i].limit.rlim_cur,
                          (unsigned long long) spec->rlimits[i].limit.rlim_max);
  if (spec->has_personality && personality (spec->personality) < 0)
    return child_error (cerr, errno, "personality");
  if (spec->has_scheduler
      && syscall (SYS_sched_setattr, 0, &spec->scheduler, 0) < 0)
    return child_error (cerr, errno, "process.scheduler");
  if (spec->has_ioprio
      && syscall (SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, spec->ioprio) < 0)
    return child_error (cerr, errno, "process.ioPriority");
  if (mempolicy_apply (&spec->mempolicy, cerr) < 0)
    return -1;
  if (spec->has_final_affinity
      && sched_setaffinity (0, sizeof spec->final_affinity,
                            &spec->final_affinity)
             < 0)
    return child_error (cerr, errno, "process.execCPUAffinity.final");
  return 0;
}

int
process_switch_user (const struct process_spec *spec, struct child_error *cerr)
{
  int r = caps_prepare_for_setuid (&spec->caps);
  if (r < 0)
    return child_error (cerr, -r, "drop bounding capabilities");
  if (spec->may_setgroups && setgroups (spec->n_groups, spec->groups) < 0)
    return child_error (cerr, errno, "setgroups");
  if (setresgid (spec->gid, spec->gid, spec->gid) < 0)
    return child_error (cerr, errno, "setgid %u", (unsigned) spec->gid);
  if (setresuid (spec->uid, spec->uid, spec->uid) < 0)
    return child_error (cerr, errno, "setuid %u", (unsigned) spec->uid);
  r = caps_apply (&spec->caps);
  if (r < 0)
    return child_error (cerr, -r, "apply capabilities");
  if (spec->no_new_privileges && prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return child_error (cerr, errno, "set no_new_privs");
  return 0;
}

int
process_enter_cwd (const struct process_spec *spec, bool as_user,
                   bool *deferred, struct child_error *cerr)
{
  char buf[4096];

  if (!as_user && spec->has_umask)
    umask (spec->umask);
  if (as_user && !*deferred)
    return 0;
  if (chdir (spec->cwd) < 0)
    {
      /* a directory only the container's user may enter: try again as it */
      if (!as_user && (errno == EACCES || errno == EPERM))
        {
          *deferred = true;
          return 0;
        }
      return child_error (cerr, errno, "process.cwd: chdir to `%s`", spec->cwd);
    }
  /* A cwd outside the root (a leaked host directory fd, CVE-2024-21626)
   * is "(unreachable)/..." to the kernel, which glibc reports as ENOENT.
   * Checked before the bundle's seccomp filter may hide getcwd(2), except
   * for the rare cwd root cannot enter. */
  if (getcwd (buf, sizeof buf) == NULL && errno != ERANGE
      && (!as_user || errno == ENOENT))
    return child_error (cerr, errno, "process.cwd: `%s` is outside the "
                        "container", spec->cwd);
  *deferred = false;
  return 0;
}

/* Like runc's lookup: a regular file with an execute bit.  It runs before
 * the bundle's seccomp filter and the user switch, so it asks nothing of
 * the kernel but stat; execve has the last word on permissions. */
static int
executable_error (const char *path)
{
  struct stat st;
  if (stat (path, &st) < 0)
    return errno;
  if (!S_ISREG (st.st_mode) || (st.st_mode & 0111) == 0)
    return EACCES;
  return 0;
}

static const char *
env_path (char *const *envp)
{
  size_t i;
  for (i = 0; envp[i]; i++)
    if (strncmp (envp[i], "PATH=", 5) == 0)
      return envp[i] + 5;
  return DEFAULT_PATH;
}

int
process_find_executable (const struct process_spec *spec, char *buf,
                         size_t len, struct child_error *cerr)
{
  const char *name = spec->argv[0];
  const char *p;

  if (strchr (name, '/'))
    {
      /* a relative path is taken from process.cwd, which is not entered yet */
      int n = name[0] == '/' ? snprintf (buf, len, "%s", name)
                             : snprintf (buf, len, "%s/%s", spec->cwd, name);
      if (n < 0 || (size_t) n >= len)
        return child_error (cerr, ENAMETOOLONG, "exec `%s`", name);
      int e = executable_error (buf);
      return e ? child_error (cerr, e, "exec `%s`", name) : 0;
    }
  for (p = env_path (spec->envp); ; )
    {
      size_t dirlen = strcspn (p, ":");
      /* an empty PATH entry means the current directory */
      int n = snprintf (buf, len, "%.*s/%s", dirlen ? (int) dirlen : 1,
                        dirlen ? p : ".", name);
      if (n > 0 && (size_t) n < len && executable_error (buf) == 0)
        return 0;
      if (p[dirlen] == '\0')
        break;
      p += dirlen + 1;
    }
  return child_error (cerr, 0, "exec: \"%s\": executable file not found "
                      "in $PATH", name);
}
