/* Log records for the CLI (see log.h).  With --log the records go to the
 * file only, like runc; errors also go to stderr so that a person sees them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/json_writer.h"
#include "runtime/log.h"

static int log_file_fd = -1;
static enum log_format log_format = LOG_FORMAT_TEXT;
static bool debug_enabled;

int
log_init (const char *path, enum log_format format, bool debug,
          agentrt_error_t *err)
{
  log_format = format;
  debug_enabled = debug;
  if (path == NULL || path[0] == '\0')
    return 0;
  log_file_fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (log_file_fd < 0)
    return agentrt_error (err, errno, "open log file `%s`", path);
  return 0;
}

int
log_fd (void)
{
  return log_file_fd;
}

bool
log_debug_enabled (void)
{
  return debug_enabled;
}

static void
format_time (char *buf, size_t len)
{
  struct timespec ts;
  struct tm tm;
  clock_gettime (CLOCK_REALTIME, &ts);
  gmtime_r (&ts.tv_sec, &tm);
  snprintf (buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ",
            tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
            tm.tm_min, tm.tm_sec, ts.tv_nsec);
}

static void
write_all (int fd, const char *buf, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, buf, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return;
      buf += n;
      len -= (size_t) n;
    }
}

static void
emit (const char *level, const char *msg)
{
  char now[64];
  int fd = log_file_fd >= 0 ? log_file_fd : STDERR_FILENO;

  format_time (now, sizeof now);
  if (log_format == LOG_FORMAT_JSON && log_file_fd >= 0)
    {
      struct json_writer *w = json_writer_new (false);
      cleanup_free char *line = NULL;
      size_t len;

      json_begin_object (w);
      json_kv_string (w, "level", level);
      json_kv_string (w, "msg", msg);
      json_kv_string (w, "time", now);
      json_end_object (w);
      line = json_writer_finish (w, &len);
      line = xrealloc (line, len + 2);
      line[len++] = '\n';
      write_all (fd, line, len);
      return;
    }
  if (log_file_fd >= 0)
    {
      cleanup_free char *line
          = xasprintf ("time=\"%s\" level=%s msg=\"%s\"\n", now, level, msg);
      write_all (fd, line, strlen (line));
      return;
    }
  {
    cleanup_free char *line = xasprintf ("agentrt: %s: %s\n", level, msg);
    write_all (fd, line, strlen (line));
  }
}

static void __attribute__ ((format (printf, 2, 0)))
emit_va (const char *level, const char *fmt, va_list ap)
{
  cleanup_free char *msg = NULL;
  if (vasprintf (&msg, fmt, ap) < 0)
    return;
  emit (level, msg);
}

void
log_warning (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  emit_va ("warning", fmt, ap);
  va_end (ap);
}

void
log_debug (const char *fmt, ...)
{
  va_list ap;
  if (!debug_enabled)
    return;
  va_start (ap, fmt);
  emit_va ("debug", fmt, ap);
  va_end (ap);
}

void
log_error_message (const char *msg)
{
  if (log_file_fd >= 0)
    emit ("error", msg);
  {
    cleanup_free char *line = xasprintf ("agentrt: %s\n", msg);
    write_all (STDERR_FILENO, line, strlen (line));
  }
}
