/* Unit tests of runtime/egress/poll_window.c: the window never exceeds
 * its maximum and closes when events are far apart (the costly cases),
 * then how it opens for events that come close together.  Each case is a
 * sequence of idle periods and the window expected after each. */
#include "config.h"

#include <stddef.h>

#include "runtime/egress/poll_window.h"
#include "tests/unit/unit.h"

struct step
{
  uint64_t idle_us;
  bool event; /* false: the wait's timeout expired */
  unsigned window_us;
};

#define N_STEPS(a) (sizeof (a) / sizeof (*(a)))

static void
run_steps (unsigned max_us, const struct step *steps, size_t n)
{
  struct poll_window w;

  poll_window_init (&w, max_us);
  CHECK (w.cur_us == 0);
  for (size_t i = 0; i < n; i++)
    {
      poll_window_update (&w, steps[i].idle_us, steps[i].event);
      if (w.cur_us != steps[i].window_us)
        {
          fprintf (stderr, "%s: step %zu (idle %llu us%s): window %u us, expected %u\n",
                   unit_current, i,
                   (unsigned long long) steps[i].idle_us, steps[i].event ? "" : ", timeout",
                   w.cur_us, steps[i].window_us);
          unit_failures++;
        }
    }
}

static void
test_disabled (void)
{
  static const struct step steps[] = { { 5, true, 0 }, { 0, true, 0 }, { 5, false, 0 } };

  run_steps (0, steps, N_STEPS (steps));
}

static void
test_never_above_the_maximum (void)
{
  static const struct step at_most_100[] = {
    { 99, true, 10 }, { 99, true, 20 }, { 99, true, 40 }, { 99, true, 80 },
    { 99, true, 100 }, { 99, true, 100 }, { 100, true, 100 },
  };
  static const struct step largest[] = {
    { 900, true, 10 }, { 900, true, 20 }, { 900, true, 40 }, { 900, true, 80 },
    { 900, true, 160 }, { 900, true, 320 }, { 900, true, 640 }, { 900, true, 1000 },
    { 1000, true, 1000 },
  };
  /* a maximum below the start value is still the maximum */
  static const struct step tiny[] = { { 3, true, 4 }, { 4, true, 4 } };

  run_steps (100, at_most_100, N_STEPS (at_most_100));
  run_steps (POLL_WINDOW_MAX_US, largest, N_STEPS (largest));
  run_steps (4, tiny, N_STEPS (tiny));
}

static void
test_closes_when_events_are_far_apart (void)
{
  static const struct step steps[] = {
    { 99, true, 10 }, { 99, true, 20 }, { 99, true, 40 }, { 99, true, 80 },
    { 99, true, 100 },
    /* just beyond the maximum: each miss halves the window, then it closes */
    { 101, true, 50 }, { 101, true, 25 }, { 101, true, 12 }, { 101, true, 0 },
    { 5000000, true, 0 },
    /* a timeout is a long idle period even when it is short */
    { 60, true, 10 }, { 60, true, 20 }, { 60, true, 40 }, { 30, false, 20 },
  };

  run_steps (100, steps, N_STEPS (steps));
}

static void
test_opens_for_close_events (void)
{
  static const struct step steps[] = {
    { 30, true, POLL_WINDOW_START_US }, { 30, true, 2 * POLL_WINDOW_START_US },
    { 30, true, 40 },
    /* caught by the poll: unchanged */
    { 30, true, 40 }, { 0, true, 40 },
    { 41, true, 80 }, { 100, true, 100 },
  };

  run_steps (100, steps, N_STEPS (steps));
}

int
main (void)
{
  RUN_TEST (test_disabled);
  RUN_TEST (test_never_above_the_maximum);
  RUN_TEST (test_closes_when_events_are_far_apart);
  RUN_TEST (test_opens_for_close_events);
  return UNIT_EXIT ();
}
