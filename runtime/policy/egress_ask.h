/* Asking a person about egress outside the allowlist (the policy's
 * egress.ask, issue 18): its settings, their bounds, the annotation that
 * turns it off (never on), and what the hardening makes of them (the
 * sidecar's directive and the change recorded).  The sidecar's side is
 * runtime/egress/ask.c; the approver's protocol oci/ask_line.h.  Pure
 * code. */
#ifndef AGENTRT_POLICY_EGRESS_ASK_H
#define AGENTRT_POLICY_EGRESS_ASK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/json_writer.h"
#include "changes.h"

#define ANNOTATION_EGRESS_ASK "run.agentrt.egress.ask"

/* Where `agentrt approve` listens unless told (--socket); the policy names
 * its own socket, there is no default there. */
#define EGRESS_ASK_DEFAULT_SOCKET "/run/agentrt-approve.sock"
#define EGRESS_ASK_DEFAULT_TIMEOUT 30 /* seconds */
#define EGRESS_ASK_MAX_TIMEOUT 600
#define EGRESS_ASK_DEFAULT_PENDING 16
#define EGRESS_ASK_MAX_PENDING 256
/* sizeof (struct sockaddr_un.sun_path) - 1 */
#define EGRESS_ASK_SOCKET_MAX 107

struct egress_ask_policy
{
  char *socket;         /* absolute path of the approver's unix socket;
                           NULL: never ask (the default) */
  uint64_t timeout;     /* seconds a question waits; then: deny */
  uint32_t max_pending; /* questions one sidecar has in flight at once */
};

void egress_ask_defaults (struct egress_ask_policy *ask);
void egress_ask_release (struct egress_ask_policy *ask);
/* A deep copy. */
void egress_ask_copy (struct egress_ask_policy *dst,
                      const struct egress_ask_policy *src);

/* "key": null (off) or {"socket": ..., "timeout": S, "maxPending": N}, as
 * the policy file's egress.ask and the directives' egressAsk (read back by
 * oci/policy_ask.c). */
void egress_ask_write_json (const struct egress_ask_policy *ask, const char *key,
                            struct json_writer *w);

/* What is wrong with the settings (to follow the field's name), or NULL. */
const char *egress_ask_check_socket (const char *path);
const char *egress_ask_check_timeout (uint64_t seconds);
const char *egress_ask_check_pending (uint64_t n);

/* run.agentrt.egress.ask: "off" only (asking is a loosening: only the
 * policy turns it on).  Sets *off. */
int egress_ask_annotation (const char *value, bool *off, agentrt_error_t *err);

/* The directive (*d: asking as the policy says, or off when the annotation
 * said so or there is no sidecar) and its change record. */
void egress_ask_harden (const struct egress_ask_policy *policy, bool off,
                        bool sidecar, struct egress_ask_policy *d,
                        struct change_list *changes);

#endif
