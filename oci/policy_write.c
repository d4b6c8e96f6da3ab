/* The admin policy written back as a policy file (see policy_file.h):
 * every field, so that the effective policy a container was created with
 * can be stored with it and read back unchanged. */
#include <config.h>

#include <string.h>

#include "common/xalloc.h"
#include "policy_file.h"
#include "runtime/policy/host_paths.h"

static void
write_strings (struct json_writer *w, const char *key,
               const struct str_list *l)
{
  json_key (w, key);
  json_begin_array (w);
  for (size_t i = 0; i < l->len; i++)
    json_string (w, l->items[i]);
  json_end_array (w);
}

/* Whether l's entry i is one of the built-in list's: looked for at its
 * own index first (the policy copies the built-in list first, in order:
 * a search of the whole list for each of its 340 entries was a tenth of a
 * millisecond of every create). */
static bool
is_builtin (const struct str_list *l, size_t i, const struct path_list *builtin)
{
  if (i < builtin->len && strcmp (l->items[i], builtin->items[i]) == 0)
    return true;
  for (size_t k = 0; k < builtin->len; k++)
    if (strcmp (l->items[i], builtin->items[k]) == 0)
      return true;
  return false;
}

/* The entries of l beyond the built-in list (what extraPaths added). */
static void
write_extra (const struct agent_policy *p, struct json_writer *w, const char *section,
             const struct str_list *l, const struct path_list *builtin)
{
  json_key (w, section);
  json_begin_object (w);
  json_key (w, "extraPaths");
  json_begin_array (w);
  for (size_t i = 0; i < l->len; i++)
    if (!is_builtin (l, i, builtin))
      json_string (w, l->items[i]);
  json_end_array (w);
  if (l == &p->credential_paths)
    policy_file_write_credentials (p, w);
  json_end_object (w);
}

static void
write_sections (const struct agent_policy *p, struct json_writer *w)
{
  json_key (w, "rootfs");
  json_begin_object (w);
  json_kv_bool (w, "allowEphemeral", p->allow_ephemeral_rootfs);
  json_kv_bool (w, "allowWritable", p->allow_writable_rootfs);
  json_kv_uint (w, "ephemeralSize", p->ephemeral_size);
  json_end_object (w);
  json_key (w, "tmpfs");
  json_begin_object (w);
  json_kv_uint (w, "tmp", p->tmp_size);
  json_kv_uint (w, "run", p->run_size);
  json_kv_uint (w, "shm", p->shm_size);
  json_kv_uint (w, "home", p->home_size);
  json_end_object (w);
  json_key (w, "env");
  json_begin_object (w);
  json_kv_bool (w, "allowKeep", p->allow_env_keep);
  write_strings (w, "extraSecretPatterns", &p->extra_secret_env);
  json_end_object (w);
  write_extra (p, w, "credentials", &p->credential_paths, &host_paths_credentials);
  write_extra (p, w, "sockets", &p->socket_paths, &host_paths_sockets);
  json_key (w, "binds");
  json_begin_object (w);
  json_kv_uint (w, "scanDepth", p->bind_scan_depth);
  json_kv_uint (w, "scanEntries", p->bind_scan_entries);
  json_kv_bool (w, "protectPersistence", p->protect_persistence);
  json_end_object (w);
  json_key (w, "devices");
  json_begin_object (w);
  write_strings (w, "allow", &p->allowed_devices);
  json_end_object (w);
  json_key (w, "capabilities");
  json_begin_object (w);
  write_strings (w, "safe", &p->safe_capabilities);
  json_end_object (w);
}

void
policy_file_write_json (const struct agent_policy *p, struct json_writer *w)
{
  json_begin_object (w);
  json_kv_uint (w, "version", 1);
  json_kv_string (w, "hardening", p->enforce ? "enforce" : "off");
  write_sections (p, w);
  json_key (w, "limits");
  json_begin_object (w);
  json_kv_int (w, "pids", p->pids_limit);
  json_kv_int (w, "memory", p->memory_limit);
  json_kv_uint (w, "lifetime", p->lifetime);
  json_kv_uint (w, "maxLifetime", p->max_lifetime);
  json_kv_string (w, "unenforceable",
                  p->limits_unenforceable == POLICY_UNENFORCEABLE_ALLOW
                      ? "allow"
                      : "fail");
  json_end_object (w);
  json_key (w, "egress");
  json_begin_object (w);
  write_strings (w, "allow", &p->egress_allow);
  write_strings (w, "ceiling", &p->egress_ceiling);
  json_kv_bool (w, "allowBroad", p->allow_broad_egress);
  json_kv_string (w, "publicSuffixList", p->public_suffix_list);
  json_kv_string (w, "uplink", net_uplink_name (p->egress_uplink));
  json_kv_bool (w, "transparent", p->egress_transparent);
  egress_ask_write_json (&p->egress_ask, "ask", w);
  json_end_object (w);
  json_key (w, "seccomp");
  json_begin_object (w);
  json_key (w, "profile");
  if (p->seccomp_profile)
    json_string (w, p->seccomp_profile);
  else
    json_null (w);
  json_end_object (w);
  json_key (w, "userns");
  json_begin_object (w);
  json_kv_string (w, "mode", policy_userns_name (p->userns_mode));
  json_kv_string (w, "subidUser", p->userns_subid_user);
  if (p->userns_has_pool)
    {
      json_key (w, "pool");
      json_begin_object (w);
      json_kv_uint (w, "uid", p->userns_pool_uid);
      json_kv_uint (w, "gid", p->userns_pool_gid);
      json_kv_uint (w, "size", p->userns_pool_size);
      json_end_object (w);
    }
  json_end_object (w);
  json_key (w, "sidecar");
  json_begin_object (w);
  json_kv_uint (w, "uid", p->sidecar_uid);
  json_kv_uint (w, "gid", p->sidecar_gid);
  json_kv_uint (w, "busyPollMicroseconds", p->sidecar_busy_poll_us);
  json_end_object (w);
  json_key (w, "audit");
  json_begin_object (w);
  json_kv_string (w, "dir", p->audit_dir);
  json_end_object (w);
  json_end_object (w);
}
