/* Which namespaces the container creates and which it joins: paths opened
 * and checked by the runtime before anything is cloned. */
#ifndef AGENTRT_NAMESPACES_H
#define AGENTRT_NAMESPACES_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"

struct ns_plan
{
  int join_fds[OCI_NS_COUNT]; /* -1: not joined */
  unsigned long new_flags;    /* CLONE_NEW* of the namespaces to create */
};

unsigned long ns_clone_flag (enum oci_namespace_type type);

/* Opens every linux.namespaces[].path (checking it is a namespace of the
 * declared type) and collects the ones to create. */
int ns_plan_build (const struct oci_linux *lnx, struct ns_plan *out,
                   agentrt_error_t *err);
void ns_plan_close (struct ns_plan *plan);

/* For exec: join every namespace of a running process (by its pid). */
int ns_plan_join_process (pid_t pid, struct ns_plan *out, agentrt_error_t *err);

#endif
