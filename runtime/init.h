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
#include "runtime/policy/net_plan.h"
#include "runtime/process_stage.h"

struct sysctl_entry
{
  const char *path;  /* relative to /proc/sys: "net/ipv4/ip_forward" */
  const char *value;
  const char *key;   /* as in config.json, for messages */
};

struct init_plan
{
  int exec_fifo_fd;           /* O_PATH fd to the state dir's exec.fifo */
  bool cgroup_ns;             /* unshare(CLONE_NEWCGROUP) once placed */
  bool in_cgroup;             /* the runtime said SYNC_CGROUP_DONE */
  struct net_plan net;         /* where the agent runs, who prepares it */
  int agent_netns_fd;         /* with SYNC_CGROUP_DONE: the agent's
                                 namespace the monitor made (NET_AGENT_INNER,
                                 NET_MAKER_MONITOR), or -1 */
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
