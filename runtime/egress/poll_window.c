/* The adaptive busy-poll window (see poll_window.h for the rules). */
#include "config.h"

#include "poll_window.h"

void
poll_window_init (struct poll_window *w, unsigned max_us)
{
  w->max_us = max_us;
  w->cur_us = 0;
}

void
poll_window_update (struct poll_window *w, uint64_t idle_us, bool event)
{
  if (event && idle_us <= w->cur_us)
    return; /* caught by the poll */
  if (event && idle_us <= w->max_us)
    {
      unsigned grown = w->cur_us * 2;

      if (grown < POLL_WINDOW_START_US)
        grown = POLL_WINDOW_START_US;
      w->cur_us = grown < w->max_us ? grown : w->max_us;
      return;
    }
  w->cur_us /= 2;
  if (w->cur_us < POLL_WINDOW_START_US)
    w->cur_us = 0;
}
