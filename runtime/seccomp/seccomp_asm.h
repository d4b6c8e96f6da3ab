/* A tiny classic-BPF assembler for the prologues agentrt puts in front of
 * libseccomp's programs (seccomp_enosys, seccomp_ranges): instructions jump
 * to labels, turned into relative offsets when the program is linked.
 * Internal to runtime/seccomp*. */
#ifndef AGENTRT_SECCOMP_ASM_H
#define AGENTRT_SECCOMP_ASM_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* The label of "the next instruction" (a jump that falls through). */
#define BPF_ASM_NEXT (-1)

struct bpf_asm_insn
{
  uint16_t code;
  uint32_t k;
  int jt, jf; /* labels, for conditional jumps and BPF_JA (jt) */
};

struct bpf_asm
{
  struct bpf_asm_insn *insns;
  size_t len, cap;
  int *label_pos; /* by label number, -1 until marked */
  size_t n_labels;
};

/* A new label, to be marked once. */
int bpf_asm_label (struct bpf_asm *a);
void bpf_asm_mark (struct bpf_asm *a, int label);
void bpf_asm_emit (struct bpf_asm *a, uint16_t code, uint32_t k, int jt,
                   int jf);

/* Replaces *insns (malloc'd, *len entries) with the assembled prologue
 * followed by the original program (a label marked after the last
 * instruction is the original program's first).  Fails when a jump goes
 * to a label never marked, a conditional jump does not fit in 8 bits or
 * the result exceeds BPF_MAXINSNS; `what` names the prologue in the
 * error. */
int bpf_asm_prepend (const struct bpf_asm *a, struct sock_filter **insns,
                     size_t *len, const char *what, agentrt_error_t *err);

void bpf_asm_free (struct bpf_asm *a);

#endif
