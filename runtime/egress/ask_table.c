/* The sidecar's questions in flight and allow-always answers (see
 * ask_table.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "ask_table.h"

void
ask_table_init (struct ask_table *t, unsigned max_pending)
{
  memset (t, 0, sizeof *t);
  t->max_pending = max_pending ? max_pending : 1;
  t->pending = xzalloc ((size_t) t->max_pending * sizeof *t->pending);
  t->always = xzalloc (ASK_ALWAYS_MAX * sizeof *t->always);
}

void
ask_table_free (struct ask_table *t)
{
  free (t->pending);
  free (t->always);
  memset (t, 0, sizeof *t);
}

static bool
same (const char *host, uint16_t port, const char *h2, uint16_t p2)
{
  return port == p2 && strcasecmp (host, h2) == 0;
}

enum ask_verdict
ask_table_ask (struct ask_table *t, const char *host, uint16_t port, uint64_t now_ms,
               uint64_t timeout_ms, struct ask_pending **out)
{
  struct ask_pending *free_slot = NULL;

  *out = NULL;
  for (unsigned i = 0; i < t->nalways; i++)
    if (same (host, port, t->always[i].host, t->always[i].port))
      return ASK_ALLOWED;
  for (unsigned i = 0; i < t->max_pending; i++)
    {
      struct ask_pending *q = &t->pending[i];
      if (q->qid == 0)
        free_slot = free_slot ? free_slot : q;
      else if (same (host, port, q->host, q->port))
        {
          q->held++;
          *out = q;
          return ASK_JOINED;
        }
    }
  if (free_slot == NULL || strlen (host) > HOST_NAME_MAX_LEN)
    return ASK_FULL;
  memset (free_slot, 0, sizeof *free_slot);
  free_slot->qid = ++t->last_qid;
  strcpy (free_slot->host, host);
  free_slot->port = port;
  clock_gettime (CLOCK_REALTIME, &free_slot->start_rt);
  free_slot->start_ms = now_ms;
  free_slot->deadline_ms = now_ms + timeout_ms;
  free_slot->held = 1;
  t->npending++;
  *out = free_slot;
  return ASK_NEW;
}

struct ask_pending *
ask_table_find (struct ask_table *t, uint64_t qid)
{
  if (qid == 0)
    return NULL;
  for (unsigned i = 0; i < t->max_pending; i++)
    if (t->pending[i].qid == qid)
      return &t->pending[i];
  return NULL;
}

struct ask_pending *
ask_table_expired (struct ask_table *t, uint64_t now_ms)
{
  for (unsigned i = 0; i < t->max_pending; i++)
    if (t->pending[i].qid && now_ms >= t->pending[i].deadline_ms)
      return &t->pending[i];
  return NULL;
}

void
ask_table_settle (struct ask_table *t, struct ask_pending *q)
{
  if (q->qid == 0)
    return;
  q->qid = 0;
  t->npending--;
}

bool
ask_table_remember (struct ask_table *t, const char *host, uint16_t port)
{
  for (unsigned i = 0; i < t->nalways; i++)
    if (same (host, port, t->always[i].host, t->always[i].port))
      return true;
  if (t->nalways == ASK_ALWAYS_MAX || strlen (host) > HOST_NAME_MAX_LEN)
    return false;
  strcpy (t->always[t->nalways].host, host);
  t->always[t->nalways].port = port;
  t->nalways++;
  return true;
}
