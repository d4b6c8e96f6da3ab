/* credentials.inject and credentials.trustStore of the policy file: the
 * credentials the sidecar adds for the agent (runtime/policy/credentials.h)
 * read and written back (see policy_file.h and docs/policy.md). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "policy_file.h"

static int
read_hosts (const struct json_ctx *c, const struct json_node *o, const struct json_path *p,
            struct str_list *out)
{
  const struct json_node *arr;
  const struct json_path *ap = JSON_PATH_KEY (p, "hosts");

  if (json_member_of_type (c, o, p, "hosts", JSON_REQUIRED, JSON_ARRAY, &arr) < 0)
    return -1;
  for (uint32_t i = 0; i < arr->len; i++)
    {
      cleanup_free char *s = NULL;
      if (json_read_string (c, &arr->u.items[i], JSON_PATH_INDEX (ap, i), &s) < 0)
        return -1;
      str_list_append (out, s);
    }
  return 0;
}

static int
read_one (const struct json_ctx *c, const struct json_node *o, const struct json_path *p,
          struct credential_decl *d)
{
  static const char *const known[] = { "name", "source", "hosts", "header", "env", NULL };

  if (json_expect (c, o, p, JSON_OBJECT) < 0)
    return -1;
  for (uint32_t i = 0; i < o->len; i++)
    {
      size_t k = 0;
      while (known[k] && strcmp (known[k], o->u.items[i].key) != 0)
        k++;
      if (known[k] == NULL)
        return json_fail (c, JSON_PATH_KEY (p, o->u.items[i].key), "unknown field");
    }
  if (json_member_string (c, o, p, "name", JSON_REQUIRED, &d->name) < 0
      || json_member_string (c, o, p, "source", JSON_REQUIRED, &d->source) < 0
      || json_member_string (c, o, p, "header", JSON_OPTIONAL, &d->header) < 0
      || json_member_string (c, o, p, "env", JSON_OPTIONAL, &d->env) < 0
      || read_hosts (c, o, p, &d->hosts) < 0)
    return -1;
  return 0;
}

int
policy_file_parse_credentials (const struct json_ctx *c, const struct json_node *o,
                               struct agent_policy *pol)
{
  const struct json_path *p = JSON_PATH_KEY (NULL, "credentials");
  const struct json_path *ip = JSON_PATH_KEY (p, "inject");
  const struct json_node *arr;
  char *trust = NULL;

  if (json_member_string (c, o, p, "trustStore", JSON_OPTIONAL, &trust) < 0)
    return -1;
  if (trust)
    {
      free (pol->trust_store);
      pol->trust_store = trust;
      if (trust[0] != '/')
        return json_fail (c, JSON_PATH_KEY (p, "trustStore"), "expected an absolute path");
    }
  if (json_member_of_type (c, o, p, "inject", JSON_OPTIONAL, JSON_ARRAY, &arr) < 0)
    return -1;
  if (arr == NULL)
    return 0;
  if (arr->len > CREDENTIALS_MAX)
    return json_fail (c, ip, "at most %d credentials", CREDENTIALS_MAX);
  for (size_t i = 0; i < pol->n_inject; i++)
    credential_decl_release (&pol->inject[i]);
  free (pol->inject);
  pol->inject = xreallocarray (NULL, arr->len ? arr->len : 1, sizeof (*pol->inject));
  memset (pol->inject, 0, (arr->len ? arr->len : 1) * sizeof (*pol->inject));
  pol->n_inject = 0;
  for (uint32_t i = 0; i < arr->len; i++)
    {
      pol->n_inject++;
      if (read_one (c, &arr->u.items[i], JSON_PATH_INDEX (ip, i), &pol->inject[i]) < 0)
        return -1;
    }
  if (credentials_check_list (pol->inject, pol->n_inject, c->err) < 0)
    return agentrt_error_wrap (c->err, "%s: credentials", c->origin);
  return 0;
}

void
policy_file_write_credentials (const struct agent_policy *p, struct json_writer *w)
{
  json_kv_string (w, "trustStore", p->trust_store);
  json_key (w, "inject");
  json_begin_array (w);
  for (size_t i = 0; i < p->n_inject; i++)
    {
      const struct credential_decl *d = &p->inject[i];
      json_begin_object (w);
      json_kv_string (w, "name", d->name);
      json_kv_string (w, "source", d->source);
      json_key (w, "hosts");
      json_begin_array (w);
      for (size_t k = 0; k < d->hosts.len; k++)
        json_string (w, d->hosts.items[k]);
      json_end_array (w);
      if (d->header)
        json_kv_string (w, "header", d->header);
      if (d->env)
        json_kv_string (w, "env", d->env);
      json_end_object (w);
    }
  json_end_array (w);
}
