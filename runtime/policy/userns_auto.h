/* Whether a hardened container gets a user namespace of its own, and its
 * mappings once the runtime has allocated a range (docs/userns.md).  Pure
 * code: the runtime allocates (runtime/idrange_store.h) between the two. */
#ifndef AGENTRT_POLICY_USERNS_AUTO_H
#define AGENTRT_POLICY_USERNS_AUTO_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/config.h"
#include "changes.h"
#include "policy.h"

/* Container ids 0..USERNS_AUTO_SIZE-1 are mapped. */
#define USERNS_AUTO_SIZE 65536u

enum harden_userns
{
  HARDEN_USERNS_NONE,   /* not decided here: a runtime that is not root */
  HARDEN_USERNS_AUTO,   /* a new one, mapped to a range allocated at create */
  HARDEN_USERNS_BUNDLE, /* the bundle's own (new with its maps, or joined) */
  HARDEN_USERNS_OFF,    /* none: the policy's userns.mode is "off" */
  HARDEN_USERNS_JOINED, /* none: the bundle joins a pid or mount namespace */
};

/* "none", "auto", "bundle", "off", "joined"; and back (-1: none of them). */
const char *harden_userns_name (enum harden_userns mode);
int harden_userns_from_name (const char *name);

/* Decides (see the table of docs/userns.md); with HARDEN_USERNS_AUTO a
 * new user namespace is added to config without mappings (the runtime
 * calls userns_auto_map).  `rootless`: the runtime is not root.  A
 * process.user id the range cannot map fails, naming the field. */
int userns_auto_harden (struct oci_config *config,
                        const struct agent_policy *policy, bool rootless,
                        enum harden_userns *out, struct change_list *changes,
                        agentrt_error_t *err);

/* Sets linux.uidMappings and gidMappings to 0 -> uid_start and
 * 0 -> gid_start, USERNS_AUTO_SIZE ids each, and records them; cuts the
 * bundle's net.ipv4.ping_group_range to the mapped groups (recorded). */
void userns_auto_map (struct oci_config *config, uint32_t uid_start,
                      uint32_t gid_start, struct change_list *changes);

/* The mapping of a bind mount's idmap: the source's owner `owner` (on
 * disk) is the agent's `agent` id (container id, < USERNS_AUTO_SIZE),
 * host id start + agent; nothing else is mapped. */
struct oci_id_mapping userns_auto_bind_map (uint32_t owner, uint32_t agent,
                                            uint32_t start);

#endif
