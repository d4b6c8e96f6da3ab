/* Unit tests of asking the approver: the protocol's lines (oci/ask_line.h)
 * with hostile input first, and the sidecar's bounded table of questions
 * in flight and allow-always answers (runtime/egress/ask_table.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "oci/ask_line.h"
#include "runtime/egress/ask_table.h"
#include "unit.h"

/* The error of parsing line as an answer (malloc'd), NULL if none. */
static char *
answer_error (const char *line, size_t len)
{
  agentrt_error_t err = NULL;
  uint64_t qid = 99;
  enum ask_answer a = ASK_ALLOW_ALWAYS;
  char *msg = NULL;

  if (ask_answer_parse (line, len, &qid, &a, &err) < 0)
    msg = xstrdup (err->msg);
  agentrt_error_release (&err);
  return msg;
}

static void
expect_answer_error (const char *line, const char *needle)
{
  char *msg = answer_error (line, strlen (line));

  if (msg == NULL)
    fprintf (stderr, "accepted: %s\n", line);
  CHECK_CONTAINS (msg, needle);
  free (msg);
}

static void
test_answer_hostile (void)
{
  char *big;

  expect_answer_error ("", "approver answer");
  expect_answer_error ("\n", "approver answer");
  expect_answer_error ("{", "approver answer");
  expect_answer_error ("[]", "expected an object");
  expect_answer_error ("\"allow-once\"", "expected an object");
  expect_answer_error ("{\"qid\":1}", "answer");
  expect_answer_error ("{\"answer\":\"deny\"}", "qid");
  expect_answer_error ("{\"qid\":1,\"answer\":\"allow\"}", "answer: unknown value");
  expect_answer_error ("{\"qid\":1,\"answer\":\"ALLOW-ONCE\"}", "answer: unknown value");
  expect_answer_error ("{\"qid\":1,\"answer\":\"allow-once \"}", "answer: unknown value");
  expect_answer_error ("{\"qid\":1,\"answer\":null}", "answer");
  expect_answer_error ("{\"qid\":1,\"answer\":true}", "answer: expected a string");
  expect_answer_error ("{\"qid\":-1,\"answer\":\"deny\"}", "qid");
  expect_answer_error ("{\"qid\":1.5,\"answer\":\"deny\"}", "qid");
  expect_answer_error ("{\"qid\":18446744073709551616,\"answer\":\"deny\"}", "qid");
  expect_answer_error ("{\"qid\":\"1\",\"answer\":\"deny\"}", "qid");
  expect_answer_error ("{\"qid\":1,\"answer\":\"deny\"}\n{\"qid\":2,\"answer\":\"deny\"}",
                       "more than one line");
  expect_answer_error ("{\"qid\":1,\"answer\":\"deny\"} x", "trailing bytes");
  expect_answer_error ("{\"qid\":1,\"answer\":\"deny\",\"x\":[1]}", "nested values are not accepted");
  expect_answer_error ("{\"qid\":1,\"answer\":\"deny\",\"x\":{}}", "nested values are not accepted");
  expect_answer_error ("{\"qid\":01,\"answer\":\"deny\"}", "malformed number");
  expect_answer_error ("{\"qid\":1e2,\"answer\":\"deny\"}", "qid: expected a whole number");
  expect_answer_error ("{\"qid\":1,\"answer\":\"deny\",}", "expected a member name");
  expect_answer_error ("{\"qid\":1,\"answer\":\"deny\"", "expected a comma");
  expect_answer_error ("{\"qid\":1 \"answer\":\"deny\"}", "expected a comma");
  expect_answer_error ("{\"qid\":1,\"answer\":\"d\\x\"}", "malformed string");
  expect_answer_error ("{\"qid\":1,\"answer\":\"d\\u00\"}", "malformed string");
  expect_answer_error ("{\"qid\":1,\"answer\":\"d\tx\"}", "malformed string");
  expect_answer_error ("{\"qid\":1,\"answer\":\"allow-once-and-then-some-more-bytes\"}",
                       "answer: unknown value");
  expect_answer_error ("{\"qid\":1,\"answer\":tru}", "malformed value");
  expect_answer_error ("{\"qid\":1,\"answer\":\"deny\"}}", "trailing bytes");
  expect_answer_error ("{\"qid\":1,\"answer\":\"de\\u0000ny\"}", "malformed string");
  {
    /* a NUL byte inside the line itself */
    static const char nul[] = "{\"qid\":1,\"answer\":\"deny\"}\0garbage";
    char *msg = answer_error (nul, sizeof nul - 1);
    CHECK (msg != NULL);
    free (msg);
  }
  /* deep nesting and a line beyond the bound */
  big = xmalloc (ASK_LINE_MAX + 2);
  memset (big, '[', ASK_LINE_MAX - 1);
  big[ASK_LINE_MAX - 1] = '\0';
  expect_answer_error (big, "approver answer");
  memset (big, ' ', ASK_LINE_MAX + 1);
  memcpy (big, "{\"qid\":1,\"answer\":\"deny\"}", 25);
  big[ASK_LINE_MAX + 1] = '\0';
  expect_answer_error (big, "longer than 2048 bytes");
  free (big);
}

static void
test_answer_accepted (void)
{
  agentrt_error_t err = NULL;
  uint64_t qid = 0;
  enum ask_answer a = ASK_DENY;
  size_t len;
  const char *line;
  char *made;

  line = "{\"qid\":7,\"answer\":\"allow-once\"}\n";
  CHECK (ask_answer_parse (line, strlen (line), &qid, &a, &err) == 0);
  CHECK (qid == 7 && a == ASK_ALLOW_ONCE);
  /* members in another order, unknown ones ignored, the last repeat wins,
   * whitespace and escapes */
  line = " { \"why\" : \"\\u00e9\\n\" , \"n\":-1.5e3,\"b\":true,\"z\":null,\"answer\":\"deny\","
         "\"qid\":3,\"ans\\u0077er\":\"allow-always\"}\r";
  CHECK (ask_answer_parse (line, strlen (line), &qid, &a, &err) == 0);
  CHECK (qid == 3 && a == ASK_ALLOW_ALWAYS);
  for (int i = ASK_ALLOW_ONCE; i <= ASK_DENY; i++)
    {
      made = ask_answer_format (18446744073709551615ull, (enum ask_answer) i, &len);
      CHECK (len == strlen (made) && made[len - 1] == '\n');
      CHECK (ask_answer_parse (made, len, &qid, &a, &err) == 0);
      CHECK (qid == 18446744073709551615ull && a == (enum ask_answer) i);
      free (made);
    }
  CHECK_STR_EQ (ask_answer_name (ASK_ALLOW_ALWAYS), "allow-always");
  agentrt_error_release (&err);
}

static char *
msg_error (const char *line)
{
  agentrt_error_t err = NULL;
  struct ask_msg m;
  char *msg = NULL;

  if (ask_msg_parse (line, strlen (line), &m, &err) < 0)
    msg = xstrdup (err->msg);
  agentrt_error_release (&err);
  return msg;
}

static void
expect_msg_error (const char *line, const char *needle)
{
  char *msg = msg_error (line);

  if (msg == NULL)
    fprintf (stderr, "accepted: %s\n", line);
  CHECK_CONTAINS (msg, needle);
  free (msg);
}

/* What the approver reads: a sidecar's lines, checked as hard. */
static void
test_msg (void)
{
  struct ask_msg m = { .type = ASK_MSG_QUESTION, .qid = 5, .port = 443,
                       .timeout_ms = 30000 }, back;
  agentrt_error_t err = NULL;
  char *line, long_host[400];
  size_t len;

  expect_msg_error ("{\"type\":\"ask\",\"id\":\"c\"}", "type: unknown value");
  expect_msg_error ("{\"type\":\"question\",\"qid\":1,\"id\":\"c\",\"host\":\"h\",\"port\":0,"
                    "\"proto\":\"tcp\",\"via\":\"sni\",\"timeout_ms\":1}", "port: must be 1");
  expect_msg_error ("{\"type\":\"question\",\"qid\":1,\"id\":\"c\",\"host\":\"h\",\"port\":65536,"
                    "\"proto\":\"tcp\",\"via\":\"sni\",\"timeout_ms\":1}", "port");
  expect_msg_error ("{\"type\":\"question\",\"qid\":1,\"id\":\"c\",\"host\":\"\",\"port\":1,"
                    "\"proto\":\"tcp\",\"via\":\"sni\",\"timeout_ms\":1}", "host: expected 1 to 253");
  memset (long_host, 'a', sizeof long_host);
  long_host[300] = '\0';
  line = xasprintf ("{\"type\":\"question\",\"qid\":1,\"id\":\"c\",\"host\":\"%s\",\"port\":1,"
                    "\"proto\":\"tcp\",\"via\":\"sni\",\"timeout_ms\":1}", long_host);
  expect_msg_error (line, "host: expected 1 to 253 bytes");
  free (line);
  expect_msg_error ("{\"type\":\"done\",\"qid\":1,\"id\":\"c\"}", "outcome");
  expect_msg_error ("{\"type\":\"hello\",\"id\":\"c\"}", "version");

  strcpy (m.id, "ctr-1");
  /* a hostile name as it could reach a question (quotes, control bytes,
   * invalid UTF-8) comes out as one line of JSON */
  strcpy (m.host, "a\"b\\c\n\x01\xff.example");
  strcpy (m.proto, "connect");
  strcpy (m.via, "proxy");
  line = ask_msg_format (&m, &len);
  CHECK (len == strlen (line) && memchr (line, '\n', len - 1) == NULL);
  /* ... which the approver refuses: it would print it to a terminal */
  CHECK (ask_msg_parse (line, len, &back, &err) < 0);
  CHECK_CONTAINS (err->msg, "host: expected printable ASCII");
  agentrt_error_release (&err);
  free (line);
  expect_msg_error ("{\"type\":\"hello\",\"id\":\"c\\u001b[2J\",\"version\":1}",
                    "id: expected printable ASCII");
  expect_msg_error ("{\"type\":\"question\",\"qid\":1,\"id\":\"c\",\"host\":\"h\\u009b31m\","
                    "\"port\":1,\"proto\":\"tcp\",\"via\":\"sni\",\"timeout_ms\":1}",
                    "host: expected printable ASCII");
  expect_msg_error ("{\"type\":\"done\",\"qid\":1,\"id\":\"c\",\"outcome\":\"a b\"}",
                    "outcome: expected printable ASCII");
  strcpy (m.host, "[2001:db8::1]");
  line = ask_msg_format (&m, &len);
  CHECK (ask_msg_parse (line, len, &back, &err) == 0);
  CHECK (back.type == ASK_MSG_QUESTION && back.qid == 5 && back.port == 443);
  CHECK (back.timeout_ms == 30000);
  CHECK_STR_EQ (back.id, "ctr-1");
  CHECK_STR_EQ (back.host, "[2001:db8::1]");
  free (line);
  m.type = ASK_MSG_DONE;
  strcpy (m.outcome, "timeout");
  line = ask_msg_format (&m, &len);
  CHECK (ask_msg_parse (line, len, &back, &err) == 0);
  CHECK (back.type == ASK_MSG_DONE && back.qid == 5);
  CHECK_STR_EQ (back.outcome, "timeout");
  free (line);
  m.type = ASK_MSG_HELLO;
  m.version = ASK_PROTOCOL_VERSION;
  line = ask_msg_format (&m, &len);
  CHECK_STR_EQ (line, "{\"type\":\"hello\",\"id\":\"ctr-1\",\"version\":1}\n");
  CHECK (ask_msg_parse (line, len, &back, &err) == 0 && back.version == 1);
  free (line);
  agentrt_error_release (&err);
}

/* A flood of distinct names fills max_pending slots and no more. */
static void
test_table_bound (void)
{
  struct ask_table t;
  struct ask_pending *q, *first = NULL;
  char host[64];

  ask_table_init (&t, 4);
  for (int i = 0; i < 1000; i++)
    {
      snprintf (host, sizeof host, "n%d.flood.example", i);
      enum ask_verdict v = ask_table_ask (&t, host, 443, 100, 30000, &q);
      if (i < 4)
        CHECK (v == ASK_NEW && q && q->qid == (uint64_t) i + 1 && q->held == 1);
      else
        CHECK (v == ASK_FULL && q == NULL);
      if (i == 0)
        first = q;
    }
  CHECK (t.npending == 4);
  /* the same destination joins its question, even when full */
  CHECK (ask_table_ask (&t, "N0.flood.example", 443, 200, 30000, &q) == ASK_JOINED);
  CHECK (q == first && q->held == 2);
  /* another port of it is another destination */
  CHECK (ask_table_ask (&t, "n0.flood.example", 80, 200, 30000, &q) == ASK_FULL);
  /* settled: its slot is free, its qid never comes back */
  CHECK (ask_table_find (&t, 1) == first);
  ask_table_settle (&t, first);
  ask_table_settle (&t, first);
  CHECK (t.npending == 3 && ask_table_find (&t, 1) == NULL && ask_table_find (&t, 0) == NULL);
  CHECK (ask_table_ask (&t, "late.example", 443, 300, 30000, &q) == ASK_NEW && q->qid == 5);
  ask_table_free (&t);
}

static void
test_table_expiry_and_always (void)
{
  struct ask_table t;
  struct ask_pending *q;
  char host[64], over[300];

  ask_table_init (&t, 2);
  CHECK (ask_table_ask (&t, "a.example", 443, 1000, 500, &q) == ASK_NEW);
  CHECK (ask_table_ask (&t, "b.example", 443, 1200, 500, &q) == ASK_NEW);
  CHECK (ask_table_expired (&t, 1499) == NULL);
  q = ask_table_expired (&t, 1500);
  CHECK (q && strcmp (q->host, "a.example") == 0);
  ask_table_settle (&t, q);
  CHECK (ask_table_expired (&t, 1500) == NULL);
  CHECK (ask_table_expired (&t, 1700) != NULL);
  /* allow-always: no question for that destination from then on */
  CHECK (ask_table_remember (&t, "a.example", 443));
  CHECK (ask_table_ask (&t, "A.EXAMPLE", 443, 2000, 500, &q) == ASK_ALLOWED && q == NULL);
  CHECK (ask_table_ask (&t, "a.example", 8443, 2000, 500, &q) == ASK_NEW);
  /* bounded: beyond ASK_ALWAYS_MAX destinations an answer counts once */
  for (int i = 1; i < ASK_ALWAYS_MAX; i++)
    {
      snprintf (host, sizeof host, "h%d.example", i);
      CHECK (ask_table_remember (&t, host, 443));
    }
  CHECK (t.nalways == ASK_ALWAYS_MAX);
  CHECK (!ask_table_remember (&t, "one-more.example", 443));
  CHECK (ask_table_remember (&t, "h7.example", 443)); /* known already */
  memset (over, 'x', sizeof over);
  over[sizeof over - 1] = '\0';
  CHECK (ask_table_ask (&t, over, 443, 2000, 500, &q) == ASK_FULL);
  ask_table_free (&t);
}

int
main (void)
{
  RUN_TEST (test_answer_hostile);
  RUN_TEST (test_answer_accepted);
  RUN_TEST (test_msg);
  RUN_TEST (test_table_bound);
  RUN_TEST (test_table_expiry_and_always);
  return UNIT_EXIT ();
}
