/* What the first bytes of a transparently intercepted connection say about
 * the name the client means: the server_name of a TLS ClientHello (SNI),
 * or the Host field of an HTTP/1.x request.  The bytes are only looked at
 * (they are relayed unchanged afterwards); everything is untrusted: record,
 * handshake, vector and extension lengths must agree exactly with each
 * other, a ClientHello may span several records but not more than the
 * buffer, one server_name extension with one host_name, one Host field.
 * Pure code: no allocation beyond the stack, no I/O. */
#ifndef AGENTRT_EGRESS_PEEK_H
#define AGENTRT_EGRESS_PEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netaddr.h"

/* The most bytes looked at: a ClientHello or request head must fit. */
#define PEEK_MAX (16 * 1024)

enum peek_result
{
  PEEK_MORE,  /* cannot tell yet: wait for more bytes */
  PEEK_NAME,  /* TLS with SNI or HTTP with Host: name in out->host */
  PEEK_NONE,  /* TLS without SNI, HTTP/1.0 without Host */
  PEEK_OTHER, /* neither TLS nor HTTP: another protocol */
  PEEK_BAD,   /* TLS or HTTP, but malformed or lying: out->reason */
};

enum peek_proto
{
  PEEK_TLS = 1,
  PEEK_HTTP,
};

struct peek
{
  enum peek_proto proto; /* for NAME, NONE, BAD */
  struct host host;      /* for NAME: a name (SNI) or a name or address (Host) */
  const char *reason;    /* for BAD: "bad-client-hello", "bad-sni", ... */
};

/* Looks at buf[0..len), the first bytes the client sent.  eof: no more
 * will come (an incomplete message is then BAD, and nothing at all OTHER). */
enum peek_result peek_first_bytes (const uint8_t *buf, size_t len, bool eof, struct peek *out);

/* "sni", "host": how the name was learned, for the audit. */
const char *peek_proto_via (enum peek_proto proto);

#endif
