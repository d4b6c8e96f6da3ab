/* The per-container monitor: a small process the runtime leaves behind at
 * `create` for hardened containers.  It holds a pidfd of the container's
 * init and
 *  - enforces the wall-clock lifetime (kills the container, records why),
 *  - records limit events (OOM kills, the pids limit) from the cgroup,
 *  - starts the egress sidecar in the outside network namespace and
 *    records its death (the agent then has no egress: nothing replaces it),
 *  - records the exit, stops the sidecar and exits with the init.
 * It never outlives the container; `delete` also stops it by pid. */
#ifndef AGENTRT_MONITOR_H
#define AGENTRT_MONITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

struct monitor_egress
{
  int http_fd;      /* listening sockets inside the agent's namespace */
  int socks_fd;
  int netns_fd;     /* the outside namespace, -1: the runtime's own */
  int resolv_fd;    /* resolv.conf and hosts the container was given */
  int hosts_fd;
  const char *allow;
  bool allow_broad;
  uid_t uid;
  gid_t gid;
};

struct monitor_request
{
  const char *id;
  const char *root;          /* --root, for the cgroup layout's sake */
  pid_t init_pid;
  uint64_t init_start;
  int audit_fd;
  uint64_t lifetime;         /* seconds, 0: none */
  const char *cgroup_path;   /* NULL: no limit events, no lifetime kill */
  const char *systemd_unit;
  bool cgroup_owned;
  const struct monitor_egress *egress; /* NULL: no sidecar */
};

struct monitor_pids
{
  pid_t monitor;
  uint64_t monitor_start;
  pid_t sidecar;            /* 0 without egress */
  uint64_t sidecar_start;
};

/* Forks the monitor (and through it the sidecar) and returns their pids
 * once the sidecar has been exec'd. */
int monitor_start (const struct monitor_request *req, struct monitor_pids *out,
                   agentrt_error_t *err);

/* The sidecar binary: $(pkglibexecdir)/agentrt-egress, or next to the
 * running agentrt (a build tree). */
char *monitor_egress_binary (void);

#endif
