/* Who writes a new user namespace's maps (runtime/idmap.c): hostile and
 * borderline mappings first.  A user other than root writes one line
 * mapping its own id, denying setgroups for the gid map; anything more
 * needs newuidmap/newgidmap, and an error that says so when they are
 * missing.  Then the /etc/subuid reader used for error messages. */
#include "config.h"

#include <string.h>

#include "common/cleanup.h"
#include "runtime/idmap.h"
#include "tests/unit/unit.h"

#define N(a) (sizeof (a) / sizeof ((a)[0]))

static const struct idmap_caller user = { .euid = 1001, .egid = 1002,
                                          .have_newuidmap = true,
                                          .have_newgidmap = true };
static const struct idmap_caller user_no_helpers = { .euid = 1001,
                                                     .egid = 1002 };
static const struct idmap_caller root = { .privileged = true };

static const char *
decide (const struct idmap_caller *c, const struct oci_id_mapping *u,
        size_t nu, const struct oci_id_mapping *g, size_t ng, size_t groups,
        struct idmap_plan *plan)
{
  static char msg[512];
  cleanup_error agentrt_error_t err = NULL;

  if (idmap_plan_decide (c, u, nu, g, ng, groups, plan, &err) == 0)
    return "ok";
  snprintf (msg, sizeof msg, "%s", err->msg);
  return msg;
}

static void
test_unprivileged_needs_helpers_for_more (void)
{
  static const struct oci_id_mapping own_u[] = { { 0, 1001, 1 } };
  static const struct oci_id_mapping own_g[] = { { 0, 1002, 1 } };
  /* two ids; another user's id; root's id; a range at the own id; two
   * lines, one of them the own id */
  static const struct oci_id_mapping two[] = { { 0, 1001, 2 } };
  static const struct oci_id_mapping other[] = { { 0, 1000, 1 } };
  static const struct oci_id_mapping host_root[] = { { 0, 0, 1 } };
  static const struct oci_id_mapping ranges[]
      = { { 0, 1001, 1 }, { 1, 100000, 65536 } };
  struct idmap_plan p;

  CHECK_CONTAINS (decide (&user_no_helpers, two, 1, own_g, 1, 0, &p),
                  "linux.uidMappings: maps more than the caller's own id "
                  "(1001)");
  CHECK_CONTAINS (decide (&user_no_helpers, two, 1, own_g, 1, 0, &p),
                  "newuidmap (package uidmap)");
  CHECK_CONTAINS (decide (&user_no_helpers, other, 1, own_g, 1, 0, &p),
                  "linux.uidMappings");
  CHECK_CONTAINS (decide (&user_no_helpers, host_root, 1, own_g, 1, 0, &p),
                  "linux.uidMappings");
  CHECK_CONTAINS (decide (&user_no_helpers, ranges, 2, own_g, 1, 0, &p),
                  "linux.uidMappings");
  CHECK_CONTAINS (decide (&user_no_helpers, own_u, 1, ranges, 2, 0, &p),
                  "linux.gidMappings: maps more than the caller's own id "
                  "(1002)");
  CHECK_CONTAINS (decide (&user_no_helpers, own_u, 1, ranges, 2, 0, &p),
                  "newgidmap");
  /* the uid as a gid, and the reverse, are not the caller's own */
  CHECK_CONTAINS (decide (&user_no_helpers, own_g, 1, own_g, 1, 0, &p),
                  "linux.uidMappings");
  /* with the helpers, each map goes through its own helper */
  CHECK_STR_EQ (decide (&user, ranges, 2, own_g, 1, 0, &p), "ok");
  CHECK (p.uid == IDMAP_WRITE_HELPER && p.gid == IDMAP_WRITE_DIRECT);
  CHECK (p.deny_setgroups && p.unprivileged);
  CHECK_STR_EQ (decide (&user, own_u, 1, ranges, 2, 0, &p), "ok");
  CHECK (p.uid == IDMAP_WRITE_DIRECT && p.gid == IDMAP_WRITE_HELPER);
  CHECK (!p.deny_setgroups);
  CHECK_STR_EQ (decide (&user, other, 1, host_root, 1, 0, &p), "ok");
  CHECK (p.uid == IDMAP_WRITE_HELPER && p.gid == IDMAP_WRITE_HELPER);
}

static void
test_unprivileged_own_id_is_direct (void)
{
  static const struct oci_id_mapping own_u[] = { { 0, 1001, 1 } };
  static const struct oci_id_mapping own_g[] = { { 0, 1002, 1 } };
  static const struct oci_id_mapping own_u_elsewhere[] = { { 1000, 1001, 1 } };
  struct idmap_plan p;

  CHECK_STR_EQ (decide (&user_no_helpers, own_u, 1, own_g, 1, 0, &p), "ok");
  CHECK (p.uid == IDMAP_WRITE_DIRECT && p.gid == IDMAP_WRITE_DIRECT);
  CHECK (p.deny_setgroups && p.unprivileged);
  /* the container id may be anything */
  CHECK_STR_EQ (decide (&user_no_helpers, own_u_elsewhere, 1, own_g, 1, 0, &p),
                "ok");
  /* supplementary groups need setgroups, which the direct gid map denies */
  CHECK_CONTAINS (decide (&user, own_u, 1, own_g, 1, 2, &p),
                  "process.user.additionalGids");
  CHECK_CONTAINS (decide (&user, own_u, 1, own_g, 1, 2, &p), "newgidmap");
}

static void
test_root_writes_anything (void)
{
  static const struct oci_id_mapping ranges[]
      = { { 0, 100000, 65536 }, { 65536, 0, 1 } };
  struct idmap_plan p;

  CHECK_STR_EQ (decide (&root, ranges, 2, ranges, 2, 3, &p), "ok");
  CHECK (p.uid == IDMAP_WRITE_DIRECT && p.gid == IDMAP_WRITE_DIRECT);
  CHECK (!p.deny_setgroups && !p.unprivileged);
}

static void
test_subid_hostile_lines (void)
{
  struct idmap_range r[4];
  /* comments, blanks, fields missing or extra, signs, spaces, hex,
   * overflow, a zero count, a range past 2^32, a prefix of the name */
  const char *text = "# alice:1:1\n"
                     "\n"
                     "alice\n"
                     "alice:5\n"
                     "alice:-5:10\n"
                     "alice: 5:10\n"
                     "alice:0x10:10\n"
                     "alice:4294967296:1\n"
                     "alice:100:0\n"
                     "alice:4294967295:2\n"
                     "alic:200:10\n"
                     "alice2:300:10\n"
                     "alice:10:5:7\n";

  CHECK (idmap_subid_ranges (text, "alice", 1001, r, 4) == 0);
  CHECK (idmap_subid_ranges ("", "alice", 1001, r, 4) == 0);
  CHECK (idmap_subid_ranges ("alice:1:1", NULL, 1001, r, 4) == 0);
}

static void
test_subid_ranges_found (void)
{
  struct idmap_range r[2];
  const char *text = "bob:100000:65536\n"
                     "alice:165536:65536\n"
                     "1001:300000:10\n"
                     "alice:4294967295:1\n"
                     "alice:500000:1";

  CHECK (idmap_subid_ranges (text, "alice", 1001, r, 2) == 4);
  CHECK (r[0].start == 165536 && r[0].count == 65536);
  CHECK (r[1].start == 300000 && r[1].count == 10);
  CHECK (idmap_subid_ranges (text, "bob", 1000, r, 2) == 1);
  CHECK (r[0].start == 100000);
}

/* /proc/self/uid_map text that is not a map: neither initial nor mapping
 * anything (the runtime then takes itself for unprivileged). */
static void
test_uid_map_hostile (void)
{
  static const char *const bad[] = {
    "",
    "\n",
    "0 0",
    "0 0 4294967295 7\n",
    "-1 0 1\n",
    "0 0 4294967296\n",
    "0 0 99999999999\n",
    "0 0 0\n",
    "1 0 4294967295\n",         /* inside range past 2^32 - 1 */
    "0 4294967295 2\n",         /* outside range past 2^32 - 1 */
    "0 1001 1\njunk\n",
    "0x0 0 1\n",
    "0 0 4294967295\n\n",
  };
  char many[341 * 12 + 1] = "";
  uint32_t out = 7;

  for (size_t i = 0; i < N (bad); i++)
    {
      CHECK (idmap_outer_id (bad[i], 0, &out) == -1);
      CHECK (idmap_matches (bad[i], NULL, 0) == -1);
    }
  CHECK (idmap_outer_id (NULL, 0, &out) == -1);
  for (int i = 0; i < 341; i++)
    snprintf (many + strlen (many), sizeof many - strlen (many), "%d %d 1\n",
              i, 100 + i);
  CHECK (idmap_outer_id (many, 0, &out) == -1);
  CHECK (out == 7);
}

/* The id a namespace's id stands for outside: with the kernel's padding
 * (rootless Podman's map: root is the user, then its subordinate range),
 * and none for an id the map leaves out. */
static void
test_uid_map_outer_ids (void)
{
  uint32_t out = 0;

  CHECK (idmap_outer_id ("         0       1001          1\n"
                         "         1     100000      65536\n", 0, &out) == 0);
  CHECK (out == 1001);
  CHECK (idmap_outer_id ("0 1001 1\n1 100000 65536\n", 65534, &out) == 0);
  CHECK (out == 165533);
  CHECK (idmap_outer_id ("0 1001 1\n1 100000 65536\n", 65537, &out) == -1);
  CHECK (idmap_outer_id ("0 0 4294967295\n", 4294967294u, &out) == 0);
  CHECK (out == 4294967294u);
}

/* The maps a bundle repeats for a user namespace it joins by path must
 * be that namespace's: the same lines in any order, no more, no fewer. */
static void
test_uid_map_matches (void)
{
  static const struct oci_id_mapping pod[] = { { 0, 1879048192u, 65536 } };
  static const struct oci_id_mapping two[] = { { 1, 100000, 65536 },
                                               { 0, 1001, 1 } };
  static const struct oci_id_mapping twice[] = { { 0, 1001, 1 },
                                                 { 0, 1001, 1 } };
  static const struct oci_id_mapping shifted[] = { { 0, 1879048193u, 65536 } };
  static const struct oci_id_mapping bigger[] = { { 0, 1879048192u, 65537 } };

  CHECK (idmap_matches ("         0 1879048192      65536\n", pod, 1) == 1);
  CHECK (idmap_matches ("0 1001 1\n1 100000 65536\n", two, 2) == 1);
  CHECK (idmap_matches ("0 1879048192 65536\n", shifted, 1) == 0);
  CHECK (idmap_matches ("0 1879048192 65536\n", bigger, 1) == 0);
  /* a subset either way */
  CHECK (idmap_matches ("0 1001 1\n1 100000 65536\n", two + 1, 1) == 0);
  CHECK (idmap_matches ("0 1001 1\n", two, 2) == 0);
  CHECK (idmap_matches ("0 1001 1\n", twice, 2) == 0);
  CHECK (idmap_matches ("0 1879048192 65536\n", NULL, 0) == 0);
  /* the host's own namespace is no pod's */
  CHECK (idmap_matches ("0 0 4294967295\n", pod, 1) == 0);
}

int
main (void)
{
  RUN_TEST (test_unprivileged_needs_helpers_for_more);
  RUN_TEST (test_unprivileged_own_id_is_direct);
  RUN_TEST (test_root_writes_anything);
  RUN_TEST (test_subid_hostile_lines);
  RUN_TEST (test_subid_ranges_found);
  RUN_TEST (test_uid_map_hostile);
  RUN_TEST (test_uid_map_outer_ids);
  RUN_TEST (test_uid_map_matches);
  return UNIT_EXIT ();
}
