/* The ENOSYS prologue prepended to compiled seccomp filters (see
 * seccomp_enosys.h).  It is a tiny BPF assembler: instructions jump to
 * labels, and the labels are turned into relative offsets at the end. */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/seccomp_enosys.h"

#define X32_SYSCALL_BIT 0x40000000u
#define MAX_GROUPS 32

/* The architectures the prologue tells apart, by AUDIT_ARCH_* value.  x86_64
 * and x32 share one (x32 syscalls carry X32_SYSCALL_BIT in their number). */
struct group
{
  uint32_t audit;
  bool has_main, has_x32;
  uint32_t max_main, max_x32;
};

/* Jump targets: a group's section, its x32 part, the ENOSYS return, the
 * original filter, and "the next instruction". */
enum
{
  LABEL_NEXT = -1,
};

struct asm_insn
{
  uint16_t code;
  uint32_t k;
  int jt, jf; /* labels, for conditional jumps and BPF_JA (jt) */
};

struct assembler
{
  struct asm_insn insns[4 + 8 * MAX_GROUPS];
  size_t len;
  int label_pos[2 * MAX_GROUPS + 2];
};

static void
emit (struct assembler *a, uint16_t code, uint32_t k, int jt, int jf)
{
  a->insns[a->len++] = (struct asm_insn){ code, k, jt, jf };
}

static void
mark (struct assembler *a, int label)
{
  a->label_pos[label] = (int) a->len;
}

static int
collect_groups (const struct enosys_arch *archs, size_t n_archs,
                struct group *groups, size_t *n_groups)
{
  size_t i, g;

  *n_groups = 0;
  for (i = 0; i < n_archs; i++)
    {
      bool x32 = archs[i].token == SCMP_ARCH_X32;
      uint32_t audit = x32 ? AUDIT_ARCH_X86_64 : archs[i].token;

      /* s390's syscall 0 multiplexes large numbers: leave it alone. */
      if (audit == AUDIT_ARCH_S390 || audit == AUDIT_ARCH_S390X
          || archs[i].max_nr == 0)
        continue;
      for (g = 0; g < *n_groups && groups[g].audit != audit; g++)
        ;
      if (g == *n_groups)
        {
          if (g == MAX_GROUPS)
            return -1;
          groups[g] = (struct group){ .audit = audit };
          (*n_groups)++;
        }
      if (x32)
        {
          groups[g].has_x32 = true;
          groups[g].max_x32 = archs[i].max_nr;
        }
      else
        {
          groups[g].has_main = true;
          groups[g].max_main = archs[i].max_nr;
        }
    }
  return 0;
}

/* The range check of one part: numbers above max get ENOSYS, the rest go to
 * the filter. */
static void
emit_check (struct assembler *a, bool present, uint32_t max, int enosys,
            int filter)
{
  if (present)
    emit (a, BPF_JMP | BPF_JGT | BPF_K, max, enosys, filter);
  else
    emit (a, BPF_JMP | BPF_JA, 0, filter, 0);
}

static void
assemble (struct assembler *a, const struct group *groups, size_t n)
{
  int enosys = (int) (2 * n), filter = (int) (2 * n + 1);
  size_t g;

  emit (a, BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch),
        0, 0);
  for (g = 0; g < n; g++)
    emit (a, BPF_JMP | BPF_JEQ | BPF_K, groups[g].audit, (int) (2 * g),
          LABEL_NEXT);
  emit (a, BPF_JMP | BPF_JA, 0, filter, 0);

  for (g = 0; g < n; g++)
    {
      mark (a, (int) (2 * g));
      emit (a, BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr),
            0, 0);
      if (groups[g].audit == AUDIT_ARCH_X86_64)
        {
          emit (a, BPF_JMP | BPF_JSET | BPF_K, X32_SYSCALL_BIT,
                (int) (2 * g + 1), LABEL_NEXT);
          emit_check (a, groups[g].has_main, groups[g].max_main, enosys,
                      filter);
          mark (a, (int) (2 * g + 1));
          emit_check (a, groups[g].has_x32, groups[g].max_x32, enosys, filter);
        }
      else
        emit_check (a, true, groups[g].max_main, enosys, filter);
    }
  mark (a, enosys);
  emit (a, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS, 0, 0);
  mark (a, filter);
}

/* Relative offset from the instruction after `pc` to `label`. */
static long
offset_to (const struct assembler *a, size_t pc, int label)
{
  if (label == LABEL_NEXT)
    return 0;
  return (long) a->label_pos[label] - (long) (pc + 1);
}

static int
link_program (const struct assembler *a, struct sock_filter *out)
{
  size_t pc;

  for (pc = 0; pc < a->len; pc++)
    {
      const struct asm_insn *in = &a->insns[pc];
      struct sock_filter *o = &out[pc];

      *o = (struct sock_filter){ .code = in->code, .k = in->k };
      if (BPF_CLASS (in->code) != BPF_JMP)
        continue;
      if (BPF_OP (in->code) == BPF_JA)
        {
          o->k = (uint32_t) offset_to (a, pc, in->jt);
          continue;
        }
      long jt = offset_to (a, pc, in->jt), jf = offset_to (a, pc, in->jf);
      if (jt < 0 || jt > 255 || jf < 0 || jf > 255)
        return -1;
      o->jt = (uint8_t) jt;
      o->jf = (uint8_t) jf;
    }
  return 0;
}

int
seccomp_enosys_prepend (struct sock_filter **insns, size_t *len,
                        const struct enosys_arch *archs, size_t n_archs,
                        agentrt_error_t *err)
{
  cleanup_free struct assembler *a = xzalloc (sizeof (*a));
  struct group groups[MAX_GROUPS];
  struct sock_filter *out;
  size_t n_groups;

  if (collect_groups (archs, n_archs, groups, &n_groups) < 0)
    return agentrt_error (err, 0, "seccomp: too many architectures");
  if (n_groups == 0)
    return 0;

  assemble (a, groups, n_groups);
  if (a->len + *len > BPF_MAXINSNS)
    return agentrt_error (err, 0,
                          "seccomp: the filter has %zu instructions, the "
                          "kernel accepts at most %d",
                          a->len + *len, BPF_MAXINSNS);

  out = xreallocarray (NULL, a->len + *len, sizeof (*out));
  if (link_program (a, out) < 0)
    {
      free (out);
      return agentrt_error (err, 0, "seccomp: ENOSYS prologue jump too long");
    }
  memcpy (out + a->len, *insns, *len * sizeof (*out));
  free (*insns);
  *insns = out;
  *len += a->len;
  return 0;
}
