/* Facts about host processes: start times (to detect pid reuse), liveness,
 * pidfds, waiting with a timeout, and signal names. */
#ifndef AGENTRT_PROC_UTIL_H
#define AGENTRT_PROC_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

/* starttime (field 22 of /proc/PID/stat) and the state letter.  Returns
 * -ENOENT/-ESRCH when the process is gone. */
int proc_stat_read (pid_t pid, uint64_t *start_time, char *state);

/* The exit status (as wait(2) reports it) of a process that exited but
 * was not reaped yet (field 52 of /proc/PID/stat); -1 when unknown. */
int proc_exit_status (pid_t pid);

/* The same for the process of a pidfd, also after its parent reaped it
 * (an engine's conmon or shim usually does at once): PIDFD_GET_INFO with
 * PIDFD_INFO_EXIT (Linux 6.15), else proc_exit_status.  -1 when unknown. */
int proc_pidfd_exit_status (int pidfd, pid_t pid);

/* True when pid exists, is not a zombie, and has the recorded start time. */
bool proc_is_alive (pid_t pid, uint64_t start_time);

/* pidfd_open; -errno on failure. */
int proc_pidfd_open (pid_t pid);

/* Opens a pidfd for pid only if it is still the process that started at
 * start_time (a pidfd pins the identity from then on).  -ESRCH if not. */
int proc_pidfd_open_checked (pid_t pid, uint64_t start_time);

/* Waits until the pidfd's process exits, up to timeout_ms (-1: forever).
 * Returns 1 when it exited, 0 on timeout. */
int proc_pidfd_wait (int pidfd, int timeout_ms);

/* "KILL", "SIGKILL", "9", "SIGRTMIN+3" -> signal number; -1 if unknown. */
int signal_parse (const char *name);

#endif
