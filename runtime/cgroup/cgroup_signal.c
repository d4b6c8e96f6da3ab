/* Processes of a container cgroup: listing them (with sub-cgroups),
 * freezing and thawing (v1 freezer.state, v2 cgroup.freeze and
 * cgroup.events), and signalling all of them without letting a fork
 * escape (cgroup.kill, or freeze + pidfd signals + thaw). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"

#define FREEZE_TIMEOUT_MS 5000
#define KILL_TIMEOUT_MS 5000

static void
sleep_ms (unsigned ms)
{
  struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

struct pid_set
{
  pid_t *pids;
  size_t n;
};

static int
read_procs (int dirfd, const char *path, struct pid_set *set,
            agentrt_error_t *err)
{
  struct cg_dir d = { .fd = dirfd, .path = (char *) path };
  cleanup_free char *text = NULL;

  if (cg_read (&d, "cgroup.procs", &text, err) < 0)
    return -1;
  for (char *p = text, *end; *p; p = end)
    {
      long v = strtol (p, &end, 10);
      if (end == p)
        break;
      if (v > 0)
        {
          set->pids = xreallocarray (set->pids, set->n + 1, sizeof *set->pids);
          set->pids[set->n++] = (pid_t) v;
        }
    }
  return 0;
}

/* Processes of the cgroup at dirfd and of every sub-cgroup. */
static int
collect (int dirfd, const char *path, int depth, struct pid_set *set,
         agentrt_error_t *err)
{
  cleanup_dir DIR *dir = NULL;
  struct dirent *de;
  int dup_fd;

  if (depth > 64)
    return agentrt_error (err, ELOOP, "cgroup `%s` nested too deep", path);
  if (read_procs (dirfd, path, set, err) < 0)
    return -1;
  dup_fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup_fd < 0 || (dir = fdopendir (dup_fd)) == NULL)
    {
      if (dup_fd >= 0)
        close (dup_fd);
      return agentrt_error (err, errno, "list `%s`", path);
    }
  while ((de = readdir (dir)))
    {
      cleanup_close int sub = -1;
      cleanup_free char *subpath = NULL;

      if (de->d_type != DT_DIR || de->d_name[0] == '.')
        continue;
      sub = openat (dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (sub < 0)
        {
          if (errno == ENOENT)
            continue; /* removed meanwhile */
          return agentrt_error (err, errno, "open `%s/%s`", path, de->d_name);
        }
      subpath = xasprintf ("%s/%s", path, de->d_name);
      if (collect (sub, subpath, depth + 1, set, err) < 0)
        return -1;
    }
  return 0;
}

static int
cmp_pid (const void *a, const void *b)
{
  pid_t x = *(const pid_t *) a, y = *(const pid_t *) b;
  return (x > y) - (x < y);
}

/* The hierarchy to read members from: the freezer's (what kill freezes). */
static struct cg_dir *
members_dir (struct cgroup *cg, agentrt_error_t *err)
{
  int i = cg->layout->route[CG_FREEZER];
  return cg_dir (cg, i >= 0 ? (size_t) i : 0, err);
}

int
cgroup_pids (struct cgroup *cg, pid_t **pids, size_t *n, agentrt_error_t *err)
{
  struct pid_set set = { 0 };
  struct cg_dir *d = members_dir (cg, err);
  size_t k = 0;

  *pids = NULL;
  *n = 0;
  if (d == NULL || collect (d->fd, d->path, 0, &set, err) < 0)
    {
      free (set.pids);
      return -1;
    }
  if (set.n)
    qsort (set.pids, set.n, sizeof *set.pids, cmp_pid);
  for (size_t i = 0; i < set.n; i++)
    if (k == 0 || set.pids[k - 1] != set.pids[i])
      set.pids[k++] = set.pids[i];
  *pids = set.pids;
  *n = k;
  return 0;
}

/* ---- freezer ---- */

static struct cg_dir *
freezer_dir (struct cgroup *cg, agentrt_error_t *err)
{
  struct cg_dir *d = cg_ctrl_dir (cg, CG_FREEZER, err);

  if (d == NULL && (err == NULL || *err == NULL))
    agentrt_error (err, 0, "the freezer cgroup controller is not available");
  return d;
}

/* Whether the kernel has finished freezing (1) or thawing (0). */
static int
state_of (struct cg_dir *d, agentrt_error_t *err)
{
  char buf[256];
  uint64_t frozen;

  if (d->v2)
    {
      if (cg_read_buf (d, "cgroup.events", buf, sizeof buf, err) < 0)
        return -1;
      return cg_kv_find (buf, "frozen", &frozen) && frozen == 1;
    }
  if (cg_read_buf (d, "freezer.state", buf, sizeof buf, err) < 0)
    return -1;
  return strncmp (buf, "FROZEN", 6) == 0;
}

/* Whether the cgroup is meant to be frozen (paused): a frozen v2 task
 * that gets a fatal signal leaves the frozen state to die, which must not
 * make the container look resumed. */
static int
intent_of (struct cg_dir *d, agentrt_error_t *err)
{
  char buf[64];

  if (cg_read_buf (d, d->v2 ? "cgroup.freeze" : "freezer.state", buf,
                   sizeof buf, err) < 0)
    return -1;
  if (d->v2)
    return buf[0] == '1';
  return strncmp (buf, "FROZEN", 6) == 0 || strncmp (buf, "FREEZING", 8) == 0;
}

/* Writes the wanted state and waits until the kernel reports it. */
static int
set_frozen (struct cgroup *cg, bool freeze, agentrt_error_t *err)
{
  struct cg_dir *d = freezer_dir (cg, err);
  const char *file, *value;
  unsigned waited = 0, delay = 1;

  if (d == NULL)
    return -1;
  file = d->v2 ? "cgroup.freeze" : "freezer.state";
  value = d->v2 ? (freeze ? "1" : "0") : (freeze ? "FROZEN" : "THAWED");
  for (;;)
    {
      int state;
      if (cg_write (d, file, value, err) < 0)
        return -1;
      state = state_of (d, err);
      if (state < 0)
        return -1;
      if (state == freeze)
        return 0;
      if (waited >= FREEZE_TIMEOUT_MS)
        break;
      /* v1 can sit in FREEZING; writing again retries stuck tasks. */
      sleep_ms (delay);
      waited += delay;
      delay = delay < 50 ? delay * 2 : 50;
    }
  if (freeze)
    {
      agentrt_error_t ignored = NULL;
      cg_write (d, file, d->v2 ? "0" : "THAWED", &ignored);
      agentrt_error_release (&ignored);
    }
  return agentrt_error (err, ETIMEDOUT, "%s `%s`",
                        freeze ? "freeze" : "thaw", d->path);
}

int
cgroup_freeze (struct cgroup *cg, agentrt_error_t *err)
{
  return set_frozen (cg, true, err);
}

int
cgroup_thaw (struct cgroup *cg, agentrt_error_t *err)
{
  return set_frozen (cg, false, err);
}

int
cgroup_frozen (struct cgroup *cg, agentrt_error_t *err)
{
  struct cg_dir *d = freezer_dir (cg, err);
  return d ? intent_of (d, err) : -1;
}

/* ---- kill ---- */

static bool
contains (const pid_t *pids, size_t n, pid_t pid)
{
  return bsearch (&pid, pids, n, sizeof *pids, cmp_pid) != NULL;
}

/* Sends sig to one member: through its pidfd, or, where pidfds are
 * missing (ENOSYS: kernels before 5.3, valgrind), by pid (the cgroup is
 * frozen, so the pid cannot be reused meanwhile). */
static int
send_one (int fd, pid_t pid, int sig, agentrt_error_t *err)
{
  int r = fd >= 0 ? (int) syscall (SYS_pidfd_send_signal, fd, sig, NULL, 0)
                  : kill (pid, sig);
  if (r < 0 && errno != ESRCH)
    return agentrt_error (err, errno, "signal %d to process %d", sig, (int) pid);
  return 0;
}

/* Signals every member through a pidfd opened while it was listed, and
 * only if it is still listed afterwards: a pid reused by a process outside
 * the cgroup is never signalled.  Returns the number of members seen. */
static int
signal_round (struct cgroup *cg, int sig, agentrt_error_t *err)
{
  cleanup_free pid_t *before = NULL, *after = NULL;
  cleanup_free int *fds = NULL;
  size_t n_before, n_after;
  int ret = 0;

  if (cgroup_pids (cg, &before, &n_before, err) < 0)
    return -1;
  if (n_before == 0)
    return 0;
  fds = xreallocarray (NULL, n_before, sizeof *fds);
  for (size_t i = 0; i < n_before; i++)
    {
      fds[i] = (int) syscall (SYS_pidfd_open, before[i], 0);
      if (fds[i] < 0 && errno != ENOSYS)
        fds[i] = -2; /* gone already */
    }
  if (cgroup_pids (cg, &after, &n_after, err) < 0)
    ret = -1;
  for (size_t i = 0; i < n_before; i++)
    {
      if (ret == 0 && fds[i] != -2 && contains (after, n_after, before[i]))
        ret = send_one (fds[i], before[i], sig, err);
      if (fds[i] >= 0)
        close (fds[i]);
    }
  return ret < 0 ? -1 : (int) n_before;
}

int
cgroup_signal_members (struct cgroup *cg, int sig, agentrt_error_t *err)
{
  return signal_round (cg, sig, err);
}

static int
kill_with_cgroup_kill (struct cgroup *cg, bool *done, agentrt_error_t *err)
{
  int i = cg->layout->unified;
  struct cg_dir *d;

  *done = false;
  if (i < 0)
    return 0;
  d = cg_dir (cg, (size_t) i, err);
  if (d == NULL)
    return -1;
  if (!cg_has_file (d, "cgroup.kill"))
    return 0;
  if (cg_write (d, "cgroup.kill", "1", err) < 0)
    return -1;
  *done = true;
  return 0;
}

/* Whether the directory members are read from was removed after it was
 * opened (systemd removes a scope's cgroup once its last process exits). */
static bool
members_gone (struct cgroup *cg)
{
  int i = cg->layout->route[CG_FREEZER];
  struct cg_dir *d = &cg->dirs[i >= 0 ? (size_t) i : 0];

  return d->fd >= 0 && faccessat (d->fd, "cgroup.procs", F_OK, 0) < 0
         && errno == ENOENT;
}

static int
kill_all (struct cgroup *cg, int sig, agentrt_error_t *err)
{
  bool done, can_freeze = cg->layout->route[CG_FREEZER] >= 0;
  int was_frozen;
  unsigned waited = 0, delay = 1;

  if (members_dir (cg, err) == NULL)
    {
      if ((*err)->status != ENOENT)
        return -1;
      agentrt_error_release (err); /* the cgroup is gone: nothing to signal */
      return 0;
    }
  was_frozen = can_freeze ? cgroup_frozen (cg, err) : 0;
  if (was_frozen < 0)
    return -1;
  if (sig == SIGKILL && kill_with_cgroup_kill (cg, &done, err) < 0)
    return -1;
  if (sig == SIGKILL && done)
    return 0;
  for (;;)
    {
      int seen;
      if (can_freeze && !was_frozen && cgroup_freeze (cg, err) < 0)
        return -1;
      seen = signal_round (cg, sig, err);
      /* SIGKILLed tasks die once thawed; other signals leave a paused
       * container paused. */
      if (can_freeze && (sig == SIGKILL || !was_frozen)
          && cgroup_thaw (cg, seen < 0 ? NULL : err) < 0 && seen >= 0)
        return -1;
      if (seen <= 0 || sig != SIGKILL)
        return seen < 0 ? -1 : 0;
      was_frozen = 0;
      if (waited >= KILL_TIMEOUT_MS)
        return agentrt_error (err, ETIMEDOUT,
                              "processes remain in `%s` after SIGKILL",
                              cg->path);
      sleep_ms (delay);
      waited += delay;
      delay = delay < 50 ? delay * 2 : 50;
    }
}

int
cgroup_kill_all (struct cgroup *cg, int sig, agentrt_error_t *err)
{
  if (kill_all (cg, sig, err) == 0)
    return 0;
  /* Vanished while being signalled: nothing was left in it. */
  if ((*err)->status == ENOENT && members_gone (cg))
    {
      agentrt_error_release (err);
      return 0;
    }
  return -1;
}
