/* TLS for injected credentials (OpenSSL 3; docs/egress.md says why):
 * making a container's CA at create (agentrt-egress --make-ca, which the
 * runtime runs), and in the sidecar the contexts made before lockdown: a
 * certificate per credential host signed by that CA (the agent's side),
 * and the client context that verifies the hosts against the trust store
 * (the upstream side), which keeps the upstream's sessions in memory to
 * resume them.  Nothing here reads a file after lockdown. */
#ifndef AGENTRT_EGRESS_TLS_H
#define AGENTRT_EGRESS_TLS_H

#include <stddef.h>

#include "common/error.h"
#include "inject_wire.h"

struct tls_state;
typedef struct ssl_st SSL;

/* Makes a CA for one container: an EC P-256 key and a certificate valid
 * `days`, limited by name constraints to hosts (a comma list) and to no
 * IP address; writes the key then the certificate (PEM) to fd. */
int tls_make_ca (const char *id, const char *hosts, unsigned days, int fd,
                 agentrt_error_t *err);

/* Before lockdown: the trust store (PEM bundle at trust_store) loaded,
 * the CA of set parsed, a leaf certificate made for each host.  Takes the
 * CA's key out of set (wiped there).  Fails naming what. */
struct tls_state *tls_setup (struct inject_set *set, const char *trust_store,
                             agentrt_error_t *err);
void tls_free (struct tls_state *t);

/* A server-side SSL for the agent's connection to host (a credential's),
 * or NULL. */
SSL *tls_new_server (struct tls_state *t, const char *host);
/* A client-side SSL to host, verifying its certificate chain and name,
 * offering the newest session host's upstream gave (ticket_store.h), if
 * any: a session verified for that very name, used once. */
SSL *tls_new_client (struct tls_state *t, const char *host);
/* After ssl's handshake (from tls_new_client): a resumed TLS 1.2 session
 * is kept for the next connection (TLS 1.3 tickets come on their own). */
void tls_upstream_ready (struct tls_state *t, SSL *ssl);

/* Why the last handshake of ssl failed, for the audit (static text). */
const char *tls_failure (SSL *ssl, int ret);

#endif
