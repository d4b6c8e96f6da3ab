/* `exec`: running another process in an existing container. */
#ifndef AGENTRT_CONTAINER_EXEC_H
#define AGENTRT_CONTAINER_EXEC_H

#include "runtime/context.h"
#include "runtime/exec_process.h"

/* Returns the process's exit status (128+N for signal N) in the foreground,
 * 0 once it runs with opts->detach, < 0 with *err on failure. */
int container_exec (const struct runtime_context *rt,
                    const struct exec_options *opts, agentrt_error_t *err);

#endif
