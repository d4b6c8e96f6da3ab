/* openat2(2) with a resolve mask, retried on EINTR and EAGAIN (the kernel
 * returns EAGAIN when a rename raced a RESOLVE_IN_ROOT or RESOLVE_BENEATH
 * walk).  Below a dirfd a leading '/' is dropped and "" means "." so that
 * paths are read relative to it; with AT_FDCWD paths are taken as they
 * are.  O_CLOEXEC is always added.  Returns the fd, or
 * -errno.  Allocates nothing: usable between clone and exec. */
#ifndef AGENTRT_OPENAT2_H
#define AGENTRT_OPENAT2_H

#include <linux/openat2.h>

int openat2_resolve (int dirfd, const char *path, int flags,
                     unsigned long long resolve);

#endif
