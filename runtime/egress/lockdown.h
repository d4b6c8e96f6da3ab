/* The sandbox agentrt-egress puts itself in after startup (see
 * lockdown.c).  Call in this order: lockdown_privileges,
 * lockdown_follow_parent, lockdown_landlock (unless --no-landlock),
 * lockdown_seccomp. */
#ifndef AGENTRT_EGRESS_LOCKDOWN_H
#define AGENTRT_EGRESS_LOCKDOWN_H

#include <sys/types.h>

#include "common/error.h"

/* Not dumpable: no core dump, and no ptrace or /proc/PID/mem for the
 * processes of its uid (the sidecar holds injected credentials, and
 * --make-ca a CA's key).  First thing at startup; lockdown_privileges
 * does it again, since a change of ids resets the flag to the host's
 * fs.suid_dumpable. */
int lockdown_undumpable (agentrt_error_t *err);

/* Raises RLIMIT_NOFILE to its hard limit, switches to uid/gid (from root;
 * otherwise they must be the current ids; 0 is refused) with no groups and
 * no capabilities, not dumpable, and sets no_new_privs. */
int lockdown_privileges (uid_t uid, gid_t gid, agentrt_error_t *err);

/* Dies with the process that started it (`parent`, as getppid gave it
 * at startup: the container's monitor), which `delete` may have to kill:
 * PR_SET_PDEATHSIG SIGKILL, set after lockdown_privileges since a change
 * of ids clears it.  Refused when the parent is gone already. */
int lockdown_follow_parent (pid_t parent, agentrt_error_t *err);

/* No filesystem access, no TCP bind (ABI >= 4), no abstract unix socket
 * or signal outside the domain (ABI >= 6).  Returns the ABI used. */
int lockdown_landlock (agentrt_error_t *err);

/* The syscall allowlist; anything else kills the process. */
int lockdown_seccomp (agentrt_error_t *err);

#endif
