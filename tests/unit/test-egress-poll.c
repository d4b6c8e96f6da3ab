/* Unit tests of runtime/egress/poll_window.c: the window never exceeds
 * its maximum and closes when events are far apart (the costly cases),
 * then how it opens for events that come close together. */
#include "config.h"

#include "runtime/egress/poll_window.h"
#include "tests/unit/unit.h"

static void
test_disabled (void)
{
  struct poll_window w;

  poll_window_init (&w, 0);
  for (int i = 0; i < 10; i++)
    poll_window_update (&w, 5, true);
  CHECK (w.cur_us == 0);
}

static void
test_capped (void)
{
  struct poll_window w;

  poll_window_init (&w, 100000);
  CHECK (w.max_us == POLL_WINDOW_MAX_US && w.cur_us == 0);
  for (int i = 0; i < 40; i++)
    poll_window_update (&w, 900, true);
  CHECK (w.cur_us == POLL_WINDOW_MAX_US);
  poll_window_init (&w, 100);
  for (int i = 0; i < 40; i++)
    {
      poll_window_update (&w, 99, true);
      CHECK (w.cur_us <= 100);
    }
  /* a maximum below the start value is still the maximum */
  poll_window_init (&w, 4);
  poll_window_update (&w, 3, true);
  CHECK (w.cur_us == 4);
}

static void
test_closes_when_events_are_far_apart (void)
{
  struct poll_window w;
  unsigned before;

  poll_window_init (&w, 100);
  for (int i = 0; i < 10; i++)
    poll_window_update (&w, 99, true);
  CHECK (w.cur_us == 100);
  /* just beyond the maximum: each miss halves the window, then it closes */
  poll_window_update (&w, 101, true);
  CHECK (w.cur_us == 50);
  poll_window_update (&w, 101, true);
  poll_window_update (&w, 101, true);
  CHECK (w.cur_us == 12);
  poll_window_update (&w, 101, true);
  CHECK (w.cur_us == 0);
  poll_window_update (&w, 5000000, true);
  CHECK (w.cur_us == 0);
  /* a timeout is a long idle period even when it is short */
  for (int i = 0; i < 10; i++)
    poll_window_update (&w, 60, true);
  before = w.cur_us;
  poll_window_update (&w, 30, false);
  CHECK (w.cur_us == before / 2);
}

static void
test_opens_for_close_events (void)
{
  struct poll_window w;

  poll_window_init (&w, 100);
  poll_window_update (&w, 30, true);
  CHECK (w.cur_us == POLL_WINDOW_START_US);
  poll_window_update (&w, 30, true);
  CHECK (w.cur_us == 2 * POLL_WINDOW_START_US);
  poll_window_update (&w, 30, true);
  CHECK (w.cur_us == 40);
  /* caught by the poll: unchanged */
  poll_window_update (&w, 30, true);
  CHECK (w.cur_us == 40);
  poll_window_update (&w, 0, true);
  CHECK (w.cur_us == 40);
  poll_window_update (&w, 41, true);
  CHECK (w.cur_us == 80);
  poll_window_update (&w, 100, true);
  CHECK (w.cur_us == 100);
}

int
main (void)
{
  RUN_TEST (test_disabled);
  RUN_TEST (test_capped);
  RUN_TEST (test_closes_when_events_are_far_apart);
  RUN_TEST (test_opens_for_close_events);
  return UNIT_EXIT ();
}
