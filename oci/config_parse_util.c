/* Helpers shared by the config.json section parsers (config_parse.h):
 * string lists, string maps, absolute paths, enumerated names, arrays of
 * objects and id mappings. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "config_parse.h"

struct json_doc *
parse_document (const char *json, size_t len, const char *origin,
                agentrt_error_t *err)
{
  const struct json_ctx c = { origin, err };
  struct json_doc *doc = json_doc_parse (json, len, origin, err);

  if (doc && json_expect (&c, json_doc_root (doc), NULL, JSON_OBJECT) < 0)
    {
      json_doc_free (doc);
      return NULL;
    }
  return doc;
}

int
parse_str_list (const struct json_ctx *c, const struct json_node *node,
                const struct json_path *p, struct str_list *out)
{
  if (json_expect (c, node, p, JSON_ARRAY) < 0)
    return -1;
  out->items = xzalloc ((node->len + 1) * sizeof (char *));
  out->len = node->len;
  for (uint32_t i = 0; i < node->len; i++)
    if (json_read_string (c, &node->u.items[i], JSON_PATH_INDEX (p, i),
                          &out->items[i]) < 0)
      return -1;
  return 0;
}

int
member_str_list (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, const char *key,
                 struct str_list *out)
{
  const struct json_node *m = json_member (obj, key);
  return m ? parse_str_list (c, m, JSON_PATH_KEY (p, key), out) : 0;
}

int
member_kv_list (const struct json_ctx *c, const struct json_node *obj,
                const struct json_path *p, const char *key,
                struct kv_list *out)
{
  const struct json_path *mp = JSON_PATH_KEY (p, key);
  const struct json_node *m;

  if (json_member_of_type (c, obj, p, key, JSON_OPTIONAL, JSON_OBJECT, &m) < 0)
    return -1;
  if (m == NULL)
    return 0;
  /* Member names are already unique (json_tree.h). */
  out->items = xzalloc (m->len * sizeof (*out->items));
  out->len = m->len;
  for (uint32_t i = 0; i < m->len; i++)
    {
      const struct json_node *v = &m->u.items[i];
      if (json_read_string (c, v, JSON_PATH_KEY (mp, v->key),
                            &out->items[i].value) < 0)
        return -1;
      out->items[i].key = xstrdup (v->key);
    }
  return 0;
}

int
member_abs_path (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, const char *key,
                 enum json_presence presence, char **out)
{
  if (json_member_string (c, obj, p, key, presence, out) < 0)
    return -1;
  if (*out && (*out)[0] != '/')
    return json_fail (c, JSON_PATH_KEY (p, key), "must be an absolute path");
  return 0;
}

static bool
name_in (const char *const *names, const char *s)
{
  for (; *names; names++)
    if (strcmp (*names, s) == 0)
      return true;
  return false;
}

int
member_name_in (const struct json_ctx *c, const struct json_node *obj,
                const struct json_path *p, const char *key,
                enum json_presence presence, const char *const *names,
                const char *what, char **out)
{
  char q[JSON_QUOTE_SIZE];

  if (json_member_string (c, obj, p, key, presence, out) < 0)
    return -1;
  if (*out && !name_in (names, *out))
    return json_fail (c, JSON_PATH_KEY (p, key), "unknown %s %s", what,
                      json_quote (*out, q));
  return 0;
}

int
member_names_in (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, const char *key,
                 const char *const *names, const char *what,
                 struct str_list *out)
{
  char q[JSON_QUOTE_SIZE];

  if (member_str_list (c, obj, p, key, out) < 0)
    return -1;
  for (size_t i = 0; i < out->len; i++)
    if (!name_in (names, out->items[i]))
      return json_fail (c, JSON_PATH_INDEX (JSON_PATH_KEY (p, key), i),
                        "unknown %s %s", what, json_quote (out->items[i], q));
  return 0;
}

int
member_object_array (const struct json_ctx *c, const struct json_node *obj,
                     const struct json_path *p, const char *key,
                     size_t item_size, void **items, size_t *n,
                     parse_item_fn fn, void *data)
{
  const struct json_path *mp = JSON_PATH_KEY (p, key);
  const struct json_node *m;

  if (json_member_of_type (c, obj, p, key, JSON_OPTIONAL, JSON_ARRAY, &m) < 0)
    return -1;
  if (m == NULL || m->len == 0)
    return 0;
  *items = xzalloc (m->len * item_size);
  *n = m->len;
  for (uint32_t i = 0; i < m->len; i++)
    {
      const struct json_path *ip = JSON_PATH_INDEX (mp, i);
      if (json_expect (c, &m->u.items[i], ip, JSON_OBJECT) < 0
          || fn (c, &m->u.items[i], ip, (char *) *items + i * item_size, data) < 0)
        return -1;
    }
  return 0;
}

static int
parse_id_mapping (const struct json_ctx *c, const struct json_node *obj,
                  const struct json_path *p, void *item, void *data)
{
  struct oci_id_mapping *m = item;
  if (json_member_int (c, obj, p, "containerID", JSON_REQUIRED, JSON_U32,
                       &m->container_id, NULL) < 0
      || json_member_int (c, obj, p, "hostID", JSON_REQUIRED, JSON_U32,
                          &m->host_id, NULL) < 0
      || json_member_int (c, obj, p, "size", JSON_REQUIRED, JSON_U32,
                          &m->size, NULL) < 0)
    return -1;
  return 0;
}

int
member_id_mappings (const struct json_ctx *c, const struct json_node *obj,
                    const struct json_path *p, const char *key,
                    struct oci_id_mapping **out, size_t *n)
{
  return member_object_array (c, obj, p, key, sizeof (**out), (void **) out,
                              n, parse_id_mapping, NULL);
}
