/* A user's own policy file over the admin's: what it may change.  A
 * runtime that is not root reads the admin policy (--policy FILE, else
 * /etc/agentrt/policy.json, else the built-in defaults), then the user's
 * ~/.config/agentrt/policy.json ($XDG_CONFIG_HOME), which may only
 * tighten: every field ends at least as strict as the admin's, else the
 * create is refused naming the field (docs/policy.md has the table, and
 * docs/threat-model.md who may loosen what).  Two fields are the user's
 * own: audit.dir (a user's trail is the user's record) and
 * sidecar.busyPollMicroseconds (the user's own CPU); so is
 * binds.scanEntries (past it the create fails: the user's own I/O).
 * Pure code. */
#ifndef AGENTRT_POLICY_POLICY_LAYER_H
#define AGENTRT_POLICY_POLICY_LAYER_H

#include "common/error.h"
#include "policy.h"

/* 0 when `merged` (the admin's policy with the user's file read over it,
 * oci/policy_file.h's policy_file_load_over) loosens nothing of `admin`;
 * else -1 with an error "ORIGIN: FIELD: ..." saying what the admin's
 * says. */
int policy_layer_check (const struct agent_policy *admin,
                        const struct agent_policy *merged, const char *origin,
                        agentrt_error_t *err);

#endif
