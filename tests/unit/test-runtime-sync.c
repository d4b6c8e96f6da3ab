/* The create-time sync messages (runtime/sync.c): what crosses the socket,
 * and a peer that died mid-create (the init, the monitor) is an error for
 * the runtime, never a SIGPIPE that would kill it before its rollback
 * (seqpacket sockets raise none; a stream socket would). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/sync.h"
#include "tests/unit/unit.h"

static void
test_round_trip (void)
{
  struct sync_msg in = { .type = SYNC_MONITOR_GO, .value = 42, .flags = 3 };
  struct sync_msg out;
  int sv[2], fds[SYNC_MAX_FDS], nfds = 0, devnull = open ("/dev/null", O_RDONLY);

  CHECK (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
  CHECK (sync_send (sv[0], &in, &devnull, 1) == 0);
  CHECK (sync_recv (sv[1], &out, fds, &nfds) == 0);
  CHECK (out.type == SYNC_MONITOR_GO && out.value == 42 && out.flags == 3);
  CHECK (nfds == 1 && fds[0] >= 0 && fcntl (fds[0], F_GETFD) == FD_CLOEXEC);
  close (fds[0]);
  CHECK (sync_send (sv[0], &in, NULL, 0) == 0);
  CHECK (sync_recv (sv[1], &out, fds, &nfds) == 0 && nfds == 0);
  close (sv[0]);
  CHECK (sync_recv (sv[1], &out, fds, &nfds) == -EPIPE);
  close (sv[1]);
  close (devnull);
}

/* SIGPIPE keeps its default action (death) here: if a send raised it, the
 * test program would die instead of failing a check. */
static void
test_peer_gone (void)
{
  struct sync_msg msg = { .type = SYNC_HOOKS_DONE };
  int sv[2];

  signal (SIGPIPE, SIG_DFL);
  CHECK (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
  close (sv[1]);
  CHECK (sync_send (sv[0], &msg, NULL, 0) == -EPIPE);
  CHECK (sync_send_simple (sv[0], SYNC_HOOKS_DONE, 0) == -EPIPE);
  CHECK (sync_send (sv[0], &msg, &sv[0], 1) == -EPIPE);
  close (sv[0]);
}

/* The init reports its error and exits without reading what the runtime
 * had sent it: its report is still received (the kernel's ECONNRESET
 * comes first and must not hide it), then the end. */
static void
test_report_of_a_peer_that_left_messages_unread (void)
{
  struct sync_msg msg = { .type = SYNC_HOOKS_DONE };
  struct sync_msg out;
  int sv[2];

  CHECK (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
  CHECK (sync_send (sv[0], &msg, NULL, 0) == 0);
  msg.type = SYNC_ERROR;
  msg.error.status = ENOTDIR;
  CHECK (sync_send (sv[1], &msg, NULL, 0) == 0);
  close (sv[1]);
  CHECK (sync_recv (sv[0], &out, NULL, NULL) == 0);
  CHECK (out.type == SYNC_ERROR && out.error.status == ENOTDIR);
  CHECK (sync_recv (sv[0], &out, NULL, NULL) == -EPIPE);
  close (sv[0]);
}

int
main (void)
{
  RUN_TEST (test_round_trip);
  RUN_TEST (test_peer_gone);
  RUN_TEST (test_report_of_a_peer_that_left_messages_unread);
  return UNIT_EXIT ();
}
