/* Resolving container paths inside the rootfs without ever leaving it:
 * symlinks (absolute or `..`) are resolved as if the rootfs were `/`
 * (openat2 RESOLVE_IN_ROOT), magic links are refused, and the result is an
 * fd, so that what is mounted on is exactly what was resolved.  Used by the
 * init between clone and exec: nothing here allocates; errors are -errno. */
#ifndef AGENTRT_PATH_RESOLVE_H
#define AGENTRT_PATH_RESOLVE_H

#include <stdbool.h>
#include <sys/types.h>

/* Opens `path` (absolute or relative, read as relative to the root) under
 * rootfd with `flags` (O_CLOEXEC is added). */
int path_open_in_root (int rootfd, const char *path, int flags);

/* Like path_open_in_root, but refuses any symlink in the path (for /proc
 * and /dev entries that must be exactly what they claim). */
int path_open_in_root_nofollow (int rootfd, const char *path, int flags);

/* path_open_in_root's file for reading, when it is a regular file
 * (common/io.h io_open_regular: a FIFO, a device node, a directory are
 * never opened, -EINVAL): what the runtime reads from an image or a
 * container's tree. */
int path_open_regular_in_root (int rootfd, const char *path);

enum path_kind
{
  PATH_KIND_DIR,
  PATH_KIND_FILE,
};

/* Makes sure `path` exists under rootfd, creating missing directories (mode
 * 0755) and, for PATH_KIND_FILE, an empty final file (0644); returns an
 * O_PATH fd to it.  A dangling symlink on the way is an error (-ENOENT). */
int path_ensure_in_root (int rootfd, const char *path, enum path_kind kind);

#endif
