/* The runtime-spec features document (features.h), in the field order of
 * the spec's Go structs. */
#include <config.h>

#include <string.h>

#include "config_parse.h"
#include "features.h"
#include "json_writer.h"

void
features_init (struct oci_features *f)
{
  memset (f, 0, sizeof (*f));
  f->hooks = oci_hook_names;
  f->namespaces = oci_namespace_names;
  f->seccomp.actions = oci_seccomp_action_names;
  f->seccomp.operators = oci_seccomp_op_names;
  f->seccomp.archs = oci_seccomp_arch_names;
  f->seccomp.known_flags = oci_seccomp_flag_names;
  f->mempolicy_modes = oci_mempolicy_mode_names;
  f->mempolicy_flags = oci_mempolicy_flag_names;
}

static void
write_list (struct json_writer *w, const char *key, const char *const *list)
{
  if (list == NULL)
    return;
  json_key (w, key);
  json_begin_array (w);
  for (; *list; list++)
    json_string (w, *list);
  json_end_array (w);
}

static void
write_enabled (struct json_writer *w, const char *key, bool enabled)
{
  json_key (w, key);
  json_begin_object (w);
  json_kv_bool (w, "enabled", enabled);
  json_end_object (w);
}

static void
write_linux (struct json_writer *w, const struct oci_features *f)
{
  json_key (w, "linux");
  json_begin_object (w);
  write_list (w, "namespaces", f->namespaces);
  write_list (w, "capabilities", f->capabilities);
  json_key (w, "cgroup");
  json_begin_object (w);
  json_kv_bool (w, "v1", f->cgroup_v1);
  json_kv_bool (w, "v2", f->cgroup_v2);
  json_kv_bool (w, "systemd", f->cgroup_systemd);
  json_kv_bool (w, "systemdUser", f->cgroup_systemd_user);
  json_kv_bool (w, "rdma", f->cgroup_rdma);
  json_end_object (w);
  json_key (w, "seccomp");
  json_begin_object (w);
  json_kv_bool (w, "enabled", f->seccomp.enabled);
  write_list (w, "actions", f->seccomp.actions);
  write_list (w, "operators", f->seccomp.operators);
  write_list (w, "archs", f->seccomp.archs);
  write_list (w, "knownFlags", f->seccomp.known_flags);
  write_list (w, "supportedFlags", f->seccomp.supported_flags);
  json_end_object (w);
  write_enabled (w, "apparmor", f->apparmor);
  write_enabled (w, "selinux", f->selinux);
  write_enabled (w, "intelRdt", f->intel_rdt);
  json_key (w, "mountExtensions");
  json_begin_object (w);
  write_enabled (w, "idmap", f->idmap_mounts);
  json_end_object (w);
  if (f->mempolicy_modes || f->mempolicy_flags)
    {
      json_key (w, "memoryPolicy");
      json_begin_object (w);
      write_list (w, "modes", f->mempolicy_modes);
      write_list (w, "flags", f->mempolicy_flags);
      json_end_object (w);
    }
  json_end_object (w);
}

char *
features_to_json (const struct oci_features *f)
{
  struct json_writer *w = json_writer_new_indent ("    ");

  json_begin_object (w);
  json_kv_string (w, "ociVersionMin", "1.0.0");
  json_kv_string (w, "ociVersionMax", "1.2.0");
  write_list (w, "hooks", f->hooks);
  write_list (w, "mountOptions", f->mount_options);
  write_linux (w, f);
  if (f->annotations)
    {
      json_key (w, "annotations");
      json_begin_object (w);
      for (const char *const *a = f->annotations; a[0] && a[1]; a += 2)
        json_kv_string (w, a[0], a[1]);
      json_end_object (w);
    }
  write_list (w, "potentiallyUnsafeConfigAnnotations",
              f->potentially_unsafe_annotations);
  json_end_object (w);
  return json_writer_finish (w, NULL);
}
