/* Writing a buffer whole; reading a file whole; opening a regular file only. */
#ifndef AGENTRT_IO_H
#define AGENTRT_IO_H

#include <stddef.h>

/* write(2) until all of buf is out: EINTR is retried, and so is the rest
 * of a short write.  0, or -1 with errno (EIO when write returned 0), and
 * *done (if not NULL) says how many bytes went out before it failed. */
int io_write_all (int fd, const void *buf, size_t len, size_t *done);

/* Reads fd to its end: *out holds what came, NUL-terminated (malloc'd,
 * *len bytes before the NUL).  0, or -1 with errno set: EFBIG when more
 * than max bytes came (a file that grows while read is judged by what was
 * read); nothing is left in *out then.  Any kind of fd: a pipe, a /proc
 * file (whose size says 0); callers that want a regular file check that
 * first, with their own message. */
int io_read_all (int fd, size_t max, char **out, size_t *len);

/* The whole of a file of at most max bytes, NUL-terminated (malloc'd), or
 * NULL with errno set (EFBIG when it is larger).  Opened without blocking
 * on a FIFO and without becoming a controlling terminal. */
char *io_read_small_file (const char *path, size_t max);

/* The file the O_PATH fd pathfd names (closed here; -1 passes through),
 * opened read-only (close-on-exec, not blocking, never a controlling
 * terminal) if it is a regular file: anything else, EINVAL, is never
 * opened, since opening a device node acts on the device (a watchdog is
 * armed, a tape rewound), a FIFO's writer goes on.  Reopens through
 * /proc/self/fd. */
int io_open_regular (int pathfd);

#endif
