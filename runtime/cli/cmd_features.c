/* `agentrt features`: the runtime-spec features document, filled from what
 * this build and this kernel support. */
#include "config.h"

#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/lsm_selinux.h"
#include "common/xalloc.h"
#include "oci/features.h"
#include "runtime/caps.h"
#include "runtime/cli/commands.h"
#include "runtime/mount_plan.h"
#include "runtime/policy/annotations.h"
#include "runtime/process_setup.h"
#include "runtime/seccomp/seccomp.h"

static const char *const hooks[] = { "prestart", "createRuntime",
                                     "createContainer", "startContainer",
                                     "poststart", "poststop", NULL };

/* NULL-terminated list of capability names the kernel knows. */
static char **
capability_names (void)
{
  int last = caps_last_cap (), i;
  char **names = xzalloc ((size_t) (last + 2) * sizeof *names);
  for (i = 0; i <= last; i++)
    {
      char *n = cap_to_name (i);
      char *p;
      names[i] = xasprintf ("CAP_%s", strncmp (n, "cap_", 4) == 0 ? n + 4 : n);
      for (p = names[i]; *p; p++)
        if (*p >= 'a' && *p <= 'z')
          *p = (char) (*p - 'a' + 'A');
      cap_free (n);
    }
  return names;
}

int
cmd_features (struct global_options *g, int argc, char **argv,
              agentrt_error_t *err)
{
  static const char *namespaces[OCI_NS_COUNT + 1];
  const char *mount_options[96] = { NULL };
  const char *unsafe[16] = { NULL };
  const char *annotations[32] = { NULL };
  const struct annotation_info *info;
  struct seccomp_features sf;
  struct oci_features f;
  const struct scmp_version *lib = seccomp_version ();
  cleanup_free char *libver = xasprintf ("%u.%u.%u", lib->major, lib->minor,
                                         lib->micro);
  cleanup_free char *json = NULL;
  char **caps;
  size_t i, n, k = 0, a = 0;

  (void) g;
  if (cmd_check_args (argc, 1, 0, 0, "features", err) < 0)
    return -1;
  for (i = 0; i < OCI_NS_COUNT; i++)
    namespaces[i] = oci_namespace_type_name ((enum oci_namespace_type) i);
  for (i = 0; i + 1 < sizeof mount_options / sizeof mount_options[0]
              && mount_plan_option_name (i);
       i++)
    mount_options[i] = mount_plan_option_name (i);
  info = annotations_info (&n);
  for (i = 0; i < n && k + 1 < sizeof unsafe / sizeof unsafe[0]; i++)
    if (info[i].loosens)
      unsafe[k++] = info[i].key;
  /* every run.agentrt.* annotation this runtime reads, with what it does */
  for (i = 0; i < n && a + 3 < sizeof annotations / sizeof annotations[0]; i++)
    {
      annotations[a++] = info[i].key;
      annotations[a++] = info[i].help;
    }
  annotations[a++] = "io.github.seccomp.libseccomp.version";
  annotations[a++] = libver;
  annotations[a++] = "agentrt.version";
  annotations[a++] = PACKAGE_VERSION;
  annotations[a++] = "agentrt.commit";
  annotations[a++] = GIT_COMMIT;

  caps = capability_names ();
  seccomp_features_get (&sf);
  features_init (&f);
  f.hooks = hooks;
  f.mount_options = mount_options;
  f.namespaces = namespaces;
  f.capabilities = (const char *const *) caps;
  f.cgroup_v1 = f.cgroup_v2 = f.cgroup_systemd = true;
  f.idmap_mounts = true;
  f.seccomp.enabled = true;
  f.seccomp.actions = sf.actions;
  f.seccomp.operators = sf.operators;
  f.seccomp.archs = sf.archs;
  f.seccomp.known_flags = sf.known_flags;
  f.seccomp.supported_flags = sf.supported_flags;
  f.apparmor = process_apparmor_enabled ();
  f.selinux = selinux_enabled ();
  f.annotations = annotations;
  f.potentially_unsafe_annotations = unsafe;
  json = features_to_json (&f);
  for (i = 0; caps[i]; i++)
    free (caps[i]);
  free (caps);
  printf ("%s\n", json);
  return 0;
}
