/* Serialising `linux.resources` of config.json. */
#include <config.h>

#include <string.h>

#include "config_write.h"

#define OPT_INT(w, key, has, v)                                               \
  do                                                                          \
    if (has)                                                                  \
      json_kv_int (w, key, v);                                                \
  while (0)
#define OPT_UINT(w, key, has, v)                                              \
  do                                                                          \
    if (has)                                                                  \
      json_kv_uint (w, key, v);                                               \
  while (0)
#define OPT_BOOL(w, key, has, v)                                              \
  do                                                                          \
    if (has)                                                                  \
      json_kv_bool (w, key, v);                                               \
  while (0)

static void
write_device_rules (struct config_writer *cw, const struct oci_resources *r)
{
  struct json_writer *w = cw->w;

  if (r->n_devices == 0)
    return;
  json_key (w, "devices");
  json_begin_array (w);
  for (size_t i = 0; i < r->n_devices; i++)
    {
      const struct oci_device_rule *d = &r->devices[i];
      char type[2] = { d->type, '\0' };
      json_begin_object (w);
      json_kv_bool (w, "allow", d->allow);
      if (type[0] == '\0' || !strchr ("acb", type[0]))
        write_missing (cw, "linux.resources.devices.type");
      if (type[0] != 'a')
        json_kv_string (w, "type", type);
      OPT_INT (w, "major", d->has_major, d->major);
      OPT_INT (w, "minor", d->has_minor, d->minor);
      write_string (cw, "access", d->access);
      json_end_object (w);
    }
  json_end_array (w);
}

static void
write_memory (struct json_writer *w, const struct oci_memory *m)
{
  json_key (w, "memory");
  json_begin_object (w);
  OPT_INT (w, "limit", m->has_limit, m->limit);
  OPT_INT (w, "reservation", m->has_reservation, m->reservation);
  OPT_INT (w, "swap", m->has_swap, m->swap);
  OPT_INT (w, "kernel", m->has_kernel, m->kernel);
  OPT_INT (w, "kernelTCP", m->has_kernel_tcp, m->kernel_tcp);
  OPT_UINT (w, "swappiness", m->has_swappiness, m->swappiness);
  OPT_BOOL (w, "disableOOMKiller", m->has_disable_oom_killer, m->disable_oom_killer);
  OPT_BOOL (w, "useHierarchy", m->has_use_hierarchy, m->use_hierarchy);
  OPT_BOOL (w, "checkBeforeUpdate", m->has_check_before_update,
            m->check_before_update);
  json_end_object (w);
}

static void
write_cpu (struct config_writer *cw, const struct oci_cpu *c)
{
  struct json_writer *w = cw->w;

  json_key (w, "cpu");
  json_begin_object (w);
  OPT_UINT (w, "shares", c->has_shares, c->shares);
  OPT_INT (w, "quota", c->has_quota, c->quota);
  OPT_UINT (w, "burst", c->has_burst, c->burst);
  OPT_UINT (w, "period", c->has_period, c->period);
  OPT_INT (w, "realtimeRuntime", c->has_realtime_runtime, c->realtime_runtime);
  OPT_UINT (w, "realtimePeriod", c->has_realtime_period, c->realtime_period);
  write_string (cw, "cpus", c->cpus);
  write_string (cw, "mems", c->mems);
  OPT_INT (w, "idle", c->has_idle, c->idle);
  json_end_object (w);
}

static void
write_throttle (struct json_writer *w, const char *key,
                const struct oci_blkio_throttle_list *list)
{
  if (list->len == 0)
    return;
  json_key (w, key);
  json_begin_array (w);
  for (size_t i = 0; i < list->len; i++)
    {
      json_begin_object (w);
      json_kv_int (w, "major", list->items[i].major);
      json_kv_int (w, "minor", list->items[i].minor);
      json_kv_uint (w, "rate", list->items[i].rate);
      json_end_object (w);
    }
  json_end_array (w);
}

static void
write_blkio (struct json_writer *w, const struct oci_blkio *b)
{
  json_key (w, "blockIO");
  json_begin_object (w);
  OPT_UINT (w, "weight", b->has_weight, b->weight);
  OPT_UINT (w, "leafWeight", b->has_leaf_weight, b->leaf_weight);
  if (b->n_weight_devices)
    {
      json_key (w, "weightDevice");
      json_begin_array (w);
      for (size_t i = 0; i < b->n_weight_devices; i++)
        {
          const struct oci_blkio_weight_device *d = &b->weight_devices[i];
          json_begin_object (w);
          json_kv_int (w, "major", d->major);
          json_kv_int (w, "minor", d->minor);
          OPT_UINT (w, "weight", d->has_weight, d->weight);
          OPT_UINT (w, "leafWeight", d->has_leaf_weight, d->leaf_weight);
          json_end_object (w);
        }
      json_end_array (w);
    }
  write_throttle (w, "throttleReadBpsDevice", &b->throttle_read_bps);
  write_throttle (w, "throttleWriteBpsDevice", &b->throttle_write_bps);
  write_throttle (w, "throttleReadIOPSDevice", &b->throttle_read_iops);
  write_throttle (w, "throttleWriteIOPSDevice", &b->throttle_write_iops);
  json_end_object (w);
}

static void
write_hugepages (struct config_writer *cw, const struct oci_resources *r)
{
  if (r->n_hugepage_limits == 0)
    return;
  json_key (cw->w, "hugepageLimits");
  json_begin_array (cw->w);
  for (size_t i = 0; i < r->n_hugepage_limits; i++)
    {
      json_begin_object (cw->w);
      write_required_string (cw, "pageSize", r->hugepage_limits[i].page_size);
      json_kv_uint (cw->w, "limit", r->hugepage_limits[i].limit);
      json_end_object (cw->w);
    }
  json_end_array (cw->w);
}

static void
write_network (struct config_writer *cw, const struct oci_network *n)
{
  json_key (cw->w, "network");
  json_begin_object (cw->w);
  OPT_UINT (cw->w, "classID", n->has_class_id, n->class_id);
  if (n->n_priorities)
    {
      json_key (cw->w, "priorities");
      json_begin_array (cw->w);
      for (size_t i = 0; i < n->n_priorities; i++)
        {
          json_begin_object (cw->w);
          write_required_string (cw, "name", n->priorities[i].name);
          json_kv_uint (cw->w, "priority", n->priorities[i].priority);
          json_end_object (cw->w);
        }
      json_end_array (cw->w);
    }
  json_end_object (cw->w);
}

static void
write_rdma (struct json_writer *w, const struct oci_resources *r)
{
  if (r->n_rdma == 0)
    return;
  json_key (w, "rdma");
  json_begin_object (w);
  for (size_t i = 0; i < r->n_rdma; i++)
    {
      const struct oci_rdma *d = &r->rdma[i];
      json_key (w, d->device);
      json_begin_object (w);
      OPT_UINT (w, "hcaHandles", d->has_hca_handles, d->hca_handles);
      OPT_UINT (w, "hcaObjects", d->has_hca_objects, d->hca_objects);
      json_end_object (w);
    }
  json_end_object (w);
}

void
write_resources (struct config_writer *cw, const struct oci_resources *r)
{
  struct json_writer *w = cw->w;

  json_begin_object (w);
  write_device_rules (cw, r);
  if (r->memory)
    write_memory (w, r->memory);
  if (r->cpu)
    write_cpu (cw, r->cpu);
  if (r->pids)
    {
      json_key (w, "pids");
      json_begin_object (w);
      OPT_INT (w, "limit", r->pids->has_limit, r->pids->limit);
      json_end_object (w);
    }
  if (r->blkio)
    write_blkio (w, r->blkio);
  write_hugepages (cw, r);
  if (r->network)
    write_network (cw, r->network);
  write_rdma (w, r);
  write_kv_list (cw, "unified", &r->unified);
  json_end_object (w);
}
