/* A user's policy file may only tighten the admin's (see policy_layer.h):
 * one rule per field, in the order of docs/policy.md's table. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "egress_policy.h"
#include "policy_layer.h"

#define ONLY_TIGHTEN "a user's policy may only tighten the admin's"

static int
looser (agentrt_error_t *err, const char *origin, const char *field,
        const char *what)
{
  return agentrt_error (err, 0, "%s: %s: %s (" ONLY_TIGHTEN ")", origin,
                        field, what);
}

/* A switch that may only go from true (looser) to false. */
static int
check_allow (bool admin, bool merged, const char *origin, const char *field,
             agentrt_error_t *err)
{
  if (merged && !admin)
    return looser (err, origin, field, "true where the admin policy says "
                   "false");
  return 0;
}

/* A size or a count whose larger value is looser. */
static int
check_at_most (uint64_t admin, uint64_t merged, const char *origin,
               const char *field, agentrt_error_t *err)
{
  char what[96];

  if (merged <= admin)
    return 0;
  snprintf (what, sizeof what, "%llu is more than the admin policy's %llu",
            (unsigned long long) merged, (unsigned long long) admin);
  return looser (err, origin, field, what);
}

/* ... whose smaller value is looser (how deep a scan reads). */
static int
check_at_least (uint64_t admin, uint64_t merged, const char *origin,
                const char *field, agentrt_error_t *err)
{
  char what[96];

  if (merged >= admin)
    return 0;
  snprintf (what, sizeof what, "%llu is less than the admin policy's %llu",
            (unsigned long long) merged, (unsigned long long) admin);
  return looser (err, origin, field, what);
}

/* Every item of `small` is in `big`. */
static int
check_subset (const struct str_list *small, const struct str_list *big,
              const char *origin, const char *field, agentrt_error_t *err)
{
  char what[320];

  for (size_t i = 0; i < small->len; i++)
    if (!str_list_contains (big, small->items[i]))
      {
        snprintf (what, sizeof what, "`%.200s` is not in the admin policy's "
                  "list", small->items[i]);
        return looser (err, origin, field, what);
      }
  return 0;
}

static int
check_same_string (const char *admin, const char *merged, const char *origin,
                   const char *field, agentrt_error_t *err)
{
  char what[320];

  if ((admin == NULL && merged == NULL)
      || (admin && merged && strcmp (admin, merged) == 0))
    return 0;
  snprintf (what, sizeof what, "only the admin policy chooses it (it says "
            "%.240s)", admin ? admin : "null");
  return looser (err, origin, field, what);
}

static int
check_files (const struct agent_policy *a, const struct agent_policy *m,
             const char *origin, agentrt_error_t *err)
{
  if (a->enforce && !m->enforce)
    return looser (err, origin, "hardening", "\"off\" where the admin "
                   "policy enforces it");
  if (check_allow (a->allow_ephemeral_rootfs, m->allow_ephemeral_rootfs,
                   origin, "rootfs.allowEphemeral", err) < 0
      || check_allow (a->allow_writable_rootfs, m->allow_writable_rootfs,
                      origin, "rootfs.allowWritable", err) < 0
      || check_at_most (a->ephemeral_size, m->ephemeral_size, origin,
                        "rootfs.ephemeralSize", err) < 0
      || check_at_most (a->tmp_size, m->tmp_size, origin, "tmpfs.tmp", err) < 0
      || check_at_most (a->run_size, m->run_size, origin, "tmpfs.run", err) < 0
      || check_at_most (a->shm_size, m->shm_size, origin, "tmpfs.shm", err) < 0
      || check_at_most (a->home_size, m->home_size, origin, "tmpfs.home", err)
             < 0
      || check_allow (a->allow_env_keep, m->allow_env_keep, origin,
                      "env.allowKeep", err) < 0
      || check_subset (&a->extra_secret_env, &m->extra_secret_env, origin,
                       "env.extraSecretPatterns (admin entries kept)", err) < 0
      || check_subset (&a->credential_paths, &m->credential_paths, origin,
                       "credentials.extraPaths (admin entries kept)", err) < 0
      || check_subset (&a->socket_paths, &m->socket_paths, origin,
                       "sockets.extraPaths (admin entries kept)", err) < 0
      /* binds.scanEntries is the user's: past it the create fails, the
       * scan never reads less */
      || check_at_least (a->bind_scan_depth, m->bind_scan_depth, origin,
                         "binds.scanDepth", err) < 0)
    return -1;
  if (a->protect_persistence && !m->protect_persistence)
    return looser (err, origin, "binds.protectPersistence", "false where the "
                   "admin policy says true");
  if (check_subset (&m->allowed_devices, &a->allowed_devices, origin,
                    "devices.allow", err) < 0
      || check_subset (&m->safe_capabilities, &a->safe_capabilities, origin,
                       "capabilities.safe", err) < 0)
    return -1;
  return 0;
}

static int
check_limits (const struct agent_policy *a, const struct agent_policy *m,
              const char *origin, agentrt_error_t *err)
{
  if (check_at_most ((uint64_t) a->pids_limit, (uint64_t) m->pids_limit,
                     origin, "limits.pids", err) < 0
      || check_at_most ((uint64_t) a->memory_limit, (uint64_t) m->memory_limit,
                        origin, "limits.memory", err) < 0
      || check_at_most (a->lifetime, m->lifetime, origin, "limits.lifetime",
                        err) < 0
      || check_at_most (a->max_lifetime, m->max_lifetime, origin,
                        "limits.maxLifetime", err) < 0)
    return -1;
  if (m->limits_unenforceable == POLICY_UNENFORCEABLE_ALLOW
      && a->limits_unenforceable != POLICY_UNENFORCEABLE_ALLOW)
    return looser (err, origin, "limits.unenforceable", "\"allow\" where the "
                   "admin policy says \"fail\"");
  return 0;
}

static int
check_egress (const struct agent_policy *a, const struct agent_policy *m,
              const char *origin, agentrt_error_t *err)
{
  cleanup_free char *bad = NULL;
  int r;

  if (check_subset (&m->egress_allow, &a->egress_allow, origin, "egress.allow",
                    err) < 0
      || check_allow (a->allow_broad_egress, m->allow_broad_egress, origin,
                      "egress.allowBroad", err) < 0
      || check_same_string (a->public_suffix_list, m->public_suffix_list,
                            origin, "egress.publicSuffixList", err) < 0
      || check_same_string (net_uplink_name (a->egress_uplink),
                            net_uplink_name (m->egress_uplink), origin,
                            "egress.uplink", err) < 0
      /* false: a program that ignores the proxy variables reaches nothing */
      || check_allow (a->egress_transparent, m->egress_transparent, origin,
                      "egress.transparent", err) < 0
      /* off (null) tightens; on, or another approver, loosens */
      || (m->egress_ask.socket
          && check_same_string (a->egress_ask.socket, m->egress_ask.socket, origin,
                                "egress.ask", err) < 0))
    return -1;
  r = egress_policy_ceiling_within (&m->egress_ceiling, &a->egress_ceiling,
                                    &bad, err);
  if (r < 0)
    return agentrt_error_wrap (err, "%s: egress.ceiling", origin);
  if (r > 0)
    {
      char what[320];
      snprintf (what, sizeof what, "`%.200s` is outside the admin policy's "
                "ceiling", bad);
      return looser (err, origin, "egress.ceiling", what);
    }
  return 0;
}

/* Only the admin declares credentials: a user's file may keep or drop
 * the admin's, never add or change one, nor choose the trust store. */
static int
check_credentials (const struct agent_policy *a, const struct agent_policy *m,
                   const char *origin, agentrt_error_t *err)
{
  char what[160];

  for (size_t i = 0; i < m->n_inject; i++)
    {
      size_t k = 0;
      while (k < a->n_inject && !credential_decl_equal (&a->inject[k], &m->inject[i]))
        k++;
      if (k == a->n_inject)
        {
          snprintf (what, sizeof what, "`%.64s` is not declared so by the admin policy",
                    m->inject[i].name);
          return looser (err, origin, "credentials.inject", what);
        }
    }
  return check_same_string (a->trust_store, m->trust_store, origin,
                            "credentials.trustStore", err);
}

/* The user namespace: the user may not turn it off, nor choose the ids
 * (the ranges are shared by every user of the host). */
static int
check_userns (const struct agent_policy *a, const struct agent_policy *m,
              const char *origin, agentrt_error_t *err)
{
  if (m->userns_mode == POLICY_USERNS_OFF && a->userns_mode != POLICY_USERNS_OFF)
    return looser (err, origin, "userns.mode", "\"off\" where the admin "
                   "policy says \"auto\"");
  if (check_same_string (a->userns_subid_user, m->userns_subid_user, origin,
                         "userns.subidUser", err) < 0)
    return -1;
  if (a->userns_has_pool != m->userns_has_pool
      || a->userns_pool_uid != m->userns_pool_uid
      || a->userns_pool_gid != m->userns_pool_gid
      || a->userns_pool_size != m->userns_pool_size)
    return looser (err, origin, "userns.pool", "only the admin policy "
                   "chooses the host ids of user namespaces");
  return 0;
}

int
policy_layer_check (const struct agent_policy *admin,
                    const struct agent_policy *merged, const char *origin,
                    agentrt_error_t *err)
{
  if (check_files (admin, merged, origin, err) < 0
      || check_limits (admin, merged, origin, err) < 0
      || check_egress (admin, merged, origin, err) < 0
      || check_credentials (admin, merged, origin, err) < 0
      || check_userns (admin, merged, origin, err) < 0
      || check_same_string (admin->seccomp_profile, merged->seccomp_profile,
                            origin, "seccomp.profile", err) < 0)
    return -1;
  if (admin->sidecar_uid != merged->sidecar_uid
      || admin->sidecar_gid != merged->sidecar_gid)
    return looser (err, origin, "sidecar.uid", "only the admin policy "
                   "chooses the sidecar's ids");
  return 0;
}
