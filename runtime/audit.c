/* Writing the audit trail (see audit.h). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "oci/json_writer.h"
#include "runtime/audit.h"
#include "runtime/container.h"
#include "runtime/fault.h"

/* One line with a single write(2), so that writers interleave by whole
 * lines (O_APPEND); EINTR is retried, and so is the rest of a short write
 * (a disk that filled up on the way: then the rest fails).  *partial:
 * part of it went out, and the trail now ends in a broken line. */
static int
write_line (int fd, const char *line, size_t len, const char *point,
            bool *partial)
{
  size_t done = 0;

  if (fault_fail (point) < 0)
    return -1;
  if (io_write_all (fd, line, len, &done) == 0)
    return 0;
  if (partial && done > 0)
    *partial = true;
  return -1;
}

static struct json_writer *
begin (const char *id, const char *event)
{
  cleanup_free char *now = container_timestamp ();
  struct json_writer *w = json_writer_new (false);
  json_begin_object (w);
  json_kv_string (w, "time", now);
  json_kv_string (w, "id", id);
  json_kv_string (w, "event", event);
  return w;
}

/* create and exec: written now, or the command fails. */
static int
emit (int fd, struct json_writer *w, const char *event, agentrt_error_t *err)
{
  size_t len;
  cleanup_free char *line = json_writer_finish_line (w, &len);

  if (write_line (fd, line, len, "audit:write", NULL) < 0)
    return agentrt_error (err, errno, "audit: write the %s event", event);
  return 0;
}

int
audit_create (int fd, const char *id, const struct harden_result *result,
              agentrt_error_t *err)
{
  struct json_writer *w = begin (id, "create");
  json_kv_bool (w, "hardened", result != NULL);
  if (result)
    {
      json_key (w, "directives");
      harden_directives_write_json (&result->directives, w);
      json_key (w, "changes");
      change_list_write_json (&result->changes, w);
    }
  else
    json_kv_string (w, "reason", "hardening is off in the admin policy");
  return emit (fd, w, "create", err);
}

int
audit_exec (int fd, const char *id, const char *program,
            const struct change_list *changes, agentrt_error_t *err)
{
  struct json_writer *w = begin (id, "exec");
  json_kv_string (w, "program", program);
  if (changes)
    {
      json_key (w, "changes");
      change_list_write_json (changes, w);
    }
  return emit (fd, w, "exec", err);
}

/* ---- the monitor's trail ---- */

void
audit_trail_init (struct audit_trail *t, int fd, const char *id)
{
  memset (t, 0, sizeof *t);
  t->fd = fd;
  t->id = id;
}

void
audit_trail_release (struct audit_trail *t)
{
  while (t->npending)
    free (t->pending[--t->npending]);
}

static void
enqueue (struct audit_trail *t, char *line)
{
  if (t->npending == AUDIT_PENDING_MAX)
    {
      free (t->pending[0]);
      memmove (t->pending, t->pending + 1,
               (AUDIT_PENDING_MAX - 1) * sizeof *t->pending);
      t->npending--;
      t->lost++;
    }
  t->pending[t->npending++] = line;
}

/* A line of the trail's, after a newline that ends the broken one a
 * short write left (so that only that one fails to parse). */
static int
trail_write (struct audit_trail *t, const char *line, size_t len)
{
  if (t->partial
      && write_line (t->fd, "\n", 1, "audit:trail-write", NULL) == 0)
    t->partial = false;
  if (!t->partial
      && write_line (t->fd, line, len, "audit:trail-write", &t->partial) == 0)
    return 0;
  t->error = errno;
  return -1;
}

/* The line that says lines were late or lost, once none waits. */
static int
write_note (struct audit_trail *t)
{
  struct json_writer *w = begin (t->id, "audit");
  cleanup_free char *line = NULL;
  size_t len;

  json_kv_uint (w, "late", t->late);
  json_kv_uint (w, "lost", t->lost);
  json_kv_string (w, "error", strerror (t->error));
  json_kv_string (w, "detail", "events of this trail could not be written "
                               "when they happened: `late` were written "
                               "since, `lost` never will be");
  line = json_writer_finish_line (w, &len);
  if (trail_write (t, line, len) < 0)
    return -1;
  t->late = t->lost = 0;
  return 0;
}

int
audit_trail_flush (struct audit_trail *t)
{
  size_t done = 0;

  while (done < t->npending)
    {
      const char *line = t->pending[done];
      if (trail_write (t, line, strlen (line)) < 0)
        break;
      free (t->pending[done++]);
      t->late++;
    }
  memmove (t->pending, t->pending + done,
           (t->npending - done) * sizeof *t->pending);
  t->npending -= done;
  if (t->npending)
    return -1;
  return t->late || t->lost ? write_note (t) : 0;
}

int
audit_trail_drain (struct audit_trail *t, unsigned ms)
{
  const struct timespec wait = { .tv_nsec = 100 * 1000000L };
  unsigned waited = 0;
  int r;

  while ((r = audit_trail_flush (t)) < 0 && waited < ms)
    {
      nanosleep (&wait, NULL);
      waited += 100;
    }
  return r;
}

/* A line of the monitor's: written after what waits, or waits too. */
static int
trail_emit (struct audit_trail *t, struct json_writer *w)
{
  size_t len;
  char *line = json_writer_finish_line (w, &len);

  if (audit_trail_flush (t) == 0 && trail_write (t, line, len) == 0)
    {
      free (line);
      return 0;
    }
  enqueue (t, line);
  return -1;
}

/* {"event": EVENT, EVENT: kind, "detail": detail} */
static int
kind_event (struct audit_trail *t, const char *event, const char *kind,
            const char *detail)
{
  struct json_writer *w = begin (t->id, event);
  json_kv_string (w, event, kind);
  json_kv_string (w, "detail", detail);
  return trail_emit (t, w);
}

int
audit_limit (struct audit_trail *t, const char *kind, const char *detail)
{
  return kind_event (t, "limit", kind, detail);
}

int
audit_incident (struct audit_trail *t, const char *kind, const char *detail)
{
  return kind_event (t, "incident", kind, detail);
}

int
audit_sidecar_died (struct audit_trail *t, int status, const char *why)
{
  struct json_writer *w = begin (t->id, "sidecar");
  cleanup_free char *detail = xasprintf ("the egress proxy stopped%s%s: the "
                                         "agent has no egress any more",
                                         why ? ", " : "", why ? why : "");
  json_kv_string (w, "detail", detail);
  json_kv_int (w, "status", status);
  return trail_emit (t, w);
}

int
audit_sidecar_failed (struct audit_trail *t, const char *why)
{
  struct json_writer *w = begin (t->id, "sidecar");
  cleanup_free char *detail = xasprintf ("the egress proxy could not start "
                                         "(%s): the agent has no egress", why);
  json_kv_string (w, "detail", detail);
  return trail_emit (t, w);
}

int
audit_exit (struct audit_trail *t, int status, uint64_t lifetime_ms)
{
  struct json_writer *w = begin (t->id, "exit");
  if (status < 0)
    json_kv_string (w, "status", "unknown");
  else if (WIFSIGNALED (status))
    json_kv_int (w, "signal", WTERMSIG (status));
  else
    json_kv_int (w, "status", WEXITSTATUS (status));
  json_kv_uint (w, "lifetime_ms", lifetime_ms);
  return trail_emit (t, w);
}
