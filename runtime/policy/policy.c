/* The admin policy model: built-in defaults, release, and the size,
 * duration and capability-name syntax shared by the policy file and the
 * annotations (see policy.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "host_paths.h"
#include "policy.h"

static const char *const default_safe_capabilities[] = {
  "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER",  "CAP_FSETID",
  "CAP_KILL",  "CAP_SETGID",       "CAP_SETUID",  "CAP_NET_BIND_SERVICE",
};

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))

/* The array at its final size at once: appended one by one it moved at
 * nearly every item (the copy just made is in its way), 180 KB of blocks
 * whose holes spread the heap that create's forks then share. */
static void
fill_list (struct str_list *list, const char *const *items, size_t n)
{
  list->items = xreallocarray (list->items, list->len + n + 1, sizeof (char *));
  for (size_t i = 0; i < n; i++)
    list->items[list->len++] = xstrdup (items[i]);
  list->items[list->len] = NULL;
}

void
policy_init_defaults (struct agent_policy *policy)
{
  memset (policy, 0, sizeof (*policy));
  policy->enforce = true;
  policy->allow_ephemeral_rootfs = true;
  policy->allow_writable_rootfs = false;
  policy->ephemeral_size = POLICY_GIB;
  policy->tmp_size = 512 * POLICY_MIB;
  policy->run_size = 64 * POLICY_MIB;
  policy->shm_size = 64 * POLICY_MIB;
  policy->home_size = 512 * POLICY_MIB;
  policy->allow_env_keep = true;
  fill_list (&policy->credential_paths, host_paths_credentials.items,
             host_paths_credentials.len);
  fill_list (&policy->socket_paths, host_paths_sockets.items,
             host_paths_sockets.len);
  policy->bind_scan_depth = 8;
  policy->bind_scan_entries = 200000;
  policy->protect_persistence = true;
  fill_list (&policy->safe_capabilities, default_safe_capabilities,
             N_ELEMENTS (default_safe_capabilities));
  policy->pids_limit = 1024;
  policy->memory_limit = 4 * (int64_t) POLICY_GIB;
  policy->lifetime = 24 * 3600;
  policy->max_lifetime = 24 * 3600;
  str_list_append (&policy->egress_ceiling, "*");
  policy->allow_broad_egress = false;
  policy->public_suffix_list = xstrdup (POLICY_DEFAULT_PUBLIC_SUFFIX_LIST);
  policy->trust_store = xstrdup (POLICY_DEFAULT_TRUST_STORE);
  policy->egress_uplink = NET_UPLINK_AUTO;
  policy->egress_transparent = true;
  egress_ask_defaults (&policy->egress_ask);
  /* the agent's root is never the host's: docs/userns.md */
  policy->userns_mode = POLICY_USERNS_AUTO;
  policy->userns_subid_user = xstrdup (POLICY_USERNS_SUBID_USER);
  policy->userns_pool_uid = POLICY_USERNS_POOL_START;
  policy->userns_pool_gid = POLICY_USERNS_POOL_START;
  policy->userns_pool_size = POLICY_USERNS_POOL_SIZE;
  policy->seccomp_profile = xstrdup (POLICY_DEFAULT_SECCOMP_PROFILE);
  policy->sidecar_uid = 65534;
  policy->sidecar_gid = 65534;
  policy->sidecar_busy_poll_us = POLL_WINDOW_DEFAULT_US;
  policy->audit_dir = xstrdup (POLICY_DEFAULT_AUDIT_DIR);
}

void
policy_release (struct agent_policy *policy)
{
  str_list_free (&policy->extra_secret_env);
  str_list_free (&policy->credential_paths);
  str_list_free (&policy->socket_paths);
  str_list_free (&policy->allowed_devices);
  str_list_free (&policy->safe_capabilities);
  str_list_free (&policy->egress_allow);
  str_list_free (&policy->egress_ceiling);
  free (policy->seccomp_profile);
  free (policy->public_suffix_list);
  free (policy->audit_dir);
  free (policy->trust_store);
  for (size_t i = 0; i < policy->n_inject; i++)
    credential_decl_release (&policy->inject[i]);
  free (policy->inject);
  egress_ask_release (&policy->egress_ask);
  free (policy->userns_subid_user);
  memset (policy, 0, sizeof (*policy));
}

const char *
policy_userns_name (enum policy_userns mode)
{
  return mode == POLICY_USERNS_OFF ? "off" : "auto";
}

int
policy_userns_from_name (const char *name)
{
  if (strcmp (name, "auto") == 0)
    return POLICY_USERNS_AUTO;
  if (strcmp (name, "off") == 0)
    return POLICY_USERNS_OFF;
  return -1;
}

/* Reads the leading decimal digits of s into *n (no sign, at least one
 * digit, no overflow); returns the first byte after them or NULL. */
static const char *
parse_digits (const char *s, uint64_t *n)
{
  uint64_t v = 0;
  const char *p = s;

  for (; *p >= '0' && *p <= '9'; p++)
    {
      if (v > (UINT64_MAX - (uint64_t) (*p - '0')) / 10)
        return NULL;
      v = v * 10 + (uint64_t) (*p - '0');
    }
  if (p == s)
    return NULL;
  *n = v;
  return p;
}

static int
scale (uint64_t n, uint64_t unit, uint64_t *out)
{
  if (n == 0 || n > UINT64_MAX / unit)
    return -1;
  *out = n * unit;
  return 0;
}

int
policy_parse_size (const char *s, uint64_t *out)
{
  uint64_t n, unit = 1;
  const char *end = parse_digits (s, &n);

  if (end == NULL)
    return -1;
  if (*end != '\0')
    {
      const char *units = "kmgt";
      const char *u = strchr (units, end[0] | 0x20);
      if (u == NULL || end[1] != '\0')
        return -1;
      for (const char *p = units; p <= u; p++)
        unit *= 1024;
    }
  return scale (n, unit, out);
}

int
policy_parse_duration (const char *s, uint64_t *out)
{
  uint64_t n, unit = 1;
  const char *end = parse_digits (s, &n);

  if (end == NULL)
    return -1;
  if (*end != '\0')
    {
      if (end[1] != '\0')
        return -1;
      switch (end[0])
        {
        case 's':
          unit = 1;
          break;
        case 'm':
          unit = 60;
          break;
        case 'h':
          unit = 3600;
          break;
        case 'd':
          unit = 86400;
          break;
        default:
          return -1;
        }
    }
  return scale (n, unit, out);
}

const char *
policy_format_size (uint64_t bytes, char *buf)
{
  static const char units[] = "kmgt";
  int u = -1;

  while (u < 3 && bytes != 0 && bytes % 1024 == 0)
    {
      bytes /= 1024;
      u++;
    }
  if (u < 0)
    snprintf (buf, POLICY_SIZE_STR_LEN, "%llu", (unsigned long long) bytes);
  else
    snprintf (buf, POLICY_SIZE_STR_LEN, "%llu%c", (unsigned long long) bytes,
              units[u]);
  return buf;
}

/* The kernel's capability names, CAP_CHOWN (0) to CAP_CHECKPOINT_RESTORE
 * (40). */
static const char *const capability_names[] = {
  "CAP_CHOWN",          "CAP_DAC_OVERRIDE",   "CAP_DAC_READ_SEARCH",
  "CAP_FOWNER",         "CAP_FSETID",         "CAP_KILL",
  "CAP_SETGID",         "CAP_SETUID",         "CAP_SETPCAP",
  "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
  "CAP_NET_ADMIN",      "CAP_NET_RAW",        "CAP_IPC_LOCK",
  "CAP_IPC_OWNER",      "CAP_SYS_MODULE",     "CAP_SYS_RAWIO",
  "CAP_SYS_CHROOT",     "CAP_SYS_PTRACE",     "CAP_SYS_PACCT",
  "CAP_SYS_ADMIN",      "CAP_SYS_BOOT",       "CAP_SYS_NICE",
  "CAP_SYS_RESOURCE",   "CAP_SYS_TIME",       "CAP_SYS_TTY_CONFIG",
  "CAP_MKNOD",          "CAP_LEASE",          "CAP_AUDIT_WRITE",
  "CAP_AUDIT_CONTROL",  "CAP_SETFCAP",        "CAP_MAC_OVERRIDE",
  "CAP_MAC_ADMIN",      "CAP_SYSLOG",         "CAP_WAKE_ALARM",
  "CAP_BLOCK_SUSPEND",  "CAP_AUDIT_READ",     "CAP_PERFMON",
  "CAP_BPF",            "CAP_CHECKPOINT_RESTORE",
};

const char *
policy_capability_name (const char *name)
{
  for (size_t i = 0; i < N_ELEMENTS (capability_names); i++)
    if (strcasecmp (name, capability_names[i]) == 0)
      return capability_names[i];
  return NULL;
}
