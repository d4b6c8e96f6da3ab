/* create: the cgroup request and the cgroup, the state directory's
 * documents (config as applied, the hardening record, state.json, the
 * agent's resolv.conf with the transparent path). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <linux/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "oci/hardening_record.h"
#include "runtime/egress/agent_resolv.h"
#include "runtime/fault.h"
#include "runtime/log.h"
#include "runtime/path_resolve.h"
#include "runtime/policy/binds.h"

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

/* The last of the bundle's mounts whose destination holds path (it is
 * what the container sees there), *rest the part of path below it (""
 * for the destination itself); NULL for none. */
static const struct oci_mount *
covering_mount (const struct oci_config *config, const char *path, const char **rest)
{
  const struct oci_mount *found = NULL;

  for (size_t i = 0; i < config->n_mounts; i++)
    {
      const struct oci_mount *m = &config->mounts[i];
      size_t l = strlen (m->destination);

      while (l > 1 && m->destination[l - 1] == '/')
        l--;
      if (l > 1 && strncmp (m->destination, path, l) == 0 && (path[l] == '\0' || path[l] == '/'))
        {
          found = m;
          *rest = path + l + (path[l] == '/');
        }
    }
  return found;
}

int
create_open_container_file (struct create_ctx *ctx, const char *path)
{
  const char *rest = "";
  const struct oci_mount *m = covering_mount (ctx->config, path, &rest);
  cleanup_close int dir = -1;

  if (m == NULL)
    return path_open_regular_in_root (ctx->plan.rootfd, path);
  /* what another kind of mount (a tmpfs) holds is not there yet */
  if (!binds_is_bind (m) || m->source == NULL || m->source[0] != '/')
    {
      errno = ENOENT;
      return -1;
    }
  if (*rest == '\0')
    return io_open_regular (open (m->source, O_PATH | O_CLOEXEC));
  /* below a bound directory: resolved inside it, as in the rootfs (the
   * container may have written there: no symlink leads out of it) */
  dir = open (m->source, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return dir < 0 ? -1 : path_open_regular_in_root (dir, rest);
}

/* The original's first bytes (what agent_resolv keeps is in them). */
static char *
read_original_resolv (int fd, size_t *len)
{
  size_t cap = 16384;
  char *buf = xmalloc (cap);
  ssize_t n;

  *len = 0;
  while (*len < cap && ((n = read (fd, buf + *len, cap - *len)) > 0
                        || (n < 0 && errno == EINTR)))
    if (n > 0)
      *len += (size_t) n;
  return buf;
}

int
create_agent_resolv (struct create_ctx *ctx, agentrt_error_t *err)
{
  static const char name[] = "resolv.conf";
  cleanup_free char *orig = NULL, *text = NULL;
  cleanup_close int fd = -1;
  size_t len;
  int tree;

  if (!ctx->net.transparent)
    return 0;
  /* None in the image nor from the engine: the C library then asks
   * 127.0.0.1, the stub, and a mountpoint made for one would change the
   * image on disk. */
  fd = create_open_container_file (ctx, "/etc/resolv.conf");
  if (fd < 0)
    return 0;
  orig = read_original_resolv (fd, &len);
  text = agent_resolv_render (orig, len);
  if (state_dir_write (&ctx->rb.dir, name, text, strlen (text), err) < 0)
    return agentrt_error_wrap (err, "the agent's resolv.conf");
  if (fchmodat (ctx->rb.dir.dirfd, name, 0644, 0) < 0)
    return agentrt_error (err, errno, "the agent's resolv.conf: chmod `%s/%s`",
                          ctx->rb.dir.path, name);
  tree = (int) syscall (SYS_open_tree, ctx->rb.dir.dirfd, name,
                        OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
  if (tree < 0)
    return agentrt_error (err, errno, "the agent's resolv.conf: open_tree "
                          "`%s/%s`", ctx->rb.dir.path, name);
  mount_plan_add_file (&ctx->plan.mounts, "/etc/resolv.conf", tree);
  return 0;
}
