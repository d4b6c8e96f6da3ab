/* Small outputs of the container commands: the terminal sent to
 * --console-socket, the --pid-file, the state's timestamps. */
#include "config.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

#include "runtime/create_ctx.h"

char *
container_timestamp (void)
{
  struct timespec ts;
  struct tm tm;
  clock_gettime (CLOCK_REALTIME, &ts);
  gmtime_r (&ts.tv_sec, &tm);
  return xasprintf ("%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900,
                    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                    tm.tm_sec, ts.tv_nsec);
}

int
container_send_console (const char *path, int master, agentrt_error_t *err)
{
  static const char name[] = "/dev/ptmx";
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } control;
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  struct iovec iov = { .iov_base = (void *) name, .iov_len = sizeof name - 1 };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
                       .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf };
  struct cmsghdr *c;
  cleanup_close int sock = -1;

  if (strlen (path) >= sizeof addr.sun_path)
    return agentrt_error (err, ENAMETOOLONG, "--console-socket `%s`", path);
  strcpy (addr.sun_path, path);
  sock = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0 || connect (sock, (struct sockaddr *) &addr, sizeof addr) < 0)
    return agentrt_error (err, errno, "--console-socket: connect to `%s`", path);
  memset (&control, 0, sizeof control);
  c = CMSG_FIRSTHDR (&mh);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &master, sizeof master);
  if (sendmsg (sock, &mh, MSG_NOSIGNAL) < 0)
    return agentrt_error (err, errno, "--console-socket: send the terminal "
                          "to `%s`", path);
  return 0;
}

int
container_write_pid_file (const char *path, pid_t pid, agentrt_error_t *err)
{
  cleanup_free char *tmp = xasprintf ("%s.agentrt-tmp", path);
  cleanup_free char *text = xasprintf ("%d", pid);
  cleanup_close int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                               0644);
  size_t len = strlen (text);

  if (fd < 0 || write (fd, text, len) != (ssize_t) len
      || close (steal_fd (&fd)) < 0 || rename (tmp, path) < 0)
    {
      int e = errno;
      unlink (tmp);
      return agentrt_error (err, e, "--pid-file `%s`", path);
    }
  return 0;
}
