/* The Public Suffix List compiled for judging wildcards, and its cache.
 *
 * Judging `*.NAME` needs three facts about a name: is it a rule's name or
 * an ancestor of one (a normal rule, or the base of a `*.` rule), is it
 * the base of a `*.` rule, is it an exception (`!name`).  The compiled
 * form is a hash table of 64-bit keys, one per (fact, name) (about 25,000
 * for the whole list), so that a lookup touches a slot or two.  It is kept
 * in a file under the runtime root, keyed on the identity of the list file
 * it was compiled from (device, inode, size, mtime, ctime): then judging a
 * wildcard reads a header and a few slots with pread instead of the
 * 250 KB list (which costs about a millisecond in a new process: page
 * faults, cold caches).
 *
 * The cache is trusted as its directory is: owned by the runtime's user,
 * written by nobody else, entries 0600 and written atomically; an entry
 * that does not match its list is recompiled.  A 64-bit collision can only
 * say a name is covered when it is not (a narrow wildcard refused), except
 * for exceptions (`!name`, eight in the list), where the odds are 2^-64. */
#ifndef AGENTRT_EGRESS_SUFFIX_CACHE_H
#define AGENTRT_EGRESS_SUFFIX_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

enum suffix_fact
{
  SUFFIX_AT_OR_ABOVE = 'A', /* a rule's name (or `*.` base) or an ancestor */
  SUFFIX_WILDCARD = 'W',    /* the base of a `*.` rule */
  SUFFIX_EXCEPTION = 'E',   /* a `!` rule's name */
};

/* Tables with more keys are refused (the whole list has about 25,000). */
#define SUFFIX_TABLE_MAX_KEYS (1u << 22)

/* The key of (fact, name[0..len)): never 0, which marks an empty slot. */
uint64_t suffix_key (enum suffix_fact fact, const char *name, size_t len);

/* A table in memory (slots) or in a cache file (read with pread). */
struct suffix_table
{
  unsigned bits; /* 1 << bits slots */
  uint64_t *slots;
  int fd;
  off_t offset;
};

/* Builds an in-memory table of keys[0..n) (duplicates allowed), n at most
 * SUFFIX_TABLE_MAX_KEYS. */
void suffix_table_build (const uint64_t *keys, size_t n, struct suffix_table *t);
void suffix_table_release (struct suffix_table *t);

/* Is `*.name` too broad by the table?  name: lowercase ASCII, no trailing
 * dot.  -1 when a slot of a cache file cannot be read. */
int suffix_table_covers (const struct suffix_table *t, const char *name,
                         bool *covered);

/* Opens the cache entry of the list at list_path (st: its fstat) in dir:
 * 0 and *t, or -1 when there is none that can be trusted and matches (then
 * the caller compiles, and stores). */
int suffix_cache_load (const char *dir, const char *list_path,
                       const struct stat *st, struct suffix_table *t);

/* Can entries be stored in dir (created, 0700, when it is missing)? */
bool suffix_cache_usable (const char *dir);

/* Writes t as the cache entry of the list (best effort: a failure leaves
 * no file, and the next judge compiles again).  Creates dir (0700) when
 * it is missing. */
void suffix_cache_store (const char *dir, const char *list_path,
                         const struct stat *st, const struct suffix_table *t);

#endif
