/* Logging for the CLI: warnings and debug lines to stderr or --log FILE,
 * in text or runc-style JSON ({"level":..,"msg":..,"time":..}). */
#ifndef AGENTRT_LOG_H
#define AGENTRT_LOG_H

#include <stdbool.h>

#include "common/error.h"

enum log_format
{
  LOG_FORMAT_TEXT,
  LOG_FORMAT_JSON,
};

/* path NULL: stderr only.  Returns < 0 if the log file cannot be opened. */
int log_init (const char *path, enum log_format format, bool debug,
              agentrt_error_t *err);

void log_warning (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
void log_debug (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
bool log_debug_enabled (void);

/* Reports a failure: one line on stderr and, with --log, one "error" record
 * (the last line engines read and show to the user). */
void log_error_message (const char *msg);

/* The log file's fd (or -1), so that a forked helper can keep logging. */
int log_fd (void);

#endif
