/* The config.json that `agentrt spec` writes: runc's default spec (as
 * runc 1.1 prints it, tab-indented) with hostname "agentrt", and the
 * `--rootless` variant (user namespace mapping uid/gid to root, no network
 * namespace, no device cgroup rules, /sys bind-mounted). */
#ifndef AGENTRT_OCI_SPEC_DEFAULT_H
#define AGENTRT_OCI_SPEC_DEFAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/error.h"

/* uid and gid are the host ids mapped to root in the rootless variant
 * (the caller's euid/egid); ignored otherwise. */
char *spec_default_json (bool rootless, uint32_t uid, uint32_t gid,
                         agentrt_error_t *err);

#endif
