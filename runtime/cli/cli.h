/* Command-line front end: global flags (runc's), dispatch to cmd_<verb>,
 * and the single place where errors are printed. */
#ifndef AGENTRT_CLI_H
#define AGENTRT_CLI_H

#include <stdbool.h>

#include "common/error.h"
#include "runtime/context.h"

struct global_options
{
  struct runtime_context rt; /* --root (default /run/agentrt), --policy,
                                --systemd-cgroup, the command line */
  const char *log;       /* --log FILE */
  const char *log_format; /* --log-format text|json */
  bool debug;
};

int cli_main (int argc, char **argv);

/* Handlers: argv[0] is the verb; they return the process exit status or
 * < 0 with *err set. */
typedef int (*cli_handler_t) (struct global_options *opts, int argc,
                              char **argv, agentrt_error_t *err);

#endif
