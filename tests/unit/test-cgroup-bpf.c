/* Unit tests of the v2 device eBPF program: hostile rule lists, the
 * reduction to default + exceptions against the v1 kernel's semantics, the
 * generated instructions run through a small interpreter of the opcodes
 * the generator emits, and (as root) the kernel's verifier plus real
 * enforcement on a cgroup2 directory this test creates and removes. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/bpf_devices.h"
#include "tests/unit/unit.h"

#define A(allow, type, major, minor, acc)                                    \
  ((struct bpf_dev_rule){ allow, type, major, minor, acc })
#define R BPF_DEV_READ
#define W BPF_DEV_WRITE
#define M BPF_DEV_MKNOD
#define RWM BPF_DEV_RWM

/* Runs the generated program on one access, the way the kernel would. */
static int
run (const struct bpf_insn *p, size_t n, char type, uint32_t major,
     uint32_t minor, unsigned access)
{
  uint32_t ctx[3] = { (access << 16) | (type == 'c' ? 2u : 1u), major, minor };
  uint64_t r[11] = { 0 };
  size_t pc = 0;

  for (size_t steps = 0; pc < n && steps < 100000; steps++)
    {
      const struct bpf_insn *i = &p[pc++];
      switch (i->code)
        {
        case BPF_LDX | BPF_MEM | BPF_W:
          r[i->dst_reg] = ctx[i->off / 4];
          break;
        case BPF_ALU | BPF_MOV | BPF_X:
          r[i->dst_reg] = (uint32_t) r[i->src_reg];
          break;
        case BPF_ALU | BPF_AND | BPF_K:
          r[i->dst_reg] = (uint32_t) r[i->dst_reg] & (uint32_t) i->imm;
          break;
        case BPF_ALU | BPF_RSH | BPF_K:
          r[i->dst_reg] = (uint32_t) r[i->dst_reg] >> i->imm;
          break;
        case BPF_JMP32 | BPF_JNE | BPF_K:
          if ((uint32_t) r[i->dst_reg] != (uint32_t) i->imm)
            pc += i->off;
          break;
        case BPF_JMP32 | BPF_JEQ | BPF_K:
          if ((uint32_t) r[i->dst_reg] == (uint32_t) i->imm)
            pc += i->off;
          break;
        case BPF_ALU64 | BPF_MOV | BPF_K:
          r[i->dst_reg] = (uint64_t) (int64_t) i->imm;
          break;
        case BPF_JMP | BPF_EXIT:
          return (int) r[0];
        default:
          return -1; /* an opcode the generator should not emit */
        }
    }
  return -2;
}

/* Builds the program for rules and checks one access against want. */
static void
expect (const struct bpf_dev_rule *rules, size_t n, char type, uint32_t major,
        uint32_t minor, unsigned access, int want, int line)
{
  struct bpf_dev_policy p;
  struct bpf_insn *insns = NULL;
  size_t n_insns = 0;
  agentrt_error_t err = NULL;
  int got;

  if (bpf_devices_policy (rules, n, &p, &err) < 0
      || bpf_devices_program (&p, &insns, &n_insns, &err) < 0)
    {
      fprintf (stderr, "line %d: %s\n", line, err ? err->msg : "?");
      unit_failures++;
      agentrt_error_release (&err);
      return;
    }
  got = run (insns, n_insns, type, major, minor, access);
  if (got != want)
    {
      fprintf (stderr, "line %d: %c %u:%u access %u: got %d, want %d\n", line,
               type, major, minor, access, got, want);
      unit_failures++;
    }
  bpf_devices_policy_release (&p);
  free (insns);
}
#define EXPECT(rules, type, maj, min, acc, want)                             \
  expect (rules, sizeof rules / sizeof rules[0], type, maj, min, acc, want,  \
          __LINE__)

static void
test_hostile (void)
{
  struct bpf_dev_policy p;
  agentrt_error_t err = NULL;
  unsigned bits;
  struct bpf_dev_rule bad[] = {
    A (true, 'x', 1, 3, R), A (true, 'c', -2, 3, R),
    A (true, 'c', 1, 0x100000000LL, R), A (true, 'c', 1, 3, 0),
    A (true, 'c', 1, 3, 8),
  };
  struct bpf_dev_rule *many;

  CHECK (bpf_devices_access (NULL, &bits) == 0 && bits == RWM);
  CHECK (bpf_devices_access ("mr", &bits) == 0 && bits == (M | R));
  CHECK (bpf_devices_access ("", &bits) < 0);
  CHECK (bpf_devices_access ("rwx", &bits) < 0);
  CHECK (bpf_devices_access ("R", &bits) < 0);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      CHECK (bpf_devices_policy (&bad[i], 1, &p, &err) < 0);
      CHECK_CONTAINS (err ? err->msg : NULL, "device rule 0");
      agentrt_error_release (&err);
    }
  many = xzalloc ((BPF_DEVICES_MAX_RULES + 1) * sizeof *many);
  for (size_t i = 0; i <= BPF_DEVICES_MAX_RULES; i++)
    many[i] = A (i % 2, 'c', (int64_t) i, 1, R);
  CHECK (bpf_devices_policy (many, BPF_DEVICES_MAX_RULES + 1, &p, &err) < 0);
  agentrt_error_release (&err);
  /* the maximum is accepted and stays a valid program */
  CHECK (bpf_devices_policy (many, BPF_DEVICES_MAX_RULES, &p, &err) == 0);
  bpf_devices_policy_release (&p);
  free (many);
}

static void
test_semantics (void)
{
  struct bpf_dev_rule deny_all[] = { A (false, 'a', -1, -1, RWM) };
  struct bpf_dev_rule allow_null_rw[]
      = { A (false, 'a', -1, -1, RWM), A (true, 'c', 1, 3, R | W) };
  struct bpf_dev_rule deny_w[]
      = { A (true, 'a', -1, -1, RWM), A (false, 'c', 1, 3, W) };
  struct bpf_dev_rule wild[] = { A (false, 'a', -1, -1, RWM),
                                 A (true, 'c', -1, -1, M),
                                 A (true, 'c', 136, -1, RWM) };
  struct bpf_dev_rule merged[] = { A (false, 'a', -1, -1, RWM),
                                   A (true, 'c', 1, 3, R), A (true, 'c', 1, 3, W) };
  struct bpf_dev_rule taken[] = { A (false, 'a', -1, -1, RWM),
                                  A (true, 'c', 1, 3, R | W),
                                  A (false, 'c', 1, 3, W) };
  struct bpf_dev_rule both[] = { A (false, 'a', -1, -1, RWM), A (true, 'a', 1, 3, R) };
  struct bpf_dev_rule reset[] = { A (true, 'c', 1, 3, RWM), A (true, 'a', -1, -1, RWM),
                                  A (false, 'a', -1, -1, RWM) };
  /* v1 kernel: a deny of a device with no exception changes nothing, and a
   * specific deny does not carve into a wildcard allow */
  struct bpf_dev_rule exact[] = { A (false, 'a', -1, -1, RWM),
                                  A (true, 'c', 1, -1, R),
                                  A (false, 'c', 1, 3, R) };
  /* a wildcard major */
  struct bpf_dev_rule anymajor[] = { A (false, 'a', -1, -1, RWM),
                                     A (true, 'b', -1, 0, R) };
  struct bpf_dev_rule big[] = { A (false, 'a', -1, -1, RWM),
                                A (true, 'c', 0xffffffffLL, 0x80000000LL, R) };

  EXPECT (deny_all, 'c', 1, 3, R, 0);
  EXPECT (deny_all, 'b', 8, 0, M, 0);
  EXPECT (allow_null_rw, 'c', 1, 3, R, 1);
  EXPECT (allow_null_rw, 'c', 1, 3, R | W, 1);
  EXPECT (allow_null_rw, 'c', 1, 3, M, 0);
  EXPECT (allow_null_rw, 'c', 1, 3, R | M, 0);
  EXPECT (allow_null_rw, 'c', 1, 5, R, 0);
  EXPECT (allow_null_rw, 'b', 1, 3, R, 0);
  EXPECT (deny_w, 'c', 1, 3, R, 1);
  EXPECT (deny_w, 'c', 1, 3, R | W, 0);
  EXPECT (deny_w, 'c', 1, 3, W, 0);
  EXPECT (deny_w, 'c', 1, 5, R | W, 1);
  EXPECT (deny_w, 'b', 1, 3, W, 1);
  EXPECT (wild, 'c', 5, 0, M, 1);
  EXPECT (wild, 'c', 5, 0, R, 0);
  EXPECT (wild, 'c', 136, 7, R | W, 1);
  EXPECT (wild, 'b', 8, 0, M, 0);
  EXPECT (merged, 'c', 1, 3, R | W, 1);
  EXPECT (taken, 'c', 1, 3, R, 1);
  EXPECT (taken, 'c', 1, 3, W, 0);
  EXPECT (both, 'c', 1, 3, R, 1);
  EXPECT (both, 'b', 1, 3, R, 1);
  EXPECT (both, 'b', 1, 3, W, 0);
  EXPECT (reset, 'c', 1, 3, R, 0);
  EXPECT (exact, 'c', 1, 3, R, 1);
  EXPECT (exact, 'c', 1, 9, R, 1);
  EXPECT (exact, 'c', 2, 3, R, 0);
  EXPECT (anymajor, 'b', 7, 0, R, 1);
  EXPECT (anymajor, 'b', 7, 1, R, 0);
  EXPECT (big, 'c', 0xffffffffu, 0x80000000u, R, 1);
  EXPECT (big, 'c', 0xffffffffu, 0x7fffffffu, R, 0);
  /* no rules: the implicit start is "deny everything" */
  expect (NULL, 0, 'c', 1, 3, R, 0, __LINE__);
}

/* The verdict of the program for rules on one access: 1, 0, or -1 when it
 * could not be built. */
static int
verdict (const struct bpf_dev_rule *rules, size_t n, char type,
         uint32_t major, uint32_t minor, unsigned access)
{
  struct bpf_dev_policy p;
  struct bpf_insn *insns = NULL;
  size_t n_insns = 0;
  agentrt_error_t err = NULL;
  int got = -1;

  if (bpf_devices_policy (rules, n, &p, &err) == 0)
    {
      if (bpf_devices_program (&p, &insns, &n_insns, &err) == 0)
        got = run (insns, n_insns, type, major, minor, access);
      bpf_devices_policy_release (&p);
    }
  agentrt_error_release (&err);
  free (insns);
  return got;
}

/* Dropping the earlier copy of a repeated rule changes no verdict: rule
 * lists drawn from a pool of overlapping rules (resets, wildcards, allows
 * and denies of some bits), every access to the devices they name. */
/* A hostile bundle's 300,000 rules, every one the same: left whole
 * (quadratic work skipped) for the policy to refuse. */
static void
drop_repeated_hostile_length (void)
{
  size_t n = 300000, len = n;
  struct bpf_dev_rule *many = calloc (n, sizeof *many);
  struct bpf_dev_policy p;
  agentrt_error_t err = NULL;

  if (many == NULL)
    return;
  for (size_t i = 0; i < n; i++)
    many[i] = A (true, 'c', 1, 3, RWM);
  bpf_devices_drop_repeated (many, &len);
  CHECK (len == n);
  CHECK (bpf_devices_policy (many, len, &p, &err) < 0 && err
         && err->status == E2BIG);
  agentrt_error_release (&err);
  free (many);
}

static void
test_drop_repeated (void)
{
  static const struct bpf_dev_rule pool[] = {
    A (false, 'a', -1, -1, RWM), A (true, 'a', -1, -1, RWM),
    A (true, 'c', 1, 3, RWM),    A (false, 'c', 1, 3, W),
    A (true, 'c', 1, 3, R),      A (true, 'c', 1, -1, R),
    A (false, 'c', 1, -1, R),    A (true, 'c', -1, -1, M),
    A (true, 'b', -1, -1, M),    A (true, 'a', 1, 3, W),
    A (false, 'b', 8, 0, RWM),   A (true, 'b', 8, 0, R | M),
  };
  static const struct { char type; uint32_t major, minor; } devs[]
      = { { 'c', 1, 3 }, { 'c', 1, 5 }, { 'c', 5, 0 }, { 'b', 8, 0 },
          { 'b', 1, 3 } };
  struct bpf_dev_rule d[] = { A (true, 'c', 1, 3, RWM), A (true, 'c', 1, 5, RWM),
                              A (false, 'c', 1, 3, RWM), A (true, 'c', 1, 3, RWM) };
  size_t n = 4;
  unsigned seed = 7;

  bpf_devices_drop_repeated (d, &n);
  CHECK (n == 3 && d[0].minor == 5 && !d[1].allow && d[2].allow);
  drop_repeated_hostile_length ();
  for (int round = 0; round < 3000; round++)
    {
      struct bpf_dev_rule list[12], kept[12];
      size_t len = 1 + (size_t) (rand_r (&seed) % 12), k = len;

      for (size_t i = 0; i < len; i++)
        list[i] = pool[rand_r (&seed) % (sizeof pool / sizeof pool[0])];
      memcpy (kept, list, sizeof list);
      bpf_devices_drop_repeated (kept, &k);
      for (size_t v = 0; v < sizeof devs / sizeof devs[0]; v++)
        for (unsigned acc = 1; acc <= RWM; acc++)
          if (verdict (list, len, devs[v].type, devs[v].major, devs[v].minor,
                       acc)
              != verdict (kept, k, devs[v].type, devs[v].major,
                          devs[v].minor, acc))
            {
              fprintf (stderr, "round %d: %c %u:%u access %u differs\n",
                       round, devs[v].type, devs[v].major, devs[v].minor, acc);
              unit_failures++;
              return;
            }
    }
}

/* ---- as root: the verifier and real enforcement ---- */

static char cgdir[128];

static void
remove_cgroup (void)
{
  if (cgdir[0])
    rmdir (cgdir);
}

static int
load (const struct bpf_dev_rule *rules, size_t n, agentrt_error_t *err)
{
  struct bpf_dev_policy p;
  cleanup_free struct bpf_insn *insns = NULL;
  size_t n_insns = 0;
  int ret;

  if (bpf_devices_policy (rules, n, &p, err) < 0)
    return -1;
  ret = bpf_devices_program (&p, &insns, &n_insns, err);
  bpf_devices_policy_release (&p);
  return ret < 0 ? -1 : bpf_devices_load (insns, n_insns, err);
}

/* In a child moved into the cgroup: which accesses work (bit per probe). */
static int
probe (const char *procs)
{
  char pid[16], node[64];
  int fd = open (procs, O_WRONLY), bits = 0;
  snprintf (pid, sizeof pid, "%d", getpid ());
  if (fd < 0 || write (fd, pid, strlen (pid)) < 0)
    return 255;
  close (fd);
  if ((fd = open ("/dev/null", O_RDWR)) >= 0)
    bits |= 1, close (fd);
  if ((fd = open ("/dev/zero", O_RDONLY)) >= 0)
    bits |= 2, close (fd);
  if ((fd = open ("/dev/zero", O_WRONLY)) >= 0)
    bits |= 4, close (fd);
  if ((fd = open ("/dev/full", O_RDONLY)) >= 0)
    bits |= 8, close (fd);
  snprintf (node, sizeof node, "/tmp/agentrt-bpf-node-%d", getpid ());
  if (mknod (node, S_IFCHR | 0600, makedev (1, 7)) == 0)
    bits |= 16, unlink (node);
  return bits;
}

static int
run_probe (void)
{
  char procs[160];
  int status;
  pid_t pid;

  snprintf (procs, sizeof procs, "%s/cgroup.procs", cgdir);
  pid = fork ();
  if (pid == 0)
    _exit (probe (procs));
  if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status))
    return -1;
  return WEXITSTATUS (status);
}

static void
test_kernel (void)
{
  struct bpf_dev_rule first[] = { A (false, 'a', -1, -1, RWM),
                                  A (true, 'c', 1, 3, RWM), A (true, 'c', 1, 5, R) };
  struct bpf_dev_rule second[] = { A (false, 'a', -1, -1, RWM),
                                   A (true, 'c', 1, 3, R | W),
                                   A (true, 'c', 1, 7, RWM) };
  agentrt_error_t err = NULL;
  cleanup_close int cg = -1, prog = -1, prog2 = -1;

  prog = load (first, 3, &err);
  CHECK (prog >= 0);
  if (prog < 0)
    {
      fprintf (stderr, "%s\n", err->msg);
      agentrt_error_release (&err);
      return;
    }
  snprintf (cgdir, sizeof cgdir, "/sys/fs/cgroup/unified/agentrt-test-bpf-%d",
            getpid ());
  if (access ("/sys/fs/cgroup/unified", F_OK) < 0)
    snprintf (cgdir, sizeof cgdir, "/sys/fs/cgroup/agentrt-test-bpf-%d",
              getpid ());
  CHECK (mkdir (cgdir, 0755) == 0);
  atexit (remove_cgroup);
  cg = open (cgdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CHECK (cg >= 0);
  CHECK (bpf_devices_attach (cg, prog, false, &err) == 0);
  CHECK (bpf_devices_count (cg, &err) == 1);
  /* null rw, zero read only, nothing else (mknod of 1:7 refused) */
  CHECK (run_probe () == (1 | 2));
  /* replacing: the old program goes, the new rules apply */
  prog2 = load (second, 3, &err);
  CHECK (prog2 >= 0);
  CHECK (bpf_devices_attach (cg, prog2, true, &err) == 0);
  CHECK (bpf_devices_count (cg, &err) == 1);
  CHECK (run_probe () == (1 | 8 | 16));
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);
}

int
main (void)
{
  RUN_TEST (test_hostile);
  RUN_TEST (test_semantics);
  RUN_TEST (test_drop_repeated);
  if (geteuid () != 0)
    fprintf (stderr, "SKIP test_kernel: needs root to load eBPF programs\n");
  else
    RUN_TEST (test_kernel);
  return UNIT_EXIT ();
}
