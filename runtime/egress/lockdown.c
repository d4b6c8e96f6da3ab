/* Locking agentrt-egress down once it holds every fd it needs: an
 * unprivileged uid/gid with no supplementary groups and no capabilities,
 * not dumpable, no_new_privs, a Landlock domain with no filesystem access
 * at all, no TCP bind, no abstract unix sockets and no signals outside
 * itself, and a seccomp allowlist whose default is to kill the process.
 * Each layer that cannot be applied is an error naming it (fail closed);
 * only Landlock may be skipped, and only with --no-landlock. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lockdown.h"
#include "runtime/fault.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EGRESS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define EGRESS_ASAN 1
#endif
#ifdef EGRESS_ASAN
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif

/* The Landlock UAPI, spelled out so that older kernel headers build it;
 * the values are fixed by the kernel ABI. */
struct egress_landlock_attr
{
  uint64_t handled_access_fs;
  uint64_t handled_access_net; /* ABI 4 */
  uint64_t scoped;             /* ABI 6 */
};
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

static int
landlock_abi (void)
{
  return (int) syscall (SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
}

int
lockdown_landlock (agentrt_error_t *err)
{
  struct egress_landlock_attr attr = { 0 };
  int abi = landlock_abi (), fd;

  if (abi < 1)
    return agentrt_error (err, errno, "Landlock is not available (run with --no-landlock "
                                      "to start without it)");
  /* Every filesystem right the ABI knows: EXECUTE..MAKE_SYM (ABI 1),
   * REFER (2), TRUNCATE (3), IOCTL_DEV (5). */
  attr.handled_access_fs = (1ULL << 13) - 1;
  if (abi >= 2)
    attr.handled_access_fs |= 1ULL << 13;
  if (abi >= 3)
    attr.handled_access_fs |= 1ULL << 14;
  if (abi >= 5)
    attr.handled_access_fs |= 1ULL << 15;
  if (abi >= 4)
    attr.handled_access_net = LL_ACCESS_NET_BIND_TCP;
  if (abi >= 6)
    attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
  fd = (int) syscall (SYS_landlock_create_ruleset, &attr, sizeof (attr), 0);
  if (fd < 0)
    return agentrt_error (err, errno, "Landlock: create ruleset (ABI %d)", abi);
  if (FAULT_CALL ("egress:landlock", syscall (SYS_landlock_restrict_self, fd, 0)) < 0)
    {
      int saved = errno;
      close (fd);
      return agentrt_error (err, saved, "Landlock: restrict self");
    }
  close (fd);
  return abi;
}

static int
drop_capabilities (agentrt_error_t *err)
{
  struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2] = { { 0 } };

  if (FAULT_CALL ("egress:capset", syscall (SYS_capset, &hdr, data)) < 0)
    return agentrt_error (err, errno, "capabilities: clear");
  if (syscall (SYS_capget, &hdr, data) < 0)
    return agentrt_error (err, errno, "capabilities: read back");
  for (int i = 0; i < 2; i++)
    if (data[i].effective || data[i].permitted || data[i].inheritable)
      return agentrt_error (err, 0, "capabilities: still held after dropping them");
  return 0;
}

/* As root: no groups, the target gid and uid, an empty bounding set.  As
 * anyone else: only the current ids are possible. */
static int
drop_privileges (uid_t uid, gid_t gid, agentrt_error_t *err)
{
  if (uid == 0 || gid == 0)
    return agentrt_error (err, 0, "privileges: refusing to run as uid or gid 0");
  if (geteuid () != 0)
    {
      if (getuid () != uid || geteuid () != uid || getgid () != gid || getegid () != gid)
        return agentrt_error (err, EPERM, "privileges: cannot switch to uid %u gid %u",
                              (unsigned) uid, (unsigned) gid);
      return drop_capabilities (err);
    }
  if (FAULT_CALL ("egress:setgroups", setgroups (0, NULL)) < 0)
    return agentrt_error (err, errno, "privileges: setgroups");
  if (FAULT_CALL ("egress:setresgid", setresgid (gid, gid, gid)) < 0)
    return agentrt_error (err, errno, "privileges: setresgid %u", (unsigned) gid);
  for (int cap = 0; prctl (PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
    if (FAULT_CALL ("egress:capbset", prctl (PR_CAPBSET_DROP, cap, 0, 0, 0)) < 0)
      return agentrt_error (err, errno, "privileges: drop capability %d from the bounding set", cap);
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
    return agentrt_error (err, errno, "privileges: clear ambient capabilities");
  if (FAULT_CALL ("egress:setresuid", setresuid (uid, uid, uid)) < 0)
    return agentrt_error (err, errno, "privileges: setresuid %u", (unsigned) uid);
  return drop_capabilities (err);
}

#ifdef EGRESS_ASAN
/* Sanitizer builds only (hack/test.sh --sanitize): what a report needs
 * later and the sandbox would forbid.  The memory map is cached, the
 * report file (log_path) is opened now (asking for its name opens it),
 * and the leak check runs now and is thereby disarmed: at exit
 * LeakSanitizer would need a ptrace'd thread and /proc, and seccomp
 * would kill the proxy for asking.  The sidecar's leaks are valgrind's
 * job (hack/valgrind.sh). */
static void
sanitizer_prepare (void)
{
  __sanitizer_sandbox_arguments args = { 0 };

  __sanitizer_sandbox_on_notify (&args);
  (void) __sanitizer_get_report_path ();
  __lsan_do_leak_check ();
}
#else
#define sanitizer_prepare() ((void) 0)
#endif

int
lockdown_undumpable (agentrt_error_t *err)
{
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    return agentrt_error (err, errno, "prctl PR_SET_DUMPABLE (no core dump)");
  return 0;
}

int
lockdown_privileges (uid_t uid, gid_t gid, agentrt_error_t *err)
{
  struct rlimit rl;

  sanitizer_prepare ();

  /* Many connections need many fds: raise the soft limit to the hard one. */
  if (getrlimit (RLIMIT_NOFILE, &rl) < 0)
    return agentrt_error (err, errno, "getrlimit RLIMIT_NOFILE");
  if (rl.rlim_cur < rl.rlim_max)
    {
      rl.rlim_cur = rl.rlim_max;
      if (FAULT_CALL ("egress:setrlimit", setrlimit (RLIMIT_NOFILE, &rl)) < 0)
        return agentrt_error (err, errno, "setrlimit RLIMIT_NOFILE");
    }
  if (drop_privileges (uid, gid, err) < 0 || lockdown_undumpable (err) < 0)
    return -1;
  if (FAULT_CALL ("egress:no-new-privs", prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) < 0)
    return agentrt_error (err, errno, "prctl PR_SET_NO_NEW_PRIVS");
  return 0;
}

int
lockdown_follow_parent (pid_t parent, agentrt_error_t *err)
{
  if (FAULT_CALL ("egress:pdeathsig", prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)) < 0)
    return agentrt_error (err, errno, "prctl PR_SET_PDEATHSIG");
  if (getppid () != parent)
    return agentrt_error (err, ESRCH, "the process that started it (pid %d) "
                          "is gone", (int) parent);
  return 0;
}

#define ALLOW(ctx, name, ...)                                                   \
  seccomp_rule_add (ctx, SCMP_ACT_ALLOW, SCMP_SYS (name), __VA_ARGS__)

/* Sockets: TCP and UDP over IPv4 and IPv6 only; never netlink, packet,
 * unix or vsock. */
static int
allow_sockets (scmp_filter_ctx ctx)
{
  static const int families[] = { AF_INET, AF_INET6 };
  static const int types[] = { SOCK_STREAM, SOCK_DGRAM };
  int rc = 0;

  for (int f = 0; f < 2; f++)
    for (int t = 0; t < 2; t++)
      rc = rc ? rc
              : ALLOW (ctx, socket, 2, SCMP_A0 (SCMP_CMP_EQ, (scmp_datum_t) families[f]),
                       SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xf, (scmp_datum_t) types[t]));
  return rc;
}

static int
allow_rules (scmp_filter_ctx ctx)
{
  static const int plain[] = {
    SCMP_SYS (read), SCMP_SYS (write), SCMP_SYS (writev), SCMP_SYS (close),
    SCMP_SYS (epoll_wait), SCMP_SYS (epoll_pwait), SCMP_SYS (epoll_ctl),
    SCMP_SYS (accept4), SCMP_SYS (connect), SCMP_SYS (sendto), SCMP_SYS (recvfrom),
    SCMP_SYS (getsockopt), SCMP_SYS (setsockopt), SCMP_SYS (shutdown), SCMP_SYS (splice),
    SCMP_SYS (pipe2), SCMP_SYS (getrandom), SCMP_SYS (clock_gettime),
    SCMP_SYS (gettimeofday), SCMP_SYS (brk), SCMP_SYS (munmap), SCMP_SYS (mremap),
    SCMP_SYS (madvise), SCMP_SYS (rt_sigreturn), SCMP_SYS (rt_sigprocmask),
    SCMP_SYS (restart_syscall), SCMP_SYS (exit), SCMP_SYS (exit_group), SCMP_SYS (getpid),
    SCMP_SYS (gettid), SCMP_SYS (sched_yield),
  };
  int rc = 0;

  for (size_t i = 0; i < sizeof (plain) / sizeof (*plain) && rc == 0; i++)
    rc = seccomp_rule_add (ctx, SCMP_ACT_ALLOW, plain[i], 0);
  if (rc == 0)
    rc = allow_sockets (ctx);
  /* Memory, never executable. */
  if (rc == 0)
    rc = ALLOW (ctx, mmap, 1, SCMP_A2 (SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
  if (rc == 0)
    rc = ALLOW (ctx, fcntl, 1, SCMP_A1 (SCMP_CMP_EQ, F_SETPIPE_SZ));
  /* abort() signals the process itself. */
  if (rc == 0)
    rc = ALLOW (ctx, tgkill, 1, SCMP_A0 (SCMP_CMP_EQ, (scmp_datum_t) getpid ()));
  return rc;
}

int
lockdown_seccomp (agentrt_error_t *err)
{
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_KILL_PROCESS);
  int rc;

  if (ctx == NULL)
    return agentrt_error (err, ENOMEM, "seccomp: init");
  rc = allow_rules (ctx);
  if (rc == 0)
    rc = fault_fail ("egress:seccomp") < 0 ? -errno : seccomp_load (ctx);
  seccomp_release (ctx);
  if (rc < 0)
    return agentrt_error (err, -rc, "seccomp: load the egress filter");
  return 0;
}
