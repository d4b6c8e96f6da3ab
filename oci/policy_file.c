/* The admin policy file: JSON into struct agent_policy on top of the
 * built-in defaults; unknown members and bad values are errors naming the
 * field (see policy_file.h and docs/policy.md). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/closest.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "json_tree.h"
#include "policy_file.h"
#include "runtime/policy/device_allow.h"
#include "runtime/policy/egress_policy.h"

/* Refuses members of obj that are not in `known` (NULL-terminated): a
 * misspelt field must not silently leave a default in place.  The error
 * suggests the known field it is closest to (two edits at most). */
int
policy_file_check_members (const struct json_ctx *c, const struct json_node *obj,
               const struct json_path *p, const char *const *known)
{
  for (uint32_t i = 0; i < obj->len; i++)
    {
      const char *key = obj->u.items[i].key;
      size_t k = 0;
      while (known[k] && strcmp (known[k], key) != 0)
        k++;
      if (known[k] == NULL)
        {
          const char *near = closest_word (key, known, 2);
          if (near)
            return json_fail (c, JSON_PATH_KEY (p, key),
                              "unknown field (did you mean %s?)", near);
          return json_fail (c, JSON_PATH_KEY (p, key), "unknown field");
        }
    }
  return 0;
}

/* An optional section: *out is NULL when absent. */
static int
section (const struct json_ctx *c, const struct json_node *root,
         const char *key, const char *const *known,
         const struct json_node **out)
{
  if (json_member_of_type (c, root, NULL, key, JSON_OPTIONAL, JSON_OBJECT, out)
      < 0)
    return -1;
  return *out ? policy_file_check_members (c, *out, JSON_PATH_KEY (NULL, key), known) : 0;
}

/* A size: "512m" or a number of bytes, > 0. */
static int
member_size (const struct json_ctx *c, const struct json_node *obj,
             const struct json_path *p, const char *key, uint64_t *out)
{
  const struct json_node *m = json_member (obj, key);
  const struct json_path *mp = JSON_PATH_KEY (p, key);

  if (m == NULL)
    return 0;
  if (m->type == JSON_STRING)
    {
      cleanup_free char *s = xstrndup (m->u.text, m->len);
      if (policy_parse_size (s, out) < 0)
        return json_fail (c, mp, "expected a size such as 512m or 4g");
      return 0;
    }
  if (json_read_int (c, m, mp, JSON_U64, out) < 0)
    return -1;
  return *out > 0 ? 0 : json_fail (c, mp, "must be greater than 0");
}

/* A duration: "5m", "24h" or a number of seconds, > 0. */
static int
member_duration (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, const char *key, uint64_t *out,
                 bool *has)
{
  const struct json_node *m = json_member (obj, key);
  const struct json_path *mp = JSON_PATH_KEY (p, key);

  *has = m != NULL;
  if (m == NULL)
    return 0;
  if (m->type == JSON_STRING)
    {
      cleanup_free char *s = xstrndup (m->u.text, m->len);
      if (policy_parse_duration (s, out) < 0)
        return json_fail (c, mp, "expected a duration such as 300, 5m or 24h");
      return 0;
    }
  if (json_read_int (c, m, mp, JSON_U64, out) < 0)
    return -1;
  return *out > 0 ? 0 : json_fail (c, mp, "must be greater than 0");
}

typedef const char *(*check_item_fn) (const char *item);

/* An array of non-empty strings, each accepted by `check` (which returns
 * NULL or what is wrong), appended to out. */
static int
member_strings (const struct json_ctx *c, const struct json_node *obj,
                const struct json_path *p, const char *key,
                check_item_fn check, struct str_list *out)
{
  const struct json_node *arr;
  const struct json_path *ap = JSON_PATH_KEY (p, key);

  if (json_member_of_type (c, obj, p, key, JSON_OPTIONAL, JSON_ARRAY, &arr) < 0)
    return -1;
  for (uint32_t i = 0; arr && i < arr->len; i++)
    {
      const struct json_path *ip = JSON_PATH_INDEX (ap, i);
      cleanup_free char *s = NULL;
      const char *why;

      if (json_read_string (c, &arr->u.items[i], ip, &s) < 0)
        return -1;
      why = s[0] == '\0' ? "must not be empty" : check ? check (s) : NULL;
      if (why)
        return json_fail (c, ip, "%s", why);
      str_list_append (out, s);
    }
  return 0;
}

static const char *
check_any (const char *s)
{
  return NULL;
}

static const char *
check_list_entry (const char *s)
{
  return strchr (s, ',') ? "one entry per string (no `,`)" : NULL;
}

/* Relative entries: plain components; absolute ones: clean, globs
 * allowed in a component. */
static const char *
check_credential_path (const char *s)
{
  if (s[0] != '/' && strpbrk (s, "*?["))
    return "no glob in relative credential paths";
  for (const char *p = s + (s[0] == '/'); *p;)
    {
      size_t n = strcspn (p, "/");
      if (n == 0 || (n == 1 && p[0] == '.')
          || (n == 2 && p[0] == '.' && p[1] == '.'))
        return "expected a clean path (no empty, `.` or `..` component)";
      p += n + (p[n] == '/');
      if (p[-1] == '/' && *p == '\0')
        return "expected a clean path (no trailing `/`)";
    }
  return NULL;
}

static const char *
check_socket_path (const char *s)
{
  if (s[0] != '/')
    return "expected an absolute path";
  for (const char *p = s + 1; *p;)
    {
      size_t n = strcspn (p, "/");
      if (n == 0 || (n == 1 && p[0] == '.')
          || (n == 2 && p[0] == '.' && p[1] == '.'))
        return "expected a clean path (no empty, `.` or `..` component)";
      p += n + (p[n] == '/');
      if (p[-1] == '/' && *p == '\0')
        return "expected a clean path (no trailing `/`)";
    }
  return NULL;
}

static const char *
check_device (const char *s)
{
  return device_allow_optional_name (s) ? NULL
                                        : "unknown device (fuse, kvm, net/tun)";
}

static const char *
check_capability (const char *s)
{
  return policy_capability_name (s) ? NULL : "unknown capability";
}

static int
parse_rootfs (const struct json_ctx *c, const struct json_node *root,
              struct agent_policy *pol)
{
  static const char *const known[]
      = { "allowEphemeral", "allowWritable", "ephemeralSize", NULL };
  const struct json_node *o;
  const struct json_path *p = JSON_PATH_KEY (NULL, "rootfs");

  if (section (c, root, "rootfs", known, &o) < 0)
    return -1;
  if (o == NULL)
    return 0;
  if (json_member_bool (c, o, p, "allowEphemeral", JSON_OPTIONAL,
                        &pol->allow_ephemeral_rootfs, NULL) < 0
      || json_member_bool (c, o, p, "allowWritable", JSON_OPTIONAL,
                           &pol->allow_writable_rootfs, NULL) < 0)
    return -1;
  return member_size (c, o, p, "ephemeralSize", &pol->ephemeral_size);
}

static int
parse_tmpfs (const struct json_ctx *c, const struct json_node *root,
             struct agent_policy *pol)
{
  static const char *const known[] = { "tmp", "run", "shm", "home", NULL };
  const struct json_node *o;
  const struct json_path *p = JSON_PATH_KEY (NULL, "tmpfs");

  if (section (c, root, "tmpfs", known, &o) < 0)
    return -1;
  if (o == NULL)
    return 0;
  if (member_size (c, o, p, "tmp", &pol->tmp_size) < 0
      || member_size (c, o, p, "run", &pol->run_size) < 0
      || member_size (c, o, p, "shm", &pol->shm_size) < 0)
    return -1;
  return member_size (c, o, p, "home", &pol->home_size);
}

static int
parse_lists (const struct json_ctx *c, const struct json_node *root,
             struct agent_policy *pol)
{
  static const char *const env_known[]
      = { "allowKeep", "extraSecretPatterns", NULL };
  static const char *const paths_known[] = { "extraPaths", NULL };
  static const char *const creds_known[]
      = { "extraPaths", "inject", "trustStore", NULL };
  static const char *const caps_known[] = { "safe", NULL };
  const struct json_node *env, *creds, *socks, *caps;

  if (section (c, root, "env", env_known, &env) < 0
      || section (c, root, "credentials", creds_known, &creds) < 0
      || section (c, root, "sockets", paths_known, &socks) < 0
      || section (c, root, "capabilities", caps_known, &caps) < 0)
    return -1;
  if (env
      && (json_member_bool (c, env, JSON_PATH_KEY (NULL, "env"), "allowKeep",
                            JSON_OPTIONAL, &pol->allow_env_keep, NULL) < 0
          || member_strings (c, env, JSON_PATH_KEY (NULL, "env"),
                             "extraSecretPatterns", check_any,
                             &pol->extra_secret_env) < 0))
    return -1;
  if (creds
      && member_strings (c, creds, JSON_PATH_KEY (NULL, "credentials"),
                         "extraPaths", check_credential_path,
                         &pol->credential_paths) < 0)
    return -1;
  if (creds && policy_file_parse_credentials (c, creds, pol) < 0)
    return -1;
  if (socks
      && member_strings (c, socks, JSON_PATH_KEY (NULL, "sockets"),
                         "extraPaths", check_socket_path, &pol->socket_paths)
             < 0)
    return -1;
  if (caps && json_member (caps, "safe"))
    {
      struct str_list safe = { NULL, 0 };
      if (member_strings (c, caps, JSON_PATH_KEY (NULL, "capabilities"),
                          "safe", check_capability, &safe) < 0)
        {
          str_list_free (&safe);
          return -1;
        }
      str_list_free (&pol->safe_capabilities);
      for (size_t i = 0; i < safe.len; i++)
        str_list_append (&pol->safe_capabilities,
                         policy_capability_name (safe.items[i]));
      str_list_free (&safe);
    }
  return 0;
}

static int
parse_binds_devices (const struct json_ctx *c, const struct json_node *root,
                     struct agent_policy *pol)
{
  static const char *const binds_known[]
      = { "scanDepth", "scanEntries", "protectPersistence", NULL };
  static const char *const devices_known[] = { "allow", NULL };
  const struct json_path *bp = JSON_PATH_KEY (NULL, "binds");
  const struct json_node *b, *d;
  struct str_list devices = { NULL, 0 };

  if (section (c, root, "binds", binds_known, &b) < 0
      || section (c, root, "devices", devices_known, &d) < 0)
    return -1;
  if (b && (json_member_int (c, b, bp, "scanDepth", JSON_OPTIONAL, JSON_U32,
                             &pol->bind_scan_depth, NULL) < 0
            || json_member_int (c, b, bp, "scanEntries", JSON_OPTIONAL,
                                JSON_U64, &pol->bind_scan_entries, NULL) < 0
            || json_member_bool (c, b, bp, "protectPersistence",
                                 JSON_OPTIONAL, &pol->protect_persistence,
                                 NULL) < 0))
    return -1;
  if (pol->bind_scan_depth < 1 || pol->bind_scan_depth > 64)
    return json_fail (c, JSON_PATH_KEY (bp, "scanDepth"), "from 1 to 64");
  if (pol->bind_scan_entries < 1)
    return json_fail (c, JSON_PATH_KEY (bp, "scanEntries"),
                      "must be greater than 0");
  if (d && member_strings (c, d, JSON_PATH_KEY (NULL, "devices"), "allow",
                           check_device, &devices) < 0)
    {
      str_list_free (&devices);
      return -1;
    }
  for (size_t i = 0; i < devices.len; i++)
    {
      const char *name = device_allow_optional_name (devices.items[i]);
      if (!str_list_contains (&pol->allowed_devices, name))
        str_list_append (&pol->allowed_devices, name);
    }
  str_list_free (&devices);
  return 0;
}

/* limits.unenforceable: "fail" or "allow". */
static int
parse_unenforceable (const struct json_ctx *c, const struct json_node *o,
                     const struct json_path *p, struct agent_policy *pol)
{
  cleanup_free char *mode = NULL;

  if (json_member_string (c, o, p, "unenforceable", JSON_OPTIONAL, &mode) < 0)
    return -1;
  if (mode == NULL)
    return 0;
  if (strcmp (mode, "fail") == 0)
    pol->limits_unenforceable = POLICY_UNENFORCEABLE_FAIL;
  else if (strcmp (mode, "allow") == 0)
    pol->limits_unenforceable = POLICY_UNENFORCEABLE_ALLOW;
  else
    return json_fail (c, JSON_PATH_KEY (p, "unenforceable"),
                      "must be \"fail\" or \"allow\"");
  return 0;
}

static int
parse_limits (const struct json_ctx *c, const struct json_node *root,
              struct agent_policy *pol)
{
  static const char *const known[] = { "pids", "memory", "lifetime",
                                       "maxLifetime", "unenforceable", NULL };
  const struct json_node *o;
  const struct json_path *p = JSON_PATH_KEY (NULL, "limits");
  uint64_t memory = (uint64_t) pol->memory_limit;
  bool has_life, has_max;

  if (section (c, root, "limits", known, &o) < 0)
    return -1;
  if (o == NULL)
    return 0;
  if (json_member_int (c, o, p, "pids", JSON_OPTIONAL, JSON_I64,
                       &pol->pids_limit, NULL) < 0)
    return -1;
  if (pol->pids_limit <= 0)
    return json_fail (c, JSON_PATH_KEY (p, "pids"), "must be greater than 0");
  if (member_size (c, o, p, "memory", &memory) < 0)
    return -1;
  if (memory > INT64_MAX)
    return json_fail (c, JSON_PATH_KEY (p, "memory"), "too large");
  pol->memory_limit = (int64_t) memory;
  if (member_duration (c, o, p, "lifetime", &pol->lifetime, &has_life) < 0
      || member_duration (c, o, p, "maxLifetime", &pol->max_lifetime,
                          &has_max) < 0)
    return -1;
  if (has_life && !has_max && pol->lifetime > pol->max_lifetime)
    pol->max_lifetime = pol->lifetime;
  if (pol->lifetime > pol->max_lifetime)
    return json_fail (c, JSON_PATH_KEY (p, "lifetime"),
                      "longer than limits.maxLifetime");
  return parse_unenforceable (c, o, p, pol);
}

/* An optional string member that must be an absolute path: replaces
 * *field when present. */
static int
member_absolute_path (const struct json_ctx *c, const struct json_node *o,
                      const struct json_path *p, const char *key, char **field)
{
  char *path = NULL;

  if (json_member_string (c, o, p, key, JSON_OPTIONAL, &path) < 0)
    return -1;
  if (path && path[0] != '/')
    {
      free (path);
      return json_fail (c, JSON_PATH_KEY (p, key), "expected an absolute path");
    }
  if (path)
    {
      free (*field);
      *field = path;
    }
  return 0;
}

/* egress.uplink: "auto", "bundle" or "runtime" (runtime/policy/net_plan.h). */
static int
parse_uplink (const struct json_ctx *c, const struct json_node *o,
              const struct json_path *p, struct agent_policy *pol)
{
  cleanup_free char *name = NULL;
  int uplink;

  if (json_member_string (c, o, p, "uplink", JSON_OPTIONAL, &name) < 0)
    return -1;
  if (name == NULL)
    return 0;
  uplink = net_uplink_from_name (name);
  if (uplink < 0)
    return json_fail (c, JSON_PATH_KEY (p, "uplink"),
                      "must be \"auto\", \"bundle\" or \"runtime\"");
  pol->egress_uplink = (enum net_uplink) uplink;
  return 0;
}

static int
parse_egress (const struct json_ctx *c, const struct json_node *root,
              struct agent_policy *pol)
{
  static const char *const known[] = { "allow", "ceiling", "allowBroad",
                                       "publicSuffixList", "uplink",
                                       "transparent", "ask", NULL };
  const struct json_node *o;
  const struct json_path *p = JSON_PATH_KEY (NULL, "egress");
  agentrt_error_t *err = c->err;

  if (section (c, root, "egress", known, &o) < 0)
    return -1;
  if (o == NULL)
    return 0;
  if (json_member_bool (c, o, p, "allowBroad", JSON_OPTIONAL,
                        &pol->allow_broad_egress, NULL) < 0
      || json_member_bool (c, o, p, "transparent", JSON_OPTIONAL,
                           &pol->egress_transparent, NULL) < 0
      || member_strings (c, o, p, "allow", check_list_entry,
                         &pol->egress_allow) < 0)
    return -1;
  if (json_member (o, "ceiling"))
    {
      str_list_free (&pol->egress_ceiling);
      if (member_strings (c, o, p, "ceiling", check_list_entry,
                          &pol->egress_ceiling) < 0)
        return -1;
    }
  if (member_absolute_path (c, o, p, "publicSuffixList",
                            &pol->public_suffix_list) < 0
      || parse_uplink (c, o, p, pol) < 0
      || policy_ask_parse (c, o, p, "ask", &pol->egress_ask) < 0)
    return -1;
  if (egress_policy_validate (pol, err) < 0)
    return agentrt_error_wrap (err, "%s", c->origin);
  return 0;
}

/* userns.pool: {"uid": N, "gid": N, "size": N}, every id at or above
 * 65536 (host root and ordinary users are never a container's), at least
 * one range of 65536, ending below 4294967295. */
static int
parse_userns_pool (const struct json_ctx *c, const struct json_node *o,
                   const struct json_path *p, struct agent_policy *pol)
{
  static const char *const known[] = { "uid", "gid", "size", NULL };
  const struct json_path *pp = JSON_PATH_KEY (p, "pool");
  const struct json_node *pool;

  if (json_member_of_type (c, o, p, "pool", JSON_OPTIONAL, JSON_OBJECT, &pool)
      < 0)
    return -1;
  if (pool == NULL)
    return 0;
  if (policy_file_check_members (c, pool, pp, known) < 0
      || json_member_int (c, pool, pp, "uid", JSON_REQUIRED, JSON_U32,
                          &pol->userns_pool_uid, NULL) < 0
      || json_member_int (c, pool, pp, "gid", JSON_REQUIRED, JSON_U32,
                          &pol->userns_pool_gid, NULL) < 0
      || json_member_int (c, pool, pp, "size", JSON_REQUIRED, JSON_U32,
                          &pol->userns_pool_size, NULL) < 0)
    return -1;
  pol->userns_has_pool = true;
  if (pol->userns_pool_uid < 65536 || pol->userns_pool_gid < 65536)
    return json_fail (c, JSON_PATH_KEY (pp, pol->userns_pool_uid < 65536
                                                ? "uid" : "gid"),
                      "below 65536: host root and ordinary users' ids are "
                      "never a container's");
  if (pol->userns_pool_size < 65536)
    return json_fail (c, JSON_PATH_KEY (pp, "size"),
                      "at least 65536 (one container's range)");
  if ((uint64_t) pol->userns_pool_uid + pol->userns_pool_size > UINT32_MAX
      || (uint64_t) pol->userns_pool_gid + pol->userns_pool_size > UINT32_MAX)
    return json_fail (c, JSON_PATH_KEY (pp, "size"),
                      "the pool must end below 4294967295");
  return 0;
}

/* userns: "mode" ("auto" or "off"), "subidUser", "pool" (docs/userns.md). */
static int
parse_userns (const struct json_ctx *c, const struct json_node *root,
              struct agent_policy *pol)
{
  static const char *const known[] = { "mode", "subidUser", "pool", NULL };
  const struct json_path *p = JSON_PATH_KEY (NULL, "userns");
  const struct json_node *o;
  cleanup_free char *mode = NULL;
  char *user = NULL;
  int m;

  if (section (c, root, "userns", known, &o) < 0)
    return -1;
  if (o == NULL)
    return 0;
  if (json_member_string (c, o, p, "mode", JSON_OPTIONAL, &mode) < 0
      || json_member_string (c, o, p, "subidUser", JSON_OPTIONAL, &user) < 0)
    return -1;
  if (mode && (m = policy_userns_from_name (mode)) < 0)
    {
      free (user);
      return json_fail (c, JSON_PATH_KEY (p, "mode"),
                        "must be \"auto\" or \"off\"");
    }
  if (mode)
    pol->userns_mode = (enum policy_userns) m;
  if (user && (user[0] == '\0' || strpbrk (user, ":\n") != NULL))
    {
      free (user);
      return json_fail (c, JSON_PATH_KEY (p, "subidUser"),
                        "a user name (no `:`, not empty)");
    }
  if (user)
    {
      free (pol->userns_subid_user);
      pol->userns_subid_user = user;
    }
  return parse_userns_pool (c, o, p, pol);
}

/* seccomp.profile: an absolute path, or null to disable the agent
 * profile (an explicit choice: absent keeps the default). */
static int
parse_seccomp (const struct json_ctx *c, const struct json_node *root,
               struct agent_policy *pol)
{
  static const char *const known[] = { "profile", NULL };
  const struct json_node *o;
  const struct json_path *p = JSON_PATH_KEY (NULL, "seccomp");

  if (section (c, root, "seccomp", known, &o) < 0)
    return -1;
  if (o == NULL)
    return 0;
  for (uint32_t i = 0; i < o->len; i++)
    {
      const struct json_node *m = &o->u.items[i];
      char *path = NULL;
      if (m->type != JSON_NULL
          && json_read_string (c, m, JSON_PATH_KEY (p, "profile"), &path) < 0)
        return -1;
      if (path && path[0] != '/')
        {
          free (path);
          return json_fail (c, JSON_PATH_KEY (p, "profile"),
                            "expected an absolute path or null");
        }
      free (pol->seccomp_profile);
      pol->seccomp_profile = path;
    }
  return 0;
}

static int
parse_sidecar_audit (const struct json_ctx *c, const struct json_node *root,
                     struct agent_policy *pol)
{
  static const char *const sidecar_known[] = { "uid", "gid", "busyPollMicroseconds", NULL };
  static const char *const audit_known[] = { "dir", NULL };
  const struct json_path *sp = JSON_PATH_KEY (NULL, "sidecar");
  const struct json_path *ap = JSON_PATH_KEY (NULL, "audit");
  const struct json_node *s, *a;

  if (section (c, root, "sidecar", sidecar_known, &s) < 0
      || section (c, root, "audit", audit_known, &a) < 0)
    return -1;
  if (s && (json_member_int (c, s, sp, "uid", JSON_OPTIONAL, JSON_U32,
                             &pol->sidecar_uid, NULL) < 0
            || json_member_int (c, s, sp, "gid", JSON_OPTIONAL, JSON_U32,
                                &pol->sidecar_gid, NULL) < 0
            || json_member_int (c, s, sp, "busyPollMicroseconds", JSON_OPTIONAL, JSON_U32,
                                &pol->sidecar_busy_poll_us, NULL) < 0))
    return -1;
  if (pol->sidecar_uid == 0 || pol->sidecar_gid == 0)
    return json_fail (c, JSON_PATH_KEY (sp, pol->sidecar_uid ? "gid" : "uid"),
                      "the sidecar never runs as root (0)");
  if (pol->sidecar_busy_poll_us > POLL_WINDOW_MAX_US)
    return json_fail (c, JSON_PATH_KEY (sp, "busyPollMicroseconds"),
                      "at most %d (microseconds)", POLL_WINDOW_MAX_US);
  if (a && member_absolute_path (c, a, ap, "dir", &pol->audit_dir) < 0)
    return -1;
  return 0;
}

/* "hardening": "enforce" (the default) or "off": the admin's explicit,
 * audited choice to run bundles as they are, like runc would. */
static int
parse_hardening (const struct json_ctx *c, const struct json_node *root,
                 struct agent_policy *pol)
{
  char *mode = NULL;
  if (json_member_string (c, root, NULL, "hardening", JSON_OPTIONAL, &mode) < 0)
    return -1;
  if (mode == NULL)
    return 0;
  if (strcmp (mode, "enforce") == 0)
    pol->enforce = true;
  else if (strcmp (mode, "off") == 0)
    pol->enforce = false;
  else
    {
      free (mode);
      return json_fail (c, JSON_PATH_KEY (NULL, "hardening"),
                        "must be \"enforce\" or \"off\"");
    }
  free (mode);
  return 0;
}

static int
parse_root (const struct json_ctx *c, const struct json_node *root,
            struct agent_policy *pol)
{
  static const char *const known[]
      = { "version", "hardening", "rootfs", "tmpfs", "env", "credentials", "sockets",
          "binds", "devices", "capabilities", "limits", "egress", "seccomp",
          "userns", "sidecar", "audit", NULL };
  uint32_t version = 1;

  if (json_expect (c, root, NULL, JSON_OBJECT) < 0
      || policy_file_check_members (c, root, NULL, known) < 0
      || json_member_int (c, root, NULL, "version", JSON_OPTIONAL, JSON_U32,
                          &version, NULL) < 0)
    return -1;
  if (version != 1)
    return json_fail (c, JSON_PATH_KEY (NULL, "version"),
                      "unsupported version (this agentrt reads 1)");
  if (parse_hardening (c, root, pol) < 0)
    return -1;
  if (parse_rootfs (c, root, pol) < 0 || parse_tmpfs (c, root, pol) < 0
      || parse_lists (c, root, pol) < 0 || parse_binds_devices (c, root, pol) < 0
      || parse_limits (c, root, pol) < 0
      || parse_egress (c, root, pol) < 0 || parse_seccomp (c, root, pol) < 0
      || parse_userns (c, root, pol) < 0)
    return -1;
  return parse_sidecar_audit (c, root, pol);
}

int
policy_file_parse_node (const struct json_ctx *c, const struct json_node *root,
                        struct agent_policy *policy)
{
  policy_init_defaults (policy);
  if (parse_root (c, root, policy) < 0)
    {
      policy_release (policy);
      return -1;
    }
  return 0;
}

int
policy_file_parse (const char *json, size_t len, const char *origin,
                   struct agent_policy *policy, agentrt_error_t *err)
{
  cleanup_json_doc struct json_doc *doc = NULL;
  struct json_ctx c = { origin, err };

  doc = json_doc_parse (json, len, origin, err);
  if (doc == NULL)
    {
      memset (policy, 0, sizeof (*policy));
      return -1;
    }
  return policy_file_parse_node (&c, json_doc_root (doc), policy);
}

static int
read_file (int fd, const char *path, char **out, size_t *len,
           agentrt_error_t *err)
{
  struct stat st;

  if (fstat (fd, &st) < 0)
    return agentrt_error (err, errno, "stat `%s`", path);
  if (!S_ISREG (st.st_mode))
    return agentrt_error (err, EINVAL, "`%s`: not a regular file", path);
  if (io_read_all (fd, POLICY_FILE_MAX_SIZE, out, len) == 0)
    return 0;
  if (errno == EFBIG)
    return agentrt_error (err, EFBIG, "`%s`: larger than %u bytes", path,
                          POLICY_FILE_MAX_SIZE);
  return agentrt_error (err, errno, "read `%s`", path);
}

static int
load_fd (int fd, const char *path, struct agent_policy *policy,
         agentrt_error_t *err)
{
  cleanup_free char *text = NULL;
  size_t len = 0;

  if (read_file (fd, path, &text, &len, err) < 0)
    return -1;
  return policy_file_parse (text, len, path, policy, err);
}

int
policy_file_load (const char *path, struct agent_policy *policy,
                  agentrt_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

  if (fd < 0)
    return agentrt_error (err, errno, "open policy `%s`", path);
  return load_fd (fd, path, policy, err);
}

int
policy_file_load_over (const char *path, struct agent_policy *policy,
                       bool *found, agentrt_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  cleanup_json_doc struct json_doc *doc = NULL;
  cleanup_free char *text = NULL;
  struct json_ctx c = { path, err };
  size_t len = 0;

  *found = fd >= 0;
  if (fd < 0 && errno == ENOENT)
    return 0;
  if (fd < 0)
    return agentrt_error (err, errno, "open policy `%s`", path);
  if (read_file (fd, path, &text, &len, err) < 0)
    return -1;
  doc = json_doc_parse (text, len, path, err);
  if (doc == NULL)
    return -1;
  return parse_root (&c, json_doc_root (doc), policy);
}

int
policy_file_load_default (const char *path, struct agent_policy *policy,
                          agentrt_error_t *err)
{
  cleanup_close int fd = -1;

  if (path)
    return policy_file_load (path, policy, err);
  fd = open (POLICY_FILE_DEFAULT_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT)
    {
      policy_init_defaults (policy);
      return 0;
    }
  if (fd < 0)
    return agentrt_error (err, errno, "open policy `%s`",
                          POLICY_FILE_DEFAULT_PATH);
  return load_fd (fd, POLICY_FILE_DEFAULT_PATH, policy, err);
}
