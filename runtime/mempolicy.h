/* linux.memoryPolicy: validated by the runtime into the arguments of
 * set_mempolicy(2) (mempolicy_build, pure), applied by the container's
 * process between clone and exec (mempolicy_apply: no allocation).  The
 * policy is inherited across fork and kept across execve, so the init's
 * and every exec'd process's children have it too. */
#ifndef AGENTRT_MEMPOLICY_H
#define AGENTRT_MEMPOLICY_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/child_error.h"
#include "runtime/id_list.h"

/* Node numbers agentrt takes (the kernel's MAX_NUMNODES is at most 1024 on
 * the architectures it supports). */
#define MEMPOLICY_MAX_NODES 1024

struct mempolicy_spec
{
  bool set;                /* false: no memoryPolicy, nothing to apply */
  int mode;                /* MPOL_* | MPOL_F_* */
  bool has_nodes;          /* false: a NULL nodemask */
  unsigned long nodes[MEMPOLICY_MAX_NODES / ID_LIST_WORD_BITS];
  const char *mode_name;   /* for messages (points into the config) */
  const char *nodes_text;
};

/* Checks mp (may be NULL: out->set is false) as set_mempolicy(2) and the
 * runtime-spec say: the nodes a mode needs or forbids, the flags that
 * exclude each other or need a mode; errors name linux.memoryPolicy.*. */
int mempolicy_build (const struct oci_memory_policy *mp,
                     struct mempolicy_spec *out, agentrt_error_t *err);

/* set_mempolicy(2) for the calling thread; the kernel's refusal (a node
 * without memory, a mode this kernel lacks) names linux.memoryPolicy. */
int mempolicy_apply (const struct mempolicy_spec *spec,
                     struct child_error *cerr);

#endif
