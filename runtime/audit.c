/* Writing the audit trail (see audit.h). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/json_writer.h"
#include "runtime/audit.h"
#include "runtime/container.h"

/* One line, written with a single write(2) so that writers interleave by
 * whole lines (O_APPEND). */
static int
emit (int fd, struct json_writer *w)
{
  size_t len;
  char *line;
  ssize_t n;

  json_end_object (w);
  line = json_writer_finish (w, &len);
  line = xrealloc (line, len + 1);
  line[len++] = '\n';
  n = write (fd, line, len);
  free (line);
  return n == (ssize_t) len ? 0 : -1;
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
  if (emit (fd, w) < 0)
    return agentrt_error (err, errno ? errno : EIO, "audit: write the create "
                          "event");
  return 0;
}

void
audit_exec (int fd, const char *id, const char *program,
            const struct change_list *changes)
{
  struct json_writer *w = begin (id, "exec");
  json_kv_string (w, "program", program);
  if (changes)
    {
      json_key (w, "changes");
      change_list_write_json (changes, w);
    }
  emit (fd, w);
}

void
audit_limit (int fd, const char *id, const char *kind, const char *detail)
{
  struct json_writer *w = begin (id, "limit");
  json_kv_string (w, "limit", kind);
  json_kv_string (w, "detail", detail);
  emit (fd, w);
}

void
audit_sidecar_died (int fd, const char *id, int status)
{
  struct json_writer *w = begin (id, "sidecar");
  json_kv_string (w, "detail", "the egress proxy stopped: the agent has no "
                               "egress any more");
  json_kv_int (w, "status", status);
  emit (fd, w);
}

void
audit_exit (int fd, const char *id, int status, uint64_t lifetime_ms)
{
  struct json_writer *w = begin (id, "exit");
  if (status < 0)
    json_kv_string (w, "status", "unknown");
  else if (WIFSIGNALED (status))
    json_kv_int (w, "signal", WTERMSIG (status));
  else
    json_kv_int (w, "status", WEXITSTATUS (status));
  json_kv_uint (w, "lifetime_ms", lifetime_ms);
  emit (fd, w);
}
