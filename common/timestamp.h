/* RFC 3339 timestamps, as the audit trail writes them
 * ("2026-11-29T14:00:01.123456789Z"), read strictly into microseconds
 * since the epoch; and written back in the same form. */
#ifndef AGENTRT_TIMESTAMP_H
#define AGENTRT_TIMESTAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses YYYY-MM-DDTHH:MM:SS[.F...]Z or with an offset (+HH:MM, -HH:MM);
 * 'T' and 'Z' in either case; a fraction of 1 to 9 digits (beyond the
 * microsecond truncated); second 60 (a leap second) read as 59.  With
 * date_only, a bare YYYY-MM-DD is midnight UTC.  A day the month lacks,
 * an hour over 23, a missing zone, any byte more or less: -1. */
int timestamp_parse (const char *s, bool date_only, int64_t *us);

/* "2026-11-29T14:00:01Z" (UTC) into buf of TIMESTAMP_STR_LEN (room for
 * what any int64 can hold), with `digits` digits of the second's fraction
 * (0 to 6, truncated: 3 gives "14:00:01.123Z").  No gmtime: it may read
 * /etc/localtime, which the egress sidecar's sandbox forbids. */
#define TIMESTAMP_STR_LEN 80
const char *timestamp_format (int64_t us, int digits,
                              char buf[TIMESTAMP_STR_LEN]);

#endif
