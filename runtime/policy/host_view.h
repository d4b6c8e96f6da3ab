/* The host view: the only facts about the host that the hardening step
 * needs, as callbacks supplied by the caller.  The runtime passes the real
 * one (host_view_system, in host_view.c: the only file of runtime/policy/
 * that does I/O); unit tests pass an in-memory fake.  Paths given to the
 * callbacks are host paths; the callbacks must not follow symlinks outside
 * what they are asked (see each one). */
#ifndef AGENTRT_POLICY_HOST_VIEW_H
#define AGENTRT_POLICY_HOST_VIEW_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"

enum host_kind
{
  HOST_MISSING, /* does not exist (or is a dangling symlink) */
  HOST_FILE,    /* regular file */
  HOST_DIR,
  HOST_SOCKET,  /* unix socket */
  HOST_OTHER,   /* device, fifo... */
};

struct host_view
{
  void *ctx;

  /* Resolves `path` with every symlink followed (realpath) and says what
   * it is.  A relative path is taken against the bundle directory.
   * *canonical is malloc'd, or NULL with *kind = HOST_MISSING when the path
   * does not exist.  Fails (< 0 with *err) only when the answer cannot be
   * known (EACCES, ELOOP...): the caller then refuses the container. */
  int (*resolve) (void *ctx, const char *path, char **canonical,
                  enum host_kind *kind, agentrt_error_t *err);

  /* Whether the absolute `path` exists, not following its last component
   * (lstat: a symlink counts, even a dangling one). */
  int (*exists) (void *ctx, const char *path, bool *exists,
                 agentrt_error_t *err);

  /* One pass over the directory `dir` (canonical): appends to *subdirs the
   * names of its entries that are directories (symlinks are not followed,
   * "." and ".." are skipped) and sets *has_socket when an entry is a unix
   * socket. */
  int (*scan_dir) (void *ctx, const char *dir, struct str_list *subdirs,
                   bool *has_socket, agentrt_error_t *err);
};

/* The real host view.  bundle_dir (absolute) is what relative paths are
 * taken against; it must outlive the view. */
void host_view_system (struct host_view *view, const char *bundle_dir);

#endif
