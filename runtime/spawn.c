/* Cloning the init into its namespaces (see spawn.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/rootless.h"
#include "runtime/spawn.h"
#include "runtime/userns.h"
#include "runtime/sync.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPAWN_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SPAWN_ASAN 1
#endif
#ifdef SPAWN_ASAN
#include <sanitizer/common_interface_defs.h>
/* Sanitizer builds: the child's reports go to its stderr (the container's),
 * as a log_path file on the host is out of reach once it has joined the
 * container's mount namespace or pivoted. */
#define sanitizer_reports_to_stderr() __sanitizer_set_report_fd ((void *) 2)
#else
#define sanitizer_reports_to_stderr() ((void) 0)
#endif

/* fork semantics (shared nothing, same stack copy) with namespace flags,
 * born in cgroup_fd's cgroup when it is >= 0 and the kernel can (*born) */
static pid_t
raw_clone (unsigned long flags, int cgroup_fd, bool *born)
{
  struct clone_args args;
  pid_t pid;

  if (cgroup_fd >= 0)
    {
      memset (&args, 0, sizeof args);
      args.flags = flags | CLONE_INTO_CGROUP;
      args.exit_signal = SIGCHLD;
      args.cgroup = (uint64_t) cgroup_fd;
      pid = (pid_t) syscall (SYS_clone3, &args, sizeof args);
      /* ENOSYS: no clone3 (or a filter hiding it); EINVAL: a kernel
       * before 5.7 that does not know CLONE_INTO_CGROUP */
      *born = pid >= 0;
      if (pid >= 0 || (errno != ENOSYS && errno != EINVAL))
        return pid;
    }
  return (pid_t) syscall (SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
}

/* The namespaces the runtime may create in clone(2) itself. */
static unsigned long
early_flags (const struct ns_plan *ns)
{
  unsigned long flags = ns->new_flags & ~(CLONE_NEWCGROUP | CLONE_NEWTIME);
  bool other_joined = false;
  int t;

  for (t = 0; t < OCI_NS_COUNT; t++)
    if (t != OCI_NS_USER && t != OCI_NS_PID && t != OCI_NS_TIME
        && ns->join_fds[t] >= 0)
      other_joined = true;
  if (ns->join_fds[OCI_NS_USER] >= 0)
    return 0; /* everything is created from inside the joined user ns */
  if ((ns->new_flags & CLONE_NEWUSER) && other_joined)
    return 0; /* join as host root first, then create the user ns */
  /* The init of a pid namespace may not use CLONE_PARENT: with a new time
   * namespace the pid namespace is created by the intermediate child. */
  if (ns->new_flags & CLONE_NEWTIME)
    flags &= ~(unsigned long) CLONE_NEWPID;
  return flags;
}

static int
write_id_maps (const struct spawn_request *req, pid_t pid, agentrt_error_t *err)
{
  static const struct idmap_plan privileged = { 0 };
  return userns_write_maps (pid, req->idmap ? req->idmap : &privileged,
                            req->uid_map, req->n_uid_map, req->gid_map,
                            req->n_gid_map, err);
}

void
spawn_child_fail (int sock, const struct child_error *cerr)
{
  struct sync_msg msg;
  memset (&msg, 0, sizeof msg);
  msg.type = SYNC_ERROR;
  msg.error = *cerr;
  sync_send (sock, &msg, NULL, 0);
  _exit (1);
}

/* After the uid/gid maps are written: become the namespace's root (when it
 * is mapped) so that files the init creates belong to the container. */
static void
become_ns_root (void)
{
  if (setresgid (0, 0, 0) < 0 || setresuid (0, 0, 0) < 0)
    { /* 0 is not mapped: keep the overflow ids, capabilities stay */ }
}

/* Asks the runtime to write this process's uid and gid maps and waits.
 * A runtime that is not root can write them (or have newuidmap do it)
 * only while this process is dumpable: the /proc files of one that is not
 * belong to root.  It is, for that moment only, before anything of the
 * container runs (the runtime made it undumpable against CVE-2019-5736),
 * then becomes the namespace's root. */
static int
request_id_maps (const struct spawn_request *req, struct child_error *cerr)
{
  struct sync_msg msg;
  bool dumpable = req->idmap && req->idmap->unprivileged;

  if (dumpable && prctl (PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
    return child_error (cerr, errno, "prctl PR_SET_DUMPABLE (to have the "
                        "id maps written)");
  if (sync_send_simple (req->child_sock, SYNC_MAP_IDS, 0) < 0
      || sync_expect (req->child_sock, SYNC_MAP_IDS_DONE, &msg, NULL, NULL,
                      cerr) < 0)
    return -1;
  if (dumpable && prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    return child_error (cerr, errno, "prctl PR_SET_DUMPABLE");
  become_ns_root ();
  return 0;
}

static int
write_time_offsets (const struct spawn_request *req, struct child_error *cerr)
{
  char buf[128];
  int len = 0, fd;

  if (req->monotonic && req->monotonic->present)
    len += snprintf (buf + len, sizeof buf - (size_t) len, "monotonic %lld %u\n",
                     (long long) req->monotonic->secs, req->monotonic->nanosecs);
  if (req->boottime && req->boottime->present)
    len += snprintf (buf + len, sizeof buf - (size_t) len, "boottime %lld %u\n",
                     (long long) req->boottime->secs, req->boottime->nanosecs);
  if (len == 0)
    return 0;
  fd = open ("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write (fd, buf, (size_t) len) != len)
    return child_error (cerr, errno, "linux.timeOffsets");
  close (fd);
  return 0;
}

static int
join_namespaces (const struct ns_plan *ns, struct child_error *cerr)
{
  int t;
  /* the user namespace first: it grants the rights to join the others */
  if (ns->join_fds[OCI_NS_USER] >= 0)
    {
      if (setns (ns->join_fds[OCI_NS_USER], CLONE_NEWUSER) < 0)
        return child_error (cerr, errno, "join user namespace");
      /* the host's ids stay with us, unmapped there: the files the init
       * makes (/dev/pts...) could not be owned (EOVERFLOW) */
      become_ns_root ();
    }
  for (t = 0; t < OCI_NS_COUNT; t++)
    {
      if (t == OCI_NS_USER || t == OCI_NS_PID || t == OCI_NS_TIME
          || ns->join_fds[t] < 0)
        continue;
      if (setns (ns->join_fds[t], 0) < 0)
        return child_error (cerr, errno, "join %s namespace",
                            oci_namespace_type_name ((enum oci_namespace_type) t));
    }
  return 0;
}

static void __attribute__ ((noreturn))
run_init (const struct spawn_request *req)
{
  struct child_error cerr;
  memset (&cerr, 0, sizeof cerr);
  if (sync_send_simple (req->child_sock, SYNC_INIT_PID, 0) < 0)
    _exit (1);
  req->init_fn (req->arg, &cerr);
  spawn_child_fail (req->child_sock, &cerr);
}

/* A runtime that is not root cannot enter a pid or time namespace that
 * a joined user namespace owns, and root of a user namespace (rootless
 * Podman's) that entered one could not return to its own, which the
 * host's user namespace owns: the child enters them itself (once in the
 * joined user namespace), and the init is then its CLONE_PARENT child.
 * Decided in the runtime (in the joined namespace, the child's euid may
 * read 0). */
static bool
pid_time_joined_in_child (const struct ns_plan *ns)
{
  bool pid = ns->join_fds[OCI_NS_PID] >= 0, time = ns->join_fds[OCI_NS_TIME] >= 0;

  if (!pid && !time)
    return false;
  if (ns->join_fds[OCI_NS_USER] >= 0 && geteuid () != 0)
    return true;
  return (pid && rootless_ns_foreign ("pid"))
         || (time && rootless_ns_foreign ("time"));
}

static int
join_pid_time (const struct ns_plan *ns, struct child_error *cerr)
{
  if (ns->join_fds[OCI_NS_PID] >= 0
      && setns (ns->join_fds[OCI_NS_PID], CLONE_NEWPID) < 0)
    return child_error (cerr, errno, "join pid namespace");
  if (ns->join_fds[OCI_NS_TIME] >= 0
      && setns (ns->join_fds[OCI_NS_TIME], CLONE_NEWTIME) < 0)
    return child_error (cerr, errno, "join time namespace");
  return 0;
}

static void __attribute__ ((noreturn))
child_main (const struct spawn_request *req, unsigned long early,
            bool pid_time_in_child)
{
  struct child_error cerr;
  unsigned long late = req->ns->new_flags & ~early & ~(unsigned long) CLONE_NEWCGROUP;
  pid_t init;

  memset (&cerr, 0, sizeof cerr);
  sanitizer_reports_to_stderr ();
  close (req->parent_sock);
  for (size_t i = 0; i < req->n_close_in_child; i++)
    if (req->close_in_child[i] >= 0)
      close (req->close_in_child[i]);
  if ((early & CLONE_NEWUSER) && request_id_maps (req, &cerr) < 0)
    spawn_child_fail (req->child_sock, &cerr);
  if (req->pre_join_fn && req->pre_join_fn (req->arg, &cerr) < 0)
    spawn_child_fail (req->child_sock, &cerr);
  if (join_namespaces (req->ns, &cerr) < 0
      || (pid_time_in_child && join_pid_time (req->ns, &cerr) < 0))
    spawn_child_fail (req->child_sock, &cerr);
  if (late && unshare ((int) late) < 0)
    {
      child_error (&cerr, errno, "create namespaces");
      spawn_child_fail (req->child_sock, &cerr);
    }
  if ((late & CLONE_NEWUSER) && request_id_maps (req, &cerr) < 0)
    spawn_child_fail (req->child_sock, &cerr);
  if ((late & CLONE_NEWTIME) && write_time_offsets (req, &cerr) < 0)
    spawn_child_fail (req->child_sock, &cerr);
  if (!(late & (CLONE_NEWPID | CLONE_NEWTIME)) && !pid_time_in_child)
    run_init (req);

  /* Enter the new pid/time namespace through a child of our parent's. */
  init = (pid_t) syscall (SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL,
                          NULL);
  if (init < 0)
    {
      child_error (&cerr, errno, "clone the container init");
      spawn_child_fail (req->child_sock, &cerr);
    }
  if (init == 0)
    run_init (req);
  _exit (0);
}

static int
restore_ns (int fd, int type, const char *what, agentrt_error_t *err)
{
  if (fd >= 0 && setns (fd, type) < 0)
    return agentrt_error (err, errno, "return to the runtime's %s namespace",
                          what);
  return 0;
}

/* Joined pid and time namespaces apply to children only: the runtime enters
 * them "for children" around the clone, then returns to its own. */
static pid_t
clone_child (const struct spawn_request *req, unsigned long early,
             agentrt_error_t *err)
{
  const struct ns_plan *ns = req->ns;
  cleanup_close int own_pid = -1, own_time = -1;
  bool in_child = pid_time_joined_in_child (ns);
  pid_t pid;

  if (ns->join_fds[OCI_NS_PID] >= 0 && !in_child)
    {
      own_pid = open ("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
      if (own_pid < 0 || setns (ns->join_fds[OCI_NS_PID], CLONE_NEWPID) < 0)
        return agentrt_error (err, errno, "join pid namespace");
    }
  if (ns->join_fds[OCI_NS_TIME] >= 0 && !in_child)
    {
      own_time = open ("/proc/self/ns/time", O_RDONLY | O_CLOEXEC);
      if (own_time < 0 || setns (ns->join_fds[OCI_NS_TIME], CLONE_NEWTIME) < 0)
        {
          restore_ns (own_pid, CLONE_NEWPID, "pid", NULL);
          return agentrt_error (err, errno, "join time namespace");
        }
    }
  pid = raw_clone (early, req->cgroup_fd, req->born_in_cgroup);
  if (pid == 0)
    child_main (req, early, in_child);
  if (pid < 0 && req->cgroup_fd >= 0 && errno == EACCES)
    agentrt_error (err, errno, "clone into the container's cgroup (a "
                   "runtime that is not root must run in the same delegated "
                   "cgroup subtree)");
  else if (pid < 0)
    agentrt_error (err, errno, "clone");
  if (restore_ns (own_pid, CLONE_NEWPID, "pid", pid < 0 ? NULL : err) < 0
      || restore_ns (own_time, CLONE_NEWTIME, "time", pid < 0 ? NULL : err) < 0)
    {
      if (pid > 0)
        {
          kill (pid, SIGKILL);
          waitpid (pid, NULL, 0);
        }
      return -1;
    }
  return pid;
}

static void
reap (pid_t pid)
{
  if (pid > 0)
    while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
      ;
}

static pid_t
fail_child (pid_t child, pid_t init, agentrt_error_t *err,
            const struct child_error *cerr)
{
  if (init > 0 && init != child)
    kill (init, SIGKILL);
  if (child > 0)
    kill (child, SIGKILL);
  reap (child);
  if (init != child)
    reap (init);
  if (cerr)
    return agentrt_error_verbatim (err, cerr->status, cerr->msg);
  return -1;
}

pid_t
spawn_init (const struct spawn_request *req, agentrt_error_t *err)
{
  unsigned long early = early_flags (req->ns);
  struct child_error cerr;
  struct sync_msg msg;
  pid_t child, init = 0;
  int r;

  if (sync_enable_credentials (req->parent_sock) < 0)
    return agentrt_error (err, errno, "sync socket credentials");
  child = clone_child (req, early, err);
  if (child < 0)
    return -1;

  for (;;)
    {
      pid_t sender = 0;
      memset (&cerr, 0, sizeof cerr);
      r = sync_recv_from (req->parent_sock, &msg, NULL, NULL, &sender);
      if (r < 0)
        {
          child_error (&cerr, -r == EPIPE ? 0 : -r,
                       "the container init exited during setup");
          return fail_child (child, 0, err, &cerr);
        }
      if (msg.type == SYNC_ERROR)
        {
          msg.error.msg[sizeof msg.error.msg - 1] = '\0';
          return fail_child (child, 0, err, &msg.error);
        }
      if (msg.type == SYNC_MAP_IDS)
        {
          if (write_id_maps (req, child, err) < 0
              || sync_send_simple (req->parent_sock, SYNC_MAP_IDS_DONE, 0) < 0)
            return fail_child (child, 0, NULL, NULL);
          continue;
        }
      if (msg.type == SYNC_INIT_PID && sender > 0)
        {
          init = sender;
          break;
        }
      child_error (&cerr, EPROTO, "unexpected message %u during setup",
                   msg.type);
      return fail_child (child, 0, err, &cerr);
    }
  if (init != child)
    reap (child); /* the intermediate child exits once the init exists */
  return init;
}
