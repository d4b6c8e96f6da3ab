/* The forked per-container monitor and its protocol with `create` (see
 * monitor.h); what it does is in monitor_duties.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/fault.h"
#include "runtime/monitor_duties.h"
#include "runtime/proc_util.h"
#include "runtime/sync.h"

/* Flags of SYNC_MONITOR_GO: which fds follow, in this order. */
enum
{
  MONITOR_GO_NETNS = 1 << 0,
  MONITOR_GO_RESOLV = 1 << 1,
  MONITOR_GO_HOSTS = 1 << 2,
};
/* ... then the sidecar's sockets the init bound: socket i (netns.h) when
 * bit MONITOR_GO_SOCK + i is set. */
#define MONITOR_GO_SOCK 8

/* Tells the runtime why the monitor cannot go on, and stops. */
static void __attribute__ ((noreturn))
report_and_exit (int sock, int status, const char *what)
{
  struct sync_msg msg = { .type = SYNC_ERROR };
  child_error (&msg.error, status, "%s", what);
  if (sync_send (sock, &msg, NULL, 0) < 0)
    { /* the runtime sees EOF and reports that instead */ }
  _exit (1);
}

/* The same with a reason already formatted (its errno text included). */
static void __attribute__ ((noreturn))
report_error_and_exit (int sock, const struct child_error *cerr)
{
  struct sync_msg msg = { .type = SYNC_ERROR, .error = *cerr };
  if (sync_send (sock, &msg, NULL, 0) < 0)
    { /* the runtime sees EOF and reports that instead */ }
  _exit (1);
}

/* The init exited: record how (from the pidfd, also once its parent
 * reaped it; on kernels before 6.15 only while it is a zombie) and stop. */
static void __attribute__ ((noreturn))
on_init_exit (struct monitor *m)
{
  monitor_record_exit (m, proc_pidfd_exit_status (m->pidfd, m->init_pid));
  _exit (0);
}

static void
on_sidecar_exit (struct monitor *m)
{
  monitor_sidecar_exited (m, monitor_reap_sidecar (m));
}

/* poll, retried while it fails for want of memory (or a signal); any
 * other failure means the monitor cannot watch any more. */
static void
await_events (struct monitor *m, struct pollfd *p, nfds_t n)
{
  const struct timespec pause = { .tv_nsec = 10 * 1000000L };

  while (FAULT_CALL ("monitor:poll", poll (p, n, -1)) < 0)
    {
      if (errno == ENOMEM || errno == EAGAIN)
        nanosleep (&pause, NULL);
      else if (errno != EINTR)
        {
          monitor_give_up (m, "poll", errno);
          _exit (1);
        }
    }
}

static void __attribute__ ((noreturn))
monitor_loop (struct monitor *m, int sigfd)
{
  for (;;)
    {
      struct pollfd p[3 + MONITOR_EVENT_FDS] = {
        { .fd = m->pidfd, .events = POLLIN },
        { .fd = sigfd, .events = POLLIN },
        { .fd = m->sidecar_pidfd, .events = POLLIN },
      };
      monitor_event_fds (m, p + 3);
      await_events (m, p, 3 + MONITOR_EVENT_FDS);
      if (p[0].revents & POLLIN)
        on_init_exit (m);
      if (p[1].revents & POLLIN)
        {
          struct signalfd_siginfo si;
          if (read (sigfd, &si, sizeof si) == sizeof si
              && si.ssi_signo != SIGCHLD)
            {
              /* `delete` stops it: what waits in the trail gets a second */
              monitor_stop_sidecar (m);
              audit_trail_drain (&m->trail, 1000);
              _exit (0);
            }
        }
      if (p[2].revents & POLLIN)
        on_sidecar_exit (m);
      monitor_on_events (m, p + 3);
    }
}

/* The agent's network namespace (net_plan_monitor_makes / _prepares_init). */
static void
prepare_netns (struct monitor *m, int target)
{
  struct child_error cerr = { 0 };
  struct sync_msg msg = { .type = SYNC_MONITOR_NETNS };
  int agent = -1;

  if (monitor_prepare_netns (m, target, &agent, &cerr) < 0)
    report_error_and_exit (m->sock, &cerr);
  if (agent < 0)
    return;
  /* handed over at once: the init joins it while it is brought up; a
   * failure from here on is the runtime's to read at the commit */
  if (sync_send (m->sock, &msg, &agent, 1) < 0)
    _exit (1);
  if (monitor_prepare_netns (m, agent, NULL, &cerr) < 0)
    report_error_and_exit (m->sock, &cerr);
  close (agent);
}

/* The runtime's next message, of that type.  EOF: the create failed or
 * its command died, and the monitor has nothing to watch. */
static void
await_runtime (struct monitor *m, enum sync_type type, struct sync_msg *msg,
               int *fds, int *nfds)
{
  if (sync_recv (m->sock, msg, fds, nfds) < 0 || msg->type != type)
    _exit (0);
}

/* The init and its cgroup exist: the cgroup's limit events are watched
 * from now on, and the init's namespace is prepared
 * (net_plan_monitor_prepares_init). */
static void
await_cgroup (struct monitor *m)
{
  struct sync_msg msg;
  int fds[SYNC_MAX_FDS], nfds = 0;

  await_runtime (m, SYNC_MONITOR_CGROUP, &msg, fds, &nfds);
  if (nfds != 1)
    report_and_exit (m->sock, EPROTO, "monitor: no pidfd of the init received");
  m->init_pid = msg.value;
  m->pidfd = fds[0];
  if (net_plan_monitor_prepares_init (&m->req->net))
    prepare_netns (m, m->pidfd);
  if (monitor_watch_cgroup (m, msg.flags == 1) < 0)
    report_and_exit (m->sock, EIO, "monitor: watch the cgroup for limit events");
  msg = (struct sync_msg){ .type = SYNC_MONITOR_WATCHING };
  if (sync_send (m->sock, &msg, NULL, 0) < 0)
    _exit (1);
}

/* The runtime's go, once the init is ready. */
static void
await_go (struct monitor *m)
{
  struct sync_msg msg;
  int fds[SYNC_MAX_FDS], nfds = 0, i = 0;
  uint32_t flags;

  await_runtime (m, SYNC_MONITOR_GO, &msg, fds, &nfds);
  flags = msg.flags;
  if (nfds != __builtin_popcount (flags))
    report_and_exit (m->sock, EPROTO, "monitor: the runtime's go lacks fds");
  if (flags & MONITOR_GO_NETNS)
    m->egress.netns = fds[i++];
  if (flags & MONITOR_GO_RESOLV)
    m->egress.resolv = fds[i++];
  if (flags & MONITOR_GO_HOSTS)
    m->egress.hosts = fds[i++];
  for (int s = 0; s < EGRESS_SOCKETS; s++)
    if (flags & (1u << (MONITOR_GO_SOCK + s)))
      m->egress.sock[s] = fds[i++];
}

/* The monitor and the sidecar outlive the command that started them: they
 * must not keep its stdio open.  An engine may read the runtime's stdout and
 * stderr to EOF (containerd's shim does for `create` with a terminal, which
 * would otherwise wait for the container's exit).  The sidecar reports its
 * failures through the audit trail and its exit status. */
static int
detach_stdio (void)
{
  int fd = open ("/dev/null", O_RDWR); /* lands on 0..2 when one is shut */
  int i;

  if (fd < 0)
    return -1;
  for (i = 0; i < 3; i++)
    if (i != fd && dup2 (fd, i) < 0)
      {
        close (fd);
        return -1;
      }
  if (fd > 2)
    close (fd);
  return 0;
}

static void __attribute__ ((noreturn))
monitor_main (const struct monitor_request *req, int sock)
{
  struct monitor m;
  struct sync_msg ready = { .type = SYNC_MONITOR_READY };
  sigset_t all;
  int sigfd;

  monitor_duties_init (&m, req);
  m.sock = sock;
  if (setsid () < 0 || detach_stdio () < 0)
    report_and_exit (sock, errno, "monitor: detach from the runtime's "
                     "session and stdio");
  prctl (PR_SET_NAME, "agentrt-monitor", 0, 0, 0); /* a name, for ps */
  sigfillset (&all);
  if (sigprocmask (SIG_BLOCK, &all, NULL) < 0)
    report_and_exit (sock, errno, "monitor: block signals");
  sigfd = signalfd (-1, &all, SFD_CLOEXEC);
  if (sigfd < 0)
    report_and_exit (sock, errno, "monitor: signalfd");
  if (monitor_arm_lifetime (&m) < 0)
    report_and_exit (sock, errno, "monitor: arm the lifetime timer");
  if (net_plan_monitor_makes (&req->net))
    prepare_netns (&m, -1);

  await_cgroup (&m);
  await_go (&m);
  if (req->egress)
    {
      struct child_error cerr = { 0 };
      if (monitor_arm_sidecar (&m, &cerr) < 0)
        report_and_exit (sock, cerr.status, cerr.msg);
      if (sync_send (sock, &ready, NULL, 0) < 0)
        _exit (1);
    }
  close (sock);
  monitor_loop (&m, sigfd);
}

/* The monitor keeps only what it uses; the runtime's other fds (the state
 * directory's lock above all) must not live on in it. */
static int
compare_ints (const void *a, const void *b)
{
  return *(const int *) a - *(const int *) b;
}

static int
close_range_checked (unsigned int first, unsigned int last)
{
  return (int) FAULT_CALL ("monitor:close-range",
                           syscall (SYS_close_range, first, last, 0));
}

static int
close_other_fds (int *keep, size_t n)
{
  unsigned int next = 3;
  size_t i;

  qsort (keep, n, sizeof *keep, compare_ints);
  for (i = 0; i < n; i++)
    {
      if (keep[i] < (int) next)
        continue;
      if ((unsigned int) keep[i] > next
          && close_range_checked (next, (unsigned int) keep[i] - 1) < 0)
        return -1;
      next = (unsigned int) keep[i] + 1;
    }
  return close_range_checked (next, ~0U);
}

int
monitor_fork (const struct monitor_request *req, struct monitor_handle *h,
              agentrt_error_t *err)
{
  int pair[2];
  pid_t pid;

  h->pid = 0;
  h->sock = -1;
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
    return agentrt_error (err, errno, "monitor: socketpair");
  pid = fork ();
  if (pid == 0)
    {
      int keep[] = { pair[1], req->audit_fd };
      /* the state dir's lock above all must not live on in it */
      if (close_other_fds (keep, sizeof keep / sizeof keep[0]) < 0)
        report_and_exit (pair[1], errno, "monitor: close the runtime's "
                         "other fds (close_range)");
      monitor_main (req, pair[1]);
    }
  close (pair[1]);
  if (pid < 0)
    {
      close (pair[0]);
      return agentrt_error (err, errno, "monitor: fork");
    }
  h->pid = pid;
  h->sock = pair[0];
  h->sidecar = req->egress != NULL;
  return 0;
}

/* The monitor's answer: `want`, or its error, or that it is gone. */
static int
monitor_expect (struct monitor_handle *h, enum sync_type want,
                struct sync_msg *msg, int *fds, int *nfds, agentrt_error_t *err)
{
  int r = sync_recv (h->sock, msg, fds, nfds);
  if (r < 0)
    return agentrt_error (err, r == -EPIPE ? EIO : -r, "monitor: it exited");
  if (msg->type == SYNC_ERROR)
    {
      msg->error.msg[sizeof msg->error.msg - 1] = '\0';
      return agentrt_error_verbatim (err, msg->error.status, msg->error.msg);
    }
  if (msg->type != want)
    return agentrt_error (err, EPROTO, "monitor: unexpected message %u",
                          msg->type);
  return 0;
}

int
monitor_agent_netns (struct monitor_handle *h, agentrt_error_t *err)
{
  struct sync_msg msg;
  int fds[SYNC_MAX_FDS], nfds = 0;

  if (monitor_expect (h, SYNC_MONITOR_NETNS, &msg, fds, &nfds, err) < 0)
    return -1;
  if (nfds != 1)
    return agentrt_error (err, EPROTO, "monitor: no network namespace received");
  return fds[0];
}

int
monitor_cgroup_ready (struct monitor_handle *h, pid_t init_pid,
                      uint64_t init_start, bool owned, agentrt_error_t *err)
{
  struct sync_msg msg = { .type = SYNC_MONITOR_CGROUP, .value = init_pid,
                          .flags = owned };
  int pidfd = proc_pidfd_open_checked (init_pid, init_start), r;

  if (pidfd < 0)
    return agentrt_error (err, -pidfd, "monitor: the container init");
  /* EPIPE: the monitor stopped, and the next read gives its reason */
  r = sync_send (h->sock, &msg, &pidfd, 1);
  close (pidfd);
  if (r < 0 && r != -EPIPE)
    return agentrt_error (err, -r, "monitor: hand over the container init");
  return 0;
}

int
monitor_commit (struct monitor_handle *h, const struct monitor_commit *c,
                struct monitor_pids *out, agentrt_error_t *err)
{
  struct sync_msg msg;
  int fds[SYNC_MAX_FDS], nfds = 0, r;
  uint32_t flags = 0;

  if (c->netns_fd >= 0)
    flags |= MONITOR_GO_NETNS, fds[nfds++] = c->netns_fd;
  if (c->resolv_fd >= 0)
    flags |= MONITOR_GO_RESOLV, fds[nfds++] = c->resolv_fd;
  if (c->hosts_fd >= 0)
    flags |= MONITOR_GO_HOSTS, fds[nfds++] = c->hosts_fd;
  for (int s = 0; c->sock && s < EGRESS_SOCKETS; s++)
    if (c->sock[s] >= 0)
      flags |= 1u << (MONITOR_GO_SOCK + s), fds[nfds++] = c->sock[s];
  r = monitor_expect (h, SYNC_MONITOR_WATCHING, &msg, NULL, NULL, err);
  if (r == 0)
    {
      msg = (struct sync_msg){ .type = SYNC_MONITOR_GO, .flags = flags };
      r = sync_send (h->sock, &msg, fds, nfds);
      if (r < 0)
        agentrt_error (err, -r, "monitor: tell it to go on");
    }
  if (r == 0 && h->sidecar)
    r = monitor_expect (h, SYNC_MONITOR_READY, &msg, NULL, NULL, err);
  close (h->sock);
  h->sock = -1;
  if (r < 0)
    return -1;
  out->monitor = h->pid;
  proc_stat_read (h->pid, &out->monitor_start, NULL);
  return 0;
}
