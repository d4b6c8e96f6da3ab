/* /dev inside the container: the default devices every container gets
 * (null, zero, full, random, urandom, tty), the bundle's linux.devices, and
 * the standard symlinks (fd, stdin, stdout, stderr, ptmx, core).  Device
 * nodes are made with mknod, or bind-mounted from the host when the init
 * may not create them (user namespace).  Nothing here allocates. */
#ifndef AGENTRT_DEVICES_H
#define AGENTRT_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "runtime/child_error.h"

struct device_node
{
  const char *path; /* container path, e.g. "/dev/null" */
  char type;        /* 'c', 'b', 'u' (unbuffered char) or 'p' (fifo) */
  unsigned int major;
  unsigned int minor;
  mode_t mode;      /* permission bits */
  uid_t uid;
  gid_t gid;
};

struct devices_spec
{
  const struct device_node *nodes; /* defaults first, then the bundle's */
  size_t n_nodes;
  bool bind_from_host; /* user namespace: mknod is not allowed */
  bool ptmx_link;      /* /dev/pts is devpts: /dev/ptmx -> pts/ptmx */
};

/* The defaults (runc's set), for the plan to copy. */
extern const struct device_node devices_default[];
extern const size_t devices_default_count;

int devices_create (int rootfd, const struct devices_spec *spec,
                    struct child_error *cerr);

#endif
