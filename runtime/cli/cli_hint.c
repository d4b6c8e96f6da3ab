/* The fix for the errors a newcomer meets first (not root, the seccomp
 * profile or the sidecar not installed, no policy file where one was
 * named, a bundle without config.json or root filesystem, a leftover
 * container, a mistyped option), chosen from the error's errno and the
 * words of the layer that set it.  Each rule's fragment is quoted from the
 * message it matches (the file that sets it is named); tests/unit/
 * test-runtime-hint.c holds one message of each, and
 * tests/integration/errors.bats the real errors, so a reworded message
 * that loses its hint fails there. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/xalloc.h"
#include "runtime/cli/cli_hint.h"

#ifndef AGENTRT_DATADIR
#define AGENTRT_DATADIR "/usr/local/share/agentrt"
#endif
#ifndef AGENTRT_LIBEXECDIR
#define AGENTRT_LIBEXECDIR "/usr/local/libexec/agentrt"
#endif
#ifndef AGENTRT_EXAMPLEDIR
#define AGENTRT_EXAMPLEDIR "/usr/local/share/doc/agentrt/examples"
#endif

struct hint_rule
{
  const char *fragment; /* in the message (NULL: any) */
  int status;           /* the errno it carries (0: any) */
  const char *hint;
};

/* First match wins. */
static const struct hint_rule rules[] = {
  /* runtime/seccomp/seccomp_cache.c, wrapped by runtime/hardening.c */
  { "agent seccomp profile: open seccomp profile `", ENOENT,
    "`make install` (or the Debian package) puts agentrt's profile in "
    AGENTRT_DATADIR "; from a build tree, name "
    "seccomp-profiles/agent-default.json in the policy's seccomp.profile "
    "(man agentrt-policy; hack/try.sh does)" },
  /* runtime/monitor_sidecar.c (its errno comes back from the monitor as
   * text only) */
  { "start the egress sidecar: agentrt-egress not found", 0,
    "agentrt-egress is neither in " AGENTRT_LIBEXECDIR " nor next to "
    "agentrt: `make install` (or `make agentrt-egress` in the build tree); "
    "a container with run.agentrt.egress=none needs none" },
  /* oci/policy_file.c, wrapped by runtime/hardening.c */
  { "admin policy: open policy `", ENOENT,
    "without --policy agentrt reads /etc/agentrt/policy.json when it "
    "exists, else uses its built-in defaults; to write one, start from "
    AGENTRT_EXAMPLEDIR "/policy.example.json (man agentrt-policy)" },
  { ": unknown field", 0, "man agentrt-policy lists the fields" },
  /* oci/config_parse.c */
  { "/config.json`", ENOENT,
    "--bundle DIR names the directory holding config.json (default: the "
    "current directory); `agentrt spec` writes a default one" },
  /* runtime/create_plan.c */
  { "root.path: `", ENOENT,
    "root.path names the bundle's root filesystem (relative to the "
    "bundle): unpack an image there, e.g. `podman export $(podman create "
    "IMAGE) | tar -xC DIR/rootfs`" },
  /* runtime/state_store.c, cmd_simple.c, container_exec.c */
  { "container with id exists: ", EEXIST,
    "`agentrt delete --force ID` removes the old one (same --root), or "
    "choose another id" },
  { "container `", ENOENT,
    "`agentrt list` shows the containers under --root (default "
    "/run/agentrt; each engine passes its own)" },
  /* runtime/policy/annotations.c */
  { "unknown annotation `", 0,
    "man agentrt-policy lists the run.agentrt.* annotations" },
};

const char *
cli_hint (const char *verb, const char *msg, int status, bool root,
          char **buf)
{
  size_t i;

  *buf = NULL;
  if (msg == NULL)
    return NULL;
  /* Whatever failed, without root a permission error means just that. */
  if (!root && (status == EACCES || status == EPERM))
    return "as a user other than root agentrt runs bundles with a user "
           "namespace of that user's ids (`agentrt spec --rootless`; id "
           "ranges need newuidmap), from files and directories the user "
           "may write: else run it as root";
  if (verb && (strstr (msg, ": unknown option `")
               || strstr (msg, ": option `")))
    {
      *buf = xasprintf ("`agentrt help %s` lists its options", verb);
      return *buf;
    }
  for (i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (strstr (msg, rules[i].fragment)
        && (rules[i].status == 0 || rules[i].status == status))
      return rules[i].hint;
  return NULL;
}
