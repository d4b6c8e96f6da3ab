/* The audit line of one upstream connection (or one refused attempt),
 * written to the audit fd when it ends: who, where, what was decided and
 * how many bytes crossed.  Nothing from the payload or the headers.  When
 * a line cannot be written the proxy fails closed (see audit_write in
 * egress.h); the line that ends that says how many records were lost. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "common/timestamp.h"
#include "common/xalloc.h"
#include "ask_table.h"
#include "egress.h"
#include "oci/json_writer.h"
#include "runtime/fault.h"

/* stdio is off limits under the seccomp filter (it may fstat): format
 * and write(2) to stderr. */
static void __attribute__ ((format (printf, 1, 2)))
say (const char *fmt, ...)
{
  char msg[256];
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (msg, sizeof (msg), fmt, ap);
  va_end (ap);
  if (n > (int) sizeof (msg) - 1)
    n = (int) sizeof (msg) - 1;
  (void) io_write_all (STDERR_FILENO, msg, (size_t) n, NULL);
}

/* A line and its newline, whole (see audit_write).  A newline first when
 * an earlier short write left a broken line. */
static int
write_line (struct egress *eg, const char *line, size_t len)
{
  size_t done = 0;

  if (eg->audit_partial)
    {
      if (fault_fail ("egress:audit-write") < 0
          || io_write_all (eg->opt.audit_fd, "\n", 1, NULL) < 0)
        return -1;
      eg->audit_partial = false;
    }
  if (fault_fail ("egress:audit-write") < 0)
    return -1;
  if (io_write_all (eg->opt.audit_fd, line, len, &done) == 0)
    return 0;
  eg->audit_partial = done > 0;
  return -1;
}

static struct json_writer *
begin (const struct egress_options *o, const struct timespec *ts, const char *event)
{
  struct json_writer *w = json_writer_new (false);
  char when[TIMESTAMP_STR_LEN];

  /* RFC 3339 in UTC with milliseconds (no gmtime: see timestamp.h) */
  timestamp_format ((int64_t) ts->tv_sec * 1000000 + ts->tv_nsec / 1000, 3,
                    when);
  json_begin_object (w);
  json_kv_string (w, "time", when);
  json_kv_string (w, "event", event);
  json_kv_string (w, "id", o->id);
  return w;
}

static void
audit_failed (struct egress *eg, int error)
{
  eg->audit_lost++;
  if (eg->audit_failed)
    return;
  eg->audit_failed = true;
  eg->audit_shut = false;
  eg->audit_errno = error;
  say ("agentrt-egress: the audit trail cannot be written (%s): no "
       "connection is relayed until it can\n", strerror (error));
}

/* Writes w's line (and frees it); a line that cannot be written puts the
 * proxy in audit-failed mode.  -1 then. */
static int
emit (struct egress *eg, struct json_writer *w)
{
  size_t len;
  char *line = json_writer_finish_line (w, &len);
  int r = write_line (eg, line, len);

  if (r < 0)
    audit_failed (eg, errno);
  free (line);
  return r;
}

bool
audit_ready (struct egress *eg)
{
  struct json_writer *w;
  struct timespec now;
  size_t len;
  char *line;
  int r;

  if (!eg->audit_failed)
    return true;
  clock_gettime (CLOCK_REALTIME, &now);
  w = begin (&eg->opt, &now, "audit");
  json_kv_uint (w, "lost", eg->audit_lost);
  json_kv_string (w, "error", strerror (eg->audit_errno));
  json_kv_string (w, "detail", "the egress proxy could not write its audit "
                               "trail: `lost` connection records are missing, "
                               "and it relayed nothing meanwhile");
  line = json_writer_finish_line (w, &len);
  r = write_line (eg, line, len);
  free (line);
  if (r < 0)
    return false;
  eg->audit_failed = false;
  eg->audit_lost = 0;
  say ("agentrt-egress: the audit trail is written again\n");
  return true;
}

void
audit_say (const char *message)
{
  say ("%s\n", message);
}

void
audit_stopped (const struct egress_options *o, const char *message)
{
  struct json_writer *w;
  struct timespec now;
  size_t len;
  char *line;

  if (o->audit_fd < 0 || o->id == NULL)
    return;
  clock_gettime (CLOCK_REALTIME, &now);
  w = begin (o, &now, "sidecar");
  json_kv_string (w, "detail", message);
  line = json_writer_finish_line (w, &len);
  (void) io_write_all (o->audit_fd, line, len, NULL); /* it exits anyway */
  free (line);
}

void
audit_write (struct conn *c)
{
  struct egress *eg = c->eg;
  struct json_writer *w;
  char host[HOST_NAME_MAX_LEN + 1], addr[NETADDR_STR_LEN];
  bool have_host = c->host.is_addr || c->host.name[0];
  bool have_addr = c->naddrs > 0;

  if (eg->opt.audit_fd < 0)
    return;
  if (!audit_ready (eg))
    {
      eg->audit_lost++;
      return;
    }
  if (have_host)
    host_format (&c->host, false, host);
  if (have_addr)
    netaddr_format (&c->addrs[c->next_addr ? c->next_addr - 1 : 0], addr);
  w = begin (&eg->opt, &c->start_rt, "egress");
  json_kv_string (w, "proto", c->proto);
  json_kv_string (w, "via", c->via ? c->via : "proxy");
  json_kv_string (w, "host", have_host ? host : NULL);
  json_key (w, "port");
  if (c->port)
    json_uint (w, c->port);
  else
    json_null (w);
  json_kv_string (w, "addr", have_addr ? addr : NULL);
  json_kv_string (w, "decision", c->decision ? c->decision : "deny");
  json_kv_string (w, "reason", c->reason ? c->reason : "ok");
  if (c->asked)
    json_kv_string (w, "ask", c->asked);
  json_kv_uint (w, "bytes_up", c->bytes_up);
  json_kv_uint (w, "bytes_down", c->bytes_down);
  json_kv_uint (w, "duration_ms", eg->now_ms - c->start_ms);
  if (c->intercepted)
    json_kv_bool (w, "tls_intercepted", true);
  if (c->standin)
    json_kv_string (w, "standin", c->standin);
  emit (eg, w);
}

void
audit_inject (struct conn *c, const char *name, const char *method, size_t method_len,
              const char *path, size_t path_len)
{
  struct egress *eg = c->eg;
  char host[HOST_NAME_MAX_LEN + 1], *request;
  struct json_writer *w;
  struct timespec now;

  if (eg->opt.audit_fd < 0)
    return;
  if (!audit_ready (eg))
    {
      eg->audit_lost++;
      return;
    }
  if (path_len > 256)
    path_len = 256;
  request = xasprintf ("%.*s %.*s", (int) method_len, method, (int) path_len, path);
  host_format (&c->host, false, host);
  clock_gettime (CLOCK_REALTIME, &now);
  w = begin (&eg->opt, &now, "inject");
  json_kv_string (w, "credential", name);
  json_kv_string (w, "host", host);
  json_kv_uint (w, "port", c->port);
  json_kv_string (w, "request", request);
  emit (eg, w);
  free (request);
}

int
audit_dns (struct egress *eg, const char *proto, const char *name, const char *type,
           const char *decision, const char *reason, size_t answers, uint32_t ttl)
{
  struct json_writer *w;
  struct timespec now;

  if (eg->opt.audit_fd < 0)
    return 0;
  if (!audit_ready (eg))
    {
      eg->audit_lost++;
      return -1;
    }
  clock_gettime (CLOCK_REALTIME, &now);
  w = begin (&eg->opt, &now, "dns");
  json_kv_string (w, "proto", proto);
  json_kv_string (w, "name", name);
  json_kv_string (w, "type", type);
  json_kv_string (w, "decision", decision);
  json_kv_string (w, "reason", reason);
  json_kv_uint (w, "answers", answers);
  json_kv_uint (w, "ttl", ttl);
  return emit (eg, w);
}

void
audit_ask (struct egress *eg, const struct ask_pending *q, const char *answer,
           uid_t approver_uid)
{
  struct json_writer *w;

  if (eg->opt.audit_fd < 0)
    return;
  if (!audit_ready (eg))
    {
      eg->audit_lost++;
      return;
    }
  w = begin (&eg->opt, &q->start_rt, "ask");
  json_kv_uint (w, "qid", q->qid);
  json_kv_string (w, "proto", q->proto);
  json_kv_string (w, "via", q->via);
  json_kv_string (w, "host", q->host);
  json_kv_uint (w, "port", q->port);
  json_kv_string (w, "answer", answer);
  json_kv_uint (w, "approver_uid", approver_uid);
  json_kv_uint (w, "wait_ms", eg->now_ms - q->start_ms);
  json_kv_uint (w, "held", q->held);
  emit (eg, w);
}
