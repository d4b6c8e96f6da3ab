/* A container's processes told by its pid namespace, for a container
 * without a cgroup of its own (a runtime that is not root, with no
 * delegated cgroup subtree): every host process whose pid namespace is
 * the init's.  Only a pid namespace that is not the runtime's own can
 * tell them apart (the hardening always gives the container one). */
#ifndef AGENTRT_PIDNS_H
#define AGENTRT_PIDNS_H

#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"

/* Host pids (sorted, *pids malloc'd; NULL when empty) of the processes in
 * init's pid namespace; an error naming the reason when that is the
 * runtime's own. */
int pidns_members (pid_t init, pid_t **pids, size_t *n, agentrt_error_t *err);

/* Sends sig to each of them through a pidfd, opened while it was listed
 * and used only if it is still in the namespace after.  The number
 * signalled, or -1. */
int pidns_signal_members (pid_t init, int sig, agentrt_error_t *err);

#endif
