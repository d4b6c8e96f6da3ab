/* Container state: the runtime-spec state document (what `agentrt state`
 * prints and hooks read on stdin) and agentrt's own state.json record kept in
 * the state directory, which holds everything later commands need. */
#ifndef AGENTRT_OCI_STATE_H
#define AGENTRT_OCI_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"

struct container_state
{
  char *id;
  char *bundle;          /* absolute path */
  char *rootfs;          /* absolute host path of root.path */
  pid_t pid;             /* init, in the runtime's pid namespace; 0 if none */
  uint64_t pid_start;    /* /proc/PID/stat starttime: detects pid reuse */
  char *created;         /* RFC 3339 with nanoseconds, UTC */
  char *owner;           /* "" for root, like runc */
  char *cgroup_path;     /* cgroup path relative to the hierarchy root */
  char *systemd_unit;    /* transient scope name with --systemd-cgroup */
  bool cgroup_owned;     /* agentrt created the cgroup (remove it at delete) */
  bool cgroup_pending;   /* cgroup_path is only planned: create was stopped
                            before the cgroup was entered (see cgroup_plan) */
  pid_t monitor_pid;     /* per-container monitor (limits, audit, sidecar) */
  uint64_t monitor_start;
  bool monitor_is_run;   /* the monitor is the `agentrt run` process itself:
                            it ends with the container, nobody stops it */
  bool host_mount_ns;    /* no mount namespace: the rootfs mounts are the
                            runtime's, unmounted at delete */
  /* What the hardening decided, for later commands (exec, the monitor,
   * audit): all NULL/0/false when the policy turned hardening off. */
  bool hardened;
  char *egress;          /* "proxy" or "none" */
  char *egress_allow;    /* normalised allowlist */
  char *env_keep;        /* comma list of names let through scrubbing */
  char *audit_dir;
  char *seccomp_profile; /* the agent profile, stacked for exec too */
  char *agent_netns;     /* "dev:inode" of the agent's network namespace */
  uint64_t lifetime;     /* seconds */
  struct kv_list annotations;
};

/* The `status` values of the runtime-spec plus runc's "paused". */
enum container_status
{
  STATUS_CREATING,
  STATUS_CREATED,
  STATUS_RUNNING,
  STATUS_PAUSED,
  STATUS_STOPPED,
};
const char *container_status_name (enum container_status status);

/* agentrt's own record (state.json in the state dir).  Parsing is strict:
 * a truncated or corrupt file fails with "state.json: <path>: <problem>";
 * id, bundle, rootfs (absolute), pid and created are required. */
char *container_state_to_json (const struct container_state *state,
                               agentrt_error_t *err);
struct container_state *container_state_parse (const char *json, size_t len,
                                               agentrt_error_t *err);
void container_state_free (struct container_state *state);
/* Frees what the struct owns and zeroes it (for one on the stack). */
void container_state_clear (struct container_state *state);

/* The runtime-spec state document, in runc's shape and order:
 * ociVersion, id, pid, status, bundle, rootfs, created[, annotations], owner.
 * pid is 0 when stopped, as runc prints it.  `pretty` indents like runc's
 * `state` (two spaces). */
char *container_state_oci_json (const struct container_state *state,
                                enum container_status status, bool pretty,
                                agentrt_error_t *err);

/* `agentrt list --format json`: an array of runtime-spec state documents,
 * compact; `null` when n is 0, as runc prints it. */
char *container_state_list_json (struct container_state *const *states,
                                 const enum container_status *statuses,
                                 size_t n, agentrt_error_t *err);

static inline void
cleanup_container_state_fn (struct container_state **s)
{
  container_state_free (*s);
}
#define cleanup_container_state \
  __attribute__ ((cleanup (cleanup_container_state_fn)))

#endif
