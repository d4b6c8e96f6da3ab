/* The audit trail: one file of JSON lines per container under the policy's
 * audit dir (<dir>/<id>.jsonl, opened safely: audit_open.h), written O_APPEND so that the runtime, the
 * monitor and the egress sidecar can all add lines, and kept after
 * `delete`.  Events: create (every change the hardening made), limit
 * (oom, pids, lifetime), egress (written by the sidecar), sidecar (its
 * death) and exit.  Secrets are never written, only their names. */
#ifndef AGENTRT_AUDIT_H
#define AGENTRT_AUDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "runtime/audit_open.h"
#include "runtime/policy/harden.h"

/* "create": hardened or not, the directives and every change. */
int audit_create (int fd, const char *id, const struct harden_result *result,
                  agentrt_error_t *err);

/* "exec": a process started in the container (its program, never its
 * arguments or environment) and what the hardening changed in it. */
void audit_exec (int fd, const char *id, const char *program,
                 const struct change_list *changes);

/* "limit": kind is "oom", "pids" or "lifetime"; detail a short text. */
void audit_limit (int fd, const char *id, const char *kind, const char *detail);

/* "sidecar": the egress proxy stopped while the container ran. */
void audit_sidecar_died (int fd, const char *id, int status);

/* "exit": status as wait(2) gives it (or -1 when unknown), lifetime in ms. */
void audit_exit (int fd, const char *id, int status, uint64_t lifetime_ms);

#endif
