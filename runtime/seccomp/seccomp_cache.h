/* Compiled seccomp programs kept in a cache directory, so that starting a
 * container does not pay for compiling a profile it has compiled before:
 * the admin policy's profile file (seccomp-profiles/agent-default.json) and
 * the bundle's own linux.seccomp, which engines send with every container
 * (Docker's and Podman's default profiles: about 400 syscalls for three
 * architectures, 10-20 ms to compile here).
 *
 * An entry is keyed on everything the compiled program depends on
 * (seccomp_key.h: the profile, agentrt's build, libseccomp, the
 * architecture, the kernel); the key is stored in the entry whole and
 * compared byte for byte, so a hash collision costs a recompile, never a
 * wrong program.  Entries are written atomically (temporary file + rename,
 * mode 0600) and checked on every read: owner (the caller's euid), mode
 * (nobody else may read or write), regular file, size, header, key,
 * checksum.  A cache directory that is not the caller's or that others can
 * write is not used at all.  Anything wrong means a silent recompile: the
 * cache can make a start faster, never change which filter applies, and a
 * profile that does not compile is never cached (its error is reported on
 * every use).
 *
 * The cache is bounded: after each write, while it holds more than
 * SECCOMP_CACHE_MAX_ENTRIES entries or SECCOMP_CACHE_MAX_BYTES bytes, the
 * least recently used entry goes (each hit sets the entry's access time);
 * temporary files older than a minute (left by a crash) go too. */
#ifndef AGENTRT_SECCOMP_CACHE_H
#define AGENTRT_SECCOMP_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/seccomp/seccomp.h"

/* Largest profile file accepted. */
#define SECCOMP_PROFILE_MAX_SIZE (1024 * 1024)

/* The bounds of a cache directory.  An engine sends a different profile
 * for each set of capabilities a container is given (and for each engine
 * version), so a host sees a few to a few dozen distinct profiles; an
 * entry of Docker's default profile is 15 KiB, of Podman's 17 KiB. */
#define SECCOMP_CACHE_MAX_ENTRIES 128
#define SECCOMP_CACHE_MAX_BYTES (8 * 1024 * 1024)

/* `<state root>/.seccomp-cache`: the cache of a runtime root.  Malloc'd. */
char *seccomp_cache_dir (const char *state_root);

/* Reads the profile at `path` (an OCI `linux.seccomp` object) and returns
 * its compiled program, from `cache_dir` when a valid entry is there.
 * cache_dir NULL disables the cache; a cache directory that is missing is
 * created (0700).  `notes` (may be NULL) receives the compiler's notes
 * when the profile is compiled; *cache_hit (may be NULL) tells whether the
 * cache answered.  Errors name the profile and the JSON path. */
struct seccomp_program *seccomp_load_profile_cached (const char *path,
                                                     const char *cache_dir,
                                                     struct str_list *notes,
                                                     bool *cache_hit,
                                                     agentrt_error_t *err);

/* seccomp_compile (seccomp.h) of a parsed object, through the cache at
 * `cache_dir` (NULL: no cache).  `path` is the object's JSON path for
 * errors ("linux.seccomp").  `notes`, *cache_hit: as above. */
struct seccomp_program *seccomp_compile_cached (
    const struct oci_seccomp *seccomp, const char *path,
    const char *cache_dir, struct str_list *notes, bool *cache_hit,
    agentrt_error_t *err);

/* The cache directory itself, for the functions above and for tests. */
struct seccomp_cache
{
  int dirfd;
  size_t max_entries;
  size_t max_bytes;
};

/* Opens (creating it 0700 if missing) `dir` with the default bounds.
 * Returns 0, or -1 when the directory cannot be used (c->dirfd is then
 * -1 and every lookup misses). */
int seccomp_cache_open (struct seccomp_cache *c, const char *dir);
void seccomp_cache_close (struct seccomp_cache *c);

/* The program stored under `key`, or NULL when there is no valid entry. */
struct seccomp_program *seccomp_cache_get (struct seccomp_cache *c,
                                           const void *key, size_t key_len);

/* Stores `p` under `key` (best effort: a failure leaves nothing behind),
 * then evicts down to the bounds. */
void seccomp_cache_put (struct seccomp_cache *c, const void *key,
                        size_t key_len, const struct seccomp_program *p);

/* A key in two pieces, the same key as their bytes one after the other:
 * a profile file's text follows its key's head without being copied. */
struct seccomp_cache_key
{
  const void *head;
  size_t head_len;
  const void *body;
  size_t body_len;
};

/* seccomp_cache_get and seccomp_cache_put of a key in two pieces. */
struct seccomp_program *
seccomp_cache_get_split (struct seccomp_cache *c,
                         const struct seccomp_cache_key *k);
void seccomp_cache_put_split (struct seccomp_cache *c,
                              const struct seccomp_cache_key *k,
                              const struct seccomp_program *p);

/* The 64-bit hash that names a key's entry file (not cryptographic: the
 * key itself is compared). */
uint64_t seccomp_cache_hash (const void *key, size_t key_len);

#endif
