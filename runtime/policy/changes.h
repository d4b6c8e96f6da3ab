/* The list of changes the hardening step made, each {kind, what, why}, and
 * its renderings for `policy explain` and the audit trail (text: one line
 * per change; JSON: through oci/json_writer.h).  Changes name environment
 * variables, never their values. */
#ifndef AGENTRT_POLICY_CHANGES_H
#define AGENTRT_POLICY_CHANGES_H

#include <stddef.h>

#include "oci/json_writer.h"

enum change_kind
{
  CHANGE_ENV_REMOVED,    /* a secret-looking variable was removed */
  CHANGE_ENV_KEPT,       /* ... kept because of run.agentrt.env.keep */
  CHANGE_ENV_SET,        /* a variable was set (proxy, HOME) */
  CHANGE_MOUNT_DROPPED,  /* a bind mount was not kept */
  CHANGE_MOUNT_SOURCE,   /* a bind source was replaced by its real path */
  CHANGE_PATH_MASKED,    /* a container path added to linux.maskedPaths */
  CHANGE_TMPFS,          /* a size-limited tmpfs added or put in place */
  CHANGE_ROOTFS,         /* root filesystem mode */
  CHANGE_CAPABILITY,     /* capabilities removed or a set cleared */
  CHANGE_NO_NEW_PRIVS,   /* noNewPrivileges forced */
  CHANGE_LIMIT,          /* pids, memory or swap limit added */
  CHANGE_LIFETIME,       /* wall-clock lifetime */
  CHANGE_NAMESPACE,      /* namespace added */
  CHANGE_EGRESS,         /* egress mode and allowlist */
  CHANGE_SECCOMP,        /* agent seccomp profile stacked */
  CHANGE_KERNEL_PATH,    /* a /proc or /sys path masked or made read-only */
  CHANGE_DEVICE,         /* a device removed, or the device rules replaced */
  CHANGE_MOUNT_OPTIONS,  /* a mount's options forced (ro, nosuid...) */
  CHANGE_PATH_READONLY,  /* a path made read-only (host-side persistence) */
  CHANGE_POLICY,         /* a user's own policy file read over the admin's */
};

struct change
{
  enum change_kind kind;
  char *what;
  char *why; /* in the block of `what` (one allocation a change) */
};

/* Grown through change_add only: `cap` is the room in items. */
struct change_list
{
  struct change *items;
  size_t len, cap;
};

/* "env-removed", "mount-dropped", ... (stable: the audit trail uses them). */
const char *change_kind_name (enum change_kind kind);

/* Appends a change; `what` and `why` are copied. */
void change_add (struct change_list *list, enum change_kind kind,
                 const char *what, const char *why);
void change_addf (struct change_list *list, enum change_kind kind,
                  const char *why, const char *what_fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

void change_list_release (struct change_list *list);

/* One line per change, "kind: what (why)\n"; "" for an empty list.
 * Returns a malloc'd string. */
char *change_list_to_text (const struct change_list *list);

/* Writes the list as a JSON array of {"kind","what","why"} objects (as a
 * value: after json_key, or inside an array). */
void change_list_write_json (const struct change_list *list,
                             struct json_writer *w);

#endif
