/* The hardening step: config + admin policy + annotations + host view ->
 * hardened config + runtime directives + list of changes.  Pure: no I/O of
 * its own (host facts come through struct host_view), deterministic, and
 * idempotent (hardening a hardened config changes nothing more).
 *
 * Everything expressible in OCI terms is done by editing the config (env,
 * mounts, linux.maskedPaths, root.readonly, capabilities,
 * noNewPrivileges, resources, namespaces); the directives are what the
 * runtime must enforce beyond it. */
#ifndef AGENTRT_POLICY_HARDEN_H
#define AGENTRT_POLICY_HARDEN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/config.h"
#include "oci/json_writer.h"
#include "changes.h"
#include "host_view.h"
#include "policy.h"
#include "userns_auto.h"

/* Where the egress proxy listens inside the agent's network namespace, as
 * the proxy variables the agent's processes get. */
#define HARDEN_PROXY_HTTP_URL "http://127.0.0.1:3128"
#define HARDEN_PROXY_SOCKS_URL "socks5h://127.0.0.1:1080"
#define HARDEN_NO_PROXY "localhost,127.0.0.1,::1"

/* With injected credentials: the CA bundle the agent's TLS clients trust
 * (the image's bundle, then the sidecar's CA for this container), bound
 * read-only by the runtime, and the variables that name it. */
#define HARDEN_CA_BUNDLE "/run/agentrt/ca-bundle.pem"
#define HARDEN_CA_VARS                                                          \
  { "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO", \
    "CURL_CA_BUNDLE" }

/* A credential given to the container (run.agentrt.credentials): its
 * name in the policy's credentials.inject, and the stand-in the agent
 * finds in the variable env. */
struct harden_credential
{
  char *name;
  char *env;
  char *standin;
};

enum harden_rootfs
{
  HARDEN_ROOTFS_READONLY,  /* root.readonly = true */
  HARDEN_ROOTFS_EPHEMERAL, /* overlay: lower = root.path, upper and work on a
                              tmpfs of ephemeral_size, discarded at delete;
                              root.readonly = false */
  HARDEN_ROOTFS_WRITABLE,  /* the image itself, writable (policy allowed) */
};

enum harden_egress
{
  HARDEN_EGRESS_PROXY, /* sidecar proxy, allowlist egress_allow */
  HARDEN_EGRESS_NONE,  /* no sidecar: `lo` only */
};

struct harden_directives
{
  enum harden_rootfs rootfs;
  uint64_t ephemeral_size;  /* bytes, HARDEN_ROOTFS_EPHEMERAL only */

  /* Agent seccomp profile (OCI JSON) to install in addition to the
   * bundle's own filter.  NULL only when the policy disabled it. */
  char *seccomp_profile;

  uint64_t lifetime;        /* wall-clock seconds: kill, record "limit" */

  enum harden_egress egress;
  /* Normalised allowlist for the sidecar (comma list, "" = deny all), to
   * be parsed with allowlist_parse (spec, egress_allow_broad). */
  char *egress_allow;
  bool egress_allow_broad;
  /* Asking the approver (socket NULL: never; runtime/policy/egress_ask.h). */
  struct egress_ask_policy egress_ask;
  /* The network: the facts its plan is decided from (the bundle's
   * namespace as the bundle asked, before the hardening added one; its
   * hooks; egress; the policy's uplink), completed by the runtime (a pod's
   * shared namespace, `run`'s own monitor).  The plan is never stored: it
   * is net_plan_decide (&net_facts) (runtime/policy/net_plan.h). */
  struct net_inputs net_facts;

  /* The user namespace (runtime/policy/userns_auto.h): with
   * HARDEN_USERNS_AUTO the runtime allocates a range and maps it
   * (userns_auto_map), and idmaps the rootfs and the binds. */
  enum harden_userns userns;

  /* Variable names let through scrubbing (run.agentrt.env.keep): exec'd
   * processes are scrubbed with the same list (harden_process). */
  struct str_list env_keep;

  /* Credentials the sidecar injects (none without the annotation); their
   * stand-ins are set in every process's env (harden_process). */
  struct harden_credential *credentials;
  size_t n_credentials;

  uint32_t sidecar_uid;
  uint32_t sidecar_gid;
  uint32_t sidecar_busy_poll_us;
  char *audit_dir;

  /* Masks of linux.maskedPaths that must be applied: what the bind scan
   * found on the host (a credential, a socket).  A container path that is
   * missing or cannot be masked fails the create, never a silent skip. */
  struct str_list required_masks;
  /* Container paths made read-only after the masks (what the host runs
   * later: git config and hooks in writable binds); they must exist.  The
   * second list's are directories made empty first when missing. */
  struct str_list protected_paths;
  struct str_list protected_dirs;
};

struct harden_result
{
  struct harden_directives directives;
  struct change_list changes;
};

/* Hardens `config` in place.  `annotations` are the container's (normally
 * &config->annotations): unknown run.agentrt.* keys, bad values and
 * loosening beyond the policy fail with an error naming the annotation
 * (and the policy field), before the config is touched.  A host view
 * failure fails too, naming the mount; the config is then partly
 * hardened and must be discarded.  *result is filled on success and must
 * be released with harden_result_release (it is left empty on failure). */
int harden (struct oci_config *config, const struct agent_policy *policy,
            const struct kv_list *annotations, const struct host_view *host,
            struct harden_result *result, agentrt_error_t *err);

void harden_result_release (struct harden_result *result);
void harden_directives_release (struct harden_directives *d);

/* The part of the hardening that applies to a process: for `exec`'d
 * processes with the directives of their container.  Scrubs the
 * environment (keeping d->env_keep), sets the proxy variables when egress
 * is proxy, intersects every capability set with the policy's safe set,
 * clears the ambient and inheritable sets, forces noNewPrivileges. */
void harden_process (struct oci_process *process,
                     const struct agent_policy *policy,
                     const struct harden_directives *d,
                     struct change_list *changes);

/* "readonly", "ephemeral", "writable"; "proxy", "none". */
const char *harden_rootfs_name (enum harden_rootfs mode);
const char *harden_egress_name (enum harden_egress mode);

/* Writes the directives as a JSON object (a value). */
void harden_directives_write_json (const struct harden_directives *d,
                                   struct json_writer *w);

#endif
