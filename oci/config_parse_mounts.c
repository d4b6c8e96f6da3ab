/* The `mounts` and `hooks` sections of config.json. */
#include <config.h>

#include <stdlib.h>

#include "config_parse.h"

static int
parse_mount (const struct json_ctx *c, const struct json_node *obj,
             const struct json_path *p, void *item, void *data)
{
  struct oci_mount *m = item;

  if (member_abs_path (c, obj, p, "destination", JSON_REQUIRED, &m->destination) < 0
      || json_member_string (c, obj, p, "type", JSON_OPTIONAL, &m->type) < 0
      || json_member_string (c, obj, p, "source", JSON_OPTIONAL, &m->source) < 0
      || member_str_list (c, obj, p, "options", &m->options) < 0
      || member_id_mappings (c, obj, p, "uidMappings", &m->uid_mappings,
                             &m->n_uid_mappings) < 0
      || member_id_mappings (c, obj, p, "gidMappings", &m->gid_mappings,
                             &m->n_gid_mappings) < 0)
    return -1;
  /* The spec requires both or neither. */
  if (m->n_uid_mappings && !m->n_gid_mappings)
    return json_fail (c, JSON_PATH_KEY (p, "gidMappings"),
                      "required when uidMappings is set");
  if (m->n_gid_mappings && !m->n_uid_mappings)
    return json_fail (c, JSON_PATH_KEY (p, "uidMappings"),
                      "required when gidMappings is set");
  return 0;
}

int
parse_mounts (const struct json_ctx *c, const struct json_node *root,
              struct oci_config *config)
{
  return member_object_array (c, root, NULL, "mounts", sizeof (struct oci_mount),
                              (void **) &config->mounts, &config->n_mounts,
                              parse_mount, NULL);
}

static int
parse_hook (const struct json_ctx *c, const struct json_node *obj,
            const struct json_path *p, void *item, void *data)
{
  struct oci_hook *h = item;

  if (member_abs_path (c, obj, p, "path", JSON_REQUIRED, &h->path) < 0
      || member_str_list (c, obj, p, "args", &h->args) < 0
      || member_str_list (c, obj, p, "env", &h->env) < 0
      || json_member_int (c, obj, p, "timeout", JSON_OPTIONAL, JSON_I32,
                          &h->timeout, &h->has_timeout) < 0)
    return -1;
  if (h->has_timeout && h->timeout <= 0)
    return json_fail (c, JSON_PATH_KEY (p, "timeout"),
                      "must be greater than zero");
  return 0;
}

int
parse_hooks (const struct json_ctx *c, const struct json_node *obj,
             const struct json_path *p, struct oci_hooks *out)
{
  /* In the order of oci_hook_names. */
  struct oci_hook_list *lists[] = {
    &out->prestart,        &out->create_runtime, &out->create_container,
    &out->start_container, &out->poststart,      &out->poststop,
  };

  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    if (member_object_array (c, obj, p, oci_hook_names[i], sizeof (struct oci_hook),
                             (void **) &lists[i]->items, &lists[i]->len,
                             parse_hook, NULL) < 0)
      return -1;
  return 0;
}
