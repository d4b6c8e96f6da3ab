/* Unit tests of runtime/egress/peek.c: hostile first bytes first (lengths
 * that lie at every level of a ClientHello, truncation at every byte, two
 * names, IP literals, records that are not handshakes, HTTP heads with two
 * Hosts, folding, bare LF), then real ClientHellos (one record, split
 * across records, without SNI) and HTTP requests. */
#include "config.h"

#include <string.h>

#include "runtime/egress/peek.h"
#include "tests/unit/unit.h"

struct buf
{
  uint8_t b[PEEK_MAX + 64];
  size_t n;
};

static void
put (struct buf *m, const void *p, size_t n)
{
  memcpy (m->b + m->n, p, n);
  m->n += n;
}

static void
put8 (struct buf *m, unsigned v)
{
  m->b[m->n++] = (uint8_t) v;
}

static void
put16 (struct buf *m, unsigned v)
{
  put8 (m, v >> 8);
  put8 (m, v);
}

static void
put24 (struct buf *m, unsigned v)
{
  put8 (m, v >> 16);
  put16 (m, v & 0xffff);
}

/* A ClientHello body with the given extensions block (already framed as
 * extension entries; NULL: no extensions block at all). */
static void
hello_body (struct buf *m, const struct buf *ext)
{
  static const uint8_t random[32] = { 1, 2, 3 };

  m->n = 0;
  put16 (m, 0x0303);
  put (m, random, 32);
  put8 (m, 32); /* session id */
  put (m, random, 32);
  put16 (m, 4); /* two cipher suites */
  put16 (m, 0x1301);
  put16 (m, 0x1302);
  put8 (m, 1);
  put8 (m, 0);
  if (ext)
    {
      put16 (m, (unsigned) ext->n);
      put (m, ext->b, ext->n);
    }
}

static void
sni_ext (struct buf *e, const char *name)
{
  size_t l = strlen (name);

  put16 (e, 0);         /* server_name */
  put16 (e, (unsigned) (l + 5));
  put16 (e, (unsigned) (l + 3));
  put8 (e, 0);          /* host_name */
  put16 (e, (unsigned) l);
  put (e, name, l);
}

static void
other_ext (struct buf *e, unsigned type, unsigned len)
{
  put16 (e, type);
  put16 (e, len);
  for (unsigned i = 0; i < len; i++)
    put8 (e, 0x5a);
}

/* Frames body as a handshake message in records of at most rec bytes. */
static void
frame (struct buf *out, const struct buf *body, size_t rec)
{
  struct buf hs = { .n = 0 };
  size_t off = 0;

  put8 (&hs, 1);
  put24 (&hs, (unsigned) body->n);
  put (&hs, body->b, body->n);
  out->n = 0;
  while (off < hs.n)
    {
      size_t l = hs.n - off < rec ? hs.n - off : rec;
      put8 (out, 0x16);
      put16 (out, 0x0301);
      put16 (out, (unsigned) l);
      put (out, hs.b + off, l);
      off += l;
    }
}

static enum peek_result
peek (const struct buf *m, struct peek *p)
{
  return peek_first_bytes (m->b, m->n, false, p);
}

static void
hello_with (struct buf *out, const char *name)
{
  struct buf ext = { .n = 0 }, body;

  other_ext (&ext, 0x000a, 4);
  if (name)
    sni_ext (&ext, name);
  other_ext (&ext, 0x002b, 3);
  hello_body (&body, &ext);
  frame (out, &body, 16384);
}

static void
test_tls_hostile (void)
{
  struct buf m, ext, body;
  struct peek p;

  /* Truncated at every byte: MORE, never a name; at EOF, BAD. */
  hello_with (&m, "example.com");
  for (size_t i = 1; i < m.n; i++)
    {
      CHECK (peek_first_bytes (m.b, i, false, &p) == PEEK_MORE);
      CHECK (peek_first_bytes (m.b, i, true, &p) == (i < 2 ? PEEK_OTHER : PEEK_BAD));
    }
  /* The record length lies: longer than the buffer ever gets. */
  m.b[3] = 0x40;
  m.b[4] = 0x01;
  CHECK (peek (&m, &p) == PEEK_BAD);
  /* The handshake length lies (longer than the record: waits, then the
   * next "record" is garbage). */
  hello_with (&m, "example.com");
  m.b[7] += 1;
  CHECK (peek (&m, &p) == PEEK_MORE);
  put (&m, "garbage", 7);
  CHECK (peek (&m, &p) == PEEK_BAD);
  /* Handshake length shorter than the body: the extensions no longer fit. */
  hello_with (&m, "example.com");
  m.b[8] -= 1;
  CHECK (peek (&m, &p) == PEEK_BAD);
  /* Not a ClientHello. */
  hello_with (&m, "example.com");
  m.b[5] = 2;
  CHECK (peek (&m, &p) == PEEK_BAD);
  CHECK_STR_EQ (p.reason, "not-client-hello");
  /* An alert record, a zero-length record. */
  hello_with (&m, "example.com");
  m.b[0] = 0x15;
  CHECK (peek (&m, &p) == PEEK_OTHER);
  hello_with (&m, "example.com");
  m.b[3] = m.b[4] = 0;
  CHECK (peek (&m, &p) == PEEK_BAD);

  /* The extensions block length lies either way. */
  ext.n = 0;
  sni_ext (&ext, "example.com");
  hello_body (&body, &ext);
  body.b[body.n - ext.n - 1] += 1;
  frame (&m, &body, 16384);
  CHECK (peek (&m, &p) == PEEK_BAD);
  body.b[body.n - ext.n - 1] -= 2;
  frame (&m, &body, 16384);
  CHECK (peek (&m, &p) == PEEK_BAD);
  /* One extension's length runs past the block. */
  ext.n = 0;
  other_ext (&ext, 0x000a, 4);
  ext.b[3] = 9;
  hello_body (&body, &ext);
  frame (&m, &body, 16384);
  CHECK (peek (&m, &p) == PEEK_BAD);
  /* server_name list length lies; host_name length lies. */
  ext.n = 0;
  sni_ext (&ext, "example.com");
  ext.b[5] += 1;
  hello_body (&body, &ext);
  frame (&m, &body, 16384);
  CHECK (peek (&m, &p) == PEEK_BAD);
  ext.n = 0;
  sni_ext (&ext, "example.com");
  ext.b[8] += 1;
  hello_body (&body, &ext);
  frame (&m, &body, 16384);
  CHECK (peek (&m, &p) == PEEK_BAD);
  /* Two server_name extensions; two host_names in one. */
  ext.n = 0;
  sni_ext (&ext, "example.com");
  sni_ext (&ext, "evil.example");
  hello_body (&body, &ext);
  frame (&m, &body, 16384);
  CHECK (peek (&m, &p) == PEEK_BAD);
  CHECK_STR_EQ (p.reason, "sni-twice");
  ext.n = 0;
  put16 (&ext, 0);
  put16 (&ext, 2 + 2 * (3 + 1));
  put16 (&ext, 2 * (3 + 1));
  put8 (&ext, 0);
  put16 (&ext, 1);
  put8 (&ext, 'a');
  put8 (&ext, 0);
  put16 (&ext, 1);
  put8 (&ext, 'b');
  hello_body (&body, &ext);
  frame (&m, &body, 16384);
  CHECK (peek (&m, &p) == PEEK_BAD);
  CHECK_STR_EQ (p.reason, "sni-two-names");
  /* Names that are no host names: IP literals, numeric forms, NUL,
   * spaces, overlong, empty. */
  {
    static const char *bad[] = { "10.0.0.1", "127.1", "0x7f.1", "a b.example", "a..example",
                                 "-" };
    char longname[300];

    for (size_t i = 0; i < sizeof (bad) / sizeof (*bad); i++)
      {
        hello_with (&m, bad[i]);
        CHECK (peek (&m, &p) == PEEK_BAD);
      }
    memset (longname, 'a', sizeof (longname) - 1);
    longname[sizeof (longname) - 1] = '\0';
    hello_with (&m, longname);
    CHECK (peek (&m, &p) == PEEK_BAD);
    hello_with (&m, "ex\0ample.com");
    CHECK (peek (&m, &p) == PEEK_NAME); /* the name ends at the NUL we wrote */
    ext.n = 0;
    sni_ext (&ext, "exa.mple");
    ext.b[11] = 0; /* NUL inside the name */
    hello_body (&body, &ext);
    frame (&m, &body, 16384);
    CHECK (peek (&m, &p) == PEEK_BAD);
  }
  /* Session id over 32, no cipher suites, odd cipher length, no
   * compression methods. */
  hello_with (&m, "example.com");
  m.b[9 + 34] = 33;
  CHECK (peek (&m, &p) == PEEK_BAD);
  ext.n = 0;
  hello_body (&body, NULL);
  body.b[34 + 33] = 0;
  body.b[34 + 34] = 3;
  frame (&m, &body, 16384);
  CHECK (peek (&m, &p) == PEEK_BAD);
  /* Far more than a ClientHello can be: refused, not buffered forever. */
  {
    struct buf big = { .n = 0 };
    put8 (&big, 0x16);
    put16 (&big, 0x0301);
    put16 (&big, 16384);
    put8 (&big, 1);
    put24 (&big, 0x100000);
    while (big.n < 5 + 16384)
      put8 (&big, 0);
    CHECK (peek (&big, &p) == PEEK_BAD);
    CHECK_STR_EQ (p.reason, "client-hello-too-large");
  }
}

static void
test_tls_good (void)
{
  struct buf m, body;
  struct peek p;

  hello_with (&m, "Example.COM.");
  CHECK (peek (&m, &p) == PEEK_NAME);
  CHECK (p.proto == PEEK_TLS && !p.host.is_addr);
  CHECK_STR_EQ (p.host.name, "example.com");
  CHECK_STR_EQ (peek_proto_via (p.proto), "sni");
  /* Split across records of 100 bytes, and byte-at-a-time arrival. */
  {
    struct buf ext = { .n = 0 };
    other_ext (&ext, 0x0010, 300);
    sni_ext (&ext, "split.example");
    hello_body (&body, &ext);
    frame (&m, &body, 100);
    CHECK (peek (&m, &p) == PEEK_NAME);
    CHECK_STR_EQ (p.host.name, "split.example");
    for (size_t i = 1; i < m.n; i++)
      CHECK (peek_first_bytes (m.b, i, false, &p) == PEEK_MORE);
  }
  /* Bytes after the ClientHello (early data) do not matter. */
  hello_with (&m, "example.com");
  put (&m, "\x17\x03\x03\x00\x01x", 6);
  CHECK (peek (&m, &p) == PEEK_NAME);
  /* No SNI; no extensions at all. */
  hello_with (&m, NULL);
  CHECK (peek (&m, &p) == PEEK_NONE);
  hello_body (&body, NULL);
  frame (&m, &body, 16384);
  CHECK (peek (&m, &p) == PEEK_NONE);
}

static enum peek_result
http (const char *s, struct peek *p)
{
  return peek_first_bytes ((const uint8_t *) s, strlen (s), false, p);
}

static void
test_http (void)
{
  struct peek p;
  const char *req = "GET / HTTP/1.1\r\nUser-Agent: x\r\nHost: Web.Example:8080\r\n\r\n";

  /* Hostile first. */
  CHECK (http ("GET / HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n", &p) == PEEK_BAD);
  CHECK_STR_EQ (p.reason, "duplicate-host");
  CHECK (http ("GET / HTTP/1.1\r\nhOsT: a.example\r\nHOST: b.example\r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET / HTTP/1.1\r\nX: y\r\n Host: b.example\r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET / HTTP/1.1\r\nHost: a.example\nX: y\r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET / HTTP/1.1\r\nHost : a.example\r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET / HTTP/1.1\r\nHost: 127.1\r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET / HTTP/1.1\r\nHost: a.example:99999\r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET / HTTP/1.1\r\nHost: [fe80::1%25lo]\r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET / HTTP/1.1\r\nHost: a.example:\r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET / HTTP/1.1\r\nHost: \r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET / HTTX/1.1\r\nHost: a.example\r\n\r\n", &p) == PEEK_BAD);
  CHECK (http ("GET /\r\n\r\n", &p) == PEEK_BAD);
  /* Not HTTP at all, or not yet known. */
  CHECK (http ("SSH-2.0-x\r\n", &p) == PEEK_OTHER);
  CHECK (http ("get / HTTP/1.1\r\n\r\n", &p) == PEEK_OTHER);
  CHECK (http ("AAAAAAAAAAAAAAAAAAAAAAAAA / HTTP/1.1\r\n\r\n", &p) == PEEK_OTHER);
  CHECK (http ("GET", &p) == PEEK_MORE);
  CHECK (peek_first_bytes ((const uint8_t *) "GET", 3, true, &p) == PEEK_OTHER);
  CHECK (peek_first_bytes ((const uint8_t *) "", 0, false, &p) == PEEK_MORE);
  CHECK (peek_first_bytes ((const uint8_t *) "\x16", 1, false, &p) == PEEK_MORE);
  CHECK (peek_first_bytes ((const uint8_t *) "\x16\x01", 2, false, &p) == PEEK_OTHER);
  /* Incomplete heads: wait; at EOF or past PEEK_MAX: bad. */
  for (size_t i = 4; i < strlen (req); i++)
    {
      CHECK (peek_first_bytes ((const uint8_t *) req, i, false, &p) == PEEK_MORE);
      CHECK (peek_first_bytes ((const uint8_t *) req, i, true, &p) == PEEK_BAD);
    }
  {
    static char big[PEEK_MAX + 10];
    memset (big, 'a', sizeof (big));
    memcpy (big, "GET / HTTP/1.1\r\nX: ", 19);
    CHECK (peek_first_bytes ((const uint8_t *) big, sizeof (big), false, &p) == PEEK_BAD);
    CHECK_STR_EQ (p.reason, "head-too-large");
  }
  /* Good. */
  CHECK (http (req, &p) == PEEK_NAME);
  CHECK (p.proto == PEEK_HTTP);
  CHECK_STR_EQ (p.host.name, "web.example");
  CHECK_STR_EQ (peek_proto_via (p.proto), "host");
  CHECK (http ("POST /x HTTP/1.0\r\nHost:\ta.example \r\nContent-Length: 3\r\n\r\nabc", &p)
         == PEEK_NAME);
  CHECK_STR_EQ (p.host.name, "a.example");
  CHECK (http ("GET / HTTP/1.1\r\nHost: [2001:db8::1]:80\r\n\r\n", &p) == PEEK_NAME);
  CHECK (p.host.is_addr);
  CHECK (http ("GET / HTTP/1.1\r\nHost: 192.0.2.1\r\n\r\n", &p) == PEEK_NAME);
  CHECK (p.host.is_addr);
  CHECK (http ("GET / HTTP/1.0\r\nAccept: */*\r\n\r\n", &p) == PEEK_NONE);
  CHECK (http ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", &p) == PEEK_NONE);
}

int
main (void)
{
  RUN_TEST (test_tls_hostile);
  RUN_TEST (test_tls_good);
  RUN_TEST (test_http);
  return UNIT_EXIT ();
}
