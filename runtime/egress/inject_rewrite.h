/* Putting a credential's value in place of its stand-in in a request head
 * the sidecar is about to send to one of the credential's hosts: in the
 * credential's header, and inside the HTTP Basic credentials of
 * Authorization (base64 user:password, so that `git` works); nowhere
 * else.  Also finding stand-ins in what goes to any other host (audit).
 * Pure code: whole heads in, a new head out; the value (checked by the
 * runtime and again by inject_wire) has no CR, LF or control byte, so it
 * cannot add a line. */
#ifndef AGENTRT_EGRESS_INJECT_REWRITE_H
#define AGENTRT_EGRESS_INJECT_REWRITE_H

#include <stddef.h>

#include "http_parse.h"
#include "inject_wire.h"

/* A rewritten head longer than this is refused (431). */
#define INJECT_HEAD_MAX (2 * HTTP_HEAD_MAX)

/* The head buf[0..h->len) (parsed into h) with the stand-in replaced:
 * malloc'd, *out_len bytes; *count says how many stand-ins were replaced
 * (0: the head is copied unchanged).  NULL when the result would exceed
 * INJECT_HEAD_MAX. */
char *inject_rewrite (const char *buf, const struct http_head *h,
                      const struct inject_cred *cred, size_t *out_len, unsigned *count);

/* The first credential of s whose stand-in occurs in buf[0..len), in
 * clear or inside base64 Basic credentials of an Authorization field of
 * the head h (may be NULL: then only in clear), or NULL. */
const struct inject_cred *inject_find_standin (const struct inject_set *s, const char *buf,
                                               size_t len, const struct http_head *h);

/* Strict base64 (RFC 4648, padded): decodes src[0..n) into dst (room for
 * n / 4 * 3 bytes); -1 when malformed, else the length. */
long inject_base64_decode (const char *src, size_t n, unsigned char *dst);
/* Encodes src[0..n) into dst (room for (n + 2) / 3 * 4 bytes); the length. */
size_t inject_base64_encode (const unsigned char *src, size_t n, char *dst);

#endif
