/* A runtime that is not root: limits it can and cannot enforce, device
 * rules, the sidecar's ids (see unprivileged.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "unprivileged.h"

enum group
{
  G_PIDS,
  G_MEMORY,
  G_CPU,
  G_BLKIO,
  G_HUGETLB,
  G_RDMA,
  G_NETWORK,
  G_UNIFIED,
  G_COUNT
};

static const char *const group_field[G_COUNT] = {
  "linux.resources.pids",   "linux.resources.memory",
  "linux.resources.cpu",    "linux.resources.blockIO",
  "linux.resources.hugepageLimits", "linux.resources.rdma",
  "linux.resources.network", "linux.resources.unified",
};

static bool
has_controller (const struct host_runtime *rt, const char *name, size_t len)
{
  if (!rt->cgroup)
    return false;
  for (size_t i = 0; i < rt->controllers.len; i++)
    if (strlen (rt->controllers.items[i]) == len
        && memcmp (rt->controllers.items[i], name, len) == 0)
      return true;
  return false;
}

#define HAS(rt, name) has_controller (rt, name, sizeof (name) - 1)

/* Whether group g is present in r and cannot be enforced. */
static bool
unenforceable (const struct oci_resources *r, enum group g,
               const struct host_runtime *rt)
{
  switch (g)
    {
    case G_PIDS:
      return r->pids && !HAS (rt, "pids");
    case G_MEMORY:
      return r->memory && !HAS (rt, "memory");
    case G_CPU:
      return r->cpu
             && (!HAS (rt, "cpu")
                 || ((r->cpu->cpus || r->cpu->mems) && !HAS (rt, "cpuset")));
    case G_BLKIO:
      return r->blkio && !HAS (rt, "io");
    case G_HUGETLB:
      return r->n_hugepage_limits > 0 && !HAS (rt, "hugetlb");
    case G_RDMA:
      return r->n_rdma > 0 && !HAS (rt, "rdma");
    case G_NETWORK:
      /* net_cls and net_prio exist on cgroup v1 only */
      return r->network != NULL;
    case G_UNIFIED:
      for (size_t i = 0; i < r->unified.len; i++)
        {
          const char *key = r->unified.items[i].key;
          size_t n = strcspn (key, ".");
          if (!rt->cgroup
              || (strncmp (key, "cgroup.", 7) != 0
                  && !has_controller (rt, key, n)))
            return true;
        }
      return false;
    case G_COUNT:
      break;
    }
  return false;
}

/* Moves group g of r into `to` (which is then freed with it). */
static void
take (struct oci_resources *r, enum group g, struct oci_resources *to)
{
  switch (g)
    {
    case G_PIDS:
      to->pids = steal_pointer (&r->pids);
      break;
    case G_MEMORY:
      to->memory = steal_pointer (&r->memory);
      break;
    case G_CPU:
      to->cpu = steal_pointer (&r->cpu);
      break;
    case G_BLKIO:
      to->blkio = steal_pointer (&r->blkio);
      break;
    case G_HUGETLB:
      to->hugepage_limits = steal_pointer (&r->hugepage_limits);
      to->n_hugepage_limits = r->n_hugepage_limits;
      r->n_hugepage_limits = 0;
      break;
    case G_RDMA:
      to->rdma = steal_pointer (&r->rdma);
      to->n_rdma = r->n_rdma;
      r->n_rdma = 0;
      break;
    case G_NETWORK:
      to->network = steal_pointer (&r->network);
      break;
    case G_UNIFIED:
      to->unified = r->unified;
      r->unified = (struct kv_list){ 0 };
      break;
    case G_COUNT:
      break;
    }
}

static const char *
why_not (const struct host_runtime *rt)
{
  return rt->cgroup_why ? rt->cgroup_why
                        : "the delegated cgroup lacks the controller";
}

int
unprivileged_limits (struct oci_config *config,
                     const struct agent_policy *policy,
                     const struct host_runtime *rt,
                     struct change_list *changes, agentrt_error_t *err)
{
  struct oci_resources *r = config->linux_cfg ? config->linux_cfg->resources
                                              : NULL;
  struct oci_resources *dropped;
  cleanup_free char *names = NULL;
  bool missing[G_COUNT] = { false };
  size_t n = 0;

  if (r == NULL)
    return 0;
  for (int g = 0; g < G_COUNT; g++)
    if ((missing[g] = unenforceable (r, (enum group) g, rt)))
      {
        char *more = xasprintf ("%s%s%s", names ? names : "", n ? ", " : "",
                                group_field[g]);
        free (names);
        names = more;
        n++;
      }
  if (n > 0 && policy->limits_unenforceable != POLICY_UNENFORCEABLE_ALLOW)
    {
      char who[96];
      if (rt->host_uid != rt->uid)
        snprintf (who, sizeof who, "uid %u of a user namespace (uid %u "
                  "outside it)", (unsigned) rt->uid, (unsigned) rt->host_uid);
      else
        snprintf (who, sizeof who, "uid %u", (unsigned) rt->uid);
      return agentrt_error (err, 0, "%s: cannot be enforced as %s: %s; the "
                            "policy's limits.unenforceable \"allow\" runs "
                            "containers without what cannot be enforced",
                            names, who, why_not (rt));
    }
  dropped = xzalloc (sizeof *dropped);
  for (int g = 0; g < G_COUNT; g++)
    if (missing[g])
      {
        take (r, (enum group) g, dropped);
        change_addf (changes, CHANGE_LIMIT, why_not (rt), "%s not enforced "
                     "(limits.unenforceable allow)", group_field[g]);
      }
  if (r->n_devices > 0)
    {
      dropped->devices = steal_pointer (&r->devices);
      dropped->n_devices = r->n_devices;
      r->n_devices = 0;
      change_add (changes, CHANGE_DEVICE, "linux.resources.devices not "
                  "applied", "a cgroup device program needs privileges this "
                  "user lacks; in the container's user namespace no device "
                  "node can be made, the host's are bound in with their "
                  "host permissions");
    }
  oci_resources_free (dropped);
  return 0;
}

void
unprivileged_sidecar (const struct host_runtime *rt, uint32_t *uid,
                      uint32_t *gid, struct change_list *changes)
{
  if (rt->switch_ids || (*uid == rt->uid && *gid == rt->gid))
    return;
  *uid = rt->uid;
  *gid = rt->gid;
  change_addf (changes, CHANGE_EGRESS, "the runtime is not root: it cannot "
               "switch the sidecar to sidecar.uid and sidecar.gid; no "
               "capabilities, Landlock and seccomp as always",
               "the sidecar runs as uid %u gid %u", (unsigned) rt->uid,
               (unsigned) rt->gid);
}
