/* Unit tests of egress.ask (runtime/policy/egress_ask.h, oci/policy_ask.c):
 * the policy file's field and its bounds, the annotation that may only
 * turn asking off, the directive and its change, the round trip through
 * the written policy and the stored directives.  Hostile values first. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "oci/policy_file.h"
#include "runtime/policy/annotations.h"
#include "runtime/policy/egress_ask.h"
#include "unit.h"

/* The error of parsing text as a policy file (malloc'd), NULL if none. */
static char *
parse (const char *text, struct agent_policy *out)
{
  agentrt_error_t err = NULL;
  char *msg = NULL;

  if (policy_file_parse (text, strlen (text), "policy.json", out, &err) < 0)
    msg = xstrdup (err->msg);
  agentrt_error_release (&err);
  return msg;
}

static void
expect_error (const char *text, const char *needle)
{
  struct agent_policy p;
  char *msg = parse (text, &p);

  if (msg == NULL)
    {
      fprintf (stderr, "accepted: %s\n", text);
      policy_release (&p);
    }
  CHECK_CONTAINS (msg, needle);
  free (msg);
}

static void
test_policy_hostile (void)
{
  char long_path[200];

  expect_error ("{\"egress\":{\"ask\":{}}}", "egress.ask.socket");
  expect_error ("{\"egress\":{\"ask\":true}}", "egress.ask: expected an object");
  expect_error ("{\"egress\":{\"ask\":\"/run/a.sock\"}}", "egress.ask");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"run/a.sock\"}}}",
                "egress.ask.socket: expected an absolute path");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/run/a\\u0001.sock\"}}}",
                "egress.ask.socket: holds a control character");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/run/a\\u0000b\"}}}", "egress.ask");
  memset (long_path, 'a', sizeof long_path);
  long_path[0] = '/';
  long_path[108] = '\0';
  {
    char *text = xasprintf ("{\"egress\":{\"ask\":{\"socket\":\"%s\"}}}", long_path);
    expect_error (text, "egress.ask.socket: longer than a unix socket address holds");
    free (text);
  }
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"timeout\":0}}}",
                "egress.ask.timeout");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"timeout\":\"11m\"}}}",
                "egress.ask.timeout: expected 1 s to 10 min");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"timeout\":-1}}}", "egress.ask.timeout");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"timeout\":\"soon\"}}}",
                "egress.ask.timeout: expected a duration");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"maxPending\":0}}}",
                "egress.ask.maxPending: expected 1 to 256");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"maxPending\":257}}}",
                "egress.ask.maxPending");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"maxPending\":1e3}}}",
                "egress.ask.maxPending");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"sockt\":\"/b\"}}}",
                "egress.ask.sockt: unknown field (did you mean socket?)");
}

static void
test_policy_values (void)
{
  struct agent_policy p;
  char *msg;

  /* off by default, with the documented defaults for when it is on */
  CHECK ((msg = parse ("{}", &p)) == NULL);
  CHECK (p.egress_ask.socket == NULL);
  CHECK (p.egress_ask.timeout == 30 && p.egress_ask.max_pending == 16);
  policy_release (&p);
  CHECK ((msg = parse ("{\"egress\":{\"ask\":null}}", &p)) == NULL);
  CHECK (p.egress_ask.socket == NULL);
  policy_release (&p);
  CHECK ((msg = parse ("{\"egress\":{\"ask\":{\"socket\":\"/run/agentrt-approve.sock\"}}}",
                       &p)) == NULL);
  CHECK_STR_EQ (p.egress_ask.socket, "/run/agentrt-approve.sock");
  CHECK (p.egress_ask.timeout == 30 && p.egress_ask.max_pending == 16);
  policy_release (&p);
  CHECK ((msg = parse ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"timeout\":\"2m\","
                       "\"maxPending\":256}}}", &p)) == NULL);
  CHECK (p.egress_ask.timeout == 120 && p.egress_ask.max_pending == 256);
  policy_release (&p);
  free (msg);
}

/* The written policy reads back equal (the hardening record stores it). */
static void
test_round_trip (void)
{
  struct agent_policy p, q;
  struct json_writer *w;
  char *text, *msg;
  size_t len;

  CHECK ((msg = parse ("{\"egress\":{\"ask\":{\"socket\":\"/s\",\"timeout\":7,"
                       "\"maxPending\":3}}}", &p)) == NULL);
  w = json_writer_new (false);
  policy_file_write_json (&p, w);
  text = json_writer_finish (w, &len);
  CHECK_CONTAINS (text, "\"ask\":{\"socket\":\"/s\",\"timeout\":7,\"maxPending\":3}");
  CHECK ((msg = parse (text, &q)) == NULL);
  CHECK_STR_EQ (q.egress_ask.socket, "/s");
  CHECK (q.egress_ask.timeout == 7 && q.egress_ask.max_pending == 3);
  free (text);
  policy_release (&q);
  policy_release (&p);
  policy_init_defaults (&p);
  w = json_writer_new (false);
  policy_file_write_json (&p, w);
  text = json_writer_finish (w, &len);
  CHECK_CONTAINS (text, "\"ask\":null");
  free (text);
  policy_release (&p);
}

static char *
annotate (const char *value, bool *off)
{
  struct kv items[] = { { (char *) ANNOTATION_EGRESS_ASK, (char *) value } };
  struct kv_list list = { items, 1 };
  struct agent_policy policy;
  struct harden_request req;
  agentrt_error_t err = NULL;
  char *msg = NULL;

  policy_init_defaults (&policy);
  policy.egress_ask.socket = xstrdup ("/run/a.sock");
  if (annotations_parse (&list, &policy, &req, &err) < 0)
    msg = xstrdup (err->msg);
  else
    {
      *off = req.ask_off;
      harden_request_release (&req);
    }
  agentrt_error_release (&err);
  policy_release (&policy);
  return msg;
}

/* The annotation may turn asking off, never on. */
static void
test_annotation (void)
{
  bool off = false;
  char *msg;

  msg = annotate ("on", &off);
  CHECK_CONTAINS (msg, "run.agentrt.egress.ask=on: asking is turned on only by the policy");
  free (msg);
  msg = annotate ("", &off);
  CHECK_CONTAINS (msg, "annotation run.agentrt.egress.ask: expected `off`");
  free (msg);
  msg = annotate ("OFF\n", &off);
  CHECK_CONTAINS (msg, "expected `off`");
  free (msg);
  msg = annotate ("/tmp/my-approver.sock", &off);
  CHECK_CONTAINS (msg, "expected `off`");
  free (msg);
  CHECK (annotate ("off", &off) == NULL && off);
}

static void
test_harden (void)
{
  struct egress_ask_policy policy, d;
  struct change_list changes = { NULL, 0 };

  egress_ask_defaults (&policy);
  /* off in the policy: nothing, whatever the annotation */
  egress_ask_harden (&policy, false, true, &d, &changes);
  CHECK (d.socket == NULL && changes.len == 0);
  policy.socket = xstrdup ("/run/a.sock");
  egress_ask_harden (&policy, false, true, &d, &changes);
  CHECK_STR_EQ (d.socket, "/run/a.sock");
  CHECK (d.timeout == 30 && d.max_pending == 16);
  CHECK (changes.len == 1);
  CHECK_STR_EQ (changes.items[0].why, "egress.ask");
  CHECK_CONTAINS (changes.items[0].what, "/run/a.sock");
  egress_ask_release (&d);
  egress_ask_harden (&policy, true, true, &d, &changes);
  CHECK (d.socket == NULL && changes.len == 2);
  CHECK_STR_EQ (changes.items[1].why, "run.agentrt.egress.ask=off");
  egress_ask_harden (&policy, false, false, &d, &changes);
  CHECK (d.socket == NULL && changes.len == 3);
  CHECK_STR_EQ (changes.items[2].why, "no sidecar");
  change_list_release (&changes);
  egress_ask_release (&policy);
}

int
main (void)
{
  RUN_TEST (test_policy_hostile);
  RUN_TEST (test_policy_values);
  RUN_TEST (test_round_trip);
  RUN_TEST (test_annotation);
  RUN_TEST (test_harden);
  return UNIT_EXIT ();
}
