/* `agentrt audit --summary`'s pure parts: the RFC 3339 reader
 * (common/timestamp.c), the bounded tally (common/tally.c), one trail
 * line read back (oci/audit_record.c) and the aggregation and its output
 * (runtime/audit_summary*.c).  Hostile input first: every damaged line is
 * refused with a reason, counted and skipped, never fatal; names from the
 * trails cannot flood memory or the terminal.  Then the figures, on
 * trails whose answers are known. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/tally.h"
#include "common/timestamp.h"
#include "common/xalloc.h"
#include "oci/audit_record.h"
#include "oci/json_tree.h"
#include "runtime/audit_summary.h"
#include "runtime/audit_summary_format.h"
#include "tests/unit/unit.h"

#define T0 "2026-11-29T14:00:00.000000000Z"
#define T1 "2026-11-29T15:00:00.000Z"
#define T2 "2026-11-30T14:00:00Z"

/* ---- timestamps ---- */

static void
test_timestamp_refuses_hostile (void)
{
  static const char *const bad[] = {
    "", "2026", "2026-11-29T", "2026-11-29T14:00", "2026-11-29T14:00:00",
    "2026-11-29 14:00:00Z", " 2026-11-29T14:00:00Z", "2026-11-29T14:00:00Z ",
    "2026-11-29T14:00:00Zjunk", "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
    "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z",
    "2026-01-01T00:00:61Z", "2026-01-01T00:00:00.Z",
    "2026-01-01T00:00:00.1234567890Z", "2026-01-01T00:00:00+24:00",
    "2026-01-01T00:00:00+05:60", "2026-01-01T00:00:00+0500",
    "2026-01-01T00:00:00+05:00:00", "2026-1-01T00:00:00Z",
    "+2026-01-01T00:00:00Z", "-001-01-01T00:00:00Z", "2026/01/01T00:00:00Z",
    "2026-01-01T0a:00:00Z", ("\xef\xbc\x92" "026-01-01T00:00:00Z"),
    "2026-11-29", /* a date only where a time is due */
  };
  int64_t us = 42;

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      bool date_ok = i + 1 < sizeof bad / sizeof bad[0];
      if (timestamp_parse (bad[i], false, &us) == 0
          || (date_ok && timestamp_parse (bad[i], true, &us) == 0))
        fprintf (stderr, "taken: \"%s\"\n", bad[i]);
      CHECK (timestamp_parse (bad[i], false, &us) < 0);
      CHECK (!date_ok || timestamp_parse (bad[i], true, &us) < 0);
    }
  CHECK (us == 42);
}

static int64_t
utc (int y, int mo, int d, int h, int mi, int s)
{
  struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
                   .tm_hour = h, .tm_min = mi, .tm_sec = s };
  return (int64_t) timegm (&tm) * 1000000;
}

static void
test_timestamp_reads_rfc3339 (void)
{
  char buf[TIMESTAMP_STR_LEN];
  int64_t us;

  CHECK (timestamp_parse ("1970-01-01T00:00:00Z", false, &us) == 0 && us == 0);
  CHECK (timestamp_parse ("2026-11-29T14:00:01Z", false, &us) == 0
         && us == utc (2026, 11, 29, 14, 0, 1));
  CHECK (timestamp_parse ("2026-11-29t14:00:01z", false, &us) == 0
         && us == utc (2026, 11, 29, 14, 0, 1));
  CHECK (timestamp_parse ("2026-11-29T14:00:01.123Z", false, &us) == 0
         && us == utc (2026, 11, 29, 14, 0, 1) + 123000);
  /* nanoseconds, as create writes them: cut to the microsecond */
  CHECK (timestamp_parse ("2026-11-29T14:00:01.123456789Z", false, &us) == 0
         && us == utc (2026, 11, 29, 14, 0, 1) + 123456);
  CHECK (timestamp_parse ("2026-11-29T15:30:01+01:30", false, &us) == 0
         && us == utc (2026, 11, 29, 14, 0, 1));
  CHECK (timestamp_parse ("2026-11-29T12:00:01-02:00", false, &us) == 0
         && us == utc (2026, 11, 29, 14, 0, 1));
  CHECK (timestamp_parse ("2024-02-29T00:00:00Z", false, &us) == 0
         && us == utc (2024, 2, 29, 0, 0, 0));
  CHECK (timestamp_parse ("2000-02-29T00:00:00Z", false, &us) == 0);
  CHECK (timestamp_parse ("2016-12-31T23:59:60Z", false, &us) == 0
         && us == utc (2016, 12, 31, 23, 59, 59));
  CHECK (timestamp_parse ("1969-12-31T23:59:59Z", false, &us) == 0
         && us == -1000000);
  CHECK (timestamp_parse ("2026-11-29", true, &us) == 0
         && us == utc (2026, 11, 29, 0, 0, 0));
  CHECK_STR_EQ (timestamp_format (utc (2026, 11, 29, 14, 0, 1) + 999999, 0, buf),
                "2026-11-29T14:00:01Z");
  CHECK_STR_EQ (timestamp_format (-1, 0, buf), "1969-12-31T23:59:59Z");
  CHECK_STR_EQ (timestamp_format (utc (2024, 2, 29, 0, 0, 0), 0, buf),
                "2024-02-29T00:00:00Z");
  /* the egress sidecar's milliseconds, truncated; a fraction before 1970 */
  CHECK_STR_EQ (timestamp_format (utc (2026, 11, 29, 14, 0, 1) + 999999, 3, buf),
                "2026-11-29T14:00:01.999Z");
  CHECK_STR_EQ (timestamp_format (utc (2026, 11, 29, 14, 0, 1) + 5000, 3, buf),
                "2026-11-29T14:00:01.005Z");
  CHECK_STR_EQ (timestamp_format (-1, 6, buf), "1969-12-31T23:59:59.999999Z");
  CHECK_STR_EQ (timestamp_format (12, 9, buf), "1970-01-01T00:00:00.000012Z");
  /* what it writes, timestamp_parse reads back */
  CHECK (timestamp_parse (timestamp_format (-1, 6, buf), false, &us) == 0
         && us == -1);
}

/* ---- the tally ---- */

static void
test_tally_is_bounded (void)
{
  struct tally t;
  char key[32];

  tally_init (&t, 3);
  tally_add (&t, "a", 1);
  tally_add (&t, "b", 2);
  tally_add (&t, "c", 3);
  tally_add (&t, "d", 4); /* beyond the bound: counted as other */
  tally_add (&t, "a", 10);
  tally_add (&t, "\xff\xfe", 1);
  CHECK (t.len == 3 && t.other == 5 && t.total == 21);
  CHECK (tally_get (&t, "a") == 11 && tally_get (&t, "d") == 0);
  tally_release (&t);

  /* 200000 distinct names: 65536 held, the rest counted, none lost */
  tally_init (&t, 65536);
  for (int i = 0; i < 200000; i++)
    {
      snprintf (key, sizeof key, "host-%d.example", i);
      tally_add (&t, key, 1);
    }
  CHECK (t.len == 65536 && t.other == 200000 - 65536 && t.total == 200000);
  tally_release (&t);
}

static void
test_tally_sorts (void)
{
  cleanup_free const struct tally_entry **sorted = NULL;
  struct tally t;

  tally_init (&t, 100);
  CHECK (tally_sorted (&t) == NULL);
  tally_add (&t, "b", 2);
  tally_add (&t, "a", 2);
  tally_add (&t, "z", 5);
  tally_add (&t, "c", 1);
  sorted = tally_sorted (&t);
  CHECK_STR_EQ (sorted[0]->key, "z");
  CHECK_STR_EQ (sorted[1]->key, "a"); /* a tie: by name */
  CHECK_STR_EQ (sorted[2]->key, "b");
  CHECK_STR_EQ (sorted[3]->key, "c");
  tally_release (&t);
}

/* ---- one line ---- */

/* parse_err: the error audit_record_parse gives (NULL when it took it). */
static char *
parse_err (const char *line, size_t len)
{
  cleanup_error agentrt_error_t err = NULL;
  struct audit_record r;
  char *msg;

  memset (&r, 0x5a, sizeof r);
  if (audit_record_parse (line, len, &r, &err) == 0)
    {
      audit_record_release (&r);
      return NULL;
    }
  msg = xstrdup (err && err->msg ? err->msg : "(no message)");
  /* released on failure: nothing left to free, nothing dangling */
  CHECK (r.changes == NULL && r.host == NULL && r.kind == NULL);
  return msg;
}

static void
check_refused (const char *line, const char *needle)
{
  cleanup_free char *msg = parse_err (line, strlen (line));
  if (msg == NULL || strstr (msg, needle) == NULL)
    fprintf (stderr, "line %s: want \"%s\", got \"%s\"\n", line, needle,
             msg ? msg : "(taken)");
  CHECK (msg != NULL && strstr (msg, needle) != NULL);
}

static void
test_record_refuses_damaged_lines (void)
{
  char deep[600], nul[] = "{\"time\":\"" T0 "\",\"event\":\"e\0xit\"}";
  cleanup_free char *msg = NULL;
  size_t n = 0;

  check_refused ("", "audit");
  check_refused ("{", "audit");
  check_refused ("[]", "expected an object");
  check_refused ("null", "expected an object");
  check_refused ("\"exit\"", "expected an object");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":0}{}",
                 "audit");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":0} x",
                 "audit");
  check_refused ("{\"event\":\"exit\",\"status\":0}", "time: missing");
  check_refused ("{\"time\":\"" T0 "\",\"status\":0}", "event: missing");
  check_refused ("{\"time\":\"yesterday\",\"event\":\"exit\"}", "time: not an RFC 3339");
  check_refused ("{\"time\":1,\"event\":\"exit\"}", "time: expected a string");
  check_refused ("{\"time\":\"" T0 "\",\"event\":1}", "event: expected a string");
  /* exit */
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\"}", "status: missing");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":256}", "status: out of range");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":-1}", "status: out of range");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":1.5}", "status: expected an integer");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":\"0\"}", "status: expected an integer");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":99999999999999999999999}", "status");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"signal\":0}", "signal: out of range");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"signal\":200}", "signal: out of range");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"signal\":9,\"status\":0}", "both");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":0,\"lifetime_ms\":-1}", "lifetime_ms");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":0,\"lifetime_ms\":1e3}", "lifetime_ms");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":0,\"lifetime_ms\":18446744073709551616}", "lifetime_ms");
  /* egress */
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"egress\"}", "decision: missing");
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"egress\",\"decision\":\"maybe\"}", "decision: expected");
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"egress\",\"decision\":\"allow\",\"host\":5}", "host: expected a string");
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"egress\",\"decision\":\"deny\",\"reason\":[]}", "reason: expected a string");
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"egress\",\"decision\":\"allow\",\"standin\":{}}", "standin: expected a string");
  /* the sidecar's other lines: dns, inject, ask */
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"dns\",\"name\":\"a.example\"}", "decision: missing");
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"dns\",\"decision\":\"nxdomain\"}", "decision: expected");
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"dns\",\"decision\":\"deny\",\"name\":[\"a\"]}", "name: expected a string");
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"inject\",\"host\":\"api.github.com\"}", "credential: missing");
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"inject\",\"credential\":\"gh\",\"host\":1}", "host: expected a string");
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"ask\",\"host\":\"pypi.org\"}", "answer: missing");
  check_refused ("{\"time\":\"" T1 "\",\"event\":\"ask\",\"answer\":true}", "answer: expected a string");
  /* create, exec, limit, incident, audit */
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"create\"}", "hardened: missing");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":\"yes\"}", "hardened: expected a boolean");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,\"changes\":[]}", "directives: missing");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,\"directives\":{}}", "changes: missing");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,\"directives\":{},\"changes\":{}}", "changes: expected an array");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,\"directives\":{},\"changes\":[1]}", "changes[0]: expected an object");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,\"directives\":{},\"changes\":[{\"why\":\"x\"}]}", "changes[0].kind: missing");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,\"directives\":{\"envKeep\":[\"A\",7]},\"changes\":[]}", "directives.envKeep[1]");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,\"directives\":{\"rootfs\":false},\"changes\":[]}", "directives.rootfs");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,\"directives\":{\"seccompProfile\":3},\"changes\":[]}", "directives.seccompProfile");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"exec\",\"changes\":[{\"kind\":null}]}", "changes[0].kind: missing");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"limit\"}", "limit: missing");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"incident\",\"incident\":{}}", "incident: expected a string");
  check_refused ("{\"time\":\"" T0 "\",\"event\":\"audit\",\"lost\":\"4\"}", "lost: expected");
  /* nesting beyond the parser's bound */
  for (int i = 0; i < 200; i++)
    deep[n++] = '[';
  deep[n] = '\0';
  check_refused (deep, "audit");
  /* a NUL byte inside the line */
  msg = parse_err (nul, sizeof nul - 1);
  CHECK (msg != NULL);
}

static void
test_record_reads_events (void)
{
  cleanup_error agentrt_error_t err = NULL;
  struct audit_record r;
  const char *line;

  line = "{\"time\":\"" T0 "\",\"id\":\"c1\",\"event\":\"create\",\"hardened\":true,"
         "\"directives\":{\"rootfs\":\"writable\",\"seccompProfile\":null,"
         "\"egressAllowBroad\":true,\"envKeep\":[\"GPG_KEY\",\"X\"],\"new\":{}},"
         "\"changes\":[{\"kind\":\"env-removed\",\"what\":\"T\",\"why\":\"w\"},"
         "{\"kind\":\"path-masked\"}],\"later\":[1,2]}";
  CHECK (audit_record_parse (line, strlen (line), &r, &err) == 0);
  CHECK (r.event == AUDIT_EVENT_CREATE && r.hardened && r.seccomp_off
         && r.egress_allow_broad && r.env_keep.len == 2 && r.nchanges == 2);
  CHECK_STR_EQ (r.rootfs, "writable");
  CHECK_STR_EQ (r.changes[0].why, "w");
  CHECK (r.changes[1].why == NULL);
  audit_record_release (&r);

  line = "{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":false,"
         "\"reason\":\"off\"}";
  CHECK (audit_record_parse (line, strlen (line), &r, &err) == 0);
  CHECK (r.event == AUDIT_EVENT_CREATE && !r.hardened && !r.seccomp_off);
  audit_record_release (&r);

  line = "{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":\"unknown\"}";
  CHECK (audit_record_parse (line, strlen (line), &r, &err) == 0);
  CHECK (r.exit_how == AUDIT_EXIT_UNKNOWN && !r.has_lifetime);
  audit_record_release (&r);

  line = "{\"time\":\"" T0 "\",\"event\":\"exit\",\"signal\":9,\"lifetime_ms\":5}";
  CHECK (audit_record_parse (line, strlen (line), &r, &err) == 0);
  CHECK (r.exit_how == AUDIT_EXIT_SIGNAL && r.exit_code == 9
         && r.has_lifetime && r.lifetime_ms == 5);
  audit_record_release (&r);

  /* host null: a request that did not parse */
  line = "{\"time\":\"" T1 "\",\"event\":\"egress\",\"proto\":\"http\","
         "\"host\":null,\"port\":null,\"decision\":\"deny\",\"reason\":\"bad-request\"}";
  CHECK (audit_record_parse (line, strlen (line), &r, &err) == 0);
  CHECK (r.event == AUDIT_EVENT_EGRESS && r.host == NULL && !r.allowed);
  audit_record_release (&r);

  /* a newer agentrt's event, and a repeated member (the last one counts) */
  line = "{\"time\":\"" T0 "\",\"event\":\"snapshot\",\"what\":[{}]}";
  CHECK (audit_record_parse (line, strlen (line), &r, &err) == 0);
  CHECK (r.event == AUDIT_EVENT_OTHER);
  audit_record_release (&r);
  line = "{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":\"x\",\"status\":3}";
  CHECK (audit_record_parse (line, strlen (line), &r, &err) == 0);
  CHECK (r.exit_how == AUDIT_EXIT_STATUS && r.exit_code == 3);
  audit_record_release (&r);
}

/* ---- the summary ---- */

/* trail: feeds one trail, its lines as the scanner would (a last line
 * without its newline is damaged). */
static void
trail_n (struct audit_summary *s, const char *name, const char *text,
         size_t len)
{
  const char *p = text, *end = text + len, *nl;

  audit_summary_trail_begin (s, name);
  while ((nl = memchr (p, '\n', (size_t) (end - p))) != NULL)
    {
      audit_summary_line (s, p, (size_t) (nl - p));
      p = nl + 1;
    }
  if (p < end)
    audit_summary_line_damaged (s, "the last line is cut short (no newline)");
  audit_summary_trail_end (s);
}

static void
trail (struct audit_summary *s, const char *name, const char *text)
{
  trail_n (s, name, text, strlen (text));
}

#define CREATE_HARDENED(t)                                                  \
  "{\"time\":\"" t "\",\"event\":\"create\",\"hardened\":true,"             \
  "\"directives\":{\"rootfs\":\"readonly\",\"seccompProfile\":\"/p\"},"     \
  "\"changes\":[]}\n"
#define EXIT_STATUS(t, n, ms)                                               \
  "{\"time\":\"" t "\",\"event\":\"exit\",\"status\":" #n                   \
  ",\"lifetime_ms\":" #ms "}\n"
#define EGRESS(t, host, decision, reason)                                   \
  "{\"time\":\"" t "\",\"event\":\"egress\",\"host\":" host                 \
  ",\"decision\":\"" decision "\",\"reason\":\"" reason "\"}\n"

/* check_json: the output is one valid JSON document. */
static void
check_json (const char *json)
{
  cleanup_error agentrt_error_t err = NULL;
  struct json_doc *doc = json_doc_parse (json, strlen (json), "summary", &err);
  if (doc == NULL)
    fprintf (stderr, "invalid JSON: %s\n%s\n", err->msg, json);
  CHECK (doc != NULL);
  json_doc_free (doc);
}

static void
test_summary_skips_damaged_lines (void)
{
  cleanup_free char *table = NULL, *json = NULL;
  struct audit_summary s;

  audit_summary_init (&s, false, 0);
  trail (&s, "c1",
         CREATE_HARDENED (T0)
         "not json\n"
         "{\"time\":\"" T0 "\",\"event\":\"exit\",\"status\":\"0\"}\n"
         "\n"
         "\x01\x02\xff\n"
         EXIT_STATUS (T1, 0, 1000)
         "{\"time\":\"" T2 "\",\"event\":\"exi");
  trail (&s, "c2", EXIT_STATUS (T1, 1, 2000));
  /* a trail that is only damage */
  trail_n (&s, "c3", "\0\0\0\n{{{{\n", 9);
  audit_summary_trail_refused (&s, "c4", "audit: `/a/c4.jsonl` is writable by anyone (mode 0666)");
  audit_summary_finish (&s);
  CHECK (s.trails == 3 && s.lines == 10 && s.damaged == 7);
  CHECK (s.damaged_trails == 2);
  CHECK_CONTAINS (s.first_damaged, "c1:2: audit");
  CHECK (s.runs == 1 && s.exits == 2 && s.no_exit == 0);
  /* c2's exit has no create before it: counted, as an exit */
  CHECK (tally_get (&s.exit_causes, "status 0") == 1
         && tally_get (&s.exit_causes, "status 1") == 1);
  table = audit_summary_table (&s, "/a", 10);
  CHECK_CONTAINS (table, "damaged lines       7 of 10 lines, in 2 trails (skipped); the first: c1:2:");
  CHECK_CONTAINS (table, "trails refused      1 (not read)");
  CHECK_CONTAINS (table, "c4: audit: `/a/c4.jsonl` is writable by anyone");
  json = audit_summary_json (&s, "/a", 10);
  check_json (json);
  CHECK_CONTAINS (json, "\"damaged\": 7");
  audit_summary_release (&s);
}

static void
test_summary_hostile_names (void)
{
  cleanup_free char *table = NULL, *json = NULL, *line = NULL;
  struct audit_summary s;
  char long_host[300];
  size_t n = 0;

  memset (long_host, 'a', sizeof long_host - 1);
  long_host[sizeof long_host - 1] = '\0';
  audit_summary_init (&s, false, 0);
  line = xasprintf ("{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":false}\n"
                    EGRESS (T1, "\"\\u001b[31mred\\u0007.example\"", "deny", "not-allowlisted")
                    EGRESS (T1, "\"\\u009b31m\\u009d0;t\\u0085\\u007f.example\"", "deny", "not-allowlisted")
                    EGRESS (T1, "\"%s\"", "deny", "not-allowlisted")
                    EGRESS (T1, "\"\xc3\xa9t\xc3\xa9.example\"", "allow", "ok"),
                    long_host);
  trail (&s, "c\x1b]0;title\x07", line);
  audit_summary_finish (&s);
  table = audit_summary_table (&s, "/a", 10);
  /* no control byte reaches the terminal; long names are cut */
  for (const char *p = table; *p; p++)
    if (((unsigned char) *p < 0x20 && *p != '\n') || *p == 0x7f
        || ((unsigned char) p[0] == 0xc2 && (unsigned char) p[1] >= 0x80
            && (unsigned char) p[1] <= 0x9f))
      n++;
  CHECK (n == 0);
  CHECK_CONTAINS (table, "?[31mred?.example");
  /* C1 controls (CSI, OSC, NEL) are controls too */
  CHECK_CONTAINS (table, "?31m?0;t??.example");
  CHECK (strstr (table, long_host) == NULL);
  CHECK_CONTAINS (table, "aaaaaaaa...");
  CHECK_CONTAINS (table, "\xc3\xa9t\xc3\xa9.example");
  CHECK_CONTAINS (table, "hardening=off: 1 container: c?]0;title?\n");
  json = audit_summary_json (&s, "/a", 0);
  check_json (json);
  CHECK_CONTAINS (json, long_host);
  CHECK_CONTAINS (json, "\\u001b[31mred\\u0007.example");
  audit_summary_release (&s);
}

/* More distinct hosts than a tally holds: memory stays bounded, every
 * connection is still counted. */
static void
test_summary_bounds_names (void)
{
  cleanup_free char *table = NULL;
  struct audit_summary s;
  char line[160];

  audit_summary_init (&s, false, 0);
  audit_summary_trail_begin (&s, "flood");
  for (int i = 0; i < AUDIT_SUMMARY_MAX_KEYS + 1000; i++)
    {
      int n = snprintf (line, sizeof line,
                        "{\"time\":\"" T1 "\",\"event\":\"egress\",\"host\":"
                        "\"x%d.exfil.example\",\"decision\":\"deny\"}", i);
      audit_summary_line (&s, line, (size_t) n);
    }
  audit_summary_trail_end (&s);
  audit_summary_finish (&s);
  CHECK (s.egress.denied.len == AUDIT_SUMMARY_MAX_KEYS);
  CHECK (s.egress.denied.total == AUDIT_SUMMARY_MAX_KEYS + 1000);
  CHECK (s.egress.denied.other == 1000);
  table = audit_summary_table (&s, "/a", 3);
  CHECK_CONTAINS (table, "(65533 more, and names beyond the 65536 held)");
  audit_summary_release (&s);
}

static void
test_summary_lifetimes (void)
{
  struct audit_summary s;
  char line[128];

  audit_summary_init (&s, false, 0);
  audit_summary_finish (&s);
  CHECK (audit_summary_percentile (&s, 50) == 0);
  audit_summary_release (&s);

  audit_summary_init (&s, false, 0);
  audit_summary_trail_begin (&s, "c");
  for (int i = 100; i >= 1; i--)
    {
      int n = snprintf (line, sizeof line, "{\"time\":\"" T1 "\",\"event\":"
                        "\"exit\",\"status\":0,\"lifetime_ms\":%d}", i);
      audit_summary_line (&s, line, (size_t) n);
    }
  audit_summary_trail_end (&s);
  audit_summary_finish (&s);
  CHECK (audit_summary_percentile (&s, 50) == 50);
  CHECK (audit_summary_percentile (&s, 95) == 95);
  CHECK (audit_summary_percentile (&s, 100) == 100);
  CHECK (audit_summary_percentile (&s, 0) == 1);
  audit_summary_release (&s);

  audit_summary_init (&s, false, 0);
  trail (&s, "one", EXIT_STATUS (T1, 0, 7));
  audit_summary_finish (&s);
  CHECK (audit_summary_percentile (&s, 50) == 7 && audit_summary_percentile (&s, 95) == 7);
  audit_summary_release (&s);
}

static void
test_summary_exits_and_limits (void)
{
  cleanup_free char *table = NULL, *json = NULL;
  struct audit_summary s;

  audit_summary_init (&s, false, 0);
  trail (&s, "lifetime",
         CREATE_HARDENED (T0)
         "{\"time\":\"" T1 "\",\"event\":\"limit\",\"limit\":\"lifetime\",\"detail\":\"d\"}\n"
         "{\"time\":\"" T1 "\",\"event\":\"exit\",\"signal\":9,\"lifetime_ms\":86400000}\n");
  trail (&s, "oom",
         CREATE_HARDENED (T0)
         "{\"time\":\"" T1 "\",\"event\":\"limit\",\"limit\":\"oom\",\"detail\":\"d\"}\n"
         "{\"time\":\"" T1 "\",\"event\":\"limit\",\"limit\":\"oom\",\"detail\":\"d\"}\n"
         "{\"time\":\"" T1 "\",\"event\":\"exit\",\"signal\":9,\"lifetime_ms\":10}\n"
         /* the same id again: a new run, its limits its own */
         CREATE_HARDENED (T1)
         "{\"time\":\"" T1 "\",\"event\":\"limit\",\"limit\":\"pids\",\"detail\":\"d\"}\n"
         "{\"time\":\"" T1 "\",\"event\":\"exit\",\"signal\":9,\"lifetime_ms\":10}\n"
         CREATE_HARDENED (T2));
  trail (&s, "others",
         CREATE_HARDENED (T0)
         "{\"time\":\"" T1 "\",\"event\":\"limit\",\"limit\":\"cpu\",\"detail\":\"d\"}\n"
         "{\"time\":\"" T1 "\",\"event\":\"exit\",\"signal\":15,\"lifetime_ms\":1}\n"
         "{\"time\":\"" T1 "\",\"event\":\"exit\",\"signal\":64}\n"
         "{\"time\":\"" T1 "\",\"event\":\"exit\",\"status\":\"unknown\"}\n"
         "{\"time\":\"" T1 "\",\"event\":\"incident\",\"incident\":\"lifetime-kill\",\"detail\":\"d\"}\n"
         "{\"time\":\"" T1 "\",\"event\":\"sidecar\",\"detail\":\"d\",\"status\":9}\n"
         "{\"time\":\"" T1 "\",\"event\":\"audit\",\"late\":2,\"lost\":3}\n"
         "{\"time\":\"" T1 "\",\"event\":\"audit\",\"lost\":4}\n"
         "{\"time\":\"" T1 "\",\"event\":\"snapshot\"}\n");
  audit_summary_finish (&s);
  CHECK (s.runs == 5 && s.no_exit == 1 && s.exits == 6);
  CHECK (tally_get (&s.exit_causes, "lifetime") == 1);
  CHECK (tally_get (&s.exit_causes, "oom") == 1);
  CHECK (tally_get (&s.exit_causes, "signal SIGKILL") == 1);
  CHECK (tally_get (&s.exit_causes, "signal SIGTERM") == 1);
  CHECK (tally_get (&s.exit_causes, "signal 64") == 1);
  CHECK (tally_get (&s.exit_causes, "unknown") == 1);
  CHECK (s.limits[AUDIT_LIMIT_MEMORY].hits == 2
         && s.limits[AUDIT_LIMIT_MEMORY].containers == 1);
  CHECK (s.limits[AUDIT_LIMIT_PIDS].hits == 1
         && s.limits[AUDIT_LIMIT_LIFETIME].containers == 1);
  CHECK (s.limits[AUDIT_LIMIT_OTHER].hits == 1);
  CHECK (s.incidents.total == 1 && s.sidecar_stopped == 1 && s.records_lost == 7);
  CHECK (s.other_events == 1 && s.damaged == 0);
  table = audit_summary_table (&s, "/a", 10);
  CHECK_CONTAINS (table, "containers run      5 (5 hardened, 0 with the hardening off; 1 hardened without an exit yet)");
  CHECK_CONTAINS (table, "lifetime            median 10ms, p95 1d00h, max 1d00h (of 4 exits)");
  CHECK_CONTAINS (table, "limit hits          memory 2 in 1 container, pids 1 in 1 container, lifetime 1 in 1 container, other 1 in 1 container");
  CHECK_CONTAINS (table, "records lost        7");
  CHECK_CONTAINS (table, "unknown events      1");
  json = audit_summary_json (&s, "/a", 10);
  check_json (json);
  CHECK_CONTAINS (json, "\"median\": 10");
  CHECK_CONTAINS (json, "\"cause\": \"oom\"");
  audit_summary_release (&s);
}

static void
test_summary_since (void)
{
  struct audit_summary s;
  int64_t since;

  CHECK (timestamp_parse ("2026-11-29T14:30:00Z", false, &since) == 0);
  audit_summary_init (&s, true, since);
  /* created before the window, killed by its lifetime before it, exited
   * in it: its exit counts, with its cause; not its create */
  trail (&s, "old",
         CREATE_HARDENED (T0)
         "{\"time\":\"" T0 "\",\"event\":\"limit\",\"limit\":\"lifetime\",\"detail\":\"d\"}\n"
         EGRESS (T0, "\"before.example\"", "allow", "ok")
         EGRESS (T1, "\"after.example\"", "allow", "ok")
         "{\"time\":\"" T1 "\",\"event\":\"exit\",\"signal\":9,\"lifetime_ms\":5}\n");
  /* created in the window, never exited */
  trail (&s, "new", CREATE_HARDENED (T2));
  audit_summary_trail_older (&s);
  audit_summary_finish (&s);
  CHECK (s.runs == 1 && s.exits == 1 && s.no_exit == 1);
  CHECK (tally_get (&s.exit_causes, "lifetime") == 1);
  CHECK (s.limits[AUDIT_LIMIT_LIFETIME].hits == 0);
  CHECK (tally_get (&s.egress.allowed, "after.example") == 1
         && tally_get (&s.egress.allowed, "before.example") == 0);
  CHECK (s.trails_older == 1);
  audit_summary_release (&s);
}

static void
test_summary_protections_and_knobs (void)
{
  cleanup_free char *table = NULL, *json = NULL;
  struct audit_summary s;

  audit_summary_init (&s, false, 0);
  trail (&s, "loose",
         "{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,"
         "\"directives\":{\"rootfs\":\"writable\",\"seccompProfile\":null,"
         "\"egressAllowBroad\":true,\"envKeep\":[\"GPG_KEY\"]},\"changes\":["
         "{\"kind\":\"env-removed\",\"what\":\"A\",\"why\":\"name matches *_TOKEN\"},"
         "{\"kind\":\"env-removed\",\"what\":\"B\",\"why\":\"name matches *_TOKEN\"},"
         "{\"kind\":\"env-removed\",\"what\":\"C\",\"why\":\"value looks like a JWT\"},"
         "{\"kind\":\"env-kept\",\"what\":\"GPG_KEY\",\"why\":\"run.agentrt.env.keep; x\"},"
         "{\"kind\":\"path-masked\",\"what\":\"/h/.ssh\",\"why\":\"credential path .ssh in the bind mount\"},"
         "{\"kind\":\"path-masked\",\"what\":\"/h/s\",\"why\":\"a unix socket in a bind mount\"},"
         "{\"kind\":\"path-masked\",\"what\":\"/x\",\"why\":\"something else\"},"
         "{\"kind\":\"mount-dropped\",\"what\":\"/d\",\"why\":\"the source is a unix socket\"},"
         "{\"kind\":\"capability\",\"what\":\"CAP_SYS_ADMIN\"}]}\n"
         "{\"time\":\"" T0 "\",\"event\":\"exec\",\"program\":\"sh\",\"changes\":["
         "{\"kind\":\"env-removed\",\"what\":\"D\",\"why\":\"name matches *_TOKEN\"}]}\n"
         /* a second run of the same id, as loose: listed once */
         "{\"time\":\"" T1 "\",\"event\":\"create\",\"hardened\":true,"
         "\"directives\":{\"rootfs\":\"writable\"},\"changes\":[]}\n");
  trail (&s, "off", "{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":false}\n");
  trail (&s, "eph", "{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,"
                    "\"directives\":{\"rootfs\":\"ephemeral\"},\"changes\":[]}\n");
  trail (&s, "also-loose", "{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":true,"
                           "\"directives\":{\"rootfs\":\"writable\"},\"changes\":[]}\n");
  audit_summary_finish (&s);
  CHECK (s.runs == 5 && s.hardening_off == 1 && s.hardened == 4);
  CHECK (s.secrets.total == 4 && tally_get (&s.secrets, "name matches *_TOKEN") == 3);
  CHECK (s.secrets_kept == 1);
  CHECK (tally_get (&s.masked, "credential") == 1 && tally_get (&s.masked, "socket") == 1
         && tally_get (&s.masked, "other") == 1);
  CHECK (tally_get (&s.dropped, "socket") == 1);
  table = audit_summary_table (&s, "/a", 10);
  CHECK_CONTAINS (table, "secrets removed     4 (1 kept by run.agentrt.env.keep), by reason:\n"
                         "           3  name matches *_TOKEN\n"
                         "           1  value looks like a JWT\n");
  CHECK_CONTAINS (table, "paths masked        3: credential 1, socket 1, other 1\n");
  CHECK_CONTAINS (table, "mounts dropped      1: socket 1\n");
  CHECK_CONTAINS (table, "hardening off or loosened\n"
                         "  egress.allowBroad=true: 1 container: loose\n"
                         "  env.keep=GPG_KEY: 1 container: loose\n"
                         "  hardening=off: 1 container: off\n"
                         "  rootfs=ephemeral: 1 container: eph\n"
                         "  rootfs=writable: 2 containers: also-loose, loose\n"
                         "  seccomp.profile=null: 1 container: loose\n");
  audit_summary_release (&s);
  json = NULL;

  /* --top cuts the lists, and says how many more */
  audit_summary_init (&s, false, 0);
  for (int i = 0; i < 5; i++)
    {
      char name[8];
      snprintf (name, sizeof name, "w%d", i);
      trail (&s, name, "{\"time\":\"" T0 "\",\"event\":\"create\",\"hardened\":false}\n");
    }
  audit_summary_finish (&s);
  free (table);
  table = audit_summary_table (&s, "/a", 2);
  CHECK_CONTAINS (table, "  hardening=off: 5 containers: w0, w1 (and 3 more)\n");
  json = audit_summary_json (&s, "/a", 2);
  check_json (json);
  /* the JSON names every container */
  CHECK_CONTAINS (json, "\"w4\"");
  audit_summary_release (&s);
}

/* The sidecar's lines beyond egress, as runtime/egress/audit.c writes
 * them: DNS answers and refusals by name, credentials added by name, a
 * stand-in that went out unchanged, questions asked by answer.  None is an
 * unknown event. */
static void
test_summary_sidecar_events (void)
{
  cleanup_free char *table = NULL, *json = NULL;
  struct audit_summary s;

  audit_summary_init (&s, false, 0);
  trail (&s, "agent",
         CREATE_HARDENED (T0)
         "{\"time\":\"" T1 "\",\"event\":\"dns\",\"id\":\"agent\",\"proto\":\"udp\","
         "\"name\":\"pypi.org\",\"type\":\"A\",\"decision\":\"allow\",\"reason\":\"ok\","
         "\"answers\":2,\"ttl\":60}\n"
         "{\"time\":\"" T1 "\",\"event\":\"dns\",\"id\":\"agent\",\"proto\":\"udp\","
         "\"name\":\"c2VjcmV0.leak.example\",\"type\":\"TXT\",\"decision\":\"deny\","
         "\"reason\":\"not-allowlisted\",\"answers\":0,\"ttl\":0}\n"
         "{\"time\":\"" T1 "\",\"event\":\"dns\",\"id\":\"agent\",\"proto\":\"udp\","
         "\"name\":null,\"type\":null,\"decision\":\"deny\","
         "\"reason\":\"malformed-query\",\"answers\":0,\"ttl\":0}\n"
         "{\"time\":\"" T1 "\",\"event\":\"inject\",\"id\":\"agent\",\"credential\":\"github\","
         "\"host\":\"api.github.com\",\"port\":443,\"request\":\"GET /user\"}\n"
         "{\"time\":\"" T1 "\",\"event\":\"inject\",\"id\":\"agent\",\"credential\":\"github\","
         "\"host\":\"api.github.com\",\"port\":443,\"request\":\"POST /repos\"}\n"
         "{\"time\":\"" T1 "\",\"event\":\"egress\",\"id\":\"agent\",\"proto\":\"connect\","
         "\"host\":\"paste.example\",\"port\":443,\"decision\":\"allow\",\"reason\":\"ok\","
         "\"tls_intercepted\":true,\"standin\":\"github\"}\n"
         "{\"time\":\"" T1 "\",\"event\":\"ask\",\"id\":\"agent\",\"qid\":1,\"proto\":\"connect\","
         "\"via\":\"proxy\",\"host\":\"new.example\",\"port\":443,\"answer\":\"deny\","
         "\"approver_uid\":0,\"wait_ms\":900,\"held\":1}\n"
         "{\"time\":\"" T1 "\",\"event\":\"ask\",\"id\":\"agent\",\"qid\":2,\"proto\":\"connect\","
         "\"via\":\"sni\",\"host\":\"x.example\",\"port\":443,\"answer\":\"timeout\","
         "\"approver_uid\":0,\"wait_ms\":30000,\"held\":1}\n");
  audit_summary_finish (&s);
  CHECK (s.other_events == 0 && s.damaged == 0);
  CHECK (s.dns.allowed.total == 1 && s.dns.denied.total == 2);
  CHECK (tally_get (&s.dns.denied, "c2VjcmV0.leak.example") == 1
         && tally_get (&s.dns.denied, "(none)") == 1);
  CHECK (tally_get (&s.dns.reasons, "malformed-query") == 1);
  CHECK (tally_get (&s.injected, "github") == 2);
  CHECK (tally_get (&s.standins, "github") == 1);
  CHECK (tally_get (&s.egress.allowed, "paste.example") == 1);
  CHECK (tally_get (&s.asked, "deny") == 1 && tally_get (&s.asked, "timeout") == 1);
  table = audit_summary_table (&s, "/a", 10);
  CHECK_CONTAINS (table, "dns allowed         1 query for 1 name\n"
                         "           1  pypi.org\n"
                         "dns denied          2 queries for 2 names\n");
  CHECK_CONTAINS (table, "           1  c2VjcmV0.leak.example\n");
  CHECK_CONTAINS (table, "credentials added   2, by credential:\n"
                         "           2  github\n");
  CHECK_CONTAINS (table, "stand-ins unchanged 1, by credential:\n"
                         "           1  github\n");
  CHECK_CONTAINS (table, "questions asked     2, by answer:\n");
  CHECK (strstr (table, "unknown events") == NULL);
  json = audit_summary_json (&s, "/a", 10);
  check_json (json);
  CHECK_CONTAINS (json, "\"name\": \"c2VjcmV0.leak.example\"");
  CHECK_CONTAINS (json, "\"credential\": \"github\"");
  CHECK_CONTAINS (json, "\"answer\": \"timeout\"");
  audit_summary_release (&s);
}

static void
test_durations (void)
{
  char buf[AUDIT_DURATION_LEN];

  CHECK_STR_EQ (audit_format_duration (0, buf), "0ms");
  CHECK_STR_EQ (audit_format_duration (999, buf), "999ms");
  CHECK_STR_EQ (audit_format_duration (1500, buf), "1.5s");
  CHECK_STR_EQ (audit_format_duration (252000, buf), "4m12s");
  CHECK_STR_EQ (audit_format_duration (3780000, buf), "1h03m");
  CHECK_STR_EQ (audit_format_duration (183600000, buf), "2d03h");
  CHECK_STR_EQ (audit_format_duration (UINT64_MAX, buf), "213503982334d14h");
}

int
main (void)
{
  RUN_TEST (test_timestamp_refuses_hostile);
  RUN_TEST (test_tally_is_bounded);
  RUN_TEST (test_record_refuses_damaged_lines);
  RUN_TEST (test_summary_skips_damaged_lines);
  RUN_TEST (test_summary_hostile_names);
  RUN_TEST (test_summary_bounds_names);
  RUN_TEST (test_timestamp_reads_rfc3339);
  RUN_TEST (test_tally_sorts);
  RUN_TEST (test_record_reads_events);
  RUN_TEST (test_summary_lifetimes);
  RUN_TEST (test_summary_exits_and_limits);
  RUN_TEST (test_summary_since);
  RUN_TEST (test_summary_protections_and_knobs);
  RUN_TEST (test_summary_sidecar_events);
  RUN_TEST (test_durations);
  return UNIT_EXIT ();
}
