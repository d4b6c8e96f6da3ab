/* The options `create` and `run` share. */
#ifndef AGENTRT_CMD_CREATE_OPTIONS_H
#define AGENTRT_CMD_CREATE_OPTIONS_H

#include <stdbool.h>

#include "runtime/container.h"

struct run_only_options
{
  bool detach;
  bool keep;
};

/* Parses argv (argv[0] is the verb); returns the index of the first
 * positional argument.  run_opts NULL: `create`, where -d/--keep are errors. */
int create_options_parse (int argc, char **argv, struct create_request *req,
                          struct run_only_options *run_opts,
                          agentrt_error_t *err);

#endif
