/* The allocation store of user namespace ranges, <root>/.userns/ (see
 * docs/userns.md): `lock`, held (flock) by every allocation and release,
 * and `ranges`, one line per allocation (runtime/idrange.h), replaced
 * atomically.  An entry is live while its container's state directory
 * exists or the runtime that wrote it still runs; a stale one is dropped
 * by the next allocation. */
#ifndef AGENTRT_IDRANGE_STORE_H
#define AGENTRT_IDRANGE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "runtime/policy/policy.h"

#define IDRANGE_STORE_DIR ".userns"

/* Allocates a range for container `id`: its first uid and gid. */
int idrange_store_allocate (const char *root, const char *id,
                            const struct agent_policy *policy, uint32_t *uid,
                            uint32_t *gid, agentrt_error_t *err);

/* Releases the ranges of `id` (only the one at uid_start when has_uid: a
 * failed create's own).  No store, or no entry, is not an error. */
int idrange_store_release (const char *root, const char *id, bool has_uid,
                           uint32_t uid_start, agentrt_error_t *err);

#endif
