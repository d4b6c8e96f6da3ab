/* tmpcopyup: a tmpfs mounted over a directory of the image starts with a
 * copy of what it hides (Podman asks for it on /run, /tmp...).  Runs in the
 * init between clone and exec: no allocation, bounded depth. */
#ifndef AGENTRT_COPYUP_H
#define AGENTRT_COPYUP_H

#include "runtime/child_error.h"

/* Copies the tree under srcfd (an O_RDONLY directory fd) into dstfd (the
 * new mount's root, any fd usable with openat). */
int copyup_tree (int srcfd, int dstfd, const char *dest, struct child_error *cerr);

#endif
