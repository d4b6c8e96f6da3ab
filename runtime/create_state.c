/* create: the cgroup request and the cgroup, the state directory's
 * documents (config as applied, the hardening record, state.json). */
#include "config.h"

#include <sys/un.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/hardening_record.h"
#include "runtime/fault.h"
#include "runtime/log.h"

#include "runtime/create_ctx.h"

void
create_cgroup_request_init (struct create_ctx *ctx)
{
  const struct oci_linux *l = ctx->config->linux_cfg;
  struct cgroup_request *req = &ctx->cgroup;
  memset (req, 0, sizeof *req);
  req->id = ctx->req->id;
  req->cgroups_path = l->cgroups_path;
  req->resources = l->resources;
  req->devices = l->devices;
  req->n_devices = l->n_devices;
  req->systemd = ctx->rt->systemd_cgroup;
  /* a runtime that is not root: no device program, and no cgroup at all
   * without a delegated subtree (runtime/rootless.h) */
  req->unprivileged = ctx->hardening.rootless;
  req->none = ctx->hardening.rootless && !ctx->hardening.runtime.cgroup;
}

bool
create_born_in_cgroup_possible (struct create_ctx *ctx)
{
  cleanup_error agentrt_error_t ignored = NULL;
  const struct cgroup_layout *layout = cgroup_layout_host (&ignored);
  return !ctx->cgroup.none && layout
         && cgroup_clone_into_possible (layout, ctx->rt->systemd_cgroup);
}

/* Makes the container's cgroup and moves PID into it (0: nobody yet). */
int
create_enter_cgroup (struct create_ctx *ctx, pid_t pid, agentrt_error_t *err)
{
  struct cgroup_result result = { 0 };
  size_t i;

  if (ctx->cgroup.none)
    return 0;
  ctx->cgroup.pid = pid;
  if (cgroup_enter (&ctx->cgroup, &result, err) < 0)
    return create_prefer_init_reason (ctx, err);
  fault_point ("create:cgroup-made");
  for (i = 0; i < result.warnings.len; i++)
    log_warning ("%s", result.warnings.items[i]);
  cgroup_result_release (&result);
  ctx->rb.cgroup = result.cgroup;
  free (ctx->state.cgroup_path);
  free (ctx->state.systemd_unit);
  ctx->state.cgroup_path = xstrdup (cgroup_path (result.cgroup));
  ctx->state.systemd_unit = xstrdup (cgroup_systemd_unit (result.cgroup));
  ctx->state.cgroup_owned = cgroup_owned (result.cgroup);
  ctx->state.cgroup_pending = false;
  return create_save (ctx, err);
}

/* The whole hardening decision, for `exec` to apply as it was (it never
 * reads the policy file or the profile again). */
static int
save_hardening (struct create_ctx *ctx, agentrt_error_t *err)
{
  const struct hardening *h = &ctx->hardening;
  const struct seccomp_program *agent = h->agent_seccomp;
  cleanup_free char *json = hardening_record_to_json (
      &h->policy, &h->result.directives, agent ? agent->insns : NULL,
      agent ? agent->len * sizeof (*agent->insns) : 0, agent ? agent->flags : 0);

  return state_dir_write (&ctx->rb.dir, HARDENING_RECORD_FILE, json,
                          strlen (json), err);
}

int
create_prepare_state (struct create_ctx *ctx, const char *bundle, agentrt_error_t *err)
{
  struct container_state *st = &ctx->state;
  cleanup_free char *json = NULL;
  size_t i;

  st->id = xstrdup (ctx->req->id);
  st->bundle = xstrdup (bundle);
  st->rootfs = xstrdup (ctx->plan.rootfs);
  st->host_mount_ns = ctx->plan.init.rootfs.host_mount_ns;
  st->created = container_timestamp ();
  st->owner = xstrdup ("");
  for (i = 0; i < ctx->config->annotations.len; i++)
    kv_list_set (&st->annotations, ctx->config->annotations.items[i].key,
                 ctx->config->annotations.items[i].value);
  /* Where the cgroup will be, before it is made: a create killed while
   * making it leaves a state that `delete` can clean up. */
  if (!ctx->cgroup.none
      && cgroup_plan (&ctx->cgroup, &st->cgroup_path, &st->systemd_unit, err)
             < 0)
    return -1;
  st->cgroup_pending = !ctx->cgroup.none;
  /* Later commands use the config as it was applied, not the bundle's. */
  json = oci_config_to_json (ctx->config, false, err);
  if (json == NULL || state_dir_write (&ctx->rb.dir, CONFIG_FILE, json,
                                       strlen (json), err) < 0)
    return -1;
  if (ctx->hardening.enforced && save_hardening (ctx, err) < 0)
    return -1;
  return create_save (ctx, err);
}
