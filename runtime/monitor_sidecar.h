/* The egress sidecar, as a container's monitor runs it (monitor_duties.h):
 * armed at the commit, started on the agent's first connection in the
 * outside network namespace with its fds at 3..8 and
 * nothing else (every other fd close-on-exec: close_range), stopped
 * (SIGTERM, then SIGKILL) and reaped.  A step that fails is an error of the
 * start, or part of the record of its death, or an incident in the audit
 * trail. */
#ifndef AGENTRT_MONITOR_SIDECAR_H
#define AGENTRT_MONITOR_SIDECAR_H

#include <stddef.h>

#include "runtime/child_error.h"

struct monitor;

/* At the commit: finds agentrt-egress and puts the credentials in their
 * pipe (wiped from the monitor's memory), so that what can fail early
 * fails the create.  The sidecar itself starts on the agent's first
 * connection (monitor_on_events). */
int monitor_arm_sidecar (struct monitor *m, struct child_error *cerr);
/* Makes every fd close-on-exec, forks the sidecar (not waiting for its
 * exec) and closes what was kept for it (monitor_close_egress), whatever
 * happened: without a sidecar the agent's connects are refused. */
int monitor_start_sidecar (struct monitor *m, struct child_error *cerr);
/* Once the sidecar is gone: 1 and why (e.g. "it could not start: execve:
 * ...") when it died before its exec, else 0. */
int monitor_sidecar_failure (struct monitor *m, char *why, size_t size);
/* SIGTERM, SIGKILL after 2 s, reaped; a sidecar that cannot be signalled
 * is recorded as an incident (it still exits with the init). */
void monitor_stop_sidecar (struct monitor *m);
/* waitpid of the sidecar: its status, or -1 when it cannot be had. */
int monitor_reap_sidecar (struct monitor *m);
/* Closes the fds kept for the sidecar's start and forgets its binary
 * (disarmed: it will not start any more). */
void monitor_close_egress (struct monitor *m);

#endif
