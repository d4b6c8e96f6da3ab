/* The per-container monitor: a small process the runtime leaves behind at
 * `create` for hardened containers (`run` in the foreground is its own
 * container's monitor: monitor_local_*).  It holds a pidfd of the
 * container's init and
 *  - prepares the agent's network namespace while the init builds its
 *    mounts (`create` would wait for that otherwise),
 *  - enforces the wall-clock lifetime (kills the container, records why),
 *  - records limit events (OOM kills, the pids limit) from the cgroup,
 *  - starts the egress sidecar in the outside network namespace on the
 *    agent's first connection (socket activation: `create` and a
 *    container that never connects do not pay for its start) and records
 *    its death (the agent then has no egress: nothing replaces it),
 *  - records the exit, stops the sidecar and exits with the init.
 * It never outlives the container; `delete` also stops it by pid. */
#ifndef AGENTRT_MONITOR_H
#define AGENTRT_MONITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "runtime/netns.h"
#include "runtime/policy/egress_ask.h"
#include "runtime/policy/net_plan.h"

/* The sidecar's settings (the hardening's egress directives). */
struct monitor_egress
{
  const char *allow;
  bool allow_broad;
  uid_t uid;
  gid_t gid;
  unsigned busy_poll_us;
  /* Injected credentials: the message the sidecar reads from a pipe
   * (runtime/egress/inject_wire.h; NULL: none), wiped once written, and
   * the trust store it verifies their hosts against. */
  char *credentials;
  size_t credentials_len;
  const char *trust_store;
  /* Asking the approver: socket NULL when the container does not ask
   * (runtime/policy/egress_ask.h). */
  const struct egress_ask_policy *ask;
};

/* What the monitor is forked with, just before the init is cloned. */
struct monitor_request
{
  const char *id;
  const char *root;          /* --root, for the cgroup layout's sake */
  int audit_fd;
  uint64_t lifetime;         /* seconds, 0: none */
  const char *cgroup_path;   /* as cgroup_plan gives it; NULL: no limit
                                events, no lifetime kill */
  const char *systemd_unit;
  const struct monitor_egress *egress; /* NULL: no sidecar */
  struct net_plan net;       /* with NET_MAKER_MONITOR: it brings lo up
                                in the agent's namespace and binds the
                                sidecar's listeners there (INNER: in one it
                                makes, which monitor_agent_netns hands
                                over; OWN: in the init's) */
};

/* What the runtime hands over once the init is ready. */
struct monitor_commit
{
  const int *sock; /* the sockets the init bound (EGRESS_SOCKETS of
                      them), NULL when the monitor prepared the agent's
                      namespace (or without egress) */
  int netns_fd;  /* the outside namespace, -1: the runtime's own */
  int resolv_fd; /* resolv.conf and hosts the container was given */
  int hosts_fd;
};

struct monitor_handle
{
  pid_t pid;
  int sock;     /* until monitor_commit */
  bool sidecar; /* it arms one at the commit */
};

/* The sidecar is not here: it starts later, as the monitor's child, and
 * dies with it (PR_SET_PDEATHSIG), or by itself with the init. */
struct monitor_pids
{
  pid_t monitor;
  uint64_t monitor_start;
};

/* Forks the monitor.  Until monitor_commit it only prepares (its signals,
 * the lifetime timer, the agent's network namespace) while the runtime
 * clones the init and moves it into its cgroup: a create that fails
 * meanwhile kills it, or it exits by itself when the runtime goes. */
int monitor_fork (const struct monitor_request *req, struct monitor_handle *h,
                  agentrt_error_t *err);

/* The agent's network namespace the monitor made (net_plan_monitor_makes). */
int monitor_agent_netns (struct monitor_handle *h, agentrt_error_t *err);

/* The init exists and its cgroup too (`owned`: create made it): the
 * monitor opens the cgroup's limit-event watch (and, when
 * net_plan_monitor_prepares_init, prepares the init's network namespace)
 * while the init finishes its setup. */
int monitor_cgroup_ready (struct monitor_handle *h, pid_t init_pid,
                          uint64_t init_start, bool owned,
                          agentrt_error_t *err);

/* The init is ready: once the monitor said it watches the init and its
 * cgroup, it is told to go on (nothing can fail after that) and arms the
 * sidecar (monitor_arm_sidecar), answering once it has.  Closes the
 * handle's socket. */
int monitor_commit (struct monitor_handle *h, const struct monitor_commit *c,
                    struct monitor_pids *out, agentrt_error_t *err);

/* `agentrt run` in the foreground is its container's monitor itself: the
 * same duties (monitor_duties.h) in its supervision loop, without a
 * process of their own.  The container's program dies with `run`
 * (PR_SET_PDEATHSIG): no agent outlives its monitor.  The request is
 * copied (and its audit fd duplicated). */
struct monitor *monitor_local_new (const struct monitor_request *req,
                                   agentrt_error_t *err);
/* The init and its cgroup exist: what monitor_cgroup_ready has the forked
 * monitor do, done here. */
int monitor_local_watch (struct monitor *m, pid_t init_pid,
                         uint64_t init_start, bool owned, agentrt_error_t *err);
/* The init is ready: arms the sidecar (with egress). */
int monitor_local_commit (struct monitor *m, const struct monitor_commit *c,
                          agentrt_error_t *err);
/* Stops the sidecar if one runs, closes and frees everything. */
void monitor_local_free (struct monitor *m);

/* The sidecar binary: $(pkglibexecdir)/agentrt-egress, or next to the
 * running agentrt (a build tree). */
char *monitor_egress_binary (void);

#endif
