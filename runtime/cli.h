/* Command-line front end: global flags (runc's), dispatch to cmd_<verb>,
 * and the single place where errors are printed. */
#ifndef AGENTRT_CLI_H
#define AGENTRT_CLI_H

#include <stdbool.h>

#include "common/error.h"

struct global_options
{
  const char *root;      /* --root, default /run/agentrt */
  const char *log;       /* --log FILE */
  const char *log_format; /* --log-format text|json */
  const char *policy;    /* --policy FILE */
  bool debug;
  bool systemd_cgroup;
};

int cli_main (int argc, char **argv);

/* The command line agentrt was started with (for a re-exec). */
char **cli_saved_argv (void);

/* Handlers: argv[0] is the verb; they return the process exit status or
 * < 0 with *err set. */
typedef int (*cli_handler_t) (struct global_options *opts, int argc,
                              char **argv, agentrt_error_t *err);

#endif
