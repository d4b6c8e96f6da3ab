/* Seccomp profiles shipped as files (seccomp-profiles/agent-default.json),
 * compiled once and kept in a cache directory, so that starting a container
 * does not pay for parsing and compiling the profile every time.
 *
 * A cache entry is keyed on the profile's bytes, agentrt's version and
 * commit, libseccomp's version, the native architecture and the kernel
 * release; it is written atomically (temporary file + rename, mode 0600) and
 * checked on every read (owner, mode, size, header, key, checksum).  Anything
 * wrong means a silent recompile: the cache can make a start faster, never
 * change which filter applies. */
#ifndef AGENTRT_SECCOMP_CACHE_H
#define AGENTRT_SECCOMP_CACHE_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/seccomp/seccomp.h"

/* Largest profile file accepted. */
#define SECCOMP_PROFILE_MAX_SIZE (1024 * 1024)

/* Reads the profile at `path` (an OCI `linux.seccomp` object) and returns
 * its compiled program, from `cache_dir` when a valid entry is there.
 * cache_dir NULL disables the cache; a cache directory that is missing is
 * created (0700), one that is not owned by the caller or is writable by
 * others is not used.  `notes` (may be NULL) receives the compiler's notes
 * when the profile is compiled; *cache_hit (may be NULL) tells whether the
 * cache answered.  Errors name the profile and the JSON path. */
struct seccomp_program *seccomp_load_profile_cached (const char *path,
                                                     const char *cache_dir,
                                                     struct str_list *notes,
                                                     bool *cache_hit,
                                                     agentrt_error_t *err);

#endif
