/* The upstream TLS sessions the sidecar keeps to resume, one slot per
 * credential host (pure: the sessions are opaque pointers, released
 * through the store's callback; tls.c gives it OpenSSL's).
 *
 * A slot holds at most TICKET_SLOT_DEPTH sessions, newest first: a put
 * into a full slot releases the oldest.  A take removes the newest that
 * has not expired (expired ones it meets are released): a session is
 * offered once, since a TLS 1.3 server may accept each ticket only once;
 * one the server did not resume is simply gone, and the server's new
 * tickets fill the slot again.  The hosts are fixed when the store is
 * made (the policy's credential hosts), so memory is bounded: hosts x
 * depth sessions.  Names match whole and case-insensitively, as the
 * sidecar's server side matches them; nothing is ever shared between two
 * names. */
#ifndef AGENTRT_EGRESS_TICKET_STORE_H
#define AGENTRT_EGRESS_TICKET_STORE_H

#include <stddef.h>
#include <stdint.h>

#define TICKET_SLOT_DEPTH 2

struct ticket_slot
{
  char *host;
  size_t n;
  void *sess[TICKET_SLOT_DEPTH];     /* [0] is the newest */
  int64_t expires[TICKET_SLOT_DEPTH]; /* seconds, as `now` is given */
};

struct ticket_store
{
  struct ticket_slot *slots;
  size_t n;
  void (*release) (void *sess);
};

/* An empty store: release frees a session the store drops. */
void ticket_store_init (struct ticket_store *s, void (*release) (void *));
/* Adds a slot for host (once: a name already there is kept as it is). */
void ticket_store_add_host (struct ticket_store *s, const char *host);
/* Releases every session, frees every slot. */
void ticket_store_free (struct ticket_store *s);

/* host's slot, or NULL for a name not given to ticket_store_add_host. */
struct ticket_slot *ticket_store_slot (struct ticket_store *s, const char *host);

/* Keeps sess (the store owns it now) as the slot's newest, valid until
 * expires; an already expired one (expires <= now) is released. */
void ticket_slot_put (struct ticket_store *s, struct ticket_slot *slot, void *sess,
                      int64_t expires, int64_t now);
/* The newest session still valid at now, out of the slot (the caller
 * owns it), or NULL. */
void *ticket_slot_take (struct ticket_store *s, struct ticket_slot *slot, int64_t now);

#endif
