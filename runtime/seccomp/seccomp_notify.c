/* Handing the seccomp notify listener to the agent at listenerPath (see
 * seccomp_notify.h). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "oci/json_writer.h"
#include "runtime/seccomp/seccomp_notify.h"

int
seccomp_listener_fetch (int child_pidfd, int child_fd, agentrt_error_t *err)
{
  long fd = syscall (SYS_pidfd_getfd, child_pidfd, child_fd, 0);

  if (fd < 0)
    return agentrt_error (err, errno,
                          "seccomp: fetch the notify listener (fd %d) from the "
                          "container process",
                          child_fd);
  return (int) fd;
}

static void
write_state (struct json_writer *w, const struct seccomp_listener_state *state)
{
  size_t i;

  json_key (w, "state");
  json_begin_object (w);
  json_kv_string (w, "ociVersion", state->oci_version);
  json_kv_string (w, "id", state->id);
  json_kv_string (w, "status", state->status);
  json_kv_int (w, "pid", state->pid);
  json_kv_string (w, "bundle", state->bundle);
  if (state->annotations && state->annotations->len > 0)
    {
      json_key (w, "annotations");
      json_begin_object (w);
      for (i = 0; i < state->annotations->len; i++)
        json_kv_string (w, state->annotations->items[i].key,
                        state->annotations->items[i].value);
      json_end_object (w);
    }
  json_end_object (w);
}

char *
seccomp_listener_state_json (const struct oci_seccomp *seccomp,
                             const struct seccomp_listener_state *state,
                             size_t *len)
{
  struct json_writer *w = json_writer_new (false);

  json_begin_object (w);
  json_kv_string (w, "ociVersion", state->oci_version);
  json_key (w, "fds");
  json_begin_array (w);
  json_string (w, "seccompFd");
  json_end_array (w);
  json_kv_int (w, "pid", state->pid);
  if (seccomp->listener_metadata)
    json_kv_string (w, "metadata", seccomp->listener_metadata);
  write_state (w, state);
  json_end_object (w);
  return json_writer_finish (w, len);
}

static int
connect_listener (const char *path, agentrt_error_t *err)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  cleanup_close int fd = -1;
  int ret;

  if (strlen (path) >= sizeof (addr.sun_path))
    return agentrt_error (err, ENAMETOOLONG,
                          "linux.seccomp.listenerPath `%s`", path);
  strcpy (addr.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return agentrt_error (err, errno, "seccomp: socket");
  do
    ret = connect (fd, (struct sockaddr *) &addr, sizeof (addr));
  while (ret < 0 && errno == EINTR);
  if (ret < 0)
    return agentrt_error (err, errno,
                          "seccomp: connect to linux.seccomp.listenerPath `%s`",
                          path);
  return steal_fd (&fd);
}

/* The first chunk carries the fd; a stream socket may take the rest in
 * further writes. */
static int
send_with_fd (int sock, const char *buf, size_t len, int fd)
{
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } control;
  struct iovec iov = { .iov_base = (void *) buf, .iov_len = len };
  struct msghdr msg = {
    .msg_iov = &iov,
    .msg_iovlen = 1,
    .msg_control = control.buf,
    .msg_controllen = sizeof (control.buf),
  };
  struct cmsghdr *cmsg;
  ssize_t n;
  size_t off;

  memset (&control, 0, sizeof (control));
  cmsg = CMSG_FIRSTHDR (&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (cmsg), &fd, sizeof (int));

  do
    n = sendmsg (sock, &msg, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -1;
  for (off = (size_t) n; off < len; off += (size_t) n)
    {
      n = send (sock, buf + off, len - off, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        n = 0;
      else if (n < 0)
        return -1;
    }
  return 0;
}

int
seccomp_listener_send (const struct oci_seccomp *seccomp, int listener_fd,
                       const struct seccomp_listener_state *state,
                       agentrt_error_t *err)
{
  cleanup_free char *json = NULL;
  cleanup_close int sock = -1;
  size_t len;

  if (seccomp->listener_path == NULL)
    return agentrt_error (err, 0, "linux.seccomp.listenerPath: not set");
  sock = connect_listener (seccomp->listener_path, err);
  if (sock < 0)
    return -1;
  json = seccomp_listener_state_json (seccomp, state, &len);
  if (send_with_fd (sock, json, len, listener_fd) < 0)
    return agentrt_error (err, errno,
                          "seccomp: send the listener to `%s`",
                          seccomp->listener_path);
  return 0;
}
