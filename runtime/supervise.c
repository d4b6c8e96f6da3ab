/* Foreground supervision of a container process (see supervise.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "runtime/monitor_duties.h"
#include "runtime/supervise.h"

struct terminal
{
  int master;
  bool raw;
  struct termios saved;
};

static void
terminal_raw (struct terminal *t)
{
  struct termios raw;
  if (!isatty (STDIN_FILENO) || tcgetattr (STDIN_FILENO, &t->saved) < 0)
    return;
  raw = t->saved;
  cfmakeraw (&raw);
  if (tcsetattr (STDIN_FILENO, TCSANOW, &raw) == 0)
    t->raw = true;
}

static void
terminal_restore (struct terminal *t)
{
  if (t->raw)
    tcsetattr (STDIN_FILENO, TCSANOW, &t->saved);
}

static void
resize (int master)
{
  struct winsize ws;
  if (master >= 0 && ioctl (STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
    ioctl (master, TIOCSWINSZ, &ws);
}

/* Copies what is ready from `from` to `to`; false when `from` is done. */
static bool
pump (int from, int to)
{
  char buf[8192];
  ssize_t n = read (from, buf, sizeof buf);
  ssize_t off = 0;
  if (n <= 0)
    return n < 0 && (errno == EINTR || errno == EAGAIN);
  while (off < n)
    {
      ssize_t w = write (to, buf + off, (size_t) (n - off));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return false;
      off += w;
    }
  return true;
}

/* Forwards signals and terminal data until pid exits. */
static int
forward_until_exit (pid_t pid, struct monitor *local, int sigfd,
                    struct terminal *t)
{
  bool stdin_open = t->master >= 0;
  int status = 0;

  for (;;)
    {
      struct pollfd p[3 + MONITOR_EVENT_FDS] = {
        { .fd = sigfd, .events = POLLIN },
        { .fd = t->master, .events = POLLIN },
        { .fd = stdin_open ? STDIN_FILENO : -1, .events = POLLIN },
      };
      struct signalfd_siginfo si;
      size_t i;

      for (i = 3; i < sizeof p / sizeof p[0]; i++)
        p[i].fd = -1;
      if (local)
        monitor_event_fds (local, p + 3);
      if (poll (p, 3 + MONITOR_EVENT_FDS, -1) < 0 && errno != EINTR)
        return -1;
      if (local)
        monitor_on_events (local, p + 3);
      if ((p[1].revents & (POLLIN | POLLHUP)) && !pump (t->master, STDOUT_FILENO))
        t->master = -1; /* the pty closed: keep waiting for the exit */
      if ((p[2].revents & (POLLIN | POLLHUP)) && !pump (STDIN_FILENO, t->master))
        stdin_open = false;
      if (!(p[0].revents & POLLIN) || read (sigfd, &si, sizeof si) != sizeof si)
        continue;
      if (si.ssi_signo == SIGWINCH)
        resize (t->master);
      else if (si.ssi_signo != SIGCHLD)
        kill (pid, (int) si.ssi_signo);
      /* reap everything: orphans of a container without a pid namespace
       * come to us as the subreaper */
      for (;;)
        {
          siginfo_t si;
          memset (&si, 0, sizeof si);
          if (waitid (P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0
              || si.si_pid == 0)
            break;
          if (si.si_pid == pid)
            {
              waitpid (pid, &status, 0);
              if (local)
                monitor_record_exit (local, status);
              if (t->master >= 0)
                while (pump (t->master, STDOUT_FILENO))
                  ;
              return WIFSIGNALED (status) ? 128 + WTERMSIG (status)
                                          : WEXITSTATUS (status);
            }
          if (local && si.si_pid == local->sidecar)
            {
              int st = 0;
              waitpid (si.si_pid, &st, 0);
              monitor_sidecar_exited (local, st);
              continue;
            }
          waitpid (si.si_pid, NULL, 0);
        }
    }
}

int
supervise_process (pid_t pid, struct monitor *local, int pty_master,
                   agentrt_error_t *err)
{
  struct terminal t = { .master = pty_master };
  sigset_t all;
  int sigfd, code;

  sigfillset (&all);
  sigfd = signalfd (-1, &all, SFD_CLOEXEC);
  if (sigfd < 0)
    return agentrt_error (err, errno, "signalfd");
  if (t.master >= 0)
    {
      terminal_raw (&t);
      resize (t.master);
    }
  code = forward_until_exit (pid, local, sigfd, &t);
  terminal_restore (&t);
  close (sigfd);
  if (pty_master >= 0)
    close (pty_master);
  if (code < 0)
    return agentrt_error (err, errno, "wait for the container process");
  return code;
}
