/* How a new user namespace's uid and gid maps get written, decided from
 * who runs the runtime (pure, unit-tested; runtime/userns.c does the
 * writing).
 *
 * Root (CAP_SETUID and CAP_SETGID in its user namespace) writes
 * /proc/PID/uid_map and gid_map itself, any mapping.  Anyone else may
 * write, by the kernel's rules (user_namespaces(7)), only one line that
 * maps one id to its own effective id, and for the gid map only after
 * "deny" went to /proc/PID/setgroups (the container can then never call
 * setgroups(2)).  Anything more (ranges from /etc/subuid and /etc/subgid)
 * goes through the setuid helpers newuidmap and newgidmap (package
 * uidmap), as runc, crun and Podman do; those leave setgroups allowed. */
#ifndef AGENTRT_IDMAP_H
#define AGENTRT_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "oci/config.h"

/* Who writes one of the two maps. */
enum idmap_writer
{
  IDMAP_WRITE_DIRECT, /* the runtime writes /proc/PID/{uid,gid}_map */
  IDMAP_WRITE_HELPER, /* newuidmap / newgidmap PID ... */
};

/* What the caller is and has (runtime/userns.c gathers it). */
struct idmap_caller
{
  bool privileged; /* euid 0: may write any mapping itself */
  uid_t euid;
  gid_t egid;
  bool have_newuidmap; /* found in the system directories (not PATH) */
  bool have_newgidmap;
};

struct idmap_plan
{
  enum idmap_writer uid;
  enum idmap_writer gid;
  /* "deny" is written to /proc/PID/setgroups before the gid map (an
   * unprivileged direct gid map): the container cannot setgroups(2). */
  bool deny_setgroups;
  /* not root: the child must be dumpable while its maps are written (its
   * /proc files belong to root otherwise) */
  bool unprivileged;
};

/* Decides how the maps of a new user namespace are written.  n_groups is
 * process.user.additionalGids' length: supplementary groups need
 * setgroups(2), which a direct unprivileged gid map denies.  Errors name
 * the field (linux.uidMappings, linux.gidMappings,
 * process.user.additionalGids) and what would make it work. */
int idmap_plan_decide (const struct idmap_caller *caller,
                       const struct oci_id_mapping *uid, size_t n_uid,
                       const struct oci_id_mapping *gid, size_t n_gid,
                       size_t n_groups, struct idmap_plan *out,
                       agentrt_error_t *err);

/* One subordinate range: ids start .. start + count - 1. */
struct idmap_range
{
  uint32_t start;
  uint32_t count;
};

/* The ranges /etc/subuid (or /etc/subgid) text gives the user `name`
 * (lines "name:start:count", or "uid:start:count" by number), for error
 * messages: at most max written to out, the number found returned.
 * Comments, blank and malformed lines, overflowing numbers and zero
 * counts are skipped. */
size_t idmap_subid_ranges (const char *text, const char *name, uid_t id,
                           struct idmap_range *out, size_t max);

/* Reading /proc/self/uid_map (or gid_map) text: lines "INSIDE OUTSIDE
 * COUNT", numbers padded with blanks, at most 340 lines.  -1 when the
 * text is not that (empty, a stray character, a number over 2^32 - 1, a
 * zero count, a range past 2^32 - 1, too many lines). */

/* The id `inside` stands for in the parent user namespace (*outside), 0;
 * -1 when the map does not map it or the text is not a map. */
int idmap_outer_id (const char *text, uint32_t inside, uint32_t *outside);

/* 1 when the map's lines are exactly the mappings m[0..n) (in any order),
 * 0 when they differ, -1 when the text is not a map.  A bundle that joins
 * a user namespace by path and gives mappings too (containerd's pods with
 * `hostUsers: false`) must give that namespace's own, as runc checks. */
int idmap_matches (const char *text, const struct oci_id_mapping *m,
                   size_t n);

#endif
