/* The cgroup layer on this host's real hierarchies (v1 controllers, and the
 * cgroup2 mount of a hybrid host both as hybrid and, through a copied
 * mountinfo, as a pure v2 layout): enter with resources and device rules,
 * rollback, joining, update, freeze, kill paths, stats, OOM and pids
 * events, destroy.  Every cgroup lives under /agentrt-test-<pid> and is
 * removed at exit; children die with the test.  Needs root: skips
 * otherwise. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"
#include "tests/unit/unit.h"

static char prefix[64];
static const struct cgroup_layout *host;
static bool hugetlb_was_enabled = true;

static void
cleanup (void)
{
  agentrt_error_t e = NULL;
  struct cgroup *all = host ? cgroup_open (host, prefix, NULL, true, &e) : NULL;

  /* whatever a failed check left running in the test's cgroups dies */
  if (all && cgroup_kill_all (all, SIGKILL, &e) < 0)
    fprintf (stderr, "cleanup: %s\n", e->msg);
  for (int i = 0; i < 100 && waitpid (-1, NULL, WNOHANG) >= 0; i++)
    usleep (1000);
  cgroup_free (all);
  agentrt_error_release (&e);
  for (size_t i = 0; host && i < host->n; i++)
    {
      char *p = xasprintf ("%s%s", host->h[i].mount_point, prefix);
      agentrt_error_t err = NULL;
      if (cg_rmdir_tree (p, &err) < 0)
        fprintf (stderr, "cleanup: %s\n", err->msg);
      agentrt_error_release (&err);
      free (p);
    }
  if (!hugetlb_was_enabled)
    {
      int fd = open ("/sys/fs/cgroup/unified/cgroup.subtree_control", O_WRONLY);
      if (fd >= 0 && write (fd, "-hugetlb", 8) < 0)
        fprintf (stderr, "cleanup: could not disable hugetlb again\n");
      close (fd);
    }
}

static void
on_signal (int sig)
{
  cleanup ();
  signal (sig, SIG_DFL);
  raise (sig);
}

/* A child that waits for a byte on a pipe, then runs fn (or sleeps) and
 * sends fn's result back as one byte (exit statuses are not reliable under
 * valgrind, which reports leaks of the copied parent in children). */
struct child
{
  pid_t pid;
  int go;     /* write end */
  int result; /* read end */
};

static struct child
spawn (int (*fn) (void))
{
  struct child c = { -1, -1, -1 };
  int p[2], r[2];
  char b;

  if (pipe2 (p, O_CLOEXEC) < 0 || pipe2 (r, O_CLOEXEC) < 0)
    return c;
  c.pid = fork ();
  if (c.pid == 0)
    {
      /* the test's cleanup handlers are not the child's */
      signal (SIGTERM, SIG_DFL);
      signal (SIGINT, SIG_DFL);
      signal (SIGABRT, SIG_DFL);
      signal (SIGSEGV, SIG_DFL);
      signal (SIGALRM, SIG_DFL);
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      close (p[1]);
      close (r[0]);
      if (read (p[0], &b, 1) < 0)
        _exit (100);
      if (fn)
        {
          b = (char) fn ();
          if (write (r[1], &b, 1) < 0)
            _exit (101);
          _exit (0);
        }
      for (;;)
        pause ();
    }
  close (p[0]);
  close (r[1]);
  c.go = p[1];
  c.result = r[0];
  return c;
}

/* fn's result, -1 when the child died first. */
static int
result_of (struct child *c)
{
  char b;
  int ret = read (c->result, &b, 1) == 1 ? (unsigned char) b : -1;
  close (c->result);
  c->result = -1;
  return ret;
}

static void
release (struct child *c)
{
  if (write (c->go, "x", 1) < 0)
    CHECK (!"release child");
  close (c->go);
  c->go = -1;
}

static int
reap (pid_t pid)
{
  int status = -1;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  return status;
}

static char *
read_text (const char *dir, const char *path, const char *file)
{
  char *full = xasprintf ("/sys/fs/cgroup/%s%s/%s", dir, path, file), buf[8192];
  int fd = open (full, O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read (fd, buf, sizeof buf - 1);
  close (fd);
  free (full);
  buf[n < 0 ? 0 : n] = '\0';
  return xstrdup (n < 0 ? "<missing>" : buf);
}

#define CHECK_CG(dir, path, file, want)                                     \
  do                                                                        \
    {                                                                       \
      char *got_ = read_text (dir, path, file);                             \
      CHECK_CONTAINS (got_, want);                                          \
      free (got_);                                                          \
    }                                                                       \
  while (0)

static bool
exists (const char *dir, const char *path)
{
  char *full = xasprintf ("/sys/fs/cgroup/%s%s", dir, path);
  bool ok = access (full, F_OK) == 0;
  free (full);
  return ok;
}

static char *
sub (const char *name)
{
  return xasprintf ("%s/%s", prefix, name);
}

/* major:minor of a real disk for the throttle test ("" if none). */
static void
find_disk (char *out, size_t size)
{
  static const char *const disks[] = { "vda", "sda", "nvme0n1", "xvda", NULL };
  out[0] = '\0';
  for (size_t i = 0; disks[i] && !out[0]; i++)
    {
      char *p = xasprintf ("/sys/block/%s/dev", disks[i]);
      int fd = open (p, O_RDONLY);
      ssize_t n = fd < 0 ? -1 : read (fd, out, size - 1);
      out[n < 0 ? 0 : n] = '\0';
      out[strcspn (out, "\n")] = '\0';
      close (fd);
      free (p);
    }
}

/* What test_resources_v1 asked for, in the v1 files. */
static void
check_v1_files (const char *path, const char *disk)
{
  char *list_text = read_text ("devices", path, "devices.list");

  CHECK_CG ("memory", path, "memory.limit_in_bytes", "67108864");
  CHECK_CG ("memory", path, "memory.memsw.limit_in_bytes", "134217728");
  CHECK_CG ("memory", path, "memory.soft_limit_in_bytes", "33554432");
  CHECK_CG ("memory", path, "memory.swappiness", "10");
  CHECK_CG ("pids", path, "pids.max", "50");
  CHECK_CG ("cpu", path, "cpu.shares", "512");
  CHECK_CG ("cpu", path, "cpu.cfs_quota_us", "50000");
  CHECK_CG ("cpuset", path, "cpuset.cpus", "0");
  CHECK_CG ("devices", path, "devices.list", "c 1:3 rwm");
  CHECK_CG ("devices", path, "devices.list", "c 136:* rwm");
  CHECK_CG ("devices", path, "devices.list", "b *:* m");
  CHECK (strstr (list_text, "a *:* rwm") == NULL);
  CHECK (strstr (list_text, "c 1:5") != NULL); /* /dev/zero, a default */
  free (list_text);
  if (disk)
    {
      char *want = xasprintf ("%s 1048576", disk);
      CHECK_CG ("blkio", path, "blkio.throttle.read_bps_device", want);
      free (want);
    }
}

/* Pause, stats and update of the cgroup test_resources_v1 made. */
static void
pause_stats_update (struct cgroup *cg, const char *path,
                    struct oci_device_rule *rules)
{
  struct oci_memory m2 = { .has_limit = true, .limit = 96 << 20,
                           .has_swap = true, .swap = 192 << 20 };
  struct oci_pids p2 = { .has_limit = true, .limit = 20 };
  struct oci_cpu c2 = { .has_quota = true, .quota = 20000 };
  struct oci_resources r2 = { .devices = rules, .n_devices = 1,
                              .memory = &m2, .cpu = &c2, .pids = &p2 };
  struct str_list warnings = { 0 };
  struct cgroup_stats st;
  agentrt_error_t err = NULL;

  CHECK (cgroup_frozen (cg, &err) == 0);
  CHECK (cgroup_freeze (cg, &err) == 0);
  CHECK (cgroup_frozen (cg, &err) == 1);
  CHECK_CG ("freezer", path, "freezer.state", "FROZEN");
  CHECK (cgroup_thaw (cg, &err) == 0);
  CHECK (cgroup_frozen (cg, &err) == 0);

  CHECK (cgroup_stats (cg, &st, &err) == 0);
  CHECK (st.has_memory && st.memory.usage.limit == 67108864);
  CHECK (st.memory.swap.limit == 134217728 && st.memory.n_stat > 10);
  CHECK (st.has_pids && st.pids.current == 1 && st.pids.limit == 50);
  CHECK (st.has_cpu && st.cpu.n_percpu >= 1);
  CHECK (st.has_blkio);
  cgroup_stats_release (&st);

  /* larger memory (memsw first), pids, quota alone; devices: a warning */
  CHECK (cgroup_update (cg, &r2, &warnings, &err) == 0);
  CHECK (warnings.len == 1);
  str_list_free (&warnings);
  CHECK_CG ("memory", path, "memory.limit_in_bytes", "100663296");
  CHECK_CG ("memory", path, "memory.memsw.limit_in_bytes", "201326592");
  CHECK_CG ("pids", path, "pids.max", "20");
  CHECK_CG ("cpu", path, "cpu.cfs_quota_us", "20000");
  CHECK_CG ("cpu", path, "cpu.cfs_period_us", "100000");
  /* and smaller again (limit first) */
  m2.limit = 32 << 20, m2.swap = 40 << 20;
  CHECK (cgroup_update (cg, &r2, NULL, &err) == 0);
  CHECK_CG ("memory", path, "memory.memsw.limit_in_bytes", "41943040");
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);
}

static void
test_resources_v1 (void)
{
  char *path = sub ("c1"), disk[32];
  unsigned major = 0, minor = 0;
  struct oci_memory mem = { .has_limit = true, .limit = 64 << 20,
                            .has_swap = true, .swap = 128 << 20,
                            .has_reservation = true, .reservation = 32 << 20,
                            .has_swappiness = true, .swappiness = 10 };
  struct oci_pids pids = { .has_limit = true, .limit = 50 };
  struct oci_cpu cpu = { .has_shares = true, .shares = 512, .has_quota = true,
                         .quota = 50000, .has_period = true, .period = 100000,
                         .cpus = (char *) "0", .mems = (char *) "0" };
  struct oci_blkio_throttle_device rbps[1];
  struct oci_blkio blkio = { 0 };
  struct oci_device_rule rules[] = { { .allow = true, .type = 'c',
                                       .has_major = true, .major = 1,
                                       .has_minor = true, .minor = 3,
                                       .access = (char *) "rwm" } };
  /* hybrid: hugetlb is on the cgroup2 mount */
  struct oci_hugepage_limit huge[] = { { (char *) "2MB", 4 << 20 } };
  struct oci_resources res = { .devices = rules, .n_devices = 1, .memory = &mem,
                               .cpu = &cpu, .pids = &pids,
                               .hugepage_limits = huge,
                               .n_hugepage_limits = host->route[CG_HUGETLB] >= 0 };
  struct cgroup_request req = { .id = "c1", .cgroups_path = path,
                                .resources = &res };
  struct cgroup_result result;
  struct cgroup_mounts *mounts;
  struct child c = spawn (NULL);
  agentrt_error_t err = NULL;
  pid_t *list = NULL;
  size_t n = 0;
  char pidtext[16];

  find_disk (disk, sizeof disk);
  if (sscanf (disk, "%u:%u", &major, &minor) == 2)
    {
      rbps[0] = (struct oci_blkio_throttle_device){ major, minor, 1048576 };
      blkio.throttle_read_bps = (struct oci_blkio_throttle_list){ rbps, 1 };
      res.blkio = &blkio;
    }
  req.pid = c.pid;
  snprintf (pidtext, sizeof pidtext, "%d\n", (int) c.pid);
  CHECK (cgroup_enter (&req, &result, &err) == 0);
  if (err)
    {
      fprintf (stderr, "%s\n", err->msg);
      agentrt_error_release (&err);
      kill (c.pid, SIGKILL), reap (c.pid);
      free (path);
      return;
    }
  CHECK (result.warnings.len == 0);
  CHECK (cgroup_owned (result.cgroup));
  CHECK_STR_EQ (cgroup_path (result.cgroup), path);
  check_v1_files (path, res.blkio ? disk : NULL);
  if (res.n_hugepage_limits)
    CHECK_CG (host->h[host->route[CG_HUGETLB]].dir, path, "hugetlb.2MB.max",
              "4194304");
  for (size_t i = 0; i < host->n; i++)
    CHECK_CG (host->h[i].dir, path, "cgroup.procs", pidtext);
  CHECK (cgroup_pids (result.cgroup, &list, &n, &err) == 0);
  CHECK (n == 1 && list && list[0] == c.pid);
  free (list);

  mounts = cgroup_mounts_plan (&req, &err);
  CHECK (mounts && mounts->tmpfs && mounts->len == host->n);
  for (size_t i = 0; mounts && i < mounts->len; i++)
    CHECK (access (mounts->items[i].host_path, F_OK) == 0);
  cgroup_mounts_free (mounts);

  pause_stats_update (result.cgroup, path, rules);
  /* SIGTERM through freeze + pidfd + thaw */
  CHECK (cgroup_kill_all (result.cgroup, SIGTERM, &err) == 0);
  {
    int status = reap (c.pid);
    CHECK (WIFSIGNALED (status) && WTERMSIG (status) == SIGTERM);
  }
  CHECK (cgroup_destroy (result.cgroup, &err) == 0);
  for (size_t i = 0; i < host->n; i++)
    CHECK (!exists (host->h[i].dir, path));
  CHECK (cgroup_destroy (result.cgroup, &err) == 0); /* already gone */
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);
  cgroup_free (result.cgroup);
  cgroup_result_release (&result);
  close (c.go);
  close (c.result);
  free (path);
}

static void
test_rollback_and_join (void)
{
  char *path = sub ("newparent/c2"), *parent = sub ("newparent");
  char *pre = sub ("pre");
  struct oci_cpu cpu = { .cpus = (char *) "999" };
  struct oci_cpu shares = { .has_shares = true, .shares = 1 };
  struct oci_resources res = { .cpu = &cpu };
  struct cgroup_request req = { .id = "c2", .cgroups_path = path,
                                .resources = &res, .pid = getpid () };
  struct cgroup_result result;
  agentrt_error_t err = NULL;

  /* the kernel refuses the cpuset: nothing created is left */
  CHECK (cgroup_enter (&req, &result, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "linux.resources.cpu.cpus");
  CHECK_CONTAINS (err ? err->msg : NULL, "cpuset.cpus");
  agentrt_error_release (&err);
  CHECK (result.cgroup == NULL);
  for (size_t i = 0; i < host->n; i++)
    CHECK (!exists (host->h[i].dir, parent) && exists (host->h[i].dir, prefix));
  /* the kernel clamps shares=1: refused instead of silently changed */
  res.cpu = &shares;
  CHECK (cgroup_enter (&req, &result, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "linux.resources.cpu.shares: 1 is out of range");
  agentrt_error_release (&err);
  for (size_t i = 0; i < host->n; i++)
    CHECK (!exists (host->h[i].dir, parent));

  /* a cgroup that exists is joined and left in place by destroy */
  for (size_t i = 0; i < host->n; i++)
    {
      char *p = xasprintf ("%s%s", host->h[i].mount_point, pre);
      CHECK (mkdir (p, 0755) == 0);
      free (p);
    }
  {
    char *v = xasprintf ("/sys/fs/cgroup/cpuset%s/cpuset.cpus", pre);
    int fd = open (v, O_WRONLY);
    CHECK (fd >= 0 && write (fd, "0", 1) == 1);
    close (fd);
    free (v);
    v = xasprintf ("/sys/fs/cgroup/cpuset%s/cpuset.mems", pre);
    fd = open (v, O_WRONLY);
    CHECK (fd >= 0 && write (fd, "0", 1) == 1);
    close (fd);
    free (v);
  }
  req.cgroups_path = pre;
  req.resources = NULL;
  req.pid = 0;
  CHECK (cgroup_enter (&req, &result, &err) == 0);
  CHECK (result.cgroup && !cgroup_owned (result.cgroup));
  CHECK (result.cgroup && cgroup_destroy (result.cgroup, &err) == 0);
  for (size_t i = 0; i < host->n; i++)
    CHECK (exists (host->h[i].dir, pre));
  cgroup_free (result.cgroup);
  cgroup_result_release (&result);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);
  free (path);
  free (parent);
  free (pre);
}

/* Forks until the pids limit stops it, then every process sleeps. */
static int __attribute__ ((noreturn))
forker (void)
{
  for (int i = 0; i < 20; i++)
    if (fork () == 0)
      break;
  for (;;)
    pause ();
}

/* Touches far more memory than the limit allows. */
static int
hog (void)
{
  size_t size = 256u << 20;
  volatile char *p = malloc (size);
  for (size_t i = 0; p && i < size; i += 4096)
    p[i] = 1;
  return 0;
}

static struct cgroup *
enter_with (const struct cgroup_layout *l, const char *name,
            struct oci_resources *res, pid_t pid)
{
  char *path = sub (name);
  struct cgroup_request req = { .layout = l, .id = name, .cgroups_path = path,
                                .resources = res, .pid = pid };
  struct cgroup_result result;
  agentrt_error_t err = NULL;

  if (cgroup_enter (&req, &result, &err) < 0)
    {
      fprintf (stderr, "%s: %s\n", name, err->msg);
      unit_failures++;
      result.cgroup = NULL;
    }
  agentrt_error_release (&err);
  cgroup_result_release (&result);
  free (path);
  return result.cgroup;
}

/* Reaps every child (the test is a subreaper) until the cgroup is empty. */
static size_t
remaining (struct cgroup *cg)
{
  pid_t *list = NULL;
  size_t n = 0;
  agentrt_error_t err = NULL;

  for (int i = 0; i < 200; i++)
    {
      while (waitpid (-1, NULL, WNOHANG) > 0)
        ;
      free (list);
      list = NULL;
      if (cgroup_pids (cg, &list, &n, &err) < 0 || n == 0)
        break;
      usleep (10000);
    }
  free (list);
  agentrt_error_release (&err);
  return n;
}

static void
test_kill_and_events (const struct cgroup_layout *l, const char *tag)
{
  struct oci_pids pids = { .has_limit = true, .limit = 8 };
  struct oci_memory mem = { .has_limit = true, .limit = 32 << 20,
                            .has_swap = true, .swap = 32 << 20 };
  struct oci_resources res = { .pids = &pids };
  struct child f = spawn (forker), h = spawn (hog);
  char name[32];
  struct cgroup *cg;
  struct cgroup_watch *w;
  struct cgroup_watch_counts counts;
  agentrt_error_t err = NULL;
  struct pollfd pfd;

  /* the pids limit: forks fail, pids.events counts them */
  snprintf (name, sizeof name, "%s-forker", tag);
  cg = enter_with (l, name, &res, f.pid);
  w = cg ? cgroup_watch_open (cg, &err) : NULL;
  CHECK (w != NULL);
  release (&f);
  if (w)
    {
      /* v1 ticks every second: read until the count shows up */
      pfd = (struct pollfd){ .fd = cgroup_watch_fd (w), .events = POLLIN };
      counts.pids_max = 0;
      for (int i = 0; i < 5 && counts.pids_max == 0; i++)
        CHECK (poll (&pfd, 1, 5000) == 1
               && cgroup_watch_read (w, &counts, &err) >= 0);
      CHECK (counts.pids_max > 0);
      cgroup_watch_free (w);
    }
  /* SIGKILL of a tree of processes leaves nothing */
  if (cg)
    {
      CHECK (cgroup_kill_all (cg, SIGKILL, &err) == 0);
      CHECK (remaining (cg) == 0);
      CHECK (cgroup_destroy (cg, &err) == 0);
    }
  cgroup_free (cg);

  /* the OOM killer */
  snprintf (name, sizeof name, "%s-hog", tag);
  res = (struct oci_resources){ .memory = &mem };
  cg = enter_with (l, name, &res, h.pid);
  w = cg ? cgroup_watch_open (cg, &err) : NULL;
  CHECK (w != NULL);
  release (&h);
  if (w)
    {
      int status = reap (h.pid);
      CHECK (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
      pfd = (struct pollfd){ .fd = cgroup_watch_fd (w), .events = POLLIN };
      CHECK (poll (&pfd, 1, 5000) == 1);
      CHECK (cgroup_watch_read (w, &counts, &err) == 1 && counts.oom_kills >= 1);
      cgroup_watch_free (w);
    }
  if (cg)
    CHECK (cgroup_destroy (cg, &err) == 0);
  cgroup_free (cg);
  close (f.result);
  close (h.result);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);
}

/* The host without its cgroup2 mount: a pure v1 layout (no cgroup.kill,
 * so SIGKILL goes through the freezer loop). */
static struct cgroup_layout *
v1_only (void)
{
  cleanup_free char *mi = NULL;
  cleanup_close int fd = open ("/proc/self/mountinfo", O_RDONLY);
  char buf[65536];
  ssize_t n = fd < 0 ? -1 : read (fd, buf, sizeof buf - 1);
  agentrt_error_t err = NULL;
  struct cgroup_layout *l;
  char *line, *save = NULL, *out;

  if (n <= 0)
    return NULL;
  buf[n] = '\0';
  out = mi = xzalloc ((size_t) n + 1);
  for (line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    if (strstr (line, " cgroup2 ") == NULL)
      out += sprintf (out, "%s\n", line);
  l = cgroup_layout_parse (mi, "", NULL, &err);
  agentrt_error_release (&err);
  return l;
}

/* The cgroup2 mount as a pure v2 host: eBPF devices, cgroup.freeze,
 * cgroup.kill and hugetlb for real (it carries only hugetlb here). */
static int
probe_devices (void)
{
  int a = open ("/dev/null", O_RDWR), b = open ("/dev/kmsg", O_RDONLY);
  int c = open ("/dev/kmsg", O_WRONLY);
  return (a >= 0 ? 1 : 0) | (b >= 0 ? 2 : 0) | (c >= 0 ? 4 : 0);
}

static void
test_v2_unified (void)
{
  static const char mi[] = "41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
  struct oci_hugepage_limit huge[] = { { (char *) "2MB", 4 << 20 } };
  /* /dev/kmsg readable only; a deny of /dev/null cannot take away a
   * default (as in runc) */
  struct oci_device_rule rules[] = { { .allow = true, .type = 'c',
                                       .has_major = true, .major = 1,
                                       .has_minor = true, .minor = 11,
                                       .access = (char *) "r" },
                                     { .allow = false, .type = 'c',
                                       .has_major = true, .major = 1,
                                       .has_minor = true, .minor = 3,
                                       .access = (char *) "rw" } };
  struct oci_resources res = { .devices = rules, .n_devices = 2,
                               .hugepage_limits = huge, .n_hugepage_limits = 1 };
  agentrt_error_t err = NULL;
  struct cgroup_layout *l = cgroup_layout_parse (mi, "0::/\n",
                                                 "/sys/fs/cgroup/unified", &err);
  struct child probe = spawn (probe_devices), sleeper = spawn (NULL);
  struct cgroup *cg;
  char *path = sub ("v2-dev");
  int status;

  CHECK (l && l->mode == CGROUP_MODE_V2);
  if (l == NULL)
    return;
  cg = enter_with (l, "v2-dev", &res, probe.pid);
  release (&probe);
  CHECK (result_of (&probe) == (1 | 2));
  reap (probe.pid);
  CHECK_CG ("unified", path, "hugetlb.2MB.max", "4194304");
  if (cg)
    CHECK (cgroup_destroy (cg, &err) == 0);
  cgroup_free (cg);

  cg = enter_with (l, "v2-sleep", NULL, sleeper.pid);
  if (cg)
    {
      CHECK (cgroup_freeze (cg, &err) == 0 && cgroup_frozen (cg, &err) == 1);
      CHECK (cgroup_kill_all (cg, SIGTERM, &err) == 0);
      CHECK (cgroup_frozen (cg, &err) == 1); /* still paused */
      CHECK (cgroup_thaw (cg, &err) == 0);
      status = reap (sleeper.pid);
      CHECK (WIFSIGNALED (status) && WTERMSIG (status) == SIGTERM);
      CHECK (cgroup_destroy (cg, &err) == 0);
    }
  cgroup_free (cg);
  close (sleeper.go);
  close (sleeper.result);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);
  cgroup_layout_free (l);
  free (path);
}

static void
test_systemd_absent (void)
{
  struct cgroup_request req = { .id = "ID", .systemd = true, .pid = getpid (),
                                .cgroups_path = "machine.slice:libpod:ID" };
  struct cgroup_result result;
  agentrt_error_t err = NULL;

  if (access ("/run/systemd/private", F_OK) == 0)
    {
      fprintf (stderr, "SKIP test_systemd_absent: systemd runs here\n");
      return;
    }
  CHECK (cgroup_enter (&req, &result, &err) < 0);
  CHECK_STR_EQ (err ? err->msg : NULL, "--systemd-cgroup: systemd is not "
                                       "running (no /run/systemd/private)");
  agentrt_error_release (&err);
}

int
main (void)
{
  agentrt_error_t err = NULL;
  struct cgroup_layout *v1;
  char *text;

  if (geteuid () != 0)
    {
      fprintf (stderr, "SKIP: creating cgroups needs root\n");
      return 77;
    }
  host = cgroup_layout_host (&err);
  if (host == NULL)
    {
      fprintf (stderr, "SKIP: %s\n", err->msg);
      return 77;
    }
  snprintf (prefix, sizeof prefix, "/agentrt-test-%d", (int) getpid ());
  atexit (cleanup);
  signal (SIGINT, on_signal);
  signal (SIGTERM, on_signal);
  signal (SIGABRT, on_signal);
  signal (SIGSEGV, on_signal);
  signal (SIGALRM, on_signal);
  alarm (300); /* a hang fails the test instead of blocking the suite */
  prctl (PR_SET_CHILD_SUBREAPER, 1);
  for (size_t i = 0; i < host->n; i++)
    {
      char *p = xasprintf ("%s%s", host->h[i].mount_point, prefix);
      CHECK (mkdir (p, 0755) == 0);
      free (p);
    }
  text = read_text ("unified", "", "cgroup.subtree_control");
  hugetlb_was_enabled = strstr (text, "hugetlb") != NULL;
  free (text);

  if (host->mode != CGROUP_MODE_HYBRID && host->mode != CGROUP_MODE_V1)
    fprintf (stderr, "SKIP v1 tests: this host is %s\n",
             cgroup_mode_name (host->mode));
  else
    {
      RUN_TEST (test_resources_v1);
      RUN_TEST (test_rollback_and_join);
      unit_current = "test_kill_and_events (hybrid)";
      test_kill_and_events (host, "hy");
      v1 = v1_only ();
      unit_current = "test_kill_and_events (v1)";
      if (v1)
        test_kill_and_events (v1, "v1");
      cgroup_layout_free (v1);
    }
  if (host->unified >= 0 && host->mode == CGROUP_MODE_HYBRID)
    RUN_TEST (test_v2_unified);
  RUN_TEST (test_systemd_absent);
  return UNIT_EXIT ();
}
