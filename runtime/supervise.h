/* Waiting in the foreground for a container process (`run`, `exec`):
 * signals received are forwarded to it, a terminal it was given is relayed
 * to ours (raw mode, window size), orphans are reaped. */
#ifndef AGENTRT_SUPERVISE_H
#define AGENTRT_SUPERVISE_H

#include <sys/types.h>

#include "common/error.h"

struct monitor;

/* The caller must have blocked every signal (sigprocmask) before pid was
 * created, and pid must be its child.  local, when not NULL, is the
 * container's monitor `run` is itself (monitor_local_new): its events are
 * served here, and the exit is recorded through it.  pty_master may be -1.
 * Returns the exit status (128+N for a signal) or < 0. */
int supervise_process (pid_t pid, struct monitor *local, int pty_master,
                       agentrt_error_t *err);

#endif
