/* The container's init from its namespaces to execve (see init.h).  Each
 * step reports failure through cerr; the spawn code sends it to the
 * runtime, which rolls everything back. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "runtime/init.h"
#include "runtime/path_resolve.h"
#include "runtime/seccomp_load.h"
#include "runtime/sync.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* A procfs instance of the init's own, mounted nowhere: /proc writes
 * (sysctl, LSM labels, the exec fifo) go through it, so a bundle that
 * mounts something over /proc cannot redirect them (CVE-2019-16884,
 * CVE-2025-52881). */
static int
open_private_proc (struct child_error *cerr)
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
set_names (const struct init_plan *plan, struct child_error *cerr)
{
  if (plan->hostname && sethostname (plan->hostname, strlen (plan->hostname)) < 0)
    return child_error (cerr, errno, "sethostname `%s`", plan->hostname);
  if (plan->domainname
      && setdomainname (plan->domainname, strlen (plan->domainname)) < 0)
    return child_error (cerr, errno, "setdomainname `%s`", plan->domainname);
  return 0;
}

static int
write_sysctls (const struct init_plan *plan, int procfd,
               struct child_error *cerr)
{
  char path[512];
  size_t i;
  for (i = 0; i < plan->n_sysctls; i++)
    {
      const struct sysctl_entry *s = &plan->sysctls[i];
      size_t len = strlen (s->value);
      ssize_t n;
      int fd;

      snprintf (path, sizeof path, "sys/%s", s->path);
      fd = openat (procfd, path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0)
        return child_error (cerr, errno, "linux.sysctl: `%s`", s->key);
      n = write (fd, s->value, len);
      close (fd);
      if (n != (ssize_t) len)
        return child_error (cerr, n < 0 ? errno : EIO,
                            "linux.sysctl: write `%s` = `%s`", s->key, s->value);
    }
  return 0;
}

/* The init's end of the runtime's prestart/createRuntime hooks. */
static int
await_runtime_hooks (const struct init_plan *plan, struct child_error *cerr)
{
  struct sync_msg msg;
  if (sync_send_simple (plan->sync_sock, SYNC_RUN_HOOKS, 0) < 0)
    return child_error (cerr, errno, "sync: request hooks");
  return sync_expect (plan->sync_sock, SYNC_HOOKS_DONE, &msg, NULL, NULL, cerr);
}

/* A pty from the container's own devpts: the master goes to the runtime
 * (then to --console-socket), the slave becomes stdio and /dev/console. */
static int
setup_terminal (const struct init_plan *plan, struct child_error *cerr)
{
  struct winsize ws = { .ws_row = plan->console_rows,
                        .ws_col = plan->console_cols };
  struct sync_msg msg;
  int rootfd, master, slave, unlock = 0, r = -1;

  rootfd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    return child_error (cerr, errno, "terminal: open `/`");
  master = path_open_in_root (rootfd, "/dev/pts/ptmx", O_RDWR | O_NOCTTY);
  if (master < 0)
    {
      child_error (cerr, -master, "terminal: open `/dev/pts/ptmx`");
      goto out_root;
    }
  if (ioctl (master, TIOCSPTLCK, &unlock) < 0
      || (slave = ioctl (master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
    {
      child_error (cerr, errno, "terminal: open the pty");
      goto out_master;
    }
  if ((ws.ws_row || ws.ws_col) && ioctl (slave, TIOCSWINSZ, &ws) < 0)
    child_error (cerr, errno, "terminal: set console size");
  else if (rootfs_bind_fd (rootfd, slave, "/dev/console", cerr) < 0)
    ;
  else
    {
      memset (&msg, 0, sizeof msg);
      msg.type = SYNC_PTY_MASTER;
      if (sync_send (plan->sync_sock, &msg, &master, 1) < 0)
        child_error (cerr, errno, "terminal: send the pty master");
      else if (setsid () < 0 || ioctl (slave, TIOCSCTTY, 0) < 0)
        child_error (cerr, errno, "terminal: make it the controlling tty");
      else if (dup2 (slave, 0) < 0 || dup2 (slave, 1) < 0 || dup2 (slave, 2) < 0)
        child_error (cerr, errno, "terminal: stdio");
      else
        r = 0;
    }
  close (slave);
out_master:
  close (master);
out_root:
  close (rootfd);
  return r;
}

static int
load_seccomp (const struct init_plan *plan, struct child_error *cerr)
{
  struct sync_msg msg;
  int listener = -1, r;

  if (plan->n_seccomp == 0)
    return 0;
  r = seccomp_programs_load (plan->seccomp, plan->n_seccomp, &listener);
  if (r < 0)
    return child_error (cerr, -r, "load seccomp filter");
  if (listener < 0)
    return 0;
  memset (&msg, 0, sizeof msg);
  msg.type = SYNC_SECCOMP_FD;
  r = sync_send (plan->sync_sock, &msg, &listener, 1);
  close (listener);
  if (r < 0)
    return child_error (cerr, -r, "send the seccomp listener");
  return sync_expect (plan->sync_sock, SYNC_SECCOMP_DONE, &msg, NULL, NULL,
                      cerr);
}

static int
setup_filesystem (const struct init_plan *plan, int *procfd,
                  struct child_error *cerr)
{
  int rootfd;

  if (rootfs_prepare (&plan->rootfs, &rootfd, cerr) < 0)
    return -1;
  *procfd = open_private_proc (cerr);
  if (*procfd < 0 || rootfs_mount_all (&plan->rootfs, rootfd, cerr) < 0)
    goto fail;
  if (!plan->rootfs.mounts->dev_is_bind
      && devices_create (rootfd, &plan->devices, cerr) < 0)
    goto fail;
  if (plan->runtime_hooks && await_runtime_hooks (plan, cerr) < 0)
    goto fail;
  if (hook_set_run (&plan->create_container, plan->create_container_state,
                    cerr) < 0)
    goto fail;
  if (rootfs_pivot (&plan->rootfs, rootfd, cerr) < 0)
    goto fail;
  close (rootfd);
  if (plan->terminal && setup_terminal (plan, cerr) < 0)
    return -1;
  return rootfs_finalize (&plan->rootfs, cerr);
fail:
  close (rootfd);
  return -1;
}

static int
setup_process (const struct init_plan *plan, int procfd, char *exe,
               size_t exe_len, struct child_error *cerr)
{
  const struct process_spec *p = &plan->process;

  if (write_sysctls (plan, procfd, cerr) < 0
      || process_apply_labels (p, procfd, cerr) < 0)
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
  /* Without no_new_privs, loading a filter needs CAP_SYS_ADMIN: do it
   * before the capabilities go; with it, as late as possible. */
  if (!p->no_new_privileges && load_seccomp (plan, cerr) < 0)
    return -1;
  if (process_switch_user (p, cerr) < 0 || process_enter_cwd (p, cerr) < 0)
    return -1;
  if (process_find_executable (p, exe, exe_len, cerr) < 0)
    return -1;
  if (p->no_new_privileges && load_seccomp (plan, cerr) < 0)
    return -1;
  return 0;
}

/* Blocks until `agentrt start` opens the exec fifo for reading. */
static int
wait_for_start (const struct init_plan *plan, int procfd)
{
  char path[64];
  int fd;
  snprintf (path, sizeof path, "thread-self/fd/%d", plan->exec_fifo_fd);
  do
    fd = openat (procfd, path, O_WRONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return -1;
  if (write (fd, "0", 1) != 1)
    {
      close (fd);
      return -1;
    }
  close (fd);
  close (plan->exec_fifo_fd);
  return 0;
}

static void __attribute__ ((noreturn))
exec_failed (const char *what, int status)
{
  char msg[CHILD_ERROR_MSG_MAX + 32];
  struct child_error cerr;
  int n;
  child_error (&cerr, status, "%s", what);
  n = snprintf (msg, sizeof msg, "agentrt: %s\n", cerr.msg);
  if (n > 0 && write (STDERR_FILENO, msg, (size_t) n) < 0)
    { /* nowhere left to report */ }
  _exit (127);
}

int
init_container (void *arg, struct child_error *cerr)
{
  struct init_plan *plan = arg;
  char exe[4096];
  struct sync_msg msg;
  int procfd = -1;
  int fds[SYNC_MAX_FDS], nfds = 0;

  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    return child_error (cerr, errno, "prctl PR_SET_DUMPABLE");
  if (sync_expect (plan->sync_sock, SYNC_CGROUP_DONE, &msg, fds, &nfds, cerr) < 0)
    return -1;
  plan->create_container_state = nfds > 0 ? fds[0] : -1;
  plan->start_container_state = nfds > 1 ? fds[1] : -1;
  if (plan->cgroup_ns && unshare (CLONE_NEWCGROUP) < 0)
    return child_error (cerr, errno, "create cgroup namespace");
  if (set_names (plan, cerr) < 0)
    return -1;
  if (setup_filesystem (plan, &procfd, cerr) < 0)
    return -1;
  if (setup_process (plan, procfd, exe, sizeof exe, cerr) < 0)
    return -1;
  if (sync_send_simple (plan->sync_sock, SYNC_READY, 0) < 0)
    return child_error (cerr, errno, "sync: ready");
  close (plan->sync_sock);

  if (wait_for_start (plan, procfd) < 0)
    exec_failed ("wait for start", errno);
  if (hook_set_run (&plan->start_container, plan->start_container_state, cerr) < 0)
    exec_failed (cerr->msg, 0);
  /* `run` blocks every signal in the runtime; the program gets a clean mask */
  {
    sigset_t none;
    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
  }
  execve (exe, plan->process.argv, plan->process.envp);
  exec_failed (exe, errno);
}
