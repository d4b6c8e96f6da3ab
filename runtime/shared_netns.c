/* Joining another container's agent network namespace (see
 * shared_netns.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/container.h"
#include "runtime/proc_util.h"
#include "runtime/shared_netns.h"

static char *
stat_id (const char *path)
{
  struct stat st;
  if (stat (path, &st) < 0)
    return NULL;
  return xasprintf ("%llu:%llu", (unsigned long long) st.st_dev,
                    (unsigned long long) st.st_ino);
}

char *
shared_netns_id (pid_t pid)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/ns/net", pid);
  return stat_id (path);
}

/* The running hardened container whose agent namespace is `id`. */
static struct container_state *
find_owner (const struct runtime_context *rt, const char *id)
{
  char **ids = NULL;
  size_t n = 0, i;
  struct container_state *owner = NULL;
  cleanup_error agentrt_error_t ignored = NULL;

  if (state_list_ids (rt->root, &ids, &n, &ignored) < 0)
    return NULL;
  for (i = 0; i < n; i++)
    {
      struct container c;
      if (owner == NULL && container_load (rt, ids[i], &c, &ignored) == 0)
        {
          if (c.state && c.state->agent_netns
              && strcmp (c.state->agent_netns, id) == 0
              && proc_is_alive (c.state->pid, c.state->pid_start))
            owner = steal_pointer (&c.state);
          container_release (&c);
        }
      agentrt_error_release (&ignored);
      free (ids[i]);
    }
  free (ids);
  return owner;
}

int
shared_netns_apply (const struct runtime_context *rt,
                    const struct oci_config *config,
                    struct harden_result *result, agentrt_error_t *err)
{
  const struct oci_namespace *ns = oci_config_namespace (config, OCI_NS_NETWORK);
  struct harden_directives *d = &result->directives;
  cleanup_free char *id = NULL;
  cleanup_container_state struct container_state *owner = NULL;

  if (ns == NULL || ns->path == NULL || ns->path[0] == '\0'
      || d->net_facts.bundle_ns != NET_BUNDLE_PATH)
    return 0;
  id = stat_id (ns->path);
  owner = id ? find_owner (rt, id) : NULL;
  if (owner == NULL)
    return 0;
  /* Either way: a container asking for none would get the owner's
   * proxy, one asking for a proxy would get no way out. */
  if (strcmp (owner->egress ? owner->egress : "", harden_egress_name (d->egress)) != 0)
    return agentrt_error (err, 0, "linux.namespaces: the network namespace of "
                          "container `%s` has egress `%s`, and this "
                          "container asks for %s (run.agentrt.egress)",
                          owner->id, owner->egress ? owner->egress : "",
                          harden_egress_name (d->egress));
  if (d->egress == HARDEN_EGRESS_PROXY
      && strcmp (d->egress_allow ? d->egress_allow : "",
                 owner->egress_allow ? owner->egress_allow : "") != 0)
    return agentrt_error (err, 0, "run.agentrt.egress.allow: `%s` differs from "
                          "`%s` of container `%s`, whose network namespace "
                          "and egress proxy this container shares",
                          d->egress_allow ? d->egress_allow : "",
                          owner->egress_allow ? owner->egress_allow : "",
                          owner->id);
  d->net_facts.shared_agent_ns = true;
  change_addf (&result->changes, CHANGE_EGRESS, "the namespace is that of "
               "another agentrt container (a pod's)",
               "network namespace and egress proxy of container `%s` shared",
               owner->id);
  return 0;
}
