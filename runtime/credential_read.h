/* A container's injected credentials on the runtime's side, at create:
 * each selected credential's value read from where the policy says (a
 * file of the host, or the runtime's own environment: never anything of
 * the container's), the container's CA made (agentrt-egress --make-ca,
 * limited to the credentials' hosts), and the message the sidecar gets
 * over a pipe (runtime/egress/inject_wire.h).  Fails closed: a value that
 * cannot be read or is unfit for a header, a CA that cannot be made, is
 * an error naming the credential. */
#ifndef AGENTRT_CREDENTIAL_READ_H
#define AGENTRT_CREDENTIAL_READ_H

#include <stddef.h>

#include "common/error.h"
#include "runtime/policy/harden.h"

/* Reads the value of d (its trailing newline dropped): *value malloc'd,
 * wiped and freed by the caller. */
int credential_read_value (const struct credential_decl *d, char **value, size_t *len,
                           agentrt_error_t *err);

/* The sidecar's message for the credentials of dir (*msg, *len) and the
 * CA's certificate (*ca_cert, PEM) for the agent's bundle.  lifetime
 * (seconds) bounds the CA's validity. */
int credential_message (const struct agent_policy *policy, const struct harden_directives *dir,
                        const char *id, char **msg, size_t *len, char **ca_cert,
                        agentrt_error_t *err);

#endif
