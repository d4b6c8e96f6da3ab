/* The ranges prologue of compiled seccomp filters: the syscalls a profile
 * allows unconditionally on the native architecture, as a binary search
 * over ranges of numbers, ahead of libseccomp's program, which then holds
 * only the rest of the profile.  libseccomp spends one comparison per
 * syscall: an allowlist of ~270 names became ~580 instructions, and the
 * kernel's cost of installing a filter (conversion, JIT) grows with its
 * length.  Internal to runtime/seccomp*. */
#ifndef AGENTRT_SECCOMP_RANGES_H
#define AGENTRT_SECCOMP_RANGES_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* The prologue's length for these numbers (sorted, distinct), or 0 when
 * it cannot be written (no numbers, or a jump longer than 8 bits). */
size_t seccomp_ranges_length (const uint32_t *nrs, size_t n);

/* Replaces *insns (malloc'd, *len entries) with the prologue followed by
 * the original program: on architecture `audit_arch` (AUDIT_ARCH_*),
 * numbers in nrs[] (sorted, distinct, below the x32 bit) return
 * SECCOMP_RET_ALLOW; every other call goes on to the original program.
 * Call only when seccomp_ranges_length() is not 0. */
int seccomp_ranges_prepend (struct sock_filter **insns, size_t *len,
                            uint32_t audit_arch, const uint32_t *nrs, size_t n,
                            agentrt_error_t *err);

#endif
