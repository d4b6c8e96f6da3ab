/* Serialising the `linux` section of config.json, seccomp included
 * (resources are in config_write_resources.c). */
#include <config.h>

#include <string.h>

#include "config_write.h"

static void
write_namespaces (struct config_writer *cw, const struct oci_linux *l)
{
  if (l->n_namespaces == 0)
    return;
  json_key (cw->w, "namespaces");
  json_begin_array (cw->w);
  for (size_t i = 0; i < l->n_namespaces; i++)
    {
      const char *type = oci_namespace_type_name (l->namespaces[i].type);
      json_begin_object (cw->w);
      if (type == NULL)
        write_missing (cw, "linux.namespaces.type");
      json_kv_string (cw->w, "type", type ? type : "");
      write_string (cw, "path", l->namespaces[i].path);
      json_end_object (cw->w);
    }
  json_end_array (cw->w);
}

static void
write_devices (struct config_writer *cw, const struct oci_linux *l)
{
  struct json_writer *w = cw->w;

  if (l->n_devices == 0)
    return;
  json_key (w, "devices");
  json_begin_array (w);
  for (size_t i = 0; i < l->n_devices; i++)
    {
      const struct oci_device *d = &l->devices[i];
      char type[2] = { d->type, '\0' };
      json_begin_object (w);
      write_required_string (cw, "path", d->path);
      if (type[0] == '\0' || !strchr ("cbup", type[0]))
        write_missing (cw, "linux.devices.type");
      json_kv_string (w, "type", type);
      json_kv_int (w, "major", d->major);
      json_kv_int (w, "minor", d->minor);
      if (d->has_file_mode)
        json_kv_uint (w, "fileMode", d->file_mode);
      if (d->has_uid)
        json_kv_uint (w, "uid", d->uid);
      if (d->has_gid)
        json_kv_uint (w, "gid", d->gid);
      json_end_object (w);
    }
  json_end_array (w);
}

static void
write_net_devices (struct config_writer *cw, const struct oci_linux *l)
{
  if (l->n_net_devices == 0)
    return;
  json_key (cw->w, "netDevices");
  json_begin_object (cw->w);
  for (size_t i = 0; i < l->n_net_devices; i++)
    {
      json_key (cw->w, l->net_devices[i].host_name);
      json_begin_object (cw->w);
      write_string (cw, "name", l->net_devices[i].name);
      json_end_object (cw->w);
    }
  json_end_object (cw->w);
}

static void
write_syscall (struct config_writer *cw, const struct oci_seccomp_rule *r)
{
  struct json_writer *w = cw->w;
  const char *action = oci_seccomp_action_name (r->action);

  json_begin_object (w);
  if (r->names.len == 0)
    write_missing (cw, "linux.seccomp.syscalls.names");
  write_str_list (cw, "names", &r->names);
  write_required_string (cw, "action", action);
  if (r->has_errno_ret)
    json_kv_uint (w, "errnoRet", r->errno_ret);
  if (r->n_args)
    {
      json_key (w, "args");
      json_begin_array (w);
      for (size_t i = 0; i < r->n_args; i++)
        {
          json_begin_object (w);
          json_kv_uint (w, "index", r->args[i].index);
          json_kv_uint (w, "value", r->args[i].value);
          if (r->args[i].value_two)
            json_kv_uint (w, "valueTwo", r->args[i].value_two);
          write_required_string (cw, "op", oci_seccomp_op_name (r->args[i].op));
          json_end_object (w);
        }
      json_end_array (w);
    }
  json_end_object (w);
}

void
write_seccomp (struct config_writer *cw, const struct oci_seccomp *s)
{
  struct json_writer *w = cw->w;

  json_begin_object (w);
  write_required_string (cw, "defaultAction",
                         oci_seccomp_action_name (s->default_action));
  if (s->has_default_errno_ret)
    json_kv_uint (w, "defaultErrnoRet", s->default_errno_ret);
  write_str_list (cw, "architectures", &s->architectures);
  write_str_list (cw, "flags", &s->flags);
  write_string (cw, "listenerPath", s->listener_path);
  write_string (cw, "listenerMetadata", s->listener_metadata);
  if (s->n_syscalls)
    {
      json_key (w, "syscalls");
      json_begin_array (w);
      for (size_t i = 0; i < s->n_syscalls; i++)
        write_syscall (cw, &s->syscalls[i]);
      json_end_array (w);
    }
  json_end_object (w);
}

static void
write_intel_rdt (struct config_writer *cw, const struct oci_intel_rdt *r)
{
  json_key (cw->w, "intelRdt");
  json_begin_object (cw->w);
  write_string (cw, "closID", r->clos_id);
  write_str_list (cw, "schemata", &r->schemata);
  write_string (cw, "l3CacheSchema", r->l3_cache_schema);
  write_string (cw, "memBwSchema", r->mem_bw_schema);
  if (r->enable_cmt)
    json_kv_bool (cw->w, "enableCMT", true);
  if (r->enable_mbm)
    json_kv_bool (cw->w, "enableMBM", true);
  if (r->enable_monitoring)
    json_kv_bool (cw->w, "enableMonitoring", true);
  json_end_object (cw->w);
}

static void
write_time_offsets (struct config_writer *cw, const struct oci_linux *l)
{
  const struct
  {
    const char *clock;
    const struct oci_time_offset *t;
  } clocks[] = { { "boottime", &l->time_offset_boottime },
                 { "monotonic", &l->time_offset_monotonic } };

  if (!l->time_offset_boottime.present && !l->time_offset_monotonic.present)
    return;
  json_key (cw->w, "timeOffsets");
  json_begin_object (cw->w);
  for (size_t i = 0; i < 2; i++)
    {
      if (!clocks[i].t->present)
        continue;
      json_key (cw->w, clocks[i].clock);
      json_begin_object (cw->w);
      if (clocks[i].t->secs)
        json_kv_int (cw->w, "secs", clocks[i].t->secs);
      if (clocks[i].t->nanosecs)
        json_kv_uint (cw->w, "nanosecs", clocks[i].t->nanosecs);
      json_end_object (cw->w);
    }
  json_end_object (cw->w);
}

/* The members after seccomp, in the spec's order. */
static void
write_linux_tail (struct config_writer *cw, const struct oci_linux *l)
{
  struct json_writer *w = cw->w;

  write_string (cw, "rootfsPropagation", l->rootfs_propagation);
  write_str_list (cw, "maskedPaths", &l->masked_paths);
  write_str_list (cw, "readonlyPaths", &l->readonly_paths);
  write_string (cw, "mountLabel", l->mount_label);
  if (l->intel_rdt)
    write_intel_rdt (cw, l->intel_rdt);
  if (l->memory_policy)
    {
      json_key (w, "memoryPolicy");
      json_begin_object (w);
      write_required_string (cw, "mode", l->memory_policy->mode);
      write_string (cw, "nodes", l->memory_policy->nodes);
      write_str_list (cw, "flags", &l->memory_policy->flags);
      json_end_object (w);
    }
  if (l->personality)
    {
      json_key (w, "personality");
      json_begin_object (w);
      write_required_string (cw, "domain", l->personality->domain);
      write_str_list (cw, "flags", &l->personality->flags);
      json_end_object (w);
    }
  write_time_offsets (cw, l);
}

void
write_linux (struct config_writer *cw, const struct oci_linux *l)
{
  json_key (cw->w, "linux");
  json_begin_object (cw->w);
  write_id_mappings (cw, "uidMappings", l->uid_mappings, l->n_uid_mappings);
  write_id_mappings (cw, "gidMappings", l->gid_mappings, l->n_gid_mappings);
  write_kv_list (cw, "sysctl", &l->sysctl);
  if (l->resources)
    {
      json_key (cw->w, "resources");
      write_resources (cw, l->resources);
    }
  write_string (cw, "cgroupsPath", l->cgroups_path);
  write_namespaces (cw, l);
  write_devices (cw, l);
  write_net_devices (cw, l);
  if (l->seccomp)
    {
      json_key (cw->w, "seccomp");
      write_seccomp (cw, l->seccomp);
    }
  write_linux_tail (cw, l);
  json_end_object (cw->w);
}
