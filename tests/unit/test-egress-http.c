/* Unit tests of runtime/egress/http_parse.c: every request trick the proxy
 * must refuse first, then byte-at-a-time input, valid requests, the
 * rewritten heads, response framing and the chunked decoder. */
#include "config.h"

#include <string.h>

#include "runtime/egress/http_parse.h"
#include "tests/unit/unit.h"

static int
req (const char *s, struct http_request *r, struct http_error *e)
{
  return http_parse_request (s, strlen (s), r, e);
}

/* Checks that the request is refused with status and reason. */
static void
refused (const char *s, int status, const char *reason)
{
  struct http_request r;
  struct http_error e = { 0, NULL };
  int rc = req (s, &r, &e);

  if (rc != HTTP_PARSE_ERROR || e.status != status || strcmp (e.reason, reason))
    {
      fprintf (stderr, "request %.60s...: rc %d status %d reason %s (want %d %s)\n", s,
               rc, e.status, e.reason ? e.reason : "-", status, reason);
      CHECK (0);
    }
}

static void
test_target_tricks (void)
{
  refused ("GET http://allowed.com@evil.com/ HTTP/1.1\r\nHost: evil.com\r\n\r\n", 400, "userinfo");
  refused ("GET http://allowed.com:80@evil.com/ HTTP/1.1\r\nHost: x\r\n\r\n", 400, "userinfo");
  refused ("CONNECT user@evil.com:443 HTTP/1.1\r\n\r\n", 400, "userinfo");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: b.com\r\n\r\n", 400, "host-mismatch");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com:8080\r\n\r\n", 400, "host-mismatch");
  refused ("GET http://a.com:8080/ HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "host-mismatch");
  refused ("CONNECT a.com:443 HTTP/1.1\r\nHost: b.com:443\r\n\r\n", 400, "host-mismatch");
  refused ("CONNECT a.com:443 HTTP/1.1\r\nHost: a.com:22\r\n\r\n", 400, "host-mismatch");
  refused ("GET http://2130706433/ HTTP/1.1\r\nHost: 2130706433\r\n\r\n", 400, "numeric-ip-form");
  refused ("GET http://0x7f.1/ HTTP/1.1\r\nHost: 0x7f.1\r\n\r\n", 400, "numeric-ip-form");
  refused ("CONNECT 017700000001:443 HTTP/1.1\r\n\r\n", 400, "numeric-ip-form");
  refused ("CONNECT 127.1:443 HTTP/1.1\r\n\r\n", 400, "numeric-ip-form");
  refused ("CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\n\r\n", 400, "ipv6-zone-id");
  refused ("CONNECT fe80::1%eth0:443 HTTP/1.1\r\n\r\n", 400, "ipv6-zone-id");
  refused ("CONNECT ::1:443 HTTP/1.1\r\n\r\n", 400, "bad-host");
  refused ("CONNECT a.com HTTP/1.1\r\n\r\n", 400, "missing-port");
  refused ("CONNECT a.com: HTTP/1.1\r\n\r\n", 400, "bad-port");
  refused ("CONNECT a.com:0 HTTP/1.1\r\n\r\n", 400, "bad-port");
  refused ("CONNECT a.com:99999 HTTP/1.1\r\n\r\n", 400, "bad-port");
  refused ("GET /index.html HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "not-absolute-form");
  refused ("GET https://a.com/ HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "unsupported-scheme");
  refused ("GET ftp://a.com/ HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "unsupported-scheme");
  refused ("GET http://a.com/#x HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "fragment");
  refused ("GET http:///x HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "empty-host");
  refused ("GET http://a.com/ HTTP/1.1\r\n\r\n", 400, "missing-host");
  refused ("GET http://a%2ecom/ HTTP/1.1\r\nHost: a%2ecom\r\n\r\n", 400, "ipv6-zone-id");
  refused ("GET http://a.com\\@evil.com/ HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "userinfo");
  refused ("GET http://a.com:80:80/ HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "bad-host");
  refused ("CONNECT a.com:443/x HTTP/1.1\r\n\r\n", 400, "bad-port");
}

static void
test_smuggling (void)
{
  refused ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nContent-Length: 5\r\n"
           "Transfer-Encoding: chunked\r\n\r\n", 400, "content-length-with-transfer-encoding");
  refused ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nContent-Length: 5\r\n"
           "Content-Length: 6\r\n\r\n", 400, "conflicting-content-length");
  refused ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nContent-Length: 5\r\n"
           "Content-Length: 5\r\n\r\n", 400, "conflicting-content-length");
  refused ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nContent-Length: 5, 5\r\n\r\n",
           400, "bad-content-length");
  refused ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nContent-Length: -1\r\n\r\n",
           400, "bad-content-length");
  refused ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nContent-Length: +5\r\n\r\n",
           400, "bad-content-length");
  refused ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nContent-Length: 99999999999999999999\r\n\r\n",
           400, "bad-content-length");
  refused ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
           501, "unsupported-transfer-encoding");
  refused ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nTransfer-Encoding: chunked\r\n"
           "Transfer-Encoding: chunked\r\n\r\n", 400, "duplicate-transfer-encoding");
  refused ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nTransfer-Encoding : chunked\r\n\r\n",
           400, "space-before-colon");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\nHost: a.com\r\n\r\n", 400, "duplicate-host");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\nHOST: b.com\r\n\r\n", 400, "duplicate-host");
  refused ("CONNECT a.com:443 HTTP/1.1\r\nContent-Length: 3\r\n\r\n", 400, "connect-with-body");
}

static void
test_syntax (void)
{
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\nX: a\r\n b\r\n\r\n", 400, "obs-fold");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\n\tb\r\n\r\n", 400, "obs-fold");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\rX: y\r\n\r\n", 400, "bare-cr");
  refused ("GET http://a.com/ HTTP/1.1\nHost: a.com\r\n\r\n", 400, "bare-lf");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\n\n", 400, "bare-lf");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\nX-A: \x01\r\n\r\n", 400, "bad-header-value");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\nX-A: a\x7f\r\n\r\n", 400, "bad-header-value");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\nX(A): a\r\n\r\n", 400, "bad-header-name");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\n: a\r\n\r\n", 400, "bad-header-name");
  refused ("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\nNoColon\r\n\r\n", 400, "bad-header-name");
  refused ("G\x01T http://a.com/ HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "bad-method");
  refused ("GET  http://a.com/ HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "bad-request-target");
  refused ("GET http://a.com/ x HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "bad-http-version");
  refused ("GET http://a.com/\x80 HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "bad-request-target");
  refused ("GET http://a.com/ HTTP/2.0\r\nHost: a.com\r\n\r\n", 505, "http-version");
  refused ("GET http://a.com/ http/1.1\r\nHost: a.com\r\n\r\n", 400, "bad-http-version");
  refused ("GET http://a.com/ HTTP/1.1 \r\nHost: a.com\r\n\r\n", 400, "bad-http-version");
  refused ("\r\nGET http://a.com/ HTTP/1.1\r\nHost: a.com\r\n\r\n", 400, "empty-first-line");
  refused ("GET\r\n\r\n", 400, "bad-method");
}

static void
test_limits (void)
{
  char *big = malloc (HTTP_HEAD_MAX + 100);
  struct http_request r;
  struct http_error e;
  size_t n;

  /* Over-long request line: refused before the head is complete. */
  memcpy (big, "GET http://a.com/", 17);
  memset (big + 17, 'a', HTTP_LINE_MAX);
  CHECK (http_parse_request (big, 17 + HTTP_LINE_MAX, &r, &e) == HTTP_PARSE_ERROR);
  CHECK (e.status == 431);
  /* Over-long head. */
  n = (size_t) sprintf (big, "GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\nX: ");
  memset (big + n, 'a', HTTP_HEAD_MAX + 100 - n);
  CHECK (http_parse_request (big, HTTP_HEAD_MAX, &r, &e) == HTTP_PARSE_ERROR);
  CHECK (e.status == 431);
  CHECK (http_parse_request (big, HTTP_HEAD_MAX - 1, &r, &e) == HTTP_PARSE_MORE);
  /* Too many fields. */
  n = (size_t) sprintf (big, "GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\n");
  for (int i = 0; i < HTTP_MAX_FIELDS; i++)
    n += (size_t) sprintf (big + n, "X: y\r\n");
  n += (size_t) sprintf (big + n, "\r\n");
  CHECK (http_parse_request (big, n, &r, &e) == HTTP_PARSE_ERROR);
  CHECK (e.status == 431);
  free (big);
}

static void
test_byte_at_a_time (void)
{
  static const char s[] = "POST http://Example.com:8080/p?q=1 HTTP/1.1\r\nHost: example.COM:8080\r\n"
                          "Content-Length: 4\r\nConnection: keep-alive, X-Secret\r\n"
                          "X-Secret: s\r\nProxy-Connection: keep-alive\r\n\r\nbody";
  size_t head = sizeof (s) - 1 - 4;
  struct http_request r;
  struct http_error e;

  for (size_t i = 0; i < head; i++)
    CHECK (http_parse_request (s, i, &r, &e) == HTTP_PARSE_MORE);
  for (size_t i = head; i < sizeof (s); i++)
    CHECK (http_parse_request (s, i, &r, &e) == HTTP_PARSE_DONE && r.head.len == head);
}

static void
test_valid_requests (void)
{
  static const char s[] = "POST http://Example.com:8080/p?q=1 HTTP/1.1\r\nHost: example.COM:8080\r\n"
                          "Content-Length: 4\r\nConnection: keep-alive, X-Secret\r\n"
                          "X-Secret: s\r\nProxy-Connection: keep-alive\r\nAccept: */*\r\n\r\nbody";
  struct http_request r;
  struct http_error e;
  char out[sizeof (s) + 16];
  size_t n;

  CHECK (req (s, &r, &e) == HTTP_PARSE_DONE);
  CHECK (!r.is_connect && !r.host.is_addr && r.port == 8080);
  CHECK_STR_EQ (r.host.name, "example.com");
  CHECK (r.head.framing == HTTP_BODY_LENGTH && r.head.content_length == 4);
  CHECK (!r.head.close);
  n = http_request_rewrite (s, &r, out);
  out[n] = '\0';
  CHECK_STR_EQ (out, "POST /p?q=1 HTTP/1.1\r\nHost: example.COM:8080\r\nContent-Length: 4\r\n"
                     "Accept: */*\r\n\r\n");

  CHECK (req ("GET http://a.com HTTP/1.0\r\nHost: a.com\r\n\r\n", &r, &e) == HTTP_PARSE_DONE);
  CHECK (r.head.close && r.head.framing == HTTP_BODY_NONE && r.port == 80);
  n = http_request_rewrite ("GET http://a.com HTTP/1.0\r\nHost: a.com\r\n\r\n", &r, out);
  out[n] = '\0';
  CHECK_STR_EQ (out, "GET / HTTP/1.0\r\nHost: a.com\r\n\r\n");
  CHECK (req ("GET HTTP://a.com?x HTTP/1.1\r\nHost: a.com:80\r\nConnection: close\r\n\r\n", &r, &e)
         == HTTP_PARSE_DONE);
  CHECK (r.head.close);
  n = http_request_rewrite ("GET HTTP://a.com?x HTTP/1.1\r\nHost: a.com:80\r\nConnection: close\r\n\r\n",
                            &r, out);
  out[n] = '\0';
  CHECK_STR_EQ (out, "GET /?x HTTP/1.1\r\nHost: a.com:80\r\n\r\n");

  CHECK (req ("CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:DB8::1]:443\r\n\r\n", &r, &e)
         == HTTP_PARSE_DONE);
  CHECK (r.is_connect && r.host.is_addr && r.port == 443);
  CHECK (req ("CONNECT a.com:22 HTTP/1.1\r\nHost: a.com\r\nUser-Agent: x\r\n\r\n", &r, &e)
         == HTTP_PARSE_DONE);
  CHECK (r.is_connect && r.port == 22);
  CHECK (req ("POST http://a.com/ HTTP/1.1\r\nHost: a.com\r\nTransfer-Encoding: Chunked\r\n\r\n",
              &r, &e) == HTTP_PARSE_DONE);
  CHECK (r.head.framing == HTTP_BODY_CHUNKED);
}

static int
resp (const char *s, bool head, struct http_response *r, struct http_error *e)
{
  return http_parse_response (s, strlen (s), head, r, e);
}

static void
test_responses (void)
{
  struct http_response r;
  struct http_error e;
  char out[256];
  size_t n;
  const char *s;

  CHECK (resp ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", false, &r, &e)
         == HTTP_PARSE_ERROR && e.status == 502);
  CHECK (resp ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", false,
               &r, &e) == HTTP_PARSE_ERROR);
  CHECK (resp ("HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", false, &r, &e) == HTTP_PARSE_ERROR);
  CHECK (resp ("HTTP/1.1 20 OK\r\n\r\n", false, &r, &e) == HTTP_PARSE_ERROR);
  CHECK (resp ("HTTP/1.1 099 OK\r\n\r\n", false, &r, &e) == HTTP_PARSE_ERROR);
  CHECK (resp ("HTTP/2 200 OK\r\n\r\n", false, &r, &e) == HTTP_PARSE_ERROR);
  CHECK (resp ("HTTP/1.1 200OK\r\n\r\n", false, &r, &e) == HTTP_PARSE_ERROR);
  CHECK (resp ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n", false, &r, &e)
         == HTTP_PARSE_DONE && r.head.framing == HTTP_BODY_LENGTH);
  CHECK (resp ("HTTP/1.1 200\r\n\r\n", false, &r, &e) == HTTP_PARSE_DONE);
  CHECK (r.head.framing == HTTP_BODY_UNTIL_CLOSE && r.head.close);
  CHECK (resp ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, &r, &e) == HTTP_PARSE_DONE);
  CHECK (r.head.framing == HTTP_BODY_NONE && !r.head.close);
  CHECK (resp ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", true, &r, &e) == HTTP_PARSE_DONE);
  CHECK (r.head.framing == HTTP_BODY_NONE);
  CHECK (resp ("HTTP/1.1 204 No\r\n\r\n", false, &r, &e) == HTTP_PARSE_DONE);
  CHECK (r.head.framing == HTTP_BODY_NONE && !r.head.close);
  CHECK (resp ("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n", false, &r, &e)
         == HTTP_PARSE_DONE && r.head.framing == HTTP_BODY_NONE);
  CHECK (resp ("HTTP/1.1 100 Continue\r\n\r\n", false, &r, &e) == HTTP_PARSE_DONE);
  CHECK (r.status == 100 && r.head.framing == HTTP_BODY_NONE && !r.head.close);
  CHECK (resp ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", false, &r, &e)
         == HTTP_PARSE_DONE && r.head.framing == HTTP_BODY_CHUNKED);
  CHECK (resp ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", false, &r, &e)
         == HTTP_PARSE_DONE && r.head.framing == HTTP_BODY_UNTIL_CLOSE && r.head.close);
  CHECK (resp ("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\n", false, &r, &e) == HTTP_PARSE_DONE);
  CHECK (r.head.close);
  s = "HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Foo\r\nFoo: x\r\nKeep-Alive: 5\r\n"
      "Content-Length: 1\r\n\r\n";
  CHECK (resp (s, false, &r, &e) == HTTP_PARSE_DONE);
  n = http_response_rewrite (s, &r, true, out);
  out[n] = '\0';
  CHECK_STR_EQ (out, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\n");
}

/* Feeds a chunked body in pieces of step bytes (skipping data bytes) and
 * returns the decoder's final result. */
static int
chunked_run (const char *s, size_t len, size_t step)
{
  struct http_chunked c;
  size_t pos = 0;
  uint64_t skip = 0;

  http_chunked_init (&c);
  while (pos < len)
    {
      size_t avail = len - pos < step ? len - pos : step, used;
      uint64_t data;
      int rc;

      if (skip)
        {
          size_t k = skip < avail ? (size_t) skip : avail;
          skip -= k;
          pos += k;
          continue;
        }
      rc = http_chunked_feed (&c, s + pos, avail, &used, &data);
      if (rc != 0)
        return rc == 1 && pos + used == len ? 1 : -1;
      pos += used;
      skip = data;
    }
  return 0;
}

static void
test_chunked (void)
{
  static const char good[] = "4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nT: x\r\n\r\n";
  static const char *const bad[] = {
    "4\nWiki\r\n0\r\n\r\n", "4\r\nWiki\n0\r\n\r\n", "4\r\nWikix\r\n0\r\n\r\n",
    "-4\r\nWiki\r\n0\r\n\r\n", "g\r\n", "\r\n", "4\r\nWiki\r\n0\r\n \r\n\r\n",
    "1234567890abcdef0\r\n", "0\r\nT: \x01\r\n\r\n", "0\r\n\r\r", "0;\x01\r\n",
  };

  for (size_t step = 1; step <= sizeof (good); step++)
    CHECK (chunked_run (good, sizeof (good) - 1, step) == 1);
  CHECK (chunked_run (good, sizeof (good) - 3, 7) == 0);
  CHECK (chunked_run ("0\r\n\r\n", 5, 1) == 1);
  for (size_t i = 0; i < sizeof (bad) / sizeof (*bad); i++)
    {
      int rc = chunked_run (bad[i], strlen (bad[i]), 1);
      if (rc != -1)
        fprintf (stderr, "chunked accepted #%zu\n", i);
      CHECK (rc == -1);
    }
}

int
main (void)
{
  RUN_TEST (test_target_tricks);
  RUN_TEST (test_smuggling);
  RUN_TEST (test_syntax);
  RUN_TEST (test_limits);
  RUN_TEST (test_byte_at_a_time);
  RUN_TEST (test_valid_requests);
  RUN_TEST (test_responses);
  RUN_TEST (test_chunked);
  return UNIT_EXIT ();
}
