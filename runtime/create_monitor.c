/* create, hardened: the monitor (and through it the sidecar) forked before
 * the init and committed once the init is ready, or `run` in the
 * foreground as its own monitor. */
#include "config.h"

#include <sys/un.h>

#include "common/cleanup.h"
#include "runtime/fault.h"
#include "runtime/proc_util.h"

#include "runtime/create_ctx.h"

/* The resolv.conf or hosts file the engine gave the container (a bind mount
 * on that path), else the image's; -1 for the host's own. */
static int
open_name_file (struct create_ctx *ctx, const char *path)
{
  if (ctx->net.host_names)
    return -1; /* the outside is the runtime's network: its own files */
  return create_open_container_file (ctx, path);
}

/* Hardened: the monitor starts just before the init is cloned, so that
 * its own start (and the agent's network namespace) overlaps the init's
 * and the cgroup move; it watches the init only once committed.  It is a
 * forked process, or `run` in the foreground itself. */
int
create_start_monitor (struct create_ctx *ctx, agentrt_error_t *err)
{
  const struct harden_directives *d = &ctx->hardening.result.directives;
  struct monitor_egress egress = {
    .allow = d->egress_allow ? d->egress_allow : "",
    .allow_broad = d->egress_allow_broad,
    .uid = d->sidecar_uid,
    .gid = d->sidecar_gid,
    .busy_poll_us = d->sidecar_busy_poll_us,
    .credentials = ctx->inject_msg,
    .credentials_len = ctx->inject_len,
    .trust_store = ctx->hardening.policy.trust_store,
    .ask = &d->egress_ask,
  };
  struct monitor_request req = {
    .id = ctx->req->id,
    .root = ctx->rt->root,
    .audit_fd = ctx->audit_fd,
    .lifetime = d->lifetime,
    .cgroup_path = ctx->state.cgroup_path,
    .systemd_unit = ctx->state.systemd_unit,
    .egress = ctx->net.listeners ? &egress : NULL,
    .net = ctx->net,
  };

  if (ctx->req->local_monitor)
    {
      /* `run` in the foreground watches its container itself */
      ctx->rb.local_monitor = monitor_local_new (&req, err);
      ctx->plan.init.stage.die_with_parent = true;
      return ctx->rb.local_monitor ? 0 : -1;
    }
  if (monitor_fork (&req, &ctx->monitor, err) < 0)
    return -1;
  ctx->rb.monitor.monitor = ctx->monitor.pid;
  fault_point ("create:monitor-preparing");
  return 0;
}

/* `run`'s own monitor: recorded as the monitor. */
static int
commit_local_monitor (struct create_ctx *ctx, const struct monitor_commit *c,
                      agentrt_error_t *err)
{
  struct monitor_pids *pids = &ctx->rb.monitor;

  if (monitor_local_commit (ctx->rb.local_monitor, c, err) < 0)
    return -1;
  pids->monitor = getpid ();
  proc_stat_read (pids->monitor, &pids->monitor_start, NULL);
  ctx->state.monitor_is_run = true;
  return 0;
}

/* The init is ready: the monitor starts watching it, and arms the sidecar. */
int
create_commit_monitor (struct create_ctx *ctx, agentrt_error_t *err)
{
  bool egress = ctx->net.listeners;
  struct monitor_commit c = {
    .sock = ctx->net.maker == NET_MAKER_INIT ? ctx->egress_sock : NULL,
    .netns_fd = ctx->outside_netns_fd,
    .resolv_fd = egress ? open_name_file (ctx, "/etc/resolv.conf") : -1,
    .hosts_fd = egress ? open_name_file (ctx, "/etc/hosts") : -1,
  };
  int r = ctx->rb.local_monitor
              ? commit_local_monitor (ctx, &c, err)
              : monitor_commit (&ctx->monitor, &c, &ctx->rb.monitor, err);

  if (c.resolv_fd >= 0)
    close (c.resolv_fd);
  if (c.hosts_fd >= 0)
    close (c.hosts_fd);
  if (r < 0)
    return -1;
  fault_point ("create:monitor-committed");
  ctx->state.monitor_pid = ctx->rb.monitor.monitor;
  ctx->state.monitor_start = ctx->rb.monitor.monitor_start;
  return create_save (ctx, err);
}
