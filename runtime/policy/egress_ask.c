/* The policy's egress.ask and its annotation (see egress_ask.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "egress_ask.h"

void
egress_ask_defaults (struct egress_ask_policy *ask)
{
  ask->socket = NULL;
  ask->timeout = EGRESS_ASK_DEFAULT_TIMEOUT;
  ask->max_pending = EGRESS_ASK_DEFAULT_PENDING;
}

void
egress_ask_release (struct egress_ask_policy *ask)
{
  free (ask->socket);
  ask->socket = NULL;
}

void
egress_ask_copy (struct egress_ask_policy *dst, const struct egress_ask_policy *src)
{
  *dst = *src;
  dst->socket = src->socket ? xstrdup (src->socket) : NULL;
}

void
egress_ask_write_json (const struct egress_ask_policy *ask, const char *key,
                       struct json_writer *w)
{
  json_key (w, key);
  if (ask->socket == NULL)
    {
      json_null (w);
      return;
    }
  json_begin_object (w);
  json_kv_string (w, "socket", ask->socket);
  json_kv_uint (w, "timeout", ask->timeout);
  json_kv_uint (w, "maxPending", ask->max_pending);
  json_end_object (w);
}

const char *
egress_ask_check_socket (const char *path)
{
  if (path[0] != '/')
    return "expected an absolute path";
  if (strlen (path) > EGRESS_ASK_SOCKET_MAX)
    return "longer than a unix socket address holds (107 bytes)";
  for (const char *p = path; *p; p++)
    if ((unsigned char) *p < 0x20 || *p == 0x7f)
      return "holds a control character";
  return NULL;
}

const char *
egress_ask_check_timeout (uint64_t seconds)
{
  if (seconds == 0 || seconds > EGRESS_ASK_MAX_TIMEOUT)
    return "expected 1 s to 10 min (a held connection waits that long)";
  return NULL;
}

const char *
egress_ask_check_pending (uint64_t n)
{
  if (n == 0 || n > EGRESS_ASK_MAX_PENDING)
    return "expected 1 to 256";
  return NULL;
}

int
egress_ask_annotation (const char *value, bool *off, agentrt_error_t *err)
{
  if (strcmp (value, "off") == 0)
    {
      *off = true;
      return 0;
    }
  if (strcmp (value, "on") == 0)
    return agentrt_error (err, 0, "annotation %s=on: asking is turned on only "
                          "by the policy (egress.ask); the annotation may only "
                          "turn it off", ANNOTATION_EGRESS_ASK);
  return agentrt_error (err, 0, "annotation %s: expected `off`",
                        ANNOTATION_EGRESS_ASK);
}

void
egress_ask_harden (const struct egress_ask_policy *policy, bool off, bool sidecar,
                   struct egress_ask_policy *d, struct change_list *changes)
{
  egress_ask_copy (d, policy);
  if (policy->socket == NULL)
    return;
  if (off || !sidecar)
    {
      egress_ask_release (d);
      change_add (changes, CHANGE_EGRESS, "destinations outside the allowlist "
                  "are denied without asking",
                  off ? "run.agentrt.egress.ask=off" : "no sidecar");
      return;
    }
  change_addf (changes, CHANGE_EGRESS, "egress.ask",
               "a destination outside the allowlist (but not in special-purpose "
               "address space) is held while the approver at %s is asked "
               "(deny after %llus, at most %u questions at once)",
               policy->socket, (unsigned long long) policy->timeout,
               (unsigned) policy->max_pending);
}
