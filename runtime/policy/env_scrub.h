/* Environment scrubbing: recognising secret-looking variables by name
 * (env_names.h) or by value (env_values.h), and removing them from a
 * process's environment.  Rules match whole known shapes (name words,
 * token formats), so that GIT_AUTHOR_NAME, TOKENIZERS_PARALLELISM, PWD or
 * AWS_REGION are kept.  Used by the hardening step and, with the same keep
 * list, for exec'd processes.  Pure code. */
#ifndef AGENTRT_POLICY_ENV_SCRUB_H
#define AGENTRT_POLICY_ENV_SCRUB_H

#include <stdbool.h>

#include "oci/config.h"
#include "changes.h"
#include "env_values.h"
#include "policy.h"

/* Why a variable name looks like a secret ("name matches *_TOKEN"), or NULL.
 * Case-insensitive; extra patterns come from the policy (may be NULL).
 * env_scrub also keeps a variable whose value is a switch (true, 0...)
 * when only the built-in name rules call it a secret. */
const char *env_secret_name_reason (const char *name,
                                    const struct agent_policy *policy);

/* Removes secret-looking entries ("NAME=value"; entries without '=' are
 * judged as a whole) from env, except those whose NAME is in keep (may be
 * NULL).  Each removal, and each kept secret, is recorded by name; a name
 * that itself looks like a secret or is not a plausible variable name is
 * recorded as "entry #N". */
void env_scrub (struct str_list *env, const struct str_list *keep,
                const struct agent_policy *policy,
                struct change_list *changes);

/* Sets NAME=value in env, replacing every existing NAME entry.  Returns
 * whether the environment differed, and then records a change (why) in
 * changes (may be NULL). */
bool env_set (struct str_list *env, const char *name, const char *value,
              const char *why, struct change_list *changes);

/* The value of the first NAME entry (as getenv sees it), or NULL. */
const char *env_get (const struct str_list *env, const char *name);

#endif
