/* One line of a container's audit trail (runtime/audit.h writes them, and
 * the egress sidecar), read back as a typed record for `agentrt audit
 * --summary`.  Only what a summary needs is kept; unknown members are
 * ignored and an unknown event is AUDIT_EVENT_OTHER (a newer agentrt's),
 * but a line that is not one JSON object, lacks a valid `time` or `event`,
 * or holds a known member of the wrong type or range is refused with an
 * error naming it ("audit: lifetime_ms: expected an unsigned integer"):
 * the caller counts it as damaged. */
#ifndef AGENTRT_OCI_AUDIT_RECORD_H
#define AGENTRT_OCI_AUDIT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "config.h"

enum audit_event
{
  AUDIT_EVENT_OTHER,
  AUDIT_EVENT_CREATE,
  AUDIT_EVENT_EXEC,
  AUDIT_EVENT_LIMIT,
  AUDIT_EVENT_INCIDENT,
  AUDIT_EVENT_SIDECAR,
  AUDIT_EVENT_AUDIT,
  AUDIT_EVENT_EXIT,
  AUDIT_EVENT_EGRESS,
  AUDIT_EVENT_DNS,
  AUDIT_EVENT_INJECT,
  AUDIT_EVENT_ASK,
};

/* A change of the hardening's (runtime/policy/changes.h): its kind
 * ("env-removed") and why; what it was applied to is not kept. */
struct audit_change
{
  char *kind;
  char *why; /* NULL when absent */
};

enum audit_exit_how
{
  AUDIT_EXIT_UNKNOWN, /* "status": "unknown" */
  AUDIT_EXIT_STATUS,  /* "status": N */
  AUDIT_EXIT_SIGNAL,  /* "signal": N */
};

struct audit_record
{
  enum audit_event event;
  int64_t time_us; /* `time`, microseconds since the epoch */

  /* create */
  bool hardened;
  char *rootfs;            /* directives.rootfs; NULL when absent */
  bool seccomp_off;        /* directives.seccompProfile is null */
  bool egress_allow_broad; /* directives.egressAllowBroad */
  struct str_list env_keep; /* directives.envKeep */

  /* create, exec */
  struct audit_change *changes;
  size_t nchanges;

  /* limit ("oom", "pids", "lifetime"), incident: the kind */
  char *kind;

  /* exit */
  enum audit_exit_how exit_how;
  int32_t exit_code; /* the status or the signal */
  bool has_lifetime;
  uint64_t lifetime_ms;

  /* egress, dns (its `name`), inject, ask: host NULL when the request
   * named none */
  char *host;
  /* egress, dns */
  bool allowed;
  char *reason; /* NULL when absent */

  /* inject: the credential added; egress: the credential whose stand-in
   * went out unchanged (`standin`), NULL when none */
  char *credential;

  /* ask: the answer ("allow-once", "deny", "timeout"...) */
  char *answer;

  /* audit: records the writer could not write (`lost`) */
  uint64_t lost;
};

/* Parses one line (without its newline).  *out is zeroed first, and
 * released on failure. */
int audit_record_parse (const char *line, size_t len, struct audit_record *out,
                        agentrt_error_t *err);

void audit_record_release (struct audit_record *r);

#endif
