/* Privileges of a process: every capability set intersected with the
 * policy's safe set, the inheritable and ambient sets cleared (lessons:
 * CVE-2022-29162), noNewPrivileges forced. */
#ifndef AGENTRT_POLICY_PRIVILEGES_H
#define AGENTRT_POLICY_PRIVILEGES_H

#include "oci/config.h"
#include "changes.h"
#include "policy.h"

/* Records one change per capability removed, naming the sets it left. */
void privileges_harden (struct oci_process *process,
                        const struct agent_policy *policy,
                        struct change_list *changes);

#endif
