/* Bind mounts against credentials, control sockets, the host's kernel and
 * host-side persistence.  Every bind source is opened once through the
 * host view and judged through what was opened.  A bind is dropped when
 * its destination is a credential location, or its source is the host's
 * root, a kernel interface or device path (but for the allowed character
 * devices), a block or other device, a credential path or store, agentrt's
 * own directory, a unix socket, a control socket directory or a directory
 * holding sockets.  What a kept bind exposes, at any depth the bounded
 * scan reaches, is masked (credentials, also where a symlink to one leads,
 * sockets, those host paths, kernel filesystems an rbind carries); a
 * writable one keeps what the host runs later read-only.  Kept binds get
 * their checked source, nosuid and nodev.  Host facts come from the host
 * view. */
#ifndef AGENTRT_POLICY_BINDS_H
#define AGENTRT_POLICY_BINDS_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"
#include "changes.h"
#include "harden.h"
#include "host_view.h"
#include "policy.h"

/* Is the mount a bind mount (type "bind", or a "bind"/"rbind" option)? */
bool binds_is_bind (const struct oci_mount *mount);

/* Frees what a mount owns. */
void binds_mount_release (struct oci_mount *mount);

/* Applies the rules above to every bind mount of config; the masks that
 * must be applied and the read-only paths go to d (required_masks,
 * protected_paths, protected_dirs).  Errors (a host view that cannot
 * answer, a scan over its budget) name the mount. */
int binds_harden (struct oci_config *config, const struct agent_policy *policy,
                  const struct host_view *host, struct harden_directives *d,
                  struct change_list *changes, agentrt_error_t *err);

#endif
