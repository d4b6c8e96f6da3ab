/* Installing compiled seccomp programs in the child, between clone and exec:
 * nothing here allocates, takes a lock or uses stdio; failures come back as
 * -errno for the child's fixed-size error record.
 *
 * seccomp(2) needs no_new_privs or CAP_SYS_ADMIN: set PR_SET_NO_NEW_PRIVS
 * (or keep the capability) before calling these. */
#ifndef AGENTRT_SECCOMP_LOAD_H
#define AGENTRT_SECCOMP_LOAD_H

#include <stddef.h>

#include "runtime/seccomp/seccomp.h"

/* Installs one program.  *listener_fd receives the notify listener (created
 * O_CLOEXEC by the kernel) when the program has SCMP_ACT_NOTIFY rules, else
 * -1.  Returns 0 or -errno. */
int seccomp_program_load (const struct seccomp_program *program,
                          int *listener_fd);

/* Installs programs in order (NULL entries are skipped).  All of them apply;
 * when they disagree the strictest action wins, and among equal actions the
 * program installed last decides the errno.  Install agentrt's own profile
 * first (it allows seccomp(2), so the bundle's filter can still be stacked)
 * and the bundle's last.  At most one program may have a listener (-EBUSY).
 * On failure the programs already installed stay (the child must exit) and
 * no listener is returned. */
int seccomp_programs_load (const struct seccomp_program *const *programs,
                           size_t n, int *listener_fd);

#endif
