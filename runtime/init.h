/* What the container's init does between clone and exec, driven by a plan
 * the runtime computed beforehand.  The init allocates nothing: every
 * string, array and compiled filter lives in the plan. */
#ifndef AGENTRT_INIT_H
#define AGENTRT_INIT_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/child_error.h"
#include "runtime/devices.h"
#include "runtime/hooks.h"
#include "runtime/process_setup.h"
#include "runtime/rootfs.h"
#include "runtime/process_stage.h"

struct sysctl_entry
{
  const char *path;  /* relative to /proc/sys: "net/ipv4/ip_forward" */
  const char *value;
  const char *key;   /* as in config.json, for messages */
};

/* What the init does to the network namespace the agent ends up in. */
enum agent_netns
{
  AGENT_NETNS_AS_IS,  /* a joined namespace (hardening off, or an agent's
                         own shared one): as it is */
  AGENT_NETNS_OWN,    /* hardening off, the container's own new namespace:
                         lo up first, before any hook (as runc does) */
  AGENT_NETNS_LO_UP,  /* hardened, the container's own new namespace: bring
                         lo up (and bind the listeners) after the hooks */
  AGENT_NETNS_INNER,  /* after the hooks, a fresh namespace with only lo:
                         the bundle's one stays the egress proxy's outside */
};

struct init_plan
{
  int exec_fifo_fd;           /* O_PATH fd to the state dir's exec.fifo */
  bool cgroup_ns;             /* unshare(CLONE_NEWCGROUP) once placed */
  bool in_cgroup;             /* the runtime said SYNC_CGROUP_DONE */
  enum agent_netns agent_netns;
  bool egress_listeners;      /* bind the proxy's ports and hand them over */
  bool netns_by_monitor;      /* the monitor brings lo up and binds the
                                 listeners (INNER: in a namespace it made,
                                 which comes as agent_netns_fd) */
  int agent_netns_fd;         /* with SYNC_CGROUP_DONE, or -1 */
  const char *hostname;
  const char *domainname;
  struct rootfs_spec rootfs;
  struct devices_spec devices;
  bool runtime_hooks;         /* prestart/createRuntime hooks to wait for */
  struct hook_set create_container;
  struct hook_set start_container;
  int create_container_state; /* memfds received from the runtime */
  int start_container_state;
  struct sysctl_entry *sysctls;
  size_t n_sysctls;
  struct process_spec process;
  struct process_stage stage; /* points at process and the seccomp list */
};

/* spawn_request.init_fn for `create`: arg is the struct init_plan. */
int init_container (void *arg, struct child_error *cerr);

#endif
