/* Installing compiled filters for real (runtime/seccomp/seccomp_load.c): forked
 * children set no_new_privs, install agent-default.json (and stacked or
 * notify filters) and check from the inside what is denied, what still
 * works — including ordinary tools — and that a NOTIFY filter hands its
 * listener to the parent.  No root needed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/seccomp/seccomp.h"
#include "runtime/seccomp/seccomp_cache.h"
#include "runtime/seccomp/seccomp_load.h"
#include "runtime/seccomp/seccomp_notify.h"
#include "tests/unit/unit.h"

#define PROFILE SECCOMP_PROFILE_DIR "/agent-default.json"

extern char **environ;

static struct seccomp_program *agent_default;
static char tmpdir[] = "/tmp/test-seccomp-load.XXXXXX";

/* ---- running code in a filtered child */

static void
child_fail (int line, const char *what)
{
  fprintf (stderr, "%s:%d: in child: check failed: %s (errno %d: %s)\n",
           __FILE__, line, what, errno, strerror (errno));
  _exit (1);
}

#define CHILD_CHECK(expr)                                                    \
  do                                                                         \
    {                                                                        \
      if (!(expr))                                                           \
        child_fail (__LINE__, #expr);                                        \
    }                                                                        \
  while (0)

/* The call fails with errno e. */
#define CHILD_FAILS(call, e)                                                 \
  do                                                                         \
    {                                                                        \
      errno = 0;                                                             \
      long r_ = (long) (call);                                               \
      if (r_ != -1 || errno != (e))                                          \
        child_fail (__LINE__, #call " fails with " #e);                      \
    }                                                                        \
  while (0)

typedef void (*child_body_fn) (int listener_fd, void *data);

/* Forks; the child installs `programs`, runs body and exits 0 (or 1 at the
 * first failed check).  Returns the child's pid. */
static pid_t
start_child (const struct seccomp_program *const *programs, size_t n,
             child_body_fn body, void *data)
{
  pid_t pid = fork ();
  int listener, ret;

  if (pid != 0)
    return pid;
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    child_fail (__LINE__, "PR_SET_NO_NEW_PRIVS");
  ret = seccomp_programs_load (programs, n, &listener);
  if (ret < 0)
    {
      errno = -ret;
      child_fail (__LINE__, "seccomp_programs_load");
    }
  body (listener, data);
  _exit (0);
}

static void
wait_child_ok (pid_t pid)
{
  int status = 0;

  CHECK (pid > 0);
  CHECK (waitpid (pid, &status, 0) == pid);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    fprintf (stderr, "%s: child status %#x\n", unit_current, status);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static void
run_child (const struct seccomp_program *const *programs, size_t n,
           child_body_fn body, void *data)
{
  wait_child_ok (start_child (programs, n, body, data));
}

/* posix_spawn (clone3 first, clone on ENOSYS) and wait: the exit status. */
static int
spawn_wait (char *const argv[])
{
  pid_t pid;
  int status;

  if (posix_spawnp (&pid, argv[0], NULL, NULL, argv, environ) != 0)
    return -1;
  if (waitpid (pid, &status, 0) != pid)
    return -1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

/* ---- what agent-default denies */

static void
body_denied (int listener, void *data)
{
  /* struct clone_args, version 0: flags, pidfd, child_tid, parent_tid,
   * exit_signal, stack, stack_size, tls */
  uint64_t ca[8] = { CLONE_NEWNS, 0, 0, 0, SIGCHLD, 0, 0, 0 };
  char c = 'x';
  int master;

  CHILD_CHECK (listener == -1);
  CHILD_FAILS (ptrace (PTRACE_TRACEME, 0, NULL, NULL), EPERM);
  CHILD_FAILS (syscall (SYS_process_vm_readv, getppid (), NULL, 0, NULL, 0, 0),
               EPERM);
  CHILD_FAILS (unshare (CLONE_NEWUSER), EPERM);
  CHILD_FAILS (unshare (CLONE_NEWNET), EPERM);
  CHILD_FAILS (setns (0, 0), EPERM);
  CHILD_FAILS (syscall (SYS_clone, CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL, 0),
               EPERM);
  CHILD_FAILS (syscall (SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL,
                        0),
               EPERM);
  CHILD_FAILS (syscall (SYS_clone3, ca, sizeof (ca)), ENOSYS);
  CHILD_FAILS (socket (AF_NETLINK, SOCK_RAW, NETLINK_AUDIT), EPERM);
  CHILD_FAILS (socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
                       NETLINK_KOBJECT_UEVENT),
               EPERM);
  CHILD_FAILS (socket (AF_PACKET, SOCK_RAW, 0), EPERM);
  CHILD_FAILS (socket (AF_VSOCK, SOCK_STREAM, 0), EPERM);
  CHILD_FAILS (socket (AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP), EPERM);
  CHILD_FAILS (socket (AF_INET6, SOCK_RAW | SOCK_NONBLOCK, IPPROTO_RAW),
               EPERM);
  CHILD_FAILS (socket (AF_ALG, SOCK_SEQPACKET, 0), EPERM);
  CHILD_FAILS (syscall (SYS_io_uring_setup, 8, NULL), EPERM);
  CHILD_FAILS (syscall (SYS_bpf, 0, NULL, 0), EPERM);
  CHILD_FAILS (syscall (SYS_perf_event_open, NULL, 0, -1, -1, 0), EPERM);
  CHILD_FAILS (syscall (SYS_userfaultfd, 0), EPERM);
  CHILD_FAILS (syscall (SYS_keyctl, 0, 0, 0, 0, 0), EPERM);
  CHILD_FAILS (syscall (SYS_add_key, "user", "x", "y", 1, 0), EPERM);
  CHILD_FAILS (mount ("none", tmpdir, "tmpfs", 0, NULL), EPERM);
  CHILD_FAILS (syscall (SYS_fsopen, "tmpfs", 0), EPERM);
  CHILD_FAILS (syscall (SYS_open_tree, AT_FDCWD, "/", 0), EPERM);
  CHILD_FAILS (umount2 (tmpdir, MNT_DETACH), EPERM);
  CHILD_FAILS (syscall (SYS_kexec_load, 0, 0, NULL, 0), EPERM);
  CHILD_FAILS (syscall (SYS_init_module, NULL, 0, ""), EPERM);
  CHILD_FAILS (syscall (SYS_open_by_handle_at, AT_FDCWD, NULL, 0), EPERM);
  CHILD_FAILS (syscall (SYS_iopl, 3), EPERM);
  CHILD_FAILS (syscall (SYS_vmsplice, 0, NULL, 0, 0), EPERM);
  CHILD_FAILS (personality (ADDR_NO_RANDOMIZE), EPERM);
  CHILD_CHECK (personality (0xffffffff) >= 0);
  CHILD_FAILS (syscall (462 /* mseal: newer than the profile */, 0, 0, 0),
               ENOSYS);

  /* TIOCSTI would push input into a terminal's queue (root could do it to
   * any tty); the top half of the request word must not help. */
  master = posix_openpt (O_RDWR | O_NOCTTY | O_CLOEXEC);
  CHILD_CHECK (master >= 0);
  CHILD_FAILS (ioctl (master, TIOCSTI, &c), EPERM);
  CHILD_FAILS (syscall (SYS_ioctl, master, (1ul << 32) | TIOCSTI, &c), EPERM);
  close (master);
}

static void
test_agent_default_denies (void)
{
  const struct seccomp_program *progs[] = { agent_default };
  run_child (progs, 1, body_denied, NULL);
}

/* ---- what it allows: the runtime's last steps and ordinary work */

static void *
thread_fn (void *arg)
{
  return arg;
}

static void
body_allowed (int listener, void *data)
{
  char *true_argv[] = { "true", NULL };
  struct sockaddr_in addr = { .sin_family = AF_INET };
  char path[64];
  int fd, sv[2], master, n;
  pthread_t t;
  void *ret;
  pid_t pid;

  fd = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  CHILD_CHECK (fd >= 0);
  close (fd);
  fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  CHILD_CHECK (fd >= 0);
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  CHILD_CHECK (bind (fd, (struct sockaddr *) &addr, sizeof (addr)) == 0);
  CHILD_CHECK (listen (fd, 1) == 0);
  close (fd);
  fd = socket (AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, IPPROTO_UDP);
  CHILD_CHECK (fd >= 0);
  close (fd);
  CHILD_CHECK (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
  close (sv[0]);
  close (sv[1]);

  master = posix_openpt (O_RDWR | O_NOCTTY | O_CLOEXEC);
  CHILD_CHECK (master >= 0);
  CHILD_CHECK (ioctl (master, FIONREAD, &n) == 0);
  CHILD_CHECK (grantpt (master) == 0 && unlockpt (master) == 0);
  close (master);

  /* threads and posix_spawn try clone3 first and fall back on ENOSYS */
  CHILD_CHECK (pthread_create (&t, NULL, thread_fn, tmpdir) == 0);
  CHILD_CHECK (pthread_join (t, &ret) == 0 && ret == tmpdir);
  CHILD_CHECK (spawn_wait (true_argv) == 0);
  pid = fork ();
  if (pid == 0)
    {
      execv ("/bin/true", true_argv);
      _exit (127);
    }
  CHILD_CHECK (pid > 0 && waitpid (pid, &n, 0) == pid && n == 0);

  /* The runtime's own last steps: open through /proc/self/fd, execveat. */
  fd = open ("/bin/true", O_PATH | O_CLOEXEC);
  CHILD_CHECK (fd >= 0);
  snprintf (path, sizeof (path), "/proc/self/fd/%d", fd);
  n = open (path, O_RDONLY | O_CLOEXEC);
  CHILD_CHECK (n >= 0);
  close (n);
  pid = fork ();
  if (pid == 0)
    {
      syscall (SYS_execveat, fd, "", true_argv, environ, AT_EMPTY_PATH);
      _exit (127);
    }
  CHILD_CHECK (pid > 0 && waitpid (pid, &n, 0) == pid && n == 0);
  close (fd);
}

static void
test_agent_default_allows (void)
{
  const struct seccomp_program *progs[] = { agent_default };
  run_child (progs, 1, body_allowed, NULL);
}

/* Everyday tools under the filter; a tool missing here is skipped. */
static void
body_tools (int listener, void *data)
{
  static const char *const scripts[] = {
    "cd \"$T\" && echo hello | tr a-z A-Z | grep -q HELLO && ls -la / >/dev/null"
    " && mkdir -p d/e && cp /etc/hostname d/e/ && find d -type f | wc -l"
    " | grep -q 1 && tar -cf d.tar d && rm -rf d d.tar && sort </etc/passwd"
    " >/dev/null && (sleep 0.01 & wait) && date >/dev/null",
    "! command -v busybox >/dev/null || busybox sh -c 'ls / >/dev/null && "
    "busybox ps >/dev/null && busybox wget --help >/dev/null 2>&1; true'",
    "! command -v python3 >/dev/null || python3 -c 'import threading, "
    "subprocess, socket, tempfile, asyncio, os, select, hashlib, json; "
    "t = threading.Thread(target=lambda: None); t.start(); t.join(); "
    "subprocess.run([\"true\"], check=True); "
    "socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close(); "
    "asyncio.run(asyncio.sleep(0.01)); "
    "tempfile.NamedTemporaryFile(dir=os.environ[\"T\"]).close(); "
    "r, w = os.pipe(); select.select([r], [], [], 0)'",
    "! command -v git >/dev/null || (cd \"$T\" && git init -q g && cd g && "
    "echo x > f && git add f && git -c user.name=t -c user.email=t@t "
    "commit -qm x && git log --oneline | grep -q x && cd .. && rm -rf g)",
    "! command -v gcc >/dev/null || (cd \"$T\" && printf '#include "
    "<stdio.h>\\nint main(void){puts(\"ok\");return 0;}\\n' > h.c && "
    "gcc -O1 -o h h.c && ./h | grep -q ok && rm -f h h.c)",
    "! command -v node >/dev/null || node -e \"require('child_process')"
    ".execFileSync('true'); require('fs').readdirSync('/'); "
    "require('net').createServer().listen(0, '127.0.0.1', function () "
    "{ this.close(); });\"",
    "! command -v curl >/dev/null || curl -s file:///etc/hostname >/dev/null",
  };
  size_t i;

  CHILD_CHECK (setenv ("T", tmpdir, 1) == 0);
  for (i = 0; i < sizeof (scripts) / sizeof (scripts[0]); i++)
    {
      char *argv[] = { "/bin/sh", "-c", (char *) scripts[i], NULL };
      int status = spawn_wait (argv);
      if (status != 0)
        fprintf (stderr, "script %zu exited %d: %s\n", i, status, scripts[i]);
      CHILD_CHECK (status == 0);
    }
}

static void
test_agent_default_ordinary_tools (void)
{
  const struct seccomp_program *progs[] = { agent_default };
  run_child (progs, 1, body_tools, NULL);
}

/* ---- stacking and notify */

static struct seccomp_program *
compile_one (enum oci_seccomp_action def, enum oci_seccomp_action action,
             uint32_t errno_ret, const char *name)
{
  cleanup_error agentrt_error_t err = NULL;
  char *names[] = { (char *) name, NULL };
  struct oci_seccomp_rule rule = {
    .names = { names, 1 },
    .action = action,
    .has_errno_ret = errno_ret != 0,
    .errno_ret = errno_ret,
  };
  struct oci_seccomp s = {
    .default_action = def,
    .listener_path = "/nonexistent/listener.sock",
    .syscalls = &rule,
    .n_syscalls = 1,
  };
  struct seccomp_program *p = seccomp_compile (&s, "linux.seccomp", NULL,
                                               &err);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  CHECK (p != NULL);
  return p;
}

static void
body_stacked (int listener, void *data)
{
  char buf[64];

  CHILD_FAILS (syscall (SYS_getcwd, buf, sizeof (buf)), EACCES); /* bundle's */
  CHILD_FAILS (syscall (SYS_bpf, 0, NULL, 0), EPERM); /* agent-default */
  CHILD_CHECK (getpid () > 0);
}

static void
test_stacked_programs (void)
{
  cleanup_seccomp_program struct seccomp_program *bundle
      = compile_one (OCI_SECCOMP_ACT_ALLOW, OCI_SECCOMP_ACT_ERRNO, EACCES,
                     "getcwd");
  const struct seccomp_program *progs[] = { agent_default, NULL, bundle };
  cleanup_seccomp_program struct seccomp_program *notify
      = compile_one (OCI_SECCOMP_ACT_ALLOW, OCI_SECCOMP_ACT_NOTIFY, 0,
                     "getppid");
  const struct seccomp_program *listeners[] = { notify, notify };
  int fd;

  if (bundle == NULL || notify == NULL)
    return;
  run_child (progs, 3, body_stacked, NULL);
  /* Two listeners cannot be stacked (the kernel says EBUSY too). */
  CHECK (seccomp_programs_load (listeners, 2, &fd) == -EBUSY && fd == -1);
}

/* The child installs a NOTIFY filter on getppid(), reports the listener's
 * number on a pipe, and calls getppid(); the parent fetches the listener
 * with pidfd_getfd and answers 4242. */
static void
body_notify (int listener, void *data)
{
  int *pipe_w = data;

  CHILD_CHECK (listener >= 0);
  CHILD_CHECK (fcntl (listener, F_GETFD) == FD_CLOEXEC);
  CHILD_CHECK (write (*pipe_w, &listener, sizeof (listener))
               == sizeof (listener));
  CHILD_CHECK (syscall (SYS_getppid) == 4242);
}

static void
test_notify_listener (void)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_seccomp_program struct seccomp_program *notify
      = compile_one (OCI_SECCOMP_ACT_ALLOW, OCI_SECCOMP_ACT_NOTIFY, 0,
                     "getppid");
  const struct seccomp_program *progs[] = { agent_default, notify };
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;
  int p[2], child_fd = -1, pidfd, listener;
  pid_t pid;

  if (notify == NULL)
    return;
  CHECK (notify->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER);
  CHECK (pipe2 (p, O_CLOEXEC) == 0);
  pid = start_child (progs, 2, body_notify, &p[1]);
  close (p[1]);
  CHECK (read (p[0], &child_fd, sizeof (child_fd)) == sizeof (child_fd));
  close (p[0]);
  pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  CHECK (pidfd >= 0);
  listener = seccomp_listener_fetch (pidfd, child_fd, &err);
  CHECK (listener >= 0);
  CHECK (seccomp_listener_fetch (pidfd, 999, &err) < 0);
  if (err)
    CHECK_CONTAINS (err->msg, "fetch the notify listener (fd 999)");
  if (listener >= 0)
    {
      memset (&req, 0, sizeof (req));
      CHECK (ioctl (listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0);
      CHECK (req.data.nr == SYS_getppid && (pid_t) req.pid == pid);
      resp = (struct seccomp_notif_resp){ .id = req.id, .val = 4242 };
      CHECK (ioctl (listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0);
      close (listener);
    }
  close (pidfd);
  wait_child_ok (pid);
}

/* Figures, not assertions: what installing agent-default costs the child
 * (the kernel checks the program, JIT-compiles it and precomputes which
 * syscalls it always allows). */
static void
body_time_install (int listener, void *data)
{
  const struct seccomp_program *p = agent_default;
  struct timespec t0, t1;
  int *pipe_w = data, fd;
  double us;

  clock_gettime (CLOCK_MONOTONIC, &t0);
  CHILD_CHECK (seccomp_program_load (p, &fd) == 0);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  us = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3;
  CHILD_CHECK (write (*pipe_w, &us, sizeof (us)) == sizeof (us));
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
test_install_timing (void)
{
  enum
  {
    RUNS = 21
  };
  double t[RUNS];
  int p[2];
  size_t i;

  CHECK (pipe2 (p, O_CLOEXEC) == 0);
  for (i = 0; i < RUNS; i++)
    {
      t[i] = 0;
      run_child (NULL, 0, body_time_install, &p[1]);
      CHECK (read (p[0], &t[i], sizeof (t[i])) == sizeof (t[i]));
    }
  close (p[0]);
  close (p[1]);
  qsort (t, RUNS, sizeof (t[0]), compare_double);
  printf ("agent-default.json: installing %u instructions with seccomp(2) "
          "takes %.0f us (median)\n",
          agent_default->len, t[RUNS / 2]);
}

int
main (void)
{
  cleanup_error agentrt_error_t err = NULL;
  uint32_t action = SECCOMP_RET_LOG;
  char cmd[96];

  if (syscall (SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) < 0)
    {
      printf ("SKIP: seccomp(2) unavailable (%s), e.g. under valgrind\n",
              strerror (errno));
      return 77; /* automake's "skipped" */
    }
  agent_default = seccomp_load_profile_cached (PROFILE, NULL, NULL, NULL,
                                               &err);
  if (agent_default == NULL)
    {
      fprintf (stderr, "%s\n", err ? err->msg : "?");
      return EXIT_FAILURE;
    }
  if (mkdtemp (tmpdir) == NULL)
    return EXIT_FAILURE;
  RUN_TEST (test_agent_default_denies);
  RUN_TEST (test_agent_default_allows);
  RUN_TEST (test_agent_default_ordinary_tools);
  RUN_TEST (test_stacked_programs);
  RUN_TEST (test_notify_listener);
  RUN_TEST (test_install_timing);
  snprintf (cmd, sizeof (cmd), "rm -rf '%s'", tmpdir);
  if (system (cmd) != 0)
    fprintf (stderr, "could not remove %s\n", tmpdir);
  seccomp_program_free (agent_default);
  return UNIT_EXIT ();
}
