/* Unit tests of the cgroup layer's pure parts: mountinfo and
 * /proc/self/cgroup parsing (v1, hybrid, v2 and hostile inputs), path
 * rules for every cgroupsPath shape, systemd unit names and slices, the
 * mount plan, and the shares/weight conversions.  No root needed. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mountinfo.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"
#include "tests/unit/unit.h"

static char tmp[] = "/tmp/agentrt-cgroup-layout-XXXXXX";

/* This machine's cgroup lines (hybrid), plus unrelated mounts. */
static const char hybrid_mountinfo[]
    = "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
      "23 27 0:22 / /sys rw,relatime - sysfs sysfs rw\n"
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
      "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
      "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
      "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
      "38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n"
      "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
      "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup "
      "rw,xattr,release_agent=/bin/evil,name=systemd\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

static const char hybrid_self[] = "9:name=systemd:/user.slice/s1\n"
                                  "8:pids:/\n"
                                  "4:memory:/process_api/ec28\n"
                                  "0::/\n";

static const char v2_mountinfo[]
    = "23 27 0:22 / /sys rw,relatime - sysfs sysfs rw\n"
      "31 23 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - "
      "cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";

static const char v1_mountinfo[]
    = "31 23 0:28 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup "
      "rw,cpu,cpuacct\n"
      "33 31 0:30 / /sys/fs/cgroup/net_cls,net_prio rw - cgroup cgroup "
      "rw,net_cls,net_prio\n"
      "34 31 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "35 31 0:32 / /sys/fs/cgroup/elogind rw - cgroup cgroup "
      "rw,name=elogind\n";

static void
write_file (const char *dir, const char *name, const char *text)
{
  char *path = xasprintf ("%s/%s", dir, name);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK (fd >= 0 && write (fd, text, strlen (text)) == (ssize_t) strlen (text));
  close (fd);
  free (path);
}

static struct cgroup_layout *
parse (const char *mountinfo, const char *self)
{
  agentrt_error_t err = NULL;
  struct cgroup_layout *l = cgroup_layout_parse (mountinfo, self, tmp, &err);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);
  return l;
}

static const struct cg_hier *
hier (const struct cgroup_layout *l, const char *dir)
{
  for (size_t i = 0; i < l->n; i++)
    if (strcmp (l->h[i].dir, dir) == 0)
      return &l->h[i];
  return NULL;
}

static void
test_hostile_mountinfo (void)
{
  agentrt_error_t err = NULL;
  static const char *const bad[] = {
    "",
    "garbage\n\n\n",
    "1 2 3\n",
    "31 23 0:28 / /sys/fs/cgroup rw no-separator cgroup2 cgroup2 rw\n",
    "31 23 0:28 / /sys/fs/cgroup rw -\n",
    /* cgroups elsewhere (a container's rootfs) do not count */
    "50 31 0:29 / /var/lib/c/rootfs/sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n",
    /* names with a slash, "." or ".." below /sys/fs/cgroup do not count */
    ("50 31 0:29 / /sys/fs/cgroup/a/b rw - cgroup cgroup rw,cpu\n"
     "51 31 0:29 / /sys/fs/cgroup/.. rw - cgroup cgroup rw,cpu\n"),
    /* a bad escape */
    "31 23 0:28 / /sys/fs/cgroup\\9 rw - cgroup2 cgroup2 rw\n",
  };

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      struct cgroup_layout *l = cgroup_layout_parse (bad[i], "", tmp, &err);
      CHECK (l == NULL);
      CHECK_CONTAINS (err ? err->msg : NULL, "no cgroup filesystem");
      agentrt_error_release (&err);
    }
  CHECK (cgroup_layout_parse (bad[0], NULL, NULL, &err) == NULL);
  agentrt_error_release (&err);
}

static void
test_unescape (void)
{
  char s[] = "/a\\040b\\011c\\134d";
  char bad1[] = "x\\09", bad2[] = "x\\4";
  CHECK (mountinfo_unescape (s) == 0);
  CHECK_STR_EQ (s, "/a b\tc\\d");
  CHECK (mountinfo_unescape (bad1) < 0);
  CHECK (mountinfo_unescape (bad2) < 0);
}

static void
test_hybrid (void)
{
  struct cgroup_layout *l;
  const struct cg_hier *h;

  write_file (tmp, "unified/cgroup.controllers", "hugetlb\n");
  l = parse (hybrid_mountinfo, hybrid_self);
  CHECK (l != NULL);
  if (l == NULL)
    return;
  CHECK (cgroup_layout_mode (l) == CGROUP_MODE_HYBRID);
  CHECK_STR_EQ (cgroup_mode_name (l->mode), "hybrid");
  CHECK (l->n == 10);
  h = hier (l, "systemd");
  CHECK (h && !h->v2);
  /* release_agent and xattr never reach the mount data */
  CHECK_STR_EQ (h ? h->data : NULL, "none,name=systemd");
  CHECK_STR_EQ (h ? h->own : NULL, "/user.slice/s1");
  h = hier (l, "memory");
  CHECK_STR_EQ (h ? h->own : NULL, "/process_api/ec28");
  CHECK_STR_EQ (h ? h->data : NULL, "memory");
  h = hier (l, "cpu");
  CHECK_STR_EQ (h ? h->own : NULL, "/"); /* not listed: the root */
  h = hier (l, "unified");
  CHECK (h && h->v2);
  CHECK (l->unified >= 0 && l->h[l->unified].v2);
  /* hugetlb lives on the cgroup2 mount; the rest on v1 */
  CHECK (l->route[CG_HUGETLB] == l->unified);
  CHECK (l->route[CG_MEMORY] >= 0 && !l->h[l->route[CG_MEMORY]].v2);
  CHECK (l->route[CG_FREEZER] >= 0 && !l->h[l->route[CG_FREEZER]].v2);
  CHECK (l->route[CG_DEVICES] >= 0 && !l->h[l->route[CG_DEVICES]].v2);
  CHECK (l->route[CG_CPUACCT] >= 0
         && strcmp (l->h[l->route[CG_CPUACCT]].dir, "cpuacct") == 0);
  cgroup_layout_free (l);
}

static void
test_v2 (void)
{
  struct cgroup_layout *l;

  write_file (tmp, "cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
  l = parse (v2_mountinfo, "0::/user.slice/user-0.slice/session-1.scope\n");
  CHECK (l && cgroup_layout_mode (l) == CGROUP_MODE_V2);
  if (l == NULL)
    return;
  CHECK (l->n == 1 && l->unified == 0);
  CHECK_STR_EQ (l->h[0].mount_point, tmp);
  CHECK_STR_EQ (l->h[0].own, "/user.slice/user-0.slice/session-1.scope");
  for (int c = 0; c < CG_NCTRL; c++)
    CHECK (l->route[c] == (c == CG_NET_CLS || c == CG_NET_PRIO ? -1 : 0));
  cgroup_layout_free (l);

  /* a tmpfs mounted later over a cgroup2 /sys/fs/cgroup hides it */
  {
    char *stacked = xasprintf (
        "%s"
        "60 23 0:40 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
        "61 60 0:41 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
        "62 31 0:42 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n",
        v2_mountinfo);
    l = parse (stacked, "");
    CHECK (l && l->mode == CGROUP_MODE_V1 && l->n == 1);
    CHECK (l && hier (l, "memory") && !hier (l, "pids"));
    cgroup_layout_free (l);
    free (stacked);
  }
}

static void
test_v1 (void)
{
  struct cgroup_layout *l = parse (v1_mountinfo, "5:cpuacct,cpu:/x\n3:memory:/m\n");
  const struct cg_hier *h;

  CHECK (l && l->mode == CGROUP_MODE_V1);
  if (l == NULL)
    return;
  /* elogind's named hierarchy is not joined */
  CHECK (l->n == 3 && hier (l, "elogind") == NULL);
  h = hier (l, "cpu,cpuacct");
  CHECK_STR_EQ (h ? h->data : NULL, "cpu,cpuacct");
  CHECK_STR_EQ (h ? h->own : NULL, "/x"); /* order-insensitive match */
  CHECK (l->route[CG_CPU] == l->route[CG_CPUACCT]);
  CHECK (l->route[CG_PIDS] < 0 && l->route[CG_HUGETLB] < 0);
  CHECK (l->route[CG_FREEZER] < 0 && l->unified < 0);
  cgroup_layout_free (l);
}

static void
test_clean_path (void)
{
  static const char *const cases[][2] = {
    { "/a/b", "/a/b" },        { "/a//b/", "/a/b" },   { "/a/./b", "/a/b" },
    { "/a/../b", "/b" },       { "/../../x", "/x" },   { "/..", "/" },
    { "/", "/" },              { "a/b", "a/b" },       { "../../a", "a" },
    { "a/../..", "" },         { "./a/", "a" },        { "/a/b/../../..", "/" },
    { "/libpod_parent/libpod-1", "/libpod_parent/libpod-1" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char *c = cg_clean_path (cases[i][0]);
      CHECK_STR_EQ (c, cases[i][1]);
      free (c);
    }
}

static char *
resolve (const struct cgroup_layout *l, const char *id, const char *path,
         bool systemd, char **unit, agentrt_error_t *err)
{
  struct cg_target t;
  char *p;

  if (cg_resolve (l, id, path, systemd, &t, err) < 0)
    return NULL;
  p = steal_pointer (&t.path);
  if (unit)
    *unit = steal_pointer (&t.unit);
  cg_target_release (&t);
  return p;
}

static void
test_resolve_fs (void)
{
  struct cgroup_layout *hy = parse (hybrid_mountinfo, hybrid_self);
  struct cgroup_layout *v2 = parse (v2_mountinfo, "0::/user.slice/sess.scope\n");
  agentrt_error_t err = NULL;
  static const char *const cases[][3] = {
    /* path, hybrid, v2 */
    { "/libpod_parent/libpod-ID", "/libpod_parent/libpod-ID",
      "/libpod_parent/libpod-ID" },
    { "/k8s.io/ID", "/k8s.io/ID", "/k8s.io/ID" },
    { "/docker/ID", "/docker/ID", "/docker/ID" },
    { "/../../etc/x", "/etc/x", "/etc/x" },
    /* relative: the systemd hierarchy's own cgroup; v2: its parent */
    { "foo/bar", "/user.slice/s1/foo/bar", "/user.slice/foo/bar" },
    { "../../../../x", "/user.slice/s1/x", "/user.slice/x" },
    /* absent: the id, relative */
    { NULL, "/user.slice/s1/ID", "/user.slice/ID" },
    { "", "/user.slice/s1/ID", "/user.slice/ID" },
  };

  CHECK (hy && v2);
  if (!hy || !v2)
    return;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char *a = resolve (hy, "ID", cases[i][0], false, NULL, &err);
      char *b = resolve (v2, "ID", cases[i][0], false, NULL, &err);
      CHECK_STR_EQ (a, cases[i][1]);
      CHECK_STR_EQ (b, cases[i][2]);
      free (a);
      free (b);
    }
  /* hostile: the root cgroup, bad ids */
  CHECK (resolve (hy, "ID", "/", false, NULL, &err) == NULL);
  CHECK_CONTAINS (err ? err->msg : NULL, "root cgroup");
  CHECK (resolve (hy, "ID", "/a/..", false, NULL, &err) == NULL);
  CHECK (resolve (hy, "..", NULL, false, NULL, &err) == NULL);
  CHECK_CONTAINS (err ? err->msg : NULL, "invalid container id");
  CHECK (resolve (hy, "a/b", NULL, false, NULL, &err) == NULL);
  CHECK (resolve (hy, "", NULL, false, NULL, &err) == NULL);
  agentrt_error_release (&err);
  cgroup_layout_free (hy);
  cgroup_layout_free (v2);
}

static void
test_resolve_systemd (void)
{
  struct cgroup_layout *v2 = parse (v2_mountinfo, "0::/\n");
  agentrt_error_t err = NULL;
  static const char *const ok[][3] = {
    { "machine.slice:libpod:ID", "/machine.slice/libpod-ID.scope",
      "libpod-ID.scope" },
    { "system.slice:docker:ID", "/system.slice/docker-ID.scope",
      "docker-ID.scope" },
    { "kubepods-besteffort-pod1_2.slice:cri-containerd:ID",
      "/kubepods.slice/kubepods-besteffort.slice/"
      "kubepods-besteffort-pod1_2.slice/cri-containerd-ID.scope",
      "cri-containerd-ID.scope" },
    { ":libpod:ID", "/system.slice/libpod-ID.scope", "libpod-ID.scope" },
    { "-:p:ID", "/p-ID.scope", "p-ID.scope" },
    { "user.slice::ID", "/user.slice/ID.scope", "ID.scope" },
    { NULL, "/system.slice/agentrt-ID.scope", "agentrt-ID.scope" },
  };
  static const char *const bad[] = {
    "/docker/ID", "a:b", "a:b:c:d", "machine.slice:libpod:", "foo:p:ID",
    "a--b.slice:p:ID", "-a.slice:p:ID", "a-.slice:p:ID", ".slice:p:ID",
    "machine.slice:p:x.slice", "machine.slice:p/q:ID", "a/b.slice:p:ID",
    "machine.slice:p:ID with space",
  };

  if (v2 == NULL)
    return;
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    {
      char *unit = NULL, *p = resolve (v2, "ID", ok[i][0], true, &unit, &err);
      if (err)
        fprintf (stderr, "%s\n", err->msg);
      agentrt_error_release (&err);
      CHECK_STR_EQ (p, ok[i][1]);
      CHECK_STR_EQ (unit, ok[i][2]);
      free (p);
      free (unit);
    }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      char *p = resolve (v2, "ID", bad[i], true, NULL, &err);
      CHECK (p == NULL);
      if (p)
        fprintf (stderr, "accepted %s -> %s\n", bad[i], p);
      CHECK (err != NULL);
      free (p);
      agentrt_error_release (&err);
    }
  cgroup_layout_free (v2);
}

static void
test_mounts_plan (void)
{
  struct cgroup_layout *v1 = parse (v1_mountinfo, "");
  struct cgroup_layout *v2 = parse (v2_mountinfo, "0::/\n");
  struct cgroup_request req = { .id = "ID", .cgroups_path = "/docker/ID" };
  struct cgroup_mounts *m;
  agentrt_error_t err = NULL;

  req.layout = v1;
  m = cgroup_mounts_plan (&req, &err);
  CHECK (m && m->tmpfs && m->len == 3);
  for (size_t i = 0; m && i < m->len; i++)
    {
      char *want = xasprintf ("%s/%s/docker/ID", tmp, m->items[i].dir);
      CHECK_STR_EQ (m->items[i].host_path, want);
      CHECK_STR_EQ (m->items[i].fstype, "cgroup");
      free (want);
      if (strcmp (m->items[i].dir, "cpu,cpuacct") == 0)
        {
          CHECK_STR_EQ (m->items[i].links[0], "cpu");
          CHECK_STR_EQ (m->items[i].links[1], "cpuacct");
          CHECK (m->items[i].links[2] == NULL);
          CHECK_STR_EQ (m->items[i].data, "cpu,cpuacct");
        }
      else if (strcmp (m->items[i].dir, "memory") == 0)
        CHECK (m->items[i].links[0] == NULL);
    }
  cgroup_mounts_free (m);

  req.layout = v2;
  m = cgroup_mounts_plan (&req, &err);
  CHECK (m && !m->tmpfs && m->len == 1);
  if (m)
    {
      char *want = xasprintf ("%s/docker/ID", tmp);
      CHECK_STR_EQ (m->items[0].dir, "");
      CHECK_STR_EQ (m->items[0].fstype, "cgroup2");
      CHECK (m->items[0].data == NULL);
      CHECK_STR_EQ (m->items[0].host_path, want);
      free (want);
    }
  cgroup_mounts_free (m);

  req.cgroups_path = "/";
  CHECK (cgroup_mounts_plan (&req, &err) == NULL && err != NULL);
  agentrt_error_release (&err);
  cgroup_layout_free (v1);
  cgroup_layout_free (v2);
}

static void
test_open_hostile (void)
{
  struct cgroup_layout *v2 = parse (v2_mountinfo, "0::/\n");
  static const char *const bad[]
      = { "", "relative", "/", "/a/../b", "/a/./b", "/../x", "/a/..", "/a//b",
          "/a/" };
  agentrt_error_t err = NULL;
  struct cgroup *cg;

  for (size_t i = 0; v2 && i < sizeof bad / sizeof bad[0]; i++)
    {
      CHECK (cgroup_open (v2, bad[i], NULL, true, &err) == NULL);
      CHECK_CONTAINS (err ? err->msg : NULL, "invalid cgroup path");
      agentrt_error_release (&err);
    }
  CHECK (v2 && cgroup_open (v2, NULL, NULL, true, &err) == NULL);
  agentrt_error_release (&err);
  cg = v2 ? cgroup_open (v2, "/machine.slice/libpod-1.scope", "libpod-1.scope",
                         false, &err)
          : NULL;
  CHECK (cg && !cgroup_owned (cg));
  CHECK_STR_EQ (cg ? cgroup_systemd_unit (cg) : NULL, "libpod-1.scope");
  /* the directory does not exist: killing nothing is fine */
  CHECK (cg && cgroup_kill_all (cg, 9, &err) == 0);
  cgroup_free (cg);
  cgroup_layout_free (v2);
}

static void
test_conversions (void)
{
  /* Values of runc's/crun's formula computed with libm. */
  static const uint64_t shares[][2]
      = { { 0, 0 },       { 1, 1 },       { 2, 1 },         { 3, 2 },
          { 10, 4 },      { 100, 17 },    { 512, 59 },      { 1023, 100 },
          { 1024, 100 },  { 1025, 101 },  { 2048, 174 },    { 10000, 627 },
          { 100000, 4340 }, { 262143, 10000 }, { 262144, 10000 },
          { UINT64_MAX, 10000 } };
  for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++)
    CHECK (cg_shares_to_weight (shares[i][0]) == shares[i][1]);
  CHECK (cg_blkio_to_io_weight (0) == 0);
  CHECK (cg_blkio_to_io_weight (10) == 1);
  CHECK (cg_blkio_to_io_weight (500) == 4950);
  CHECK (cg_blkio_to_io_weight (1000) == 10000);
}

int
main (void)
{
  char *unified;

  if (mkdtemp (tmp) == NULL)
    return 99;
  unified = xasprintf ("%s/unified", tmp);
  mkdir (unified, 0755);
  RUN_TEST (test_hostile_mountinfo);
  RUN_TEST (test_unescape);
  RUN_TEST (test_hybrid);
  RUN_TEST (test_v2);
  RUN_TEST (test_v1);
  RUN_TEST (test_clean_path);
  RUN_TEST (test_resolve_fs);
  RUN_TEST (test_resolve_systemd);
  RUN_TEST (test_mounts_plan);
  RUN_TEST (test_open_hostile);
  RUN_TEST (test_conversions);
  {
    char *cmd = xasprintf ("rm -rf '%s'", tmp);
    if (system (cmd) != 0)
      fprintf (stderr, "could not remove %s\n", tmp);
    free (cmd);
  }
  free (unified);
  return UNIT_EXIT ();
}
