/* The runtime side of the hardening step (see hardening.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/policy_file.h"
#include "runtime/egress/public_suffix.h"
#include "runtime/fault.h"
#include "runtime/hardening.h"
#include "runtime/log.h"
#include "runtime/policy/host_view.h"
#include "runtime/policy/policy_layer.h"
#include "runtime/policy/unprivileged.h"
#include "runtime/process_setup.h"
#include "runtime/rootless.h"
#include "runtime/seccomp/seccomp_cache.h"
#include "runtime/shared_netns.h"
#include "runtime/state_store.h"

/* A runtime that is not root: the built-in audit dir becomes the user's
 * state directory (one the admin's policy names stays), and the user's own
 * file is read over the admin's, which it may only tighten.  `policy`
 * holds the admin's. */
static int
load_user_layer (const struct runtime_context *rt, struct agent_policy *policy,
                 char **user_file, agentrt_error_t *err)
{
  cleanup_policy struct agent_policy admin = { 0 };
  cleanup_free char *path = NULL;
  bool found = false;

  if (strcmp (policy->audit_dir, POLICY_DEFAULT_AUDIT_DIR) == 0)
    {
      char *audit = rootless_audit_dir (err);
      if (audit == NULL)
        return -1;
      free (policy->audit_dir);
      policy->audit_dir = audit;
    }
  path = rootless_user_policy (err);
  if (path == NULL || policy_file_load_over (path, policy, &found, err) < 0)
    return agentrt_error_wrap (err, "user policy");
  if (!found)
    return 0;
  if (policy_file_load_default (rt->policy, &admin, err) < 0)
    return agentrt_error_wrap (err, "admin policy");
  if (policy_layer_check (&admin, policy, path, err) < 0)
    return -1;
  if (user_file)
    *user_file = steal_pointer (&path);
  return 0;
}

int
hardening_load_policy (const struct runtime_context *rt,
                       struct agent_policy *policy, char **user_file,
                       agentrt_error_t *err)
{
  if (user_file)
    *user_file = NULL;
  if (policy_file_load_default (rt->policy, policy, err) < 0)
    return agentrt_error_wrap (err, "admin policy");
  if (rootless_is () && load_user_layer (rt, policy, user_file, err) < 0)
    {
      policy_release (policy);
      return -1;
    }
  return 0;
}

/* A runtime that is not root: who it is, and whether the container can
 * have a cgroup of its own (judged where its cgroup would be made; the id
 * names only the last component, which is not judged).  With the
 * hardening off, the limits are still judged the same way (nothing is
 * recorded then: the trail says the hardening is off). */
static int
judge_rootless (const struct runtime_context *rt, struct oci_config *config,
                struct hardening *h, agentrt_error_t *err)
{
  struct cgroup_request probe = {
    .id = "agentrt",
    .cgroups_path = config->linux_cfg ? config->linux_cfg->cgroups_path : NULL,
    .systemd = rt->systemd_cgroup,
  };
  struct change_list scratch = { 0 };
  int r;

  h->rootless = true;
  rootless_facts (&probe, &h->runtime);
  if (h->enforced)
    return 0;
  r = unprivileged_limits (config, &h->policy, &h->runtime, &scratch, err);
  for (size_t i = 0; r == 0 && i < scratch.len; i++)
    log_warning ("%s (%s)", scratch.items[i].what, scratch.items[i].why);
  change_list_release (&scratch);
  return r;
}

/* The hardening decides where HOME is from process.env; give it runc's
 * answer (the image's /etc/passwd) when the bundle sets none. */
static void
add_default_home (struct oci_config *config, const char *bundle)
{
  struct oci_process *p = config->process;
  cleanup_free char *root = NULL;
  cleanup_free char *home = NULL;
  cleanup_free char *entry = NULL;
  int rootfd;
  size_t i;

  if (p == NULL || config->root.path == NULL)
    return;
  for (i = 0; i < p->env.len; i++)
    if (strncmp (p->env.items[i], "HOME=", 5) == 0)
      return;
  root = config->root.path[0] == '/' ? xstrdup (config->root.path)
                                     : xasprintf ("%s/%s", bundle,
                                                  config->root.path);
  rootfd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  home = process_default_home (rootfd, p->user.uid);
  if (rootfd >= 0)
    close (rootfd);
  entry = xasprintf ("HOME=%s", home);
  str_list_append (&p->env, entry);
}

static int
compile_profile (const struct runtime_context *rt, struct hardening *h,
                 agentrt_error_t *err)
{
  const char *profile = h->result.directives.seccomp_profile;
  cleanup_free char *cache = seccomp_cache_dir (rt->root);
  struct str_list notes = { 0 };
  bool hit = false;
  size_t i;

  if (profile == NULL)
    return 0;
  if (state_root_create (rt->root, err) < 0)
    return -1;
  h->agent_seccomp = seccomp_load_profile_cached (profile, cache, &notes, &hit,
                                                  err);
  for (i = 0; i < notes.len; i++)
    log_debug ("%s", notes.items[i]);
  str_list_free (&notes);
  if (h->agent_seccomp == NULL)
    return agentrt_error_wrap (err, "agent seccomp profile");
  log_debug ("agent seccomp profile `%s`%s", profile,
             hit ? " (cached)" : " (compiled)");
  return 0;
}

static void
cleanup_allowlist_fn (struct allowlist **al)
{
  allowlist_free (*al);
}

/* Wildcards of the sidecar's allowlist over a public suffix at any level
 * (`*.co.uk`, `*.amazonaws.com`) are too broad unless the policy allows
 * broad entries.  Judged here, not in the pure hardening step, because it
 * takes the Public Suffix List file, which is opened only when a wildcard
 * needs judging, and judged by its compiled form, kept under the runtime
 * root (runtime/egress/suffix_cache.h).  The list is the policy's entries,
 * then the annotation's. */
static int
judge_egress_wildcards (const struct runtime_context *rt,
                        const struct hardening *h, agentrt_error_t *err)
{
  const struct harden_directives *d = &h->result.directives;
  __attribute__ ((cleanup (cleanup_allowlist_fn))) struct allowlist *al = NULL;
  cleanup_free char *cache = NULL;
  size_t bad = 0;

  if (d->egress != HARDEN_EGRESS_PROXY || d->egress_allow_broad
      || d->egress_allow == NULL || strstr (d->egress_allow, "*.") == NULL)
    return 0;
  if (allowlist_parse (d->egress_allow, false, &al, err) < 0)
    return agentrt_error_wrap (err, "egress allowlist");
  cache = xasprintf ("%s/.psl-cache", rt->root);
  if (public_suffix_check (al, h->policy.public_suffix_list, cache, &bad, err) == 0)
    return 0;
  return agentrt_error_wrap (err, "%s: not allowed by the policy "
                             "(egress.allowBroad is false)",
                             bad < h->policy.egress_allow.len
                                 ? "policy egress.allow"
                                 : "annotation run.agentrt.egress.allow");
}

/* A random stand-in for each credential the policy declares (only the
 * selected ones reach the container). */
static int
make_standins (const struct agent_policy *policy, struct str_list *out,
               agentrt_error_t *err)
{
  for (size_t i = 0; i < policy->n_inject; i++)
    {
      unsigned char r[16];
      char s[CREDENTIAL_STANDIN_LEN + 1];
      int n = snprintf (s, sizeof s, "%s", CREDENTIAL_STANDIN_PREFIX);

      if (getrandom (r, sizeof r, 0) != (ssize_t) sizeof r)
        return agentrt_error (err, errno, "credential %s: make its stand-in "
                              "(getrandom)", policy->inject[i].name);
      for (size_t k = 0; k < sizeof r; k++)
        n += snprintf (s + n, sizeof s - (size_t) n, "%02x", r[k]);
      str_list_append (out, s);
    }
  return 0;
}

int
hardening_apply (const struct runtime_context *rt, struct oci_config *config,
                 const char *bundle, bool compile_seccomp, struct hardening *h,
                 agentrt_error_t *err)
{
  struct kv_list annotations = { 0 };
  size_t i;
  int r;

  cleanup_free char *user_file = NULL;

  memset (h, 0, sizeof *h);
  if (hardening_load_policy (rt, &h->policy, &user_file, err) < 0)
    return -1;
  h->enforced = h->policy.enforce;
  h->policy.test_kernel_surface_off = fault_layer_off ("kernel-surface");
  if (rootless_is () && judge_rootless (rt, config, h, err) < 0)
    return agentrt_error_wrap (err, "hardening is off, but");
  if (!h->enforced)
    return 0;
  add_default_home (config, bundle);
  /* what no mount may expose: the runtime's state and the audit trails */
  str_list_append (&h->private_dirs, rt->root);
  str_list_append (&h->private_dirs, h->policy.audit_dir);
  host_view_system (&h->view, bundle, &h->private_dirs);
  if (h->rootless)
    h->view.runtime = &h->runtime;
  if (make_standins (&h->policy, &h->standins, err) < 0)
    return -1;
  h->view.standins = &h->standins;
  /* harden() may edit config->annotations; it reads a copy */
  for (i = 0; i < config->annotations.len; i++)
    kv_list_set (&annotations, config->annotations.items[i].key,
                 config->annotations.items[i].value);
  r = harden (config, &h->policy, &annotations, &h->view, &h->result, err);
  kv_list_free (&annotations);
  host_view_system_scanned (&h->view);
  if (r < 0 || judge_egress_wildcards (rt, h, err) < 0)
    return agentrt_error_wrap (err, "hardening");
  if (user_file)
    change_add (&h->result.changes, CHANGE_POLICY, user_file,
                "the user's own policy, read over the admin's (it may only "
                "tighten)");
  if (shared_netns_apply (rt, config, &h->result, err) < 0)
    return -1;
  if (compile_seccomp && compile_profile (rt, h, err) < 0)
    return -1;
  return 0;
}

void
hardening_release (struct hardening *h)
{
  if (h->enforced)
    harden_result_release (&h->result);
  host_view_system_release (&h->view);
  str_list_free (&h->private_dirs);
  str_list_free (&h->standins);
  seccomp_program_free (h->agent_seccomp);
  policy_release (&h->policy);
  rootless_facts_release (&h->runtime);
  memset (h, 0, sizeof *h);
}
