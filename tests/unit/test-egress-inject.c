/* Unit tests of the sidecar's credential injection, pure parts: the
 * runtime's message (inject_wire.h) and the request-head rewriting
 * (inject_rewrite.h).  Hostile inputs first. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "runtime/egress/http_parse.h"
#include "runtime/egress/inject_rewrite.h"
#include "runtime/egress/inject_wire.h"
#include "unit.h"

#define STANDIN "agentrt-standin-00112233445566778899aabbccddeeff"
#define OTHER "agentrt-standin-ffeeddccbbaa99887766554433221100"
#define VALUE "ghp_RealSecretValue0123456789"

static char *
message (const char *value, const char *header, const char *const *hosts, size_t *len)
{
  char *buf = NULL;

  *len = 0;
  CHECK (inject_wire_put (&buf, len, "ca-key", "KEY", 3));
  CHECK (inject_wire_put (&buf, len, "ca-cert", "CERT", 4));
  CHECK (inject_wire_put (&buf, len, "name", "GH", 2));
  CHECK (inject_wire_put (&buf, len, "header", header, strlen (header)));
  CHECK (inject_wire_put (&buf, len, "standin", STANDIN, strlen (STANDIN)));
  CHECK (inject_wire_put (&buf, len, "value", value, strlen (value)));
  for (size_t i = 0; hosts[i]; i++)
    CHECK (inject_wire_put (&buf, len, "host", hosts[i], strlen (hosts[i])));
  return buf;
}

static int
decode (char *buf, size_t len, struct inject_set *s, const char *needle)
{
  agentrt_error_t err = NULL;
  int r = inject_wire_decode (buf, len, s, &err);

  if (needle)
    {
      CHECK (r < 0);
      CHECK_CONTAINS (err ? err->msg : NULL, needle);
    }
  agentrt_error_release (&err);
  return r;
}

static const char *const hosts[] = { "api.example.test", "git.example.test", NULL };

static void
test_wire_hostile (void)
{
  static const char *const bad_values[] = { "a\r\nX-Evil: 1", "a\nb", " lead", "trail ",
                                            "caf\xc3\xa9", "tab\there" };
  static const char *const bad_hosts[][2] = { { "API.example.test", NULL },
                                              { "a b.test", NULL },
                                              { "x.test\r\n", NULL } };
  struct inject_set s;
  size_t len;
  char *buf;

  for (size_t i = 0; i < sizeof (bad_values) / sizeof (*bad_values); i++)
    {
      buf = message (bad_values[i], "Authorization", hosts, &len);
      decode (buf, len, &s, "record 5 (value)");
      free (buf);
    }
  for (size_t i = 0; i < sizeof (bad_hosts) / sizeof (*bad_hosts); i++)
    {
      buf = message (VALUE, "Authorization", bad_hosts[i], &len);
      decode (buf, len, &s, "record 6 (host)");
      free (buf);
    }
  buf = message (VALUE, "Author ization", hosts, &len);
  decode (buf, len, &s, "record 3 (header)");
  free (buf);
  /* no host */
  buf = message (VALUE, "Authorization", (const char *const[]){ NULL }, &len);
  decode (buf, len, &s, "ends early");
  free (buf);
  /* truncated anywhere: never accepted, never read beyond */
  buf = message (VALUE, "Authorization", hosts, &len);
  for (size_t cut = 0; cut < len; cut++)
    {
      /* the one cut that is whole: before the second host's record */
      size_t whole = len - strlen ("host 16\ngit.example.test\n");
      char *copy = xmalloc (cut + 1);
      int r;

      memcpy (copy, buf, cut);
      r = decode (copy, cut, &s, NULL);
      CHECK (r < 0 || cut == whole);
      if (r == 0)
        inject_set_release (&s);
      free (copy);
    }
  free (buf);
  /* lengths that lie */
  {
    char lie[] = "ca-key 999999\nKEY\n";
    CHECK (decode (lie, sizeof lie - 1, &s, "malformed") < 0);
    char lie2[] = "ca-key 18446744073709551617\nKEY\n";
    CHECK (decode (lie2, sizeof lie2 - 1, &s, "malformed") < 0);
    char order[] = "ca-cert 1\nC\nca-key 1\nK\n";
    CHECK (decode (order, sizeof order - 1, &s, "out of place") < 0);
  }
  /* too many hosts */
  {
    const char *many[CREDENTIAL_HOSTS_MAX + 2];
    char names[CREDENTIAL_HOSTS_MAX + 1][16];
    for (size_t i = 0; i <= CREDENTIAL_HOSTS_MAX; i++)
      {
        snprintf (names[i], sizeof names[i], "h%zu.test", i);
        many[i] = names[i];
      }
    many[CREDENTIAL_HOSTS_MAX + 1] = NULL;
    buf = message (VALUE, "Authorization", many, &len);
    decode (buf, len, &s, "(host)");
    free (buf);
  }
  /* good, and the buffer is wiped */
  buf = message (VALUE, "Authorization", hosts, &len);
  CHECK (decode (buf, len, &s, NULL) == 0);
  CHECK (memmem (buf, len, VALUE, strlen (VALUE)) == NULL);
  CHECK (s.n == 1 && s.creds[0].nhosts == 2);
  CHECK_STR_EQ (s.creds[0].value, VALUE);
  CHECK (inject_set_for_host (&s, "GIT.example.test") == &s.creds[0]);
  CHECK (inject_set_for_host (&s, "example.test") == NULL);
  CHECK (inject_set_for_host (&s, "xapi.example.test") == NULL);
  inject_set_release (&s);
  free (buf);
}

/* The runtime builds the message between other allocations (each value
 * read into a buffer of its own): the message must never move, or the
 * values written before would stay in the freed room, unwiped. */
static void
test_wire_never_moves (void)
{
  char *buf = NULL, *first, *between[64] = { NULL };
  char value[1024];
  size_t len = 0, i;

  memset (value, 'v', sizeof value);
  CHECK (inject_wire_put (&buf, &len, "ca-key", "KEY", 3));
  first = buf;
  for (i = 0; i < 64 && inject_wire_put (&buf, &len, "value", value, sizeof value); i++)
    {
      CHECK (buf == first);
      between[i] = xmalloc (32);
    }
  CHECK (i > 32 && len + sizeof value + 16 > INJECT_WIRE_MAX);
  CHECK (buf == first);
  for (i = 0; i < 64; i++)
    free (between[i]);
  free (buf);
}

static struct inject_set set;

static char *
rewrite (const char *head, unsigned *count)
{
  struct http_request r;
  struct http_error e;
  size_t n;
  char *out;

  if (http_parse_origin_request (head, strlen (head), 443, &r, &e) != HTTP_PARSE_DONE)
    {
      fprintf (stderr, "parse failed: %s\n", head);
      CHECK (0);
      return NULL;
    }
  out = inject_rewrite (head, &r.head, &set.creds[0], &n, count);
  if (out)
    {
      out = xrealloc (out, n + 1);
      out[n] = '\0';
    }
  return out;
}

static void
test_rewrite_hostile (void)
{
  unsigned count;
  char *out;

  /* the stand-in elsewhere than the header: unchanged */
  out = rewrite ("GET /?t=" STANDIN " HTTP/1.1\r\nHost: api.example.test\r\n"
                 "X-Other: " STANDIN "\r\nCookie: a=" STANDIN "\r\n\r\n", &count);
  CHECK (count == 0);
  CHECK (out && strstr (out, VALUE) == NULL);
  free (out);
  /* several fields: each Authorization replaced, others not */
  out = rewrite ("POST /x HTTP/1.1\r\nHost: api.example.test\r\nauthorization: Bearer "
                 STANDIN "\r\nX-Other: " STANDIN "\r\nAuthorization:  token " STANDIN
                 STANDIN "  \r\nContent-Length: 0\r\n\r\n", &count);
  CHECK (count == 3);
  CHECK_STR_EQ (out, "POST /x HTTP/1.1\r\nHost: api.example.test\r\nauthorization: Bearer "
                VALUE "\r\nX-Other: " STANDIN "\r\nAuthorization:  token " VALUE VALUE
                "  \r\nContent-Length: 0\r\n\r\n");
  free (out);
  /* a near miss of the stand-in is not it */
  out = rewrite ("GET / HTTP/1.1\r\nHost: a.example.test\r\nAuthorization: Bearer " OTHER
                 "\r\n\r\n", &count);
  CHECK (count == 0);
  free (out);
  /* header injection: what follows the stand-in stays in its line */
  out = rewrite ("GET / HTTP/1.1\r\nHost: a.example.test\r\nAuthorization: Bearer " STANDIN
                 "\r\nX-Injected: 1\r\n\r\n", &count);
  CHECK (count == 1);
  CHECK_STR_EQ (out, "GET / HTTP/1.1\r\nHost: a.example.test\r\nAuthorization: Bearer " VALUE
                "\r\nX-Injected: 1\r\n\r\n");
  free (out);
  /* obs-fold or bare LF in the head: the parser refuses it first */
  {
    struct http_request r;
    struct http_error e;
    const char *folded = "GET / HTTP/1.1\r\nHost: a.example.test\r\nAuthorization: Bearer\r\n "
                         STANDIN "\r\n\r\n";
    const char *lf = "GET / HTTP/1.1\r\nHost: a.example.test\nAuthorization: " STANDIN
                     "\r\n\r\n";
    const char *absolute = "GET http://a.example.test/ HTTP/1.1\r\nHost: a.example.test\r\n\r\n";
    const char *connect = "CONNECT a.example.test:443 HTTP/1.1\r\nHost: a.example.test\r\n\r\n";
    const char *nohost = "GET / HTTP/1.1\r\n\r\n";
    CHECK (http_parse_origin_request (folded, strlen (folded), 443, &r, &e) == HTTP_PARSE_ERROR);
    CHECK (http_parse_origin_request (lf, strlen (lf), 443, &r, &e) == HTTP_PARSE_ERROR);
    CHECK (http_parse_origin_request (absolute, strlen (absolute), 443, &r, &e)
           == HTTP_PARSE_ERROR);
    CHECK (http_parse_origin_request (connect, strlen (connect), 443, &r, &e)
           == HTTP_PARSE_ERROR);
    CHECK (http_parse_origin_request (nohost, strlen (nohost), 443, &r, &e) == HTTP_PARSE_ERROR);
  }
}

/* The stand-in split across reads: the head is complete only with its
 * last byte; before that the parser says MORE at every cut. */
static void
test_split (void)
{
  static const char head[] = "GET / HTTP/1.1\r\nHost: api.example.test\r\nAuthorization: Bearer "
                             STANDIN "\r\n\r\n";
  struct http_request r;
  struct http_error e;

  for (size_t cut = 0; cut < sizeof head - 1; cut++)
    CHECK (http_parse_origin_request (head, cut, 443, &r, &e) == HTTP_PARSE_MORE);
  CHECK (http_parse_origin_request (head, sizeof head - 1, 443, &r, &e) == HTTP_PARSE_DONE);
  CHECK (r.port == 443 && strcmp (r.host.name, "api.example.test") == 0);
}

static void
test_basic (void)
{
  char enc[256], head[512], want[512];
  const char *user = "x-access-token:" STANDIN, *real = "x-access-token:" VALUE;
  unsigned count;
  char *out;

  enc[inject_base64_encode ((const unsigned char *) user, strlen (user), enc)] = '\0';
  snprintf (head, sizeof head, "GET /r.git/info/refs HTTP/1.1\r\nHost: git.example.test\r\n"
            "Authorization: Basic %s\r\n\r\n", enc);
  out = rewrite (head, &count);
  CHECK (count == 1);
  enc[inject_base64_encode ((const unsigned char *) real, strlen (real), enc)] = '\0';
  snprintf (want, sizeof want, "GET /r.git/info/refs HTTP/1.1\r\nHost: git.example.test\r\n"
            "Authorization: Basic %s\r\n\r\n", enc);
  CHECK_STR_EQ (out, want);
  free (out);
  /* malformed base64 is left alone */
  out = rewrite ("GET / HTTP/1.1\r\nHost: git.example.test\r\nAuthorization: Basic a=b=\r\n\r\n",
                 &count);
  CHECK (count == 0 && out && strstr (out, "Basic a=b=") != NULL);
  free (out);
  {
    unsigned char d[16];
    CHECK (inject_base64_decode ("", 0, d) < 0);
    CHECK (inject_base64_decode ("abc", 3, d) < 0);
    CHECK (inject_base64_decode ("ab=c", 4, d) < 0);
    CHECK (inject_base64_decode ("a===", 4, d) < 0);
    CHECK (inject_base64_decode ("YQ==YQ==", 8, d) < 0);
    CHECK (inject_base64_decode ("YWJj", 4, d) == 3 && memcmp (d, "abc", 3) == 0);
  }
  /* found in Basic for the audit of other hosts */
  {
    struct http_request r;
    struct http_error e;
    enc[inject_base64_encode ((const unsigned char *) user, strlen (user), enc)] = '\0';
    snprintf (head, sizeof head, "GET / HTTP/1.1\r\nHost: other.test\r\n"
              "Authorization: Basic %s\r\n\r\n", enc);
    CHECK (http_parse_origin_request (head, strlen (head), 443, &r, &e) == HTTP_PARSE_DONE);
    CHECK (inject_find_standin (&set, head, strlen (head), &r.head) == &set.creds[0]);
    CHECK (inject_find_standin (&set, head, strlen (head), NULL) == NULL);
  }
}

/* A head that grows beyond INJECT_HEAD_MAX is refused, not cut. */
static void
test_oversized (void)
{
  struct inject_set big;
  char value[CREDENTIAL_VALUE_MAX + 1], *buf, *head;
  size_t len, n = 0;
  unsigned count;
  struct http_request r;
  struct http_error e;

  memset (value, 'v', CREDENTIAL_VALUE_MAX);
  value[CREDENTIAL_VALUE_MAX] = '\0';
  buf = message (value, "X-Key", hosts, &len);
  CHECK (decode (buf, len, &big, NULL) == 0);
  free (buf);
  head = xmalloc (HTTP_HEAD_MAX);
  n = (size_t) snprintf (head, HTTP_HEAD_MAX, "GET / HTTP/1.1\r\nHost: a.example.test\r\n");
  for (int i = 0; i < 12; i++)
    n += (size_t) snprintf (head + n, HTTP_HEAD_MAX - n, "X-Key: %s\r\n", STANDIN);
  n += (size_t) snprintf (head + n, HTTP_HEAD_MAX - n, "\r\n");
  CHECK (http_parse_origin_request (head, n, 443, &r, &e) == HTTP_PARSE_DONE);
  CHECK (inject_rewrite (head, &r.head, &big.creds[0], &len, &count) == NULL);
  free (head);
  inject_set_release (&big);
}

int
main (void)
{
  size_t len;
  char *buf;

  RUN_TEST (test_wire_hostile);
  RUN_TEST (test_wire_never_moves);
  buf = message (VALUE, "Authorization", hosts, &len);
  CHECK (decode (buf, len, &set, NULL) == 0);
  free (buf);
  RUN_TEST (test_rewrite_hostile);
  RUN_TEST (test_split);
  RUN_TEST (test_basic);
  RUN_TEST (test_oversized);
  inject_set_release (&set);
  return UNIT_EXIT ();
}
