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
  int http;   /* listening sockets inside the agent's namespace */
  int socks;
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
/* The agent's network namespace (enum monitor_netns): lo up and, with
 * egress, the proxy's listeners bound in it.  `target`: the init's own new
 * namespace (its pidfd), or -1 to make one, returned in *agent.  The
 * caller stays in its own namespace. */
int monitor_prepare_netns (struct monitor *m, int target, int *agent,
                           struct child_error *cerr);

/* The timer's and the cgroup watch's fds, to poll (-1: none). */
void monitor_event_fds (const struct monitor *m, struct pollfd p[2]);
/* What poll found on them. */
void monitor_on_events (struct monitor *m, const struct pollfd p[2]);
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
