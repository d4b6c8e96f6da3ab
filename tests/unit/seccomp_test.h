/* What the seccomp unit tests share: a classic-BPF interpreter for the
 * instructions seccomp filters use, so that a test decides what a compiled
 * program does with a syscall without installing it (an instruction it
 * does not know sets eval_failed), and reading a profile file. */
#ifndef AGENTRT_TESTS_SECCOMP_TEST_H
#define AGENTRT_TESTS_SECCOMP_TEST_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/xalloc.h"
#include "runtime/seccomp/seccomp.h"

static bool eval_failed;

static inline uint32_t
bpf_eval (const struct seccomp_program *p, const struct seccomp_data *d)
{
  uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
  size_t pc = 0;

  while (pc < p->len)
    {
      const struct sock_filter *f = &p->insns[pc++];
      uint32_t k = f->k;
      bool jump;

      switch (f->code)
        {
        case BPF_LD | BPF_W | BPF_ABS:
          if (k % 4 || k + 4 > sizeof (*d))
            goto bad;
          memcpy (&a, (const char *) d + k, 4);
          continue;
        case BPF_LD | BPF_MEM:
          a = mem[k % BPF_MEMWORDS];
          continue;
        case BPF_LDX | BPF_MEM:
          x = mem[k % BPF_MEMWORDS];
          continue;
        case BPF_ST:
          mem[k % BPF_MEMWORDS] = a;
          continue;
        case BPF_STX:
          mem[k % BPF_MEMWORDS] = x;
          continue;
        case BPF_ALU | BPF_AND | BPF_K:
          a &= k;
          continue;
        case BPF_MISC | BPF_TAX:
          x = a;
          continue;
        case BPF_MISC | BPF_TXA:
          a = x;
          continue;
        case BPF_RET | BPF_K:
          return k;
        case BPF_RET | BPF_A:
          return a;
        case BPF_JMP | BPF_JA:
          pc += k;
          continue;
        case BPF_JMP | BPF_JEQ | BPF_K:
          jump = a == k;
          break;
        case BPF_JMP | BPF_JGT | BPF_K:
          jump = a > k;
          break;
        case BPF_JMP | BPF_JGE | BPF_K:
          jump = a >= k;
          break;
        case BPF_JMP | BPF_JSET | BPF_K:
          jump = (a & k) != 0;
          break;
        default:
          goto bad;
        }
      pc += jump ? f->jt : f->jf;
    }
bad:
  eval_failed = true;
  return 0xdeadbeef;
}


/* The file's text (up to 1 MiB, NUL-terminated; empty when unreadable). */
static inline char *
read_text (const char *path, size_t *len)
{
  FILE *f = fopen (path, "re");
  char *buf = xmalloc (1 << 20);

  *len = f ? fread (buf, 1, (1 << 20) - 1, f) : 0;
  if (f)
    fclose (f);
  buf[*len] = '\0';
  return buf;
}

#endif
