/* Bind mounts against credentials and control sockets: a bind mount whose
 * source is a unix socket, an engine socket dir, a directory holding
 * sockets, a credential path, the host's root or /proc, or whose
 * destination is a credential location, is dropped; credential paths and
 * engine socket paths that a kept mount exposes (in its source, or one
 * directory level down for a mounted /home) are added to
 * linux.maskedPaths; kept sources are replaced by their real path.  Host
 * facts come from the host view. */
#ifndef AGENTRT_POLICY_BINDS_H
#define AGENTRT_POLICY_BINDS_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"
#include "changes.h"
#include "host_view.h"
#include "policy.h"

/* Is the mount a bind mount (type "bind", or a "bind"/"rbind" option)? */
bool binds_is_bind (const struct oci_mount *mount);

/* Frees what a mount owns. */
void binds_mount_release (struct oci_mount *mount);

/* Applies the rules above to every bind mount of config.  Errors (a host
 * view that cannot answer) name the mount. */
int binds_harden (struct oci_config *config, const struct agent_policy *policy,
                  const struct host_view *host, struct change_list *changes,
                  agentrt_error_t *err);

#endif
