/* `create`: from a bundle to an init waiting for `start`.  Every resource is
 * recorded in state.json as soon as it exists, so that a create killed at
 * any point can be finished off by `delete --force`; a create that fails
 * removes everything itself (struct rollback). */
#include "config.h"

#include <sys/prctl.h>
#include <sys/un.h>

#include "common/cleanup.h"
#include "common/real_path.h"
#include "common/xalloc.h"
#include "runtime/audit.h"
#include "runtime/cloned_binary.h"
#include "runtime/fault.h"
#include "runtime/idrange_store.h"
#include "runtime/shared_netns.h"
#include "runtime/seccomp/seccomp_cache.h"

#include "runtime/create_ctx.h"
#include "runtime/rootless.h"

static int
check_request (const struct create_request *req, const struct oci_config *c,
               agentrt_error_t *err)
{
  if (c->process && c->process->terminal && req->console_socket == NULL
      && !req->keep_pty_master)
    return agentrt_error (err, 0, "process.terminal is true: "
                          "--console-socket is required");
  if (c->process && !c->process->terminal && req->console_socket)
    return agentrt_error (err, 0, "--console-socket given but "
                          "process.terminal is false");
  return 0;
}

/* The network plan: the hardening's, completed with what only create
 * knows (`run`'s own monitor); with the hardening off, the bundle's
 * namespace as it is. */
static void
decide_network (struct create_ctx *ctx)
{
  struct harden_directives *d = &ctx->hardening.result.directives;
  struct net_inputs off = { .bundle_ns = net_bundle_ns_of (ctx->config) };

  if (!ctx->hardening.enforced)
    {
      ctx->net = net_plan_decide (&off);
      return;
    }
  d->net_facts.local_monitor = ctx->req->local_monitor;
  d->net_facts.runtime_userns = rootless_ns_foreign ("net");
  ctx->net = net_plan_decide (&d->net_facts);
}

/* What the hardening decided beyond the OCI config, for the init. */
static void
apply_directives (struct create_ctx *ctx, struct create_plan_options *po)
{
  const struct harden_directives *d = &ctx->hardening.result.directives;
  struct container_state *st = &ctx->state;

  po->net = &ctx->net;
  if (!ctx->hardening.enforced)
    return;
  po->extra_seccomp = ctx->hardening.agent_seccomp;
  po->hardened = true;
  po->judged = &ctx->hardening.view;
  po->userns_auto = d->userns == HARDEN_USERNS_AUTO;
  po->changes = &ctx->hardening.result.changes;
  po->required_masks = &d->required_masks;
  po->protected_paths = &d->protected_paths;
  po->protected_dirs = &d->protected_dirs;
  if (d->rootfs == HARDEN_ROOTFS_EPHEMERAL)
    po->ephemeral_size = d->ephemeral_size;
  st->hardened = true;
  st->egress = xstrdup (harden_egress_name (d->egress));
  st->egress_allow = xstrdup (d->egress_allow ? d->egress_allow : "");
  st->env_keep = str_list_join (&d->env_keep, ",");
  st->audit_dir = xstrdup (d->audit_dir);
  st->seccomp_profile = xstrdup (d->seccomp_profile);
  st->lifetime = d->lifetime;
}

/* The audit trail starts with what the hardening did (or that the policy
 * turned it off); a trail that cannot be written stops the create. */
static int
open_audit (struct create_ctx *ctx, agentrt_error_t *err)
{
  const char *dir = ctx->hardening.enforced
                        ? ctx->hardening.result.directives.audit_dir
                        : ctx->hardening.policy.audit_dir;
  ctx->audit_fd = audit_open (dir, ctx->req->id, err);
  if (ctx->audit_fd < 0)
    return -1;
  return audit_create (ctx->audit_fd, ctx->req->id,
                       ctx->hardening.enforced ? &ctx->hardening.result : NULL,
                       err);
}

/* Socket activation, like runc: fds passed to us under LISTEN_FDS are
 * passed on after the --preserve-fds ones, and the container is told. */
static int
listen_fds (char **env)
{
  const char *v = getenv ("LISTEN_FDS");
  int n = v ? atoi (v) : 0;
  if (n <= 0)
    return 0;
  snprintf (env[0], 32, "LISTEN_FDS=%d", n);
  snprintf (env[1], 32, "LISTEN_PID=1");
  return n;
}

/* The container's own user namespace (docs/userns.md): a range
 * allocated under --root, the maps set, released by the rollback. */
static int
allocate_userns (struct create_ctx *ctx, agentrt_error_t *err)
{
  struct hardening *h = &ctx->hardening;
  uint32_t uid, gid;

  if (!h->enforced || h->result.directives.userns != HARDEN_USERNS_AUTO)
    return 0;
  if (!state_id_valid (ctx->req->id))
    return agentrt_error (err, 0, "invalid container id `%s`", ctx->req->id);
  if (idrange_store_allocate (ctx->rt->root, ctx->req->id, &h->policy, &uid,
                              &gid, err) < 0)
    return -1;
  ctx->rb.userns_root = ctx->rt->root;
  ctx->rb.userns_id = ctx->req->id;
  ctx->rb.userns_uid = uid;
  fault_point ("create:userns");
  userns_auto_map (ctx->config, uid, gid, &h->result.changes);
  return 0;
}

static int
create_in (struct create_ctx *ctx, const char *bundle, agentrt_error_t *err)
{
  char listen_env[2][32];
  char *extra_env[3] = { listen_env[0], listen_env[1], NULL };
  int n_listen = listen_fds (extra_env);
  cleanup_free char *seccomp_cache = seccomp_cache_dir (ctx->rt->root);
  struct create_plan_options po = {
    .bundle = bundle,
    .no_pivot = ctx->req->no_pivot,
    .no_new_keyring = ctx->req->no_new_keyring,
    .preserve_fds = ctx->req->preserve_fds + n_listen,
    .extra_env = n_listen ? extra_env : NULL,
    .cgroup = &ctx->cgroup,
    .keyring_name = ctx->req->id,
    .seccomp_cache = seccomp_cache,
    .no_mknod = rootless_is (),
  };

  create_cgroup_request_init (ctx);
  decide_network (ctx);
  apply_directives (ctx, &po);
  if (allocate_userns (ctx, err) < 0)
    return -1;
  /* before the plan compiles the bundle's seccomp profile: its cache is
   * under the root (a brand-new root would not cache the first one) */
  if (state_root_create (ctx->rt->root, err) < 0
      || create_plan_build (ctx->config, &po, &ctx->plan, err) < 0)
    return -1;
  if (state_dir_create (ctx->rt->root, ctx->req->id, &ctx->rb.dir, err) < 0)
    return -1;
  ctx->rb.have_dir = true;
  fault_point ("create:state-dir");
  if (open_audit (ctx, err) < 0 || create_prepare_state (ctx, bundle, err) < 0
      || create_agent_resolv (ctx, err) < 0 || create_credentials (ctx, err) < 0)
    return -1;
  fault_point ("create:state-saved");
  /* On a pure cgroup v2 host (cgroupfs driver) the init is cloned straight
   * into its cgroup (no migration, no RCU grace period to wait for). */
  if (create_born_in_cgroup_possible (ctx))
    {
      if (create_enter_cgroup (ctx, 0, err) < 0
          || (ctx->born_cgroup_fd = cgroup_unified_fd (ctx->rb.cgroup, err)) < 0)
        return -1;
    }
  if (ctx->hardening.enforced && create_start_monitor (ctx, err) < 0)
    return -1;
  if (create_make_exec_fifo (ctx, err) < 0 || create_spawn (ctx, err) < 0)
    return -1;
  fault_point ("create:spawned");
  if (ctx->born_cgroup_fd < 0 && create_enter_cgroup (ctx, ctx->state.pid, err) < 0)
    return -1;
  if (ctx->born_cgroup_fd >= 0 && !ctx->born
      && cgroup_add_pid (ctx->rb.cgroup, ctx->state.pid, err) < 0)
    return -1;
  fault_point ("create:cgroup");
  if (ctx->hardening.enforced && !ctx->rb.local_monitor
      && monitor_cgroup_ready (&ctx->monitor, ctx->state.pid,
                               ctx->state.pid_start, ctx->state.cgroup_owned,
                               err) < 0)
    return create_prefer_init_reason (ctx, err);
  if (create_finish_setup (ctx, err) < 0)
    return -1;
  fault_point ("create:init-ready");
  if (ctx->hardening.enforced)
    ctx->state.agent_netns = shared_netns_id (ctx->state.pid);
  if (ctx->hardening.enforced && create_commit_monitor (ctx, err) < 0)
    return -1;
  fault_point ("create:monitor");
  if (ctx->req->pid_file
      && container_write_pid_file (ctx->req->pid_file, ctx->state.pid, err) < 0)
    return -1;
  fault_point ("create:done");
  return 0;
}

int
container_create (const struct runtime_context *rt,
                  const struct create_request *req, struct create_outcome *out,
                  agentrt_error_t *err)
{
  cleanup_free char *bundle = real_path (req->bundle ? req->bundle : ".");
  cleanup_free char *config_path = NULL;
  struct create_ctx ctx;
  int r;

  memset (&ctx, 0, sizeof ctx);
  ctx.rt = rt;
  ctx.req = req;
  ctx.sock = ctx.pty_master = ctx.audit_fd = ctx.born_cgroup_fd = -1;
  ctx.hook_state[0] = ctx.hook_state[1] = -1;
  for (int i = 0; i < EGRESS_SOCKETS; i++)
    ctx.egress_sock[i] = -1;
  ctx.outside_netns_fd = -1;
  ctx.monitor.sock = ctx.agent_netns_fd = -1;
  if (bundle == NULL)
    return agentrt_error (err, errno, "--bundle `%s`",
                          req->bundle ? req->bundle : ".");
  config_path = xasprintf ("%s/config.json", bundle);
  ctx.config = oci_config_parse_file (config_path, err);
  if (ctx.config == NULL)
    return -1;
  if (hardening_apply (rt, ctx.config, bundle, true, &ctx.hardening, err) < 0
      || (cloned_binary_needed (ctx.config->process
                                    ? ctx.config->process->capabilities
                                    : NULL)
          && cloned_binary_ensure (rt->argv, err) < 0))
    {
      hardening_release (&ctx.hardening);
      oci_config_free (ctx.config);
      return -1;
    }
  /* bind sources are judged and open: what is mounted from here on */
  fault_point ("create:judged");
  /* The container's processes must not be able to reach this one's memory
   * or /proc/PID/exe while it sets them up (CVE-2019-5736). */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    r = agentrt_error (err, errno, "prctl PR_SET_DUMPABLE");
  else
    r = check_request (req, ctx.config, err) < 0 ? -1 : create_in (&ctx, bundle, err);
  if (r < 0)
    {
      create_rollback_run (&ctx.rb);
      if (ctx.pty_master >= 0)
        close (ctx.pty_master);
    }
  else
    {
      out->pid = ctx.state.pid;
      out->local_monitor = ctx.rb.local_monitor;
      out->pty_master = ctx.pty_master;
      cgroup_free (ctx.rb.cgroup);
      state_dir_close (&ctx.rb.dir);
    }
  if (ctx.sock >= 0)
    close (ctx.sock);
  if (ctx.hook_state[0] >= 0)
    close (ctx.hook_state[0]);
  if (ctx.hook_state[1] >= 0)
    close (ctx.hook_state[1]);
  netns_egress_close (ctx.egress_sock);
  if (ctx.outside_netns_fd >= 0)
    close (ctx.outside_netns_fd);
  if (ctx.monitor.sock >= 0)
    close (ctx.monitor.sock);
  if (ctx.agent_netns_fd >= 0)
    close (ctx.agent_netns_fd);
  if (ctx.audit_fd >= 0)
    close (ctx.audit_fd);
  if (ctx.inject_msg)
    explicit_bzero (ctx.inject_msg, ctx.inject_len);
  free (ctx.inject_msg);
  create_plan_free (&ctx.plan);
  hardening_release (&ctx.hardening);
  oci_config_free (ctx.config);
  container_state_clear (&ctx.state);
  return r;
}
