/* Protection against CVE-2019-5736: a container process that runs the
 * runtime's own image (e.g. through a `#!/proc/self/exe` script handed to
 * `exec`) could open /proc/PID/exe and, once the runtime exits, write the
 * agentrt binary on the host.  So before it creates container processes,
 * agentrt runs from a sealed in-memory copy of itself, unless its binary is
 * already one or sits on a read-only mount (crun's rule). */
#ifndef AGENTRT_CLONED_BINARY_H
#define AGENTRT_CLONED_BINARY_H

#include "common/error.h"

/* Re-executes from a sealed memfd copy when needed; returns 0 when the
 * running image is already safe (or the re-exec did not happen because the
 * kernel refused it: then < 0 with *err). */
int cloned_binary_ensure (char **argv, agentrt_error_t *err);

/* The path agentrt was started from (not the memfd): programs installed
 * next to it are found from there.  NULL when unknown. */
const char *cloned_binary_origin (void);

#endif
