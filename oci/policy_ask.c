/* egress.ask of the policy file and egressAsk of the stored directives:
 * null (never ask) or {"socket", "timeout", "maxPending"}, each checked
 * against runtime/policy/egress_ask.h's bounds. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "policy_file.h"

static int
checked (const struct json_ctx *c, const struct json_path *p, const char *key,
         const char *problem)
{
  return problem ? json_fail (c, JSON_PATH_KEY (p, key), "%s", problem) : 0;
}

/* "30", 30 or "5m". */
static int
read_timeout (const struct json_ctx *c, const struct json_node *o,
              const struct json_path *p, uint64_t *out)
{
  const struct json_node *m = json_member (o, "timeout");
  const struct json_path *mp = JSON_PATH_KEY (p, "timeout");

  if (m == NULL)
    return 0;
  if (m->type == JSON_STRING)
    {
      cleanup_free char *s = xstrndup (m->u.text, m->len);
      if (policy_parse_duration (s, out) < 0)
        return json_fail (c, mp, "expected a duration such as 30 or 2m");
    }
  else if (json_read_int (c, m, mp, JSON_U64, out) < 0)
    return -1;
  return checked (c, p, "timeout", egress_ask_check_timeout (*out));
}

/* Whether obj has the member key at all (json_member says NULL for null). */
static bool
present (const struct json_node *obj, const char *key)
{
  for (uint32_t i = 0; i < obj->len; i++)
    if (strcmp (obj->u.items[i].key, key) == 0)
      return true;
  return false;
}

int
policy_ask_parse (const struct json_ctx *c, const struct json_node *obj,
                  const struct json_path *up, const char *key,
                  struct egress_ask_policy *ask)
{
  static const char *const known[] = { "socket", "timeout", "maxPending", NULL };
  const struct json_path *p = JSON_PATH_KEY (up, key);
  const struct json_node *o;
  struct egress_ask_policy a;
  uint64_t pending;
  bool has_pending = false;

  egress_ask_defaults (&a);
  if (json_member_of_type (c, obj, up, key, JSON_OPTIONAL, JSON_OBJECT, &o) < 0)
    return -1;
  if (o == NULL && !present (obj, key))
    return 0; /* absent: as it was (a policy read over another keeps it) */
  if (o == NULL)
    {
      egress_ask_release (ask);
      egress_ask_defaults (ask);
      return 0;
    }
  if (policy_file_check_members (c, o, p, known) < 0)
    return -1;
  if (json_member_string (c, o, p, "socket", JSON_REQUIRED, &a.socket) < 0)
    return -1;
  if (checked (c, p, "socket", egress_ask_check_socket (a.socket)) < 0
      || read_timeout (c, o, p, &a.timeout) < 0
      || json_member_int (c, o, p, "maxPending", JSON_OPTIONAL, JSON_U64, &pending,
                          &has_pending) < 0
      || (has_pending && checked (c, p, "maxPending", egress_ask_check_pending (pending)) < 0))
    {
      egress_ask_release (&a);
      return -1;
    }
  if (has_pending)
    a.max_pending = (uint32_t) pending;
  egress_ask_release (ask);
  *ask = a;
  return 0;
}
