/* Unit tests of runtime/egress/ticket_store.c: a session never goes to
 * another name (not a longer or shorter one, not one with a trailing dot,
 * not an IDN's UTF-8 form for its A-label), is offered once, not after it
 * expired, and a slot never holds more than its depth; then the order
 * sessions come back in.  The sessions are counters here: released ones
 * are counted, so a leak or a double release shows. */
#include "config.h"

#include <stdint.h>

#include "runtime/egress/ticket_store.h"
#include "tests/unit/unit.h"

static int released[16];

static void
release (void *p)
{
  released[(intptr_t) p]++;
}

#define S(i) ((void *) (intptr_t) (i))

static void
setup (struct ticket_store *s)
{
  memset (released, 0, sizeof released);
  ticket_store_init (s, release);
  ticket_store_add_host (s, "api.test");
  ticket_store_add_host (s, "git.test");
}

static void
test_no_other_name_gets_a_slot (void)
{
  struct ticket_store s;
  static const char *const others[] = {
    "api.test.", "xapi.test", "api.tes", "api.test.evil", "a.api.test", "", "api", "API.TEST ",
  };

  setup (&s);
  for (size_t i = 0; i < sizeof others / sizeof *others; i++)
    CHECK (ticket_store_slot (&s, others[i]) == NULL);
  CHECK (ticket_store_slot (&s, NULL) == NULL);
  CHECK (ticket_store_slot (&s, "API.Test") == ticket_store_slot (&s, "api.test"));
  /* an IDN: its A-label is the name; the U-label (UTF-8, which the
   * sidecar's host parser refuses before it gets here) is another, and
   * only ASCII letters match across case */
  ticket_store_add_host (&s, "xn--bcher-kva.test");
  CHECK (ticket_store_slot (&s, "xn--bcher-kva.test") != NULL);
  CHECK (ticket_store_slot (&s, "XN--BCHER-KVA.test") == ticket_store_slot (&s, "xn--bcher-kva.test"));
  CHECK (ticket_store_slot (&s, "b\xc3\xbc" "cher.test") == NULL);
  CHECK (ticket_store_slot (&s, "B\xc3\x9c" "CHER.test") == NULL);
  /* a session for no slot is released at once */
  ticket_slot_put (&s, NULL, S (1), 100, 0);
  CHECK (released[1] == 1);
  ticket_store_free (&s);
}

static void
test_hosts_never_share (void)
{
  struct ticket_store s;
  struct ticket_slot *api, *git;

  setup (&s);
  api = ticket_store_slot (&s, "api.test");
  git = ticket_store_slot (&s, "git.test");
  CHECK (api && git && api != git);
  ticket_slot_put (&s, api, S (1), 100, 0);
  ticket_slot_put (&s, api, S (2), 100, 0);
  CHECK (ticket_slot_take (&s, git, 0) == NULL);
  CHECK (ticket_slot_take (&s, api, 0) == S (2));
  CHECK (ticket_slot_take (&s, git, 0) == NULL);
  /* adding a name twice makes no second slot */
  ticket_store_add_host (&s, "API.test");
  CHECK (s.n == 2);
  ticket_store_free (&s);
  CHECK (released[1] == 1 && released[2] == 0); /* 2 is the taker's */
}

static void
test_offered_once (void)
{
  struct ticket_store s;
  struct ticket_slot *api;

  setup (&s);
  api = ticket_store_slot (&s, "api.test");
  ticket_slot_put (&s, api, S (1), 100, 0);
  CHECK (ticket_slot_take (&s, api, 0) == S (1));
  CHECK (ticket_slot_take (&s, api, 0) == NULL);
  CHECK (ticket_slot_take (&s, NULL, 0) == NULL);
  ticket_store_free (&s);
  CHECK (released[1] == 0);
}

static void
test_expired_never_offered (void)
{
  struct ticket_store s;
  struct ticket_slot *api;

  setup (&s);
  api = ticket_store_slot (&s, "api.test");
  ticket_slot_put (&s, api, S (1), 50, 60); /* expired when given */
  CHECK (released[1] == 1 && api->n == 0);
  ticket_slot_put (&s, api, S (2), 200, 0); /* older, lives longer */
  ticket_slot_put (&s, api, S (3), 100, 0);
  CHECK (ticket_slot_take (&s, api, 100) == S (2)); /* 3 expired at 100 */
  CHECK (released[3] == 1);
  ticket_slot_put (&s, api, S (4), 300, 0);
  CHECK (ticket_slot_take (&s, api, 300) == NULL);
  CHECK (released[4] == 1);
  ticket_slot_put (&s, api, S (5), INT64_MIN, INT64_MIN);
  CHECK (released[5] == 1 && api->n == 0);
  ticket_store_free (&s);
}

static void
test_bounded_newest_first (void)
{
  struct ticket_store s;
  struct ticket_slot *api;

  setup (&s);
  api = ticket_store_slot (&s, "api.test");
  for (int i = 1; i <= 5; i++)
    ticket_slot_put (&s, api, S (i), 100, 0);
  CHECK (api->n == TICKET_SLOT_DEPTH);
  CHECK (released[1] == 1 && released[2] == 1 && released[3] == 1);
  CHECK (ticket_slot_take (&s, api, 0) == S (5));
  CHECK (ticket_slot_take (&s, api, 0) == S (4));
  CHECK (ticket_slot_take (&s, api, 0) == NULL);
  ticket_slot_put (&s, api, NULL, 100, 0); /* nothing to keep */
  CHECK (api->n == 0);
  ticket_slot_put (&s, api, S (6), 100, 0);
  ticket_slot_put (&s, api, S (7), 100, 0);
  ticket_store_free (&s);
  CHECK (released[6] == 1 && released[7] == 1 && released[4] == 0 && released[5] == 0);
  CHECK (s.n == 0 && s.slots == NULL);
}

int
main (void)
{
  RUN_TEST (test_no_other_name_gets_a_slot);
  RUN_TEST (test_hosts_never_share);
  RUN_TEST (test_offered_once);
  RUN_TEST (test_expired_never_offered);
  RUN_TEST (test_bounded_newest_first);
  return UNIT_EXIT ();
}
