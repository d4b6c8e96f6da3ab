/* A user namespace for every hardened container (see userns_auto.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "userns_auto.h"

static const char *const userns_names[] = {
  [HARDEN_USERNS_NONE] = "none",     [HARDEN_USERNS_AUTO] = "auto",
  [HARDEN_USERNS_BUNDLE] = "bundle", [HARDEN_USERNS_OFF] = "off",
  [HARDEN_USERNS_JOINED] = "joined",
};

const char *
harden_userns_name (enum harden_userns mode)
{
  return (size_t) mode < sizeof userns_names / sizeof *userns_names
             ? userns_names[mode]
             : "none";
}

int
harden_userns_from_name (const char *name)
{
  for (size_t i = 0; i < sizeof userns_names / sizeof *userns_names; i++)
    if (strcmp (userns_names[i], name) == 0)
      return (int) i;
  return -1;
}

/* The first pid or mount namespace the bundle joins by path, or -1. */
static long
joined_pid_or_mount (const struct oci_config *c)
{
  const struct oci_linux *l = c->linux_cfg;

  for (size_t i = 0; l && i < l->n_namespaces; i++)
    if ((l->namespaces[i].type == OCI_NS_PID
         || l->namespaces[i].type == OCI_NS_MOUNT)
        && l->namespaces[i].path && l->namespaces[i].path[0])
      return (long) i;
  return -1;
}

/* Every id the process starts with must be inside the range. */
static int
check_process_ids (const struct oci_config *c, agentrt_error_t *err)
{
  const struct oci_user *u = c->process ? &c->process->user : NULL;

  if (u == NULL)
    return 0;
  if (u->uid >= USERNS_AUTO_SIZE || u->gid >= USERNS_AUTO_SIZE)
    return agentrt_error (err, EINVAL, "process.user.%s: %u is outside the "
                          "container's user namespace (ids 0-%u are mapped; "
                          "the policy's userns.mode \"off\" runs without one)",
                          u->uid >= USERNS_AUTO_SIZE ? "uid" : "gid",
                          (unsigned) (u->uid >= USERNS_AUTO_SIZE ? u->uid
                                                                 : u->gid),
                          USERNS_AUTO_SIZE - 1);
  for (size_t i = 0; i < u->n_additional_gids; i++)
    if (u->additional_gids[i] >= USERNS_AUTO_SIZE)
      return agentrt_error (err, EINVAL, "process.user.additionalGids[%zu]: "
                            "%u is outside the container's user namespace "
                            "(ids 0-%u are mapped)", i,
                            (unsigned) u->additional_gids[i],
                            USERNS_AUTO_SIZE - 1);
  return 0;
}

int
userns_auto_harden (struct oci_config *c, const struct agent_policy *policy,
                    bool rootless, enum harden_userns *out,
                    struct change_list *changes, agentrt_error_t *err)
{
  struct oci_linux *l;
  long joined;

  *out = HARDEN_USERNS_NONE;
  if (oci_config_namespace (c, OCI_NS_USER))
    {
      *out = HARDEN_USERNS_BUNDLE; /* kept: nothing changes */
      return 0;
    }
  if (rootless)
    {
      /* the runtime cannot map ranges of its choice; the agent's ids are
       * the user's own ones, said in the trail all the same */
      change_add (changes, CHANGE_NAMESPACE, "no user namespace of agentrt's",
                  "the runtime is not root of the host (rootless): the "
                  "agent's root is the user, its other ids the user's "
                  "subordinate range");
      return 0;
    }
  if (policy->userns_mode == POLICY_USERNS_OFF)
    {
      *out = HARDEN_USERNS_OFF;
      change_add (changes, CHANGE_NAMESPACE, "no user namespace",
                  "the policy's userns.mode is \"off\": the agent's root is "
                  "the host's root");
      return 0;
    }
  joined = joined_pid_or_mount (c);
  if (joined >= 0)
    {
      const struct oci_namespace *ns = &c->linux_cfg->namespaces[joined];
      *out = HARDEN_USERNS_JOINED;
      char *why = xasprintf ("linux.namespaces[%ld] joins a %s namespace by "
                             "path (`%s`): another user namespace owns it, "
                             "and a new one could not mount in it", joined,
                             oci_namespace_type_name (ns->type), ns->path);
      change_add (changes, CHANGE_NAMESPACE, "no user namespace", why);
      free (why);
      return 0;
    }
  if (check_process_ids (c, err) < 0)
    return -1;
  if (c->linux_cfg == NULL)
    c->linux_cfg = xzalloc (sizeof (*c->linux_cfg));
  l = c->linux_cfg;
  l->namespaces = xreallocarray (l->namespaces, l->n_namespaces + 1,
                                 sizeof (*l->namespaces));
  l->namespaces[l->n_namespaces++]
      = (struct oci_namespace){ OCI_NS_USER, NULL };
  *out = HARDEN_USERNS_AUTO;
  change_addf (changes, CHANGE_NAMESPACE, "the agent's root is never the "
               "host's root", "user (new): container ids 0-%u mapped to a "
               "host range allocated at create", USERNS_AUTO_SIZE - 1);
  return 0;
}

/* Docker asks every container for net.ipv4.ping_group_range "0
 * 2147483647" (every group may ping): in the container's own user
 * namespace only its USERNS_AUTO_SIZE groups exist, and the kernel
 * refuses a range beyond them.  The range is cut to them, recorded; a
 * value that is no "LOW HIGH" pair is left for the kernel to refuse. */
static void
clamp_ping_group_range (struct oci_linux *l, struct change_list *changes)
{
  static const char key[] = "net.ipv4.ping_group_range";
  const char *v = kv_list_get (&l->sysctl, key);
  unsigned long low, high;
  char *end, value[32];

  if (v == NULL)
    return;
  low = strtoul (v, &end, 10);
  if (end == v || *end != ' ')
    return;
  high = strtoul (end + 1, &end, 10);
  if (*end != '\0' || high < USERNS_AUTO_SIZE || low >= USERNS_AUTO_SIZE)
    return;
  snprintf (value, sizeof value, "%lu %u", low, USERNS_AUTO_SIZE - 1);
  change_addf (changes, CHANGE_NAMESPACE, "the container's user namespace "
               "maps only those groups", "linux.sysctl %s: `%s` becomes `%s`",
               key, v, value);
  kv_list_set (&l->sysctl, key, value);
}

void
userns_auto_map (struct oci_config *c, uint32_t uid_start, uint32_t gid_start,
                 struct change_list *changes)
{
  struct oci_linux *l = c->linux_cfg;

  free (l->uid_mappings);
  free (l->gid_mappings);
  l->uid_mappings = xzalloc (sizeof *l->uid_mappings);
  l->gid_mappings = xzalloc (sizeof *l->gid_mappings);
  l->uid_mappings[0] = (struct oci_id_mapping){ 0, uid_start, USERNS_AUTO_SIZE };
  l->gid_mappings[0] = (struct oci_id_mapping){ 0, gid_start, USERNS_AUTO_SIZE };
  l->n_uid_mappings = l->n_gid_mappings = 1;
  change_addf (changes, CHANGE_NAMESPACE, "the range allocated to this "
               "container", "user: uid %u-%u, gid %u-%u", (unsigned) uid_start,
               (unsigned) (uid_start + USERNS_AUTO_SIZE - 1),
               (unsigned) gid_start,
               (unsigned) (gid_start + USERNS_AUTO_SIZE - 1));
  clamp_ping_group_range (l, changes);
}

struct oci_id_mapping
userns_auto_bind_map (uint32_t owner, uint32_t agent, uint32_t start)
{
  return (struct oci_id_mapping){ owner, start + agent, 1 };
}
