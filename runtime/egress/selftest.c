/* Lockdown self-test (see selftest.h).  Landlock is checked before the
 * seccomp filter is loaded, because the filter would kill the process at
 * the first forbidden call and hide what Landlock alone does. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <signal.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "lockdown.h"
#include "selftest.h"

static int failures;

/* stdio is off limits under the filter: format and write(2). */
static void __attribute__ ((format (printf, 2, 3)))
check (bool ok, const char *fmt, ...)
{
  char line[256];
  va_list ap;
  int n = snprintf (line, sizeof (line), "%s ", ok ? "ok" : "FAIL");

  va_start (ap, fmt);
  n += vsnprintf (line + n, sizeof (line) - (size_t) n - 1, fmt, ap);
  va_end (ap);
  if (n > (int) sizeof (line) - 2)
    n = (int) sizeof (line) - 2;
  line[n++] = '\n';
  (void) !write (STDOUT_FILENO, line, (size_t) n);
  failures += !ok;
}

static int
abstract_listener (struct sockaddr_un *sun, socklen_t *len)
{
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  memset (sun, 0, sizeof (*sun));
  sun->sun_family = AF_UNIX;
  *len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1
                      + (size_t) snprintf (sun->sun_path + 1, sizeof (sun->sun_path) - 1,
                                           "agentrt-egress-selftest-%d", (int) getpid ()));
  if (fd < 0 || bind (fd, (struct sockaddr *) sun, *len) < 0 || listen (fd, 1) < 0)
    return -1;
  return fd;
}

/* Each check needs the ABI that brought the right (TCP bind: 4, scopes: 6). */
static void
check_landlock (int abi, pid_t sibling, const struct sockaddr_un *sun, socklen_t sunlen)
{
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int fd = open ("/etc/passwd", O_RDONLY | O_CLOEXEC);
  int e = errno;

  check (fd < 0 && e == EACCES, "landlock-fs-read: open /etc/passwd (%s)", strerror (e));
  fd = open ("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  e = errno;
  check (fd < 0 && e == EACCES, "landlock-fs-dir: open / (%s)", strerror (e));
  fd = open ("/tmp/agentrt-egress-selftest", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  e = errno;
  check (fd < 0 && e == EACCES, "landlock-fs-create: create in /tmp (%s)", strerror (e));
  if (abi < 4)
    return;
  fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  e = bind (fd, (struct sockaddr *) &sin, sizeof (sin)) < 0 ? errno : 0;
  check (e == EACCES, "landlock-tcp-bind: bind 127.0.0.1:0 (%s)", strerror (e));
  close (fd);
  if (abi < 6)
    return;
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  e = connect (fd, (const struct sockaddr *) sun, sunlen) < 0 ? errno : 0;
  check (e == EPERM, "landlock-scope-abstract-unix: connect to an outside listener (%s)",
         strerror (e));
  close (fd);
  e = kill (sibling, 0) < 0 ? errno : 0;
  check (e == EPERM, "landlock-scope-signal: signal a same-uid process outside (%s)",
         strerror (e));
}

static void
check_identity (const struct egress_options *opt)
{
  struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2];
  gid_t groups[4];
  bool nocaps = syscall (SYS_capget, &hdr, data) == 0;

  for (int i = 0; i < 2; i++)
    nocaps = nocaps && !data[i].effective && !data[i].permitted && !data[i].inheritable;
  check (getuid () == opt->uid && geteuid () == opt->uid, "uid %u", (unsigned) getuid ());
  check (getgid () == opt->gid && getegid () == opt->gid, "gid %u", (unsigned) getgid ());
  check (getgroups (4, groups) == 0, "no supplementary groups");
  check (nocaps, "no capabilities");
  check (prctl (PR_CAPBSET_READ, 0, 0, 0, 0) == 0, "empty bounding set (CAP_CHOWN gone)");
  check (prctl (PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1, "no_new_privs");
}

static void
check_allowed (void)
{
  int tcp = socket (AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int udp = socket (AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int p[2];

  check (tcp >= 0 && udp >= 0, "seccomp allows TCP and UDP sockets");
  check (pipe2 (p, O_CLOEXEC | O_NONBLOCK) == 0, "seccomp allows pipe2");
}

static void
forbidden (const char *op)
{
  static char *const argv[] = { (char *) "true", NULL };

  if (strcmp (op, "open") == 0)
    (void) !open ("/dev/null", O_RDONLY);
  else if (strcmp (op, "unix") == 0)
    (void) !socket (AF_UNIX, SOCK_STREAM, 0);
  else if (strcmp (op, "netlink") == 0)
    (void) !socket (AF_NETLINK, SOCK_RAW, 0);
  else if (strcmp (op, "execve") == 0)
    execve ("/bin/true", argv, argv + 1);
  else if (strcmp (op, "io_uring") == 0)
    (void) !syscall (SYS_io_uring_setup, 1, NULL);
  else if (strcmp (op, "ptrace") == 0)
    (void) !syscall (SYS_ptrace, 0, 0, 0, 0);
  else if (strcmp (op, "mmap-exec") == 0)
    (void) !mmap (NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  else
    {
      check (false, "unknown self-test `%s`", op);
      return;
    }
  check (false, "survived forbidden operation `%s`", op);
}

int
selftest_run (const struct egress_options *opt)
{
  cleanup_error agentrt_error_t err = NULL;
  struct sockaddr_un sun;
  socklen_t sunlen;
  int lfd = abstract_listener (&sun, &sunlen), p[2];
  pid_t sibling;

  if (lfd < 0 || pipe2 (p, O_CLOEXEC) < 0 || lockdown_privileges (opt->uid, opt->gid, &err) < 0)
    {
      check (false, "setup: %s", err ? err->msg : strerror (errno));
      return 1;
    }
  sibling = fork ();
  if (sibling == 0)
    {
      char c;
      close (p[1]);
      (void) !read (p[0], &c, 1); /* until the parent closes its end */
      _exit (0);
    }
  close (p[0]);
  if (!opt->no_landlock)
    {
      int abi = lockdown_landlock (&err);
      check (abi >= 1, "landlock ABI %d applied%s", abi, abi < 0 ? err->msg : "");
      check_landlock (abi, sibling, &sun, sunlen);
    }
  close (p[1]);
  waitpid (sibling, NULL, 0);
  check_identity (opt);
  if (lockdown_seccomp (&err) < 0)
    {
      check (false, "seccomp: %s", err->msg);
      return 1;
    }
  check_allowed ();
  if (strncmp (opt->self_test, "seccomp-", 8) == 0)
    forbidden (opt->self_test + 8);
  else if (strcmp (opt->self_test, "layers") != 0)
    check (false, "unknown self-test `%s`", opt->self_test);
  return failures ? 1 : 0;
}
