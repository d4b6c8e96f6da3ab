/* Running as a user other than root (rootless, as runc and crun are): the
 * defaults such a runtime takes from the XDG base directories, and the
 * facts about it the hardening needs (struct host_runtime).
 *
 *   state root   $XDG_RUNTIME_DIR/agentrt, else /run/user/UID/agentrt when
 *                that directory is the user's (runc: $XDG_RUNTIME_DIR/runc)
 *   audit dir    $XDG_STATE_HOME/agentrt, else ~/.local/state/agentrt
 *   user policy  $XDG_CONFIG_HOME/agentrt/policy.json, else
 *                ~/.config/agentrt/policy.json (read over the admin's;
 *                runtime/policy/policy_layer.h)
 *
 * A variable that is not an absolute path is ignored (the XDG Base
 * Directory rule).  Root keeps /run/agentrt, /var/log/agentrt and the
 * admin policy alone. */
#ifndef AGENTRT_ROOTLESS_H
#define AGENTRT_ROOTLESS_H

#include <stdbool.h>

#include "common/error.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/policy/host_view.h"

/* The effective uid is not 0. */
bool rootless_is (void);

/* The default state root (malloc'd), or NULL with an error saying what to
 * set. */
char *rootless_state_root (agentrt_error_t *err);

/* The default audit dir (malloc'd); its base ($XDG_STATE_HOME or
 * ~/.local/state) is made (0700) when missing, as the XDG rules say. */
char *rootless_audit_dir (agentrt_error_t *err);

/* Where the user's own policy file is (malloc'd; it may not exist). */
char *rootless_user_policy (agentrt_error_t *err);

/* What the hardening must know about a runtime that is not root: its ids
 * and whether the container can have a cgroup of its own (a delegated
 * subtree, runtime/cgroup.h's cgroup_delegation).  `req` is the
 * container's cgroup request (its id may be a placeholder: only the
 * directory the cgroup would be made in is judged). */
void rootless_facts (const struct cgroup_request *req, struct host_runtime *out);
void rootless_facts_release (struct host_runtime *facts);

#endif
