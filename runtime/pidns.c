/* A container's processes by pid namespace (see pidns.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/pidns.h"
#include "runtime/proc_util.h"

static bool
same_ns (const struct stat *a, const struct stat *b)
{
  return a->st_ino == b->st_ino && a->st_dev == b->st_dev;
}

static bool
in_ns (pid_t pid, const struct stat *ns)
{
  char path[64];
  struct stat st;

  snprintf (path, sizeof path, "/proc/%d/ns/pid", (int) pid);
  return stat (path, &st) == 0 && same_ns (&st, ns);
}

static int
cmp_pid (const void *a, const void *b)
{
  pid_t x = *(const pid_t *) a, y = *(const pid_t *) b;
  return x < y ? -1 : x > y;
}

/* The init's pid namespace, refused when it is the runtime's own. */
static int
init_ns (pid_t init, struct stat *ns, agentrt_error_t *err)
{
  char path[64];
  struct stat self;

  snprintf (path, sizeof path, "/proc/%d/ns/pid", (int) init);
  if (stat (path, ns) < 0)
    return agentrt_error (err, errno, "stat `%s`", path);
  if (stat ("/proc/self/ns/pid", &self) < 0)
    return agentrt_error (err, errno, "stat `/proc/self/ns/pid`");
  if (same_ns (ns, &self))
    return agentrt_error (err, ENOTSUP, "the container has no cgroup of its "
                          "own and shares the runtime's pid namespace: its "
                          "processes cannot be told apart");
  return 0;
}

int
pidns_members (pid_t init, pid_t **pids, size_t *n, agentrt_error_t *err)
{
  cleanup_dir DIR *proc = NULL;
  struct dirent *e;
  struct stat ns;
  size_t len = 0, cap = 0;
  pid_t *out = NULL;

  *pids = NULL;
  *n = 0;
  if (init_ns (init, &ns, err) < 0)
    return -1;
  proc = opendir ("/proc");
  if (proc == NULL)
    return agentrt_error (err, errno, "open `/proc`");
  while ((e = readdir (proc)) != NULL)
    {
      char *end;
      long pid = strtol (e->d_name, &end, 10);
      if (*end != '\0' || pid <= 0 || !in_ns ((pid_t) pid, &ns))
        continue;
      if (len == cap)
        {
          cap = cap ? 2 * cap : 16;
          out = xreallocarray (out, cap, sizeof *out);
        }
      out[len++] = (pid_t) pid;
    }
  if (len > 1)
    qsort (out, len, sizeof *out, cmp_pid);
  *pids = out;
  *n = len;
  return 0;
}

int
pidns_signal_members (pid_t init, int sig, agentrt_error_t *err)
{
  cleanup_free pid_t *pids = NULL;
  struct stat ns;
  size_t n = 0;
  int sent = 0;

  if (init_ns (init, &ns, err) < 0
      || pidns_members (init, &pids, &n, err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++)
    {
      int fd = proc_pidfd_open (pids[i]);
      if (fd < 0)
        continue; /* gone meanwhile */
      /* the pidfd pins the process: still a member, it is the same one */
      if (in_ns (pids[i], &ns)
          && syscall (SYS_pidfd_send_signal, fd, sig, NULL, 0) == 0)
        sent++;
      close (fd);
    }
  return sent;
}
