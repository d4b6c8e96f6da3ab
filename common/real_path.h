/* realpath(3), with fewer system calls where it matters: glibc reads
 * every component with readlink, while a path with no symlink on it (the
 * usual bind source, bundle or state directory) is its own
 * canonical form, which one openat2 that refuses symlinks proves. */
#ifndef AGENTRT_REAL_PATH_H
#define AGENTRT_REAL_PATH_H

/* The canonical absolute path of `path` (malloc'd), or NULL with errno
 * set: the same answers as realpath (path, NULL). */
char *real_path (const char *path);

#endif
