/* The audit line of one upstream connection (or one refused attempt),
 * written to the audit fd when it ends: who, where, what was decided and
 * how many bytes crossed.  Nothing from the payload or the headers. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "egress.h"
#include "oci/json_writer.h"

/* RFC 3339 in UTC with milliseconds.  Written by hand: gmtime_r may read
 * /etc/localtime on first use, which the sandbox forbids. */
static void
format_time (const struct timespec *ts, char *buf, size_t size)
{
  int64_t secs = ts->tv_sec, days = secs / 86400, rem = secs % 86400;
  int64_t z, era, doe, yoe, y, doy, mp, d, m;

  if (rem < 0)
    {
      rem += 86400;
      days--;
    }
  /* Days to civil date (H. Hinnant's algorithm). */
  z = days + 719468;
  era = (z >= 0 ? z : z - 146096) / 146097;
  doe = z - era * 146097;
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = yoe + era * 400;
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  snprintf (buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", (int) (y % 10000), (int) m,
            (int) d, (int) (rem / 3600), (int) (rem / 60 % 60), (int) (rem % 60),
            (int) (ts->tv_nsec / 1000000));
}

/* Starts a line with the fields every event has. */
static struct json_writer *
line_start (struct egress *eg, const struct timespec *start, const char *event)
{
  struct json_writer *w = json_writer_new (false);
  char when[64];

  format_time (start, when, sizeof (when));
  json_begin_object (w);
  json_kv_string (w, "time", when);
  json_kv_string (w, "event", event);
  json_kv_string (w, "id", eg->opt.id);
  return w;
}

static void
line_finish (struct egress *eg, struct json_writer *w)
{
  struct iovec iov[2];
  size_t len;
  char *line;

  json_end_object (w);
  line = json_writer_finish (w, &len);
  iov[0] = (struct iovec){ line, len };
  iov[1] = (struct iovec){ "\n", 1 };
  /* One writev: with O_APPEND the line lands whole.  A full or broken
   * audit pipe must not stop forwarding; the runtime notices a dead reader. */
  (void) !writev (eg->opt.audit_fd, iov, 2);
  free (line);
}

void
audit_write (struct conn *c)
{
  struct json_writer *w;
  char host[HOST_NAME_MAX_LEN + 1], addr[NETADDR_STR_LEN];
  bool have_host = c->host.is_addr || c->host.name[0];
  bool have_addr = c->naddrs > 0;

  if (c->eg->opt.audit_fd < 0)
    return;
  if (have_host)
    host_format (&c->host, false, host);
  if (have_addr)
    netaddr_format (&c->addrs[c->next_addr ? c->next_addr - 1 : 0], addr);
  w = line_start (c->eg, &c->start_rt, "egress");
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
  json_kv_uint (w, "bytes_up", c->bytes_up);
  json_kv_uint (w, "bytes_down", c->bytes_down);
  json_kv_uint (w, "duration_ms", c->eg->now_ms - c->start_ms);
  line_finish (c->eg, w);
}

void
audit_dns (struct egress *eg, const char *proto, const char *name, const char *type,
           const char *decision, const char *reason, size_t answers, uint32_t ttl)
{
  struct json_writer *w;
  struct timespec now;

  if (eg->opt.audit_fd < 0)
    return;
  clock_gettime (CLOCK_REALTIME, &now);
  w = line_start (eg, &now, "dns");
  json_kv_string (w, "proto", proto);
  json_kv_string (w, "name", name);
  json_kv_string (w, "type", type);
  json_kv_string (w, "decision", decision);
  json_kv_string (w, "reason", reason);
  json_kv_uint (w, "answers", answers);
  json_kv_uint (w, "ttl", ttl);
  line_finish (eg, w);
}
