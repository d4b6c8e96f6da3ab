/* The layers of an overlayfs mount, read from its mountinfo super options
 * (an engine's root filesystem: overlayfs cannot idmap a mount of its own,
 * so a container with its own user namespace gets a read-only overlay of
 * the same layers, each idmapped: runtime/mount_idmap.c). */
#ifndef AGENTRT_OVERLAY_LAYERS_H
#define AGENTRT_OVERLAY_LAYERS_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"

struct overlay_layers
{
  struct str_list dirs; /* the topmost first: upperdir, then lowerdir's */
  bool userxattr;       /* its xattrs are user.overlay.* (rootless engines) */
  /* how its layers were written, and must be read: metacopy files
   * (chown'd in the upper layer), renamed directories; NULL: the
   * kernel's default */
  char *metacopy;
  char *redirect_dir;
};

/* Parses super options as mountinfo shows them (`rw,lowerdir=...`; values
 * with mountinfo's and overlayfs's escapes).  Refused, naming the option:
 * a relative layer (whose directory the engine's mount resolved from its
 * own working directory), data-only layers, an empty list. */
int overlay_layers_parse (const char *super_opts, struct overlay_layers *out,
                          agentrt_error_t *err);
void overlay_layers_release (struct overlay_layers *l);

#endif
