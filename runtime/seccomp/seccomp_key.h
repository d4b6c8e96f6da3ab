/* The key of a compiled seccomp program in the cache (seccomp_cache.h):
 * everything the program depends on, as bytes the cache compares whole.
 *
 * Every key starts with what the compiler's output depends on besides the
 * profile: the key format, agentrt's version, commit and the GNU build ID
 * of the running program (a rebuild of the same commit is another
 * compiler), libseccomp's version (its syscall tables), the native
 * architecture and the kernel (release and version: which flags and
 * actions it accepts).  Then the profile, in one of two forms that cannot
 * be confused with each other:
 *   - "file": the bytes of a profile file (the admin policy's profile);
 *   - "oci": a canonical serialisation of a parsed struct oci_seccomp (the
 *     bundle's linux.seccomp): every field the compiler reads, each length
 *     prefixed, in a fixed order — so that two configs that parse to the
 *     same object share an entry however their JSON was spaced or ordered.
 *     listenerPath counts only as present or absent (the compiler refuses
 *     SCMP_ACT_NOTIFY without one; the path itself is used at run time, by
 *     seccomp_notify.h, never compiled), and listenerMetadata not at all. */
#ifndef AGENTRT_SECCOMP_KEY_H
#define AGENTRT_SECCOMP_KEY_H

#include <stddef.h>

#include "oci/config.h"

/* What the key of a profile file's bytes starts with: the key is these
 * *head_len bytes, then the file's.  Malloc'd. */
char *seccomp_key_file_head (size_t *head_len);

/* The key of a parsed linux.seccomp object.  Malloc'd, *key_len bytes. */
char *seccomp_key_oci (const struct oci_seccomp *seccomp, size_t *key_len);

#endif
