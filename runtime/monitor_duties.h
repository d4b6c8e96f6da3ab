/* What a container's monitor does (see monitor.h), shared by the forked
 * monitor (monitor.c) and by `agentrt run` in the foreground, which is its
 * container's monitor itself (monitor_local_*, supervise.c): the lifetime
 * timer, the cgroup's limit events, the agent's network namespace, the
 * exit record, and the egress sidecar (monitor_sidecar.c).  What it cannot
 * do is recorded as an incident in the audit trail. */
#ifndef AGENTRT_MONITOR_DUTIES_H
#define AGENTRT_MONITOR_DUTIES_H

#include <poll.h>
#include <stdbool.h>
#include <time.h>

#include "runtime/audit.h"
#include "runtime/child_error.h"
#include "runtime/monitor.h"
#include "runtime/monitor_sidecar.h"

/* The fds the sidecar is started with: the runtime's (or the monitor's
 * own listeners), open until the sidecar has them. */
struct egress_fds
{
  int sock[EGRESS_SOCKETS]; /* inside the agent's namespace (netns.h),
                               -1: none */
  int netns;  /* the outside namespace, -1: the monitor's own */
  int resolv;
  int hosts;
};

struct monitor
{
  const struct monitor_request *req;
  int sock;        /* the forked monitor's, to the runtime until the commit */
  pid_t init_pid;
  int pidfd;       /* the init's */
  int timerfd;     /* lifetime, -1 without */
  struct cgroup *cgroup;
  struct cgroup_watch *watch;
  struct egress_fds egress;
  /* The sidecar starts on the agent's first connection: until then the
   * monitor polls its sockets (monitor_event_fds), with the binary found
   * and the credentials in their pipe at the commit. */
  char *sidecar_binary;  /* armed and not started yet; NULL otherwise */
  int sidecar_creds;     /* the credentials' pipe, -1: none */
  pid_t sidecar;
  int sidecar_pidfd;
  int sidecar_report; /* its start report: why it died before its exec */
  struct timespec started;
  struct audit_trail trail;
  unsigned lifetime_kills;  /* attempts so far, 0: the lifetime runs */
  bool watch_failed;        /* recorded that limit events are unreadable */
};

/* Nothing open yet; the lifetime counts from now; the trail is
 * req->audit_fd's. */
void monitor_duties_init (struct monitor *m, const struct monitor_request *req);
/* The lifetime timer (req->lifetime seconds; none when 0).  -1, errno.
 * When it fires the container is killed, and the kill is checked: a kill
 * that failed, or that the container outlived, is retried (1, 2, 4 ... 60
 * s apart), harder each time, and recorded as an incident. */
int monitor_arm_lifetime (struct monitor *m);
/* The cgroup's limit-event watch (none without req->cgroup_path). */
int monitor_watch_cgroup (struct monitor *m, bool owned);
/* The agent's network namespace (the plan's, req->net): `target` (the
 * init's pidfd, or a namespace's fd) gets lo up and, with egress, the
 * sidecar's sockets bound in it; with the transparent path its routes
 * and rules too (netns_rules.h).  target -1 only makes a new namespace,
 * returned in *agent, for the caller to hand over and then prepare (the
 * rules take milliseconds the init need not wait for).  The caller stays
 * in its own namespace. */
int monitor_prepare_netns (struct monitor *m, int target, int *agent,
                           struct child_error *cerr);

/* The timer's, the cgroup watch's and, until the sidecar starts, its
 * sockets in the agent's namespace: the fds to poll (-1: none). */
#define MONITOR_EVENT_FDS (2 + EGRESS_SOCKETS)
void monitor_event_fds (const struct monitor *m, struct pollfd p[MONITOR_EVENT_FDS]);
/* What poll found on them: the lifetime, a limit event, or the agent's
 * first connection (or datagram), which starts the sidecar. */
void monitor_on_events (struct monitor *m, const struct pollfd p[MONITOR_EVENT_FDS]);
/* The sidecar died (its wait status, reaped by the caller; -1 when it
 * could not be reaped). */
void monitor_sidecar_exited (struct monitor *m, int status);
/* The init exited with that wait status: the limit events it caused, the
 * exit record, the sidecar stopped, the trail written (what waits is
 * retried for up to 2 s). */
void monitor_record_exit (struct monitor *m, int status);
/* The monitor cannot go on watching (what failed, errno): recorded, and
 * since nothing would enforce the lifetime or record the exit any more,
 * the container is killed and the sidecar stopped (fail closed). */
void monitor_give_up (struct monitor *m, const char *what, int error);

#endif
