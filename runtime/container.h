/* Container lifecycle operations shared by the CLI verbs: create, start,
 * status, kill and delete.  Each works on a locked state directory. */
#ifndef AGENTRT_CONTAINER_H
#define AGENTRT_CONTAINER_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/error.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/context.h"
#include "runtime/state_store.h"

struct create_request
{
  const char *id;
  const char *bundle;          /* NULL: the current directory */
  const char *pid_file;
  const char *console_socket;
  bool no_pivot;
  bool no_new_keyring;
  int preserve_fds;
  bool keep_pty_master;        /* `run` in the foreground with a terminal */
  bool local_monitor;          /* `run` in the foreground: a hardened
                                  container's monitor is the caller */
};

struct create_outcome
{
  pid_t pid;                   /* the init: a child of this process */
  struct monitor *local_monitor; /* with local_monitor, the caller's to run
                                    (monitor_local_*), NULL if none */
  int pty_master;              /* with keep_pty_master, else -1 */
};

int container_create (const struct runtime_context *rt,
                      const struct create_request *req,
                      struct create_outcome *out, agentrt_error_t *err);

/* A loaded container: its locked directory, state and hardened config. */
struct container
{
  struct state_dir dir;
  struct container_state *state;
};

int container_load (const struct runtime_context *rt, const char *id,
                    struct container *c, agentrt_error_t *err);
void container_release (struct container *c);
/* The config stored at create time (NULL with *err on failure). */
struct oci_config *container_config (struct container *c, agentrt_error_t *err);

enum container_status container_status (struct container *c);

/* The container's cgroup (NULL without one, or with *err on failure). */
struct cgroup *container_cgroup (struct container *c, agentrt_error_t *err);

/* Host pids of the container's processes (sorted, *pids malloc'd): its
 * cgroup's, or without one (a runtime that is not root, no delegated
 * subtree) those of its pid namespace (runtime/pidns.h); none when it is
 * stopped. */
int container_pids (struct container *c, pid_t **pids, size_t *n,
                    agentrt_error_t *err);

/* Unblocks the init (exec fifo) and runs the poststart hooks. */
int container_start (struct container *c, agentrt_error_t *err);

/* Signals the init, or every process of the container with `all`. */
int container_kill (struct container *c, int sig, bool all,
                    agentrt_error_t *err);

/* Kills what is left, removes the cgroup, runs poststop hooks and removes
 * the state directory.  Refuses a running container unless `force`. */
int container_delete (struct container *c, bool force, agentrt_error_t *err);

/* Sends a pty master to an engine's --console-socket (SCM_RIGHTS). */
int container_send_console (const char *path, int master, agentrt_error_t *err);

/* Writes --pid-file atomically. */
int container_write_pid_file (const char *path, pid_t pid, agentrt_error_t *err);

/* RFC 3339 UTC time with nanoseconds, as runc writes `created`. */
char *container_timestamp (void);

#endif
