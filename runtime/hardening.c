/* The runtime side of the hardening step (see hardening.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/policy_file.h"
#include "runtime/hardening.h"
#include "runtime/log.h"
#include "runtime/policy/host_view.h"
#include "runtime/process_setup.h"
#include "runtime/seccomp_cache.h"
#include "runtime/shared_netns.h"
#include "runtime/state_store.h"

int
hardening_load_policy (const struct global_options *g,
                       struct agent_policy *policy, agentrt_error_t *err)
{
  if (policy_file_load_default (g->policy, policy, err) < 0)
    return agentrt_error_wrap (err, "admin policy");
  return 0;
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
compile_profile (const struct global_options *g, struct hardening *h,
                 agentrt_error_t *err)
{
  const char *profile = h->result.directives.seccomp_profile;
  cleanup_free char *cache = seccomp_cache_dir (g->root);
  struct str_list notes = { 0 };
  bool hit = false;
  size_t i;

  if (profile == NULL)
    return 0;
  if (state_root_create (g->root, err) < 0)
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

int
hardening_apply (const struct global_options *g, struct oci_config *config,
                 const char *bundle, bool compile_seccomp, struct hardening *h,
                 agentrt_error_t *err)
{
  struct kv_list annotations = { 0 };
  size_t i;
  int r;

  memset (h, 0, sizeof *h);
  if (hardening_load_policy (g, &h->policy, err) < 0)
    return -1;
  h->enforced = h->policy.enforce;
  if (!h->enforced)
    return 0;
  add_default_home (config, bundle);
  /* what no mount may expose: the runtime's state and the audit trails */
  str_list_append (&h->private_dirs, g->root);
  str_list_append (&h->private_dirs, h->policy.audit_dir);
  host_view_system (&h->view, bundle, &h->private_dirs);
  /* harden() may edit config->annotations; it reads a copy */
  for (i = 0; i < config->annotations.len; i++)
    kv_list_set (&annotations, config->annotations.items[i].key,
                 config->annotations.items[i].value);
  r = harden (config, &h->policy, &annotations, &h->view, &h->result, err);
  kv_list_free (&annotations);
  if (r < 0)
    return agentrt_error_wrap (err, "hardening");
  if (shared_netns_apply (g, config, &h->result, err) < 0)
    return -1;
  if (compile_seccomp && compile_profile (g, h, err) < 0)
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
  seccomp_program_free (h->agent_seccomp);
  policy_release (&h->policy);
  memset (h, 0, sizeof *h);
}
