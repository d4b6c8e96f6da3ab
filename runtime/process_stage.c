/* The final steps of a container process (see process_stage.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "runtime/exec_stub.h"
#include "runtime/path_resolve.h"
#include "runtime/process_stage.h"
#include "runtime/rootfs.h"
#include "runtime/seccomp/seccomp_load.h"
#include "runtime/sync.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

int
process_stage_private_proc (struct child_error *cerr)
{
  int fsfd, mfd;
  fsfd = fsopen ("proc", FSOPEN_CLOEXEC);
  if (fsfd < 0)
    return child_error (cerr, errno, "open a private procfs");
  if (fsconfig (fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    {
      close (fsfd);
      return child_error (cerr, errno, "create a private procfs");
    }
  mfd = fsmount (fsfd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV
                                            | MOUNT_ATTR_NOEXEC);
  close (fsfd);
  if (mfd < 0)
    return child_error (cerr, errno, "mount a private procfs");
  return mfd;
}

static int
send_master (int sock, int master, struct child_error *cerr)
{
  struct sync_msg msg;
  memset (&msg, 0, sizeof msg);
  msg.type = SYNC_PTY_MASTER;
  if (sync_send (sock, &msg, &master, 1) < 0)
    return child_error (cerr, errno, "terminal: send the pty master");
  return 0;
}

static int
become_terminal (int slave, struct child_error *cerr)
{
  if (setsid () < 0 || ioctl (slave, TIOCSCTTY, 0) < 0)
    return child_error (cerr, errno, "terminal: make it the controlling tty");
  if (dup2 (slave, 0) < 0 || dup2 (slave, 1) < 0 || dup2 (slave, 2) < 0)
    return child_error (cerr, errno, "terminal: stdio");
  return 0;
}

int
process_stage_terminal (const struct process_stage *ps, bool bind_console,
                        struct child_error *cerr)
{
  struct winsize ws = { .ws_row = ps->console_rows,
                        .ws_col = ps->console_cols };
  int rootfd, master, slave = -1, unlock = 0, r = -1;

  rootfd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    return child_error (cerr, errno, "terminal: open `/`");
  master = path_open_in_root (rootfd, "/dev/pts/ptmx", O_RDWR | O_NOCTTY);
  if (master < 0)
    {
      close (rootfd);
      return child_error (cerr, -master, "terminal: open `/dev/pts/ptmx`");
    }
  if (ioctl (master, TIOCSPTLCK, &unlock) < 0
      || (slave = ioctl (master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
    child_error (cerr, errno, "terminal: open a pty through `/dev/pts/ptmx`");
  else if ((ws.ws_row || ws.ws_col) && ioctl (slave, TIOCSWINSZ, &ws) < 0)
    child_error (cerr, errno, "terminal: set console size");
  else if (bind_console && rootfs_bind_fd (rootfd, slave, "/dev/console", cerr) < 0)
    ;
  else if (send_master (ps->sync_sock, master, cerr) == 0)
    r = become_terminal (slave, cerr);
  if (slave >= 0)
    close (slave);
  close (master);
  close (rootfd);
  return r;
}

static int
load_seccomp (const struct process_stage *ps, struct child_error *cerr)
{
  struct sync_msg msg;
  int listener = -1, r;

  if (ps->n_seccomp == 0)
    return 0;
  r = seccomp_programs_load (ps->seccomp, ps->n_seccomp, &listener);
  if (r < 0)
    return child_error (cerr, -r, "load seccomp filter");
  if (listener < 0)
    return 0;
  memset (&msg, 0, sizeof msg);
  msg.type = SYNC_SECCOMP_FD;
  r = sync_send (ps->sync_sock, &msg, &listener, 1);
  close (listener);
  if (r < 0)
    return child_error (cerr, -r, "send the seccomp listener");
  return sync_expect (ps->sync_sock, SYNC_SECCOMP_DONE, &msg, NULL, NULL, cerr);
}

/* The process's stdio comes from its caller (pipes, files, sockets made
 * by the engine or the shell) and belongs to them: it is handed to the
 * process's user and group, as crun does, so that a process that is not
 * root may reopen /dev/stdout.  Terminals and other devices keep their
 * owner; an owner or id the user namespace cannot map (EINVAL, EPERM) or a
 * read-only file (EROFS) is left as it is.  Without chown_stdio_files only
 * pipes and sockets change owner: a host file redirected into a hardened
 * container stays its owner's. */
static int
chown_stdio (const struct process_stage *ps, struct child_error *cerr)
{
  const struct process_spec *p = ps->process;
  struct stat st;
  int fd;

  for (fd = 0; fd < 3; fd++)
    {
      if (fstat (fd, &st) < 0)
        continue; /* closed */
      if (!S_ISFIFO (st.st_mode) && !S_ISSOCK (st.st_mode)
          && !(S_ISREG (st.st_mode) && ps->chown_stdio_files))
        continue;
      if ((st.st_uid == p->uid && st.st_gid == p->gid)
          || fchown (fd, p->uid, p->gid) == 0 || errno == EINVAL
          || errno == EPERM || errno == EROFS)
        continue;
      return child_error (cerr, errno, "give stdio (fd %d) to %u:%u", fd,
                          (unsigned) p->uid, (unsigned) p->gid);
    }
  return 0;
}

int
process_stage_prepare (const struct process_stage *ps, int procfd, char *exe,
                       size_t exe_len, struct child_error *cerr)
{
  const struct process_spec *p = ps->process;
  bool cwd_deferred = false;

  /* A session (and process group) of its own, inside the container's pid
   * namespace, as runc and crun do: the caller's would read as 0 there
   * (getpgrp).  With a terminal, becoming its controller did that. */
  if (!ps->terminal && setsid () < 0)
    return child_error (cerr, errno, "setsid");
  if (process_apply_labels (p, procfd, cerr) < 0)
    return -1;
  if (p->new_keyring
      && syscall (SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, p->keyring_name) < 0
      && errno != ENOSYS)
    return child_error (cerr, errno, "create session keyring");
  if (process_apply_limits (p, cerr) < 0)
    return -1;
  /* Nothing but the preserved fds may reach the container's program. */
  if (syscall (SYS_close_range, 3 + p->preserve_fds, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
    return child_error (cerr, errno, "mark fds close-on-exec");
  if (chown_stdio (ps, cerr) < 0)
    return -1;
  /* Before any filter: the bundle's may not allow stat(2) or getcwd(2). */
  if (process_find_executable (p, exe, exe_len, cerr) < 0
      || process_enter_cwd (p, false, &cwd_deferred, cerr) < 0)
    return -1;
  /* Without no_new_privs, loading a filter needs CAP_SYS_ADMIN: do it
   * before the capabilities go; with it, as late as possible. */
  if (!p->no_new_privileges && load_seccomp (ps, cerr) < 0)
    return -1;
  if (process_switch_user (p, cerr) < 0
      || process_enter_cwd (p, true, &cwd_deferred, cerr) < 0)
    return -1;
  /* after the user switch, which clears it */
  if (ps->die_with_parent && prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
    return child_error (cerr, errno, "prctl PR_SET_PDEATHSIG");
  if (p->no_new_privileges && load_seccomp (ps, cerr) < 0)
    return -1;
  return 0;
}

void
process_stage_exec (const struct process_stage *ps, const char *exe)
{
  char msg[CHILD_ERROR_MSG_MAX + 32];
  struct child_error cerr;
  sigset_t none;
  int n;

  /* `run` blocks every signal in the runtime; the program gets a clean mask */
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  /* Through the sealed stub: if the program is a script whose interpreter
   * is /proc/self/exe, "self" is then the stub, not agentrt's binary. */
  ps->process->stub_argv[1] = (char *) exe;
  exec_stub_run (ps->stub_fd, ps->process->stub_argv, ps->process->envp);
  /* A bundle whose filter denies execveat (or a host that forbids
   * executing memfds) gets runc's plain execve, protected by
   * non-dumpability only; a hardened container does not. */
  if (!ps->stub_required && (errno == EPERM || errno == EACCES || errno == ENOSYS))
    execve (exe, ps->process->argv, ps->process->envp);
  child_error (&cerr, errno, "exec `%s`", exe);
  n = snprintf (msg, sizeof msg, "agentrt: %s\n", cerr.msg);
  if (n > 0 && write (STDERR_FILENO, msg, (size_t) n) < 0)
    { /* nowhere left to report */ }
  _exit (127);
}
