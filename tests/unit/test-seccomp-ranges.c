/* Unit tests of the ranges prologue (runtime/seccomp/seccomp_ranges.c) and of its
 * use by the compiler: the prologue alone on edge cases (first and last
 * numbers of ranges, single numbers, foreign architectures, x32 numbers,
 * too many ranges), and the agent-default profile compiled with it and
 * without it deciding every syscall number the same way, for every
 * argument value the profile tests and random ones.  Evaluated by the
 * interpreter of seccomp_test.h; no root needed. */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/seccomp/seccomp.h"
#include "runtime/seccomp/seccomp_ranges.h"
#include "tests/unit/seccomp_test.h"
#include "tests/unit/unit.h"

#define PROFILE SECCOMP_PROFILE_DIR "/agent-default.json"
#define X32_BIT 0x40000000u
/* What the program behind the prologue answers: "not decided by it". */
#define RET_REST (SECCOMP_RET_ERRNO | 99)

static uint32_t
decide (const struct seccomp_program *p, uint32_t arch, uint32_t nr,
        const uint64_t *args)
{
  struct seccomp_data d = { .nr = (int) nr, .arch = arch };

  if (args)
    memcpy (d.args, args, sizeof (d.args));
  return bpf_eval (p, &d);
}

/* The prologue for nrs[] in front of a program that only answers RET_REST. */
static struct seccomp_program *
prologue_for (const uint32_t *nrs, size_t n)
{
  cleanup_error agentrt_error_t err = NULL;
  struct sock_filter *insns = xmalloc (sizeof (*insns));
  size_t len = 1;
  struct seccomp_program *p;

  insns[0] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, RET_REST);
  CHECK (seccomp_ranges_length (nrs, n) > 0);
  CHECK (seccomp_ranges_prepend (&insns, &len, AUDIT_ARCH_X86_64, nrs, n, &err)
         == 0);
  CHECK (len == 1 + seccomp_ranges_length (nrs, n));
  p = seccomp_program_new (insns, len, 0);
  free (insns);
  return p;
}

static bool
listed (const uint32_t *nrs, size_t n, uint32_t nr)
{
  for (size_t i = 0; i < n; i++)
    if (nrs[i] == nr)
      return true;
  return false;
}

/* Every number from 0 to `top`, x32 numbers and the extremes, on x86_64 and
 * on foreign architectures. */
static void
check_prologue (const uint32_t *nrs, size_t n, uint32_t top)
{
  cleanup_seccomp_program struct seccomp_program *p = prologue_for (nrs, n);
  static const uint32_t extremes[] = { 0x3fffffff, X32_BIT, 0x7fffffff,
                                       0x80000000, 0xffffffff };

  if (p == NULL)
    return;
  for (uint32_t nr = 0; nr <= top; nr++)
    {
      uint32_t want = listed (nrs, n, nr) ? SECCOMP_RET_ALLOW : RET_REST;
      if (decide (p, AUDIT_ARCH_X86_64, nr, NULL) != want)
        fprintf (stderr, "%s: nr %u: got %#x\n", unit_current, nr,
                 decide (p, AUDIT_ARCH_X86_64, nr, NULL));
      CHECK (decide (p, AUDIT_ARCH_X86_64, nr, NULL) == want);
      /* the same numbers elsewhere are not the prologue's to decide */
      CHECK (decide (p, AUDIT_ARCH_X86_64, nr | X32_BIT, NULL) == RET_REST);
      CHECK (decide (p, AUDIT_ARCH_I386, nr, NULL) == RET_REST);
      CHECK (decide (p, AUDIT_ARCH_AARCH64, nr, NULL) == RET_REST);
      CHECK (decide (p, 0, nr, NULL) == RET_REST);
    }
  for (size_t i = 0; i < sizeof (extremes) / sizeof (*extremes); i++)
    CHECK (decide (p, AUDIT_ARCH_X86_64, extremes[i], NULL)
           == (listed (nrs, n, extremes[i]) ? SECCOMP_RET_ALLOW : RET_REST));
}

static void
test_prologue_edges (void)
{
  static const uint32_t zero[] = { 0 }, one_range[] = { 0, 1, 2, 3 },
                        singles[] = { 1, 5, 9 },
                        mixed[] = { 0, 2, 3, 4, 10, 11, 200, 333, 334, 335,
                                    0x3ffffffe, 0x3fffffff };
  uint32_t many[64];

  check_prologue (zero, 1, 16);
  check_prologue (one_range, 4, 16);
  check_prologue (singles, 3, 16);
  check_prologue (mixed, sizeof (mixed) / sizeof (*mixed), 400);
  for (uint32_t i = 0; i < 64; i++)
    many[i] = 3 * i + 1; /* 64 ranges of one number: 196 instructions */
  check_prologue (many, 64, 200);
  CHECK (!eval_failed);
}

static void
test_prologue_too_long (void)
{
  uint32_t many[200];

  for (uint32_t i = 0; i < 200; i++)
    many[i] = 2 * i; /* 200 ranges: a search longer than 8-bit jumps */
  CHECK (seccomp_ranges_length (many, 200) == 0);
  CHECK (seccomp_ranges_length (many, 0) == 0);
}

/* ---- the agent-default profile, with and without the prologue */

/* Argument values worth trying: each value and mask the profile compares
 * with, its neighbours, with the upper half set, and pseudo-random ones
 * (the profile's take 450 of `max`). */
static size_t
argument_values (const struct oci_seccomp *s, uint64_t *out, size_t max)
{
  size_t n = 0;
  uint64_t seed = 0x9e3779b97f4a7c15ull;

  out[n++] = 0;
  for (size_t r = 0; r < s->n_syscalls; r++)
    for (size_t k = 0; k < s->syscalls[r].n_args; k++)
      {
        const struct oci_seccomp_arg *a = &s->syscalls[r].args[k];
        uint64_t v[] = { a->value, a->value + 1, a->value - 1, a->value_two,
                         a->value | (1ull << 32), ~a->value };
        for (size_t i = 0; i < sizeof (v) / sizeof (*v) && n < max; i++)
          out[n++] = v[i];
      }
  while (n < max)
    {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      out[n++] = seed;
    }
  return n;
}

static void
test_agent_profile_same_decisions (void)
{
  cleanup_error agentrt_error_t err = NULL;
  size_t len, n_values;
  cleanup_free char *text = read_text (PROFILE, &len);
  struct oci_seccomp *s = oci_seccomp_parse (text, len, PROFILE, &err);
  cleanup_seccomp_program struct seccomp_program *ranged = NULL;
  cleanup_seccomp_program struct seccomp_program *plain = NULL;
  static const uint32_t archs[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386,
                                    AUDIT_ARCH_AARCH64, 0 };
  uint64_t values[512];
  unsigned differences = 0;

  CHECK (s != NULL);
  if (s == NULL)
    return;
  ranged = seccomp_compile_layout (s, "", NULL, true, &err);
  plain = seccomp_compile_layout (s, "", NULL, false, &err);
  CHECK (ranged != NULL && plain != NULL);
  if (ranged == NULL || plain == NULL)
    goto out;
  /* what the prologue is for: 582 instructions became 363 */
  CHECK (ranged->len + 150 < plain->len);
  CHECK (ranged->flags == plain->flags);
  n_values = argument_values (s, values, sizeof (values) / sizeof (*values));
  for (size_t a = 0; a < sizeof (archs) / sizeof (*archs); a++)
    for (uint32_t i = 0; i < 1100; i++)
      for (uint32_t x32 = 0; x32 <= X32_BIT; x32 += X32_BIT)
        for (size_t v = 0; v < n_values; v++)
          {
            /* the value in each argument the profile tests (0..3), in
             * turn, zeros elsewhere */
            for (size_t slot = 0; slot < 4; slot++)
              {
                uint64_t args[6] = { 0 };
                args[slot] = values[v];
                if (decide (ranged, archs[a], i | x32, args)
                    != decide (plain, archs[a], i | x32, args))
                  differences++;
              }
          }
  if (differences)
    fprintf (stderr, "%s: %u different decisions\n", unit_current,
             differences);
  CHECK (differences == 0);
  CHECK (!eval_failed);
out:
  oci_seccomp_free (s);
}

/* Parses a profile and compiles it with the prologue and without. */
static struct oci_seccomp *
compile_both (const char *json, struct seccomp_program **ranged,
              struct seccomp_program **plain)
{
  cleanup_error agentrt_error_t err = NULL;
  struct oci_seccomp *s = oci_seccomp_parse (json, strlen (json), "t", &err);

  *ranged = *plain = NULL;
  CHECK (s != NULL);
  if (s == NULL)
    return NULL;
  *ranged = seccomp_compile_layout (s, "", NULL, true, &err);
  *plain = seccomp_compile_layout (s, "", NULL, false, &err);
  CHECK (*ranged != NULL && *plain != NULL);
  if (*ranged == NULL || *plain == NULL)
    {
      seccomp_program_free (*ranged);
      seccomp_program_free (*plain);
      *ranged = *plain = NULL;
    }
  return s;
}

/* Both programs the same, instruction for instruction. */
static void
check_untouched (const char *json)
{
  cleanup_seccomp_program struct seccomp_program *ranged = NULL;
  cleanup_seccomp_program struct seccomp_program *plain = NULL;
  struct oci_seccomp *s = compile_both (json, &ranged, &plain);

  if (ranged && plain)
    {
      CHECK (ranged->len == plain->len);
      CHECK (memcmp (ranged->insns, plain->insns,
                     plain->len * sizeof (*plain->insns))
             == 0);
    }
  oci_seccomp_free (s);
}

/* A filter for several architectures keeps libseccomp's layout (its rules
 * must cover every architecture's numbers), and so does one where the
 * prologue would not be shorter than what it takes from libseccomp. */
static void
test_profiles_left_to_libseccomp (void)
{
  check_untouched (
      "{\"defaultAction\": \"SCMP_ACT_ERRNO\","
      " \"architectures\": [\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\"],"
      " \"syscalls\": [{\"names\": [\"read\", \"write\", \"open\","
      " \"close\", \"stat\", \"fstat\", \"lstat\", \"poll\"],"
      " \"action\": \"SCMP_ACT_ALLOW\"}]}");
  check_untouched (
      "{\"defaultAction\": \"SCMP_ACT_ERRNO\","
      " \"syscalls\": [{\"names\": [\"read\", \"close\", \"getpid\"],"
      " \"action\": \"SCMP_ACT_ALLOW\"}]}");
}

/* A name in two rules stays with libseccomp, which weighs them (the first
 * unconditional rule wins there, and is noted). */
static void
test_name_in_two_rules_not_ranged (void)
{
  cleanup_seccomp_program struct seccomp_program *ranged = NULL;
  cleanup_seccomp_program struct seccomp_program *plain = NULL;
  struct oci_seccomp *s = compile_both (
      "{\"defaultAction\": \"SCMP_ACT_ERRNO\","
      " \"syscalls\": [{\"names\": [\"close\"],"
      " \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 9},"
      " {\"names\": [\"read\", \"write\", \"open\","
      " \"close\", \"stat\", \"fstat\", \"lstat\", \"poll\", \"lseek\","
      " \"mmap\", \"mprotect\", \"munmap\", \"brk\", \"rt_sigaction\","
      " \"rt_sigprocmask\", \"rt_sigreturn\", \"ioctl\", \"pread64\","
      " \"pwrite64\", \"readv\", \"writev\", \"getpid\"],"
      " \"action\": \"SCMP_ACT_ALLOW\"},"
      " {\"names\": [\"write\"], \"action\": \"SCMP_ACT_ERRNO\","
      " \"errnoRet\": 5, \"args\": [{\"index\": 0, \"value\": 7,"
      " \"op\": \"SCMP_CMP_EQ\"}]}]}",
      &ranged, &plain);
  uint64_t seven[6] = { 7 }, eight[6] = { 8 };

  if (ranged && plain)
    {
      CHECK (ranged->len < plain->len); /* the prologue took the others */
      CHECK (decide (ranged, AUDIT_ARCH_X86_64, SYS_write, seven)
             == decide (plain, AUDIT_ARCH_X86_64, SYS_write, seven));
      CHECK (decide (ranged, AUDIT_ARCH_X86_64, SYS_write, eight)
             == decide (plain, AUDIT_ARCH_X86_64, SYS_write, eight));
      CHECK (decide (ranged, AUDIT_ARCH_X86_64, SYS_close, NULL)
             == decide (plain, AUDIT_ARCH_X86_64, SYS_close, NULL));
      CHECK (decide (ranged, AUDIT_ARCH_X86_64, SYS_close, NULL)
             != SECCOMP_RET_ALLOW);
      CHECK (decide (ranged, AUDIT_ARCH_X86_64, SYS_read, NULL)
             == SECCOMP_RET_ALLOW);
      CHECK (decide (ranged, AUDIT_ARCH_X86_64, SYS_dup, NULL)
             == (SECCOMP_RET_ERRNO | EPERM));
    }
  CHECK (!eval_failed);
  oci_seccomp_free (s);
}

int
main (void)
{
  RUN_TEST (test_prologue_edges);
  RUN_TEST (test_prologue_too_long);
  RUN_TEST (test_agent_profile_same_decisions);
  RUN_TEST (test_profiles_left_to_libseccomp);
  RUN_TEST (test_name_in_two_rules_not_ranged);
  return UNIT_EXIT ();
}
