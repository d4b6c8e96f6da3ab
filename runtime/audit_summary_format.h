/* `agentrt audit --summary`'s output (struct audit_summary, after
 * audit_summary_finish): a table for people, JSON for scripts.  Lists of
 * names (hosts, reasons, containers) stop after `top` entries (0: all)
 * and say how many more there were.  Names come from the trails: the
 * table shows control bytes as `?` and cuts names at 80 bytes; the JSON
 * escapes them. */
#ifndef AGENTRT_AUDIT_SUMMARY_FORMAT_H
#define AGENTRT_AUDIT_SUMMARY_FORMAT_H

#include <stddef.h>

#include "runtime/audit_summary.h"

/* Both malloc'd, ending in a newline; dir is the audit dir read. */
char *audit_summary_table (const struct audit_summary *s, const char *dir,
                           size_t top);
char *audit_summary_json (const struct audit_summary *s, const char *dir,
                          size_t top);

/* A duration for people: "850ms", "12s", "4m12s", "1h03m", "2d03h". */
#define AUDIT_DURATION_LEN 32
const char *audit_format_duration (uint64_t ms, char buf[AUDIT_DURATION_LEN]);

#endif
