/* Reading every trail of the audit dir into a summary: the I/O half of
 * `agentrt audit --summary` (runtime/audit_summary.h is the pure half). */
#ifndef AGENTRT_AUDIT_SCAN_H
#define AGENTRT_AUDIT_SCAN_H

#include "common/error.h"
#include "runtime/audit_summary.h"

/* A line longer than this is skipped as damaged (a create line with every
 * change of a large bundle is a few hundred kB). */
#define AUDIT_SCAN_MAX_LINE (16u << 20)

/* Opens the dir as `agentrt audit ID` does (judged, no symlink followed:
 * audit_open.h) and feeds each ID.jsonl in it, in name order, to s.  A
 * trail that fails the same checks, or cannot be read, is counted as
 * refused with why, and the others are read; a trail last modified
 * before s's `since` is not read.  Fails only when the dir cannot be
 * opened or listed. */
int audit_scan (const char *dir, struct audit_summary *s, agentrt_error_t *err);

#endif
