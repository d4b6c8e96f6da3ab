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
 * Directory rule); the runtime directory, either, must be a directory of
 * the user's that nobody else may write (else an error: another user
 * could rewrite the state that kill and exec trust).  "Not root" is judged in the initial user namespace,
 * not by the effective uid alone (rootless_is).  Root keeps /run/agentrt,
 * /var/log/agentrt and the admin policy alone. */
#ifndef AGENTRT_ROOTLESS_H
#define AGENTRT_ROOTLESS_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/error.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/policy/host_view.h"

/* The runtime is not root of the host: its effective uid is not 0, or
 * it is root of a user namespace other than the initial one (rootless
 * Podman runs it so: uid 0 with every capability, over its own namespace
 * only; also one real root gave the initial one's map: told by the
 * namespace's inode number), or it lacks CAP_SYS_ADMIN.  Such a runtime cannot write the
 * host's cgroups, use /run/agentrt or /var/log/agentrt.  Decided once. */
bool rootless_is (void);

/* The effective uid as the parent user namespace sees it (the user's own
 * id for root of rootless Podman's namespace); the effective uid itself
 * when it cannot be told. */
uid_t rootless_outer_uid (void);

/* In a user namespace other than the initial one: the overflow uid
 * (/proc/sys/kernel/overflowuid), as which stat(2) shows a file owned by
 * an id the namespace does not map; (uid_t) -1 in the initial one or when
 * it cannot be told.  Decided once. */
uid_t rootless_unmapped_uid (void);

/* The runtime's own namespace of that type ("net", "pid", "time") is
 * owned by a user namespace other than its own (an ancestor: rootless
 * Podman runs it in the host's network and pid namespaces): it may leave
 * it, never come back. */
bool rootless_ns_foreign (const char *type);

/* The default state root (malloc'd), or NULL with an error saying what to
 * set. */
char *rootless_state_root (agentrt_error_t *err);

/* The user's own systemd's private socket (malloc'd), where
 * --systemd-cgroup asks for scopes when the runtime is not root:
 * $XDG_RUNTIME_DIR/systemd/private, else /run/user/UID's. */
char *rootless_systemd_socket (void);

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
