/* The per-container monitor and the egress sidecar's start (see
 * monitor.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/audit.h"
#include "runtime/cgroup.h"
#include "runtime/cloned_binary.h"
#include "runtime/monitor.h"
#include "runtime/netns.h"
#include "runtime/proc_util.h"
#include "runtime/sync.h"

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

/* The fds the sidecar is started with: the runtime's (or the monitor's
 * own listeners), open until the sidecar has them. */
struct egress_fds
{
  int http;   /* listening sockets inside the agent's namespace */
  int socks;
  int netns;  /* the outside namespace, -1: the monitor's own */
  int resolv;
  int hosts;
};

/* Flags of SYNC_MONITOR_GO: which fds follow, in this order. */
enum
{
  MONITOR_GO_NETNS = 1 << 0,
  MONITOR_GO_RESOLV = 1 << 1,
  MONITOR_GO_HOSTS = 1 << 2,
  MONITOR_GO_LISTENERS = 1 << 3, /* http and socks */
};

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

/* Exec of the sidecar in the outside namespace, with its fds at 3.. */
static void __attribute__ ((noreturn))
sidecar_exec (const char *binary, const struct monitor_request *req,
              const struct egress_fds *f, int pidfd)
{
  const struct monitor_egress *e = req->egress;
  int src[6] = { f->http, f->socks, pidfd, req->audit_fd, f->resolv, f->hosts };
  char num[8][16], uid[16], gid[16];
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

struct monitor
{
  const struct monitor_request *req;
  int sock;        /* to the runtime, until the commit */
  pid_t init_pid;
  int pidfd;       /* the init's */
  int sigfd;
  int timerfd;     /* lifetime, -1 without */
  struct cgroup *cgroup;
  struct cgroup_watch *watch;
  struct egress_fds egress;
  pid_t sidecar;
  int sidecar_pidfd;
  struct timespec started;
};

static uint64_t
elapsed_ms (const struct timespec *since)
{
  struct timespec now;
  clock_gettime (CLOCK_BOOTTIME, &now);
  return (uint64_t) (now.tv_sec - since->tv_sec) * 1000
         + (uint64_t) ((now.tv_nsec - since->tv_nsec) / 1000000);
}

static void
stop_sidecar (struct monitor *m)
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

static void
on_sidecar_exit (struct monitor *m)
{
  int status = 0;
  waitpid (m->sidecar, &status, 0);
  audit_sidecar_died (m->req->audit_fd, m->req->id, status);
  close (m->sidecar_pidfd);
  m->sidecar_pidfd = -1;
  m->sidecar = 0;
}

/* The init exited: record how (from the pidfd, also once its parent
 * reaped it; on kernels before 6.15 only while it is a zombie) and stop. */
static void __attribute__ ((noreturn))
on_init_exit (struct monitor *m)
{
  int status = proc_pidfd_exit_status (m->pidfd, m->init_pid);
  /* an OOM kill of the init itself makes both ready at once: the limit
   * event first, before the record of the exit it caused */
  if (m->watch)
    on_cgroup_event (m);
  audit_exit (m->req->audit_fd, m->req->id, status, elapsed_ms (&m->started));
  stop_sidecar (m);
  _exit (0);
}

static void __attribute__ ((noreturn))
monitor_loop (struct monitor *m)
{
  for (;;)
    {
      struct pollfd p[5] = {
        { .fd = m->pidfd, .events = POLLIN },
        { .fd = m->sigfd, .events = POLLIN },
        { .fd = m->timerfd, .events = POLLIN },
        { .fd = m->watch ? cgroup_watch_fd (m->watch) : -1, .events = POLLIN },
        { .fd = m->sidecar_pidfd, .events = POLLIN },
      };
      if (poll (p, 5, -1) < 0 && errno != EINTR)
        _exit (1);
      if (p[0].revents & POLLIN)
        on_init_exit (m);
      if (p[1].revents & POLLIN)
        {
          struct signalfd_siginfo si;
          if (read (m->sigfd, &si, sizeof si) == sizeof si
              && si.ssi_signo != SIGCHLD)
            {
              stop_sidecar (m);
              _exit (0);
            }
        }
      if (p[2].revents & POLLIN)
        on_lifetime (m);
      if (p[3].revents & POLLIN)
        on_cgroup_event (m);
      if (p[4].revents & POLLIN)
        on_sidecar_exit (m);
    }
}

static int
arm_lifetime (uint64_t seconds)
{
  struct itimerspec its = { .it_value = { .tv_sec = (time_t) seconds } };
  int fd = timerfd_create (CLOCK_BOOTTIME, TFD_CLOEXEC);
  if (fd >= 0 && timerfd_settime (fd, 0, &its, NULL) < 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

static int
open_cgroup (const struct monitor_request *req, bool owned, struct monitor *m)
{
  cleanup_error agentrt_error_t err = NULL;
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

/* The agent's network namespace, prepared here (see enum monitor_netns):
 * `target` is the init's own new namespace (its pidfd), or -1 to make one,
 * which the runtime hands to the init.  The monitor goes back to its own
 * namespace (the sidecar starts from there when the outside is the
 * runtime's). */
static void
prepare_agent_netns (struct monitor *m, int target)
{
  struct child_error cerr = { 0 };
  struct sync_msg msg = { .type = SYNC_MONITOR_NETNS };
  int own = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  int agent = -1;

  if (own < 0)
    report_and_exit (m->sock, errno, "monitor: open its network namespace");
  if (target >= 0 && enter_init_netns (m, target) < 0)
    report_and_exit (m->sock, errno, "monitor: enter the container's "
                     "network namespace");
  if (target < 0
      && (unshare (CLONE_NEWNET) < 0
          || (agent = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0))
    report_and_exit (m->sock, errno, "create the agent's network namespace");
  if (netns_loopback_up (&cerr) < 0)
    report_and_exit (m->sock, cerr.status, cerr.msg);
  if (m->req->egress)
    {
      m->egress.http = netns_listen_loopback (EGRESS_HTTP_PORT, &cerr);
      m->egress.socks = m->egress.http < 0
                            ? -1 : netns_listen_loopback (EGRESS_SOCKS_PORT, &cerr);
      if (m->egress.socks < 0)
        report_and_exit (m->sock, cerr.status, cerr.msg);
    }
  if (setns (own, CLONE_NEWNET) < 0)
    report_and_exit (m->sock, errno, "monitor: return to its network namespace");
  close (own);
  if (agent < 0)
    return;
  if (sync_send (m->sock, &msg, &agent, 1) < 0)
    _exit (1);
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
 * from now on, and the init's namespace is prepared (MONITOR_NETNS_INIT). */
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
  if (m->req->netns == MONITOR_NETNS_INIT)
    prepare_agent_netns (m, m->pidfd);
  if (open_cgroup (m->req, msg.flags == 1, m) < 0)
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
  if (flags & MONITOR_GO_NETNS)
    m->egress.netns = fds[i++];
  if (flags & MONITOR_GO_RESOLV)
    m->egress.resolv = fds[i++];
  if (flags & MONITOR_GO_HOSTS)
    m->egress.hosts = fds[i++];
  if (flags & MONITOR_GO_LISTENERS)
    {
      m->egress.http = fds[i++];
      m->egress.socks = fds[i++];
    }
  if (i != nfds)
    report_and_exit (m->sock, EPROTO, "monitor: the runtime's go lacks fds");
}

/* The sidecar has its own copies: the monitor keeps none, so that once
 * the sidecar is gone the agent's connects are refused instead of waiting
 * in a listen queue nobody serves. */
static void
close_egress_fds (struct egress_fds *e)
{
  int *fds[] = { &e->http, &e->socks, &e->netns, &e->resolv, &e->hosts };
  size_t i;
  for (i = 0; i < sizeof fds / sizeof fds[0]; i++)
    if (*fds[i] >= 0)
      {
        close (*fds[i]);
        *fds[i] = -1;
      }
}

/* The monitor and the sidecar outlive the command that started them: they
 * must not keep its stdio open.  An engine may read the runtime's stdout and
 * stderr to EOF (containerd's shim does for `create` with a terminal, which
 * would otherwise wait for the container's exit).  The sidecar reports its
 * failures through the audit trail and its exit status. */
static void
detach_stdio (void)
{
  int fd = open ("/dev/null", O_RDWR);
  int i;

  if (fd < 0)
    return;
  for (i = 0; i < 3; i++)
    if (i != fd)
      dup2 (fd, i);
  if (fd > 2)
    close (fd);
}

static void __attribute__ ((noreturn))
monitor_main (const struct monitor_request *req, int sock)
{
  struct monitor m = { .req = req, .sock = sock, .pidfd = -1, .timerfd = -1,
                       .sidecar_pidfd = -1,
                       .egress = { -1, -1, -1, -1, -1 } };
  struct sync_msg ready = { .type = SYNC_MONITOR_READY };
  sigset_t all;
  int err = 0;

  setsid ();
  detach_stdio ();
  prctl (PR_SET_NAME, "agentrt-monitor", 0, 0, 0);
  clock_gettime (CLOCK_BOOTTIME, &m.started);
  sigfillset (&all);
  sigprocmask (SIG_BLOCK, &all, NULL);
  m.sigfd = signalfd (-1, &all, SFD_CLOEXEC);
  if (m.sigfd < 0)
    report_and_exit (sock, errno, "monitor: signalfd");
  if (req->lifetime && (m.timerfd = arm_lifetime (req->lifetime)) < 0)
    report_and_exit (sock, errno, "monitor: arm the lifetime timer");
  if (req->netns == MONITOR_NETNS_MAKE)
    prepare_agent_netns (&m, -1);

  await_cgroup (&m);
  await_go (&m);
  if (req->egress)
    {
      m.sidecar = sidecar_start (req, &m.egress, m.pidfd, &err);
      if (m.sidecar < 0)
        report_and_exit (sock, err, "start the egress sidecar");
      m.sidecar_pidfd = proc_pidfd_open (m.sidecar);
      ready.value = m.sidecar;
    }
  close_egress_fds (&m.egress);
  if (req->egress && sync_send (sock, &ready, NULL, 0) < 0)
    {
      stop_sidecar (&m);
      _exit (1);
    }
  close (sock);
  monitor_loop (&m);
}

/* The monitor keeps only what it uses; the runtime's other fds (the state
 * directory's lock above all) must not live on in it. */
static int
compare_ints (const void *a, const void *b)
{
  return *(const int *) a - *(const int *) b;
}

static void
close_other_fds (int *keep, size_t n)
{
  unsigned int next = 3;
  size_t i;

  qsort (keep, n, sizeof *keep, compare_ints);
  for (i = 0; i < n; i++)
    {
      if (keep[i] < (int) next)
        continue;
      if ((unsigned int) keep[i] > next)
        syscall (SYS_close_range, next, (unsigned int) keep[i] - 1, 0);
      next = (unsigned int) keep[i] + 1;
    }
  syscall (SYS_close_range, next, ~0U, 0);
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
      close_other_fds (keep, sizeof keep / sizeof keep[0]);
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
  if (c->http_fd >= 0 && c->socks_fd >= 0)
    {
      flags |= MONITOR_GO_LISTENERS;
      fds[nfds++] = c->http_fd;
      fds[nfds++] = c->socks_fd;
    }
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
  out->sidecar = h->sidecar ? msg.value : 0;
  proc_stat_read (h->pid, &out->monitor_start, NULL);
  if (out->sidecar > 0)
    proc_stat_read (out->sidecar, &out->sidecar_start, NULL);
  return 0;
}
