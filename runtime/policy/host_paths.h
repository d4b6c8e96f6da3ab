/* The built-in lists of host paths the hardening judges mounts by: where
 * credentials are kept, host directories that are credential stores as a
 * whole, control sockets and their directories, the host's kernel and
 * device paths, and what marks a home directory.  Data only; the policy
 * (policy.c) copies the extensible ones and the policy file may add to
 * them.  docs/policy.md lists every entry. */
#ifndef AGENTRT_POLICY_HOST_PATHS_H
#define AGENTRT_POLICY_HOST_PATHS_H

#include <stdbool.h>
#include <stddef.h>

struct path_list
{
  const char *const *items;
  size_t len;
};

/* Credential files and directories.  Relative entries (".ssh",
 * ".config/gh") are looked for in every directory the scan of a bind
 * reaches; absolute ones are host paths (and container paths, for the
 * ones engines mount service-account tokens at).  A component may be a
 * glob ("ssh_host_*_key"). */
extern const struct path_list host_paths_credentials;

/* Host directories that hold credentials of the whole machine among
 * their other content (engine and kubelet state): a bind of one of them
 * is dropped, a bind of an ancestor gets it masked; engines' own binds of
 * paths below them (a volume, a pod's hosts file) are judged like any
 * other. */
extern const struct path_list host_paths_stores;

/* Control sockets and the directories that hold them: a bind of one is
 * dropped, a bind of an ancestor gets it masked.  A component may be a
 * glob ("ssh-*"). */
extern const struct path_list host_paths_sockets;

/* The host's kernel, device and boot paths: a bind of one of them or of a
 * path below is dropped (but for the allowed character devices), a bind
 * of an ancestor gets them masked. */
extern const struct path_list host_paths_kernel;

/* The host's system directories: a bind of one of them, or of a path
 * below, is read-only whatever the bundle asks (what root on the host runs
 * lives there). */
extern const struct path_list host_paths_system;

/* Names in a directory that make it a home directory (shell startup files
 * and `.ssh`); host users' homes from /etc/passwd count too. */
bool host_paths_is_home_marker (const char *name);

/* Directory names the scan does not descend into: caches and build trees
 * that hold neither homes nor the host's sockets, only many files. */
bool host_paths_is_pruned (const char *name);

#endif
