/* Unit tests of egress.ask (runtime/policy/egress_ask.h): the annotation
 * that may only turn asking off, the directive and its change.  The
 * policy file's field is test-policy-file's (test_ask_*). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "runtime/policy/annotations.h"
#include "runtime/policy/egress_ask.h"
#include "unit.h"

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
  RUN_TEST (test_annotation);
  RUN_TEST (test_harden);
  return UNIT_EXIT ();
}
