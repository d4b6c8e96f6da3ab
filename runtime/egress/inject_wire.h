/* What the runtime hands the sidecar about injected credentials, over a
 * pipe (--credentials-fd), never argv or a file: the per-container CA
 * (key and certificate, PEM) and, for each credential, its name, header,
 * stand-in, hosts and value.  A sequence of records `TAG LEN\n` + LEN
 * bytes + `\n`.  Pure code: the runtime encodes, the sidecar decodes
 * (everything checked again: lengths, characters, counts). */
#ifndef AGENTRT_EGRESS_INJECT_WIRE_H
#define AGENTRT_EGRESS_INJECT_WIRE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "runtime/policy/credentials.h"

/* The most a message may hold (the pipe's capacity: the runtime writes it
 * all before the sidecar reads). */
#define INJECT_WIRE_MAX (60 * 1024)
#define INJECT_PEM_MAX 8192

struct inject_cred
{
  char name[CREDENTIAL_NAME_MAX + 1];
  char header[65];
  char standin[CREDENTIAL_STANDIN_LEN + 1];
  char *value; /* NUL-terminated, credential_value_valid */
  size_t value_len;
  char *hosts[CREDENTIAL_HOSTS_MAX];
  size_t nhosts;
};

struct inject_set
{
  char *ca_key, *ca_cert; /* PEM, NUL-terminated */
  struct inject_cred creds[CREDENTIALS_MAX];
  size_t n;
};

/* Appends one record to *buf (*len); false when the message would
 * exceed INJECT_WIRE_MAX.  *buf starts NULL: the first record mallocs
 * INJECT_WIRE_MAX bytes, which never move (the values are written once,
 * wiped once). */
bool inject_wire_put (char **buf, size_t *len, const char *tag, const char *data,
                      size_t n);

/* Decodes a whole message: a "ca-key" and a "ca-cert" record first, then
 * per credential "name", "header", "standin", "value" and 1 to
 * CREDENTIAL_HOSTS_MAX "host".  Anything else, out of order, repeated,
 * malformed or out of bounds is an error naming the record.  The values
 * are wiped from buf. */
int inject_wire_decode (char *buf, size_t len, struct inject_set *out, agentrt_error_t *err);

/* Is s[0..n) a stand-in as the runtime makes them (the prefix, 32 lower-
 * case hex digits)?  A value fit for a header (1..CREDENTIAL_VALUE_MAX
 * bytes of visible ASCII and spaces, no space at either end)? */
bool inject_standin_valid (const char *s, size_t n);
bool inject_value_valid (const char *s, size_t n);

/* Frees (and wipes) what the set holds. */
void inject_set_release (struct inject_set *s);

/* The credential whose hosts include host (exact, ASCII case-insensitive),
 * or NULL. */
const struct inject_cred *inject_set_for_host (const struct inject_set *s, const char *host);

#endif
