/* What a container's monitor does (see monitor_duties.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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
#include "runtime/cgroup/cgroup.h"
#include "runtime/fault.h"
#include "runtime/monitor_duties.h"
#include "runtime/netns.h"
#include "runtime/netns_rules.h"
#include "runtime/proc_util.h"

void
monitor_duties_init (struct monitor *m, const struct monitor_request *req)
{
  memset (m, 0, sizeof *m);
  m->req = req;
  m->sock = m->pidfd = m->timerfd = m->sidecar_pidfd = m->sidecar_report = -1;
  m->sidecar_creds = -1;
  for (int i = 0; i < EGRESS_SOCKETS; i++)
    m->egress.sock[i] = -1;
  m->egress.netns = m->egress.resolv = m->egress.hosts = -1;
  audit_trail_init (&m->trail, req->audit_fd, req->id);
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

/* One attempt at killing the container: its cgroup (cgroup.kill, or
 * frozen and each member signalled), from the second attempt on every
 * member of the cgroup by pidfd as well, and the init through its pidfd.
 * Each is tried whatever the others did; the first error is returned. */
static int
lifetime_kill (struct monitor *m, agentrt_error_t *err)
{
  cleanup_error agentrt_error_t later = NULL;
  int r = 0;

  if (fault_fail ("monitor:lifetime-kill") < 0)
    return agentrt_error (err, errno, "kill the container");
  if (m->cgroup && cgroup_kill_all (m->cgroup, SIGKILL, err) < 0)
    r = agentrt_error_wrap (err, "kill the container's cgroup");
  if (m->cgroup && m->lifetime_kills > 1
      && cgroup_signal_members (m->cgroup, SIGKILL, r ? &later : err) < 0
      && r == 0)
    r = agentrt_error_wrap (err, "SIGKILL each process of its cgroup");
  if (syscall (SYS_pidfd_send_signal, m->pidfd, SIGKILL, NULL, 0) < 0
      && errno != ESRCH && r == 0)
    r = agentrt_error (err, errno, "SIGKILL the container's init");
  return r;
}

/* Seconds before the check that follows attempt n: 1, 2, 4 ... 60. */
static unsigned
lifetime_backoff (unsigned n)
{
  return n > 6 ? 60 : 1U << (n - 1);
}

/* The lifetime was reached (first call), or the container still runs after
 * the last attempt: kill it (again), record what failed, and check again
 * later.  Only the init's exit ends this (the monitor exits with it). */
static void
on_lifetime (struct monitor *m)
{
  cleanup_error agentrt_error_t err = NULL;
  unsigned n = ++m->lifetime_kills;
  struct itimerspec its = { .it_value = { .tv_sec = lifetime_backoff (n) } };
  char detail[640];
  uint64_t expirations;
  int k = 0;

  if (read (m->timerfd, &expirations, sizeof expirations) < 0)
    { /* readable, so it cannot fail; the timer is set anew below */ }
  if (n == 1)
    {
      snprintf (detail, sizeof detail, "lifetime of %llu s reached: the "
                "container is killed", (unsigned long long) m->req->lifetime);
      audit_limit (&m->trail, "lifetime", detail);
    }
  else
    k = snprintf (detail, sizeof detail, "the container still runs %u s "
                  "after its lifetime kill; ", lifetime_backoff (n - 1));
  if (lifetime_kill (m, &err) < 0 || n > 1)
    {
      snprintf (detail + k, sizeof detail - (size_t) k, "attempt %u %s%s; "
                "next check in %u s", n, err ? "failed: " : "done",
                err ? err->msg : "", lifetime_backoff (n));
      audit_incident (&m->trail, "lifetime-kill", detail);
    }
  if (timerfd_settime (m->timerfd, 0, &its, NULL) < 0)
    {
      snprintf (detail, sizeof detail, "the lifetime kill cannot be checked "
                "again (timerfd: %s)", strerror (errno));
      audit_incident (&m->trail, "lifetime-kill", detail);
      close (m->timerfd);
      m->timerfd = -1;
    }
}

/* Limit events.  A watch that cannot be read is an incident (recorded
 * once), unless its cgroup is gone (systemd removes a scope's once its
 * last process exited): then there is nothing left to watch. */
static void
on_cgroup_event (struct monitor *m)
{
  cleanup_error agentrt_error_t err = NULL;
  struct cgroup_watch_counts counts = { 0 };
  char detail[640];
  int r = cgroup_watch_read (m->watch, &counts, &err);

  if (r < 0 && err->status == ENOENT)
    {
      cgroup_watch_free (m->watch);
      m->watch = NULL;
      return;
    }
  if (r < 0 && !m->watch_failed)
    {
      m->watch_failed = true;
      snprintf (detail, sizeof detail, "the cgroup's limit events cannot be "
                "read: %s", err->msg);
      audit_incident (&m->trail, "limit-events", detail);
    }
  if (r <= 0)
    return;
  if (counts.oom_kills)
    {
      snprintf (detail, sizeof detail, "%llu process(es) killed by the OOM "
                "killer at the memory limit", (unsigned long long) counts.oom_kills);
      audit_limit (&m->trail, "oom", detail);
    }
  if (counts.pids_max)
    {
      snprintf (detail, sizeof detail, "%llu fork(s) refused at the pids limit",
                (unsigned long long) counts.pids_max);
      audit_limit (&m->trail, "pids", detail);
    }
}

void
monitor_sidecar_exited (struct monitor *m, int status)
{
  char why[160];

  audit_sidecar_died (&m->trail, status,
                      monitor_sidecar_failure (m, why, sizeof why) ? why : NULL);
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
  audit_exit (&m->trail, status, elapsed_ms (&m->started));
  monitor_stop_sidecar (m);
  audit_trail_drain (&m->trail, 2000);
}

void
monitor_give_up (struct monitor *m, const char *what, int error)
{
  cleanup_error agentrt_error_t err = NULL;
  char detail[640];

  snprintf (detail, sizeof detail, "the monitor cannot watch the container "
            "any more (%s: %s): the container is killed, since nothing "
            "would enforce its lifetime or record its exit", what,
            strerror (error));
  audit_incident (&m->trail, "monitor", detail);
  m->lifetime_kills = 2; /* every way at once */
  if (lifetime_kill (m, &err) < 0)
    {
      snprintf (detail, sizeof detail, "the monitor could not kill the "
                "container: %s", err->msg);
      audit_incident (&m->trail, "monitor", detail);
    }
  else if (proc_pidfd_wait (m->pidfd, 2000))
    audit_exit (&m->trail, proc_pidfd_exit_status (m->pidfd, m->init_pid),
                elapsed_ms (&m->started));
  monitor_stop_sidecar (m);
  audit_trail_drain (&m->trail, 2000);
}

void
monitor_event_fds (const struct monitor *m, struct pollfd p[MONITOR_EVENT_FDS])
{
  int i;

  p[0] = (struct pollfd){ .fd = m->timerfd, .events = POLLIN };
  p[1] = (struct pollfd){ .fd = m->watch ? cgroup_watch_fd (m->watch) : -1,
                          .events = POLLIN };
  for (i = 0; i < EGRESS_SOCKETS; i++)
    p[2 + i] = (struct pollfd){ .fd = m->sidecar_binary ? m->egress.sock[i] : -1,
                                .events = POLLIN };
}

/* The agent's first connection (or DNS datagram) waits in a listener's
 * queue: the sidecar starts and finds it there.  A sidecar that cannot
 * start leaves the agent without egress (its sockets are closed, its
 * connects refused), recorded. */
static void
on_first_connection (struct monitor *m)
{
  struct child_error cerr = { 0 };

  if (monitor_start_sidecar (m, &cerr) < 0)
    audit_sidecar_failed (&m->trail, cerr.msg);
}

void
monitor_on_events (struct monitor *m, const struct pollfd p[MONITOR_EVENT_FDS])
{
  int i;

  if (p[0].fd >= 0 && (p[0].revents & POLLIN))
    on_lifetime (m);
  if (p[1].fd >= 0 && (p[1].revents & POLLIN))
    on_cgroup_event (m);
  for (i = 0; i < EGRESS_SOCKETS; i++)
    if (p[2 + i].fd >= 0 && p[2 + i].revents && m->sidecar_binary)
      {
        on_first_connection (m);
        break;
      }
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
 * init is the runtime's unreaped child: its pid is not reused meanwhile);
 * target may also be a namespace's own fd. */
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

/* In the namespace to prepare: lo up, the sidecar's sockets, and the
 * transparent path's routes and rules. */
static int
bring_up (struct monitor *m, struct child_error *cerr)
{
  const struct net_plan *net = &m->req->net;

  if (netns_loopback_up (cerr) < 0)
    return -1;
  if (m->req->egress == NULL)
    return 0;
  if (netns_egress_sockets (net->transparent, m->egress.sock, cerr) < 0)
    return -1;
  if (net->rules == NET_RULES_MONITOR && netns_rules_install (cerr) < 0)
    return -1;
  return 0;
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
  if (target < 0)
    {
      if (unshare (CLONE_NEWNET) < 0
          || (*agent = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
        child_error (cerr, errno, "create the agent's network namespace");
      else
        r = 0; /* made: the caller hands it over, then prepares it */
    }
  else
    r = bring_up (m, cerr);
  /* back home whatever happened: the caller goes on here */
  if (setns (own, CLONE_NEWNET) < 0 && r == 0)
    r = child_error (cerr, errno, "monitor: return to its network namespace");
  close (own);
  return r;
}

/* `run`'s own monitor: the request and its strings live as long as it. */
struct local_monitor
{
  struct monitor m;
  struct monitor_request req;
  struct monitor_egress egress;
  struct egress_ask_policy ask;
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
      l->egress.trust_store = NULL; /* the sidecar starts later: */
      if (req->egress->trust_store)  /* a copy outlives the request */
        l->egress.trust_store = xstrdup (req->egress->trust_store);
      if (req->egress->ask)
        {
          egress_ask_copy (&l->ask, req->egress->ask);
          l->egress.ask = &l->ask;
        }
      l->req.egress = &l->egress;
    }
  l->req.audit_fd = fcntl (req->audit_fd, F_DUPFD_CLOEXEC, 3);
  monitor_duties_init (&l->m, &l->req);
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
  if (net_plan_monitor_prepares_init (&m->req->net)
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
  const int theirs[] = { c->netns_fd, c->resolv_fd, c->hosts_fd };
  int *mine[] = { &m->egress.netns, &m->egress.resolv, &m->egress.hosts };
  struct child_error cerr = { 0 };
  size_t i;

  if (m->req->egress == NULL)
    return 0;
  /* create closes its own fds: the sidecar gets copies (the sockets are
   * already here when this monitor bound them) */
  for (i = 0; i < 3; i++)
    if (theirs[i] >= 0 && (*mine[i] = fcntl (theirs[i], F_DUPFD_CLOEXEC, 3)) < 0)
      return agentrt_error (err, errno, "monitor: the egress fds");
  for (i = 0; c->sock && i < EGRESS_SOCKETS; i++)
    if (c->sock[i] >= 0
        && (m->egress.sock[i] = fcntl (c->sock[i], F_DUPFD_CLOEXEC, 3)) < 0)
      return agentrt_error (err, errno, "monitor: the egress fds");
  if (monitor_arm_sidecar (m, &cerr) < 0)
    return agentrt_error_verbatim (err, cerr.status, cerr.msg);
  return 0;
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
  audit_trail_release (&m->trail);
  if (l->req.audit_fd >= 0)
    close (l->req.audit_fd);
  cgroup_watch_free (m->watch);
  cgroup_free (m->cgroup);
  free ((char *) l->req.id);
  free ((char *) l->req.cgroup_path);
  free ((char *) l->req.systemd_unit);
  free ((char *) l->egress.allow);
  free ((char *) l->egress.trust_store);
  egress_ask_release (&l->ask);
  free (l);
}
