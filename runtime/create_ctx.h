/* What the phases of `create` share (runtime/container_create.c drives
 * them): the context, with everything a failed create must undo, and the
 * phases' entry points.  Internal to create. */
#ifndef AGENTRT_CREATE_CTX_H
#define AGENTRT_CREATE_CTX_H

#include <stdbool.h>
#include <sys/types.h>

#include "runtime/cgroup/cgroup.h"
#include "runtime/container.h"
#include "runtime/context.h"
#include "runtime/create_plan.h"
#include "runtime/hardening.h"
#include "runtime/monitor.h"

/* Everything a failed create must undo, in reverse order of creation. */
struct rollback
{
  struct state_dir dir;
  bool have_dir;
  pid_t pid;
  struct cgroup *cgroup;
  struct monitor_pids monitor;
  struct monitor *local_monitor;
  /* the user namespace range allocated to this create (idrange_store.h):
   * released by its uid start, after the processes are killed */
  const char *userns_root;
  const char *userns_id;
  uint32_t userns_uid;
};

struct create_ctx
{
  const struct runtime_context *rt;
  const struct create_request *req;
  struct oci_config *config;
  struct hardening hardening;
  int audit_fd;
  struct create_plan plan;
  struct container_state state;
  struct rollback rb;
  struct cgroup_request cgroup;
  int sock;          /* the runtime's end of the sync socket */
  int hook_state[2]; /* "creating" and "created" state memfds */
  int egress_sock[EGRESS_SOCKETS]; /* the sockets the init bound (or -1) */
  int outside_netns_fd; /* the bundle's namespace as the outside (or -1) */
  struct monitor_handle monitor; /* hardened: forked before the init */
  int agent_netns_fd; /* the agent's namespace the monitor made (or -1) */
  struct net_plan net; /* the hardening's, completed; or hardening off's */
  int born_cgroup_fd; /* pure cgroup v2: the cgroup the init is cloned
                         into (-1: moved there after the clone) */
  bool born;          /* the kernel did clone it there */
  int pty_master;
  /* Injected credentials: the sidecar's message (runtime/credential_read.h),
   * wiped and freed when create ends. */
  char *inject_msg;
  size_t inject_len;
};

/* create_ctx.c: the rollback of a failed create; state.json saved; the
 * init's own reason preferred to a later step's failure (returns -1). */
void create_rollback_run (struct rollback *rb);
int create_save (struct create_ctx *ctx, agentrt_error_t *err);
int create_prefer_init_reason (struct create_ctx *ctx, agentrt_error_t *err);

/* create_state.c: the state directory's documents and the cgroup. */
void create_cgroup_request_init (struct create_ctx *ctx);
bool create_born_in_cgroup_possible (struct create_ctx *ctx);
int create_enter_cgroup (struct create_ctx *ctx, pid_t pid, agentrt_error_t *err);
int create_prepare_state (struct create_ctx *ctx, const char *bundle, agentrt_error_t *err);
/* The file the container's process sees at `path` before the hardening's
 * own mounts: from the last of the bundle's mounts that holds it (a bind
 * on that path, or of a directory above it, resolved inside that
 * directory), else the image's (-1 when there is none, or it is not a
 * regular file: never opened then). */
int create_open_container_file (struct create_ctx *ctx, const char *path);
/* With the transparent path: <state dir>/resolv.conf naming the DNS stub
 * (runtime/egress/agent_resolv.h), bound read-only on the agent's
 * /etc/resolv.conf after the bundle's mounts, when there is one (without,
 * the C library asks 127.0.0.1: the stub). */
int create_agent_resolv (struct create_ctx *ctx, agentrt_error_t *err);

/* create_credentials.c: with injected credentials, the sidecar's message
 * (values read, the container's CA made) and the agent's CA bundle (the
 * image's, then the CA's certificate) bound read-only on
 * HARDEN_CA_BUNDLE and over the image's own bundle when it has one. */
int create_credentials (struct create_ctx *ctx, agentrt_error_t *err);

/* create_init.c: the init, cloned and served until it is ready. */
int create_make_exec_fifo (struct create_ctx *ctx, agentrt_error_t *err);
int create_spawn (struct create_ctx *ctx, agentrt_error_t *err);
int create_finish_setup (struct create_ctx *ctx, agentrt_error_t *err);

/* create_monitor.c: the monitor, forked before the init and committed once
 * the init is ready (hardened only). */
int create_start_monitor (struct create_ctx *ctx, agentrt_error_t *err);
int create_commit_monitor (struct create_ctx *ctx, agentrt_error_t *err);

#endif
