/* `agentrt run [create options] [--detach] [--keep] ID`: create, start and,
 * unless detached, wait for the container's init, forwarding signals (and
 * the terminal when the bundle asks for one); exit with the init's status,
 * 128+N when it was killed by signal N, then delete the container. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "runtime/cmd_create_options.h"
#include "runtime/commands.h"
#include "runtime/container.h"
#include "runtime/log.h"

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

/* Forwards signals and terminal data until the init exits. */
static int
supervise (pid_t pid, int sigfd, struct terminal *t)
{
  bool stdin_open = t->master >= 0;
  int status = 0;

  for (;;)
    {
      struct pollfd p[3] = { { .fd = sigfd, .events = POLLIN },
                             { .fd = t->master, .events = POLLIN },
                             { .fd = stdin_open ? STDIN_FILENO : -1,
                               .events = POLLIN } };
      struct signalfd_siginfo si;

      if (poll (p, 3, -1) < 0 && errno != EINTR)
        return -1;
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
          int st;
          pid_t w = waitpid (-1, &st, WNOHANG);
          if (w <= 0)
            break;
          if (w == pid)
            {
              status = st;
              if (t->master >= 0)
                while (pump (t->master, STDOUT_FILENO))
                  ;
              return WIFSIGNALED (status) ? 128 + WTERMSIG (status)
                                          : WEXITSTATUS (status);
            }
        }
    }
}

static int
delete_container (struct global_options *g, const char *id)
{
  agentrt_error_t err = NULL;
  struct container c;
  int r = container_load (g, id, &c, &err);
  if (r == 0)
    {
      r = container_delete (&c, true, &err);
      container_release (&c);
    }
  if (r < 0)
    {
      log_warning ("delete `%s`: %s", id, err->msg);
      agentrt_error_release (&err);
    }
  return r;
}

static int
start_it (struct global_options *g, const char *id, agentrt_error_t *err)
{
  struct container c;
  int r;
  if (container_load (g, id, &c, err) < 0)
    return -1;
  r = container_start (&c, err);
  container_release (&c);
  return r;
}

int
cmd_run (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  struct create_request req = { 0 };
  struct create_outcome out = { .pid = 0, .pty_master = -1 };
  struct run_only_options ro = { 0 };
  struct terminal t = { .master = -1 };
  sigset_t all, old;
  int first, sigfd, code;

  first = create_options_parse (argc, argv, &req, &ro, err);
  if (first < 0 || cmd_check_args (argc, first, 1, 1, "run [options] ID", err) < 0)
    return -1;
  req.id = argv[first];
  req.keep_pty_master = !ro.detach && req.console_socket == NULL;

  /* Signals are read from a signalfd once the init exists. */
  sigfillset (&all);
  sigprocmask (SIG_BLOCK, &all, &old);
  if (!ro.detach)
    prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  if (container_create (g, &req, &out, err) < 0)
    return -1;
  t.master = out.pty_master;
  if (start_it (g, req.id, err) < 0)
    {
      delete_container (g, req.id);
      return -1;
    }
  if (ro.detach)
    return 0;

  sigfd = signalfd (-1, &all, SFD_CLOEXEC);
  if (sigfd < 0)
    return agentrt_error (err, errno, "signalfd");
  if (t.master >= 0)
    {
      terminal_raw (&t);
      resize (t.master);
    }
  code = supervise (out.pid, sigfd, &t);
  terminal_restore (&t);
  close (sigfd);
  if (!ro.keep)
    delete_container (g, req.id);
  if (code < 0)
    return agentrt_error (err, errno, "wait for the container");
  return code;
}
