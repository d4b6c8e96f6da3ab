/* The error type shared by every layer (see error.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* Used when even the message cannot be allocated: the error still carries
 * its status, and callers never see a NULL message. */
static char out_of_memory_msg[] = "out of memory";

static void
free_msg (char *msg)
{
  if (msg != out_of_memory_msg)
    free (msg);
}

static int
set_error (agentrt_error_t *err, int status, char *msg)
{
  if (err == NULL)
    {
      free_msg (msg);
      return -1;
    }
  if (*err == NULL)
    {
      *err = calloc (1, sizeof (**err));
      if (*err == NULL)
        abort (); /* nothing sensible is left to report with */
    }
  else
    free_msg ((*err)->msg);
  (*err)->status = status;
  (*err)->msg = msg ? msg : out_of_memory_msg;
  return -1;
}

int
agentrt_error (agentrt_error_t *err, int status, const char *fmt, ...)
{
  char *base = NULL, *msg = NULL;
  va_list ap;

  va_start (ap, fmt);
  if (vasprintf (&base, fmt, ap) < 0)
    base = NULL;
  va_end (ap);

  if (base && status != 0)
    {
      if (asprintf (&msg, "%s: %s", base, strerror (status)) < 0)
        msg = NULL;
      free (base);
    }
  else
    msg = base;
  return set_error (err, status, msg);
}

int
agentrt_error_verbatim (agentrt_error_t *err, int status, const char *msg)
{
  char *copy = strdup (msg);
  return set_error (err, status, copy);
}

int
agentrt_error_wrap (agentrt_error_t *err, const char *fmt, ...)
{
  char *prefix = NULL, *msg = NULL;
  va_list ap;

  if (err == NULL || *err == NULL)
    return -1;

  va_start (ap, fmt);
  if (vasprintf (&prefix, fmt, ap) < 0)
    prefix = NULL;
  va_end (ap);

  if (prefix == NULL || asprintf (&msg, "%s: %s", prefix, (*err)->msg) < 0)
    msg = NULL;
  free (prefix);
  if (msg == NULL)
    return -1; /* keep the inner message rather than lose it */
  return set_error (err, (*err)->status, msg);
}

void
agentrt_error_release (agentrt_error_t *err)
{
  if (err == NULL || *err == NULL)
    return;
  free_msg ((*err)->msg);
  free (*err);
  *err = NULL;
}

void
agentrt_error_move (agentrt_error_t *to, agentrt_error_t *from)
{
  agentrt_error_release (to);
  *to = *from;
  *from = NULL;
}
