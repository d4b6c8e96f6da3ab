/* Fixed-size errors for the init between clone and exec (see child_error.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/child_error.h"

int
child_error (struct child_error *cerr, int status, const char *fmt, ...)
{
  va_list ap;
  int n;

  cerr->status = status;
  va_start (ap, fmt);
  n = vsnprintf (cerr->msg, sizeof cerr->msg, fmt, ap);
  va_end (ap);
  if (status != 0 && n >= 0 && (size_t) n < sizeof cerr->msg)
    {
      char errbuf[128];
      /* strerror_r (GNU) may return a static string; it never allocates */
      const char *e = strerror_r (status, errbuf, sizeof errbuf);
      snprintf (cerr->msg + n, sizeof cerr->msg - (size_t) n, ": %s", e);
    }
  return -1;
}
