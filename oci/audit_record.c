/* Reading one audit-trail line into a typed record (see audit_record.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/timestamp.h"
#include "common/xalloc.h"
#include "audit_record.h"
#include "json_tree.h"

static const struct
{
  const char *name;
  enum audit_event event;
} events[] = {
  { "create", AUDIT_EVENT_CREATE },   { "exec", AUDIT_EVENT_EXEC },
  { "limit", AUDIT_EVENT_LIMIT },     { "incident", AUDIT_EVENT_INCIDENT },
  { "sidecar", AUDIT_EVENT_SIDECAR }, { "audit", AUDIT_EVENT_AUDIT },
  { "exit", AUDIT_EVENT_EXIT },       { "egress", AUDIT_EVENT_EGRESS },
  { "dns", AUDIT_EVENT_DNS },         { "inject", AUDIT_EVENT_INJECT },
  { "ask", AUDIT_EVENT_ASK },
};

/* A member that is present and null (json_member says absent for both). */
static bool
member_is_null (const struct json_node *obj, const char *key)
{
  for (uint32_t i = 0; i < obj->len; i++)
    if (strcmp (obj->u.items[i].key, key) == 0)
      return obj->u.items[i].type == JSON_NULL;
  return false;
}

static int
parse_changes (const struct json_ctx *c, const struct json_node *obj,
               const char *key, enum json_presence presence,
               struct audit_record *r)
{
  const struct json_path *p = JSON_PATH_KEY (NULL, key);
  const struct json_node *list;

  if (json_member_of_type (c, obj, NULL, key, presence, JSON_ARRAY, &list) < 0)
    return -1;
  if (list == NULL || list->len == 0)
    return 0;
  r->changes = xzalloc (list->len * sizeof *r->changes);
  for (uint32_t i = 0; i < list->len; i++)
    {
      const struct json_node *ch = &list->u.items[i];
      const struct json_path *pi = JSON_PATH_INDEX (p, i);
      struct audit_change *out = &r->changes[r->nchanges++];

      if (json_expect (c, ch, pi, JSON_OBJECT) < 0
          || json_member_string (c, ch, pi, "kind", JSON_REQUIRED, &out->kind) < 0
          || json_member_string (c, ch, pi, "why", JSON_OPTIONAL, &out->why) < 0)
        return -1;
    }
  return 0;
}

static int
parse_directives (const struct json_ctx *c, const struct json_node *d,
                  struct audit_record *r)
{
  const struct json_path *p = JSON_PATH_KEY (NULL, "directives");
  const struct json_node *keep, *profile;

  if (json_member_string (c, d, p, "rootfs", JSON_OPTIONAL, &r->rootfs) < 0
      || json_member_bool (c, d, p, "egressAllowBroad", JSON_OPTIONAL,
                           &r->egress_allow_broad, NULL) < 0
      || json_member_of_type (c, d, p, "envKeep", JSON_OPTIONAL, JSON_ARRAY,
                              &keep) < 0)
    return -1;
  r->seccomp_off = member_is_null (d, "seccompProfile");
  if (!r->seccomp_off
      && json_member_of_type (c, d, p, "seccompProfile", JSON_OPTIONAL,
                              JSON_STRING, &profile) < 0)
    return -1;
  for (uint32_t i = 0; keep && i < keep->len; i++)
    {
      cleanup_free char *name = NULL;
      if (json_read_string (c, &keep->u.items[i],
                            JSON_PATH_INDEX (JSON_PATH_KEY (p, "envKeep"), i),
                            &name) < 0)
        return -1;
      str_list_append (&r->env_keep, name);
    }
  return 0;
}

static int
parse_create (const struct json_ctx *c, const struct json_node *obj,
              struct audit_record *r)
{
  const struct json_node *d;

  if (json_member_bool (c, obj, NULL, "hardened", JSON_REQUIRED, &r->hardened,
                        NULL) < 0)
    return -1;
  if (!r->hardened)
    return 0;
  if (json_member_of_type (c, obj, NULL, "directives", JSON_REQUIRED,
                           JSON_OBJECT, &d) < 0
      || parse_directives (c, d, r) < 0)
    return -1;
  return parse_changes (c, obj, "changes", JSON_REQUIRED, r);
}

static int
parse_exit (const struct json_ctx *c, const struct json_node *obj,
            struct audit_record *r)
{
  const struct json_node *status = json_member (obj, "status");
  bool has;

  if (json_member_int (c, obj, NULL, "lifetime_ms", JSON_OPTIONAL, JSON_U64,
                       &r->lifetime_ms, &r->has_lifetime) < 0
      || json_member_int (c, obj, NULL, "signal", JSON_OPTIONAL, JSON_I32,
                          &r->exit_code, &has) < 0)
    return -1;
  if (has)
    {
      if (status)
        return json_fail (c, JSON_PATH_KEY (NULL, "signal"),
                          "both a status and a signal");
      if (r->exit_code < 1 || r->exit_code > 127)
        return json_fail (c, JSON_PATH_KEY (NULL, "signal"),
                          "out of range (1..127)");
      r->exit_how = AUDIT_EXIT_SIGNAL;
      return 0;
    }
  if (status == NULL)
    return json_fail (c, JSON_PATH_KEY (NULL, "status"),
                      "missing required field");
  if (status->type == JSON_STRING && status->len == 7
      && memcmp (status->u.text, "unknown", 7) == 0)
    {
      r->exit_how = AUDIT_EXIT_UNKNOWN;
      return 0;
    }
  if (json_read_int (c, status, JSON_PATH_KEY (NULL, "status"), JSON_I32,
                     &r->exit_code) < 0)
    return -1;
  if (r->exit_code < 0 || r->exit_code > 255)
    return json_fail (c, JSON_PATH_KEY (NULL, "status"),
                      "out of range (0..255)");
  r->exit_how = AUDIT_EXIT_STATUS;
  return 0;
}

/* egress and dns: a decision, a host (dns: `name`) and a reason; egress
 * also the stand-in that went out unchanged. */
static int
parse_decision (const struct json_ctx *c, const struct json_node *obj,
                struct audit_record *r)
{
  bool dns = r->event == AUDIT_EVENT_DNS;
  cleanup_free char *decision = NULL;

  if (json_member_string (c, obj, NULL, "decision", JSON_REQUIRED, &decision) < 0
      || json_member_string (c, obj, NULL, dns ? "name" : "host", JSON_OPTIONAL,
                             &r->host) < 0
      || json_member_string (c, obj, NULL, "reason", JSON_OPTIONAL, &r->reason) < 0
      || (!dns && json_member_string (c, obj, NULL, "standin", JSON_OPTIONAL,
                                      &r->credential) < 0))
    return -1;
  if (strcmp (decision, "allow") == 0)
    r->allowed = true;
  else if (strcmp (decision, "deny") != 0)
    return json_fail (c, JSON_PATH_KEY (NULL, "decision"),
                      "expected \"allow\" or \"deny\"");
  return 0;
}

/* inject and ask: what was done (required) and to which host. */
static int
parse_what_host (const struct json_ctx *c, const struct json_node *obj,
                 const char *key, char **what, struct audit_record *r)
{
  if (json_member_string (c, obj, NULL, key, JSON_REQUIRED, what) < 0
      || json_member_string (c, obj, NULL, "host", JSON_OPTIONAL, &r->host) < 0)
    return -1;
  return 0;
}

static int
parse_event (const struct json_ctx *c, const struct json_node *obj,
             struct audit_record *r)
{
  switch (r->event)
    {
    case AUDIT_EVENT_CREATE:
      return parse_create (c, obj, r);
    case AUDIT_EVENT_EXEC:
      return parse_changes (c, obj, "changes", JSON_OPTIONAL, r);
    case AUDIT_EVENT_LIMIT:
    case AUDIT_EVENT_INCIDENT:
      return json_member_string (c, obj, NULL,
                                 r->event == AUDIT_EVENT_LIMIT ? "limit"
                                                               : "incident",
                                 JSON_REQUIRED, &r->kind);
    case AUDIT_EVENT_EXIT:
      return parse_exit (c, obj, r);
    case AUDIT_EVENT_EGRESS:
    case AUDIT_EVENT_DNS:
      return parse_decision (c, obj, r);
    case AUDIT_EVENT_INJECT:
      return parse_what_host (c, obj, "credential", &r->credential, r);
    case AUDIT_EVENT_ASK:
      return parse_what_host (c, obj, "answer", &r->answer, r);
    case AUDIT_EVENT_AUDIT:
      return json_member_int (c, obj, NULL, "lost", JSON_OPTIONAL, JSON_U64,
                              &r->lost, NULL);
    case AUDIT_EVENT_SIDECAR:
    case AUDIT_EVENT_OTHER:
      break;
    }
  return 0;
}

static int
parse_record (const struct json_ctx *c, const struct json_node *obj,
              struct audit_record *r)
{
  cleanup_free char *event = NULL, *time = NULL;

  if (json_expect (c, obj, NULL, JSON_OBJECT) < 0
      || json_member_string (c, obj, NULL, "event", JSON_REQUIRED, &event) < 0
      || json_member_string (c, obj, NULL, "time", JSON_REQUIRED, &time) < 0)
    return -1;
  if (timestamp_parse (time, false, &r->time_us) < 0)
    return json_fail (c, JSON_PATH_KEY (NULL, "time"),
                      "not an RFC 3339 time");
  for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
    if (strcmp (event, events[i].name) == 0)
      r->event = events[i].event;
  return parse_event (c, obj, r);
}

int
audit_record_parse (const char *line, size_t len, struct audit_record *out,
                    agentrt_error_t *err)
{
  cleanup_json_doc struct json_doc *doc = NULL;
  struct json_ctx c = { "audit", err };

  memset (out, 0, sizeof *out);
  doc = json_doc_parse (line, len, "audit", err);
  if (doc == NULL)
    return -1;
  if (parse_record (&c, json_doc_root (doc), out) < 0)
    {
      audit_record_release (out);
      return -1;
    }
  return 0;
}

void
audit_record_release (struct audit_record *r)
{
  free (r->rootfs);
  str_list_free (&r->env_keep);
  for (size_t i = 0; i < r->nchanges; i++)
    {
      free (r->changes[i].kind);
      free (r->changes[i].why);
    }
  free (r->changes);
  free (r->kind);
  free (r->host);
  free (r->reason);
  free (r->credential);
  free (r->answer);
  memset (r, 0, sizeof *r);
}
