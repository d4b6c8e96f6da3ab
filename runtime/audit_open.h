/* Opening a container's audit trail (<dir>/<id>.jsonl) without trusting
 * the file system on the way: every component of the dir's path is opened
 * relative to the one before without following symlinks, each is judged
 * (audit_judge) on the fd that was opened, and the trail is opened
 * relative to the dir's fd.  A trail the agent or another user could have
 * redirected or written is refused with an error naming the path and what
 * is wrong with it. */
#ifndef AGENTRT_AUDIT_OPEN_H
#define AGENTRT_AUDIT_OPEN_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/error.h"

/* What a path component must be. */
enum audit_node
{
  AUDIT_ANCESTOR, /* a directory owned by root or the runtime's euid */
  AUDIT_DIR,      /* the same, and not writable by its group or others */
  AUDIT_FILE,     /* a regular file with one link, owned by root or the
                     euid, not writable by its group or others */
};

/* Pure: 0 when st may be that node for a runtime running as euid, else -1
 * with why (e.g. "is a symlink") written to why[size].  `unmapped` is
 * (uid_t) -1 in the initial user namespace; in another (rootless
 * Podman's) it is the overflow uid, as which the kernel shows every id
 * the namespace does not map: root's `/` and `/home` there.  It is taken
 * for root's for an ancestor only (the kernel cannot say whose it is:
 * docs/threat-model.md). */
int audit_judge (const struct stat *st, enum audit_node node, uid_t euid,
                 uid_t unmapped, char *why, size_t size);

/* Opens the trail to append to, creating the dir (0700, only its last
 * component) and the file (0600) when missing. */
int audit_open (const char *dir, const char *id, agentrt_error_t *err);

/* Opens an existing trail to read (`agentrt audit`), with the same checks;
 * ENOENT when there is none. */
int audit_open_read (const char *dir, const char *id, agentrt_error_t *err);

/* The audit dir itself, walked and judged as above, opened to list
 * (`agentrt audit --summary`); ENOENT when there is none. */
int audit_open_dir (const char *dir, agentrt_error_t *err);

/* The trail `name` ("ID.jsonl") in the dir opened by audit_open_dir, to
 * read, with the same checks (dir is for messages). */
int audit_open_read_at (int dirfd, const char *dir, const char *name,
                        agentrt_error_t *err);

/* The path of a container's trail (malloc'd), for messages. */
char *audit_path (const char *dir, const char *id);

#endif
