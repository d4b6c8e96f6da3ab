/* Fixed-size messages over the create-time sync socket (see sync.h). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/sync.h"

int
sync_send (int sock, const struct sync_msg *msg, const int *fds, int nfds)
{
  union
  {
    char buf[CMSG_SPACE (sizeof (int) * SYNC_MAX_FDS)];
    struct cmsghdr align;
  } control;
  struct iovec iov = { .iov_base = (void *) msg, .iov_len = sizeof *msg };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  ssize_t n;

  /* Plain write(2) when no fd travels: it is what a seccomp filter loaded
   * just before the last messages is most likely to allow.  (A seqpacket
   * socket whose peer is gone fails with EPIPE, without SIGPIPE.) */
  if (nfds == 0)
    {
      do
        n = write (sock, msg, sizeof *msg);
      while (n < 0 && errno == EINTR);
      if (n < 0)
        return -errno;
      return n == (ssize_t) sizeof *msg ? 0 : -EIO;
    }
  if (nfds > 0)
    {
      struct cmsghdr *c;
      memset (&control, 0, sizeof control);
      mh.msg_control = control.buf;
      mh.msg_controllen = CMSG_SPACE (sizeof (int) * (size_t) nfds);
      c = CMSG_FIRSTHDR (&mh);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN (sizeof (int) * (size_t) nfds);
      memcpy (CMSG_DATA (c), fds, sizeof (int) * (size_t) nfds);
    }
  do
    n = sendmsg (sock, &mh, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -errno;
  return n == (ssize_t) sizeof *msg ? 0 : -EIO;
}

int
sync_enable_credentials (int sock)
{
  int one = 1;
  return setsockopt (sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0
             ? -errno
             : 0;
}

int
sync_recv (int sock, struct sync_msg *msg, int *fds, int *nfds)
{
  return sync_recv_from (sock, msg, fds, nfds, NULL);
}

int
sync_recv_from (int sock, struct sync_msg *msg, int *fds, int *nfds,
                pid_t *sender)
{
  union
  {
    char buf[CMSG_SPACE (sizeof (int) * SYNC_MAX_FDS)
             + CMSG_SPACE (sizeof (struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = { .iov_base = msg, .iov_len = sizeof *msg };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
                       .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf };
  struct cmsghdr *c;
  ssize_t n;
  int i, count = 0, reset_seen = 0;

  for (i = 0; fds && i < SYNC_MAX_FDS; i++)
    fds[i] = -1;
  /* A peer that exits with one of our messages unread leaves ECONNRESET
     pending, and a seqpacket receive reports it before the messages the
     peer sent first (its error report, say); the error is consumed by
     being reported, so the next receive returns them. */
  do
    n = recvmsg (sock, &mh, MSG_CMSG_CLOEXEC);
  while (n < 0 && (errno == EINTR || (errno == ECONNRESET && !reset_seen++)));
  if (n < 0)
    return -errno;
  if (n == 0)
    return -EPIPE;
  if (sender)
    *sender = 0;
  for (c = CMSG_FIRSTHDR (&mh); c; c = CMSG_NXTHDR (&mh, c))
    {
      int k, received;
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS
          && sender)
        {
          struct ucred cred;
          memcpy (&cred, CMSG_DATA (c), sizeof cred);
          *sender = cred.pid;
          continue;
        }
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
        continue;
      received = (int) ((c->cmsg_len - CMSG_LEN (0)) / sizeof (int));
      for (k = 0; k < received; k++)
        {
          int fd;
          memcpy (&fd, CMSG_DATA (c) + sizeof (int) * (size_t) k, sizeof fd);
          if (fds && count < SYNC_MAX_FDS)
            fds[count++] = fd;
          else
            close (fd);
        }
    }
  if (nfds)
    *nfds = count;
  if (n != (ssize_t) sizeof *msg || (mh.msg_flags & MSG_TRUNC))
    return -EIO;
  return 0;
}

int
sync_send_simple (int sock, enum sync_type type, int32_t value)
{
  struct sync_msg msg;
  memset (&msg, 0, sizeof msg);
  msg.type = type;
  msg.value = value;
  return sync_send (sock, &msg, NULL, 0);
}

int
sync_expect (int sock, enum sync_type type, struct sync_msg *msg, int *fds,
             int *nfds, struct child_error *cerr)
{
  int r = sync_recv (sock, msg, fds, nfds);
  if (r < 0)
    return child_error (cerr, -r == EPIPE ? 0 : -r,
                        "sync: waiting for message %d: %s", (int) type,
                        -r == EPIPE ? "peer exited" : "receive failed");
  if (msg->type == SYNC_ERROR)
    {
      *cerr = msg->error;
      cerr->msg[sizeof cerr->msg - 1] = '\0';
      return -1;
    }
  if (msg->type != (uint32_t) type)
    return child_error (cerr, EPROTO, "sync: expected message %d, got %u",
                        (int) type, msg->type);
  return 0;
}

int
sync_recv_nowait (int sock, struct sync_msg *msg)
{
  ssize_t n = recv (sock, msg, sizeof *msg, MSG_DONTWAIT);
  if (n < 0)
    return -errno;
  return n == (ssize_t) sizeof *msg ? 0 : -EIO;
}
