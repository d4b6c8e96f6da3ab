/* Capabilities: names from config.json turned into bit masks by the runtime
 * (unknown names are a warning, as the runtime-spec asks), then applied by
 * the init in runc's order with raw syscalls (no allocation). */
#ifndef AGENTRT_CAPS_H
#define AGENTRT_CAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/config.h"

struct cap_masks
{
  uint64_t bounding;
  uint64_t effective;
  uint64_t inheritable;
  uint64_t permitted;
  uint64_t ambient;
};

/* "CAP_SYS_ADMIN" -> 21; -1 when unknown to this kernel/libcap. */
int caps_from_name (const char *name);

/* Highest capability the running kernel knows (cap_last_cap). */
int caps_last_cap (void);

/* config NULL: no capability at all (the runtime-spec default). */
void caps_masks_build (const struct oci_capabilities *config,
                       struct cap_masks *out);

/* Child side, while still root with every capability: drop the bounding set
 * and keep capabilities across the uid change that follows. */
int caps_prepare_for_setuid (const struct cap_masks *masks);
/* Child side, after setresuid: set permitted/effective/inheritable and the
 * ambient set.  Returns -errno. */
int caps_apply (const struct cap_masks *masks);

#endif
