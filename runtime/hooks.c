/* Running OCI hooks (see hooks.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "runtime/exec_stub.h"
#include "runtime/hooks.h"

static char **
null_terminated (const struct str_list *list, const char *first)
{
  size_t i, n = list->len;
  char **v;

  if (n == 0 && first)
    {
      v = xzalloc (2 * sizeof *v);
      v[0] = (char *) first;
      return v;
    }
  v = xzalloc ((n + 1) * sizeof *v);
  for (i = 0; i < n; i++)
    v[i] = list->items[i];
  return v;
}

void
hook_set_build (const struct oci_hook_list *list, const char *kind,
                const char *cwd, struct hook_set *out)
{
  size_t i;
  out->kind = kind;
  out->cwd = cwd;
  out->stub_fd = -1;
  out->n = list->len;
  out->hooks = xzalloc ((list->len + 1) * sizeof *out->hooks);
  for (i = 0; i < list->len; i++)
    {
      const struct oci_hook *h = &list->items[i];
      struct hook_exec *e = &out->hooks[i];
      size_t k, n;
      e->path = h->path;
      e->argv = null_terminated (&h->args, h->path);
      e->envp = null_terminated (&h->env, NULL);
      e->timeout = h->has_timeout ? h->timeout : 0;
      for (n = 0; e->argv[n]; n++)
        ;
      e->stub_argv = xzalloc ((n + 3) * sizeof *e->stub_argv);
      e->stub_argv[0] = (char *) "agentrt-exec-stub";
      e->stub_argv[1] = (char *) h->path;
      for (k = 0; k < n; k++)
        e->stub_argv[k + 2] = e->argv[k];
    }
}

void
hook_set_free (struct hook_set *set)
{
  size_t i;
  for (i = 0; i < set->n; i++)
    {
      free (set->hooks[i].argv);
      free (set->hooks[i].stub_argv);
      free (set->hooks[i].envp);
    }
  free (set->hooks);
  set->hooks = NULL;
  set->n = 0;
}

static void __attribute__ ((noreturn))
hook_child (const struct hook_exec *h, const struct hook_set *set,
            int state_fd)
{
  const char *cwd = set->cwd;
  int stub_fd = set->stub_fd;
  sigset_t all;
  sigemptyset (&all);
  sigprocmask (SIG_SETMASK, &all, NULL);
  if (state_fd >= 0)
    {
      lseek (state_fd, 0, SEEK_SET);
      dup2 (state_fd, STDIN_FILENO);
    }
  /* a hook's output must not mix with the runtime's stdout (state JSON) */
  dup2 (STDERR_FILENO, STDOUT_FILENO);
  if (cwd == NULL || chdir (cwd) < 0)
    {
      if (chdir ("/") < 0)
        _exit (127);
    }
  if (stub_fd >= 0)
    exec_stub_run (stub_fd, h->stub_argv, h->envp);
  if (stub_fd < 0 || !set->stub_required)
    execve (h->path, h->argv, h->envp);
  _exit (127);
}

/* Waits for pid, killing it when the timeout expires. */
static int
wait_hook (pid_t pid, const struct hook_exec *h, const char *kind,
           struct child_error *cerr)
{
  int status, pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  struct pollfd p = { .fd = pidfd, .events = POLLIN };
  pid_t w;

  if (h->timeout > 0 && pidfd >= 0)
    {
      int r;
      do
        r = poll (&p, 1, h->timeout * 1000);
      while (r < 0 && errno == EINTR);
      if (r == 0)
        {
          kill (pid, SIGKILL);
          waitpid (pid, NULL, 0);
          close (pidfd);
          return child_error (cerr, ETIMEDOUT, "%s hook `%s` timed out after "
                              "%d s", kind, h->path, h->timeout);
        }
    }
  if (pidfd >= 0)
    close (pidfd);
  do
    w = waitpid (pid, &status, 0);
  while (w < 0 && errno == EINTR);
  if (w < 0)
    return child_error (cerr, errno, "%s hook `%s`: wait", kind, h->path);
  if (WIFSIGNALED (status))
    return child_error (cerr, 0, "%s hook `%s` killed by signal %d", kind,
                        h->path, WTERMSIG (status));
  if (WEXITSTATUS (status) == 127)
    return child_error (cerr, 0, "%s hook `%s` could not be executed", kind,
                        h->path);
  if (WEXITSTATUS (status) != 0)
    return child_error (cerr, 0, "%s hook `%s` exited with status %d", kind,
                        h->path, WEXITSTATUS (status));
  return 0;
}

static int
run_one (const struct hook_set *set, size_t i, int state_fd,
         struct child_error *cerr)
{
  const struct hook_exec *h = &set->hooks[i];
  pid_t pid = fork ();
  if (pid < 0)
    return child_error (cerr, errno, "%s hook `%s`: fork", set->kind, h->path);
  if (pid == 0)
    hook_child (h, set, state_fd);
  return wait_hook (pid, h, set->kind, cerr);
}

int
hook_set_run (const struct hook_set *set, int state_fd,
              struct child_error *cerr)
{
  size_t i;
  for (i = 0; i < set->n; i++)
    if (run_one (set, i, state_fd, cerr) < 0)
      return -1;
  return 0;
}

int
hook_set_run_all (const struct hook_set *set, int state_fd,
                  void (*warn) (const char *msg))
{
  struct child_error cerr;
  int failed = 0;
  size_t i;
  for (i = 0; i < set->n; i++)
    if (run_one (set, i, state_fd, &cerr) < 0)
      {
        warn (cerr.msg);
        failed++;
      }
  return failed;
}

int
hook_state_memfd (const char *json, agentrt_error_t *err)
{
  size_t len = strlen (json), off = 0;
  int fd = memfd_create ("agentrt-state", MFD_CLOEXEC);
  if (fd < 0)
    return agentrt_error (err, errno, "memfd_create");
  while (off < len)
    {
      ssize_t n = write (fd, json + off, len - off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          close (fd);
          return agentrt_error (err, errno, "write hook state");
        }
      off += (size_t) n;
    }
  return fd;
}
