/* The ranges prologue (seccomp_ranges.h), written with seccomp_asm. */
#include "config.h"

#include <linux/seccomp.h>
#include <stddef.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/seccomp/seccomp_asm.h"
#include "runtime/seccomp/seccomp_ranges.h"

/* The longest prologue whose jumps all fit in 8 bits: every conditional
 * jump goes forward within it. */
#define MAX_PROLOGUE 255

struct range
{
  uint32_t lo, hi;
};

static size_t
to_ranges (const uint32_t *nrs, size_t n, struct range *out)
{
  size_t i, k = 0;

  for (i = 0; i < n; i++)
    {
      if (k > 0 && nrs[i] == out[k - 1].hi + 1)
        out[k - 1].hi = nrs[i];
      else
        out[k++] = (struct range){ nrs[i], nrs[i] };
    }
  return k;
}

/* Three instructions to load and check the architecture, one return, and
 * per range two for the leaf plus one per inner node of the search. */
static size_t
length_for (size_t n_ranges)
{
  return n_ranges ? 3 + (3 * n_ranges - 1) + 1 : 0;
}

/* Binary search over r[0..n): a leaf is lo <= nr <= hi; an inner node sends
 * numbers from the middle range's lo up to the right half. */
static void
emit_search (struct bpf_asm *a, const struct range *r, size_t n, int allow,
             int other)
{
  size_t mid;
  int right;

  if (n == 1)
    {
      bpf_asm_emit (a, BPF_JMP | BPF_JGE | BPF_K, r[0].lo, BPF_ASM_NEXT,
                    other);
      bpf_asm_emit (a, BPF_JMP | BPF_JGT | BPF_K, r[0].hi, other, allow);
      return;
    }
  mid = n / 2;
  right = bpf_asm_label (a);
  bpf_asm_emit (a, BPF_JMP | BPF_JGE | BPF_K, r[mid].lo, right,
                BPF_ASM_NEXT);
  emit_search (a, r, mid, allow, other);
  bpf_asm_mark (a, right);
  emit_search (a, r + mid, n - mid, allow, other);
}

size_t
seccomp_ranges_length (const uint32_t *nrs, size_t n)
{
  cleanup_free struct range *ranges = xreallocarray (NULL, n ? n : 1,
                                                     sizeof (*ranges));
  size_t len = length_for (to_ranges (nrs, n, ranges));

  return len <= MAX_PROLOGUE ? len : 0;
}

int
seccomp_ranges_prepend (struct sock_filter **insns, size_t *len,
                        uint32_t audit_arch, const uint32_t *nrs, size_t n,
                        agentrt_error_t *err)
{
  cleanup_free struct range *ranges = xreallocarray (NULL, n ? n : 1,
                                                     sizeof (*ranges));
  size_t n_ranges = to_ranges (nrs, n, ranges);
  struct bpf_asm a = { 0 };
  int allow, other, ret;

  allow = bpf_asm_label (&a);
  other = bpf_asm_label (&a);
  bpf_asm_emit (&a, BPF_LD | BPF_W | BPF_ABS,
                offsetof (struct seccomp_data, arch), 0, 0);
  bpf_asm_emit (&a, BPF_JMP | BPF_JEQ | BPF_K, audit_arch, BPF_ASM_NEXT,
                other);
  bpf_asm_emit (&a, BPF_LD | BPF_W | BPF_ABS,
                offsetof (struct seccomp_data, nr), 0, 0);
  emit_search (&a, ranges, n_ranges, allow, other);
  bpf_asm_mark (&a, allow);
  bpf_asm_emit (&a, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
  bpf_asm_mark (&a, other);
  ret = bpf_asm_prepend (&a, insns, len, "ranges prologue", err);
  bpf_asm_free (&a);
  return ret;
}
