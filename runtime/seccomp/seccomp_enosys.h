/* The ENOSYS prologue of compiled seccomp filters: syscalls numbered above
 * the highest one a profile names get ENOSYS instead of the profile's
 * default action, so that libc falls back from syscalls that are newer than
 * the profile (runc does the same).  Internal to runtime/seccomp*. */
#ifndef AGENTRT_SECCOMP_ENOSYS_H
#define AGENTRT_SECCOMP_ENOSYS_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* One architecture of a filter: its libseccomp token (SCMP_ARCH_*) and the
 * highest syscall number, for that architecture, that the profile names. */
struct enosys_arch
{
  uint32_t token;
  uint32_t max_nr;
};

/* Replaces *insns (malloc'd, *len entries) with the prologue followed by the
 * original program.  Architectures the prologue cannot describe (s390, whose
 * syscall 0 multiplexes large numbers) are left to the program.  Fails when
 * the result would exceed the kernel's BPF_MAXINSNS. */
int seccomp_enosys_prepend (struct sock_filter **insns, size_t *len,
                            const struct enosys_arch *archs, size_t n_archs,
                            agentrt_error_t *err);

#endif
