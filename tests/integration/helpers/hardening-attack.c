/* hardening-attack: the attacker the hardening tests run inside a
 * container (built statically by helpers.bash's test_program).  Each
 * subcommand tries one thing an agent should not be able to do and says
 * what happened on one line:
 *   ATTACK-OK <what>           the attack worked (exit 0)
 *   ATTACK-BLOCKED <errno>     the kernel refused it (exit 1)
 * The write attacks never change an existing file: openw only opens for
 * writing (a kernel setting such as core_pattern, under the control
 * runtime, is the host's), create makes a new file, mkdir a directory. 
 * Usage errors exit 2.  The same binary runs under agentrt (where the tests
 * expect ATTACK-BLOCKED) and under runc (where they expect ATTACK-OK), so
 * every attack is shown to test something.  Built outside the project's
 * build, so it asks for the GNU extensions itself. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/netlink.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

static int
blocked (const char *what)
{
  printf ("ATTACK-BLOCKED %s: %s\n", what, strerror (errno));
  return 1;
}

static int
ok (const char *what)
{
  printf ("ATTACK-OK %s\n", what);
  return 0;
}

/* read PATH: print the file's first line. */
static int
do_read (const char *path)
{
  char buf[512];
  ssize_t n;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return blocked ("open");
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n < 0)
    return blocked ("read");
  if (n == 0)
    {
      errno = ENODATA;
      return blocked ("read (empty file)");
    }
  buf[n] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
  printf ("ATTACK-OK read: %s\n", buf);
  return 0;
}

/* openw PATH: open an existing file for writing, write nothing. */
static int
do_openw (const char *path)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return blocked ("open for writing");
  close (fd);
  return ok ("open for writing");
}

/* create PATH: make a new file (it must not exist) holding "planted". */
static int
do_create (const char *path)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
  if (fd < 0)
    return blocked ("create");
  if (write (fd, "planted\n", 8) != 8)
    {
      close (fd);
      return blocked ("write");
    }
  close (fd);
  return ok ("created");
}

/* mkdir PATH */
static int
do_mkdir (const char *path)
{
  if (mkdir (path, 0755) < 0)
    return blocked ("mkdir");
  return ok ("mkdir");
}

/* rename FROM TO (what git does with its lock files) */
static int
do_rename (const char *from, const char *to)
{
  if (rename (from, to) < 0)
    return blocked ("rename");
  return ok ("rename");
}

/* dev PATH: open a device node read-only and read from it (a record of
 * /dev/kmsg needs a buffer of its size). */
static int
do_dev (const char *path)
{
  static char buf[8192];
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return blocked ("open device");
  if (read (fd, buf, sizeof buf) < 0 && errno != EAGAIN)
    {
      close (fd);
      return blocked ("read device");
    }
  close (fd);
  return ok ("device open");
}

/* unix PATH: connect to a unix socket and print what it says first. */
static int
do_unix (const char *path)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  char buf[256];
  ssize_t n;
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return blocked ("socket");
  snprintf (sa.sun_path, sizeof sa.sun_path, "%s", path);
  if (connect (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    return blocked ("connect");
  n = read (fd, buf, sizeof buf - 1);
  if (n < 0)
    return blocked ("read");
  buf[n] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
  printf ("ATTACK-OK connected: %s\n", buf);
  return 0;
}

/* ptrace PID: attach to another process (a sibling) and detach again. */
static int
do_ptrace (const char *pid_s)
{
  pid_t pid = (pid_t) atoi (pid_s);
  if (ptrace (PTRACE_SEIZE, pid, NULL, NULL) < 0)
    return blocked ("ptrace");
  ptrace (PTRACE_DETACH, pid, NULL, NULL);
  return ok ("ptrace attached");
}

/* bpf: load the smallest socket filter (r0 = 0; exit). */
static int
do_bpf (void)
{
  struct bpf_insn prog[] = {
    { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
    { .code = BPF_JMP | BPF_EXIT },
  };
  union bpf_attr attr;
  int fd;

  memset (&attr, 0, sizeof attr);
  attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  attr.insn_cnt = 2;
  attr.insns = (unsigned long) prog;
  attr.license = (unsigned long) "GPL";
  fd = (int) syscall (SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr);
  if (fd < 0)
    return blocked ("bpf");
  return ok ("bpf program loaded");
}

static int
do_io_uring (void)
{
  struct io_uring_params p;
  int fd;
  memset (&p, 0, sizeof p);
  fd = (int) syscall (SYS_io_uring_setup, 4, &p);
  if (fd < 0)
    return blocked ("io_uring_setup");
  return ok ("io_uring ring created");
}

/* socket KIND: a socket of a family the agent has no use for. */
static int
do_socket (const char *kind)
{
  static const struct
  {
    const char *name;
    int family, type, proto;
  } kinds[] = {
    { "packet", AF_PACKET, SOCK_RAW, 0 },
    { "raw", AF_INET, SOCK_RAW, IPPROTO_ICMP },
    { "raw6", AF_INET6, SOCK_RAW, IPPROTO_ICMPV6 },
    { "netlink-audit", AF_NETLINK, SOCK_RAW, NETLINK_AUDIT },
    { "netlink-uevent", AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT },
    { "netlink-route", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
    { "vsock", AF_VSOCK, SOCK_STREAM, 0 },
  };
  size_t i;
  for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp (kind, kinds[i].name) == 0)
      {
        int fd = socket (kinds[i].family, kinds[i].type | SOCK_CLOEXEC,
                         kinds[i].proto);
        if (fd < 0)
          return blocked ("socket");
        return ok ("socket created");
      }
  fprintf (stderr, "unknown socket kind %s\n", kind);
  return 2;
}

/* userns: a new user namespace through clone(2) (busybox's unshare -U
 * covers unshare(2)). */
static int
do_userns (void)
{
  int status;
  pid_t pid = (pid_t) syscall (SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL,
                               NULL, NULL, 0);
  if (pid < 0)
    return blocked ("clone(CLONE_NEWUSER)");
  if (pid == 0)
    _exit (0);
  waitpid (pid, &status, 0);
  return ok ("user namespace created");
}

/* forks N: N children that wait; prints how many could be made. */
static int
do_forks (const char *n_s)
{
  int n = atoi (n_s), made = 0, err = 0, i;
  pid_t *kids = calloc ((size_t) n, sizeof *kids);

  if (kids == NULL)
    return 2;
  for (i = 0; i < n; i++)
    {
      pid_t pid = fork ();
      if (pid == 0)
        {
          pause ();
          _exit (0);
        }
      if (pid < 0)
        {
          err = errno;
          break;
        }
      kids[made++] = pid;
    }
  for (i = 0; i < made; i++)
    kill (kids[i], SIGKILL);
  for (i = 0; i < made; i++)
    waitpid (kids[i], NULL, 0);
  printf ("forked %d of %d\n", made, n);
  if (made == n)
    return ok ("all forks succeeded");
  errno = err;
  return blocked ("fork");
}

/* balloon MB: allocate and touch MB MiB. */
static int
do_balloon (const char *mb_s)
{
  size_t size = (size_t) atol (mb_s) << 20, off;
  char *p = mmap (NULL, size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return blocked ("mmap");
  for (off = 0; off < size; off += 4096)
    p[off] = 1;
  return ok ("memory touched");
}

/* environ NEEDLE: look for NEEDLE in every visible process's environment. */
static int
do_environ (const char *needle)
{
  DIR *d = opendir ("/proc");
  struct dirent *e;
  size_t nlen = strlen (needle);
  int seen = 0;

  if (d == NULL)
    return blocked ("opendir /proc");
  while ((e = readdir (d)) != NULL)
    {
      char path[300], buf[65536];
      ssize_t n, i;
      int fd;
      if (e->d_name[0] < '1' || e->d_name[0] > '9')
        continue;
      snprintf (path, sizeof path, "/proc/%s/environ", e->d_name);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      n = read (fd, buf, sizeof buf);
      close (fd);
      seen++;
      for (i = 0; n > 0 && i + (ssize_t) nlen <= n; i++)
        if (memcmp (buf + i, needle, nlen) == 0)
          {
            closedir (d);
            printf ("ATTACK-OK found in pid %s\n", e->d_name);
            return 0;
          }
    }
  closedir (d);
  printf ("looked at %d environments\n", seen);
  errno = ENOENT;
  return blocked ("environ");
}

/* udp ADDR PORT: send one datagram to an IPv4 or IPv6 address. */
static int
do_udp (const char *addr, const char *port)
{
  struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
  struct sockaddr_in a4 = { .sin_family = AF_INET };
  struct sockaddr *sa = (struct sockaddr *) &a4;
  socklen_t len = sizeof a4;
  int fd;

  a4.sin_port = a6.sin6_port = htons ((uint16_t) atoi (port));
  if (inet_pton (AF_INET6, addr, &a6.sin6_addr) == 1)
    {
      sa = (struct sockaddr *) &a6;
      len = sizeof a6;
    }
  else if (inet_pton (AF_INET, addr, &a4.sin_addr) != 1)
    {
      fprintf (stderr, "bad address %s\n", addr);
      return 2;
    }
  fd = socket (sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return blocked ("socket");
  if (sendto (fd, "leak", 4, 0, sa, len) < 0)
    return blocked ("sendto");
  return ok ("datagram sent");
}

/* icmp ADDR: one echo request to an IPv4 address, through an ICMP
 * datagram socket (net.ipv4.ping_group_range) or else a raw one, and its
 * reply awaited for 3 s. */
static int
do_icmp (const char *addr)
{
  struct sockaddr_in a4 = { .sin_family = AF_INET };
  unsigned char echo[8] = { 8, 0, 0xf7, 0xff, 0, 0, 0, 0 }, reply[128];
  struct timeval tv = { .tv_sec = 3 };
  int fd;

  if (inet_pton (AF_INET, addr, &a4.sin_addr) != 1)
    {
      fprintf (stderr, "bad address %s\n", addr);
      return 2;
    }
  fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_ICMP);
  if (fd < 0)
    fd = socket (AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
  if (fd < 0)
    return blocked ("socket");
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (sendto (fd, echo, sizeof echo, 0, (struct sockaddr *) &a4, sizeof a4) < 0)
    return blocked ("sendto");
  if (recv (fd, reply, sizeof reply, 0) < 0)
    return blocked ("recv");
  return ok ("echo reply");
}

/* runas UID PROG ARGS...: drop to UID (and gid UID) and exec PROG: how
 * an unprivileged process would run a planted setuid binary. */
static int
do_runas (const char *uid_s, char **argv)
{
  uid_t uid = (uid_t) atoi (uid_s);
  if (setgroups (0, NULL) < 0 || setresgid (uid, uid, uid) < 0
      || setresuid (uid, uid, uid) < 0)
    return blocked ("drop to the user");
  execv (argv[0], argv);
  return blocked ("exec");
}

int
main (int argc, char **argv)
{
  const char *cmd = argc > 1 ? argv[1] : "";
  const char *arg = argc > 2 ? argv[2] : NULL;

  setvbuf (stdout, NULL, _IOLBF, 0);
  if (strcmp (cmd, "read") == 0 && arg)
    return do_read (arg);
  if (strcmp (cmd, "unix") == 0 && arg)
    return do_unix (arg);
  if (strcmp (cmd, "ptrace") == 0 && arg)
    return do_ptrace (arg);
  if (strcmp (cmd, "bpf") == 0)
    return do_bpf ();
  if (strcmp (cmd, "io_uring") == 0)
    return do_io_uring ();
  if (strcmp (cmd, "socket") == 0 && arg)
    return do_socket (arg);
  if (strcmp (cmd, "userns") == 0)
    return do_userns ();
  if (strcmp (cmd, "forks") == 0 && arg)
    return do_forks (arg);
  if (strcmp (cmd, "balloon") == 0 && arg)
    return do_balloon (arg);
  if (strcmp (cmd, "environ") == 0 && arg)
    return do_environ (arg);
  if (strcmp (cmd, "udp") == 0 && argc > 3)
    return do_udp (arg, argv[3]);
  if (strcmp (cmd, "icmp") == 0 && arg)
    return do_icmp (arg);
  if (strcmp (cmd, "runas") == 0 && argc > 3)
    return do_runas (arg, argv + 3);
  if (strcmp (cmd, "openw") == 0 && arg)
    return do_openw (arg);
  if (strcmp (cmd, "create") == 0 && arg)
    return do_create (arg);
  if (strcmp (cmd, "mkdir") == 0 && arg)
    return do_mkdir (arg);
  if (strcmp (cmd, "rename") == 0 && argc > 3)
    return do_rename (arg, argv[3]);
  if (strcmp (cmd, "dev") == 0 && arg)
    return do_dev (arg);
  fprintf (stderr, "usage: hardening-attack read PATH | unix PATH | ptrace PID"
           " | bpf | io_uring | socket KIND | userns | forks N | balloon MB"
           " | environ NEEDLE | udp ADDR PORT | icmp ADDR | runas UID PROG ARGS..."
           " | openw PATH | create PATH | mkdir PATH | rename FROM TO"
           " | dev PATH\n");
  return 2;
}
