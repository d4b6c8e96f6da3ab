/* The egress sidecar of a container's monitor (see monitor_sidecar.h). */
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
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/approver_connect.h"
#include "runtime/audit.h"
#include "runtime/cloned_binary.h"
#include "runtime/fault.h"
#include "runtime/monitor_duties.h"
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

/* The sidecar's environment is empty, but for test builds: sanitizer
 * builds pass the runtime's ASAN_OPTIONS and UBSAN_OPTIONS, so that its
 * reports go where the others' do (hack/test.sh --sanitize: log_path
 * files), without symbolization (a symbolizer process is more than its
 * seccomp filter allows; hack/test.sh symbolizes the reports); fault
 * injection builds pass AGENTRT_FAULT_* (runtime/fault.h). */
#define SIDECAR_ENV_MAX 8
static void
sidecar_env (char **envp, char (*buf)[1024])
{
  static const struct
  {
    const char *name, *suffix;
  } pass[] = {
#ifdef MONITOR_ASAN
    { "ASAN_OPTIONS", ":symbolize=0" },
    { "UBSAN_OPTIONS", ":symbolize=0" },
#endif
#ifdef AGENTRT_FAULT_INJECTION
    { "AGENTRT_FAULT_STAGE", "" },
    { "AGENTRT_FAULT_SIGNAL", "" },
    { "AGENTRT_FAULT_FAIL", "" },
    { "AGENTRT_FAULT_ERRNO", "" },
    { "AGENTRT_FAULT_COUNT", "" },
#endif
    { NULL, NULL },
  };
  int i, n = 0;

  for (i = 0; pass[i].name && n < SIDECAR_ENV_MAX - 1; i++)
    {
      const char *v = getenv (pass[i].name);
      if (v && snprintf (buf[n], sizeof buf[n], "%s=%s%s", pass[i].name, v,
                         pass[i].suffix) < (int) sizeof buf[n])
        envp[n] = buf[n], n++;
    }
  envp[n] = NULL;
}

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

/* Why the sidecar's child could not exec it, left in the start report
 * pipe (which exec closes) for the record of its death. */
struct sidecar_failure
{
  int error;
  char step[64];
};

static void __attribute__ ((noreturn))
sidecar_fail (int report, const char *step)
{
  struct sidecar_failure f = { .error = errno };
  snprintf (f.step, sizeof f.step, "%s", step);
  if (write (report, &f, sizeof f) != (ssize_t) sizeof f)
    { /* the monitor reads a short report as a failure too */ }
  _exit (127);
}

/* The sidecar's fds, from 3 on in this order: the pidfd, the audit fd,
 * the name files, the approver's socket (7), the credentials' pipe (8),
 * then its sockets in the agent's namespace. */
#define SIDECAR_SOCK0 6
#define SIDECAR_FDS (SIDECAR_SOCK0 + EGRESS_SOCKETS)

/* Exec of the sidecar in the outside namespace, with its fds at 3..;
 * report is above them (the caller made sure).  Every other fd is
 * close-on-exec (the caller made sure of that too). */
static void __attribute__ ((noreturn))
sidecar_exec (const char *binary, const struct monitor_request *req,
              const struct egress_fds *f, int pidfd, int approver, int creds,
              int report, pid_t monitor)
{
  const struct monitor_egress *e = req->egress;
  int src[SIDECAR_FDS] = { pidfd, req->audit_fd, f->resolv, f->hosts, approver, creds };
  char num[SIDECAR_FDS][16], uid[16], gid[16], poll[16], ask_timeout[24], ask_max[16];
  char *argv[56];
  char *envp[SIDECAR_ENV_MAX];
  char env_buf[SIDECAR_ENV_MAX][1024];
  int hi[SIDECAR_FDS], i, n = 0;
  sigset_t none;

  for (i = 0; i < EGRESS_SOCKETS; i++)
    src[SIDECAR_SOCK0 + i] = f->sock[i];
  /* it goes with the monitor (which `delete` may have to kill): until
   * its privileges change, when the sidecar sets this again itself */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid () != monitor)
    sidecar_fail (report, "follow the monitor (PR_SET_PDEATHSIG)");
  if (f->netns >= 0 && setns (f->netns, CLONE_NEWNET) < 0)
    sidecar_fail (report, "enter the outside network namespace");
  /* Park every fd high, then bring them down to 3.. in order (dup2
   * clears close-on-exec there, and only there). */
  for (i = 0; i < SIDECAR_FDS; i++)
    if ((hi[i] = src[i] < 0 ? -1 : fcntl (src[i], F_DUPFD_CLOEXEC, 100)) < 0
        && src[i] >= 0)
      sidecar_fail (report, "duplicate its fds");
  for (i = 0; i < SIDECAR_FDS; i++)
    if (hi[i] >= 0 && dup2 (hi[i], 3 + i) < 0)
      sidecar_fail (report, "duplicate its fds");
  for (i = 0; i < SIDECAR_FDS; i++)
    snprintf (num[i], sizeof num[i], "%d", 3 + i);
  snprintf (uid, sizeof uid, "%u", (unsigned) e->uid);
  snprintf (gid, sizeof gid, "%u", (unsigned) e->gid);
  snprintf (poll, sizeof poll, "%u", e->busy_poll_us);
  argv[n++] = (char *) "agentrt-egress";
  argv[n++] = (char *) "--id";
  argv[n++] = (char *) req->id;
  for (i = 0; i < EGRESS_SOCKETS; i++)
    if (f->sock[i] >= 0)
      {
        argv[n++] = (char *) netns_egress_option ((enum egress_socket) i);
        argv[n++] = num[SIDECAR_SOCK0 + i];
      }
  argv[n++] = (char *) "--init-pidfd";
  argv[n++] = num[0];
  argv[n++] = (char *) "--audit-fd";
  argv[n++] = num[1];
  argv[n++] = (char *) "--allow";
  argv[n++] = (char *) e->allow;
  if (f->resolv >= 0)
    {
      argv[n++] = (char *) "--resolv-conf-fd";
      argv[n++] = num[2];
    }
  if (f->hosts >= 0)
    {
      argv[n++] = (char *) "--hosts-fd";
      argv[n++] = num[3];
    }
  argv[n++] = (char *) "--uid";
  argv[n++] = uid;
  argv[n++] = (char *) "--gid";
  argv[n++] = gid;
  argv[n++] = (char *) "--busy-poll-us";
  argv[n++] = poll;
  if (e->allow_broad)
    argv[n++] = (char *) "--allow-broad";
  if (approver >= 0)
    {
      snprintf (ask_timeout, sizeof ask_timeout, "%llu", (unsigned long long) e->ask->timeout);
      snprintf (ask_max, sizeof ask_max, "%u", (unsigned) e->ask->max_pending);
      argv[n++] = (char *) "--approver-fd";
      argv[n++] = num[4];
      argv[n++] = (char *) "--ask-timeout";
      argv[n++] = ask_timeout;
      argv[n++] = (char *) "--ask-max";
      argv[n++] = ask_max;
    }
  if (creds >= 0)
    {
      argv[n++] = (char *) "--credentials-fd";
      argv[n++] = num[5];
      argv[n++] = (char *) "--trust-store";
      argv[n++] = (char *) e->trust_store; /* the policy always has one */
    }
  argv[n] = NULL;
  sigemptyset (&none);
  if (sigprocmask (SIG_SETMASK, &none, NULL) < 0)
    sidecar_fail (report, "sigprocmask");
  sidecar_env (envp, env_buf);
  FAULT_CALL ("monitor:sidecar-exec", execve (binary, argv, envp));
  sidecar_fail (report, "execve");
}

/* The credentials' message in a pipe, whole (it is at most
 * INJECT_WIRE_MAX: the pipe is made large enough or the create fails),
 * then wiped from the monitor's memory: the pipe holds it until the
 * sidecar starts and reads it, and the sidecar alone keeps it then.
 * Returns the read end, -1 without credentials, -2 on failure. */
static int
credentials_pipe (const struct monitor_egress *e, struct child_error *cerr)
{
  struct monitor_egress *own = (struct monitor_egress *) e;
  int p[2], size;
  ssize_t w;

  if (e->credentials == NULL)
    return -1;
  if (pipe2 (p, O_CLOEXEC | O_NONBLOCK) < 0)
    return child_error (cerr, errno, "start the egress sidecar: credentials: pipe"), -2;
  size = fcntl (p[1], F_GETPIPE_SZ);
  if (size >= 0 && (size_t) size < e->credentials_len)
    size = fcntl (p[1], F_SETPIPE_SZ, (int) e->credentials_len);
  w = size < 0 ? -1 : write (p[1], e->credentials, e->credentials_len);
  explicit_bzero (own->credentials, own->credentials_len);
  own->credentials = NULL;
  close (p[1]);
  if (w != (ssize_t) e->credentials_len)
    {
      int saved = w < 0 ? errno : EMSGSIZE;
      close (p[0]);
      return child_error (cerr, saved, "start the egress sidecar: credentials: a pipe "
                          "that holds %zu bytes", e->credentials_len), -2;
    }
  return p[0];
}

/* Forks the sidecar (not waiting for its exec: the agent's connection
 * waits in the listener's queue meanwhile).  What must hold before its
 * fork is checked here: only the fds meant for it may reach it, so every
 * fd of the caller's is made close-on-exec first, and a failure of that
 * is one of the start.  What fails in the child after the fork (or in
 * the sidecar's own setup) makes it exit: the monitor records its death
 * (with the step, from the start report, *report), and the agent then has
 * no egress: nothing replaces it. */
static pid_t
sidecar_start (struct monitor *m, int approver, int *report,
               struct child_error *cerr)
{
  cleanup_close int report_w = -1;
  pid_t monitor = getpid ();
  int pipefd[2];
  pid_t pid;

  if (FAULT_CALL ("monitor:sidecar-close-range",
                  syscall (SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC))
      < 0)
    return child_error (cerr, errno, "start the egress sidecar: close_range "
                        "(mark every fd close-on-exec)");
  if (pipe2 (pipefd, O_CLOEXEC | O_NONBLOCK) < 0)
    return child_error (cerr, errno, "start the egress sidecar: pipe");
  *report = pipefd[0];
  /* above the fds the child brings down to 3.. (SIDECAR_FDS) */
  report_w = fcntl (pipefd[1], F_DUPFD_CLOEXEC, 100);
  close (pipefd[1]);
  if (report_w < 0)
    return child_error (cerr, errno, "start the egress sidecar: pipe");
  pid = fork ();
  if (pid == 0)
    sidecar_exec (m->sidecar_binary, m->req, &m->egress, m->pidfd, approver,
                  m->sidecar_creds, report_w, monitor);
  if (pid < 0)
    return child_error (cerr, errno, "start the egress sidecar: fork");
  return pid;
}

int
monitor_arm_sidecar (struct monitor *m, struct child_error *cerr)
{
  char *binary = monitor_egress_binary ();
  int creds;

  if (binary == NULL)
    return child_error (cerr, ENOENT, "start the egress sidecar: "
                        "agentrt-egress not found");
  if ((creds = credentials_pipe (m->req->egress, cerr)) == -2)
    {
      free (binary);
      return -1;
    }
  m->sidecar_binary = binary;
  m->sidecar_creds = creds;
  return 0;
}

int
monitor_sidecar_failure (struct monitor *m, char *why, size_t size)
{
  struct sidecar_failure f;
  ssize_t n;

  if (m->sidecar_report < 0)
    return 0;
  n = read (m->sidecar_report, &f, sizeof f);
  close (m->sidecar_report);
  m->sidecar_report = -1;
  if (n != (ssize_t) sizeof f)
    return 0;
  f.step[sizeof f.step - 1] = '\0';
  snprintf (why, size, "it could not start: %s: %s", f.step,
            strerror (f.error));
  return 1;
}

/* A signal to the sidecar, through its pidfd (an unreaped child of ours:
 * its pid is its own until reaped either way).  ESRCH: gone already. */
static int
signal_sidecar (struct monitor *m, int sig)
{
  int r = FAULT_CALL ("monitor:sidecar-kill",
                      m->sidecar_pidfd >= 0
                          ? (int) syscall (SYS_pidfd_send_signal,
                                           m->sidecar_pidfd, sig, NULL, 0)
                          : kill (m->sidecar, sig));
  return r < 0 && errno != ESRCH ? -1 : 0;
}

int
monitor_reap_sidecar (struct monitor *m)
{
  int status = 0;
  pid_t r;

  do
    r = FAULT_CALL ("monitor:sidecar-waitpid", waitpid (m->sidecar, &status, 0));
  while (r < 0 && errno == EINTR);
  return r == m->sidecar ? status : -1;
}

void
monitor_stop_sidecar (struct monitor *m)
{
  char detail[160];

  if (m->sidecar <= 0)
    return;
  if ((signal_sidecar (m, SIGTERM) < 0
       || !proc_pidfd_wait (m->sidecar_pidfd, 2000))
      && signal_sidecar (m, SIGKILL) < 0)
    {
      /* it exits by itself with the init it watches: not waited for */
      snprintf (detail, sizeof detail, "the egress proxy (pid %d) cannot "
                "be stopped: %s", (int) m->sidecar, strerror (errno));
      audit_incident (&m->trail, "sidecar-stop", detail);
      waitpid (m->sidecar, NULL, WNOHANG);
    }
  else
    monitor_reap_sidecar (m);
  m->sidecar = 0;
  if (m->sidecar_pidfd >= 0)
    close (m->sidecar_pidfd);
  m->sidecar_pidfd = -1;
  if (m->sidecar_report >= 0)
    close (m->sidecar_report);
  m->sidecar_report = -1;
}

/* The approver's connection for the sidecar, -1 without one (the reason
 * recorded when the policy asks for one). */
static int
connect_approver (struct monitor *m)
{
  const struct egress_ask_policy *ask = m->req->egress->ask;
  char why[256];
  int fd;

  if (ask == NULL || ask->socket == NULL)
    return -1;
  fd = approver_connect (ask->socket, why, sizeof why);
  if (fd < 0)
    audit_incident (&m->trail, "ask", why);
  return fd;
}

int
monitor_start_sidecar (struct monitor *m, struct child_error *cerr)
{
  int approver = connect_approver (m);
  pid_t pid = sidecar_start (m, approver, &m->sidecar_report, cerr);
  int e;

  if (approver >= 0)
    close (approver); /* the sidecar has its copy */

  monitor_close_egress (m);
  if (pid >= 0 && (m->sidecar_pidfd = proc_pidfd_open (pid)) >= 0)
    {
      m->sidecar = pid;
      return 0;
    }
  if (pid >= 0)
    {
      /* without it the monitor would never see the sidecar die */
      e = -m->sidecar_pidfd;
      m->sidecar_pidfd = -1;
      kill (pid, SIGKILL); /* our unreaped child: the pid is its own */
      while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
        ;
      child_error (cerr, e, "start the egress sidecar: pidfd_open");
    }
  if (m->sidecar_report >= 0)
    close (m->sidecar_report);
  m->sidecar_report = -1;
  return -1;
}

/* The sidecar has its own copies: the monitor keeps none, so that once
 * the sidecar is gone (or could not start) the agent's connects are
 * refused instead of waiting in a listen queue nobody serves. */
void
monitor_close_egress (struct monitor *m)
{
  struct egress_fds *e = &m->egress;
  int *fds[] = { &e->netns, &e->resolv, &e->hosts, &m->sidecar_creds };
  size_t i;
  netns_egress_close (e->sock);
  for (i = 0; i < sizeof fds / sizeof fds[0]; i++)
    if (*fds[i] >= 0)
      {
        close (*fds[i]);
        *fds[i] = -1;
      }
  free (m->sidecar_binary);
  m->sidecar_binary = NULL;
}
