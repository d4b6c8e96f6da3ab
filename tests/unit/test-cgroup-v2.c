/* cgroup v2 file formats against a fake tree in a temp dir (this machine
 * has no v2 controllers): controller delegation through subtree_control,
 * what each OCI resource writes (memory.max/low/swap.max, pids.max,
 * cpu.weight/max/max.burst/idle, cpuset, io.weight/io.bfq.weight/io.max,
 * hugetlb.<size>.max, unified), error messages naming field and file,
 * stats parsing, member listing, the limit-event watch and killing a
 * cgroup that vanishes meanwhile.  No root. */
#include "config.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"
#include "tests/unit/unit.h"

static char tmp[] = "/tmp/agentrt-cgroup-v2-XXXXXX";
static char *leaf; /* tmp/parent/ID */

static void
put (const char *rel, const char *text)
{
  char *path = xasprintf ("%s/%s", tmp, rel);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK (fd >= 0 && write (fd, text, strlen (text)) == (ssize_t) strlen (text));
  close (fd);
  free (path);
}

static char *
get (const char *rel)
{
  char *path = xasprintf ("%s/%s", tmp, rel), buf[4096];
  int fd = open (path, O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read (fd, buf, sizeof buf - 1);
  close (fd);
  free (path);
  if (n < 0)
    return xstrdup ("<missing>");
  buf[n] = '\0';
  return xstrdup (buf);
}

/* Fake files keep the tail of a longer earlier content: compare the
 * start. */
#define CHECK_FILE_START(rel, want)                                         \
  do                                                                        \
    {                                                                       \
      char *got_ = get (rel);                                               \
      if (strncmp (got_, want, strlen (want)) != 0)                         \
        CHECK_STR_EQ (got_, want);                                          \
      free (got_);                                                          \
    }                                                                       \
  while (0)

#define CHECK_FILE(rel, want)                                               \
  do                                                                        \
    {                                                                       \
      char *got_ = get (rel);                                               \
      CHECK_STR_EQ (got_, want);                                            \
      free (got_);                                                          \
    }                                                                       \
  while (0)

/* The leaf's control files, empty; cpu.max as the kernel starts it. */
static void
reset_leaf (void)
{
  static const char *const files[]
      = { "memory.max", "memory.low", "memory.swap.max", "memory.high",
          "pids.max", "cpu.weight", "cpu.max.burst", "cpu.idle", "cpuset.cpus",
          "cpuset.mems", "io.weight", "io.max", "hugetlb.2MB.max",
          "hugetlb.2MB.rsvd.max", "cgroup.procs", NULL };
  for (size_t i = 0; files[i]; i++)
    {
      char *rel = xasprintf ("parent/ID/%s", files[i]);
      put (rel, "");
      free (rel);
    }
  put ("parent/ID/cpu.max", "max 100000\n");
  put ("parent/ID/memory.current", "4096\n");
}

static struct cgroup_layout *layout;

static struct cgroup *
leaf_cgroup (void)
{
  return cg_new (layout, "/parent/ID", NULL, false);
}

static int
apply (const struct oci_resources *r, struct str_list *warnings, bool update,
       agentrt_error_t *err)
{
  struct cgroup *cg = leaf_cgroup ();
  struct cg_apply a = { .cg = cg, .warnings = warnings, .update = update };
  int ret = cg_apply_resources (&a, r, err);
  cgroup_free (cg);
  return ret;
}

static void
test_delegation (void)
{
  struct cgroup *cg = leaf_cgroup ();
  agentrt_error_t err = NULL;
  int created[1];
  char *text;

  CHECK (cg_create_dirs (cg, 1u << CG_MEMORY, created, &err) == 0);
  CHECK (created[0] == -1 && !cg->owned); /* it existed: joined */
  /* the root lacked cpuset and hugetlb; the parent delegated nothing */
  text = get ("cgroup.subtree_control");
  CHECK (strncmp (text, "+cpuset +hugetlb +rdma", 22) == 0);
  free (text);
  CHECK_FILE ("parent/cgroup.subtree_control", "+cpu +cpuset +memory +io +pids");
  cgroup_free (cg);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);

  /* created here: the new level is recorded and removed on rollback (the
   * leaf, as its parent now, delegates everything already) */
  put ("parent/ID/cgroup.subtree_control",
       "cpuset cpu io memory hugetlb pids rdma\n");
  cg = cg_new (layout, "/parent/ID/sub", NULL, false);
  CHECK (cg_create_dirs (cg, 0, created, &err) == 0);
  CHECK (created[0] == 2 && cg->owned);
  cg_remove_created (cg, created);
  text = xasprintf ("%s/sub", leaf);
  CHECK (access (text, F_OK) < 0);
  CHECK (access (leaf, F_OK) == 0);
  free (text);
  cgroup_free (cg);
}

static void
test_memory (void)
{
  struct oci_memory m = { .has_limit = true, .limit = 100 << 20,
                          .has_swap = true, .swap = 150 << 20,
                          .has_reservation = true, .reservation = 50 << 20,
                          .has_swappiness = true, .swappiness = 60,
                          .has_disable_oom_killer = true,
                          .disable_oom_killer = true, .has_kernel = true,
                          .kernel = 1 };
  struct oci_resources r = { .memory = &m };
  struct str_list warnings = { 0 };
  agentrt_error_t err = NULL;

  reset_leaf ();
  CHECK (apply (&r, &warnings, false, &err) == 0);
  CHECK_FILE ("parent/ID/memory.max", "104857600");
  CHECK_FILE ("parent/ID/memory.swap.max", "52428800"); /* swap - limit */
  CHECK_FILE ("parent/ID/memory.low", "52428800");
  CHECK (warnings.len == 3);
  for (size_t i = 0; i < warnings.len; i++)
    CHECK_CONTAINS (warnings.items[i], "ignored");
  str_list_free (&warnings);

  /* hostile: swap below the limit, swap without a limit */
  m.swap = 10;
  CHECK (apply (&r, NULL, false, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "linux.resources.memory.swap");
  m.has_limit = false;
  CHECK (apply (&r, NULL, false, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "needs a memory limit");
  agentrt_error_release (&err);

  /* unlimited memory: unlimited swap too */
  reset_leaf ();
  m = (struct oci_memory){ .has_limit = true, .limit = -1 };
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/memory.max", "max");
  CHECK_FILE ("parent/ID/memory.swap.max", "max");
  /* swap equal to the limit: no swap at all */
  reset_leaf ();
  m = (struct oci_memory){ .has_limit = true, .limit = 1 << 20, .has_swap = true,
                           .swap = 1 << 20 };
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/memory.swap.max", "0");

  /* checkBeforeUpdate: usage is 4096 */
  m = (struct oci_memory){ .has_limit = true, .limit = 1024,
                           .has_check_before_update = true,
                           .check_before_update = true };
  CHECK (apply (&r, NULL, true, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "below the current usage 4096");
  agentrt_error_release (&err);
}

static void
test_pids_and_errors (void)
{
  struct oci_pids p = { .has_limit = true, .limit = 0 };
  struct oci_resources r = { .pids = &p };
  agentrt_error_t err = NULL;
  char *path;

  reset_leaf ();
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/pids.max", "1");
  p.limit = -1;
  reset_leaf ();
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/pids.max", "max");
  p.limit = 100;
  reset_leaf ();
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/pids.max", "100");

  /* a file the kernel refuses: the error names the field and the file */
  path = xasprintf ("%s/pids.max", leaf);
  unlink (path);
  CHECK (mkdir (path, 0755) == 0);
  CHECK (apply (&r, NULL, false, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "linux.resources.pids.limit");
  CHECK_CONTAINS (err ? err->msg : NULL, "/parent/ID/pids.max");
  agentrt_error_release (&err);
  rmdir (path);
  free (path);
}

static void
test_cpu (void)
{
  struct oci_cpu c = { .has_shares = true, .shares = 1024, .has_quota = true,
                       .quota = 50000, .has_period = true, .period = 200000,
                       .has_burst = true, .burst = 1000, .has_idle = true,
                       .idle = 1, .cpus = (char *) "0-1", .mems = (char *) "0" };
  struct oci_resources r = { .cpu = &c };
  agentrt_error_t err = NULL;

  reset_leaf ();
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/cpu.weight", "100");
  CHECK_FILE ("parent/ID/cpu.max", "50000 200000");
  CHECK_FILE ("parent/ID/cpu.max.burst", "1000");
  CHECK_FILE ("parent/ID/cpu.idle", "1");
  CHECK_FILE ("parent/ID/cpuset.cpus", "0-1");
  CHECK_FILE ("parent/ID/cpuset.mems", "0");

  /* update of the quota alone keeps the period */
  put ("parent/ID/cpu.max", "50000 200000\n");
  c = (struct oci_cpu){ .has_quota = true, .quota = 20000 };
  CHECK (apply (&r, NULL, true, &err) == 0);
  CHECK_FILE_START ("parent/ID/cpu.max", "20000 200000");
  /* and of the period alone keeps the quota; -1 is unlimited */
  put ("parent/ID/cpu.max", "20000 200000\n");
  c = (struct oci_cpu){ .has_period = true, .period = 100000 };
  CHECK (apply (&r, NULL, true, &err) == 0);
  CHECK_FILE_START ("parent/ID/cpu.max", "20000 100000");
  c = (struct oci_cpu){ .has_quota = true, .quota = -1, .has_period = true,
                        .period = 100000 };
  put ("parent/ID/cpu.max", ""); /* both given: not read */
  CHECK (apply (&r, NULL, true, &err) == 0);
  CHECK_FILE ("parent/ID/cpu.max", "max 100000");

  /* real-time limits do not exist on v2: refused, not skipped */
  c = (struct oci_cpu){ .has_realtime_runtime = true, .realtime_runtime = 1000 };
  CHECK (apply (&r, NULL, false, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "linux.resources.cpu.realtimeRuntime");
  agentrt_error_release (&err);
}

static void
test_io (void)
{
  struct oci_blkio_throttle_device rbps[]
      = { { 8, 0, 1048576 }, { 8, 16, 0 } };
  struct oci_blkio_throttle_device wiops[] = { { 253, 1, 300 } };
  struct oci_blkio_weight_device wd[]
      = { { .major = 8, .minor = 0, .has_weight = true, .weight = 1000,
            .has_leaf_weight = true, .leaf_weight = 10 } };
  struct oci_blkio b = { .has_weight = true, .weight = 500,
                         .weight_devices = wd, .n_weight_devices = 1,
                         .throttle_read_bps = { rbps, 2 },
                         .throttle_write_iops = { wiops, 1 } };
  struct oci_resources r = { .blkio = &b };
  struct str_list warnings = { 0 };
  agentrt_error_t err = NULL;

  reset_leaf ();
  CHECK (apply (&r, &warnings, false, &err) == 0);
  /* (a fake file shows the last open's writes: the device line) */
  CHECK_FILE ("parent/ID/io.weight", "8:0 10000\n");
  CHECK_FILE ("parent/ID/io.max",
              "8:0 rbps=1048576\n8:16 rbps=max\n253:1 wiops=300\n");
  CHECK (warnings.len == 1);
  CHECK_CONTAINS (warnings.len ? warnings.items[0] : NULL, "leafWeight");
  str_list_free (&warnings);
  b.n_weight_devices = 0;
  reset_leaf ();
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/io.weight", "4950"); /* 10..1000 -> 1..10000 */
  /* with BFQ: its own file and the OCI scale */
  reset_leaf ();
  put ("parent/ID/io.bfq.weight", "");
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/io.bfq.weight", "500");
  {
    char *bfq = xasprintf ("%s/io.bfq.weight", leaf);
    unlink (bfq);
    free (bfq);
  }
  agentrt_error_release (&err);
}

static void
test_hugetlb_unified (void)
{
  struct oci_hugepage_limit ok[] = { { (char *) "2MB", 4194304 } };
  struct oci_hugepage_limit bad[] = { { (char *) "2XB", 1 } };
  struct oci_hugepage_limit missing[] = { { (char *) "4MB", 1 } };
  struct kv kvs[] = { { (char *) "memory.high", (char *) "1000" } };
  struct oci_resources r = { .hugepage_limits = ok, .n_hugepage_limits = 1 };
  agentrt_error_t err = NULL;
  static const char *const refused[]
      = { "../memory.max", "a/b.c", "cgroup.procs", "cgroup.kill", "nodot",
          ".hidden", "" };

  reset_leaf ();
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/hugetlb.2MB.max", "4194304");
  CHECK_FILE ("parent/ID/hugetlb.2MB.rsvd.max", "4194304");
  r.hugepage_limits = bad;
  CHECK (apply (&r, NULL, false, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "invalid page size `2XB`");
  r.hugepage_limits = missing;
  CHECK (apply (&r, NULL, false, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "hugetlb.4MB.max");
  agentrt_error_release (&err);

  r = (struct oci_resources){ .unified = { kvs, 1 } };
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/memory.high", "1000");
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    {
      kvs[0].key = (char *) refused[i];
      CHECK (apply (&r, NULL, false, &err) < 0);
      CHECK_CONTAINS (err ? err->msg : NULL, "linux.resources.unified: key");
      agentrt_error_release (&err);
    }
  kvs[0].key = (char *) "memory.nosuchfile";
  CHECK (apply (&r, NULL, false, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "controller is not enabled");
  agentrt_error_release (&err);
}

static void
test_network_rdma (void)
{
  struct oci_interface_priority prio[] = { { (char *) "eth0", 5 } };
  struct oci_network net = { .has_class_id = true, .class_id = 0x100001 };
  struct oci_rdma rdma[] = { { (char *) "mlx5_0", true, 10, false, 0 },
                             { (char *) "mlx5_1", true, 1, true, 20 } };
  struct oci_resources r = { .network = &net };
  agentrt_error_t err = NULL;

  /* net_cls and net_prio exist only in v1: refused, not skipped */
  CHECK (apply (&r, NULL, false, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "linux.resources.network.classID");
  CHECK_CONTAINS (err ? err->msg : NULL, "only in cgroup v1");
  agentrt_error_release (&err);
  net = (struct oci_network){ .priorities = prio, .n_priorities = 1 };
  CHECK (apply (&r, NULL, false, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "net_prio");
  agentrt_error_release (&err);

  put ("parent/ID/rdma.max", "");
  r = (struct oci_resources){ .rdma = rdma, .n_rdma = 2 };
  CHECK (apply (&r, NULL, false, &err) == 0);
  CHECK_FILE ("parent/ID/rdma.max", "mlx5_0 hca_handle=10\n"
                                    "mlx5_1 hca_handle=1 hca_object=20\n");
  rdma[0].device = (char *) "bad name";
  CHECK (apply (&r, NULL, false, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "invalid device name");
  agentrt_error_release (&err);
}

static void
test_stats (void)
{
  struct cgroup *cg = leaf_cgroup ();
  struct cgroup_stats st;
  agentrt_error_t err = NULL;

  put ("parent/ID/memory.current", "5000\n");
  put ("parent/ID/memory.peak", "6000\n");
  put ("parent/ID/memory.max", "max\n");
  put ("parent/ID/memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
  put ("parent/ID/memory.stat", "anon 100\nfile 200\nkernel 7\n");
  put ("parent/ID/memory.swap.current", "10\n");
  put ("parent/ID/memory.swap.max", "max\n");
  put ("parent/ID/cpu.stat", "usage_usec 1000\nuser_usec 600\nsystem_usec 400\n"
                             "nr_periods 5\nnr_throttled 2\nthrottled_usec 30\n");
  put ("parent/ID/pids.current", "3\n");
  put ("parent/ID/pids.max", "max\n");
  put ("parent/ID/io.stat",
       "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0\n");
  put ("parent/ID/hugetlb.2MB.current", "2097152\n");
  put ("parent/ID/hugetlb.2MB.events", "max 2\n");
  CHECK (cgroup_stats (cg, &st, &err) == 0);
  CHECK (st.has_cpu && st.cpu.total_ns == 1000000 && st.cpu.user_ns == 600000
         && st.cpu.kernel_ns == 400000 && st.cpu.periods == 5
         && st.cpu.throttled_periods == 2 && st.cpu.throttled_time_ns == 30000);
  CHECK (st.has_memory && st.memory.usage.usage == 5000
         && st.memory.usage.max_usage == 6000
         && st.memory.usage.limit == UINT64_MAX && st.memory.usage.failcnt == 3
         && st.memory.cache == 200 && st.memory.swap.usage == 5010);
  CHECK (st.memory.n_stat == 3 && strcmp (st.memory.stat[2].key, "kernel") == 0
         && st.memory.stat[2].value == 7);
  CHECK (st.has_pids && st.pids.current == 3 && st.pids.limit == 0);
  CHECK (st.has_blkio && st.blkio.n_service_bytes == 3
         && st.blkio.n_serviced == 3);
  CHECK (st.blkio.n_service_bytes == 3 && st.blkio.service_bytes[1].value == 2
         && strcmp (st.blkio.service_bytes[1].op, "Write") == 0
         && st.blkio.service_bytes[1].major == 8);
  for (size_t i = 0; i < st.n_hugetlb; i++)
    if (strcmp (st.hugetlb[i].page_size, "2MB") == 0)
      CHECK (st.hugetlb[i].usage == 2097152 && st.hugetlb[i].failcnt == 2);
  cgroup_stats_release (&st);
  cgroup_free (cg);
  agentrt_error_release (&err);
}

static void
test_pids_and_watch (void)
{
  struct cgroup *cg = leaf_cgroup ();
  struct cgroup_watch *w;
  struct cgroup_watch_counts c;
  agentrt_error_t err = NULL;
  pid_t *pids = NULL;
  size_t n = 0;
  char *sub = xasprintf ("%s/child", leaf);
  struct pollfd pfd;

  mkdir (sub, 0755);
  put ("parent/ID/cgroup.procs", "12\n7\n");
  put ("parent/ID/child/cgroup.procs", "7\n30\n");
  CHECK (cgroup_pids (cg, &pids, &n, &err) == 0);
  CHECK (n == 3 && pids[0] == 7 && pids[1] == 12 && pids[2] == 30);
  free (pids);

  put ("parent/ID/memory.events", "max 0\noom 0\noom_kill 0\n");
  put ("parent/ID/pids.events", "max 0\n");
  w = cgroup_watch_open (cg, &err);
  CHECK (w != NULL);
  if (w)
    {
      pfd = (struct pollfd){ .fd = cgroup_watch_fd (w), .events = POLLIN };
      CHECK (poll (&pfd, 1, 0) == 0);
      put ("parent/ID/memory.events", "max 4\noom 2\noom_kill 2\n");
      CHECK (poll (&pfd, 1, 1000) == 1);
      CHECK (cgroup_watch_read (w, &c, &err) == 1);
      CHECK (c.oom_kills == 2 && c.pids_max == 0);
      put ("parent/ID/pids.events", "max 5\n");
      CHECK (poll (&pfd, 1, 1000) == 1);
      CHECK (cgroup_watch_read (w, &c, &err) == 1);
      CHECK (c.oom_kills == 0 && c.pids_max == 5);
      CHECK (poll (&pfd, 1, 0) == 0);
      cgroup_watch_free (w);
    }
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);
  free (sub);
  cgroup_free (cg);
}

/* A cgroup removed while it is being killed (systemd removes a scope's
 * cgroup as soon as its last process exits) had nothing left: success.
 * A file missing from a cgroup that still exists stays an error. */
static void
test_kill_vanished (void)
{
  struct cgroup *cg = cg_new (layout, "/parent/gone", NULL, false);
  agentrt_error_t err = NULL;
  pid_t *pids = NULL;
  size_t n = 0;
  char *dir = xasprintf ("%s/parent/gone", tmp);
  char *procs = xasprintf ("%s/cgroup.procs", dir);

  mkdir (dir, 0755);
  put ("parent/gone/cgroup.procs", "");
  CHECK (cgroup_pids (cg, &pids, &n, &err) == 0 && n == 0); /* opens it */
  free (pids);
  /* no cgroup.freeze in a cgroup that exists: an error */
  CHECK (cgroup_kill_all (cg, SIGKILL, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "cgroup.freeze");
  agentrt_error_release (&err);
  /* removed after it was opened */
  CHECK (unlink (procs) == 0 && rmdir (dir) == 0);
  CHECK (cgroup_kill_all (cg, SIGKILL, &err) == 0);
  CHECK (cgroup_kill_all (cg, SIGTERM, &err) == 0);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);
  free (procs);
  free (dir);
  cgroup_free (cg);
}

int
main (void)
{
  static const char v2_mountinfo[]
      = "31 23 0:28 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";
  agentrt_error_t err = NULL;
  char *dir;
  int ret;

  if (mkdtemp (tmp) == NULL)
    return 99;
  dir = xasprintf ("%s/parent", tmp);
  mkdir (dir, 0755);
  leaf = xasprintf ("%s/ID", dir);
  mkdir (leaf, 0755);
  put ("cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma\n");
  put ("cgroup.subtree_control", "cpu io memory pids\n");
  put ("parent/cgroup.controllers", "cpuset cpu io memory pids\n");
  put ("parent/cgroup.subtree_control", "");
  layout = cgroup_layout_parse (v2_mountinfo, "0::/\n", tmp, &err);
  CHECK (layout != NULL);
  if (layout)
    {
      RUN_TEST (test_delegation);
      RUN_TEST (test_memory);
      RUN_TEST (test_pids_and_errors);
      RUN_TEST (test_cpu);
      RUN_TEST (test_io);
      RUN_TEST (test_hugetlb_unified);
      RUN_TEST (test_network_rdma);
      RUN_TEST (test_stats);
      RUN_TEST (test_pids_and_watch);
      RUN_TEST (test_kill_vanished);
    }
  cgroup_layout_free (layout);
  agentrt_error_release (&err);
  {
    char *cmd = xasprintf ("rm -rf '%s'", tmp);
    ret = system (cmd);
    free (cmd);
  }
  free (dir);
  free (leaf);
  return ret == 0 ? UNIT_EXIT () : EXIT_FAILURE;
}
