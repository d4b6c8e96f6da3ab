/* The ENOSYS prologue prepended to compiled seccomp filters (see
 * seccomp_enosys.h), written with the seccomp_asm assembler. */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>

#include "runtime/seccomp/seccomp_asm.h"
#include "runtime/seccomp/seccomp_enosys.h"

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
emit_check (struct bpf_asm *a, bool present, uint32_t max, int enosys,
            int filter)
{
  if (present)
    bpf_asm_emit (a, BPF_JMP | BPF_JGT | BPF_K, max, enosys, filter);
  else
    bpf_asm_emit (a, BPF_JMP | BPF_JA, 0, filter, 0);
}

static void
assemble (struct bpf_asm *a, const struct group *groups, size_t n)
{
  int section[MAX_GROUPS], x32[MAX_GROUPS], enosys, filter;
  size_t g;

  for (g = 0; g < n; g++)
    {
      section[g] = bpf_asm_label (a);
      x32[g] = bpf_asm_label (a);
    }
  enosys = bpf_asm_label (a);
  filter = bpf_asm_label (a);

  bpf_asm_emit (a, BPF_LD | BPF_W | BPF_ABS,
                offsetof (struct seccomp_data, arch), 0, 0);
  for (g = 0; g < n; g++)
    bpf_asm_emit (a, BPF_JMP | BPF_JEQ | BPF_K, groups[g].audit, section[g],
                  BPF_ASM_NEXT);
  bpf_asm_emit (a, BPF_JMP | BPF_JA, 0, filter, 0);

  for (g = 0; g < n; g++)
    {
      bpf_asm_mark (a, section[g]);
      bpf_asm_emit (a, BPF_LD | BPF_W | BPF_ABS,
                    offsetof (struct seccomp_data, nr), 0, 0);
      if (groups[g].audit == AUDIT_ARCH_X86_64)
        {
          bpf_asm_emit (a, BPF_JMP | BPF_JSET | BPF_K, X32_SYSCALL_BIT,
                        x32[g], BPF_ASM_NEXT);
          emit_check (a, groups[g].has_main, groups[g].max_main, enosys,
                      filter);
          bpf_asm_mark (a, x32[g]);
          emit_check (a, groups[g].has_x32, groups[g].max_x32, enosys, filter);
        }
      else
        emit_check (a, true, groups[g].max_main, enosys, filter);
    }
  bpf_asm_mark (a, enosys);
  bpf_asm_emit (a, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS, 0, 0);
  bpf_asm_mark (a, filter);
}

int
seccomp_enosys_prepend (struct sock_filter **insns, size_t *len,
                        const struct enosys_arch *archs, size_t n_archs,
                        agentrt_error_t *err)
{
  struct bpf_asm a = { 0 };
  struct group groups[MAX_GROUPS];
  size_t n_groups;
  int ret;

  if (collect_groups (archs, n_archs, groups, &n_groups) < 0)
    return agentrt_error (err, 0, "seccomp: too many architectures");
  if (n_groups == 0)
    return 0;
  assemble (&a, groups, n_groups);
  ret = bpf_asm_prepend (&a, insns, len, "ENOSYS prologue", err);
  bpf_asm_free (&a);
  return ret;
}
