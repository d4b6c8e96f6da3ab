/* Punycode (RFC 3492): the ASCII form of an internationalised DNS label,
 * as written in host names (`xn--bcher-kva` for `bücher`).  Used to read
 * the Public Suffix List, whose IDN rules are in UTF-8, in the form that
 * allowlist entries and requests use.  Pure code: no I/O, no allocation. */
#ifndef AGENTRT_EGRESS_PUNYCODE_H
#define AGENTRT_EGRESS_PUNYCODE_H

#include <stdbool.h>
#include <stddef.h>

/* The longest DNS label. */
#define PUNYCODE_LABEL_MAX 63

/* Writes the ASCII form of the label in[0..len) (UTF-8, no dot) to out
 * (PUNYCODE_LABEL_MAX + 1 bytes, NUL-terminated): the label itself when it
 * is all ASCII, else "xn--" and its Punycode encoding.  No case mapping
 * or normalisation is done (the list is lowercase NFC already).  False
 * when the input is empty, is not valid UTF-8 (overlong forms, surrogates
 * and code points past U+10FFFF included), holds a control character or
 * gives a label longer than PUNYCODE_LABEL_MAX. */
bool punycode_label (const char *in, size_t len, char *out);

#endif
