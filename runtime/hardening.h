/* Where the runtime meets the pure hardening step: load the admin policy
 * (and a rootless user's own over it), give the hardening what only I/O
 * can tell (HOME from the image, the host view, who runs the runtime),
 * run it, and compile the agent seccomp profile (cached). */
#ifndef AGENTRT_HARDENING_H
#define AGENTRT_HARDENING_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/context.h"
#include "runtime/policy/harden.h"
#include "runtime/policy/host_view.h"
#include "runtime/policy/policy.h"
#include "runtime/seccomp/seccomp.h"

struct hardening
{
  struct agent_policy policy;
  bool enforced;                 /* false: the policy turned it off */
  struct harden_result result;   /* valid when enforced */
  struct seccomp_program *agent_seccomp;
  /* The host view the hardening judged the bind sources through (valid
   * when enforced): its open sources are what the container mounts. */
  struct host_view view;
  struct str_list private_dirs;  /* the state root and the audit dir */
  struct str_list standins;      /* one per credential the policy declares */
  /* A runtime that is not root (runtime/rootless.h): its ids and whether
   * the container can have a cgroup of its own; the view points at it. */
  bool rootless;
  struct host_runtime runtime;
};

/* Hardens config in place (bundle: absolute).  With compile_seccomp the
 * agent profile is compiled too (not needed by `policy explain`). */
int hardening_apply (const struct runtime_context *rt, struct oci_config *config,
                     const char *bundle, bool compile_seccomp,
                     struct hardening *h, agentrt_error_t *err);
void hardening_release (struct hardening *h);

/* Loads the policy alone (exec, audit): the admin's (--policy FILE, else
 * /etc/agentrt/policy.json, else the built-in defaults); for a runtime
 * that is not root, with the audit dir in the user's state directory and
 * the user's own file read over it, which may only tighten
 * (runtime/policy/policy_layer.h).  *user_file (when not NULL) is set to
 * the user's file when one was read (malloc'd), else NULL. */
int hardening_load_policy (const struct runtime_context *rt,
                           struct agent_policy *policy, char **user_file,
                           agentrt_error_t *err);

#endif
