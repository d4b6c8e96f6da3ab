/* Namespace plans (see namespaces.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/namespaces.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const struct
{
  unsigned long flag;
  const char *proc_name; /* /proc/PID/ns/<name> */
} ns_info[OCI_NS_COUNT] = {
  [OCI_NS_PID] = { CLONE_NEWPID, "pid" },
  [OCI_NS_NETWORK] = { CLONE_NEWNET, "net" },
  [OCI_NS_MOUNT] = { CLONE_NEWNS, "mnt" },
  [OCI_NS_IPC] = { CLONE_NEWIPC, "ipc" },
  [OCI_NS_UTS] = { CLONE_NEWUTS, "uts" },
  [OCI_NS_USER] = { CLONE_NEWUSER, "user" },
  [OCI_NS_CGROUP] = { CLONE_NEWCGROUP, "cgroup" },
  [OCI_NS_TIME] = { CLONE_NEWTIME, "time" },
};

unsigned long
ns_clone_flag (enum oci_namespace_type type)
{
  return ns_info[type].flag;
}

static void
plan_init (struct ns_plan *out)
{
  int i;
  for (i = 0; i < OCI_NS_COUNT; i++)
    out->join_fds[i] = -1;
  out->new_flags = 0;
}

int
ns_plan_build (const struct oci_linux *lnx, struct ns_plan *out,
               agentrt_error_t *err)
{
  size_t i;

  plan_init (out);
  for (i = 0; lnx && i < lnx->n_namespaces; i++)
    {
      const struct oci_namespace *ns = &lnx->namespaces[i];
      int fd, type;

      if (ns->path == NULL || ns->path[0] == '\0')
        {
          out->new_flags |= ns_info[ns->type].flag;
          continue;
        }
      fd = open (ns->path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        {
          int e = errno;
          ns_plan_close (out);
          return agentrt_error (err, e, "linux.namespaces[%zu].path: `%s`", i,
                                ns->path);
        }
      type = ioctl (fd, NS_GET_NSTYPE);
      if (type < 0 || (unsigned long) type != ns_info[ns->type].flag)
        {
          close (fd);
          ns_plan_close (out);
          return agentrt_error (err, 0, "linux.namespaces[%zu].path: `%s` "
                                "is not a %s namespace", i, ns->path,
                                oci_namespace_type_name (ns->type));
        }
      out->join_fds[ns->type] = fd;
    }
  return 0;
}

int
ns_plan_join_process (pid_t pid, struct ns_plan *out, agentrt_error_t *err)
{
  int i;
  struct stat self, other;
  char path[64];

  plan_init (out);
  for (i = 0; i < OCI_NS_COUNT; i++)
    {
      int fd;
      snprintf (path, sizeof path, "/proc/%d/ns/%s", pid, ns_info[i].proc_name);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        {
          int e = errno;
          if (e == ENOENT)
            continue; /* the kernel lacks this namespace type */
          ns_plan_close (out);
          return agentrt_error (err, e, "open `%s`", path);
        }
      /* Joining our own namespace is a no-op that setns may refuse (user). */
      snprintf (path, sizeof path, "/proc/self/ns/%s", ns_info[i].proc_name);
      if (fstat (fd, &other) == 0 && stat (path, &self) == 0
          && self.st_ino == other.st_ino && self.st_dev == other.st_dev)
        {
          close (fd);
          continue;
        }
      out->join_fds[i] = fd;
    }
  return 0;
}

void
ns_plan_close (struct ns_plan *plan)
{
  int i;
  for (i = 0; i < OCI_NS_COUNT; i++)
    if (plan->join_fds[i] >= 0)
      {
        close (plan->join_fds[i]);
        plan->join_fds[i] = -1;
      }
}
