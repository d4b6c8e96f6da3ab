/* What the sidecar remembers about asking the approver (issue 18): the
 * questions in flight, at most max_pending of them, and the destinations
 * answered allow-always, at most ASK_ALWAYS_MAX of them.  Both are fixed
 * arrays allocated once: a flood of distinct names meets a full table
 * (ASK_FULL: the caller denies at once), never a queue that grows.  A
 * connection to a destination already asked about joins that question.
 * Pure code. */
#ifndef AGENTRT_EGRESS_ASK_TABLE_H
#define AGENTRT_EGRESS_ASK_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "netaddr.h"

#define ASK_ALWAYS_MAX 256

struct ask_pending
{
  uint64_t qid; /* 0: a free slot */
  char host[HOST_NAME_MAX_LEN + 1];
  uint16_t port;
  const char *proto, *via; /* static strings, of the first connection */
  struct timespec start_rt;
  uint64_t start_ms, deadline_ms;
  unsigned held; /* connections that joined it (the first included) */
};

struct ask_dest
{
  char host[HOST_NAME_MAX_LEN + 1];
  uint16_t port;
};

struct ask_table
{
  unsigned max_pending, npending;
  struct ask_pending *pending; /* max_pending slots */
  struct ask_dest *always;     /* ASK_ALWAYS_MAX slots */
  unsigned nalways;
  uint64_t last_qid;
};

enum ask_verdict
{
  ASK_ALLOWED, /* answered allow-always before: no question */
  ASK_JOINED,  /* a question about it is in flight: *out, held + 1 */
  ASK_NEW,     /* a new question: *out, to be sent */
  ASK_FULL,    /* max_pending questions in flight: deny at once */
};

void ask_table_init (struct ask_table *t, unsigned max_pending);
void ask_table_free (struct ask_table *t);

/* host (as the allowlist matched it: lower case) on port.  A new
 * question gets the next qid, start times now and the deadline now +
 * timeout_ms. */
enum ask_verdict ask_table_ask (struct ask_table *t, const char *host, uint16_t port,
                                uint64_t now_ms, uint64_t timeout_ms,
                                struct ask_pending **out);

/* The question qid in flight, or NULL (an unknown or settled one). */
struct ask_pending *ask_table_find (struct ask_table *t, uint64_t qid);

/* A question in flight whose deadline passed, or NULL. */
struct ask_pending *ask_table_expired (struct ask_table *t, uint64_t now_ms);

/* Forgets a settled question (its slot is free again). */
void ask_table_settle (struct ask_table *t, struct ask_pending *q);

/* Remembers an allow-always answer; false when ASK_ALWAYS_MAX destinations
 * are remembered already (the answer then counts once). */
bool ask_table_remember (struct ask_table *t, const char *host, uint16_t port);

#endif
