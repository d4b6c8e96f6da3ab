/* "Did you mean": the known word closest to a mistyped one. */
#ifndef AGENTRT_CLOSEST_H
#define AGENTRT_CLOSEST_H

#include <stddef.h>

/* The word of CANDIDATES (NULL-terminated) closest to WORD by edit distance,
 * ignoring ASCII case, when it is at most MAX edits away; else NULL (also
 * for words longer than 64 bytes: nobody mistypes those). */
const char *closest_word (const char *word, const char *const *candidates,
                          size_t max);

#endif
