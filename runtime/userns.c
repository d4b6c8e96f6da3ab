/* User namespaces for the runtime itself (see userns.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/userns.h"

int
userns_write_map (pid_t pid, const char *file, const struct oci_id_mapping *map,
                  size_t n, const char *field, agentrt_error_t *err)
{
  char path[64], buf[4096];
  size_t len = 0;
  cleanup_close int fd = -1;

  for (size_t i = 0; i < n; i++)
    {
      int w = snprintf (buf + len, sizeof buf - len, "%u %u %u\n",
                        map[i].container_id, map[i].host_id, map[i].size);
      if (w < 0 || (size_t) w >= sizeof buf - len)
        return agentrt_error (err, E2BIG, "%s: too many entries", field);
      len += (size_t) w;
    }
  snprintf (path, sizeof path, "/proc/%d/%s", pid, file);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write (fd, buf, len) != (ssize_t) len)
    return agentrt_error (err, errno, "%s: write `%s`", field, path);
  return 0;
}

int
userns_fd_with_maps (const struct oci_id_mapping *uid, size_t n_uid,
                     const struct oci_id_mapping *gid, size_t n_gid,
                     const char *field, agentrt_error_t *err)
{
  char path[64];
  int hold[2], fd = -1;
  pid_t pid;

  if (pipe2 (hold, O_CLOEXEC) < 0)
    return agentrt_error (err, errno, "%s: pipe", field);
  /* a child born in a new user namespace, waiting for the write end to
   * close: its namespace is what the fd will keep */
  pid = (pid_t) syscall (SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL,
                         NULL);
  if (pid == 0)
    {
      char c;
      close (hold[1]);
      while (read (hold[0], &c, 1) < 0 && errno == EINTR)
        ;
      _exit (0);
    }
  close (hold[0]);
  if (pid < 0)
    {
      close (hold[1]);
      return agentrt_error (err, errno, "%s: create a user namespace", field);
    }
  if (userns_write_map (pid, "uid_map", uid, n_uid, field, err) == 0
      && userns_write_map (pid, "gid_map", gid, n_gid, field, err) == 0)
    {
      snprintf (path, sizeof path, "/proc/%d/ns/user", pid);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        agentrt_error (err, errno, "%s: open `%s`", field, path);
    }
  close (hold[1]);
  while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
    ;
  return fd;
}
