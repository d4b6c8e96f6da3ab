/* create: the init cloned into its namespaces, then served over the sync
 * socket (hooks, terminal, seccomp listener, network fds) until it is
 * ready. */
#include "config.h"

#include <sched.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "common/cleanup.h"
#include "runtime/audit.h"
#include "runtime/fault.h"
#include "runtime/proc_util.h"
#include "runtime/seccomp/seccomp_notify.h"
#include "runtime/spawn.h"
#include "runtime/sync.h"

#include "runtime/create_ctx.h"
#include "runtime/userns.h"

#define OCI_VERSION "1.2.0"

/* The state document hooks read on stdin, in a memfd. */
static int
state_memfd (const struct container_state *st, enum container_status status,
             agentrt_error_t *err)
{
  cleanup_free char *json = container_state_oci_json (st, status, false, err);
  if (json == NULL)
    return -1;
  return hook_state_memfd (json, err);
}

static int
set_oom_score_adj (pid_t pid, const struct oci_process *p, agentrt_error_t *err)
{
  char path[64], value[16];
  cleanup_close int fd = -1;
  int len;

  if (!p->has_oom_score_adj)
    return 0;
  snprintf (path, sizeof path, "/proc/%d/oom_score_adj", pid);
  len = snprintf (value, sizeof value, "%d", p->oom_score_adj);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write (fd, value, (size_t) len) != len)
    return agentrt_error (err, errno, "process.oomScoreAdj: set %d",
                          p->oom_score_adj);
  return 0;
}

static int
run_runtime_hooks (struct create_ctx *ctx, agentrt_error_t *err)
{
  struct child_error cerr = { 0 };
  fault_point ("create:hooks");
  if (hook_set_run (&ctx->plan.prestart, ctx->hook_state[0], &cerr) < 0
      || hook_set_run (&ctx->plan.create_runtime, ctx->hook_state[0], &cerr) < 0)
    return agentrt_error_verbatim (err, cerr.status, cerr.msg);
  return sync_send_simple (ctx->sock, SYNC_HOOKS_DONE, 0) < 0
             ? agentrt_error (err, errno, "sync: hooks done")
             : 0;
}

static int
hand_over_pty (struct create_ctx *ctx, int master, agentrt_error_t *err)
{
  if (ctx->req->console_socket)
    {
      int r = container_send_console (ctx->req->console_socket, master, err);
      close (master);
      return r;
    }
  ctx->pty_master = master;
  return 0;
}

static int
hand_over_seccomp (struct create_ctx *ctx, int listener, agentrt_error_t *err)
{
  struct seccomp_listener_state st = {
    .oci_version = OCI_VERSION,
    .id = ctx->req->id,
    .status = "creating",
    .pid = ctx->state.pid,
    .bundle = ctx->state.bundle,
    .annotations = &ctx->config->annotations,
  };
  int r = seccomp_listener_send (ctx->config->linux_cfg->seccomp, listener, &st,
                                 err);
  close (listener);
  if (r < 0)
    return -1;
  return sync_send_simple (ctx->sock, SYNC_SECCOMP_DONE, 0) < 0
             ? agentrt_error (err, errno, "sync: seccomp done")
             : 0;
}

/* SYNC_NETNS: what the plan says the init hands over: the sidecar's
 * sockets when the init bound them (flags: which, netns.h; the IPv6 ones
 * may be missing), then the bundle's namespace when that is the sidecar's
 * outside. */
static int
take_egress_fds (struct create_ctx *ctx, const struct sync_msg *msg,
                 const int *fds, int nfds, agentrt_error_t *err)
{
  const struct net_plan *net = &ctx->net;
  bool by_init = net->maker == NET_MAKER_INIT && net->listeners;
  uint32_t want = 0, got = by_init ? msg->flags : 0;
  bool outside = net->outside == NET_OUTSIDE_BUNDLE;
  int n = __builtin_popcount (got), i = 0, s;

  if (by_init)
    for (s = 0; s < (net->transparent ? EGRESS_SOCKETS : EGRESS_PROXY_SOCKETS); s++)
      want |= 1u << s;
  /* every socket the plan makes, but the IPv6 ones */
  if ((got & ~want) != 0
      || (want & ~got & ~((1u << EGRESS_SOCK_TRANSPARENT6) | (1u << EGRESS_SOCK_DNS_UDP6)
                           | (1u << EGRESS_SOCK_DNS_TCP6))) != 0
      || nfds != n + outside || nfds == 0)
    {
      for (i = 0; i < nfds; i++)
        close (fds[i]);
      return agentrt_error (err, EPROTO, "sync: %d network fds received "
                            "(sockets %#x), the plan says otherwise", nfds,
                            (unsigned) got);
    }
  for (s = 0; s < EGRESS_SOCKETS; s++)
    if (got & (1u << s))
      ctx->egress_sock[s] = fds[i++];
  if (outside)
    ctx->outside_netns_fd = fds[i];
  return 0;
}

/* Serves the init's requests until it reports SYNC_READY. */
static int
serve_init (struct create_ctx *ctx, agentrt_error_t *err)
{
  for (;;)
    {
      struct sync_msg msg;
      int fds[SYNC_MAX_FDS], nfds = 0, r;

      r = sync_recv (ctx->sock, &msg, fds, &nfds);
      if (r < 0)
        return agentrt_error (err, r == -EPIPE ? 0 : -r, "the container init "
                              "exited during setup");
      switch (msg.type)
        {
        case SYNC_READY:
          return 0;
        case SYNC_ERROR:
          msg.error.msg[sizeof msg.error.msg - 1] = '\0';
          return agentrt_error_verbatim (err, msg.error.status, msg.error.msg);
        case SYNC_RUN_HOOKS:
          r = run_runtime_hooks (ctx, err);
          break;
        case SYNC_PTY_MASTER:
          r = nfds == 1 ? hand_over_pty (ctx, fds[0], err)
                        : agentrt_error (err, EPROTO, "sync: no pty received");
          break;
        case SYNC_NETNS:
          r = take_egress_fds (ctx, &msg, fds, nfds, err);
          break;
        case SYNC_SECCOMP_FD:
          r = nfds == 1 ? hand_over_seccomp (ctx, fds[0], err)
                        : agentrt_error (err, EPROTO, "sync: no listener "
                                         "received");
          break;
        default:
          r = agentrt_error (err, EPROTO, "sync: unexpected message %u",
                             msg.type);
        }
      if (r < 0)
        return -1;
    }
}

int
create_make_exec_fifo (struct create_ctx *ctx, agentrt_error_t *err)
{
  int dirfd = ctx->rb.dir.dirfd;
  if (mkfifoat (dirfd, EXEC_FIFO, 0600) < 0
      || fchmodat (dirfd, EXEC_FIFO, 0622, 0) < 0)
    return agentrt_error (err, errno, "create `%s/%s`", ctx->rb.dir.path,
                          EXEC_FIFO);
  ctx->plan.init.exec_fifo_fd = openat (dirfd, EXEC_FIFO, O_PATH | O_CLOEXEC);
  if (ctx->plan.init.exec_fifo_fd < 0)
    return agentrt_error (err, errno, "open `%s/%s`", ctx->rb.dir.path,
                          EXEC_FIFO);
  return 0;
}

int
create_spawn (struct create_ctx *ctx, agentrt_error_t *err)
{
  const struct oci_linux *l = ctx->config->linux_cfg;
  int pair[2];
  struct spawn_request sr = {
    .ns = &ctx->plan.ns,
    .uid_map = l->uid_mappings,
    .n_uid_map = l->n_uid_mappings,
    .gid_map = l->gid_mappings,
    .n_gid_map = l->n_gid_mappings,
    .idmap = &ctx->plan.idmap,
    .boottime = &l->time_offset_boottime,
    .monotonic = &l->time_offset_monotonic,
    .init_fn = init_container,
    .arg = &ctx->plan.init,
    .cgroup_fd = ctx->born_cgroup_fd,
    .born_in_cgroup = &ctx->born,
  };
  int parent_only[2] = { ctx->rb.dir.dirfd, ctx->plan.rootfd };
  pid_t pid;

  sr.close_in_child = parent_only;
  sr.n_close_in_child = 2;
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
    return agentrt_error (err, errno, "socketpair");
  ctx->sock = pair[0];
  ctx->plan.init.stage.sync_sock = pair[1];
  sr.parent_sock = pair[0];
  sr.child_sock = pair[1];
  if (ctx->plan.ns.new_flags & CLONE_NEWUSER)
    userns_give_stdio (l, ctx->config->process->user.uid,
                       ctx->config->process->user.gid);
  pid = spawn_init (&sr, err);
  close (pair[1]);
  ctx->plan.init.stage.sync_sock = -1;
  if (pid < 0)
    return -1;
  ctx->rb.pid = pid;
  ctx->state.pid = pid;
  if (proc_stat_read (pid, &ctx->state.pid_start, NULL) < 0)
    return agentrt_error (err, ESRCH, "the container init exited");
  return create_save (ctx, err);
}

/* After the init exists and sits in its cgroup: the hook state documents,
 * then the init's requests until it is ready. */
int
create_finish_setup (struct create_ctx *ctx, agentrt_error_t *err)
{
  struct sync_msg msg;
  int fds[3];

  if (set_oom_score_adj (ctx->state.pid, ctx->config->process, err) < 0)
    return -1;
  /* Like runc, create-time hooks see the status "created": the container
   * exists (its pid is known) though its program does not run yet. */
  ctx->hook_state[0] = state_memfd (&ctx->state, STATUS_CREATED, err);
  if (ctx->hook_state[0] < 0)
    return -1;
  ctx->hook_state[1] = dup (ctx->hook_state[0]);
  if (ctx->hook_state[1] < 0)
    return agentrt_error (err, errno, "dup");
  if (net_plan_monitor_makes (&ctx->net)
      && (ctx->agent_netns_fd = monitor_agent_netns (&ctx->monitor, err)) < 0)
    return -1;
  memset (&msg, 0, sizeof msg);
  msg.type = SYNC_CGROUP_DONE;
  fds[0] = ctx->hook_state[0];
  fds[1] = ctx->hook_state[1];
  fds[2] = ctx->agent_netns_fd;
  /* A send that fails means the init stopped early (it builds its mounts
   * meanwhile): its reason is still queued, serve_init reads it. */
  sync_send (ctx->sock, &msg, fds, fds[2] >= 0 ? 3 : 2);
  /* while the init goes on with its setup */
  if (ctx->rb.local_monitor
      && monitor_local_watch (ctx->rb.local_monitor, ctx->state.pid,
                              ctx->state.pid_start, ctx->state.cgroup_owned,
                              err) < 0)
    return create_prefer_init_reason (ctx, err);
  return serve_init (ctx, err);
}
