/* Node and cpu lists (runtime/id_list.c) and linux.memoryPolicy checks
 * (runtime/mempolicy.c): hostile inputs first.  No root, nothing applied. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "oci/config.h"
#include "runtime/id_list.h"
#include "runtime/mempolicy.h"
#include "tests/unit/unit.h"

#define NBITS 128

static void
test_id_list_refuses_malformed_lists (void)
{
  static const char *const bad[] = {
    ",", "0,", ",0", "0,,1", "-", "-1", "1-", "3-1", "0-3-5", "+1", " 1",
    "1 ", "1,2 ", "0x1", "a", "1a", "1-a", "1--2", "1,-2", "\n", "1\n",
  };
  unsigned long bits[NBITS / ID_LIST_WORD_BITS];
  size_t i;

  for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      int r = id_list_parse (bad[i], bits, NBITS, NULL);
      if (r != -EINVAL)
        fprintf (stderr, "list `%s`: %d\n", bad[i], r);
      CHECK (r == -EINVAL);
    }
}

static void
test_id_list_refuses_numbers_past_the_bitmap (void)
{
  static const struct
  {
    const char *list;
    unsigned long big;
  } cases[] = {
    { "128", 128 },
    { "0-128", 128 },
    { "5,200-300", 300 },
    { "99999999999999999999999999", ULONG_MAX },
    { "0-18446744073709551616", ULONG_MAX },
  };
  unsigned long bits[NBITS / ID_LIST_WORD_BITS];
  size_t i;

  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      unsigned long big = 0;
      CHECK (id_list_parse (cases[i].list, bits, NBITS, &big) == -ERANGE);
      CHECK (big == cases[i].big);
    }
}

static void
test_id_list_sets_the_listed_bits (void)
{
  unsigned long bits[NBITS / ID_LIST_WORD_BITS];
  size_t i, n = 0;

  CHECK (id_list_parse ("", bits, NBITS, NULL) == 0);
  for (i = 0; i < NBITS; i++)
    n += (size_t) id_list_has (bits, i);
  CHECK (n == 0);
  CHECK (id_list_parse ("0-3,7,63-64,127,5-5,2", bits, NBITS, NULL) == 0);
  for (i = 0, n = 0; i < NBITS; i++)
    n += (size_t) id_list_has (bits, i);
  CHECK (n == 9);
  CHECK (id_list_has (bits, 0) && id_list_has (bits, 3) && id_list_has (bits, 7));
  CHECK (id_list_has (bits, 63) && id_list_has (bits, 64) && id_list_has (bits, 127));
  CHECK (!id_list_has (bits, 4) && !id_list_has (bits, 6) && !id_list_has (bits, 8));
  /* leading zeros are digits like others */
  CHECK (id_list_parse ("007", bits, NBITS, NULL) == 0 && id_list_has (bits, 7));
}

/* mp: mode, nodes (NULL: absent), flags (NULL-terminated) */
static int
build (const char *mode, const char *nodes, const char *const *flags,
       struct mempolicy_spec *out, agentrt_error_t *err)
{
  struct oci_memory_policy mp;
  size_t n = 0;

  memset (&mp, 0, sizeof mp);
  mp.mode = (char *) mode;
  mp.nodes = (char *) nodes;
  while (flags && flags[n])
    n++;
  mp.flags.items = (char **) flags;
  mp.flags.len = n;
  return mempolicy_build (&mp, out, err);
}

static void
test_mempolicy_refuses_what_set_mempolicy_refuses (void)
{
  static const char *const stat_rel[] = { "MPOL_F_STATIC_NODES",
                                          "MPOL_F_RELATIVE_NODES", NULL };
  static const char *const stat[] = { "MPOL_F_STATIC_NODES", NULL };
  static const char *const balancing[] = { "MPOL_F_NUMA_BALANCING", NULL };
  static const char *const unknown[] = { "MPOL_F_STATIC_NODES", "MPOL_F_EVIL",
                                         NULL };
  static const struct
  {
    const char *mode, *nodes;
    const char *const *flags;
    const char *error;
  } cases[] = {
    { "MPOL_EVIL", "0", NULL, "linux.memoryPolicy.mode: unknown mode `MPOL_EVIL`" },
    { NULL, NULL, NULL, "linux.memoryPolicy.mode: unknown mode ``" },
    { "MPOL_BIND", "0", unknown, "linux.memoryPolicy.flags[1]: unknown flag `MPOL_F_EVIL`" },
    { "MPOL_BIND", "0-", NULL, "linux.memoryPolicy.nodes: `0-` is not a node list" },
    { "MPOL_BIND", "1,,2", NULL, "linux.memoryPolicy.nodes: `1,,2` is not a node list" },
    { "MPOL_BIND", "-1", NULL, "linux.memoryPolicy.nodes: `-1` is not a node list" },
    { "MPOL_BIND", "1024", NULL, "linux.memoryPolicy.nodes: node 1024 is past the 1024 nodes" },
    { "MPOL_BIND", "0-4294967296", NULL, "node 4294967296 is past" },
    { "MPOL_BIND", NULL, NULL, "linux.memoryPolicy.nodes: MPOL_BIND needs at least one node" },
    { "MPOL_BIND", "", NULL, "MPOL_BIND needs at least one node" },
    { "MPOL_INTERLEAVE", "", NULL, "MPOL_INTERLEAVE needs at least one node" },
    { "MPOL_WEIGHTED_INTERLEAVE", NULL, NULL, "MPOL_WEIGHTED_INTERLEAVE needs" },
    { "MPOL_PREFERRED_MANY", NULL, NULL, "MPOL_PREFERRED_MANY needs" },
    { "MPOL_DEFAULT", "0", NULL, "linux.memoryPolicy.nodes: MPOL_DEFAULT takes no nodes (`0`)" },
    { "MPOL_LOCAL", "0-1", NULL, "linux.memoryPolicy.nodes: MPOL_LOCAL takes no nodes" },
    { "MPOL_BIND", "0", stat_rel, "linux.memoryPolicy.flags: MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES exclude each other" },
    { "MPOL_DEFAULT", NULL, stat, "linux.memoryPolicy.flags: MPOL_DEFAULT takes no flags" },
    { "MPOL_LOCAL", NULL, stat, "and MPOL_LOCAL is given none" },
    { "MPOL_PREFERRED", "", stat, "and MPOL_PREFERRED is given none" },
    { "MPOL_INTERLEAVE", "0", balancing, "MPOL_F_NUMA_BALANCING needs MPOL_BIND or MPOL_PREFERRED_MANY, not MPOL_INTERLEAVE" },
    { "MPOL_LOCAL", NULL, balancing, "MPOL_F_NUMA_BALANCING needs" },
  };
  size_t i;

  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      cleanup_error agentrt_error_t err = NULL;
      struct mempolicy_spec spec;
      int r = build (cases[i].mode, cases[i].nodes, cases[i].flags, &spec, &err);
      CHECK (r < 0 && !spec.set);
      CHECK_CONTAINS (err ? err->msg : NULL, cases[i].error);
    }
}

static void
test_mempolicy_builds_the_syscall_arguments (void)
{
  static const char *const stat[] = { "MPOL_F_STATIC_NODES", NULL };
  static const char *const rel_bal[] = { "MPOL_F_RELATIVE_NODES",
                                         "MPOL_F_NUMA_BALANCING", NULL };
  cleanup_error agentrt_error_t err = NULL;
  struct mempolicy_spec spec;

  CHECK (mempolicy_build (NULL, &spec, &err) == 0 && !spec.set);
  CHECK (build ("MPOL_DEFAULT", NULL, NULL, &spec, &err) == 0);
  CHECK (spec.set && spec.mode == 0 && !spec.has_nodes);
  CHECK (build ("MPOL_LOCAL", "", NULL, &spec, &err) == 0);
  CHECK (spec.set && spec.mode == 4 && !spec.has_nodes);
  CHECK (build ("MPOL_PREFERRED", NULL, NULL, &spec, &err) == 0);
  CHECK (spec.mode == 1 && !spec.has_nodes);
  CHECK (build ("MPOL_BIND", "0-1,1023", stat, &spec, &err) == 0);
  CHECK (spec.mode == (2 | (1 << 15)) && spec.has_nodes);
  CHECK (spec.nodes[0] == 3 && spec.nodes[15] == 1UL << 63);
  CHECK_STR_EQ (spec.mode_name, "MPOL_BIND");
  CHECK_STR_EQ (spec.nodes_text, "0-1,1023");
  CHECK (build ("MPOL_BIND", "2", rel_bal, &spec, &err) == 0);
  CHECK (spec.mode == (2 | (1 << 14) | (1 << 13)) && spec.nodes[0] == 4);
  CHECK (build ("MPOL_WEIGHTED_INTERLEAVE", "0", NULL, &spec, &err) == 0);
  CHECK (spec.mode == 6);
  CHECK (build ("MPOL_PREFERRED_MANY", "1", NULL, &spec, &err) == 0);
  CHECK (spec.mode == 5);
  CHECK (err == NULL);
}

int
main (void)
{
  RUN_TEST (test_id_list_refuses_malformed_lists);
  RUN_TEST (test_id_list_refuses_numbers_past_the_bitmap);
  RUN_TEST (test_id_list_sets_the_listed_bits);
  RUN_TEST (test_mempolicy_refuses_what_set_mempolicy_refuses);
  RUN_TEST (test_mempolicy_builds_the_syscall_arguments);
  return UNIT_EXIT ();
}
