/* The `linux` section of config.json, except `resources` and `seccomp`
 * (their own files): namespaces, id mappings, devices, sysctl, propagation,
 * masked/readonly paths, personality, time offsets, network devices, Intel
 * RDT and the memory policy. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "config_parse.h"

/* `data` is the bitmask of namespace types seen so far. */
static int
parse_namespace (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, void *item, void *data)
{
  struct oci_namespace *ns = item;
  unsigned *seen = data;
  char q[JSON_QUOTE_SIZE];
  char *name = NULL;
  int type;

  if (json_member_string (c, obj, p, "type", JSON_REQUIRED, &name) < 0)
    return -1;
  type = oci_namespace_type_from_name (name);
  if (type < 0 || *seen & (1u << type))
    {
      json_fail (c, JSON_PATH_KEY (p, "type"), "%s %s",
                 type < 0 ? "unknown namespace type" : "duplicate namespace",
                 json_quote (name, q));
      free (name);
      return -1;
    }
  free (name);
  *seen |= 1u << type;
  ns->type = (enum oci_namespace_type) type;
  return member_abs_path (c, obj, p, "path", JSON_OPTIONAL, &ns->path);
}

static int
parse_device (const struct json_ctx *c, const struct json_node *obj,
              const struct json_path *p, void *item, void *data)
{
  static const char *const types[] = { "c", "b", "u", "p", NULL };
  struct oci_device *d = item;
  enum json_presence numbers;
  char *type = NULL;

  if (member_abs_path (c, obj, p, "path", JSON_REQUIRED, &d->path) < 0
      || member_name_in (c, obj, p, "type", JSON_REQUIRED, types, "device type",
                         &type) < 0)
    {
      free (type);
      return -1;
    }
  d->type = type[0];
  free (type);
  numbers = d->type == 'p' ? JSON_OPTIONAL : JSON_REQUIRED;
  if (json_member_int (c, obj, p, "major", numbers, JSON_I64, &d->major, NULL) < 0
      || json_member_int (c, obj, p, "minor", numbers, JSON_I64, &d->minor, NULL) < 0
      || json_member_int (c, obj, p, "fileMode", JSON_OPTIONAL, JSON_U32,
                          &d->file_mode, &d->has_file_mode) < 0
      || json_member_int (c, obj, p, "uid", JSON_OPTIONAL, JSON_U32, &d->uid,
                          &d->has_uid) < 0
      || json_member_int (c, obj, p, "gid", JSON_OPTIONAL, JSON_U32, &d->gid,
                          &d->has_gid) < 0)
    return -1;
  return 0;
}

static int
member_abs_path_list (const struct json_ctx *c, const struct json_node *obj,
                      const struct json_path *p, const char *key,
                      struct str_list *out)
{
  if (member_str_list (c, obj, p, key, out) < 0)
    return -1;
  for (size_t i = 0; i < out->len; i++)
    if (out->items[i][0] != '/')
      return json_fail (c, JSON_PATH_INDEX (JSON_PATH_KEY (p, key), i),
                        "must be an absolute path");
  return 0;
}

static int
parse_time_offsets (const struct json_ctx *c, const struct json_node *obj,
                    const struct json_path *p, struct oci_linux *l)
{
  for (uint32_t i = 0; i < obj->len; i++)
    {
      const struct json_node *m = &obj->u.items[i];
      const struct json_path *mp = JSON_PATH_KEY (p, m->key);
      struct oci_time_offset *t;
      char q[JSON_QUOTE_SIZE];

      if (strcmp (m->key, "boottime") == 0)
        t = &l->time_offset_boottime;
      else if (strcmp (m->key, "monotonic") == 0)
        t = &l->time_offset_monotonic;
      else
        return json_fail (c, mp, "unknown clock %s", json_quote (m->key, q));
      if (m->type == JSON_NULL)
        continue;
      t->present = true;
      if (json_expect (c, m, mp, JSON_OBJECT) < 0
          || json_member_int (c, m, mp, "secs", JSON_OPTIONAL, JSON_I64, &t->secs, NULL) < 0
          || json_member_int (c, m, mp, "nanosecs", JSON_OPTIONAL, JSON_U32,
                              &t->nanosecs, NULL) < 0)
        return -1;
      if (t->nanosecs > 999999999)
        return json_fail (c, JSON_PATH_KEY (mp, "nanosecs"),
                          "out of range (0..999999999)");
    }
  return 0;
}

/* A network interface name the kernel accepts (dev_valid_name). */
static bool
valid_ifname (const char *s)
{
  if (s[0] == '\0' || strlen (s) > 15 || strcmp (s, ".") == 0 || strcmp (s, "..") == 0)
    return false;
  return strpbrk (s, "/: \t\n\r\v\f") == NULL;
}

static int
parse_net_devices (const struct json_ctx *c, const struct json_node *obj,
                   const struct json_path *p, struct oci_linux *l)
{
  char q[JSON_QUOTE_SIZE];

  l->net_devices = xzalloc (obj->len * sizeof (*l->net_devices));
  l->n_net_devices = obj->len;
  for (uint32_t i = 0; i < obj->len; i++)
    {
      const struct json_node *m = &obj->u.items[i];
      const struct json_path *mp = JSON_PATH_KEY (p, m->key);
      struct oci_net_device *d = &l->net_devices[i];

      d->host_name = xstrdup (m->key);
      if (!valid_ifname (m->key))
        return json_fail (c, mp, "invalid network device name %s",
                          json_quote (m->key, q));
      if (m->type == JSON_NULL)
        continue;
      if (json_expect (c, m, mp, JSON_OBJECT) < 0
          || json_member_string (c, m, mp, "name", JSON_OPTIONAL, &d->name) < 0)
        return -1;
      if (d->name && !valid_ifname (d->name))
        return json_fail (c, JSON_PATH_KEY (mp, "name"),
                          "invalid network device name %s", json_quote (d->name, q));
    }
  return 0;
}

static int
no_newline (const struct json_ctx *c, const struct json_path *p, const char *s)
{
  if (s && strchr (s, '\n'))
    return json_fail (c, p, "must not contain a newline");
  return 0;
}

static int
parse_intel_rdt (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, struct oci_intel_rdt **out)
{
  struct oci_intel_rdt *r = *out = xzalloc (sizeof (*r));
  const char *clos;

  if (json_member_string (c, obj, p, "closID", JSON_OPTIONAL, &r->clos_id) < 0
      || json_member_string (c, obj, p, "l3CacheSchema", JSON_OPTIONAL,
                             &r->l3_cache_schema) < 0
      || json_member_string (c, obj, p, "memBwSchema", JSON_OPTIONAL,
                             &r->mem_bw_schema) < 0
      || member_str_list (c, obj, p, "schemata", &r->schemata) < 0
      || json_member_bool (c, obj, p, "enableCMT", JSON_OPTIONAL, &r->enable_cmt, NULL) < 0
      || json_member_bool (c, obj, p, "enableMBM", JSON_OPTIONAL, &r->enable_mbm, NULL) < 0
      || json_member_bool (c, obj, p, "enableMonitoring", JSON_OPTIONAL,
                           &r->enable_monitoring, NULL) < 0)
    return -1;
  /* closID names a directory under the resctrl mount: no traversal. */
  clos = r->clos_id;
  if (clos && strcmp (clos, "/") != 0
      && (clos[0] == '\0' || strcmp (clos, ".") == 0 || strcmp (clos, "..") == 0
          || strpbrk (clos, "/\n")))
    return json_fail (c, JSON_PATH_KEY (p, "closID"),
                      "must be \"/\" or a plain directory name");
  if (no_newline (c, JSON_PATH_KEY (p, "l3CacheSchema"), r->l3_cache_schema) < 0
      || no_newline (c, JSON_PATH_KEY (p, "memBwSchema"), r->mem_bw_schema) < 0)
    return -1;
  if (r->mem_bw_schema && strncmp (r->mem_bw_schema, "MB:", 3) != 0)
    return json_fail (c, JSON_PATH_KEY (p, "memBwSchema"), "must start with \"MB:\"");
  for (size_t i = 0; i < r->schemata.len; i++)
    if (no_newline (c, JSON_PATH_INDEX (JSON_PATH_KEY (p, "schemata"), i),
                    r->schemata.items[i]) < 0)
      return -1;
  return 0;
}

static int
parse_memory_policy (const struct json_ctx *c, const struct json_node *obj,
                     const struct json_path *p, struct oci_memory_policy **out)
{
  struct oci_memory_policy *m = *out = xzalloc (sizeof (*m));

  if (member_name_in (c, obj, p, "mode", JSON_REQUIRED,
                      oci_mempolicy_mode_names, "memory policy mode",
                      &m->mode) < 0
      || json_member_string (c, obj, p, "nodes", JSON_OPTIONAL, &m->nodes) < 0
      || member_names_in (c, obj, p, "flags", oci_mempolicy_flag_names,
                          "memory policy flag", &m->flags) < 0)
    return -1;
  return 0;
}

static int
parse_personality (const struct json_ctx *c, const struct json_node *obj,
                   const struct json_path *p, struct oci_personality **out)
{
  static const char *const domains[] = { "LINUX", "LINUX32", NULL };
  struct oci_personality *pers = *out = xzalloc (sizeof (*pers));

  if (member_name_in (c, obj, p, "domain", JSON_REQUIRED, domains,
                      "personality domain", &pers->domain) < 0
      || member_str_list (c, obj, p, "flags", &pers->flags) < 0)
    return -1;
  return 0;
}

/* The object members of `linux` that have parsers of their own. */
static int
parse_linux_objects (const struct json_ctx *c, const struct json_node *obj,
                     const struct json_path *p, struct oci_linux *l)
{
#define SUB(key, call) MEMBER_OBJECT_FAILS (c, obj, p, key, m, call)
  const struct json_node *m;

  if (SUB ("resources", parse_resources (c, m, JSON_PATH_KEY (p, "resources"),
                                         &l->resources))
      || SUB ("seccomp", parse_seccomp (c, m, JSON_PATH_KEY (p, "seccomp"),
                                        &l->seccomp))
      || SUB ("personality", parse_personality (c, m, JSON_PATH_KEY (p, "personality"),
                                                &l->personality))
      || SUB ("timeOffsets", parse_time_offsets (c, m, JSON_PATH_KEY (p, "timeOffsets"), l))
      || SUB ("netDevices", parse_net_devices (c, m, JSON_PATH_KEY (p, "netDevices"), l))
      || SUB ("intelRdt", parse_intel_rdt (c, m, JSON_PATH_KEY (p, "intelRdt"),
                                           &l->intel_rdt))
      || SUB ("memoryPolicy", parse_memory_policy (c, m, JSON_PATH_KEY (p, "memoryPolicy"),
                                                   &l->memory_policy)))
    return -1;
  return 0;
#undef SUB
}

int
parse_linux (const struct json_ctx *c, const struct json_node *obj,
             const struct json_path *p, struct oci_linux **out)
{
  /* "" is how Go writes an unset propagation. */
  static const char *const propagations[]
      = { "shared",  "slave",  "private",  "unbindable",  "rshared",
          "rslave", "rprivate", "runbindable", "", NULL };
  struct oci_linux *l = *out = xzalloc (sizeof (*l));
  unsigned ns_seen = 0;

  if (member_object_array (c, obj, p, "namespaces", sizeof (struct oci_namespace),
                           (void **) &l->namespaces, &l->n_namespaces,
                           parse_namespace, &ns_seen) < 0
      || member_id_mappings (c, obj, p, "uidMappings", &l->uid_mappings,
                             &l->n_uid_mappings) < 0
      || member_id_mappings (c, obj, p, "gidMappings", &l->gid_mappings,
                             &l->n_gid_mappings) < 0
      || member_object_array (c, obj, p, "devices", sizeof (struct oci_device),
                              (void **) &l->devices, &l->n_devices, parse_device,
                              NULL) < 0
      || json_member_string (c, obj, p, "cgroupsPath", JSON_OPTIONAL,
                             &l->cgroups_path) < 0
      || member_kv_list (c, obj, p, "sysctl", &l->sysctl) < 0
      || member_abs_path_list (c, obj, p, "maskedPaths", &l->masked_paths) < 0
      || member_abs_path_list (c, obj, p, "readonlyPaths", &l->readonly_paths) < 0
      || json_member_string (c, obj, p, "mountLabel", JSON_OPTIONAL,
                             &l->mount_label) < 0
      || member_name_in (c, obj, p, "rootfsPropagation", JSON_OPTIONAL,
                         propagations, "rootfs propagation",
                         &l->rootfs_propagation) < 0
      || parse_linux_objects (c, obj, p, l) < 0)
    return -1;
  if (l->rootfs_propagation && l->rootfs_propagation[0] == '\0')
    {
      free (l->rootfs_propagation);
      l->rootfs_propagation = NULL;
    }
  return 0;
}
