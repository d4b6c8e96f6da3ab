/* Allocation helpers that abort on exhaustion (see xalloc.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

static void __attribute__ ((noreturn))
out_of_memory (void)
{
  static const char msg[] = "agentrt: out of memory\n";
  if (write (STDERR_FILENO, msg, sizeof msg - 1) < 0)
    { /* nothing left to do */ }
  abort ();
}

static void *
check (void *p)
{
  if (p == NULL)
    out_of_memory ();
  return p;
}

void *
xmalloc (size_t size)
{
  return check (malloc (size ? size : 1));
}

void *
xzalloc (size_t size)
{
  return check (calloc (1, size ? size : 1));
}

void *
xrealloc (void *p, size_t size)
{
  return check (realloc (p, size ? size : 1));
}

void *
xreallocarray (void *p, size_t nmemb, size_t size)
{
  return check (reallocarray (p, nmemb ? nmemb : 1, size ? size : 1));
}

char *
xstrdup (const char *s)
{
  return s ? check (strdup (s)) : NULL;
}

char *
xstrndup (const char *s, size_t n)
{
  return check (strndup (s, n));
}

char *
xasprintf (const char *fmt, ...)
{
  char *s = NULL;
  va_list ap;
  va_start (ap, fmt);
  if (vasprintf (&s, fmt, ap) < 0)
    s = NULL;
  va_end (ap);
  return check (s);
}
