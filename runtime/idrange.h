/* Host id ranges for the containers' user namespaces, decided without I/O
 * (runtime/idrange_store.h reads and writes the store; docs/userns.md):
 * the pool a policy and /etc/subuid, /etc/subgid give, cut into slots of
 * USERNS_AUTO_SIZE ids; the store's text (one allocation a line); the
 * first slot no live allocation overlaps. */
#ifndef AGENTRT_IDRANGE_H
#define AGENTRT_IDRANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "runtime/idmap.h"
#include "runtime/policy/policy.h"

/* Ids below this are never a container's (host root, ordinary users). */
#define IDRANGE_MIN 65536u

/* Where the slots come from, for errors ("the policy's userns.pool",
 * "/etc/subuid and /etc/subgid of agentrt", "the built-in pool"), and
 * the slots' first ids (uid[k] goes with gid[k]; n: the shorter list). */
struct idrange_pool
{
  char *origin;
  uint32_t *uid;
  uint32_t *gid;
  size_t n;
};

/* The pool (see docs/userns.md): the policy's, else the ranges that
 * subuid_text and subgid_text (NULL: unreadable) give the policy's
 * userns.subidUser when both give at least one slot, else the built-in
 * one. */
void idrange_pool_decide (const struct agent_policy *policy,
                          const char *subuid_text, const char *subgid_text,
                          struct idrange_pool *out);
void idrange_pool_release (struct idrange_pool *pool);

/* The slots of n ranges: merged where they overlap or touch, ids below
 * IDRANGE_MIN and 4294967295 left out, cut into USERNS_AUTO_SIZE ids, in
 * ascending order.  Returns how many (malloc'd into *out, NULL for 0). */
size_t idrange_slots (const struct idmap_range *ranges, size_t n,
                      uint32_t **out);

struct idrange_entry
{
  uint32_t uid;
  uint32_t gid;
  uint32_t size;
  pid_t pid;            /* the runtime that allocated it */
  uint64_t pid_start;   /* its start time (/proc/PID/stat field 22) */
  char *id;             /* the container's */
  bool live;            /* set by the caller (idrange_store.c) */
};

struct idrange_table
{
  struct idrange_entry *items;
  size_t len;
};

/* Parses the store's text ("UID GID SIZE PID START ID\n" lines).  A line
 * that is not one fails, naming `origin` and the line number. */
int idrange_parse (const char *text, const char *origin,
                   struct idrange_table *out, agentrt_error_t *err);

/* The text of the live entries (malloc'd). */
char *idrange_format (const struct idrange_table *t);

/* Appends an entry (id copied). */
void idrange_add (struct idrange_table *t, uint32_t uid, uint32_t gid,
                  pid_t pid, uint64_t pid_start, const char *id);

/* Marks not live the entries of `id` (all of them, or only the one at
 * uid_start when has_uid); returns how many. */
size_t idrange_drop (struct idrange_table *t, const char *id, bool has_uid,
                     uint32_t uid_start);

void idrange_table_free (struct idrange_table *t);

/* The first slot of the pool whose uid and gid ranges overlap no live
 * entry's.  An exhausted pool is an error naming it and how many
 * containers hold ranges. */
int idrange_choose (const struct idrange_pool *pool,
                    const struct idrange_table *t, uint32_t *uid,
                    uint32_t *gid, agentrt_error_t *err);

#endif
