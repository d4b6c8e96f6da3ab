/* HTTP/1.x head parsing, head rewriting and the chunked decoder (see
 * http_parse.h).  Everything ambiguous is refused: bare CR or LF, obs-fold,
 * whitespace before a colon, control characters, duplicate Host,
 * Content-Length with Transfer-Encoding, conflicting lengths, a CONNECT
 * target, absolute URI and Host that disagree, userinfo. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "http_parse.h"

#define HTTP_METHOD_MAX 32
#define CHUNK_LINE_MAX 4096
#define CHUNK_TRAILER_MAX 8192

static int
fail (struct http_error *e, int status, const char *reason)
{
  e->status = status;
  e->reason = reason;
  return HTTP_PARSE_ERROR;
}

static bool
is_tchar (unsigned char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
         || (c && strchr ("!#$%&'*+-.^_`|~", c));
}

/* Field values and reason phrases: HTAB, SP, VCHAR, obs-text. */
static bool
is_vchar_or_ws (unsigned char c)
{
  return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static bool
ieq (const char *a, size_t alen, const char *b)
{
  return alen == strlen (b) && strncasecmp (a, b, alen) == 0;
}

/* Finds the end of the head, checking that every CR is followed by LF and
 * every LF preceded by CR.  Returns the head length, 0 when more input is
 * needed, -1 on error. */
static long
head_end (const char *buf, size_t len, int too_large, struct http_error *e)
{
  size_t max = len < HTTP_HEAD_MAX ? len : HTTP_HEAD_MAX;
  size_t line = 0;

  for (size_t i = 0; i < max; i++)
    {
      if (buf[i] == '\r')
        {
          if (i + 1 < len && buf[i + 1] != '\n')
            return fail (e, 400, "bare-cr");
        }
      else if (buf[i] == '\n')
        {
          if (i == 0 || buf[i - 1] != '\r')
            return fail (e, 400, "bare-lf");
          if (i - line == 1)
            return line == 0 ? fail (e, 400, "empty-first-line") : (long) i + 1;
          line = i + 1;
        }
      else if (line == 0 && i >= HTTP_LINE_MAX)
        return fail (e, too_large, "first-line-too-long");
    }
  if (len >= HTTP_HEAD_MAX)
    return fail (e, too_large, "head-too-large");
  return 0;
}

const char *
http_field_value (const char *buf, const struct http_field *f, size_t *vlen)
{
  const char *v = buf + f->line + f->name_len + 1;
  const char *end = buf + f->line + f->line_len;

  while (v < end && (*v == ' ' || *v == '\t'))
    v++;
  while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
    end--;
  *vlen = (size_t) (end - v);
  return v;
}

static int
parse_fields (const char *buf, struct http_head *h, int bad, struct http_error *e)
{
  size_t pos = h->first_line_len + 2;

  h->nfields = 0;
  while (pos + 2 < h->len)
    {
      const char *line = buf + pos;
      size_t llen = (size_t) ((const char *) memchr (line, '\r', h->len - pos) - line);
      size_t n = 0;

      if (line[0] == ' ' || line[0] == '\t')
        return fail (e, bad, "obs-fold");
      while (n < llen && is_tchar ((unsigned char) line[n]))
        n++;
      if (n == 0 || n == llen || line[n] != ':')
        return fail (e, bad, n < llen && (line[n] == ' ' || line[n] == '\t')
                                 ? "space-before-colon" : "bad-header-name");
      for (size_t i = n + 1; i < llen; i++)
        if (!is_vchar_or_ws ((unsigned char) line[i]))
          return fail (e, bad, "bad-header-value");
      if (h->nfields == HTTP_MAX_FIELDS)
        return fail (e, bad == 400 ? 431 : bad, "too-many-headers");
      h->fields[h->nfields++] = (struct http_field){
        .line = (uint16_t) pos, .line_len = (uint16_t) llen, .name_len = (uint16_t) n,
      };
      pos += llen + 2;
    }
  return 0;
}

/* Marks the fields named by a Connection field as hop-by-hop, and notes
 * `close`. */
static void
connection_tokens (const char *buf, struct http_head *h, const char *v, size_t vlen)
{
  size_t i = 0;

  while (i < vlen)
    {
      size_t start, end;

      while (i < vlen && (v[i] == ',' || v[i] == ' ' || v[i] == '\t'))
        i++;
      start = i;
      while (i < vlen && v[i] != ',' && v[i] != ' ' && v[i] != '\t')
        i++;
      end = i;
      if (end == start)
        continue;
      if (ieq (v + start, end - start, "close"))
        h->close = true;
      for (unsigned k = 0; k < h->nfields; k++)
        if (h->fields[k].name_len == end - start
            && strncasecmp (buf + h->fields[k].line, v + start, end - start) == 0)
          h->fields[k].drop = true;
    }
}

static bool
parse_length (const char *v, size_t vlen, uint64_t *out)
{
  uint64_t n = 0;

  if (vlen == 0 || vlen > 15)
    return false;
  for (size_t i = 0; i < vlen; i++)
    {
      if (v[i] < '0' || v[i] > '9')
        return false;
      n = n * 10 + (uint64_t) (v[i] - '0');
    }
  *out = n;
  return true;
}

/* The last transfer coding is chunked (a request may only say `chunked`). */
static bool
te_chunked (const char *v, size_t vlen, bool only)
{
  size_t start = vlen;

  if (only)
    return ieq (v, vlen, "chunked");
  while (start > 0 && v[start - 1] != ',')
    start--;
  while (start < vlen && (v[start] == ' ' || v[start] == '\t'))
    start++;
  return ieq (v + start, vlen - start, "chunked");
}

/* Framing and hop-by-hop fields, common to requests and responses.
 * *host gets the Host field (requests; a second one is an error); no_body
 * is true for responses that cannot have one (HEAD, 1xx, 204, 304). */
static int
head_semantics (const char *buf, struct http_head *h, bool request, bool no_body,
                const struct http_field **host, struct http_error *e)
{
  int bad = request ? 400 : 502;
  bool have_cl = false, have_te = false, chunked = false;

  for (unsigned k = 0; k < h->nfields; k++)
    {
      struct http_field *f = &h->fields[k];
      const char *name = buf + f->line, *v;
      size_t vlen, nl = f->name_len;
      uint64_t cl;

      v = http_field_value (buf, f, &vlen);
      if (request && ieq (name, nl, "host"))
        {
          if (*host)
            return fail (e, 400, "duplicate-host");
          *host = f;
        }
      else if (ieq (name, nl, "content-length"))
        {
          if (!parse_length (v, vlen, &cl))
            return fail (e, bad, "bad-content-length");
          if (have_cl && (request || cl != h->content_length))
            return fail (e, bad, "conflicting-content-length");
          have_cl = true;
          h->content_length = cl;
        }
      else if (ieq (name, nl, "transfer-encoding"))
        {
          if (have_te)
            return fail (e, bad, "duplicate-transfer-encoding");
          have_te = true;
          chunked = te_chunked (v, vlen, request);
          if (request && !chunked)
            return fail (e, 501, "unsupported-transfer-encoding");
        }
      else if (ieq (name, nl, "connection"))
        {
          f->drop = true;
          connection_tokens (buf, h, v, vlen);
        }
      else if (ieq (name, nl, "keep-alive") || ieq (name, nl, "proxy-connection")
               || ieq (name, nl, "proxy-authorization") || ieq (name, nl, "te")
               || ieq (name, nl, "proxy-authenticate") || ieq (name, nl, "upgrade"))
        f->drop = true;
    }
  if (have_cl && have_te)
    return fail (e, bad, "content-length-with-transfer-encoding");
  if (h->minor == 0)
    h->close = true;
  if (no_body)
    h->framing = HTTP_BODY_NONE;
  else if (have_te)
    h->framing = chunked ? HTTP_BODY_CHUNKED : HTTP_BODY_UNTIL_CLOSE;
  else if (have_cl && h->content_length > 0)
    h->framing = HTTP_BODY_LENGTH;
  else
    h->framing = (have_cl || request) ? HTTP_BODY_NONE : HTTP_BODY_UNTIL_CLOSE;
  if (h->framing == HTTP_BODY_UNTIL_CLOSE)
    h->close = true;
  return 0;
}

/* host[:port] or [v6][:port]; userinfo is refused. */
static int
parse_authority (const char *s, size_t len, int default_port, struct host *host,
                 uint16_t *port, struct http_error *e)
{
  const char *colon = NULL, *why;
  size_t hlen = len;

  if (memchr (s, '@', len))
    return fail (e, 400, "userinfo");
  if (len > 0 && s[0] == '[')
    {
      const char *close = memchr (s, ']', len);
      if (close == NULL)
        return fail (e, 400, "bad-host");
      hlen = (size_t) (close - s) + 1;
      if (hlen < len && s[hlen] != ':')
        return fail (e, 400, "bad-host");
      colon = hlen < len ? s + hlen : NULL;
    }
  else if ((colon = memchr (s, ':', len)) != NULL)
    {
      hlen = (size_t) (colon - s);
      if (memchr (colon + 1, ':', len - hlen - 1))
        return fail (e, 400, memchr (s, '%', len) ? "ipv6-zone-id" : "bad-host");
    }
  why = host_parse (s, hlen, true, host);
  if (why)
    return fail (e, 400, why);
  if (colon == NULL)
    {
      if (default_port < 0)
        return fail (e, 400, "missing-port");
      *port = (uint16_t) default_port;
      return 0;
    }
  if (!port_parse (colon + 1, len - hlen - 1, port))
    return fail (e, 400, "bad-port");
  return 0;
}

static bool
same_host (const struct host *a, const struct host *b)
{
  if (a->is_addr != b->is_addr)
    return false;
  return a->is_addr ? netaddr_equal (&a->addr, &b->addr) : strcmp (a->name, b->name) == 0;
}

/* Method SP request-target SP HTTP-version; returns the target span. */
static int
parse_request_line (const char *buf, struct http_request *r, size_t *target,
                    size_t *tlen, struct http_error *e)
{
  size_t n = r->head.first_line_len, i = 0, t;
  const char *v;

  while (i < n && is_tchar ((unsigned char) buf[i]))
    i++;
  if (i == 0 || i > HTTP_METHOD_MAX || i == n || buf[i] != ' ')
    return fail (e, 400, "bad-method");
  r->method_len = i;
  t = ++i;
  while (i < n && buf[i] > 0x20 && buf[i] < 0x7f)
    i++;
  if (i == t || i == n || buf[i] != ' ')
    return fail (e, 400, "bad-request-target");
  *target = t;
  *tlen = i - t;
  v = buf + i + 1;
  if (n - i - 1 == 8 && memcmp (v, "HTTP/1.", 7) == 0 && (v[7] == '0' || v[7] == '1'))
    {
      r->head.minor = v[7] - '0';
      return 0;
    }
  if (n - i - 1 == 8 && memcmp (v, "HTTP/", 5) == 0 && v[5] >= '0' && v[5] <= '9'
      && v[6] == '.' && v[7] >= '0' && v[7] <= '9')
    return fail (e, 505, "http-version");
  return fail (e, 400, "bad-http-version");
}

static int
parse_target (const char *buf, size_t t, size_t tlen, struct http_request *r,
              struct http_error *e)
{
  const char *s = buf + t, *end;
  size_t alen;

  if (r->is_connect)
    return parse_authority (s, tlen, -1, &r->host, &r->port, e);
  if (tlen < 7 || strncasecmp (s, "http://", 7) != 0)
    return fail (e, 400, memmem (s, tlen, "://", 3) ? "unsupported-scheme"
                                                    : "not-absolute-form");
  if (memchr (s, '#', tlen))
    return fail (e, 400, "fragment");
  s += 7;
  end = buf + t + tlen;
  alen = 0;
  while (s + alen < end && s[alen] != '/' && s[alen] != '?')
    alen++;
  if (parse_authority (s, alen, 80, &r->host, &r->port, e) < 0)
    return HTTP_PARSE_ERROR;
  r->path = (size_t) (s + alen - buf);
  r->path_len = (size_t) (end - (s + alen));
  return 0;
}

/* The head's request line, fields and framing, either form. */
static int
parse_request_head (const char *buf, size_t len, struct http_request *r, size_t *target,
                    size_t *tlen, const struct http_field **host, struct http_error *e)
{
  long end = head_end (buf, len, 431, e);

  if (end <= 0)
    return (int) end;
  memset (r, 0, sizeof (*r));
  r->head.len = (size_t) end;
  r->head.first_line_len = (size_t) ((const char *) memchr (buf, '\r', len) - buf);
  if (parse_request_line (buf, r, target, tlen, e) < 0
      || parse_fields (buf, &r->head, 400, e) < 0
      || head_semantics (buf, &r->head, true, false, host, e) < 0)
    return HTTP_PARSE_ERROR;
  return HTTP_PARSE_DONE;
}

int
http_parse_origin_request (const char *buf, size_t len, uint16_t default_port,
                           struct http_request *r, struct http_error *e)
{
  const struct http_field *host = NULL;
  size_t target, tlen, vlen;
  const char *v;
  int rc = parse_request_head (buf, len, r, &target, &tlen, &host, e);

  if (rc != HTTP_PARSE_DONE)
    return rc;
  if (r->method_len == 7 && memcmp (buf, "CONNECT", 7) == 0)
    return fail (e, 400, "connect-in-tunnel");
  if (!(buf[target] == '/' || (tlen == 1 && buf[target] == '*')))
    return fail (e, 400, "not-origin-form");
  if (memchr (buf + target, '#', tlen))
    return fail (e, 400, "fragment");
  if (host == NULL)
    return fail (e, 400, "missing-host");
  r->path = target;
  r->path_len = tlen;
  v = http_field_value (buf, host, &vlen);
  if (parse_authority (v, vlen, default_port, &r->host, &r->port, e) < 0)
    return HTTP_PARSE_ERROR;
  return HTTP_PARSE_DONE;
}

int
http_parse_request (const char *buf, size_t len, struct http_request *r,
                    struct http_error *e)
{
  const struct http_field *host = NULL;
  size_t target, tlen;
  int rc = parse_request_head (buf, len, r, &target, &tlen, &host, e);

  if (rc != HTTP_PARSE_DONE)
    return rc;
  r->is_connect = r->method_len == 7 && memcmp (buf, "CONNECT", 7) == 0;
  if (parse_target (buf, target, tlen, r, e) < 0)
    return HTTP_PARSE_ERROR;
  if (r->is_connect && r->head.framing != HTTP_BODY_NONE)
    return fail (e, 400, "connect-with-body");
  if (host == NULL && !r->is_connect)
    return fail (e, 400, "missing-host");
  if (host)
    {
      struct host hh;
      uint16_t hport;
      size_t vlen;
      const char *v = http_field_value (buf, host, &vlen);

      if (parse_authority (v, vlen, r->is_connect ? r->port : 80, &hh, &hport, e) < 0)
        return HTTP_PARSE_ERROR;
      if (!same_host (&hh, &r->host) || hport != r->port)
        return fail (e, 400, "host-mismatch");
    }
  return HTTP_PARSE_DONE;
}

static int
parse_status_line (const char *buf, struct http_response *r, struct http_error *e)
{
  size_t n = r->head.first_line_len;

  if (n < 12 || memcmp (buf, "HTTP/1.", 7) != 0 || (buf[7] != '0' && buf[7] != '1')
      || buf[8] != ' ')
    return fail (e, 502, "bad-status-line");
  r->head.minor = buf[7] - '0';
  r->status = 0;
  for (int i = 9; i < 12; i++)
    {
      if (buf[i] < '0' || buf[i] > '9')
        return fail (e, 502, "bad-status-line");
      r->status = r->status * 10 + (buf[i] - '0');
    }
  if (r->status < 100 || (n > 12 && buf[12] != ' '))
    return fail (e, 502, "bad-status-line");
  for (size_t i = 13; i < n; i++)
    if (!is_vchar_or_ws ((unsigned char) buf[i]))
      return fail (e, 502, "bad-status-line");
  return 0;
}

int
http_parse_response (const char *buf, size_t len, bool head_request,
                     struct http_response *r, struct http_error *e)
{
  const struct http_field *unused = NULL;
  long end = head_end (buf, len, 502, e);
  bool no_body;

  if (end <= 0)
    return (int) end;
  memset (r, 0, sizeof (*r));
  r->head.len = (size_t) end;
  r->head.first_line_len = (size_t) ((const char *) memchr (buf, '\r', len) - buf);
  if (parse_status_line (buf, r, e) < 0 || parse_fields (buf, &r->head, 502, e) < 0)
    return HTTP_PARSE_ERROR;
  no_body = head_request || r->status < 200 || r->status == 204 || r->status == 304;
  if (head_semantics (buf, &r->head, false, no_body, &unused, e) < 0)
    return HTTP_PARSE_ERROR;
  return HTTP_PARSE_DONE;
}

static size_t
copy_fields (const char *buf, const struct http_head *h, char *out)
{
  size_t o = 0;

  for (unsigned k = 0; k < h->nfields; k++)
    if (!h->fields[k].drop)
      {
        memcpy (out + o, buf + h->fields[k].line, h->fields[k].line_len);
        o += h->fields[k].line_len;
        memcpy (out + o, "\r\n", 2);
        o += 2;
      }
  return o;
}

size_t
http_request_rewrite (const char *buf, const struct http_request *r, char *out)
{
  size_t o = 0;

  memcpy (out, buf, r->method_len + 1);
  o = r->method_len + 1;
  if (r->path_len == 0 || buf[r->path] != '/')
    out[o++] = '/';
  memcpy (out + o, buf + r->path, r->path_len);
  o += r->path_len;
  memcpy (out + o, " HTTP/1.0\r\n", 11);
  out[o + 8] = (char) ('0' + r->head.minor);
  o += 11;
  o += copy_fields (buf, &r->head, out + o);
  memcpy (out + o, "\r\n", 2);
  return o + 2;
}

size_t
http_response_rewrite (const char *buf, const struct http_response *r, bool close,
                       char *out)
{
  size_t o = r->head.first_line_len + 2;

  memcpy (out, buf, o);
  o += copy_fields (buf, &r->head, out + o);
  if (close)
    {
      memcpy (out + o, "Connection: close\r\n", 19);
      o += 19;
    }
  memcpy (out + o, "\r\n", 2);
  return o + 2;
}

enum
{
  CH_SIZE,
  CH_SIZE_MORE,
  CH_EXT,
  CH_SIZE_LF,
  CH_DATA_CR,
  CH_DATA_LF,
  CH_TRAILER_START,
  CH_TRAILER_LINE,
  CH_TRAILER_LF,
  CH_FINAL_LF,
  CH_DONE,
};

void
http_chunked_init (struct http_chunked *c)
{
  memset (c, 0, sizeof (*c));
  c->state = CH_SIZE;
}

static int
hex_value (char ch)
{
  if (ch >= '0' && ch <= '9')
    return ch - '0';
  if (ch >= 'a' && ch <= 'f')
    return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F')
    return ch - 'A' + 10;
  return -1;
}

/* One byte of framing; returns -1 on error, 1 when a chunk's data starts
 * or the body ends, 0 otherwise. */
static int
chunked_byte (struct http_chunked *c, char ch)
{
  int v;

  switch (c->state)
    {
    case CH_SIZE:
    case CH_SIZE_MORE:
      if ((v = hex_value (ch)) >= 0)
        {
          if (++c->digits > 15)
            return -1;
          c->size = c->size * 16 + (uint64_t) v;
          c->state = CH_SIZE_MORE;
          return 0;
        }
      if (c->state == CH_SIZE)
        return -1;
      if (ch == '\r')
        c->state = CH_SIZE_LF;
      else if (ch == ';' || ch == ' ' || ch == '\t')
        c->state = CH_EXT;
      else
        return -1;
      return 0;
    case CH_EXT:
      if (++c->trailer_bytes > CHUNK_LINE_MAX)
        return -1;
      if (ch == '\r')
        c->state = CH_SIZE_LF;
      else if (!is_vchar_or_ws ((unsigned char) ch))
        return -1;
      return 0;
    case CH_SIZE_LF:
      if (ch != '\n')
        return -1;
      c->trailer_bytes = 0;
      c->state = c->size ? CH_DATA_CR : CH_TRAILER_START;
      return c->size ? 1 : 0;
    case CH_DATA_CR:
      c->state = CH_DATA_LF;
      return ch == '\r' ? 0 : -1;
    case CH_DATA_LF:
      c->state = CH_SIZE;
      c->size = 0;
      c->digits = 0;
      return ch == '\n' ? 0 : -1;
    case CH_TRAILER_START:
    case CH_TRAILER_LINE:
      if (++c->trailer_bytes > CHUNK_TRAILER_MAX)
        return -1;
      if (ch == '\r')
        c->state = c->state == CH_TRAILER_START ? CH_FINAL_LF : CH_TRAILER_LF;
      else if (!is_vchar_or_ws ((unsigned char) ch)
               || (c->state == CH_TRAILER_START && (ch == ' ' || ch == '\t')))
        return -1;
      else
        c->state = CH_TRAILER_LINE;
      return 0;
    case CH_TRAILER_LF:
      c->state = CH_TRAILER_START;
      return ch == '\n' ? 0 : -1;
    case CH_FINAL_LF:
      c->state = CH_DONE;
      return ch == '\n' ? 1 : -1;
    default:
      return -1;
    }
}

int
http_chunked_feed (struct http_chunked *c, const char *p, size_t n,
                   size_t *consumed, uint64_t *data)
{
  *data = 0;
  for (size_t i = 0; i < n; i++)
    {
      int r = chunked_byte (c, p[i]);

      if (r < 0)
        {
          *consumed = i;
          return -1;
        }
      if (r > 0)
        {
          *consumed = i + 1;
          if (c->state == CH_DONE)
            return 1;
          *data = c->size;
          return 0;
        }
    }
  *consumed = n;
  return c->state == CH_DONE ? 1 : 0;
}
