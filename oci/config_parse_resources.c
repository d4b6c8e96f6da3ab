/* `linux.resources` of config.json (also the document of `update
 * --resources`): device rules, memory, cpu, pids, block I/O, hugetlb,
 * network classes, rdma and cgroup v2 unified keys. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "config_parse.h"

#define INT(key, kind, field, has)                                            \
  json_member_int (c, obj, p, key, JSON_OPTIONAL, kind, field, has)

static int
parse_device_rule (const struct json_ctx *c, const struct json_node *obj,
                   const struct json_path *p, void *item, void *data)
{
  static const char *const types[] = { "a", "c", "b", NULL };
  struct oci_device_rule *r = item;
  char *type = NULL;

  if (json_member_bool (c, obj, p, "allow", JSON_REQUIRED, &r->allow, NULL) < 0
      || member_name_in (c, obj, p, "type", JSON_OPTIONAL, types, "device type",
                         &type) < 0)
    {
      free (type);
      return -1;
    }
  r->type = type ? type[0] : 'a';
  free (type);
  if (INT ("major", JSON_I64, &r->major, &r->has_major) < 0
      || INT ("minor", JSON_I64, &r->minor, &r->has_minor) < 0
      || json_member_string (c, obj, p, "access", JSON_OPTIONAL, &r->access) < 0)
    return -1;
  if (r->access && r->access[strspn (r->access, "rwm")] != '\0')
    return json_fail (c, JSON_PATH_KEY (p, "access"),
                      "must be a combination of \"r\", \"w\" and \"m\"");
  return 0;
}

static int
parse_memory (const struct json_ctx *c, const struct json_node *obj,
              const struct json_path *p, struct oci_memory **out)
{
  struct oci_memory *m = *out = xzalloc (sizeof (*m));

  if (INT ("limit", JSON_I64, &m->limit, &m->has_limit) < 0
      || INT ("reservation", JSON_I64, &m->reservation, &m->has_reservation) < 0
      || INT ("swap", JSON_I64, &m->swap, &m->has_swap) < 0
      || INT ("kernel", JSON_I64, &m->kernel, &m->has_kernel) < 0
      || INT ("kernelTCP", JSON_I64, &m->kernel_tcp, &m->has_kernel_tcp) < 0
      || INT ("swappiness", JSON_U64, &m->swappiness, &m->has_swappiness) < 0
      || json_member_bool (c, obj, p, "disableOOMKiller", JSON_OPTIONAL,
                           &m->disable_oom_killer, &m->has_disable_oom_killer) < 0
      || json_member_bool (c, obj, p, "useHierarchy", JSON_OPTIONAL,
                           &m->use_hierarchy, &m->has_use_hierarchy) < 0
      || json_member_bool (c, obj, p, "checkBeforeUpdate", JSON_OPTIONAL,
                           &m->check_before_update, &m->has_check_before_update) < 0)
    return -1;
  if (m->has_swappiness && m->swappiness > 100)
    return json_fail (c, JSON_PATH_KEY (p, "swappiness"), "out of range (0..100)");
  return 0;
}

static int
parse_cpu (const struct json_ctx *c, const struct json_node *obj,
           const struct json_path *p, struct oci_cpu **out)
{
  struct oci_cpu *cpu = *out = xzalloc (sizeof (*cpu));

  if (INT ("shares", JSON_U64, &cpu->shares, &cpu->has_shares) < 0
      || INT ("quota", JSON_I64, &cpu->quota, &cpu->has_quota) < 0
      || INT ("burst", JSON_U64, &cpu->burst, &cpu->has_burst) < 0
      || INT ("period", JSON_U64, &cpu->period, &cpu->has_period) < 0
      || INT ("realtimeRuntime", JSON_I64, &cpu->realtime_runtime,
              &cpu->has_realtime_runtime) < 0
      || INT ("realtimePeriod", JSON_U64, &cpu->realtime_period,
              &cpu->has_realtime_period) < 0
      || json_member_string (c, obj, p, "cpus", JSON_OPTIONAL, &cpu->cpus) < 0
      || json_member_string (c, obj, p, "mems", JSON_OPTIONAL, &cpu->mems) < 0
      || INT ("idle", JSON_I64, &cpu->idle, &cpu->has_idle) < 0)
    return -1;
  return 0;
}

static int
parse_pids (const struct json_ctx *c, const struct json_node *obj,
            const struct json_path *p, struct oci_pids **out)
{
  struct oci_pids *pids = *out = xzalloc (sizeof (*pids));
  return INT ("limit", JSON_I64, &pids->limit, &pids->has_limit);
}

static int
parse_weight_device (const struct json_ctx *c, const struct json_node *obj,
                     const struct json_path *p, void *item, void *data)
{
  struct oci_blkio_weight_device *d = item;

  if (json_member_int (c, obj, p, "major", JSON_REQUIRED, JSON_I64, &d->major, NULL) < 0
      || json_member_int (c, obj, p, "minor", JSON_REQUIRED, JSON_I64, &d->minor, NULL) < 0
      || INT ("weight", JSON_U16, &d->weight, &d->has_weight) < 0
      || INT ("leafWeight", JSON_U16, &d->leaf_weight, &d->has_leaf_weight) < 0)
    return -1;
  if (!d->has_weight && !d->has_leaf_weight)
    return json_fail (c, p, "needs weight or leafWeight");
  return 0;
}

static int
parse_throttle_device (const struct json_ctx *c, const struct json_node *obj,
                       const struct json_path *p, void *item, void *data)
{
  struct oci_blkio_throttle_device *d = item;

  if (json_member_int (c, obj, p, "major", JSON_REQUIRED, JSON_I64, &d->major, NULL) < 0
      || json_member_int (c, obj, p, "minor", JSON_REQUIRED, JSON_I64, &d->minor, NULL) < 0
      || json_member_int (c, obj, p, "rate", JSON_REQUIRED, JSON_U64, &d->rate, NULL) < 0)
    return -1;
  return 0;
}

static int
parse_blkio (const struct json_ctx *c, const struct json_node *obj,
             const struct json_path *p, struct oci_blkio **out)
{
  struct oci_blkio *b = *out = xzalloc (sizeof (*b));
  const struct
  {
    const char *key;
    struct oci_blkio_throttle_list *list;
  } throttles[] = {
    { "throttleReadBpsDevice", &b->throttle_read_bps },
    { "throttleWriteBpsDevice", &b->throttle_write_bps },
    { "throttleReadIOPSDevice", &b->throttle_read_iops },
    { "throttleWriteIOPSDevice", &b->throttle_write_iops },
  };

  if (INT ("weight", JSON_U16, &b->weight, &b->has_weight) < 0
      || INT ("leafWeight", JSON_U16, &b->leaf_weight, &b->has_leaf_weight) < 0
      || member_object_array (c, obj, p, "weightDevice",
                              sizeof (struct oci_blkio_weight_device),
                              (void **) &b->weight_devices, &b->n_weight_devices,
                              parse_weight_device, NULL) < 0)
    return -1;
  for (size_t i = 0; i < sizeof throttles / sizeof throttles[0]; i++)
    if (member_object_array (c, obj, p, throttles[i].key,
                             sizeof (struct oci_blkio_throttle_device),
                             (void **) &throttles[i].list->items,
                             &throttles[i].list->len, parse_throttle_device,
                             NULL) < 0)
      return -1;
  return 0;
}

static int
parse_hugepage_limit (const struct json_ctx *c, const struct json_node *obj,
                      const struct json_path *p, void *item, void *data)
{
  struct oci_hugepage_limit *h = item;

  if (json_member_string (c, obj, p, "pageSize", JSON_REQUIRED, &h->page_size) < 0
      || json_member_int (c, obj, p, "limit", JSON_REQUIRED, JSON_U64, &h->limit, NULL) < 0)
    return -1;
  return 0;
}

static int
parse_priority (const struct json_ctx *c, const struct json_node *obj,
                const struct json_path *p, void *item, void *data)
{
  struct oci_interface_priority *ip = item;

  if (json_member_string (c, obj, p, "name", JSON_REQUIRED, &ip->name) < 0
      || json_member_int (c, obj, p, "priority", JSON_REQUIRED, JSON_U32,
                          &ip->priority, NULL) < 0)
    return -1;
  return 0;
}

static int
parse_network (const struct json_ctx *c, const struct json_node *obj,
               const struct json_path *p, struct oci_network **out)
{
  struct oci_network *n = *out = xzalloc (sizeof (*n));

  if (INT ("classID", JSON_U32, &n->class_id, &n->has_class_id) < 0
      || member_object_array (c, obj, p, "priorities",
                              sizeof (struct oci_interface_priority),
                              (void **) &n->priorities, &n->n_priorities,
                              parse_priority, NULL) < 0)
    return -1;
  return 0;
}

static int
parse_rdma (const struct json_ctx *c, const struct json_node *map,
            const struct json_path *mp, struct oci_resources *r)
{
  r->rdma = xzalloc (map->len * sizeof (*r->rdma));
  r->n_rdma = map->len;
  for (uint32_t i = 0; i < map->len; i++)
    {
      const struct json_node *obj = &map->u.items[i];
      const struct json_path *p = JSON_PATH_KEY (mp, obj->key);
      struct oci_rdma *d = &r->rdma[i];

      d->device = xstrdup (obj->key);
      if (json_expect (c, obj, p, JSON_OBJECT) < 0
          || INT ("hcaHandles", JSON_U32, &d->hca_handles, &d->has_hca_handles) < 0
          || INT ("hcaObjects", JSON_U32, &d->hca_objects, &d->has_hca_objects) < 0)
        return -1;
      if (!d->has_hca_handles && !d->has_hca_objects)
        return json_fail (c, p, "needs hcaHandles or hcaObjects");
    }
  return 0;
}

int
parse_resources (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, struct oci_resources **out)
{
#define SUB(key, call) MEMBER_OBJECT_FAILS (c, obj, p, key, m, call)
  struct oci_resources *r = *out = xzalloc (sizeof (*r));
  const struct json_node *m;

  if (member_object_array (c, obj, p, "devices", sizeof (struct oci_device_rule),
                           (void **) &r->devices, &r->n_devices,
                           parse_device_rule, NULL) < 0
      || SUB ("memory", parse_memory (c, m, JSON_PATH_KEY (p, "memory"), &r->memory))
      || SUB ("cpu", parse_cpu (c, m, JSON_PATH_KEY (p, "cpu"), &r->cpu))
      || SUB ("blockIO", parse_blkio (c, m, JSON_PATH_KEY (p, "blockIO"), &r->blkio))
      || SUB ("network", parse_network (c, m, JSON_PATH_KEY (p, "network"), &r->network))
      || SUB ("rdma", parse_rdma (c, m, JSON_PATH_KEY (p, "rdma"), r))
      || member_object_array (c, obj, p, "hugepageLimits",
                              sizeof (struct oci_hugepage_limit),
                              (void **) &r->hugepage_limits, &r->n_hugepage_limits,
                              parse_hugepage_limit, NULL) < 0
      || SUB ("pids", parse_pids (c, m, JSON_PATH_KEY (p, "pids"), &r->pids))
      || member_kv_list (c, obj, p, "unified", &r->unified) < 0)
    return -1;
  return 0;
#undef SUB
}

struct oci_resources *
oci_resources_parse (const char *json, size_t len, const char *origin,
                     agentrt_error_t *err)
{
  const struct json_ctx c = { origin, err };
  cleanup_json_doc struct json_doc *doc = parse_document (json, len, origin, err);
  struct oci_resources *r = NULL;

  if (doc == NULL)
    return NULL;
  if (parse_resources (&c, json_doc_root (doc), NULL, &r) < 0)
    {
      oci_resources_free (r);
      return NULL;
    }
  return r;
}
