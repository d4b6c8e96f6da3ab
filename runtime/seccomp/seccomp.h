/* Seccomp filters: compiling an OCI `linux.seccomp` object (struct
 * oci_seccomp) into a BPF program in the parent with libseccomp, and what
 * `agentrt features` reports about seccomp.
 *
 * The parent compiles before clone (seccomp_compile, or the cached
 * seccomp_load_profile_cached of seccomp_cache.h); the child installs the
 * finished programs between clone and exec with seccomp_load.h, which needs
 * neither libseccomp nor malloc.  The notify listener's parent side is in
 * seccomp_notify.h. */
#ifndef AGENTRT_SECCOMP_H
#define AGENTRT_SECCOMP_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "oci/config.h"

/* A finished, loadable filter.  `flags` are the SECCOMP_FILTER_FLAG_* bits
 * to pass to seccomp(2): the profile's flags, plus NEW_LISTENER when a rule
 * uses SCMP_ACT_NOTIFY. */
struct seccomp_program
{
  struct sock_filter *insns;
  unsigned short len;
  unsigned int flags;
};

/* Compiles `seccomp` for this machine.  `path` is the JSON path of the
 * object, used in errors: "linux.seccomp" gives
 * "linux.seccomp.syscalls[3].names[0]: ...", "" (a profile file, where the
 * object is the document) gives "syscalls[3].names[0]: ...".
 *
 * Follows runc where the spec is silent: a rule whose action equals the
 * default action is dropped; unknown syscall names are skipped (the profile
 * may be newer than libseccomp) and noted; syscalls numbered above the
 * highest one the profile names get ENOSYS rather than the default action
 * when the default denies, so that libc falls back from syscalls newer than
 * the profile; several conditions on the same argument become separate rules
 * (OR), which is refused when it would widen what the rule allows.
 * SCMP_ACT_NOTIFY is refused as the default action and for `sendmsg` and
 * `write`, which the child needs to hand the listener over.  In a filter
 * for the native architecture alone, the syscalls allowed unconditionally
 * and named by no other rule are checked by number ranges ahead of
 * libseccomp's program (seccomp_ranges.h): the same decisions, a shorter
 * program.
 *
 * `notes`, when not NULL, receives one line per skipped name or shadowed
 * rule, for the caller to log at debug level.  Returns NULL with *err set. */
struct seccomp_program *seccomp_compile (const struct oci_seccomp *seccomp,
                                         const char *path,
                                         struct str_list *notes,
                                         agentrt_error_t *err);

/* seccomp_compile, with the ranges prologue or without it (libseccomp's
 * layout alone: what tests compare the prologue's decisions with). */
struct seccomp_program *seccomp_compile_layout (
    const struct oci_seccomp *seccomp, const char *path,
    struct str_list *notes, bool ranges, agentrt_error_t *err);

/* Copies a program built elsewhere (the cache).  `insns` has `len` entries. */
struct seccomp_program *seccomp_program_new (const struct sock_filter *insns,
                                             size_t len, unsigned int flags);

void seccomp_program_free (struct seccomp_program *program);

static inline void
cleanup_seccomp_program_fn (struct seccomp_program **p)
{
  seccomp_program_free (*p);
}
#define cleanup_seccomp_program \
  __attribute__ ((cleanup (cleanup_seccomp_program_fn)))

/* SECCOMP_FILTER_FLAG_* name -> bit; 0 for names agentrt does not know. */
unsigned int seccomp_flag_from_name (const char *name);

/* True when the running kernel accepts `flag` (probed with seccomp(2)). */
bool seccomp_flag_supported (unsigned int flag);

/* What `agentrt features` lists under "seccomp".  Every list is sorted and
 * NULL-terminated; supported_flags are the known flags this kernel accepts. */
struct seccomp_features
{
  const char *actions[10];
  const char *operators[8];
  const char *archs[20];
  const char *known_flags[5];
  const char *supported_flags[5];
};

void seccomp_features_get (struct seccomp_features *features);

#endif
