/* Secret-looking values, by shape: private keys, vendors' token formats,
 * credentials in URLs and connection strings, Authorization headers and
 * fields named like secrets (password=, AccountKey=, sig=).  Pure code;
 * env_scrub.h says how it is used. */
#ifndef AGENTRT_POLICY_ENV_VALUES_H
#define AGENTRT_POLICY_ENV_VALUES_H

/* Why value looks like it holds a secret ("value looks like a GitHub
 * token"), or NULL.  The value itself is never part of the answer.  Linear
 * in the value's length. */
const char *env_secret_value_reason (const char *value);

#endif
