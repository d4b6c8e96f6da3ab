/* Host process helpers (see proc_util.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/proc_util.h"

int
proc_stat_read (pid_t pid, uint64_t *start_time, char *state)
{
  char path[64], buf[1024];
  cleanup_close int fd = -1;
  ssize_t n;
  char *p;
  int field;

  snprintf (path, sizeof path, "/proc/%d/stat", pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  n = read (fd, buf, sizeof buf - 1);
  if (n <= 0)
    return n < 0 ? -errno : -ENOENT;
  buf[n] = '\0';
  /* comm may contain spaces and parentheses: fields start after the last ')' */
  p = strrchr (buf, ')');
  if (p == NULL || p[1] != ' ')
    return -EINVAL;
  p += 2;
  if (state)
    *state = *p;
  /* p points at field 3 (state); starttime is field 22 */
  for (field = 3; field < 22 && p; field++)
    {
      p = strchr (p, ' ');
      if (p)
        p++;
    }
  if (p == NULL)
    return -EINVAL;
  if (start_time)
    *start_time = strtoull (p, NULL, 10);
  return 0;
}

int
proc_exit_status (pid_t pid)
{
  char path[64], buf[1024];
  cleanup_close int fd = -1;
  char *p, state;
  ssize_t n;
  int field;

  snprintf (path, sizeof path, "/proc/%d/stat", pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || (n = read (fd, buf, sizeof buf - 1)) <= 0)
    return -1;
  buf[n] = '\0';
  p = strrchr (buf, ')');
  if (p == NULL || p[1] != ' ')
    return -1;
  p += 2;
  state = *p;
  if (state != 'Z' && state != 'X')
    return -1;
  for (field = 3; field < 52 && p; field++)
    {
      p = strchr (p, ' ');
      if (p)
        p++;
    }
  return p ? atoi (p) : -1;
}

/* PIDFD_GET_INFO's first version (64 bytes), for headers older than
 * Linux 6.15. */
struct proc_pidfd_info
{
  uint64_t mask;
  uint64_t cgroupid;
  uint32_t ids[11]; /* pid, tgid, ppid, uids and gids */
  int32_t exit_code;
};
#define PROC_PIDFD_GET_INFO _IOWR (0xFF, 11, struct proc_pidfd_info)
#define PROC_PIDFD_INFO_EXIT (1ULL << 3)

static int
pidfd_exit_info (int pidfd)
{
  struct proc_pidfd_info info = { .mask = PROC_PIDFD_INFO_EXIT };

  if (ioctl (pidfd, PROC_PIDFD_GET_INFO, &info) == 0
      && (info.mask & PROC_PIDFD_INFO_EXIT))
    return info.exit_code;
  return -1;
}

/* The kernel keeps the exit information for the pidfd once the process is
 * reaped; before that it is in /proc (a zombie).  A reap between the two
 * reads is caught by the second ioctl. */
int
proc_pidfd_exit_status (int pidfd, pid_t pid)
{
  int status = pidfd_exit_info (pidfd);

  if (status < 0)
    status = proc_exit_status (pid);
  if (status < 0)
    status = pidfd_exit_info (pidfd);
  return status;
}

bool
proc_is_alive (pid_t pid, uint64_t start_time)
{
  uint64_t st;
  char state;
  if (pid <= 0)
    return false;
  if (proc_stat_read (pid, &st, &state) < 0)
    return false;
  if (state == 'Z' || state == 'X')
    return false;
  return start_time == 0 || st == start_time;
}

int
proc_pidfd_open (pid_t pid)
{
  int fd = (int) syscall (SYS_pidfd_open, pid, 0);
  return fd < 0 ? -errno : fd;
}

int
proc_pidfd_open_checked (pid_t pid, uint64_t start_time)
{
  int fd;
  if (pid <= 0)
    return -ESRCH;
  fd = proc_pidfd_open (pid);
  if (fd < 0)
    return fd;
  /* The pidfd now pins the process; if the start time still matches, it is
   * the one we recorded and not a reused pid. */
  if (!proc_is_alive (pid, start_time))
    {
      close (fd);
      return -ESRCH;
    }
  return fd;
}

int
proc_pidfd_wait (int pidfd, int timeout_ms)
{
  struct pollfd p = { .fd = pidfd, .events = POLLIN };
  int r;
  do
    r = poll (&p, 1, timeout_ms);
  while (r < 0 && errno == EINTR);
  return r > 0 ? 1 : 0;
}

static const struct
{
  const char *name;
  int sig;
} signal_names[] = {
  { "HUP", SIGHUP },     { "INT", SIGINT },       { "QUIT", SIGQUIT },
  { "ILL", SIGILL },     { "TRAP", SIGTRAP },     { "ABRT", SIGABRT },
  { "IOT", SIGIOT },     { "BUS", SIGBUS },       { "FPE", SIGFPE },
  { "KILL", SIGKILL },   { "USR1", SIGUSR1 },     { "SEGV", SIGSEGV },
  { "USR2", SIGUSR2 },   { "PIPE", SIGPIPE },     { "ALRM", SIGALRM },
  { "TERM", SIGTERM },   { "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD },
  { "CONT", SIGCONT },   { "STOP", SIGSTOP },     { "TSTP", SIGTSTP },
  { "TTIN", SIGTTIN },   { "TTOU", SIGTTOU },     { "URG", SIGURG },
  { "XCPU", SIGXCPU },   { "XFSZ", SIGXFSZ },     { "VTALRM", SIGVTALRM },
  { "PROF", SIGPROF },   { "WINCH", SIGWINCH },   { "IO", SIGIO },
  { "POLL", SIGPOLL },   { "PWR", SIGPWR },       { "SYS", SIGSYS },
};

static int
parse_small_int (const char *s, int max)
{
  char *end;
  long v;
  if (!isdigit ((unsigned char) s[0]))
    return -1;
  errno = 0;
  v = strtol (s, &end, 10);
  if (errno || *end != '\0' || v > max)
    return -1;
  return (int) v;
}

int
signal_parse (const char *name)
{
  size_t i;
  int v;

  if (name == NULL || name[0] == '\0')
    return -1;
  v = parse_small_int (name, SIGRTMAX);
  if (v >= 0)
    return v > 0 ? v : -1;
  if (strncasecmp (name, "SIG", 3) == 0)
    name += 3;
  for (i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
    if (strcasecmp (name, signal_names[i].name) == 0)
      return signal_names[i].sig;
  if (strncasecmp (name, "RTMIN", 5) == 0)
    {
      if (name[5] == '\0')
        return SIGRTMIN;
      if (name[5] == '+' && (v = parse_small_int (name + 6, SIGRTMAX)) >= 0
          && SIGRTMIN + v <= SIGRTMAX)
        return SIGRTMIN + v;
      return -1;
    }
  if (strncasecmp (name, "RTMAX", 5) == 0)
    {
      if (name[5] == '\0')
        return SIGRTMAX;
      if (name[5] == '-' && (v = parse_small_int (name + 6, SIGRTMAX)) >= 0
          && SIGRTMAX - v >= SIGRTMIN)
        return SIGRTMAX - v;
      return -1;
    }
  return -1;
}
