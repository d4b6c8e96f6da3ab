/* The hardening step (see harden.h): annotations first (every error before
 * the config is touched), then mounts, process, root filesystem, tmpfs,
 * limits and namespaces, and the directives the runtime enforces. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "annotations.h"
#include "binds.h"
#include "credentials.h"
#include "env_scrub.h"
#include "fs_mounts.h"
#include "harden.h"
#include "kernel_surface.h"
#include "privileges.h"
#include "tmpfs.h"
#include "unprivileged.h"

static const char *const proxy_vars[][2] = {
  { "HTTP_PROXY", HARDEN_PROXY_HTTP_URL },
  { "HTTPS_PROXY", HARDEN_PROXY_HTTP_URL },
  { "http_proxy", HARDEN_PROXY_HTTP_URL },
  { "https_proxy", HARDEN_PROXY_HTTP_URL },
  { "ALL_PROXY", HARDEN_PROXY_SOCKS_URL },
  { "all_proxy", HARDEN_PROXY_SOCKS_URL },
  { "NO_PROXY", HARDEN_NO_PROXY },
  { "no_proxy", HARDEN_NO_PROXY },
};

const char *
harden_rootfs_name (enum harden_rootfs mode)
{
  switch (mode)
    {
    case HARDEN_ROOTFS_EPHEMERAL:
      return "ephemeral";
    case HARDEN_ROOTFS_WRITABLE:
      return "writable";
    case HARDEN_ROOTFS_READONLY:
      break;
    }
  return "readonly";
}

const char *
harden_egress_name (enum harden_egress mode)
{
  return mode == HARDEN_EGRESS_NONE ? "none" : "proxy";
}

/* The stand-ins of the container's credentials, and the CA bundle that
 * makes the sidecar's certificates for their hosts trusted. */
static void
harden_process_credentials (struct oci_process *process,
                            const struct agent_policy *policy,
                            const struct harden_directives *d,
                            struct change_list *changes)
{
  static const char *const ca_vars[] = HARDEN_CA_VARS;
  bool changed = false;

  for (size_t i = 0; i < d->n_credentials; i++)
    {
      const struct harden_credential *c = &d->credentials[i];
      cleanup_free char *hosts = NULL;
      cleanup_free char *why = NULL;

      for (size_t k = 0; k < policy->n_inject && hosts == NULL; k++)
        if (strcmp (policy->inject[k].name, c->name) == 0)
          hosts = str_list_join (&policy->inject[k].hosts, ", ");
      why = xasprintf ("a stand-in for the credential %s: the sidecar puts the "
                       "value in for %s only", c->name, hosts ? hosts : "(none)");
      env_set (&process->env, c->env, c->standin, why, changes);
    }
  if (d->n_credentials == 0)
    return;
  for (size_t i = 0; i < sizeof (ca_vars) / sizeof (*ca_vars); i++)
    changed |= env_set (&process->env, ca_vars[i], HARDEN_CA_BUNDLE, NULL, NULL);
  if (changed)
    change_add (changes, CHANGE_ENV_SET, "SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, "
                "REQUESTS_CA_BUNDLE, GIT_SSL_CAINFO, CURL_CA_BUNDLE",
                "name " HARDEN_CA_BUNDLE ": the image's CAs and the sidecar's "
                "CA of this container (it speaks TLS to the agent for the "
                "credentials' hosts)");
}

void
harden_process (struct oci_process *process, const struct agent_policy *policy,
                const struct harden_directives *d, struct change_list *changes)
{
  env_scrub (&process->env, &d->env_keep, policy, changes);
  /* runc would look HOME up in the image's /etc/passwd; this step reads no
   * file, and a HOME on the read-only root would break ordinary tools. */
  if (env_get (&process->env, "HOME") == NULL)
    env_set (&process->env, "HOME", process->user.uid == 0 ? "/root" : "/tmp",
             "HOME was not set", changes);
  if (d->egress == HARDEN_EGRESS_PROXY)
    {
      bool changed = false;
      for (size_t i = 0; i < sizeof (proxy_vars) / sizeof (proxy_vars[0]); i++)
        changed |= env_set (&process->env, proxy_vars[i][0], proxy_vars[i][1],
                            NULL, NULL);
      if (changed)
        change_add (changes, CHANGE_ENV_SET, "HTTP_PROXY, HTTPS_PROXY, "
                    "ALL_PROXY, NO_PROXY and their lowercase forms",
                    "egress goes through the sidecar proxy "
                    HARDEN_PROXY_HTTP_URL " and " HARDEN_PROXY_SOCKS_URL);
    }
  harden_process_credentials (process, policy, d, changes);
  privileges_harden (process, policy, changes);
}

/* The bundle's own read-only root wins over an annotation asking more. */
static enum harden_rootfs
harden_rootfs (struct oci_config *c, enum harden_rootfs asked,
               const struct agent_policy *policy, struct change_list *changes)
{
  char size[POLICY_SIZE_STR_LEN];

  if (asked != HARDEN_ROOTFS_READONLY && c->root.readonly)
    {
      change_addf (changes, CHANGE_ROOTFS, "the bundle asks for a read-only "
                   "root", "run.agentrt.rootfs=%s not applied",
                   harden_rootfs_name (asked));
      return HARDEN_ROOTFS_READONLY;
    }
  switch (asked)
    {
    case HARDEN_ROOTFS_READONLY:
      if (!c->root.readonly)
        change_add (changes, CHANGE_ROOTFS, "root.readonly=true",
                    "the image is never written");
      c->root.readonly = true;
      break;
    case HARDEN_ROOTFS_EPHEMERAL:
      change_addf (changes, CHANGE_ROOTFS, "run.agentrt.rootfs=ephemeral",
                   "ephemeral overlay on a %s tmpfs, discarded at delete",
                   policy_format_size (policy->ephemeral_size, size));
      break;
    case HARDEN_ROOTFS_WRITABLE:
      change_add (changes, CHANGE_ROOTFS, "writable root filesystem",
                  "run.agentrt.rootfs=writable, allowed by the policy "
                  "(rootfs.allowWritable)");
      break;
    }
  return asked;
}

static struct oci_resources *
resources (struct oci_config *c)
{
  if (c->linux_cfg == NULL)
    c->linux_cfg = xzalloc (sizeof (*c->linux_cfg));
  if (c->linux_cfg->resources == NULL)
    c->linux_cfg->resources = xzalloc (sizeof (*c->linux_cfg->resources));
  return c->linux_cfg->resources;
}

/* cgroup v2 "unified" entries that would lift the limits set below. */
static void
drop_unlimited_unified (struct oci_resources *r, struct change_list *changes)
{
  static const char *const keys[] = { "pids.max", "memory.max",
                                      "memory.swap.max" };
  size_t out = 0;

  for (size_t i = 0; i < r->unified.len; i++)
    {
      struct kv *kv = &r->unified.items[i];
      bool lifts = false;
      for (size_t k = 0; k < sizeof (keys) / sizeof (*keys); k++)
        lifts |= strcmp (kv->key, keys[k]) == 0 && strcmp (kv->value, "max") == 0;
      if (!lifts)
        {
          r->unified.items[out++] = *kv;
          continue;
        }
      change_addf (changes, CHANGE_LIMIT, "no unlimited pids, memory or swap",
                   "linux.resources.unified[%s]=max removed", kv->key);
      free (kv->key);
      free (kv->value);
    }
  r->unified.len = out;
}

/* Defaults where the bundle sets no limit (<= 0 means unlimited); a
 * bundle's own limit is kept. */
static void
harden_limits (struct oci_config *c, const struct agent_policy *policy,
               struct change_list *changes)
{
  struct oci_resources *r = resources (c);
  char size[POLICY_SIZE_STR_LEN];

  drop_unlimited_unified (r, changes);

  if (r->pids == NULL)
    r->pids = xzalloc (sizeof (*r->pids));
  if (!r->pids->has_limit || r->pids->limit <= 0)
    {
      r->pids->has_limit = true;
      r->pids->limit = policy->pids_limit;
      change_addf (changes, CHANGE_LIMIT, "the bundle set none",
                   "pids.limit=%lld", (long long) policy->pids_limit);
    }
  if (r->memory == NULL)
    r->memory = xzalloc (sizeof (*r->memory));
  if (!r->memory->has_limit || r->memory->limit <= 0)
    {
      r->memory->has_limit = r->memory->has_swap = true;
      r->memory->limit = r->memory->swap = policy->memory_limit;
      change_addf (changes, CHANGE_LIMIT, "the bundle set none",
                   "memory.limit=%s, memory.swap=%s (no swap)",
                   policy_format_size ((uint64_t) policy->memory_limit, size),
                   size);
    }
}

static const struct
{
  enum oci_namespace_type type;
  const char *why;
} required_ns[] = {
  { OCI_NS_NETWORK, "the agent never shares the host's network" },
  { OCI_NS_PID, "the agent never sees host processes (/proc/PID/environ)" },
  { OCI_NS_IPC, "the agent never shares the host's IPC objects" },
  { OCI_NS_MOUNT, "mounts need their own namespace" },
  { OCI_NS_UTS, "the agent never shares the host's hostname" },
  { OCI_NS_CGROUP, "the agent sees its own cgroup as the root, not the "
                   "host's tree" },
};

/* A namespace joined by path must not be the host's (the runtime's own or
 * pid 1's): that would undo the namespace.  The network namespace is the
 * exception: the egress sidecar's outside may be the host's (the agent
 * gets a new one). */
static int
refuse_host_namespaces (const struct oci_config *c,
                        const struct host_view *host, agentrt_error_t *err)
{
  const struct oci_linux *l = c->linux_cfg;

  for (size_t i = 0; l && i < l->n_namespaces; i++)
    {
      const struct oci_namespace *ns = &l->namespaces[i];
      bool is_host = false;
      if (ns->path == NULL || ns->path[0] == '\0'
          || ns->type == OCI_NS_NETWORK)
        continue;
      if (host->ns_is_host (host->ctx, ns->path, ns->type, &is_host, err) < 0)
        return agentrt_error_wrap (err, "linux.namespaces[%zu].path", i);
      if (is_host)
        return agentrt_error (err, EPERM, "linux.namespaces[%zu].path `%s`: "
                              "the host's %s namespace (a hardened container "
                              "never joins one)", i, ns->path,
                              oci_namespace_type_name (ns->type));
    }
  return 0;
}

/* Adds the namespaces the bundle left to the host's.  Returns what the
 * bundle asked of the network namespace (host: one was added). */
static enum net_bundle_ns
harden_namespaces (struct oci_config *c, struct change_list *changes)
{
  enum net_bundle_ns bundle_ns = net_bundle_ns_of (c);
  struct oci_linux *l;

  if (c->linux_cfg == NULL)
    c->linux_cfg = xzalloc (sizeof (*c->linux_cfg));
  l = c->linux_cfg;
  for (size_t i = 0; i < sizeof (required_ns) / sizeof (required_ns[0]); i++)
    {
      if (oci_config_namespace (c, required_ns[i].type))
        continue;
      l->namespaces = xreallocarray (l->namespaces, l->n_namespaces + 1,
                                     sizeof (*l->namespaces));
      l->namespaces[l->n_namespaces++]
          = (struct oci_namespace){ required_ns[i].type, NULL };
      change_addf (changes, CHANGE_NAMESPACE, required_ns[i].why,
                   "%s (new)", oci_namespace_type_name (required_ns[i].type));
    }
  return bundle_ns;
}

/* The facts of the network plan the bundle and the policy give, and the
 * plan they make (the runtime adds its own facts and decides again). */
static void
harden_network (const struct oci_config *c, enum net_bundle_ns bundle_ns,
                const struct agent_policy *policy, struct harden_directives *d,
                struct change_list *changes)
{
  struct net_plan plan;

  d->net_facts = (struct net_inputs){
    .hardened = true,
    .bundle_ns = bundle_ns,
    .hooks = c->hooks.prestart.len > 0 || c->hooks.create_runtime.len > 0
             || c->hooks.create_container.len > 0,
    .engine = kv_list_get (&c->annotations, "io.container.manager") != NULL,
    .egress = d->egress == HARDEN_EGRESS_PROXY,
    .userns = oci_config_namespace (c, OCI_NS_USER) != NULL,
    .uplink = policy->egress_uplink,
    .transparent = policy->egress_transparent,
  };
  plan = net_plan_decide (&d->net_facts);
  if (plan.transparent)
    change_add (changes, CHANGE_EGRESS, "every TCP connection and DNS query "
                "of the agent goes to the sidecar (default routes to lo; "
                "nftables: TCP to 127.0.0.1:15001, port 53 to the DNS stub "
                "on 127.0.0.1:53, other UDP and ICMP dropped; "
                "/etc/resolv.conf names the stub)",
                "programs that ignore proxy variables are judged by the "
                "allowlist too (egress.transparent)");
  else if (plan.listeners)
    change_add (changes, CHANGE_EGRESS, "proxy only: a program that ignores "
                "the proxy variables reaches nothing",
                "egress.transparent is false");
  if (bundle_ns == NET_BUNDLE_NEW && plan.outside == NET_OUTSIDE_RUNTIME)
    change_add (changes, CHANGE_EGRESS, "the sidecar connects out from the "
                "runtime's network namespace",
                policy->egress_uplink == NET_UPLINK_RUNTIME
                    ? "egress.uplink is runtime"
                    : "nothing configures the bundle's new network namespace "
                      "(egress.uplink auto)");
}

static void
fill_directives (struct harden_directives *d, struct harden_request *req,
                 const struct agent_policy *policy)
{
  d->ephemeral_size = policy->ephemeral_size;
  d->seccomp_profile = xstrdup (policy->seccomp_profile);
  d->lifetime = req->lifetime;
  d->egress = req->egress;
  d->egress_allow = steal_pointer (&req->egress_allow);
  d->egress_allow_broad = policy->allow_broad_egress;
  d->env_keep = req->env_keep;
  req->env_keep = (struct str_list){ NULL, 0 };
  d->sidecar_uid = policy->sidecar_uid;
  d->sidecar_gid = policy->sidecar_gid;
  d->sidecar_busy_poll_us = policy->sidecar_busy_poll_us;
  d->audit_dir = xstrdup (policy->audit_dir);
}

/* The credentials the annotation selected, with the runtime's stand-ins;
 * they need the sidecar. */
static int
fill_credentials (struct harden_directives *d, const struct harden_request *req,
                  const struct agent_policy *policy, const struct host_view *host,
                  agentrt_error_t *err)
{
  if (req->n_credentials == 0)
    return 0;
  if (d->egress != HARDEN_EGRESS_PROXY)
    return agentrt_error (err, EINVAL, "annotation " ANNOTATION_CREDENTIALS ": "
                          "credentials are added by the egress sidecar, and "
                          ANNOTATION_EGRESS " is none");
  if (host->standins == NULL || host->standins->len < policy->n_inject)
    return agentrt_error (err, EINVAL, "annotation " ANNOTATION_CREDENTIALS ": "
                          "no stand-ins were made for the credentials");
  d->credentials = xzalloc (req->n_credentials * sizeof (*d->credentials));
  for (size_t i = 0; i < req->n_credentials; i++)
    {
      const struct credential_decl *decl = &policy->inject[req->credentials[i]];
      const char *standin = host->standins->items[req->credentials[i]];

      if (!credential_standin_valid (standin))
        return agentrt_error (err, EINVAL, "credential %s: a malformed stand-in",
                              decl->name);
      d->credentials[i].name = xstrdup (decl->name);
      d->credentials[i].env = xstrdup (decl->env ? decl->env : decl->name);
      d->credentials[i].standin = xstrdup (standin);
      d->n_credentials++;
    }
  return 0;
}

/* Changes that only state the directives, for the audit trail. */
static void
record_directives (const struct harden_directives *d,
                   const struct harden_request *req,
                   const struct agent_policy *policy,
                   struct change_list *changes)
{
  if (d->seccomp_profile)
    change_add (changes, CHANGE_SECCOMP, d->seccomp_profile,
                "agent profile stacked on the bundle's own filter");
  else
    change_add (changes, CHANGE_SECCOMP, "no agent profile",
                "disabled by the policy (seccomp.profile is null)");
  change_addf (changes, CHANGE_LIFETIME,
               req->has_timeout ? "run.agentrt.timeout" : "policy "
               "limits.lifetime", "%llus", (unsigned long long) d->lifetime);
  if (!policy->protect_persistence)
    change_add (changes, CHANGE_PATH_READONLY, "none in writable binds",
                "the policy's binds.protectPersistence is false: what the "
                "host runs later may be changed by the agent");
  if (d->egress == HARDEN_EGRESS_NONE)
    change_add (changes, CHANGE_EGRESS, "none (`lo` only)",
                "run.agentrt.egress=none");
  else
    change_addf (changes, CHANGE_EGRESS, "sidecar proxy on 127.0.0.1:3128 "
                 "and :1080", "proxy, allow: %s",
                 d->egress_allow[0] ? d->egress_allow : "(nothing)");
}

int
harden (struct oci_config *config, const struct agent_policy *policy,
        const struct kv_list *annotations, const struct host_view *host,
        struct harden_result *result, agentrt_error_t *err)
{
  struct harden_request req;
  struct harden_result r;
  enum net_bundle_ns bundle_ns;

  memset (result, 0, sizeof (*result));
  memset (&r, 0, sizeof (r));
  if (annotations_parse (annotations, policy, &req, err) < 0)
    return -1;
  if (refuse_host_namespaces (config, host, err) < 0)
    {
      harden_request_release (&req);
      return -1;
    }
  fill_directives (&r.directives, &req, policy);
  if (fill_credentials (&r.directives, &req, policy, host, err) < 0)
    {
      harden_request_release (&req);
      harden_result_release (&r);
      return -1;
    }
  if (binds_harden (config, policy, host, &r.directives, &r.changes, err) < 0)
    {
      harden_request_release (&req);
      harden_result_release (&r);
      return -1;
    }
  if (config->process)
    harden_process (config->process, policy, &r.directives, &r.changes);
  r.directives.rootfs = harden_rootfs (config, req.rootfs, policy, &r.changes);
  tmpfs_harden (config, policy, r.directives.rootfs, &r.changes);
  harden_limits (config, policy, &r.changes);
  if (policy->test_kernel_surface_off)
    change_add (&r.changes, CHANGE_KERNEL_PATH, "kernel interfaces and "
                "devices as the bundle has them", "test build: "
                "AGENTRT_FAULT_LAYER_OFF=kernel-surface");
  else
    {
      kernel_surface_harden (config, policy, &r.changes);
      fs_mounts_harden (config, &r.changes);
    }
  if (host->runtime
      && unprivileged_limits (config, policy, host->runtime, &r.changes, err) < 0)
    {
      harden_request_release (&req);
      harden_result_release (&r);
      return -1;
    }
  if (host->runtime)
    unprivileged_sidecar (host->runtime, &r.directives.sidecar_uid,
                          &r.directives.sidecar_gid, &r.changes);
  bundle_ns = harden_namespaces (config, &r.changes);
  if (userns_auto_harden (config, policy, host->runtime != NULL,
                          &r.directives.userns, &r.changes, err) < 0)
    {
      harden_request_release (&req);
      harden_result_release (&r);
      return -1;
    }
  harden_network (config, bundle_ns, policy, &r.directives, &r.changes);
  egress_ask_harden (&policy->egress_ask, req.ask_off,
                     r.directives.egress == HARDEN_EGRESS_PROXY,
                     &r.directives.egress_ask, &r.changes);
  record_directives (&r.directives, &req, policy, &r.changes);
  harden_request_release (&req);
  *result = r;
  return 0;
}

void
harden_result_release (struct harden_result *result)
{
  harden_directives_release (&result->directives);
  change_list_release (&result->changes);
  memset (result, 0, sizeof (*result));
}

void
harden_directives_release (struct harden_directives *d)
{
  free (d->seccomp_profile);
  free (d->egress_allow);
  egress_ask_release (&d->egress_ask);
  str_list_free (&d->env_keep);
  for (size_t i = 0; i < d->n_credentials; i++)
    {
      free (d->credentials[i].name);
      free (d->credentials[i].env);
      free (d->credentials[i].standin);
    }
  free (d->credentials);
  free (d->audit_dir);
  str_list_free (&d->required_masks);
  str_list_free (&d->protected_paths);
  str_list_free (&d->protected_dirs);
  memset (d, 0, sizeof (*d));
}

static void
write_list (struct json_writer *w, const char *key, const struct str_list *l)
{
  json_key (w, key);
  json_begin_array (w);
  for (size_t i = 0; i < l->len; i++)
    json_string (w, l->items[i]);
  json_end_array (w);
}

void
harden_directives_write_json (const struct harden_directives *d,
                              struct json_writer *w)
{
  json_begin_object (w);
  json_kv_string (w, "rootfs", harden_rootfs_name (d->rootfs));
  if (d->rootfs == HARDEN_ROOTFS_EPHEMERAL)
    json_kv_uint (w, "ephemeralSize", d->ephemeral_size);
  json_kv_string (w, "seccompProfile", d->seccomp_profile);
  json_kv_uint (w, "lifetime", d->lifetime);
  json_kv_string (w, "egress", harden_egress_name (d->egress));
  json_kv_string (w, "egressAllow", d->egress_allow);
  json_kv_bool (w, "egressAllowBroad", d->egress_allow_broad);
  egress_ask_write_json (&d->egress_ask, "egressAsk", w);
  net_plan_write_json (&d->net_facts, w);
  json_kv_string (w, "userns", harden_userns_name (d->userns));
  write_list (w, "envKeep", &d->env_keep);
  json_key (w, "credentials");
  json_begin_array (w);
  for (size_t i = 0; i < d->n_credentials; i++)
    {
      json_begin_object (w);
      json_kv_string (w, "name", d->credentials[i].name);
      json_kv_string (w, "env", d->credentials[i].env);
      json_kv_string (w, "standin", d->credentials[i].standin);
      json_end_object (w);
    }
  json_end_array (w);
  json_kv_uint (w, "sidecarUid", d->sidecar_uid);
  json_kv_uint (w, "sidecarGid", d->sidecar_gid);
  json_kv_uint (w, "sidecarBusyPollMicroseconds", d->sidecar_busy_poll_us);
  json_kv_string (w, "auditDir", d->audit_dir);
  write_list (w, "requiredMasks", &d->required_masks);
  write_list (w, "protectedPaths", &d->protected_paths);
  write_list (w, "protectedDirs", &d->protected_dirs);
  json_end_object (w);
}
