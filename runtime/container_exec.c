/* `exec`: a new process inside a running container.  It joins every
 * namespace and the cgroup of the container's init, and gets the same
 * confinement as the init's process (seccomp, capabilities, no_new_privs,
 * LSM labels, rlimits) as its process description says. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/hardening_record.h"
#include "runtime/audit.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/cloned_binary.h"
#include "runtime/exec_stub.h"
#include "runtime/container.h"
#include "runtime/container_exec.h"
#include "runtime/log.h"
#include "runtime/process_stage.h"
#include "runtime/seccomp/seccomp_cache.h"
#include "runtime/seccomp/seccomp_notify.h"
#include "runtime/spawn.h"
#include "runtime/supervise.h"
#include "runtime/sync.h"
#include "runtime/userns.h"

/* What the exec'd process reads between clone and exec. */
struct exec_child
{
  struct process_stage stage;
  int procfd;
  /* --ignore-paused into a frozen container: the process joins the cgroup
   * (and freezes with it) only once it is set up and about to exec; only
   * the runtime's own setup runs outside it, nothing of the container's. */
  bool join_late;
};

static int
exec_pre_join (void *arg, struct child_error *cerr)
{
  struct exec_child *child = arg;
  const struct process_spec *p = child->stage.process;

  /* Only the LSM labels are written through it, and only a runtime that
   * is root may make one here (a user other than root may not mount a
   * procfs of the host's pid namespace). */
  if (!(p->apparmor_profile && p->apparmor_profile[0])
      && !(p->selinux_label && p->selinux_label[0]))
    return 0;
  /* While still in the host's user namespace (a procfs instance cannot be
   * made from a container's user namespace once /proc is partly masked). */
  child->procfd = process_stage_private_proc (cerr);
  return child->procfd < 0 ? -1 : 0;
}

static int
exec_child_main (void *arg, struct child_error *cerr)
{
  struct exec_child *child = arg;
  char exe[4096];
  struct sync_msg msg;

  if (!child->join_late
      && sync_expect (child->stage.sync_sock, SYNC_CGROUP_DONE, &msg, NULL,
                      NULL, cerr) < 0)
    return -1;
  if (child->stage.terminal && process_stage_terminal (&child->stage, false, cerr) < 0)
    return -1;
  if (process_stage_prepare (&child->stage, child->procfd, exe, sizeof exe,
                             cerr) < 0)
    return -1;
  if (sync_send_simple (child->stage.sync_sock, SYNC_READY, 0) < 0)
    return child_error (cerr, errno, "sync: ready");
  if (child->join_late
      && sync_expect (child->stage.sync_sock, SYNC_CGROUP_DONE, &msg, NULL,
                      NULL, cerr) < 0)
    return -1;
  process_stage_exec (&child->stage, exe);
}

struct exec_ctx
{
  const struct exec_options *opts;
  struct container *c;
  struct oci_config *config;
  struct oci_process *process;
  struct process_spec spec;
  struct seccomp_program *seccomp;
  struct seccomp_program *agent_seccomp;
  const struct seccomp_program *seccomp_list[2];
  struct ns_plan ns;
  struct exec_child child;
  int sock;
  pid_t pid;
  int pty_master;
};

static int
send_console (const char *path, int master, agentrt_error_t *err)
{
  int r = container_send_console (path, master, err);
  close (master);
  return r;
}

static int
serve_child (struct exec_ctx *ctx, agentrt_error_t *err)
{
  for (;;)
    {
      struct sync_msg msg;
      int fds[SYNC_MAX_FDS], nfds = 0, r;

      r = sync_recv (ctx->sock, &msg, fds, &nfds);
      if (r < 0)
        return agentrt_error (err, r == -EPIPE ? 0 : -r, "the exec'd process "
                              "exited during setup");
      if (msg.type == SYNC_READY)
        return 0;
      if (msg.type == SYNC_ERROR)
        {
          msg.error.msg[sizeof msg.error.msg - 1] = '\0';
          return agentrt_error_verbatim (err, msg.error.status, msg.error.msg);
        }
      if (msg.type == SYNC_PTY_MASTER && nfds == 1)
        {
          if (ctx->opts->console_socket == NULL)
            ctx->pty_master = fds[0];
          else if (send_console (ctx->opts->console_socket, fds[0], err) < 0)
            return -1;
          continue;
        }
      if (msg.type == SYNC_SECCOMP_FD && nfds == 1)
        {
          struct seccomp_listener_state st = {
            .oci_version = "1.2.0", .id = ctx->c->dir.id, .status = "running",
            .pid = ctx->pid, .bundle = ctx->c->state->bundle,
            .annotations = &ctx->c->state->annotations,
          };
          r = seccomp_listener_send (ctx->config->linux_cfg->seccomp, fds[0],
                                     &st, err);
          close (fds[0]);
          if (r < 0 || sync_send_simple (ctx->sock, SYNC_SECCOMP_DONE, 0) < 0)
            return r < 0 ? -1 : agentrt_error (err, errno, "sync");
          continue;
        }
      return agentrt_error (err, EPROTO, "sync: unexpected message %u",
                            msg.type);
    }
}

/* The same hardening as the container's own process, exactly as create
 * decided it (the record in the state directory, not the policy file as
 * it is now): env scrubbing with the container's env.keep, proxy
 * variables, capabilities, no_new_privs, and the agent seccomp program
 * compiled at create; recorded in the audit trail. */
static int
harden_exec (struct exec_ctx *ctx, agentrt_error_t *err)
{
  const struct container_state *st = ctx->c->state;
  struct change_list changes = { 0 };
  struct hardening_record rec;
  cleanup_free char *json = NULL;
  size_t len = 0;
  int fd, r = -1;

  json = state_dir_read (&ctx->c->dir, HARDENING_RECORD_FILE, &len, err);
  if (json == NULL)
    return agentrt_error_wrap (err, "the container's hardening record");
  if (hardening_record_parse (json, len, &rec, err) < 0)
    return -1;
  harden_process (ctx->process, &rec.policy, &rec.directives, &changes);
  if (rec.program)
    ctx->agent_seccomp = seccomp_program_new (
        (const struct sock_filter *) rec.program,
        rec.program_len / sizeof (struct sock_filter), rec.program_flags);
  fd = audit_open (rec.directives.audit_dir, st->id, err);
  if (fd >= 0)
    {
      /* like create: an exec whose trail cannot be written does not run */
      r = audit_exec (fd, st->id, ctx->process->args.items[0], &changes, err);
      close (fd);
    }
  change_list_release (&changes);
  hardening_record_release (&rec);
  return r;
}

/* A container whose user namespace denies setgroups(2) (a runtime that
 * is not root wrote its gid map itself): the process keeps its groups,
 * and asking for others is an error naming the field. */
static int
set_may_setgroups (struct exec_ctx *ctx, agentrt_error_t *err)
{
  bool denied = false;

  if (oci_config_namespace (ctx->config, OCI_NS_USER) == NULL)
    return 0;
  if (userns_setgroups_denied (ctx->c->state->pid, &denied, err) < 0)
    return -1;
  ctx->spec.may_setgroups = !denied;
  if (denied && ctx->spec.n_groups > 0)
    return agentrt_error (err, EPERM, "process.user.additionalGids: the "
                          "container's user namespace denies setgroups(2) "
                          "(its gids were mapped without newgidmap)");
  return 0;
}

static int
prepare (const struct runtime_context *rt, struct exec_ctx *ctx,
         agentrt_error_t *err)
{
  const struct exec_options *o = ctx->opts;
  enum container_status status = container_status (ctx->c);
  cleanup_close int rootfd = -1;

  if (status == STATUS_STOPPED)
    return agentrt_error (err, 0, "cannot exec in a stopped container");
  if (status == STATUS_PAUSED && !o->ignore_paused)
    return agentrt_error (err, 0, "cannot exec in a paused container "
                          "(use --ignore-paused to override)");
  ctx->child.join_late = status == STATUS_PAUSED;
  ctx->config = container_config (ctx->c, err);
  if (ctx->config == NULL)
    return -1;
  ctx->process = exec_process_build (o, ctx->config->process, err);
  if (ctx->process == NULL)
    return -1;
  if (ctx->c->state->hardened && harden_exec (ctx, err) < 0)
    return -1;
  if (ctx->process->terminal && o->console_socket == NULL && o->detach)
    return agentrt_error (err, 0, "exec --tty --detach needs "
                          "--console-socket");
  rootfd = open (ctx->c->state->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (process_spec_build (ctx->process, rootfd, NULL, &ctx->spec, err) < 0
      || mempolicy_build (ctx->config->linux_cfg
                              ? ctx->config->linux_cfg->memory_policy
                              : NULL,
                          &ctx->spec.mempolicy, err) < 0)
    return -1;
  ctx->spec.preserve_fds = o->preserve_fds;
  if (set_may_setgroups (ctx, err) < 0)
    return -1;
  if (ctx->config->linux_cfg && ctx->config->linux_cfg->seccomp)
    {
      /* the program create compiled, from the cache */
      cleanup_free char *cache = seccomp_cache_dir (rt->root);
      ctx->seccomp = seccomp_compile_cached (ctx->config->linux_cfg->seccomp,
                                             "linux.seccomp", cache, NULL,
                                             NULL, err);
      if (ctx->seccomp == NULL)
        return -1;
    }
  /* agentrt's profile first, the bundle's last, as at create */
  if (ctx->agent_seccomp)
    ctx->seccomp_list[ctx->child.stage.n_seccomp++] = ctx->agent_seccomp;
  if (ctx->seccomp)
    ctx->seccomp_list[ctx->child.stage.n_seccomp++] = ctx->seccomp;
  ctx->child.stage.process = &ctx->spec;
  ctx->child.stage.seccomp = ctx->seccomp_list;
  ctx->child.stage.terminal = ctx->process->terminal;
  ctx->child.stage.console_rows = (unsigned short) ctx->process->console_height;
  ctx->child.stage.console_cols = (unsigned short) ctx->process->console_width;
  ctx->child.procfd = -1;
  ctx->child.stage.stub_fd = exec_stub_memfd (err);
  if (ctx->child.stage.stub_fd < 0)
    return -1;
  ctx->child.stage.stub_required = ctx->c->state->hardened;
  ctx->child.stage.chown_stdio_files = !ctx->c->state->hardened;
  /* a process CAP_SYS_PTRACE could reach before its exec: see
   * cloned_binary.h */
  if (cloned_binary_needed (ctx->process->capabilities)
      && cloned_binary_ensure (rt->argv, err) < 0)
    return -1;
  return ns_plan_join_process (ctx->c->state->pid, &ctx->ns, err);
}

/* The container's cgroup; on a pure cgroup v2 host without systemd the
 * process is then cloned straight into it (*born). */
static struct cgroup *
open_container_cgroup (struct exec_ctx *ctx, bool *born, agentrt_error_t *err)
{
  const struct container_state *st = ctx->c->state;
  const struct cgroup_layout *layout;

  *born = false;
  if (st->cgroup_path == NULL || st->cgroup_pending)
    return NULL;
  layout = cgroup_layout_host (err);
  if (layout == NULL)
    return NULL;
  *born = !ctx->child.join_late
          && cgroup_clone_into_possible (layout, st->systemd_unit != NULL);
  return cgroup_open (layout, st->cgroup_path, st->systemd_unit,
                      st->cgroup_owned, err);
}

/* Puts the process in the container's cgroup (CG NULL: it was cloned into
 * it, or there is none) and tells it so. */
static int
join_cgroup (struct exec_ctx *ctx, struct cgroup *cg, agentrt_error_t *err)
{
  if (cg && cgroup_add_pid (cg, ctx->pid, err) < 0)
    return -1;
  if (sync_send_simple (ctx->sock, SYNC_CGROUP_DONE, 0) < 0)
    return agentrt_error (err, errno, "sync: the exec'd process exited");
  return 0;
}

static int
spawn_and_setup (struct exec_ctx *ctx, agentrt_error_t *err)
{
  bool born = false;
  struct spawn_request sr = { .ns = &ctx->ns,
                              .cgroup_fd = -1,
                              .born_in_cgroup = &born,
                              .pre_join_fn = exec_pre_join,
                              .init_fn = exec_child_main,
                              .arg = &ctx->child };
  struct cgroup *cg;
  int pair[2], r = 0;
  int parent_only[1] = { ctx->c->dir.dirfd };

  cg = open_container_cgroup (ctx, &born, err);
  if (cg == NULL && *err)
    return -1;
  if (born && (sr.cgroup_fd = cgroup_unified_fd (cg, err)) < 0)
    {
      cgroup_free (cg);
      return -1;
    }
  sr.close_in_child = parent_only;
  sr.n_close_in_child = 1;
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
    {
      cgroup_free (cg);
      return agentrt_error (err, errno, "socketpair");
    }
  ctx->sock = sr.parent_sock = pair[0];
  ctx->child.stage.sync_sock = sr.child_sock = pair[1];
  if (oci_config_namespace (ctx->config, OCI_NS_USER))
    userns_give_stdio (ctx->config->linux_cfg, ctx->process->user.uid,
                       ctx->process->user.gid);
  ctx->pid = spawn_init (&sr, err);
  close (pair[1]);
  if (ctx->pid < 0)
    r = -1;
  else if (ctx->child.join_late)
    r = serve_child (ctx, err) < 0 ? -1 : join_cgroup (ctx, cg, err);
  else if ((r = join_cgroup (ctx, born ? NULL : cg, err)) == 0)
    r = serve_child (ctx, err);
  cgroup_free (cg);
  if (r < 0)
    return -1;
  return ctx->opts->pid_file
             ? container_write_pid_file (ctx->opts->pid_file, ctx->pid, err)
             : 0;
}

static void
exec_ctx_release (struct exec_ctx *ctx)
{
  ns_plan_close (&ctx->ns);
  process_spec_free (&ctx->spec);
  oci_process_free (ctx->process);
  oci_config_free (ctx->config);
  seccomp_program_free (ctx->seccomp);
  seccomp_program_free (ctx->agent_seccomp);
  if (ctx->child.stage.stub_fd >= 0)
    close (ctx->child.stage.stub_fd);
  if (ctx->sock >= 0)
    close (ctx->sock);
}

int
container_exec (const struct runtime_context *rt, const struct exec_options *o,
                agentrt_error_t *err)
{
  struct container c;
  struct exec_ctx ctx = { .opts = o, .c = &c, .sock = -1, .pty_master = -1,
                          .child = { .stage = { .stub_fd = -1 } } };
  sigset_t all;
  int r;

  if (container_load (rt, o->id, &c, err) < 0)
    return -1;
  if (c.state == NULL)
    {
      container_release (&c);
      return agentrt_error (err, ENOENT, "container `%s` does not exist", o->id);
    }
  /* Signals wait in a signalfd from before the process exists. */
  sigfillset (&all);
  sigprocmask (SIG_BLOCK, &all, NULL);
  /* The new process is in the container's pid namespace from clone to
   * execve, with the container's credentials once they are applied: the
   * container must not reach its memory or its /proc/PID/exe, which is
   * this binary on the host (CVE-2019-5736). */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    r = agentrt_error (err, errno, "prctl PR_SET_DUMPABLE");
  else
    r = prepare (rt, &ctx, err) < 0 ? -1 : spawn_and_setup (&ctx, err);
  if (r < 0 && ctx.pid > 0)
    {
      kill (ctx.pid, SIGKILL);
      waitpid (ctx.pid, NULL, 0);
    }
  exec_ctx_release (&ctx);
  container_release (&c); /* the lock is not held while the process runs */
  if (r < 0)
    {
      if (ctx.pty_master >= 0)
        close (ctx.pty_master);
      return -1;
    }
  if (o->detach)
    return 0;
  return supervise_process (ctx.pid, NULL, ctx.pty_master, err);
}
