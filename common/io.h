/* Writing a buffer whole; reading a small file whole. */
#ifndef AGENTRT_IO_H
#define AGENTRT_IO_H

#include <stddef.h>

/* write(2) until all of buf is out: EINTR is retried, and so is the rest
 * of a short write.  0, or -1 with errno (EIO when write returned 0), and
 * *done (if not NULL) says how many bytes went out before it failed. */
int io_write_all (int fd, const void *buf, size_t len, size_t *done);

/* The whole of a file of at most max bytes, NUL-terminated (malloc'd), or
 * NULL with errno set (EFBIG when it is larger). */
char *io_read_small_file (const char *path, size_t max);

#endif
