/* UTF-8 validation shared by the JSON reader (strings decoded from \u
 * escapes) and the JSON writer (invalid bytes become U+FFFD). */
#ifndef AGENTRT_OCI_UTF8_H
#define AGENTRT_OCI_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (at most n bytes, n > 0),
 * 0 if it is not one: stray or missing continuation bytes, overlong forms,
 * surrogates and code points beyond U+10FFFF are all refused. */
size_t utf8_sequence (const unsigned char *s, size_t n);

bool utf8_valid (const char *s, size_t n);

#endif
