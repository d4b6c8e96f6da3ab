/* The container's init from its namespaces to execve (see init.h).  Each
 * step reports failure through cerr; the spawn code sends it to the
 * runtime, which rolls everything back. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/init.h"
#include "runtime/netns.h"
#include "runtime/netns_rules.h"
#include "runtime/path_resolve.h"
#include "runtime/sync.h"


/* /proc writes (sysctl, LSM labels, the exec fifo) go through a procfs
 * instance of the init's own, mounted nowhere, so that a bundle mounting
 * something over /proc cannot redirect them (CVE-2019-16884,
 * CVE-2025-52881). */

static int
set_names (const struct init_plan *plan, struct child_error *cerr)
{
  if (plan->hostname && sethostname (plan->hostname, strlen (plan->hostname)) < 0)
    return child_error (cerr, errno, "sethostname `%s`", plan->hostname);
  if (plan->domainname
      && setdomainname (plan->domainname, strlen (plan->domainname)) < 0)
    return child_error (cerr, errno, "setdomainname `%s`", plan->domainname);
  return 0;
}

static int
write_sysctls (const struct init_plan *plan, int procfd,
               struct child_error *cerr)
{
  char path[512];
  size_t i;
  for (i = 0; i < plan->n_sysctls; i++)
    {
      const struct sysctl_entry *s = &plan->sysctls[i];
      size_t len = strlen (s->value);
      ssize_t n;
      int fd;

      snprintf (path, sizeof path, "sys/%s", s->path);
      fd = openat (procfd, path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0)
        return child_error (cerr, errno, "linux.sysctl: `%s`", s->key);
      n = write (fd, s->value, len);
      close (fd);
      if (n != (ssize_t) len)
        return child_error (cerr, n < 0 ? errno : EIO,
                            "linux.sysctl: write `%s` = `%s`", s->key, s->value);
    }
  return 0;
}

/* The init's end of the runtime's prestart/createRuntime hooks. */
static int
await_runtime_hooks (const struct init_plan *plan, struct child_error *cerr)
{
  struct sync_msg msg;
  if (sync_send_simple (plan->stage.sync_sock, SYNC_RUN_HOOKS, 0) < 0)
    return child_error (cerr, errno, "sync: request hooks");
  return sync_expect (plan->stage.sync_sock, SYNC_HOOKS_DONE, &msg, NULL, NULL, cerr);
}

/* Once the hooks ran: the agent's network namespace, when the init is its
 * maker (net_plan), gets lo up (INNER: it is made first) and the sidecar's
 * sockets bound in it; with the monitor as the maker, an INNER namespace
 * it made is joined; with the transparent path the init installs its
 * routes and rules too (nothing allocates: netns_rules.h).  The runtime
 * then gets what the plan says it needs: the sockets the init bound
 * (flags: which) and the bundle's namespace when that is the sidecar's
 * outside. */
static int
setup_agent_netns (const struct init_plan *plan, int procfd,
                   struct child_error *cerr)
{
  const struct net_plan *net = &plan->net;
  struct sync_msg msg;
  bool inner = net->agent == NET_AGENT_INNER;
  bool by_init = net->maker == NET_MAKER_INIT;
  int socks[EGRESS_SOCKETS], fds[EGRESS_SOCKETS + 2], n = 0, outside = -1;
  uint32_t mask = 0;
  int r = -1, i;

  if (net->agent == NET_AGENT_AS_BUNDLE || net->agent == NET_AGENT_SHARED
      || (!inner && !by_init))
    return 0;
  if (net->outside == NET_OUTSIDE_BUNDLE)
    {
      outside = openat (procfd, "thread-self/ns/net", O_RDONLY | O_CLOEXEC);
      if (outside < 0)
        return child_error (cerr, errno, "open the bundle's network "
                            "namespace");
    }
  if (!by_init)
    {
      if (setns (plan->agent_netns_fd, CLONE_NEWNET) < 0)
        {
          child_error (cerr, errno, "join the agent's network namespace");
          goto out;
        }
    }
  else
    {
      if (inner && unshare (CLONE_NEWNET) < 0)
        {
          child_error (cerr, errno, "create the agent's network namespace");
          goto out;
        }
      if (netns_loopback_up (cerr) < 0)
        goto out;
      if (net->listeners)
        {
          if (netns_egress_sockets (net->transparent, socks, cerr) < 0)
            goto out;
          for (i = 0; i < EGRESS_SOCKETS; i++)
            if (socks[i] >= 0)
              {
                mask |= 1u << i;
                fds[n++] = socks[i];
              }
        }
      if (net->rules == NET_RULES_INIT && netns_rules_install (cerr) < 0)
        goto out;
    }
  r = 0;
  if (n == 0 && outside < 0)
    goto out;
  if (outside >= 0)
    {
      fds[n++] = outside;
      outside = -1;
    }
  memset (&msg, 0, sizeof msg);
  msg.type = SYNC_NETNS;
  msg.flags = mask;
  if (sync_send (plan->stage.sync_sock, &msg, fds, n) < 0)
    r = child_error (cerr, errno, "sync: hand over the egress sockets");
out:
  if (outside >= 0)
    close (outside);
  for (i = 0; i < n; i++)
    if (fds[i] >= 0)
      close (fds[i]);
  return r;
}

/* The runtime moves the init into its cgroup while the init builds its
 * filesystem view (moving a process into a v1 cgroup waits for an RCU
 * grace period, milliseconds that overlap with the mounts this way).  The
 * init must be in place before it creates its cgroup namespace, mounts
 * cgroups, or runs anything of the container's. */
static int
await_cgroup (void *arg, struct child_error *cerr)
{
  struct init_plan *plan = arg;
  struct sync_msg msg;
  int fds[SYNC_MAX_FDS], nfds = 0;

  if (plan->in_cgroup)
    return 0;
  if (sync_expect (plan->stage.sync_sock, SYNC_CGROUP_DONE, &msg, fds, &nfds,
                   cerr) < 0)
    return -1;
  plan->in_cgroup = true;
  plan->create_container_state = nfds > 0 ? fds[0] : -1;
  plan->start_container_state = nfds > 1 ? fds[1] : -1;
  plan->agent_netns_fd = nfds > 2 ? fds[2] : -1;
  if (plan->cgroup_ns && unshare (CLONE_NEWCGROUP) < 0)
    return child_error (cerr, errno, "create cgroup namespace");
  return 0;
}

/* A process.cwd the image lacks is made (0755, the init's owner), as runc
 * and crun do: after the mounts, so that it lands in the one covering it,
 * and before the root becomes read-only.  One that exists, or cannot be
 * looked at by root (only the user may enter it), is left to the chdir. */
static int
make_cwd (const struct init_plan *plan, int rootfd, struct child_error *cerr)
{
  const char *cwd = plan->process.cwd;
  int fd;

  if (cwd == NULL || cwd[0] == '\0')
    return 0;
  fd = path_open_in_root (rootfd, cwd, O_PATH);
  if (fd == -ENOENT)
    fd = path_ensure_in_root (rootfd, cwd, PATH_KIND_DIR);
  else if (fd < 0)
    return 0;
  if (fd < 0)
    return child_error (cerr, -fd, "process.cwd: create `%s`", cwd);
  close (fd);
  return 0;
}

static int
setup_filesystem (struct init_plan *plan, int *procfd,
                  struct child_error *cerr)
{
  int rootfd;

  if (rootfs_prepare (&plan->rootfs, &rootfd, cerr) < 0)
    return -1;
  *procfd = process_stage_private_proc (cerr);
  if (*procfd < 0 || rootfs_mount_all (&plan->rootfs, rootfd, false, cerr) < 0
      || await_cgroup (plan, cerr) < 0)
    goto fail;
  if (!plan->rootfs.mounts->dev_is_bind
      && devices_create (rootfd, &plan->devices, cerr) < 0)
    goto fail;
  if (plan->runtime_hooks && await_runtime_hooks (plan, cerr) < 0)
    goto fail;
  if (hook_set_run (&plan->create_container, plan->create_container_state,
                    cerr) < 0)
    goto fail;
  if (setup_agent_netns (plan, *procfd, cerr) < 0)
    goto fail;
  /* sysfs shows the network namespace of whoever mounts it: the agent's */
  if (rootfs_mount_all (&plan->rootfs, rootfd, true, cerr) < 0)
    goto fail;
  if (plan->agent_netns_fd >= 0)
    close (plan->agent_netns_fd);
  plan->agent_netns_fd = -1;
  if (make_cwd (plan, rootfd, cerr) < 0
      || rootfs_pivot (&plan->rootfs, rootfd, cerr) < 0)
    goto fail;
  close (rootfd);
  if (plan->stage.terminal && process_stage_terminal (&plan->stage, true, cerr) < 0)
    return -1;
  return rootfs_finalize (&plan->rootfs, cerr);
fail:
  close (rootfd);
  return -1;
}

/* Blocks until `agentrt start` opens the exec fifo for reading.  The write
 * end stays open (close-on-exec), so that `start` returns only once the
 * program really runs: signals sent right after it reach the program, not
 * this init, which as a namespace's pid 1 would drop them. */
static int
wait_for_start (const struct init_plan *plan, int procfd)
{
  char path[64];
  int fd;
  snprintf (path, sizeof path, "thread-self/fd/%d", plan->exec_fifo_fd);
  do
    fd = openat (procfd, path, O_WRONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return -1;
  if (write (fd, "0", 1) != 1)
    {
      close (fd);
      return -1;
    }
  close (plan->exec_fifo_fd);
  return 0;
}

static void __attribute__ ((noreturn))
report_and_exit (const struct child_error *cerr)
{
  char msg[CHILD_ERROR_MSG_MAX + 32];
  int n = snprintf (msg, sizeof msg, "agentrt: %s\n", cerr->msg);
  if (n > 0 && write (STDERR_FILENO, msg, (size_t) n) < 0)
    { /* nowhere left to report */ }
  _exit (127);
}

int
init_container (void *arg, struct child_error *cerr)
{
  struct init_plan *plan = arg;
  char exe[4096];
  int procfd = -1;

  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    return child_error (cerr, errno, "prctl PR_SET_DUMPABLE");
  plan->rootfs.before_cgroup_mount = await_cgroup;
  plan->rootfs.before_cgroup_arg = plan;
  if (set_names (plan, cerr) < 0)
    return -1;
  /* hardening off: lo up in a namespace of the container's own, before
   * any hook (as runc does) */
  if (plan->net.agent == NET_AGENT_AS_BUNDLE && plan->net.lo_up
      && netns_loopback_up (cerr) < 0)
    return -1;
  if (setup_filesystem (plan, &procfd, cerr) < 0)
    return -1;
  if (write_sysctls (plan, procfd, cerr) < 0
      || process_stage_prepare (&plan->stage, procfd, exe, sizeof exe, cerr) < 0)
    return -1;
  if (sync_send_simple (plan->stage.sync_sock, SYNC_READY, 0) < 0)
    return child_error (cerr, errno, "sync: ready");
  close (plan->stage.sync_sock);

  /* From here on no one listens on the sync socket: failures go to the
   * process's stderr, like runc's. */
  if (wait_for_start (plan, procfd) < 0)
    {
      child_error (cerr, errno, "wait for start");
      report_and_exit (cerr);
    }
  if (hook_set_run (&plan->start_container, plan->start_container_state, cerr) < 0)
    report_and_exit (cerr);
  process_stage_exec (&plan->stage, exe);
}
