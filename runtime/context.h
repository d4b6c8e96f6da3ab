/* What the runtime library is run with: the parts of the command line
 * that change what a container operation does (the CLI's own, such as
 * logging, stay in runtime/cli/cli.h). */
#ifndef AGENTRT_CONTEXT_H
#define AGENTRT_CONTEXT_H

#include <stdbool.h>

struct runtime_context
{
  const char *root;     /* the state directory (--root) */
  const char *policy;   /* the admin policy file (--policy), NULL: default */
  bool systemd_cgroup;  /* --systemd-cgroup */
  char **argv;          /* the command line, for a re-exec of this binary
                           (runtime/cloned_binary.h) */
};

#endif
