/* `create`: from a bundle to an init waiting for `start`.  Every resource is
 * recorded in state.json as soon as it exists, so that a create killed at
 * any point can be finished off by `delete --force`; a create that fails
 * removes everything itself (struct rollback). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/hardening_record.h"
#include "runtime/audit.h"
#include "runtime/cgroup.h"
#include "runtime/cloned_binary.h"
#include "runtime/container.h"
#include "runtime/create_plan.h"
#include "runtime/fault.h"
#include "runtime/hardening.h"
#include "runtime/hooks.h"
#include "runtime/log.h"
#include "runtime/monitor.h"
#include "runtime/path_resolve.h"
#include "runtime/shared_netns.h"
#include "runtime/proc_util.h"
#include "runtime/seccomp_cache.h"
#include "runtime/seccomp_notify.h"
#include "runtime/spawn.h"
#include "runtime/sync.h"

#define OCI_VERSION "1.2.0"

/* Everything a failed create must undo, in reverse order of creation. */
struct rollback
{
  struct state_dir dir;
  bool have_dir;
  pid_t pid;
  struct cgroup *cgroup;
  struct monitor_pids monitor;
  struct monitor *local_monitor;
};

static void
rollback_run (struct rollback *rb)
{
  cleanup_error agentrt_error_t ignored = NULL;
  monitor_local_free (rb->local_monitor);
  if (rb->monitor.sidecar > 0)
    kill (rb->monitor.sidecar, SIGKILL);
  if (rb->monitor.monitor > 0)
    {
      kill (rb->monitor.monitor, SIGKILL);
      waitpid (rb->monitor.monitor, NULL, 0);
    }
  if (rb->pid > 0)
    {
      kill (rb->pid, SIGKILL);
      while (waitpid (rb->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    }
  if (rb->cgroup)
    {
      cgroup_kill_all (rb->cgroup, SIGKILL, &ignored);
      agentrt_error_release (&ignored);
      if (cgroup_destroy (rb->cgroup, &ignored) < 0)
        log_warning ("%s", ignored->msg);
      cgroup_free (rb->cgroup);
    }
  if (rb->have_dir && state_dir_remove (&rb->dir, &ignored) < 0)
    log_warning ("%s", ignored->msg);
}

char *
container_timestamp (void)
{
  struct timespec ts;
  struct tm tm;
  clock_gettime (CLOCK_REALTIME, &ts);
  gmtime_r (&ts.tv_sec, &tm);
  return xasprintf ("%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900,
                    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                    tm.tm_sec, ts.tv_nsec);
}

int
container_send_console (const char *path, int master, agentrt_error_t *err)
{
  static const char name[] = "/dev/ptmx";
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } control;
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  struct iovec iov = { .iov_base = (void *) name, .iov_len = sizeof name - 1 };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
                       .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf };
  struct cmsghdr *c;
  cleanup_close int sock = -1;

  if (strlen (path) >= sizeof addr.sun_path)
    return agentrt_error (err, ENAMETOOLONG, "--console-socket `%s`", path);
  strcpy (addr.sun_path, path);
  sock = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0 || connect (sock, (struct sockaddr *) &addr, sizeof addr) < 0)
    return agentrt_error (err, errno, "--console-socket: connect to `%s`", path);
  memset (&control, 0, sizeof control);
  c = CMSG_FIRSTHDR (&mh);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &master, sizeof master);
  if (sendmsg (sock, &mh, MSG_NOSIGNAL) < 0)
    return agentrt_error (err, errno, "--console-socket: send the terminal "
                          "to `%s`", path);
  return 0;
}

int
container_write_pid_file (const char *path, pid_t pid, agentrt_error_t *err)
{
  cleanup_free char *tmp = xasprintf ("%s.agentrt-tmp", path);
  cleanup_free char *text = xasprintf ("%d", pid);
  cleanup_close int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                               0644);
  size_t len = strlen (text);

  if (fd < 0 || write (fd, text, len) != (ssize_t) len
      || close (steal_fd (&fd)) < 0 || rename (tmp, path) < 0)
    {
      int e = errno;
      unlink (tmp);
      return agentrt_error (err, e, "--pid-file `%s`", path);
    }
  return 0;
}

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

struct create_ctx
{
  const struct global_options *g;
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
  int egress_fds[3]; /* http and socks listeners, outside netns (or -1) */
  struct monitor_handle monitor; /* hardened: forked before the init */
  int agent_netns_fd; /* the agent's namespace the monitor made (or -1) */
  int born_cgroup_fd; /* pure cgroup v2: the cgroup the init is cloned
                         into (-1: moved there after the clone) */
  bool born;          /* the kernel did clone it there */
  int pty_master;
};

static int
save (struct create_ctx *ctx, agentrt_error_t *err)
{
  return state_dir_save (&ctx->rb.dir, &ctx->state, err);
}

static void
cgroup_request_init (struct create_ctx *ctx)
{
  const struct oci_linux *l = ctx->config->linux_cfg;
  struct cgroup_request *req = &ctx->cgroup;
  memset (req, 0, sizeof *req);
  req->id = ctx->req->id;
  req->cgroups_path = l->cgroups_path;
  req->resources = l->resources;
  req->devices = l->devices;
  req->n_devices = l->n_devices;
  req->systemd = ctx->g->systemd_cgroup;
}

/* A step that failed while the init sets itself up: the init may have
 * failed on its own meanwhile, and then that is the reason.  Returns -1. */
static int
prefer_init_reason (struct create_ctx *ctx, agentrt_error_t *err)
{
  struct sync_msg msg;
  if (ctx->sock >= 0 && sync_recv_nowait (ctx->sock, &msg) == 0
      && msg.type == SYNC_ERROR)
    {
      msg.error.msg[sizeof msg.error.msg - 1] = '\0';
      agentrt_error_release (err);
      agentrt_error_verbatim (err, msg.error.status, msg.error.msg);
    }
  return -1;
}

/* Makes the container's cgroup and moves PID into it (0: nobody yet). */
static int
enter_cgroup (struct create_ctx *ctx, pid_t pid, agentrt_error_t *err)
{
  struct cgroup_result result = { 0 };
  size_t i;

  ctx->cgroup.pid = pid;
  if (cgroup_enter (&ctx->cgroup, &result, err) < 0)
    return prefer_init_reason (ctx, err);
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
  return save (ctx, err);
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

/* SYNC_NETNS: the outside namespace alone (the monitor has the
 * listeners), the listeners alone (the outside is the runtime's own), or
 * the listeners and the outside. */
static int
take_egress_fds (struct create_ctx *ctx, const int *fds, int nfds,
                 agentrt_error_t *err)
{
  bool monitor_has_listeners = ctx->plan.init.netns_by_monitor;
  if (nfds == 1 && monitor_has_listeners)
    ctx->egress_fds[2] = fds[0];
  else if ((nfds == 2 || nfds == 3) && !monitor_has_listeners)
    memcpy (ctx->egress_fds, fds, sizeof (int) * (size_t) nfds);
  else
    return agentrt_error (err, EPROTO, "sync: no egress listeners received");
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
          r = take_egress_fds (ctx, fds, nfds, err);
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

static int
prepare_state (struct create_ctx *ctx, const char *bundle, agentrt_error_t *err)
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
  if (cgroup_plan (&ctx->cgroup, &st->cgroup_path, &st->systemd_unit, err) < 0)
    return -1;
  st->cgroup_pending = true;
  /* Later commands use the config as it was applied, not the bundle's. */
  json = oci_config_to_json (ctx->config, false, err);
  if (json == NULL || state_dir_write (&ctx->rb.dir, CONFIG_FILE, json,
                                       strlen (json), err) < 0)
    return -1;
  if (ctx->hardening.enforced && save_hardening (ctx, err) < 0)
    return -1;
  return save (ctx, err);
}

static int
make_exec_fifo (struct create_ctx *ctx, agentrt_error_t *err)
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

static int
spawn (struct create_ctx *ctx, agentrt_error_t *err)
{
  const struct oci_linux *l = ctx->config->linux_cfg;
  int pair[2];
  struct spawn_request sr = {
    .ns = &ctx->plan.ns,
    .uid_map = l->uid_mappings,
    .n_uid_map = l->n_uid_mappings,
    .gid_map = l->gid_mappings,
    .n_gid_map = l->n_gid_mappings,
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
  pid = spawn_init (&sr, err);
  close (pair[1]);
  ctx->plan.init.stage.sync_sock = -1;
  if (pid < 0)
    return -1;
  ctx->rb.pid = pid;
  ctx->state.pid = pid;
  if (proc_stat_read (pid, &ctx->state.pid_start, NULL) < 0)
    return agentrt_error (err, ESRCH, "the container init exited");
  return save (ctx, err);
}

/* What the monitor does for the agent's network namespace (see enum
 * monitor_netns): nothing when the container has a user namespace, which
 * must own it (only the init can make it then). */
static enum monitor_netns
monitor_netns_work (const struct create_ctx *ctx)
{
  const struct ns_plan *ns = &ctx->plan.ns;
  if (!ctx->hardening.enforced || (ns->new_flags & CLONE_NEWUSER)
      || ns->join_fds[OCI_NS_USER] >= 0)
    return MONITOR_NETNS_NONE;
  switch (ctx->plan.init.agent_netns)
    {
    case AGENT_NETNS_INNER: /* run's own monitor would make it serially */
      return ctx->req->local_monitor ? MONITOR_NETNS_NONE : MONITOR_NETNS_MAKE;
    case AGENT_NETNS_LO_UP:
      return MONITOR_NETNS_INIT;
    default:
      return MONITOR_NETNS_NONE;
    }
}

/* After the init exists and sits in its cgroup: the hook state documents,
 * then the init's requests until it is ready. */
static int
finish_setup (struct create_ctx *ctx, agentrt_error_t *err)
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
  if (ctx->plan.init.netns_by_monitor
      && ctx->plan.init.agent_netns == AGENT_NETNS_INNER
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
    return prefer_init_reason (ctx, err);
  return serve_init (ctx, err);
}

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

static bool
born_in_cgroup_possible (struct create_ctx *ctx)
{
  cleanup_error agentrt_error_t ignored = NULL;
  const struct cgroup_layout *layout = cgroup_layout_host (&ignored);
  return layout && cgroup_clone_into_possible (layout, ctx->g->systemd_cgroup);
}

/* What the hardening decided beyond the OCI config, for the init. */
static void
apply_directives (struct create_ctx *ctx, struct create_plan_options *po)
{
  const struct harden_directives *d = &ctx->hardening.result.directives;
  struct container_state *st = &ctx->state;

  if (!ctx->hardening.enforced)
    {
      /* like runc and crun: a network namespace of the container's own
       * has lo up; one it joins is left as it is */
      const struct oci_namespace *ns
          = oci_config_namespace (ctx->config, OCI_NS_NETWORK);
      if (ns && (ns->path == NULL || ns->path[0] == '\0'))
        po->agent_netns = AGENT_NETNS_OWN;
      return;
    }
  po->extra_seccomp = ctx->hardening.agent_seccomp;
  po->hardened = true;
  po->judged = &ctx->hardening.view;
  po->required_masks = &d->required_masks;
  po->protected_paths = &d->protected_paths;
  po->protected_dirs = &d->protected_dirs;
  if (d->rootfs == HARDEN_ROOTFS_EPHEMERAL)
    po->ephemeral_size = d->ephemeral_size;
  switch (d->netns)
    {
    case HARDEN_NETNS_BUNDLE:
      po->agent_netns = AGENT_NETNS_INNER;
      break;
    case HARDEN_NETNS_ADDED:
    case HARDEN_NETNS_FRESH:
      po->agent_netns = AGENT_NETNS_LO_UP;
      break;
    case HARDEN_NETNS_SHARED: /* already an agent namespace: join it as is */
      po->agent_netns = AGENT_NETNS_AS_IS;
      break;
    }
  /* a shared namespace is served by its owner's proxy */
  po->egress_listeners = d->egress == HARDEN_EGRESS_PROXY
                         && d->netns != HARDEN_NETNS_SHARED;
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

/* The resolv.conf or hosts file the engine gave the container (a bind mount
 * on that path), else the image's; -1 for the host's own. */
static int
open_name_file (struct create_ctx *ctx, const char *path)
{
  size_t i;
  for (i = 0; i < ctx->config->n_mounts; i++)
    {
      const struct oci_mount *m = &ctx->config->mounts[i];
      if (strcmp (m->destination, path) == 0 && m->source && m->source[0] == '/')
        return open (m->source, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    }
  if (ctx->hardening.result.directives.netns != HARDEN_NETNS_BUNDLE)
    return -1; /* the outside is the host's network: its own files */
  return path_open_in_root (ctx->plan.rootfd, path, O_RDONLY | O_NONBLOCK);
}

/* Hardened: the monitor starts just before the init is cloned, so that
 * its own start (and the agent's network namespace) overlaps the init's
 * and the cgroup move; it watches the init only once committed.  It is a
 * forked process, or `run` in the foreground itself. */
static int
start_monitor (struct create_ctx *ctx, agentrt_error_t *err)
{
  const struct harden_directives *d = &ctx->hardening.result.directives;
  struct monitor_egress egress = {
    .allow = d->egress_allow ? d->egress_allow : "",
    .allow_broad = d->egress_allow_broad,
    .uid = d->sidecar_uid,
    .gid = d->sidecar_gid,
    .busy_poll_us = d->sidecar_busy_poll_us,
  };
  struct monitor_request req = {
    .id = ctx->req->id,
    .root = ctx->g->root,
    .audit_fd = ctx->audit_fd,
    .lifetime = d->lifetime,
    .cgroup_path = ctx->state.cgroup_path,
    .systemd_unit = ctx->state.systemd_unit,
    .egress = ctx->plan.init.egress_listeners ? &egress : NULL,
    .netns = monitor_netns_work (ctx),
  };

  ctx->plan.init.netns_by_monitor = req.netns != MONITOR_NETNS_NONE;
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

/* `run`'s own monitor: recorded as the monitor, with its sidecar. */
static int
commit_local_monitor (struct create_ctx *ctx, const struct monitor_commit *c,
                      agentrt_error_t *err)
{
  struct monitor_pids *pids = &ctx->rb.monitor;

  if (monitor_local_commit (ctx->rb.local_monitor, c, err) < 0)
    return -1;
  pids->monitor = getpid ();
  proc_stat_read (pids->monitor, &pids->monitor_start, NULL);
  pids->sidecar = monitor_local_sidecar (ctx->rb.local_monitor);
  if (pids->sidecar > 0)
    proc_stat_read (pids->sidecar, &pids->sidecar_start, NULL);
  ctx->state.monitor_is_run = true;
  return 0;
}

/* The init is ready: the monitor starts watching it, and the sidecar. */
static int
commit_monitor (struct create_ctx *ctx, agentrt_error_t *err)
{
  bool egress = ctx->plan.init.egress_listeners;
  struct monitor_commit c = {
    .http_fd = ctx->egress_fds[0],
    .socks_fd = ctx->egress_fds[1],
    .netns_fd = ctx->egress_fds[2],
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
  ctx->state.sidecar_pid = ctx->rb.monitor.sidecar;
  ctx->state.sidecar_start = ctx->rb.monitor.sidecar_start;
  return save (ctx, err);
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

static int
create_in (struct create_ctx *ctx, const char *bundle, agentrt_error_t *err)
{
  char listen_env[2][32];
  char *extra_env[3] = { listen_env[0], listen_env[1], NULL };
  int n_listen = listen_fds (extra_env);
  cleanup_free char *seccomp_cache = seccomp_cache_dir (ctx->g->root);
  struct create_plan_options po = {
    .bundle = bundle,
    .no_pivot = ctx->req->no_pivot,
    .no_new_keyring = ctx->req->no_new_keyring,
    .preserve_fds = ctx->req->preserve_fds + n_listen,
    .extra_env = n_listen ? extra_env : NULL,
    .cgroup = &ctx->cgroup,
    .keyring_name = ctx->req->id,
    .seccomp_cache = seccomp_cache,
  };

  cgroup_request_init (ctx);
  apply_directives (ctx, &po);
  if (create_plan_build (ctx->config, &po, &ctx->plan, err) < 0)
    return -1;
  if (state_dir_create (ctx->g->root, ctx->req->id, &ctx->rb.dir, err) < 0)
    return -1;
  ctx->rb.have_dir = true;
  fault_point ("create:state-dir");
  if (open_audit (ctx, err) < 0 || prepare_state (ctx, bundle, err) < 0)
    return -1;
  fault_point ("create:state-saved");
  /* On a pure cgroup v2 host (cgroupfs driver) the init is cloned straight
   * into its cgroup (no migration, no RCU grace period to wait for). */
  if (born_in_cgroup_possible (ctx))
    {
      if (enter_cgroup (ctx, 0, err) < 0
          || (ctx->born_cgroup_fd = cgroup_unified_fd (ctx->rb.cgroup, err)) < 0)
        return -1;
    }
  if (ctx->hardening.enforced && start_monitor (ctx, err) < 0)
    return -1;
  if (make_exec_fifo (ctx, err) < 0 || spawn (ctx, err) < 0)
    return -1;
  fault_point ("create:spawned");
  if (ctx->born_cgroup_fd < 0 && enter_cgroup (ctx, ctx->state.pid, err) < 0)
    return -1;
  if (ctx->born_cgroup_fd >= 0 && !ctx->born
      && cgroup_add_pid (ctx->rb.cgroup, ctx->state.pid, err) < 0)
    return -1;
  fault_point ("create:cgroup");
  if (ctx->hardening.enforced && !ctx->rb.local_monitor
      && monitor_cgroup_ready (&ctx->monitor, ctx->state.pid,
                               ctx->state.pid_start, ctx->state.cgroup_owned,
                               err) < 0)
    return prefer_init_reason (ctx, err);
  if (finish_setup (ctx, err) < 0)
    return -1;
  fault_point ("create:init-ready");
  if (ctx->hardening.enforced)
    ctx->state.agent_netns = shared_netns_id (ctx->state.pid);
  if (ctx->hardening.enforced && commit_monitor (ctx, err) < 0)
    return -1;
  fault_point ("create:monitor");
  if (ctx->req->pid_file
      && container_write_pid_file (ctx->req->pid_file, ctx->state.pid, err) < 0)
    return -1;
  fault_point ("create:done");
  return 0;
}

int
container_create (const struct global_options *g,
                  const struct create_request *req, struct create_outcome *out,
                  agentrt_error_t *err)
{
  cleanup_free char *bundle = realpath (req->bundle ? req->bundle : ".", NULL);
  cleanup_free char *config_path = NULL;
  struct create_ctx ctx;
  int r;

  memset (&ctx, 0, sizeof ctx);
  ctx.g = g;
  ctx.req = req;
  ctx.sock = ctx.pty_master = ctx.audit_fd = ctx.born_cgroup_fd = -1;
  ctx.hook_state[0] = ctx.hook_state[1] = -1;
  ctx.egress_fds[0] = ctx.egress_fds[1] = ctx.egress_fds[2] = -1;
  ctx.monitor.sock = ctx.agent_netns_fd = -1;
  if (bundle == NULL)
    return agentrt_error (err, errno, "--bundle `%s`",
                          req->bundle ? req->bundle : ".");
  config_path = xasprintf ("%s/config.json", bundle);
  ctx.config = oci_config_parse_file (config_path, err);
  if (ctx.config == NULL)
    return -1;
  if (hardening_apply (g, ctx.config, bundle, true, &ctx.hardening, err) < 0
      || (cloned_binary_needed (ctx.config->process
                                    ? ctx.config->process->capabilities
                                    : NULL)
          && cloned_binary_ensure (cli_saved_argv (), err) < 0))
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
      rollback_run (&ctx.rb);
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
  for (int i = 0; i < 3; i++)
    if (ctx.egress_fds[i] >= 0)
      close (ctx.egress_fds[i]);
  if (ctx.monitor.sock >= 0)
    close (ctx.monitor.sock);
  if (ctx.agent_netns_fd >= 0)
    close (ctx.agent_netns_fd);
  if (ctx.audit_fd >= 0)
    close (ctx.audit_fd);
  create_plan_free (&ctx.plan);
  hardening_release (&ctx.hardening);
  oci_config_free (ctx.config);
  container_state_clear (&ctx.state);
  return r;
}
