/* The host view: the only facts about the host that the hardening step
 * needs, as callbacks supplied by the caller.  The runtime passes the real
 * one (host_view.c: the only file of runtime/policy/ that does I/O); unit
 * tests pass an in-memory fake.
 *
 * Bind sources are judged once: open_source opens a source for good, and
 * every later question about what lies below it (lookup, list_dir) is
 * answered through that open source without following any symlink, so
 * that what is judged is what the runtime mounts (it mounts the same open
 * file, host_view_source_fd).  A second container swapping a directory of
 * a shared volume for a symlink between the checks and the mount changes
 * nothing. */
#ifndef AGENTRT_POLICY_HOST_VIEW_H
#define AGENTRT_POLICY_HOST_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/config.h"

enum host_kind
{
  HOST_MISSING, /* does not exist (or is a dangling symlink) */
  HOST_FILE,    /* regular file */
  HOST_DIR,
  HOST_SOCKET,  /* unix socket */
  HOST_CHAR,    /* character device */
  HOST_BLOCK,   /* block device */
  HOST_SYMLINK, /* only from lookup and list_dir, which follow none */
  HOST_OTHER,   /* fifo... */
};

/* What a host path is. */
struct host_node
{
  enum host_kind kind;
  unsigned major, minor; /* HOST_CHAR, HOST_BLOCK */
  /* The filesystem it is on when that is a kernel interface or the host's
   * device filesystem ("proc", "sysfs", "cgroup2", "devtmpfs", "debugfs",
   * "nsfs"...: static strings); NULL for ordinary filesystems. */
  const char *special_fs;
};

struct host_dirent
{
  char *name;
  enum host_kind kind; /* symlinks are HOST_SYMLINK, not followed */
};

/* A mount of the host below a bind source (what an rbind carries). */
struct host_mount
{
  char *path;             /* canonical host path of the mount point */
  const char *special_fs; /* as in struct host_node */
};

/* A runtime run by a user other than root (runtime/rootless.h gathers
 * it; runtime/policy/unprivileged.h judges with it). */
struct host_runtime
{
  uint32_t uid, gid; /* its effective ids: what the sidecar runs as */
  /* Root of a user namespace other than the host's (rootless Podman's):
   * it can switch the sidecar to sidecar.uid and sidecar.gid as mapped
   * there, and the sidecar keeps them. */
  bool switch_ids;
  uint32_t host_uid; /* uid as the parent user namespace sees it (the
                        user's own for rootless Podman's root) */
  /* A cgroup of the container's own can be made: a delegated cgroup v2
   * subtree this user may write.  Its controllers ("cpu memory pids")
   * are the limits it can enforce. */
  bool cgroup;
  struct str_list controllers;
  /* Why there is none (or why a controller may be missing), for
   * errors and the change list. */
  char *cgroup_why;
};

struct host_view
{
  void *ctx;

  /* Opens the bind source `path` for good.  With follow (a bundle's
   * source), symlinks in it are followed the way the bundle means them (a
   * relative path is taken against the bundle directory), then the result
   * is opened with none followed.  Without (a path the hardening derived
   * below an open source), no symlink may be on the way: it is then
   * missing.  A path below a source already open is opened through it.
   * *canonical is malloc'd, or NULL with node->kind = HOST_MISSING when the
   * path does not exist.  Fails (< 0 with *err) only when the answer cannot
   * be known (EACCES, a path changed meanwhile): the caller then refuses
   * the container. */
  int (*open_source) (void *ctx, const char *path, bool follow,
                      char **canonical, struct host_node *node,
                      agentrt_error_t *err);

  /* What the absolute `path` is, not following any symlink on the way:
   * below an open source it is looked up through it.  When `path` or one
   * of its components is a symlink, node->kind is HOST_SYMLINK and
   * *target (when target is not NULL) receives where the whole path leads
   * on the host, canonical (NULL when nowhere). */
  int (*lookup) (void *ctx, const char *path, struct host_node *node,
                 char **target, agentrt_error_t *err);

  /* The entries of the directory `dir` (canonical, below an open source),
   * "." and ".." left out: one allocation, the entries then their names
   * (as host_dirents_pack makes it; free() releases it), NULL when none. */
  int (*list_dir) (void *ctx, const char *dir, struct host_dirent **entries,
                   size_t *n, agentrt_error_t *err);

  /* Mounts of the host strictly below the canonical directory `dir`. */
  int (*submounts) (void *ctx, const char *dir, struct host_mount **mounts,
                    size_t *n, agentrt_error_t *err);

  /* Is the namespace file `path` a namespace of the host of that type
   * (the one pid 1 or the runtime itself is in)? */
  int (*ns_is_host) (void *ctx, const char *path,
                     enum oci_namespace_type type, bool *is_host,
                     agentrt_error_t *err);

  /* The host users' home directories (canonical, from /etc/passwd; "/"
   * and missing ones left out), and the runtime's own directories (state
   * root, audit directory) that no mount may expose. */
  const struct str_list *homes;
  const struct str_list *private_dirs;

  /* One random stand-in per credential the policy declares (in the order
   * of credentials.inject), made by the runtime; NULL or short: a
   * container that asks for credentials is refused. */
  const struct str_list *standins;

  /* Who runs the runtime when it is not root (NULL: root). */
  const struct host_runtime *runtime;
};

/* A copy of the n entries in one allocation with their names (NULL when
 * n is 0): a listing's form, which free() releases whole (a listing of
 * hundreds of entries is one malloc and one free, not hundreds). */
struct host_dirent *host_dirents_pack (const struct host_dirent *entries,
                                       size_t n);
void host_mounts_free (struct host_mount *mounts, size_t n);

/* The real host view.  bundle_dir (absolute) is what relative paths are
 * taken against; private_dirs are absolute host paths; both must outlive
 * the view.  Release it with host_view_system_release. */
void host_view_system (struct host_view *view, const char *bundle_dir,
                       const struct str_list *private_dirs);
void host_view_system_release (struct host_view *view);

/* Closes the directories the bind scan left open below the sources (the
 * sources stay: mounts are made from them).  Called once the scan is
 * done, so that none is inherited by the init, the monitor or the
 * sidecar: each would pin the host's tree and be one openat from its
 * files while the container lives. */
void host_view_system_scanned (struct host_view *view);

/* The open source of the real view whose canonical path is `canonical`
 * (an O_PATH fd owned by the view), or -1. */
int host_view_source_fd (const struct host_view *view, const char *canonical);

#endif
