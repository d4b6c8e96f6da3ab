/* Protection against CVE-2019-5736, which has two doors:
 *  - a container program that is a script whose interpreter is
 *    /proc/self/exe runs the runtime's image inside the container: closed
 *    for every container by the exec stub (exec_stub.h), through which
 *    container processes reach their program;
 *  - a process of the container holding CAP_SYS_PTRACE can open
 *    /proc/PID/exe of a runtime process that joins it (`exec`) although
 *    that process is not dumpable: for such containers agentrt runs from a
 *    sealed in-memory copy of itself, unless its binary already is one or
 *    sits on a read-only mount (crun's rule).  The copy costs a re-exec, so
 *    it is only made where that door exists. */
#ifndef AGENTRT_CLONED_BINARY_H
#define AGENTRT_CLONED_BINARY_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"

/* Re-executes from a sealed memfd copy when needed; returns 0 when the
 * running image is already safe (or the re-exec did not happen because the
 * kernel refused it: then < 0 with *err). */
int cloned_binary_ensure (char **argv, agentrt_error_t *err);

/* Whether a process with these capabilities needs the sealed copy
 * (CAP_SYS_PTRACE in any set). */
bool cloned_binary_needed (const struct oci_capabilities *caps);

/* The path agentrt was started from (not the memfd): programs installed
 * next to it are found from there.  NULL when unknown. */
const char *cloned_binary_origin (void);

#endif
