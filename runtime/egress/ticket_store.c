/* The upstream TLS sessions kept per credential host (see ticket_store.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "ticket_store.h"

void
ticket_store_init (struct ticket_store *s, void (*release) (void *))
{
  memset (s, 0, sizeof (*s));
  s->release = release;
}

void
ticket_store_add_host (struct ticket_store *s, const char *host)
{
  if (ticket_store_slot (s, host))
    return;
  s->slots = xreallocarray (s->slots, s->n + 1, sizeof (*s->slots));
  memset (&s->slots[s->n], 0, sizeof (*s->slots));
  s->slots[s->n++].host = xstrdup (host);
}

void
ticket_store_free (struct ticket_store *s)
{
  for (size_t i = 0; i < s->n; i++)
    {
      for (size_t k = 0; k < s->slots[i].n; k++)
        s->release (s->slots[i].sess[k]);
      free (s->slots[i].host);
    }
  free (s->slots);
  s->slots = NULL;
  s->n = 0;
}

struct ticket_slot *
ticket_store_slot (struct ticket_store *s, const char *host)
{
  for (size_t i = 0; host && i < s->n; i++)
    if (strcasecmp (s->slots[i].host, host) == 0)
      return &s->slots[i];
  return NULL;
}

void
ticket_slot_put (struct ticket_store *s, struct ticket_slot *slot, void *sess, int64_t expires,
                 int64_t now)
{
  if (sess == NULL)
    return;
  if (slot == NULL || expires <= now)
    {
      s->release (sess);
      return;
    }
  if (slot->n == TICKET_SLOT_DEPTH)
    s->release (slot->sess[--slot->n]);
  memmove (&slot->sess[1], &slot->sess[0], slot->n * sizeof (*slot->sess));
  memmove (&slot->expires[1], &slot->expires[0], slot->n * sizeof (*slot->expires));
  slot->sess[0] = sess;
  slot->expires[0] = expires;
  slot->n++;
}

void *
ticket_slot_take (struct ticket_store *s, struct ticket_slot *slot, int64_t now)
{
  void *sess;
  int64_t expires;

  while (slot && slot->n)
    {
      sess = slot->sess[0];
      expires = slot->expires[0];
      slot->n--;
      memmove (&slot->sess[0], &slot->sess[1], slot->n * sizeof (*slot->sess));
      memmove (&slot->expires[0], &slot->expires[1], slot->n * sizeof (*slot->expires));
      if (expires > now)
        return sess;
      s->release (sess);
    }
  return NULL;
}
