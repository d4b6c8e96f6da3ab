/* What a container's monitor does (see monitor_duties.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/audit.h"
#include "runtime/cgroup.h"
#include "runtime/cloned_binary.h"
#include "runtime/monitor_duties.h"
#include "runtime/netns.h"
#include "runtime/proc_util.h"

#ifndef AGENTRT_LIBEXECDIR
#define AGENTRT_LIBEXECDIR "/usr/local/libexec/agentrt"
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MONITOR_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define MONITOR_ASAN 1
#endif

#ifdef MONITOR_ASAN
/* Sanitizer builds only: the sidecar's environment (otherwise empty) gets
 * the runtime's ASAN_OPTIONS and UBSAN_OPTIONS, so that its reports go
 * where the others' do (hack/test.sh --sanitize: log_path files), without
 * symbolization (a symbolizer process is more than its seccomp filter
 * allows; hack/test.sh symbolizes the reports). */
static void
sanitizer_env (char **envp, char (*buf)[1024])
{
  static const char *const names[] = { "ASAN_OPTIONS", "UBSAN_OPTIONS" };
  int i, n = 0;

  for (i = 0; i < 2; i++)
    {
      const char *v = getenv (names[i]);
      if (v && snprintf (buf[n], sizeof buf[n], "%s=%s:symbolize=0", names[i], v)
                   < (int) sizeof buf[n])
        envp[n] = buf[n], n++;
    }
  envp[n] = NULL;
}
#else
#define sanitizer_env(envp, buf) ((void) (buf))
#endif

char *
monitor_egress_binary (void)
{
  char self[PATH_MAX];
  const char *origin = cloned_binary_origin ();
  char *slash, *path = xstrdup (AGENTRT_LIBEXECDIR "/agentrt-egress");

  if (access (path, X_OK) == 0)
    return path;
  free (path);
  if (origin == NULL || strlen (origin) >= sizeof self)
    return NULL;
  strcpy (self, origin);
  slash = strrchr (self, '/');
  if (slash == NULL)
    return NULL;
  *slash = '\0';
  path = xasprintf ("%s/agentrt-egress", self);
  if (access (path, X_OK) == 0)
    return path;
  free (path);
  return NULL;
}

/* Exec of the sidecar in the outside namespace, with its fds at 3.. */
static void __attribute__ ((noreturn))
sidecar_exec (const char *binary, const struct monitor_request *req,
              const struct egress_fds *f, int pidfd)
{
  const struct monitor_egress *e = req->egress;
  int src[6] = { f->http, f->socks, pidfd, req->audit_fd, f->resolv, f->hosts };
  char num[8][16], uid[16], gid[16], poll[16];
  char *argv[32];
  char *envp[3] = { NULL };
  char env_buf[2][1024];
  int hi[6], i, n = 0;
  sigset_t none;

  if (f->netns >= 0 && setns (f->netns, CLONE_NEWNET) < 0)
    goto fail;
  /* Park every fd high, then bring them down to 3..8 in order. */
  for (i = 0; i < 6; i++)
    hi[i] = src[i] < 0 ? -1 : fcntl (src[i], F_DUPFD, 100);
  for (i = 0; i < 6; i++)
    if (hi[i] >= 0 && dup2 (hi[i], 3 + i) < 0)
      goto fail;
  for (i = 0; i < 6; i++)
    snprintf (num[i], sizeof num[i], "%d", 3 + i);
  snprintf (uid, sizeof uid, "%u", (unsigned) e->uid);
  snprintf (gid, sizeof gid, "%u", (unsigned) e->gid);
  snprintf (poll, sizeof poll, "%u", e->busy_poll_us);
  argv[n++] = (char *) "agentrt-egress";
  argv[n++] = (char *) "--id";
  argv[n++] = (char *) req->id;
  argv[n++] = (char *) "--http-fd";
  argv[n++] = num[0];
  argv[n++] = (char *) "--socks-fd";
  argv[n++] = num[1];
  argv[n++] = (char *) "--init-pidfd";
  argv[n++] = num[2];
  argv[n++] = (char *) "--audit-fd";
  argv[n++] = num[3];
  argv[n++] = (char *) "--allow";
  argv[n++] = (char *) e->allow;
  if (f->resolv >= 0)
    {
      argv[n++] = (char *) "--resolv-conf-fd";
      argv[n++] = num[4];
    }
  if (f->hosts >= 0)
    {
      argv[n++] = (char *) "--hosts-fd";
      argv[n++] = num[5];
    }
  argv[n++] = (char *) "--uid";
  argv[n++] = uid;
  argv[n++] = (char *) "--gid";
  argv[n++] = gid;
  argv[n++] = (char *) "--busy-poll-us";
  argv[n++] = poll;
  if (e->allow_broad)
    argv[n++] = (char *) "--allow-broad";
  argv[n] = NULL;
  /* only 3..8 survive the exec (they are not close-on-exec after dup2) */
  syscall (SYS_close_range, 9, ~0U, CLOSE_RANGE_CLOEXEC);
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  sanitizer_env (envp, env_buf);
  execve (binary, argv, envp);
fail:
  _exit (127);
}

/* Starts the sidecar without waiting for its exec: `create` does not pay
 * for it, and a sidecar that cannot start exits 127, which the monitor
 * records as its death (the agent then has no egress: nothing replaces
 * it).  The binary's presence was checked beforehand. */
static pid_t
sidecar_start (const struct monitor_request *req, const struct egress_fds *f,
               int pidfd, int *err_out)
{
  cleanup_free char *binary = monitor_egress_binary ();
  pid_t pid;

  if (binary == NULL)
    {
      *err_out = ENOENT;
      return -1;
    }
  pid = fork ();
  if (pid == 0)
    sidecar_exec (binary, req, f, pidfd);
  if (pid < 0)
    *err_out = errno;
  return pid;
}

void
monitor_duties_init (struct monitor *m, const struct monitor_request *req)
{
  memset (m, 0, sizeof *m);
  m->req = req;
  m->sock = m->pidfd = m->timerfd = m->sidecar_pidfd = -1;
  m->egress = (struct egress_fds){ -1, -1, -1, -1, -1 };
  clock_gettime (CLOCK_BOOTTIME, &m->started);
}

static uint64_t
elapsed_ms (const struct timespec *since)
{
  struct timespec now;
  clock_gettime (CLOCK_BOOTTIME, &now);
  return (uint64_t) (now.tv_sec - since->tv_sec) * 1000
         + (uint64_t) ((now.tv_nsec - since->tv_nsec) / 1000000);
}

void
monitor_stop_sidecar (struct monitor *m)
{
  if (m->sidecar <= 0)
    return;
  kill (m->sidecar, SIGTERM);
  if (!proc_pidfd_wait (m->sidecar_pidfd, 2000))
    kill (m->sidecar, SIGKILL);
  waitpid (m->sidecar, NULL, 0);
  m->sidecar = 0;
}

static void
on_lifetime (struct monitor *m)
{
  cleanup_error agentrt_error_t err = NULL;
  char detail[96];
  snprintf (detail, sizeof detail, "lifetime of %llu s reached: the "
            "container is killed", (unsigned long long) m->req->lifetime);
  audit_limit (m->req->audit_fd, m->req->id, "lifetime", detail);
  if (m->cgroup)
    cgroup_kill_all (m->cgroup, SIGKILL, &err);
  syscall (SYS_pidfd_send_signal, m->pidfd, SIGKILL, NULL, 0);
  close (m->timerfd);
  m->timerfd = -1;
}

static void
on_cgroup_event (struct monitor *m)
{
  cleanup_error agentrt_error_t err = NULL;
  struct cgroup_watch_counts counts = { 0 };
  char detail[96];

  if (cgroup_watch_read (m->watch, &counts, &err) <= 0)
    return;
  if (counts.oom_kills)
    {
      snprintf (detail, sizeof detail, "%llu process(es) killed by the OOM "
                "killer at the memory limit", (unsigned long long) counts.oom_kills);
      audit_limit (m->req->audit_fd, m->req->id, "oom", detail);
    }
  if (counts.pids_max)
    {
      snprintf (detail, sizeof detail, "%llu fork(s) refused at the pids limit",
                (unsigned long long) counts.pids_max);
      audit_limit (m->req->audit_fd, m->req->id, "pids", detail);
    }
}

void
monitor_sidecar_exited (struct monitor *m, int status)
{
  audit_sidecar_died (m->req->audit_fd, m->req->id, status);
  if (m->sidecar_pidfd >= 0)
    close (m->sidecar_pidfd);
  m->sidecar_pidfd = -1;
  m->sidecar = 0;
}

void
monitor_record_exit (struct monitor *m, int status)
{
  /* an OOM kill of the init itself makes both ready at once: the limit
   * event first, before the record of the exit it caused */
  if (m->watch)
    on_cgroup_event (m);
  audit_exit (m->req->audit_fd, m->req->id, status, elapsed_ms (&m->started));
  monitor_stop_sidecar (m);
}

void
monitor_event_fds (const struct monitor *m, struct pollfd p[2])
{
  p[0] = (struct pollfd){ .fd = m->timerfd, .events = POLLIN };
  p[1] = (struct pollfd){ .fd = m->watch ? cgroup_watch_fd (m->watch) : -1,
                          .events = POLLIN };
}

void
monitor_on_events (struct monitor *m, const struct pollfd p[2])
{
  if (p[0].fd >= 0 && (p[0].revents & POLLIN))
    on_lifetime (m);
  if (p[1].fd >= 0 && (p[1].revents & POLLIN))
    on_cgroup_event (m);
}

int
monitor_arm_lifetime (struct monitor *m)
{
  struct itimerspec its = { .it_value = { .tv_sec = (time_t) m->req->lifetime } };

  if (m->req->lifetime == 0)
    return 0;
  m->timerfd = timerfd_create (CLOCK_BOOTTIME, TFD_CLOEXEC);
  if (m->timerfd < 0 || timerfd_settime (m->timerfd, 0, &its, NULL) < 0)
    return -1;
  return 0;
}

int
monitor_watch_cgroup (struct monitor *m, bool owned)
{
  cleanup_error agentrt_error_t err = NULL;
  const struct monitor_request *req = m->req;
  const struct cgroup_layout *layout;

  if (req->cgroup_path == NULL)
    return 0;
  layout = cgroup_layout_host (&err);
  if (layout)
    m->cgroup = cgroup_open (layout, req->cgroup_path, req->systemd_unit,
                             owned, &err);
  if (m->cgroup)
    m->watch = cgroup_watch_open (m->cgroup, &err);
  return m->watch ? 0 : -1;
}

/* setns through the init's pidfd (Linux 5.8), else its /proc entry (the
 * init is the runtime's unreaped child: its pid is not reused meanwhile). */
static int
enter_init_netns (const struct monitor *m, int pidfd)
{
  char path[64];
  int fd, r;

  if (setns (pidfd, CLONE_NEWNET) == 0)
    return 0;
  if (errno != EINVAL)
    return -1;
  snprintf (path, sizeof path, "/proc/%d/ns/net", (int) m->init_pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  r = setns (fd, CLONE_NEWNET);
  close (fd);
  return r;
}

/* In the namespace to prepare: lo up, the listeners. */
static int
bring_up (struct monitor *m, struct child_error *cerr)
{
  if (netns_loopback_up (cerr) < 0)
    return -1;
  if (m->req->egress == NULL)
    return 0;
  m->egress.http = netns_listen_loopback (EGRESS_HTTP_PORT, cerr);
  if (m->egress.http < 0)
    return -1;
  m->egress.socks = netns_listen_loopback (EGRESS_SOCKS_PORT, cerr);
  return m->egress.socks < 0 ? -1 : 0;
}

int
monitor_prepare_netns (struct monitor *m, int target, int *agent,
                       struct child_error *cerr)
{
  int own = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), r = -1;

  if (own < 0)
    return child_error (cerr, errno, "monitor: open its network namespace");
  if (target >= 0 && enter_init_netns (m, target) < 0)
    {
      close (own);
      return child_error (cerr, errno, "monitor: enter the container's "
                          "network namespace");
    }
  if (target < 0
      && (unshare (CLONE_NEWNET) < 0
          || (*agent = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0))
    child_error (cerr, errno, "create the agent's network namespace");
  else
    r = bring_up (m, cerr);
  /* back home whatever happened: the caller goes on here */
  if (setns (own, CLONE_NEWNET) < 0 && r == 0)
    r = child_error (cerr, errno, "monitor: return to its network namespace");
  close (own);
  return r;
}

int
monitor_start_sidecar (struct monitor *m)
{
  int err = 0;

  m->sidecar = sidecar_start (m->req, &m->egress, m->pidfd, &err);
  monitor_close_egress (m);
  if (m->sidecar < 0)
    {
      m->sidecar = 0;
      errno = err;
      return -1;
    }
  m->sidecar_pidfd = proc_pidfd_open (m->sidecar);
  return 0;
}

/* The sidecar has its own copies: the monitor keeps none, so that once
 * the sidecar is gone the agent's connects are refused instead of waiting
 * in a listen queue nobody serves. */
void
monitor_close_egress (struct monitor *m)
{
  struct egress_fds *e = &m->egress;
  int *fds[] = { &e->http, &e->socks, &e->netns, &e->resolv, &e->hosts };
  size_t i;
  for (i = 0; i < sizeof fds / sizeof fds[0]; i++)
    if (*fds[i] >= 0)
      {
        close (*fds[i]);
        *fds[i] = -1;
      }
}


/* `run`'s own monitor: the request and its strings live as long as it. */
struct local_monitor
{
  struct monitor m;
  struct monitor_request req;
  struct monitor_egress egress;
};

struct monitor *
monitor_local_new (const struct monitor_request *req, agentrt_error_t *err)
{
  struct local_monitor *l = xzalloc (sizeof *l);

  l->req = *req;
  l->req.id = xstrdup (req->id);
  l->req.root = NULL;
  l->req.cgroup_path = req->cgroup_path ? xstrdup (req->cgroup_path) : NULL;
  l->req.systemd_unit = req->systemd_unit ? xstrdup (req->systemd_unit) : NULL;
  if (req->egress)
    {
      l->egress = *req->egress;
      l->egress.allow = xstrdup (req->egress->allow);
      l->req.egress = &l->egress;
    }
  monitor_duties_init (&l->m, &l->req);
  l->req.audit_fd = fcntl (req->audit_fd, F_DUPFD_CLOEXEC, 3);
  if (l->req.audit_fd < 0)
    agentrt_error (err, errno, "monitor: the audit file");
  else if (monitor_arm_lifetime (&l->m) < 0)
    agentrt_error (err, errno, "monitor: arm the lifetime timer");
  else
    return &l->m;
  monitor_local_free (&l->m);
  return NULL;
}

int
monitor_local_watch (struct monitor *m, pid_t init_pid, uint64_t init_start,
                     bool owned, agentrt_error_t *err)
{
  struct child_error cerr = { 0 };

  m->init_pid = init_pid;
  m->pidfd = proc_pidfd_open_checked (init_pid, init_start);
  if (m->pidfd < 0)
    return agentrt_error (err, -m->pidfd, "monitor: the container init");
  if (m->req->netns == MONITOR_NETNS_INIT
      && monitor_prepare_netns (m, m->pidfd, NULL, &cerr) < 0)
    return agentrt_error_verbatim (err, cerr.status, cerr.msg);
  if (monitor_watch_cgroup (m, owned) < 0)
    return agentrt_error (err, EIO, "monitor: watch the cgroup for limit events");
  return 0;
}

int
monitor_local_commit (struct monitor *m, const struct monitor_commit *c,
                      agentrt_error_t *err)
{
  const int theirs[] = { c->http_fd, c->socks_fd, c->netns_fd, c->resolv_fd,
                         c->hosts_fd };
  int *mine[] = { &m->egress.http, &m->egress.socks, &m->egress.netns,
                  &m->egress.resolv, &m->egress.hosts };
  size_t i;

  if (m->req->egress == NULL)
    return 0;
  /* create closes its own fds: the sidecar gets copies (the listeners are
   * already here when this monitor bound them) */
  for (i = 0; i < 5; i++)
    if (theirs[i] >= 0 && (*mine[i] = fcntl (theirs[i], F_DUPFD_CLOEXEC, 3)) < 0)
      return agentrt_error (err, errno, "monitor: the egress fds");
  if (monitor_start_sidecar (m) < 0)
    return agentrt_error (err, errno, "start the egress sidecar");
  return 0;
}

pid_t
monitor_local_sidecar (const struct monitor *m)
{
  return m->sidecar;
}

void
monitor_local_free (struct monitor *m)
{
  struct local_monitor *l = (struct local_monitor *) m;

  if (m == NULL)
    return;
  monitor_stop_sidecar (m);
  monitor_close_egress (m);
  if (m->sidecar_pidfd >= 0)
    close (m->sidecar_pidfd);
  if (m->pidfd >= 0)
    close (m->pidfd);
  if (m->timerfd >= 0)
    close (m->timerfd);
  if (l->req.audit_fd >= 0)
    close (l->req.audit_fd);
  cgroup_watch_free (m->watch);
  cgroup_free (m->cgroup);
  free ((char *) l->req.id);
  free ((char *) l->req.cgroup_path);
  free ((char *) l->req.systemd_unit);
  free ((char *) l->egress.allow);
  free (l);
}
