/* The one error type: fallible functions take `agentrt_error_t *err` last,
 * return < 0 (or NULL) on failure and leave {errno, message} here.  Each
 * layer adds context with agentrt_error_wrap(); only the CLI prints. */
#ifndef AGENTRT_ERROR_H
#define AGENTRT_ERROR_H

#include <stdarg.h>

struct agentrt_error
{
  int status; /* errno value, 0 when the failure has no errno */
  char *msg;  /* complete message, errno text included */
};
typedef struct agentrt_error *agentrt_error_t;

/* Sets *err to "<fmt>: strerror(status)" (or just <fmt> when status is 0)
 * and returns -1 so callers can `return agentrt_error (err, ...)`. */
int agentrt_error (agentrt_error_t *err, int status, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Sets *err to msg exactly as given (a message formatted elsewhere, errno
 * text included) with the given status; returns -1. */
int agentrt_error_verbatim (agentrt_error_t *err, int status, const char *msg);

/* Prefixes the existing message with "<fmt>: " and returns -1. */
int agentrt_error_wrap (agentrt_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Drops the error (after it was reported or deliberately ignored). */
void agentrt_error_release (agentrt_error_t *err);

/* Moves *from into *to (freeing what *to held). */
void agentrt_error_move (agentrt_error_t *to, agentrt_error_t *from);

#endif
