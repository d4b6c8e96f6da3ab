/* Peeking at the first bytes of a connection: TLS ClientHello SNI and
 * HTTP/1.x Host (see peek.h). */
#include "config.h"

#include <string.h>

#include "peek.h"

#define TLS_RECORD_MAX 16384
#define TLS_HANDSHAKE 0x16
#define TLS_CLIENT_HELLO 1
#define EXT_SERVER_NAME 0
#define METHOD_MAX 20

static uint16_t
get16 (const uint8_t *p)
{
  return (uint16_t) (p[0] << 8 | p[1]);
}

static enum peek_result
bad (struct peek *out, enum peek_proto proto, const char *reason)
{
  out->proto = proto;
  out->reason = reason;
  return PEEK_BAD;
}

/* Not complete yet: wait, unless nothing more can come. */
static enum peek_result
incomplete (struct peek *out, enum peek_proto proto, size_t len, bool eof, const char *what)
{
  if (eof)
    return bad (out, proto, what);
  if (len >= PEEK_MAX)
    return bad (out, proto, proto == PEEK_TLS ? "client-hello-too-large" : "head-too-large");
  return PEEK_MORE;
}

/* The server_name extension's body: one host_name, a valid DNS name. */
static enum peek_result
server_name (const uint8_t *b, size_t n, struct peek *out)
{
  size_t p = 2;
  bool have = false;

  if (n < 2 || (size_t) get16 (b) + 2 != n)
    return bad (out, PEEK_TLS, "bad-sni");
  while (p < n)
    {
      uint8_t type;
      size_t len;

      if (p + 3 > n)
        return bad (out, PEEK_TLS, "bad-sni");
      type = b[p];
      len = get16 (b + p + 1);
      p += 3;
      if (len == 0 || p + len > n)
        return bad (out, PEEK_TLS, "bad-sni");
      if (type == 0)
        {
          if (have)
            return bad (out, PEEK_TLS, "sni-two-names");
          if (host_parse ((const char *) b + p, len, false, &out->host) != NULL)
            return bad (out, PEEK_TLS, "bad-sni");
          if (out->host.is_addr)
            return bad (out, PEEK_TLS, "sni-ip-literal");
          have = true;
        }
      p += len;
    }
  if (!have)
    return bad (out, PEEK_TLS, "bad-sni");
  out->proto = PEEK_TLS;
  return PEEK_NAME;
}

/* The ClientHello body (after the 4-byte handshake header). */
static enum peek_result
client_hello (const uint8_t *b, size_t n, struct peek *out)
{
  size_t p = 34, l, end;
  bool seen = false;
  enum peek_result r = PEEK_NONE;

  out->proto = PEEK_TLS;
  if (p + 1 > n || b[0] != 3)
    return bad (out, PEEK_TLS, "bad-client-hello");
  l = b[p];
  p += 1 + l;
  if (l > 32 || p + 2 > n)
    return bad (out, PEEK_TLS, "bad-client-hello");
  l = get16 (b + p);
  p += 2 + l;
  if (l == 0 || (l & 1) || p + 1 > n)
    return bad (out, PEEK_TLS, "bad-client-hello");
  l = b[p];
  p += 1 + l;
  if (l == 0 || p > n)
    return bad (out, PEEK_TLS, "bad-client-hello");
  if (p == n)
    return PEEK_NONE; /* no extensions */
  if (p + 2 > n || p + 2 + get16 (b + p) != n)
    return bad (out, PEEK_TLS, "bad-extensions");
  p += 2;
  end = n;
  while (p < end)
    {
      uint16_t type;

      if (p + 4 > end)
        return bad (out, PEEK_TLS, "bad-extensions");
      type = get16 (b + p);
      l = get16 (b + p + 2);
      p += 4;
      if (p + l > end)
        return bad (out, PEEK_TLS, "bad-extensions");
      if (type == EXT_SERVER_NAME)
        {
          if (seen)
            return bad (out, PEEK_TLS, "sni-twice");
          seen = true;
          r = server_name (b + p, l, out);
          if (r == PEEK_BAD)
            return r;
        }
      p += l;
    }
  return r;
}

/* Reassembles the handshake message from consecutive records. */
static enum peek_result
tls (const uint8_t *buf, size_t len, bool eof, struct peek *out)
{
  uint8_t hs[PEEK_MAX];
  size_t p = 0, hl = 0, need = 0;

  for (;;)
    {
      size_t rl;

      if (p + 5 > len)
        return incomplete (out, PEEK_TLS, len, eof, "truncated-client-hello");
      if (buf[p] != TLS_HANDSHAKE || buf[p + 1] != 3)
        return bad (out, PEEK_TLS, "bad-tls-record");
      rl = get16 (buf + p + 3);
      if (rl == 0 || rl > TLS_RECORD_MAX)
        return bad (out, PEEK_TLS, "bad-tls-record");
      if (p + 5 + rl > len)
        return incomplete (out, PEEK_TLS, len, eof, "truncated-client-hello");
      if (hl + rl > sizeof (hs))
        return bad (out, PEEK_TLS, "client-hello-too-large");
      memcpy (hs + hl, buf + p + 5, rl);
      hl += rl;
      p += 5 + rl;
      if (hl < 4)
        continue;
      if (hs[0] != TLS_CLIENT_HELLO)
        return bad (out, PEEK_TLS, "not-client-hello");
      need = 4 + ((size_t) hs[1] << 16 | (size_t) hs[2] << 8 | hs[3]);
      if (need > sizeof (hs))
        return bad (out, PEEK_TLS, "client-hello-too-large");
      if (hl >= need)
        return client_hello (hs + 4, need - 4, out);
    }
}

static bool
tchar (uint8_t c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
         || (c && strchr ("!#$%&'*+-.^_`|~", c));
}

/* A Host value: host, host:port, [v6], [v6]:port. */
static enum peek_result
host_value (const char *v, size_t n, struct peek *out)
{
  size_t hostlen = n;
  const char *colon;
  uint16_t port;

  if (n && v[0] == '[')
    {
      const char *close = memchr (v, ']', n);
      if (close == NULL)
        return bad (out, PEEK_HTTP, "bad-host");
      hostlen = (size_t) (close - v) + 1;
    }
  else if ((colon = memrchr (v, ':', n)) != NULL)
    hostlen = (size_t) (colon - v);
  if (hostlen < n && (v[hostlen] != ':' || !port_parse (v + hostlen + 1, n - hostlen - 1, &port)))
    return bad (out, PEEK_HTTP, "bad-host");
  if (host_parse (v, hostlen, true, &out->host) != NULL)
    return bad (out, PEEK_HTTP, "bad-host");
  return PEEK_NAME;
}

/* The request head buf[0..head) ends with CRLF CRLF. */
static enum peek_result
http_head (const char *buf, size_t head, struct peek *out)
{
  const char *line = buf, *end = buf + head - 2, *eol;
  enum peek_result r = PEEK_NONE;
  bool have = false;

  out->proto = PEEK_HTTP;
  eol = memchr (line, '\n', (size_t) (end - line));
  if (eol == NULL || eol == line || eol[-1] != '\r' || eol - line < 11)
    return bad (out, PEEK_HTTP, "bad-request-line");
  if (memcmp (eol - 10, " HTTP/2.0", 9) == 0)
    return PEEK_NONE; /* cleartext HTTP/2: the name is in a frame */
  if (memcmp (eol - 10, " HTTP/1.", 8) != 0 || (eol[-2] != '0' && eol[-2] != '1'))
    return bad (out, PEEK_HTTP, "bad-request-line");
  for (line = eol + 1; line < end; line = eol + 1)
    {
      const char *colon, *v, *ve;

      eol = memchr (line, '\n', (size_t) (end - line) + 1);
      if (eol == NULL || eol == line || eol[-1] != '\r')
        return bad (out, PEEK_HTTP, "bare-lf");
      if (*line == ' ' || *line == '\t')
        return bad (out, PEEK_HTTP, "obs-fold");
      colon = memchr (line, ':', (size_t) (eol - line));
      if (colon == NULL || colon == line)
        return bad (out, PEEK_HTTP, "bad-header");
      for (const char *c = line; c < colon; c++)
        if (!tchar ((uint8_t) *c))
          return bad (out, PEEK_HTTP, "bad-header");
      if (colon - line != 4 || strncasecmp (line, "host", 4) != 0)
        continue;
      if (have)
        return bad (out, PEEK_HTTP, "duplicate-host");
      have = true;
      for (v = colon + 1; v < eol - 1 && (*v == ' ' || *v == '\t'); v++)
        ;
      for (ve = eol - 1; ve > v && (ve[-1] == ' ' || ve[-1] == '\t'); ve--)
        ;
      r = host_value (v, (size_t) (ve - v), out);
      if (r == PEEK_BAD)
        return r;
    }
  return r;
}

static enum peek_result
http (const uint8_t *buf, size_t len, bool eof, struct peek *out)
{
  size_t n = len < PEEK_MAX ? len : PEEK_MAX;
  const char *end = memmem (buf, n, "\r\n\r\n", 4);

  if (end == NULL)
    return incomplete (out, PEEK_HTTP, len, eof, "truncated-request");
  return http_head ((const char *) buf, (size_t) (end - (const char *) buf) + 4, out);
}

enum peek_result
peek_first_bytes (const uint8_t *buf, size_t len, bool eof, struct peek *out)
{
  size_t i;

  memset (out, 0, sizeof (*out));
  if (len == 0)
    return eof ? PEEK_OTHER : PEEK_MORE;
  if (buf[0] == TLS_HANDSHAKE)
    {
      if (len < 2)
        return eof ? PEEK_OTHER : PEEK_MORE;
      return buf[1] == 3 ? tls (buf, len, eof, out) : PEEK_OTHER;
    }
  /* An HTTP method: 1-20 uppercase letters, then a space. */
  for (i = 0; i < len && i <= METHOD_MAX && buf[i] >= 'A' && buf[i] <= 'Z'; i++)
    ;
  if (i == len && i <= METHOD_MAX)
    return eof ? PEEK_OTHER : PEEK_MORE;
  if (i == 0 || i > METHOD_MAX || buf[i] != ' ')
    return PEEK_OTHER;
  return http (buf, len, eof, out);
}

const char *
peek_proto_via (enum peek_proto proto)
{
  return proto == PEEK_TLS ? "sni" : "host";
}
