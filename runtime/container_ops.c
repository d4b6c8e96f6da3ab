/* Operations on an existing container: load, status, start, kill, delete
 * (see container.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/container.h"
#include "runtime/fault.h"
#include "runtime/hooks.h"
#include "runtime/idrange_store.h"
#include "runtime/log.h"
#include "runtime/pidns.h"
#include "runtime/proc_util.h"

int
container_load (const struct runtime_context *rt, const char *id,
                struct container *c, agentrt_error_t *err)
{
  memset (c, 0, sizeof *c);
  c->dir.dirfd = -1;
  if (state_dir_open (rt->root, id, &c->dir, err) < 0)
    return -1;
  c->state = state_dir_load (&c->dir, err);
  if (c->state == NULL)
    {
      /* A create killed before it recorded anything: nothing runs. */
      if ((*err)->status == ENOENT)
        {
          agentrt_error_release (err);
          return 0;
        }
      state_dir_close (&c->dir);
      return -1;
    }
  return 0;
}

void
container_release (struct container *c)
{
  container_state_free (c->state);
  c->state = NULL;
  state_dir_close (&c->dir);
}

struct oci_config *
container_config (struct container *c, agentrt_error_t *err)
{
  cleanup_free char *json = NULL;
  struct oci_config *config;
  size_t len;

  json = state_dir_read (&c->dir, CONFIG_FILE, &len, err);
  if (json == NULL)
    return NULL;
  config = oci_config_parse (json, len, CONFIG_FILE, err);
  if (config == NULL)
    agentrt_error_wrap (err, "`%s`", c->dir.path);
  return config;
}

struct cgroup *
container_cgroup (struct container *c, agentrt_error_t *err)
{
  const struct cgroup_layout *layout;
  if (c->state == NULL || c->state->cgroup_path == NULL
      || c->state->cgroup_pending)
    return NULL;
  layout = cgroup_layout_host (err);
  if (layout == NULL)
    return NULL;
  return cgroup_open (layout, c->state->cgroup_path, c->state->systemd_unit,
                      c->state->cgroup_owned, err);
}

/* Whether the init still waits at the exec fifo: until it exec's the
 * program it holds the fifo open (the O_PATH fd from create, then the
 * write end).  A `start` killed after the init went past the fifo leaves
 * the fifo behind with the program running: that container is running
 * (and a new `start` would wait forever for a byte nobody writes). */
static bool
init_holds_fifo (struct container *c)
{
  cleanup_dir DIR *d = NULL;
  struct stat fifo, st;
  struct dirent *e;
  char path[64];

  if (fstatat (c->dir.dirfd, EXEC_FIFO, &fifo, AT_SYMLINK_NOFOLLOW) < 0)
    return false;
  snprintf (path, sizeof path, "/proc/%d/fd", (int) c->state->pid);
  d = opendir (path);
  if (d == NULL)
    return true; /* cannot tell: the fifo says created */
  while ((e = readdir (d)) != NULL)
    if (e->d_name[0] != '.' && fstatat (dirfd (d), e->d_name, &st, 0) == 0
        && st.st_dev == fifo.st_dev && st.st_ino == fifo.st_ino)
      return true;
  return false;
}

enum container_status
container_status (struct container *c)
{
  cleanup_error agentrt_error_t err = NULL;
  struct cgroup *cg;
  int frozen;

  if (c->state == NULL || !proc_is_alive (c->state->pid, c->state->pid_start))
    return STATUS_STOPPED;
  if (init_holds_fifo (c))
    return STATUS_CREATED;
  cg = container_cgroup (c, &err);
  if (cg == NULL)
    return STATUS_RUNNING;
  frozen = cgroup_frozen (cg, &err);
  cgroup_free (cg);
  return frozen > 0 ? STATUS_PAUSED : STATUS_RUNNING;
}

/* No cgroup of its own (recorded as such, not one still to be made). */
static bool
cgroupless (const struct container *c)
{
  return c->state && c->state->cgroup_path == NULL && !c->state->cgroup_pending;
}

int
container_pids (struct container *c, pid_t **pids, size_t *n,
                agentrt_error_t *err)
{
  struct cgroup *cg;
  int r;

  *pids = NULL;
  *n = 0;
  if (cgroupless (c))
    return container_status (c) == STATUS_STOPPED
               ? 0
               : pidns_members (c->state->pid, pids, n, err);
  cg = container_cgroup (c, err);
  r = cg ? cgroup_pids (cg, pids, n, err) : (*err ? -1 : 0);
  cgroup_free (cg);
  return r;
}

static void
warn_hook (const char *msg)
{
  log_warning ("%s", msg);
}

/* poststart and poststop hooks, from the config stored at create.  A
 * failing poststop hook is a warning and the others still run; poststart
 * hooks stop at the first failure, which is returned (runtime-spec 1.3,
 * as runc and crun do). */
static int
run_hooks_from_config (struct container *c, bool poststart,
                       agentrt_error_t *err)
{
  const char *kind = poststart ? "poststart" : "poststop";
  cleanup_oci_config struct oci_config *config = container_config (c, err);
  cleanup_free char *json = NULL;
  const struct oci_hook_list *list;
  struct child_error cerr = { 0 };
  struct hook_set set;
  int fd, r;

  if (config == NULL)
    return agentrt_error_wrap (err, "%s hooks", kind);
  list = poststart ? &config->hooks.poststart : &config->hooks.poststop;
  if (list->len == 0)
    return 0;
  json = container_state_oci_json (
      c->state, poststart ? STATUS_RUNNING : STATUS_STOPPED, false, err);
  fd = json ? hook_state_memfd (json, err) : -1;
  if (fd < 0)
    return agentrt_error_wrap (err, "%s hooks", kind);
  hook_set_build (list, kind, c->state->bundle, &set);
  if (poststart)
    r = hook_set_run (&set, fd, &cerr) < 0
            ? agentrt_error_verbatim (err, cerr.status, cerr.msg)
            : 0;
  else
    r = hook_set_run_all (&set, fd, warn_hook) ? -1 : 0;
  hook_set_free (&set);
  close (fd);
  return r;
}

/* Waits until the init has written its byte to the fifo and then closed
 * it by exec'ing the program (or by exiting). */
static int
await_fifo (int fifo, int pidfd, agentrt_error_t *err)
{
  bool released = false;
  for (;;)
    {
      struct pollfd p[2] = { { .fd = fifo, .events = POLLIN },
                             { .fd = pidfd, .events = POLLIN } };
      char byte;
      ssize_t n;

      if (poll (p, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return agentrt_error (err, errno, "wait for the container init");
        }
      if (p[0].revents & (POLLIN | POLLHUP))
        {
          n = read (fifo, &byte, 1);
          if (n == 1)
            released = true;
          else if (n == 0 && released)
            return 0; /* exec'd (or exited: `state` tells) */
          else if (n < 0 && errno != EAGAIN && errno != EINTR)
            return agentrt_error (err, errno, "read the exec fifo");
        }
      if ((p[1].revents & POLLIN) && !released)
        return agentrt_error (err, ESRCH, "the container init exited before "
                              "it was started");
      if (p[1].revents & POLLIN)
        return 0;
    }
}

int
container_start (struct container *c, agentrt_error_t *err)
{
  enum container_status status = container_status (c);
  cleanup_close int fifo = -1;
  cleanup_close int pidfd = -1;

  if (status != STATUS_CREATED)
    return agentrt_error (err, 0, "cannot start a container in the %s "
                          "state", container_status_name (status));
  /* Fail closed: a hardened container's lifetime, limit events, exit
   * record and egress hang on its monitor (missing when create was killed
   * before it started it). */
  if (c->state->hardened
      && !proc_is_alive (c->state->monitor_pid, c->state->monitor_start))
    return agentrt_error (err, 0, "cannot start container %s: its monitor "
                          "is not running (create did not finish, or it "
                          "was killed); delete the container", c->dir.id);
  pidfd = proc_pidfd_open_checked (c->state->pid, c->state->pid_start);
  if (pidfd < 0)
    return agentrt_error (err, -pidfd, "container init");
  fault_point ("start:init-checked");
  fifo = openat (c->dir.dirfd, EXEC_FIFO, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fifo < 0)
    return agentrt_error (err, errno, "open `%s/%s`", c->dir.path, EXEC_FIFO);
  fault_point ("start:fifo-open");
  if (await_fifo (fifo, pidfd, err) < 0)
    return -1;
  fault_point ("start:released");
  if (unlinkat (c->dir.dirfd, EXEC_FIFO, 0) < 0)
    return agentrt_error (err, errno, "remove `%s/%s`", c->dir.path, EXEC_FIFO);
  fault_point ("start:fifo-removed");
  if (run_hooks_from_config (c, true, err) < 0)
    {
      /* runtime-spec 1.3: stop the container and go on with its
       * destruction (runc kills it; crun, like agentrt, also deletes it,
       * and the poststop hooks run) */
      cleanup_error agentrt_error_t derr = NULL;
      cleanup_free char *why = xstrdup ((*err)->msg);
      int status = (*err)->status;

      agentrt_error_release (err);
      if (container_delete (c, true, &derr) < 0)
        return agentrt_error (err, status, "%s; removing the container "
                              "failed: %s", why, derr->msg);
      return agentrt_error (err, status, "%s: the container was stopped and "
                            "removed", why);
    }
  return 0;
}

static int
signal_init (struct container *c, int sig, agentrt_error_t *err)
{
  cleanup_close int pidfd
      = proc_pidfd_open_checked (c->state->pid, c->state->pid_start);
  if (pidfd < 0)
    return agentrt_error (err, -pidfd, "signal the container init");
  if (syscall (SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0 && errno != ESRCH)
    return agentrt_error (err, errno, "signal the container init");
  return 0;
}

/* A v1 freezer keeps killed tasks frozen, undead, until it thaws (as
 * runc does, SIGKILL thaws a paused container; v2 kills frozen tasks, and
 * the thaw is then a no-op).  The kill itself is what was asked: a thaw
 * that fails is only logged, and the wait for the exit reports it. */
static void
thaw_killed (struct cgroup *cg)
{
  cleanup_error agentrt_error_t err = NULL;

  if (cg && cgroup_frozen (cg, &err) > 0 && cgroup_thaw (cg, &err) < 0)
    log_warning ("thaw the killed container: %s", err->msg);
}

int
container_kill (struct container *c, int sig, bool all, agentrt_error_t *err)
{
  enum container_status status = container_status (c);
  struct cgroup *cg = NULL;
  int r;

  if (status == STATUS_STOPPED)
    {
      if (all)
        return 0; /* engines send `kill --all ID 9` after the exit */
      return agentrt_error (err, ESRCH, "container not running");
    }
  /* a created container can be paused too, and says "created" */
  if (all || sig == SIGKILL)
    {
      cg = container_cgroup (c, err);
      if (cg == NULL && *err)
        {
          if (all)
            return -1;
          agentrt_error_release (err); /* the init is killed all the same */
        }
    }
  if (all && cg == NULL && cgroupless (c))
    r = pidns_signal_members (c->state->pid, sig, err) < 0 ? -1 : 0;
  else
    r = all && cg ? cgroup_kill_all (cg, sig, err) : signal_init (c, sig, err);
  if (r == 0 && sig == SIGKILL)
    thaw_killed (cg);
  cgroup_free (cg);
  return r;
}

/* SIGKILL to everything, then wait (bounded) for the init to be gone. */
static int
kill_everything (struct container *c, struct cgroup *cg, agentrt_error_t *err)
{
  cleanup_close int pidfd = -1;

  if (c->state == NULL || c->state->pid <= 0)
    return 0;
  pidfd = proc_pidfd_open_checked (c->state->pid, c->state->pid_start);
  if (cg && cgroup_kill_all (cg, SIGKILL, err) < 0)
    return -1;
  if (pidfd >= 0)
    syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
  thaw_killed (cg);
  if (pidfd < 0)
    return 0;
  if (!proc_pidfd_wait (pidfd, 10000))
    return agentrt_error (err, ETIMEDOUT, "the container init did not exit "
                          "after SIGKILL");
  return 0;
}

/* Once the init is gone the monitor records the exit, stops the sidecar
 * and exits on its own: give it that chance, then kill it, checked against
 * its recorded start time (its sidecar, if one started, dies with it:
 * PR_SET_PDEATHSIG).  A monitor that is an `agentrt run` is left alone: it
 * ends by itself once it has recorded the exit (waiting for it here would
 * wait for its own delete, which waits for this one). */
static void
stop_helpers (struct container *c)
{
  pid_t pid = c->state->monitor_pid;
  int monitor;

  if (c->state->monitor_is_run)
    return;
  monitor = proc_pidfd_open_checked (pid, c->state->monitor_start);
  if (monitor < 0)
    return;
  if (!proc_pidfd_wait (monitor, 2000))
    {
      syscall (SYS_pidfd_send_signal, monitor, SIGKILL, NULL, 0);
      proc_pidfd_wait (monitor, 2000);
    }
  close (monitor);
  /* `run` is the monitor's parent: reap it (anyone else gets ECHILD) */
  waitpid (pid, NULL, WNOHANG);
}

/* A create stopped before its cgroup was entered: its processes are
 * killed by pid, then what it may have made of the cgroup is removed. */
static void
remove_planned_cgroup (struct container *c)
{
  agentrt_error_t ignored = NULL;
  const struct cgroup_layout *layout = cgroup_layout_host (&ignored);

  if (layout)
    cgroup_remove_planned (layout, c->state->cgroup_path, c->state->systemd_unit);
  agentrt_error_release (&ignored);
}

/* The container's user namespace range, once its processes are gone: a
 * failure only warns (once the state dir is removed, the entry is stale
 * and the next allocation drops it). */
static void
release_userns (struct container *c)
{
  cleanup_error agentrt_error_t err = NULL;
  size_t plen = strlen (c->dir.path), ilen = strlen (c->dir.id);
  cleanup_free char *root = NULL;

  /* the state dir is ROOT/ID */
  if (plen <= ilen + 1)
    return;
  root = xstrndup (c->dir.path, plen - ilen - 1);
  if (idrange_store_release (root, c->dir.id, false, 0, &err) < 0)
    log_warning ("%s", err->msg);
}

int
container_delete (struct container *c, bool force, agentrt_error_t *err)
{
  enum container_status status = container_status (c);
  struct cgroup *cg = NULL;
  int r = 0;

  if ((status == STATUS_RUNNING || status == STATUS_PAUSED) && !force)
    return agentrt_error (err, EBUSY, "cannot delete container %s that is "
                          "not stopped: %s", c->dir.id,
                          container_status_name (status));
  if (c->state && c->state->cgroup_path && !c->state->cgroup_pending)
    {
      cg = container_cgroup (c, err);
      if (cg == NULL)
        return -1;
    }
  if (kill_everything (c, cg, err) < 0
      || (cg && cgroup_destroy (cg, err) < 0))
    r = -1;
  if (r == 0 && c->state && c->state->cgroup_pending)
    remove_planned_cgroup (c);
  fault_point ("delete:processes-killed");
  if (c->state)
    stop_helpers (c);
  fault_point ("delete:helpers-stopped");
  /* The rootfs bind (and every mount below it) of a container that had no
   * mount namespace lives in ours: detach it. */
  if (r == 0 && c->state && c->state->host_mount_ns
      && umount2 (c->state->rootfs, MNT_DETACH) < 0 && errno != EINVAL
      && errno != ENOENT)
    log_warning ("unmount `%s`: %s", c->state->rootfs, strerror (errno));
  cgroup_free (cg);
  if (r < 0)
    return -1;
  release_userns (c);
  fault_point ("delete:userns-released");
  if (c->state)
    {
      cleanup_error agentrt_error_t herr = NULL;
      if (run_hooks_from_config (c, false, &herr) < 0 && herr)
        log_warning ("%s", herr->msg);
    }
  return state_dir_remove (&c->dir, err);
}
