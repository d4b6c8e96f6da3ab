/* What the parts of the bind-mount hardening share (binds.c judges each
 * mount, bind_scan.c scans what a kept one exposes, persistence.c makes
 * what the host runs later read-only): the bind being judged, the kept
 * binds, and where their results go.  Internal to runtime/policy/. */
#ifndef AGENTRT_POLICY_BIND_RULES_H
#define AGENTRT_POLICY_BIND_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/config.h"
#include "changes.h"
#include "host_view.h"
#include "policy.h"

/* A bind mount kept after the first pass. */
struct kept_bind
{
  size_t index;       /* in the config's mounts at the first pass */
  char *dest;         /* clean container path */
  char *canon;        /* canonical host path (the open source) */
  struct host_node node;
  bool writable;      /* neither ro nor rro */
  bool recursive;     /* rbind */
};

/* A mount the hardening adds right after the kept bind `after`. */
struct added_mount
{
  size_t after;       /* index in binds_ctx.kept */
  struct oci_mount mount;
};

struct binds_ctx
{
  struct oci_config *config;
  const struct agent_policy *policy;
  const struct host_view *host;
  struct change_list *changes;
  /* Directives: masks that must be applied (a credential or socket found
   * on the host), and paths made read-only after the masks, which must
   * exist (or, for the second list, are created as empty directories). */
  struct str_list *required_masks;
  struct str_list *protected_paths;
  struct str_list *protected_dirs;

  struct kept_bind *kept;
  size_t n_kept;
  struct added_mount *added;
  size_t n_added;
  size_t scanned;     /* directory entries read so far (the scan budget) */
  /* The relative credential entries, sorted by their first component, and
   * which bytes those components start with (most names are rejected on
   * their first byte: every built-in one starts with a dot). */
  const char **credential_heads;
  size_t n_credential_heads;
  uint64_t head_first_bytes[4];
};

/* A home or a git directory the scan found in a writable bind, with the
 * entries it listed there: persistence.c judges what the scan read, with
 * no second listing. */
struct found_dir
{
  char *rel; /* below the bind's source, "" for the source itself */
  struct host_dirent *ents;
  size_t n;
};

struct found_dirs
{
  struct found_dir *items;
  size_t len;
};

void found_dirs_free (struct found_dirs *d);

/* Makes ctx's credential heads, once: before binds_credential_head. */
void binds_credential_heads (struct binds_ctx *ctx);

/* Whether the `len` bytes at `name` are the first component of a relative
 * credential entry (a miss, the usual case, is cheap). */
bool binds_credential_head (const struct binds_ctx *ctx, const char *name,
                            size_t len);

/* Masks the container path (linux.maskedPaths and the required masks),
 * recording why; a path masked already is left alone. */
void binds_mask (struct binds_ctx *ctx, const char *container_path,
                 const char *why);

/* The container paths where the host path `target` is visible through
 * the kept binds (appended to *out). */
void binds_container_paths (const struct binds_ctx *ctx, const char *target,
                            struct str_list *out);

/* Scans the kept directory bind kb (see bind_scan.c).  Homes and git
 * directories found in a writable bind are appended to *homes and *git. */
int bind_scan (struct binds_ctx *ctx, const struct kept_bind *kb,
               struct found_dirs *homes, struct found_dirs *git,
               agentrt_error_t *err);

/* Makes what the host runs later read-only in the writable bind kb, for
 * the homes and git directories bind_scan found (see persistence.c). */
int persistence_protect (struct binds_ctx *ctx, size_t kept_index,
                         const struct found_dirs *homes,
                         const struct found_dirs *git, agentrt_error_t *err);

#endif
