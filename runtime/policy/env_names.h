/* Secret-looking names, judged by their words: the names of environment
 * variables, and the keys of fields inside values (`password=`,
 * `"client_secret":`).  Pure code; env_scrub.h says how it is used. */
#ifndef AGENTRT_POLICY_ENV_NAMES_H
#define AGENTRT_POLICY_ENV_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* What is judged: a variable's name, or the key of a field in a value
 * (where the bare `pwd`, `pass`, `auth`, `sig` are passwords and
 * signatures, and a key that cannot be judged is not a secret). */
enum env_name_kind
{
  ENV_NAME_VARIABLE,
  ENV_NAME_FIELD,
};

/* Returned for a variable name too long, or with too many words, to be
 * judged: a secret, whatever its value. */
extern const char env_name_unjudged[];

/* Why name (len bytes, no NUL needed) looks like a secret, or NULL.  Any
 * case; the admin's extra patterns are not applied here. */
const char *env_name_reason (const char *name, size_t len,
                             enum env_name_kind kind);

/* Whether a value is a switch or says there is nothing (true, false, yes,
 * no, on, off, 0, 1, enabled, disabled, none, null, any case): it holds no
 * secret whatever its name. */
bool env_is_switch_value (const char *value, size_t len);

#endif
