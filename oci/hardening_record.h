/* The hardening decision stored with a container (hardening.json in its
 * state directory): the effective admin policy (as a policy file), the
 * directives, and the agent seccomp program as compiled at create.  `exec`
 * reads it back and applies exactly that: it never re-reads the policy
 * file or the profile, which may have changed since the create.
 *
 *   {"version": 1, "policy": {...policy file...},
 *    "directives": {...harden_directives_write_json...},
 *    "agentSeccomp": null | {"flags": N, "program": "base64 of sock_filter[]"}}
 */
#ifndef AGENTRT_OCI_HARDENING_RECORD_H
#define AGENTRT_OCI_HARDENING_RECORD_H

#include <stddef.h>

#include "../common/error.h"
#include "../runtime/policy/harden.h"
#include "../runtime/policy/policy.h"

#define HARDENING_RECORD_FILE "hardening.json"

struct hardening_record
{
  struct agent_policy policy;
  struct harden_directives directives;
  unsigned char *program;  /* the agent filter's sock_filter array, or NULL */
  size_t program_len;      /* bytes */
  unsigned int program_flags;
};

/* The record as JSON (malloc'd).  program may be NULL. */
char *hardening_record_to_json (const struct agent_policy *policy,
                                const struct harden_directives *directives,
                                const void *program, size_t program_len,
                                unsigned int program_flags);

/* Parses a record; errors name the field ("hardening.json: directives.
 * egress: ...").  *out is released on failure. */
int hardening_record_parse (const char *json, size_t len,
                            struct hardening_record *out, agentrt_error_t *err);

void hardening_record_release (struct hardening_record *r);

#endif
