/* The egress side of the policy: checking a per-container allowlist
 * (run.agentrt.egress.allow) against the admin policy (broad entries, the
 * ceiling), merging it with the policy's default list, and writing the
 * result in the normalised form the sidecar reads.  The entry syntax is
 * runtime/egress/allowlist.h's.  Pure code. */
#ifndef AGENTRT_POLICY_EGRESS_POLICY_H
#define AGENTRT_POLICY_EGRESS_POLICY_H

#include "common/error.h"
#include "policy.h"

/* Validates `spec` (the annotation's value; NULL when absent) against the
 * policy and sets *allow to the normalised list: the policy's default
 * entries, then the annotation's ("" when both are empty).  Errors name
 * the entry and, for a loosening the policy refuses, the policy field
 * (egress.allowBroad, egress.ceiling). */
int egress_policy_allowlist (const char *spec,
                             const struct agent_policy *policy, char **allow,
                             agentrt_error_t *err);

/* Checks the policy's own lists (egress.allow, egress.ceiling) parse;
 * egress.allow may hold broad entries only with egress.allowBroad (the
 * ceiling may).  Errors name the field.  Wildcards over public suffixes
 * are judged later, by the runtime (runtime/hardening.c), which reads the
 * Public Suffix List. */
int egress_policy_validate (const struct agent_policy *policy,
                            agentrt_error_t *err);

/* Whether every entry of the ceiling `inner` falls under an entry of the
 * ceiling `outer` (a user's egress.ceiling under the admin's): 0 when it
 * does, 1 with *bad (malloc'd) the first entry that does not, -1 when a
 * list does not parse. */
int egress_policy_ceiling_within (const struct str_list *inner,
                                  const struct str_list *outer, char **bad,
                                  agentrt_error_t *err);

#endif
