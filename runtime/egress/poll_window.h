/* The adaptive busy-poll window of agentrt-egress: how long the proxy
 * keeps checking for events before it sleeps in epoll_wait.
 *
 * Why: where a sleeping CPU is expensive to wake (a VM whose idle vCPU
 * halts; a core in a deep C-state), every crossing of the proxy that finds
 * it asleep pays that wakeup, and a proxied request crosses it three times
 * on its way.  Polling a little before sleeping catches the next event of
 * an exchange that is under way.  The window adapts so that it is spent
 * only while events come close together (the idea of the kernel's
 * cpuidle-haltpoll governor):
 *   - an idle period the poll caught changes nothing;
 *   - one that outlasted the window but not the maximum doubles it (to at
 *     least POLL_WINDOW_START_US): a longer poll would have caught it;
 *   - one longer than the maximum, or ended by the timer, halves it, and
 *     below POLL_WINDOW_START_US it is 0: events are too far apart.
 * A poll that misses wastes at most the window, after which the window
 * shrinks; an idle proxy does not poll at all.  Pure code, unit-tested. */
#ifndef AGENTRT_EGRESS_POLL_WINDOW_H
#define AGENTRT_EGRESS_POLL_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#define POLL_WINDOW_START_US 10
/* The default maximum (--busy-poll-us, the policy's
 * sidecar.busyPollMicroseconds) and the highest one accepted. */
#define POLL_WINDOW_DEFAULT_US 100
#define POLL_WINDOW_MAX_US 1000

struct poll_window
{
  unsigned max_us; /* 0: never poll */
  unsigned cur_us; /* how long the next wait polls before sleeping */
};

/* The window starts closed.  max_us is at most POLL_WINDOW_MAX_US: the
 * option and policy parsers refuse more. */
void poll_window_init (struct poll_window *w, unsigned max_us);

/* An idle period of idle_us (polling included) ended, with an event
 * (event) or because the wait's timeout expired. */
void poll_window_update (struct poll_window *w, uint64_t idle_us, bool event);

#endif
