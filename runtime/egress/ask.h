/* Asking a person (issue 18): the sidecar's side of the approver
 * protocol (oci/ask_line.h) on the connected socket the runtime passed as
 * --approver-fd.  A connection to a destination the allowlist does not
 * accept, but the address policy would, is held while the approver is
 * asked; its answer (or the timeout, or the approver's going away) lets
 * it go on or denies it.  Every question is audited (audit_ask), with
 * the approver's uid (SO_PEERCRED) and the time it took. */
#ifndef AGENTRT_EGRESS_ASK_H
#define AGENTRT_EGRESS_ASK_H

#include <stdbool.h>

#include "egress.h"

/* With --approver-fd: checks it (a connected unix stream socket), learns
 * the approver's uid, watches it and says hello. */
int ask_setup (struct egress *eg, agentrt_error_t *err);
void ask_free (struct egress *eg);

/* c's destination (c->host, c->port) is not allowlisted.  false: asking
 * does not apply (off, or an address in special-purpose space, which is
 * never asked about): the caller refuses as before.  true: the sidecar
 * took charge: c is held (PHASE_ASKING), went on (allow-always before),
 * or was denied (ask-busy, ask-unavailable). */
bool ask_hold (struct conn *c);

/* Settles the questions whose time is up (conn_timers). */
void ask_tick (struct egress *eg);

#endif
