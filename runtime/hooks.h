/* OCI hooks: each runs as path+args+env with the container's state JSON on
 * stdin and an optional timeout.  The runtime runs prestart, createRuntime,
 * poststart and poststop; the init runs createContainer and startContainer
 * in the container's namespaces — so running one allocates nothing. */
#ifndef AGENTRT_HOOKS_H
#define AGENTRT_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/child_error.h"

struct hook_exec
{
  const char *path;
  char **argv; /* NULL-terminated; argv[0] = path when args are absent */
  char **stub_argv; /* { "agentrt-exec-stub", path, argv..., NULL } */
  char **envp; /* NULL-terminated */
  int timeout; /* seconds, 0: none */
};

struct hook_set
{
  const char *kind; /* "prestart", ... for messages */
  const char *cwd;  /* the bundle (runc's choice); "/" if unreachable */
  int stub_fd;      /* >= 0 for hooks run inside the container: through
                       the sealed exec stub (CVE-2019-5736) */
  bool stub_required; /* no plain execve fallback (hardened) */
  struct hook_exec *hooks;
  size_t n;
};

void hook_set_build (const struct oci_hook_list *list, const char *kind,
                     const char *cwd, struct hook_set *out);
void hook_set_free (struct hook_set *set);

/* Runs every hook of the set in order with state_fd (a memfd holding the
 * state JSON; rewound for each hook) as stdin; stops at the first failure. */
int hook_set_run (const struct hook_set *set, int state_fd,
                  struct child_error *cerr);

/* poststop: a failing hook is reported through warn() and the others
 * still run (the runtime-spec makes these failures warnings; poststart
 * ones are errors since 1.3 and use hook_set_run).  Returns the number of
 * hooks that failed. */
int hook_set_run_all (const struct hook_set *set, int state_fd,
                      void (*warn) (const char *msg));

/* Writes the state JSON into a new memfd for hook_set_run. */
int hook_state_memfd (const char *json, agentrt_error_t *err);

#endif
