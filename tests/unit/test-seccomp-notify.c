/* Handing the notify listener to the seccomp agent (runtime/seccomp/seccomp_notify.c):
 * the ContainerProcessState document, the fd travelling with it, hostile
 * listener paths and metadata, and a document larger than the socket
 * buffer.  A forked child plays the agent. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/seccomp/seccomp_notify.h"
#include "tests/unit/unit.h"

static char tmpdir[] = "/tmp/test-seccomp-notify.XXXXXX";

static int
listen_at (const char *path)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  strcpy (addr.sun_path, path);
  CHECK (fd >= 0);
  CHECK (bind (fd, (struct sockaddr *) &addr, sizeof (addr)) == 0);
  CHECK (listen (fd, 4) == 0);
  return fd;
}

/* The agent's side: accepts one connection, reads the whole document and
 * the fd that came with its first byte. */
static char *
agent_receive (int server, int *fd, size_t *len)
{
  char control[CMSG_SPACE (sizeof (int))];
  size_t cap = 4096;
  char *buf = xmalloc (cap);
  struct iovec iov = { buf, cap };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = control,
                        .msg_controllen = sizeof (control) };
  struct cmsghdr *cmsg;
  int conn = accept4 (server, NULL, NULL, SOCK_CLOEXEC);
  ssize_t n;

  *fd = -1;
  *len = 0;
  n = conn < 0 ? -1 : recvmsg (conn, &msg, MSG_CMSG_CLOEXEC);
  cmsg = n > 0 ? CMSG_FIRSTHDR (&msg) : NULL;
  if (cmsg && cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS)
    memcpy (fd, CMSG_DATA (cmsg), sizeof (int));
  while (n > 0)
    {
      *len += (size_t) n;
      if (*len == cap)
        buf = xrealloc (buf, cap *= 2);
      n = read (conn, buf + *len, cap - *len);
    }
  buf[*len < cap ? *len : cap - 1] = '\0';
  if (conn >= 0)
    close (conn);
  return buf;
}

static const char *
sock_path (void)
{
  static char path[64];
  snprintf (path, sizeof (path), "%s/agent.sock", tmpdir);
  return path;
}

static void
test_hostile_paths (void)
{
  cleanup_error agentrt_error_t err = NULL;
  struct seccomp_listener_state st = { "1.2.0", "c", "creating", 1, "/b",
                                       NULL };
  struct oci_seccomp s = { 0 };
  char longpath[200];

  CHECK (seccomp_listener_send (&s, 0, &st, &err) < 0);
  CHECK (err && strstr (err->msg, "listenerPath: not set"));
  agentrt_error_release (&err);

  memset (longpath, 'a', sizeof (longpath));
  longpath[0] = '/';
  longpath[sizeof (longpath) - 1] = '\0';
  s.listener_path = longpath;
  CHECK (seccomp_listener_send (&s, 0, &st, &err) < 0);
  CHECK (err && err->status == ENAMETOOLONG);
  agentrt_error_release (&err);

  s.listener_path = "/nonexistent/agent.sock";
  CHECK (seccomp_listener_send (&s, 0, &st, &err) < 0);
  if (err)
    CHECK_CONTAINS (err->msg, "connect to linux.seccomp.listenerPath "
                              "`/nonexistent/agent.sock`");
}

static void
test_document (void)
{
  struct kv ann[] = { { "io.kubernetes.pod", "p\"1\n" } };
  struct kv_list annotations = { ann, 1 };
  struct seccomp_listener_state st = { "1.2.0", "c1", "creating", 4321,
                                       "/run/b", &annotations };
  struct oci_seccomp s = { .listener_path = "/x",
                           .listener_metadata = "MKNOD=/dev/null;a\"b" };
  cleanup_free char *json = NULL;
  size_t len;

  json = seccomp_listener_state_json (&s, &st, &len);
  CHECK (len == strlen (json));
  CHECK_STR_EQ (json,
                "{\"ociVersion\":\"1.2.0\",\"fds\":[\"seccompFd\"],"
                "\"pid\":4321,\"metadata\":\"MKNOD=/dev/null;a\\\"b\","
                "\"state\":{\"ociVersion\":\"1.2.0\",\"id\":\"c1\","
                "\"status\":\"creating\",\"pid\":4321,\"bundle\":\"/run/b\","
                "\"annotations\":{\"io.kubernetes.pod\":\"p\\\"1\\n\"}}}");
  free (json);

  /* No metadata, no annotations: both left out. */
  s.listener_metadata = NULL;
  st.annotations = NULL;
  json = seccomp_listener_state_json (&s, &st, &len);
  CHECK (strstr (json, "metadata") == NULL);
  CHECK (strstr (json, "annotations") == NULL);
}

/* The fd arrives with the document, even when the document needs several
 * writes (1 MiB of annotation). */
static void
test_send_to_agent (void)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_free char *big = xmalloc (1 << 20);
  struct kv ann[] = { { "big", big } };
  struct kv_list annotations = { ann, 1 };
  struct seccomp_listener_state st = { "1.2.0", "c1", "creating", 77, "/b",
                                       &annotations };
  struct oci_seccomp s = { .listener_metadata = "meta" };
  int server, status, passed[2];
  struct stat want;
  pid_t agent;

  memset (big, 'x', (1 << 20) - 1);
  big[(1 << 20) - 1] = '\0';
  s.listener_path = (char *) sock_path ();
  server = listen_at (s.listener_path);
  CHECK (pipe2 (passed, O_CLOEXEC) == 0);
  CHECK (fstat (passed[0], &want) == 0);
  agent = fork ();
  if (agent == 0)
    {
      size_t len;
      int fd;
      struct stat got;
      char *doc = agent_receive (server, &fd, &len);
      bool ok = fd >= 0 && fstat (fd, &got) == 0 && got.st_ino == want.st_ino
                && len > (1 << 20) && doc[len - 1] == '}'
                && strncmp (doc, "{\"ociVersion\":\"1.2.0\",\"fds\":"
                                 "[\"seccompFd\"],\"pid\":77,\"metadata\":"
                                 "\"meta\"",
                            60)
                       == 0;
      _exit (ok ? 0 : 1);
    }
  CHECK (agent > 0);
  CHECK (seccomp_listener_send (&s, passed[0], &st, &err) == 0);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  CHECK (waitpid (agent, &status, 0) == agent);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  close (passed[0]);
  close (passed[1]);
  close (server);
  unlink (s.listener_path);
}

int
main (void)
{
  if (mkdtemp (tmpdir) == NULL)
    return EXIT_FAILURE;
  RUN_TEST (test_hostile_paths);
  RUN_TEST (test_document);
  RUN_TEST (test_send_to_agent);
  rmdir (tmpdir);
  return UNIT_EXIT ();
}
