/* Creating the container's init inside its namespaces.
 *
 * The runtime clones a child with the namespaces it can create directly.
 * Namespaces that must be joined first (setns) or created after a user
 * namespace (so that it owns them) are handled in the child; when that
 * leaves the child outside the new pid or time namespace, it forks the init
 * with CLONE_PARENT, so that the init is always the runtime's own child.
 * The init reports itself with SYNC_INIT_PID; the kernel translates its pid
 * into the runtime's pid namespace (SO_PASSCRED). */
#ifndef AGENTRT_SPAWN_H
#define AGENTRT_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/child_error.h"
#include "runtime/idmap.h"
#include "runtime/namespaces.h"

struct spawn_request
{
  const struct ns_plan *ns;
  const struct oci_id_mapping *uid_map;
  size_t n_uid_map;
  const struct oci_id_mapping *gid_map;
  size_t n_gid_map;
  /* How the maps are written (runtime/idmap.h); with a new user
   * namespace it must be given. */
  const struct idmap_plan *idmap;
  const struct oci_time_offset *boottime;
  const struct oci_time_offset *monotonic;
  int parent_sock; /* the runtime's end of the sync socketpair */
  int cgroup_fd;   /* >= 0: the child is born in this cgroup2 directory
                      (clone3 CLONE_INTO_CGROUP: no migration to wait for) */
  bool *born_in_cgroup; /* with cgroup_fd: set to false when the kernel
                           (before 5.7) or a seccomp filter refused clone3;
                           the caller then moves the child itself */
  /* The runtime's own fds the child closes at once: above all the state
   * directory's lock, which must not outlive `create` in the init. */
  const int *close_in_child;
  size_t n_close_in_child;
  int child_sock;  /* the init's end */
  /* Optional: runs in the child before it joins any namespace but the pid
   * and time ones (which the runtime entered for it); e.g. to open a
   * procfs while still in the host's user namespace. */
  int (*pre_join_fn) (void *arg, struct child_error *cerr);
  /* Runs in the init once it is in its namespaces; returns only on
   * failure, with cerr set. */
  int (*init_fn) (void *arg, struct child_error *cerr);
  void *arg;
};

/* Returns the init's pid (in the runtime's pid namespace), after it sent
 * SYNC_INIT_PID.  On failure nothing of the child is left running. */
pid_t spawn_init (const struct spawn_request *req, agentrt_error_t *err);

/* Reports cerr on the sync socket and exits (child side). */
void spawn_child_fail (int sock, const struct child_error *cerr)
    __attribute__ ((noreturn));

#endif
