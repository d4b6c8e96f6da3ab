/* Allocation that cannot fail: running out of memory in a short-lived CLI
 * is not recoverable, so these abort instead of returning NULL. */
#ifndef AGENTRT_XALLOC_H
#define AGENTRT_XALLOC_H

#include <stddef.h>

void *xmalloc (size_t size);
void *xzalloc (size_t size);
void *xrealloc (void *p, size_t size);
/* Grows an array of nmemb elements of size bytes, failing on overflow. */
void *xreallocarray (void *p, size_t nmemb, size_t size);
char *xstrdup (const char *s);
char *xstrndup (const char *s, size_t n);
char *xasprintf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

#endif
