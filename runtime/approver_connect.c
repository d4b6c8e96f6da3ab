/* Connecting to the approver (see approver_connect.h).  Non-blocking: an
 * approver whose backlog is full (EAGAIN) counts as unreachable, the
 * monitor does not wait for it. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "runtime/approver_connect.h"
#include "runtime/fault.h"

int
approver_connect (const char *path, char *why, unsigned size)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd;

  if (strlen (path) >= sizeof sa.sun_path)
    {
      snprintf (why, size, "the approver's socket path is too long: %s", path);
      return -1;
    }
  strcpy (sa.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0 || FAULT_CALL ("monitor:approver-connect",
                            connect (fd, (struct sockaddr *) &sa, sizeof sa)) < 0)
    {
      snprintf (why, size, "the approver at %s cannot be reached (%s): destinations "
                "outside the allowlist are denied without asking", path, strerror (errno));
      if (fd >= 0)
        close (fd);
      return -1;
    }
  return fd;
}
