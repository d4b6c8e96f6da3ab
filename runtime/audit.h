/* The audit trail: one file of JSON lines per container under the policy's
 * audit dir (<dir>/<id>.jsonl, opened safely: audit_open.h), written
 * O_APPEND so that the runtime, the monitor and the egress sidecar can all
 * add lines, and kept after `delete`.  Events: create (every change the
 * hardening made), exec, limit (oom, pids, lifetime), incident (a duty the
 * monitor could not carry out), egress (written by the sidecar), sidecar
 * (its death), audit (lines written late or lost) and exit.  Secrets are
 * never written, only their names.
 *
 * A line is written with one write(2) (retried on EINTR, the rest of a
 * short write after it).  `create` and `exec` fail when theirs cannot be
 * written; the monitor keeps the lines it could not write and writes them
 * before its next one (struct audit_trail). */
#ifndef AGENTRT_AUDIT_H
#define AGENTRT_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "runtime/audit_open.h"
#include "runtime/policy/harden.h"

/* "create": hardened or not, the directives and every change. */
int audit_create (int fd, const char *id, const struct harden_result *result,
                  agentrt_error_t *err);

/* "exec": a process started in the container (its program, never its
 * arguments or environment) and what the hardening changed in it. */
int audit_exec (int fd, const char *id, const char *program,
                const struct change_list *changes, agentrt_error_t *err);

/* The monitor's trail: lines that cannot be written (a full disk) wait,
 * oldest first, and go out before the next one; once they have, a line
 * "audit" says how many were late or lost (beyond AUDIT_PENDING_MAX the
 * oldest is dropped).  The fd and id are borrowed. */
#define AUDIT_PENDING_MAX 64
struct audit_trail
{
  int fd;
  const char *id;
  char *pending[AUDIT_PENDING_MAX];
  size_t npending;
  unsigned long late, lost; /* since the last "audit" line */
  int error;                /* errno of the last failed write */
  bool partial;             /* a short write left a broken line */
};

void audit_trail_init (struct audit_trail *t, int fd, const char *id);
void audit_trail_release (struct audit_trail *t);
/* Writes what waits: 0 when nothing does any more, else -1. */
int audit_trail_flush (struct audit_trail *t);
/* Flushes, retrying every 100 ms for up to ms while lines still wait. */
int audit_trail_drain (struct audit_trail *t, unsigned ms);

/* Each returns 0 when the line (and every one waiting before it) was
 * written, -1 when it waits. */
/* "limit": kind is "oom", "pids" or "lifetime"; detail a short text. */
int audit_limit (struct audit_trail *t, const char *kind, const char *detail);
/* "incident": a duty of the monitor failed (kind "lifetime-kill",
 * "limit-events", "sidecar-stop", "monitor"); detail says what and why. */
int audit_incident (struct audit_trail *t, const char *kind,
                    const char *detail);
/* "sidecar": the egress proxy stopped while the container ran (status as
 * wait(2) gives it, -1 when unknown; why: what it said before, or NULL). */
int audit_sidecar_died (struct audit_trail *t, int status, const char *why);
/* "sidecar": the egress proxy could not be started at the agent's first
 * connection (why: the failed step), no status. */
int audit_sidecar_failed (struct audit_trail *t, const char *why);
/* "exit": status as wait(2) gives it (or -1 when unknown), lifetime in ms. */
int audit_exit (struct audit_trail *t, int status, uint64_t lifetime_ms);

#endif
