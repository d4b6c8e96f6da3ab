/* The parent's side of SCMP_ACT_NOTIFY: fetching the listener fd the child
 * created, and handing it to the seccomp agent at linux.seccomp.listenerPath
 * with the runtime-spec ContainerProcessState document.
 *
 * Sequence: the child installs its programs (seccomp_load.h) and passes the
 * listener to the parent, either with SCM_RIGHTS on the sync socket (what
 * agentrt does: sendmsg) or by writing its number for the parent to take with
 * seccomp_listener_fetch; the child then waits.  The parent calls
 * seccomp_listener_send, closes its copy and lets the child go on to exec
 * (the child's copy is O_CLOEXEC).  The compiler refuses NOTIFY rules on the
 * calls this hand-over makes (seccomp.h). */
#ifndef AGENTRT_SECCOMP_NOTIFY_H
#define AGENTRT_SECCOMP_NOTIFY_H

#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "oci/config.h"

/* The "state" part of ContainerProcessState. */
struct seccomp_listener_state
{
  const char *oci_version; /* runtime-spec version, e.g. "1.2.0" */
  const char *id;
  const char *status; /* "creating" while the listener is handed over */
  pid_t pid;
  const char *bundle;
  const struct kv_list *annotations; /* NULL or empty: omitted */
};

/* Duplicates fd `child_fd` of the process behind `child_pidfd` into this
 * process (pidfd_getfd, O_CLOEXEC).  Returns the new fd or -1. */
int seccomp_listener_fetch (int child_pidfd, int child_fd,
                            agentrt_error_t *err);

/* The ContainerProcessState JSON: ociVersion, fds ["seccompFd"], pid,
 * metadata (listenerMetadata, when set) and state.  Malloc'd. */
char *seccomp_listener_state_json (const struct oci_seccomp *seccomp,
                                   const struct seccomp_listener_state *state,
                                   size_t *len);

/* Connects to seccomp->listener_path and sends the document with
 * listener_fd attached (SCM_RIGHTS), as runc and crun do. */
int seccomp_listener_send (const struct oci_seccomp *seccomp, int listener_fd,
                           const struct seccomp_listener_state *state,
                           agentrt_error_t *err);

#endif
