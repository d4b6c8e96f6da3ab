/* User namespace ranges (runtime/idrange.c, idrange_store.c), hostile
 * cases first: overlapping and repeated /etc/subuid lines never give two
 * slots one id, ranges over host root or past 2^32 are cut, a corrupt
 * store fails closed, an exhausted pool says so, stale entries (dead
 * runtime, no state dir) are reclaimed while live ones never are, and
 * processes allocating at once get disjoint ranges. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/idrange.h"
#include "runtime/idrange_store.h"
#include "runtime/policy/userns_auto.h"
#include "tests/unit/unit.h"

#define SLOT USERNS_AUTO_SIZE

static bool
disjoint (const uint32_t *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    for (size_t k = i + 1; k < n; k++)
      if ((uint64_t) s[i] < (uint64_t) s[k] + SLOT
          && (uint64_t) s[k] < (uint64_t) s[i] + SLOT)
        return false;
  return true;
}

static void
test_overlapping_lines_merge (void)
{
  /* two overlapping lines, a repeat, a line inside another */
  struct idmap_range r[] = { { 100000, 131072 }, { 165536, 131072 },
                             { 100000, 131072 }, { 120000, 10 } };
  cleanup_free uint32_t *s = NULL;
  size_t n = idrange_slots (r, 4, &s);

  /* 100000..296607 merged: 196608 ids, three slots */
  CHECK (n == 3);
  CHECK (disjoint (s, n));
  CHECK (n == 3 && s[0] == 100000 && s[1] == 165536 && s[2] == 231072);
}

static void
test_root_and_top_are_cut (void)
{
  struct idmap_range root[] = { { 0, 3 * SLOT } };
  struct idmap_range top[] = { { UINT32_MAX - SLOT + 1, SLOT } };
  struct idmap_range small[] = { { 200000, SLOT - 1 } };
  struct idmap_range adjacent[] = { { 200000, SLOT / 2 },
                                    { 200000 + SLOT / 2, SLOT / 2 } };
  cleanup_free uint32_t *a = NULL;
  cleanup_free uint32_t *b = NULL;
  cleanup_free uint32_t *c = NULL;
  cleanup_free uint32_t *d = NULL;
  uint32_t *none = NULL;

  /* 0..196607: only 65536.. is used */
  CHECK (idrange_slots (root, 1, &a) == 2);
  CHECK (a && a[0] == 65536);
  /* 4294967295 is no id: what is left is shorter than a slot */
  CHECK (idrange_slots (top, 1, &b) == 0);
  CHECK (idrange_slots (small, 1, &c) == 0);
  /* two halves that touch make one slot */
  CHECK (idrange_slots (adjacent, 2, &d) == 1);
  CHECK (idrange_slots (NULL, 0, &none) == 0 && none == NULL);
}

static const char *
parse_error (const char *text)
{
  static char msg[512];
  cleanup_error agentrt_error_t err = NULL;
  struct idrange_table t;

  if (idrange_parse (text, "ranges", &t, &err) == 0)
    {
      idrange_table_free (&t);
      return "ok";
    }
  snprintf (msg, sizeof msg, "%s", err->msg);
  return msg;
}

static void
test_corrupt_store_fails_closed (void)
{
  CHECK_CONTAINS (parse_error ("garbage\n"), "`ranges` line 1: not an "
                  "allocation");
  CHECK_CONTAINS (parse_error ("100000 100000 65536 1 2 a\nx\n"), "line 2");
  /* a number too large, a negative pid, no id, two ids, a range past 2^32,
   * a zero size, a missing field */
  CHECK_CONTAINS (parse_error ("4294967296 1 65536 1 2 a\n"), "line 1");
  CHECK_CONTAINS (parse_error ("100000 100000 65536 -1 2 a\n"), "line 1");
  CHECK_CONTAINS (parse_error ("100000 100000 65536 1 2 \n"), "line 1");
  CHECK_CONTAINS (parse_error ("100000 100000 65536 1 2 a b\n"), "line 1");
  CHECK_CONTAINS (parse_error ("4294901760 100000 65537 1 2 a\n"), "line 1");
  CHECK_CONTAINS (parse_error ("100000 100000 0 1 2 a\n"), "line 1");
  CHECK_CONTAINS (parse_error ("100000 100000 65536 1 a\n"), "line 1");
  CHECK_STR_EQ (parse_error (""), "ok");
  CHECK_STR_EQ (parse_error ("\n100000 200000 65536 7 99 c-1\n"), "ok");
}

static void
pool_of (uint32_t uid, uint32_t gid, uint32_t size, struct idrange_pool *p)
{
  struct agent_policy pol;

  policy_init_defaults (&pol);
  pol.userns_has_pool = true;
  pol.userns_pool_uid = uid;
  pol.userns_pool_gid = gid;
  pol.userns_pool_size = size;
  idrange_pool_decide (&pol, NULL, NULL, p);
  policy_release (&pol);
}

static void
test_exhausted_pool (void)
{
  cleanup_error agentrt_error_t err = NULL;
  struct idrange_pool p;
  struct idrange_table t = { 0 };
  uint32_t uid, gid;

  pool_of (100000, 300000, 2 * SLOT, &p);
  CHECK (p.n == 2);
  CHECK (idrange_choose (&p, &t, &uid, &gid, &err) == 0);
  CHECK (uid == 100000 && gid == 300000);
  idrange_add (&t, uid, gid, 1, 1, "a");
  CHECK (idrange_choose (&p, &t, &uid, &gid, &err) == 0);
  CHECK (uid == 100000 + SLOT && gid == 300000 + SLOT);
  idrange_add (&t, uid, gid, 1, 1, "b");
  CHECK (idrange_choose (&p, &t, &uid, &gid, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "no free range of 65536 ids in the "
                  "policy's userns.pool (2 ranges; 2 containers hold one)");
  /* a stale entry's slot is free again */
  t.items[0].live = false;
  CHECK (idrange_choose (&p, &t, &uid, &gid, NULL) == 0 && uid == 100000);
  idrange_table_free (&t);
  idrange_pool_release (&p);
}

static void
test_live_entry_overlapping_any_slot (void)
{
  struct idrange_pool p;
  struct idrange_table t = { 0 };
  uint32_t uid, gid;

  /* an entry from an older pool that straddles two slots of this one
   * (the pool changed): both are taken; one whose gid alone overlaps too */
  pool_of (100000, 100000, 4 * SLOT, &p);
  idrange_add (&t, 100000 + SLOT / 2, 900000, 1, 1, "old");
  idrange_add (&t, 700000, 100000 + 2 * SLOT, 1, 1, "gid-only");
  CHECK (idrange_choose (&p, &t, &uid, &gid, NULL) == 0);
  CHECK (uid == 100000 + 3 * SLOT && gid == uid);
  idrange_table_free (&t);
  idrange_pool_release (&p);
}

static void
test_pool_from_subid (void)
{
  struct agent_policy pol;
  struct idrange_pool p;

  policy_init_defaults (&pol);
  /* subuid has agentrt (twice, overlapping), subgid too: those */
  idrange_pool_decide (&pol, "root:100000:65536\nagentrt:200000:131072\n"
                       "agentrt:265536:65536\n",
                       "agentrt:500000:65536\n# agentrt:1:1\n", &p);
  CHECK_CONTAINS (p.origin, "/etc/subuid and /etc/subgid of `agentrt`");
  CHECK (p.n == 1 && p.uid[0] == 200000 && p.gid[0] == 500000);
  idrange_pool_release (&p);
  /* only subuid gives it one: the built-in pool */
  idrange_pool_decide (&pol, "agentrt:200000:65536\n", "", &p);
  CHECK_STR_EQ (p.origin, "the built-in pool");
  CHECK (p.n == 4094 && p.uid[0] == POLICY_USERNS_POOL_START);
  CHECK (p.uid[p.n - 1] + SLOT - 1 == 0x7FFDFFFF);
  idrange_pool_release (&p);
  /* a range of host root's for agentrt is cut at 65536; unreadable files */
  idrange_pool_decide (&pol, "agentrt:0:131072\n", "agentrt:0:131072\n", &p);
  CHECK (p.n == 1 && p.uid[0] == 65536 && p.gid[0] == 65536);
  idrange_pool_release (&p);
  idrange_pool_decide (&pol, NULL, NULL, &p);
  CHECK_STR_EQ (p.origin, "the built-in pool");
  idrange_pool_release (&p);
  policy_release (&pol);
}

static void
test_format_keeps_live (void)
{
  struct idrange_table t = { 0 }, back;
  cleanup_free char *text = NULL;

  idrange_add (&t, 100000, 200000, 42, 7, "a");
  idrange_add (&t, 300000, 400000, 43, 8, "b");
  idrange_add (&t, 500000, 600000, 44, 9, "a");
  CHECK (idrange_drop (&t, "a", true, 500000) == 1);
  text = idrange_format (&t);
  CHECK_STR_EQ (text, "100000 200000 65536 42 7 a\n"
                      "300000 400000 65536 43 8 b\n");
  CHECK (idrange_parse (text, "x", &back, NULL) == 0);
  CHECK (back.len == 2 && back.items[1].pid == 43
         && back.items[1].pid_start == 8);
  CHECK (idrange_drop (&back, "a", false, 0) == 1);
  CHECK (idrange_drop (&back, "nope", false, 0) == 0);
  idrange_table_free (&back);
  idrange_table_free (&t);
}

/* The store on disk, in a scratch root. */
static char *
scratch_root (void)
{
  char tmpl[] = "/tmp/agentrt-idrange-XXXXXX";
  char *dir = mkdtemp (tmpl);
  return dir ? xstrdup (dir) : NULL;
}

static char *
read_ranges (const char *root)
{
  cleanup_free char *path = xasprintf ("%s/.userns/ranges", root);
  FILE *f = fopen (path, "r");
  char *buf = xzalloc (1 << 16);
  if (f)
    {
      size_t n = fread (buf, 1, (1 << 16) - 1, f);
      buf[n] = '\0';
      fclose (f);
    }
  return buf;
}

static void
write_ranges (const char *root, const char *text)
{
  cleanup_free char *path = xasprintf ("%s/.userns/ranges", root);
  FILE *f = fopen (path, "w");
  CHECK (f != NULL);
  if (f)
    {
      fputs (text, f);
      fclose (f);
    }
}

static void
test_store_stale_and_live (void)
{
  cleanup_free char *root = scratch_root ();
  cleanup_free char *text = NULL;
  cleanup_free char *live_dir = NULL;
  cleanup_error agentrt_error_t err = NULL;
  struct agent_policy pol;
  uint32_t uid, gid;

  CHECK (root != NULL);
  if (root == NULL)
    return;
  policy_init_defaults (&pol);
  pol.userns_has_pool = true;
  pol.userns_pool_uid = pol.userns_pool_gid = 100000;
  pol.userns_pool_size = 2 * SLOT;
  CHECK (idrange_store_allocate (root, "first", &pol, &uid, &gid, &err) == 0);
  CHECK (uid == 100000);
  /* "first" has no state dir but its runtime (this process) lives */
  CHECK (idrange_store_allocate (root, "second", &pol, &uid, &gid, &err) == 0);
  CHECK (uid == 100000 + SLOT);
  /* full now */
  CHECK (idrange_store_allocate (root, "third", &pol, &uid, &gid, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "no free range");
  agentrt_error_release (&err);
  /* a dead runtime without a state dir: stale; one with a state dir
   * ("kept"): live, whatever its pid */
  live_dir = xasprintf ("%s/kept", root);
  CHECK (mkdir (live_dir, 0700) == 0);
  write_ranges (root, "100000 100000 65536 999999999 1 gone\n"
                      "165536 165536 65536 999999999 1 kept\n");
  CHECK (idrange_store_allocate (root, "third", &pol, &uid, &gid, &err) == 0);
  CHECK (uid == 100000);
  free (text);
  text = read_ranges (root);
  CHECK_CONTAINS (text, "165536 165536 65536 999999999 1 kept\n");
  CHECK (strstr (text, " gone\n") == NULL);
  /* release by id: "third" goes, "kept" stays */
  CHECK (idrange_store_release (root, "third", false, 0, &err) == 0);
  free (text);
  text = read_ranges (root);
  CHECK (strstr (text, " third\n") == NULL);
  CHECK_CONTAINS (text, " kept\n");
  /* a corrupt store fails the allocation, naming the file */
  write_ranges (root, "165536 165536 65536 1 1 kept\nnonsense\n");
  CHECK (idrange_store_allocate (root, "x", &pol, &uid, &gid, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "/.userns/ranges` line 2");
  agentrt_error_release (&err);
  /* releasing from a root without a store is nothing */
  CHECK (idrange_store_release ("/nonexistent/agentrt-root", "x", false, 0,
                                &err) == 0);
  rmdir (live_dir);
  policy_release (&pol);
  {
    cleanup_free char *cmd = xasprintf ("rm -rf '%s'", root);
    CHECK (system (cmd) == 0);
  }
}

/* Processes allocating at once (each its own runtime) get disjoint
 * ranges: the flock serializes them. */
static void
test_store_concurrent (void)
{
  enum { PROCS = 8, EACH = 6 };
  cleanup_free char *root = scratch_root ();
  cleanup_free char *text = NULL;
  struct agent_policy pol;
  uint32_t starts[PROCS * EACH];
  pid_t kids[PROCS];
  size_t n = 0;
  int ok = 1;

  if (root == NULL)
    return;
  policy_init_defaults (&pol);
  pol.userns_has_pool = true;
  pol.userns_pool_uid = pol.userns_pool_gid = 1000000;
  pol.userns_pool_size = 64 * SLOT;
  for (int p = 0; p < PROCS; p++)
    if ((kids[p] = fork ()) == 0)
      {
        /* held open until the parent has read the store: the entries
         * stay live (their runtime still runs) */
        for (int k = 0; k < EACH; k++)
          {
            char id[32];
            uint32_t uid, gid;
            snprintf (id, sizeof id, "c%d-%d", p, k);
            if (idrange_store_allocate (root, id, &pol, &uid, &gid, NULL) < 0)
              _exit (1);
          }
        pause ();
        _exit (0);
      }
  for (int tries = 0; tries < 200; tries++)
    {
      size_t lines = 0;
      free (text);
      text = read_ranges (root);
      for (const char *c = text; *c; c++)
        lines += *c == '\n';
      if (lines == PROCS * EACH)
        break;
      usleep (50000);
    }
  for (const char *line = text; line && *line;)
    {
      unsigned u;
      if (sscanf (line, "%u", &u) == 1 && n < PROCS * EACH)
        starts[n++] = u;
      line = strchr (line, '\n');
      line = line ? line + 1 : NULL;
    }
  for (int p = 0; p < PROCS; p++)
    if (kids[p] > 0)
      {
        kill (kids[p], SIGKILL);
        waitpid (kids[p], NULL, 0);
      }
  CHECK (n == PROCS * EACH);
  ok = disjoint (starts, n);
  CHECK (ok);
  policy_release (&pol);
  {
    cleanup_free char *cmd = xasprintf ("rm -rf '%s'", root);
    CHECK (system (cmd) == 0);
  }
}

int
main (void)
{
  RUN_TEST (test_overlapping_lines_merge);
  RUN_TEST (test_root_and_top_are_cut);
  RUN_TEST (test_corrupt_store_fails_closed);
  RUN_TEST (test_exhausted_pool);
  RUN_TEST (test_live_entry_overlapping_any_slot);
  RUN_TEST (test_pool_from_subid);
  RUN_TEST (test_format_keeps_live);
  RUN_TEST (test_store_stale_and_live);
  RUN_TEST (test_store_concurrent);
  return UNIT_EXIT ();
}
