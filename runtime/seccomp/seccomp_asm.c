/* The classic-BPF assembler behind the seccomp prologues (seccomp_asm.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "runtime/seccomp/seccomp_asm.h"

int
bpf_asm_label (struct bpf_asm *a)
{
  a->label_pos = xreallocarray (a->label_pos, a->n_labels + 1, sizeof (int));
  a->label_pos[a->n_labels] = -1;
  return (int) a->n_labels++;
}

void
bpf_asm_mark (struct bpf_asm *a, int label)
{
  a->label_pos[label] = (int) a->len;
}

void
bpf_asm_emit (struct bpf_asm *a, uint16_t code, uint32_t k, int jt, int jf)
{
  if (a->len == a->cap)
    {
      a->cap = a->cap ? 2 * a->cap : 64;
      a->insns = xreallocarray (a->insns, a->cap, sizeof (*a->insns));
    }
  a->insns[a->len++] = (struct bpf_asm_insn){ code, k, jt, jf };
}

/* Relative offset from the instruction after `pc` to `label`; negative
 * (refused) for a label never marked. */
static long
offset_to (const struct bpf_asm *a, size_t pc, int label)
{
  if (label == BPF_ASM_NEXT)
    return 0;
  if (a->label_pos[label] < 0)
    return -1;
  return (long) a->label_pos[label] - (long) (pc + 1);
}

static int
link_program (const struct bpf_asm *a, struct sock_filter *out)
{
  size_t pc;

  for (pc = 0; pc < a->len; pc++)
    {
      const struct bpf_asm_insn *in = &a->insns[pc];
      struct sock_filter *o = &out[pc];
      long jt, jf;

      *o = (struct sock_filter){ .code = in->code, .k = in->k };
      if (BPF_CLASS (in->code) != BPF_JMP)
        continue;
      if (BPF_OP (in->code) == BPF_JA)
        {
          long k = offset_to (a, pc, in->jt);
          if (k < 0)
            return -1;
          o->k = (uint32_t) k;
          continue;
        }
      jt = offset_to (a, pc, in->jt);
      jf = offset_to (a, pc, in->jf);
      if (jt < 0 || jt > 255 || jf < 0 || jf > 255)
        return -1;
      o->jt = (uint8_t) jt;
      o->jf = (uint8_t) jf;
    }
  return 0;
}

int
bpf_asm_prepend (const struct bpf_asm *a, struct sock_filter **insns,
                 size_t *len, const char *what, agentrt_error_t *err)
{
  struct sock_filter *out;

  if (a->len + *len > BPF_MAXINSNS)
    return agentrt_error (err, 0,
                          "seccomp: the filter has %zu instructions, the "
                          "kernel accepts at most %d",
                          a->len + *len, BPF_MAXINSNS);
  out = xreallocarray (NULL, a->len + *len, sizeof (*out));
  if (link_program (a, out) < 0)
    {
      free (out);
      return agentrt_error (err, 0, "seccomp: %s jump too long", what);
    }
  memcpy (out + a->len, *insns, *len * sizeof (*out));
  free (*insns);
  *insns = out;
  *len += a->len;
  return 0;
}

void
bpf_asm_free (struct bpf_asm *a)
{
  free (a->insns);
  free (a->label_pos);
  memset (a, 0, sizeof (*a));
}
