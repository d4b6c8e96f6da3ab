/* Unit tests of runtime/egress/dns_stub.c (the stub's query parser and
 * answer builder) and namecache.c (what the stub remembers).  Hostile
 * queries first: truncated at every byte, compression (loops included),
 * oversized labels and names, wrong counts, responses; then answers
 * (question copied verbatim, TTL, TC when it does not fit), then the cache:
 * TTL, the reverse window, both bounds, LRU order, replacement. */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include "runtime/egress/dns.h"
#include "runtime/egress/dns_stub.h"
#include "runtime/egress/namecache.h"
#include "tests/unit/unit.h"

static size_t
query (uint8_t *out, const char *name, uint16_t qtype)
{
  size_t n = dns_build_query (out, 0xbeef, name, qtype);
  return n;
}

static void
test_query_hostile (void)
{
  uint8_t m[600];
  struct dns_stub_query q;
  size_t n = query (m, "example.com", DNS_TYPE_A);

  for (size_t i = 0; i < 12; i++)
    CHECK (dns_stub_parse_query (m, i, &q) == STUB_DROP);
  for (size_t i = 12; i < n; i++)
    CHECK (dns_stub_parse_query (m, i, &q) == STUB_FORMERR);
  /* A response is never answered (no loops between resolvers). */
  m[2] |= 0x80;
  CHECK (dns_stub_parse_query (m, n, &q) == STUB_DROP);
  m[2] &= 0x7f;
  /* Other opcodes. */
  m[2] |= 0x28;
  CHECK (dns_stub_parse_query (m, n, &q) == STUB_NOTIMP);
  CHECK (q.id == 0xbeef);
  m[2] &= ~0x78;
  /* QDCOUNT 0 and 2. */
  m[5] = 0;
  CHECK (dns_stub_parse_query (m, n, &q) == STUB_FORMERR);
  m[5] = 2;
  CHECK (dns_stub_parse_query (m, n, &q) == STUB_FORMERR);
  m[5] = 1;
  /* Compression pointers: to itself, forward, backward into the header. */
  {
    static const uint8_t self[] = { 0xbe, 0xef, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1 };
    static const uint8_t back[] = { 0xbe, 0xef, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0,
                                    1, 'a', 0xc0, 12, 0, 1, 0, 1 };
    static const uint8_t ext[] = { 0xbe, 0xef, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x41, 'a', 0, 0, 1, 0, 1 };
    CHECK (dns_stub_parse_query (self, sizeof (self), &q) == STUB_FORMERR);
    CHECK (dns_stub_parse_query (back, sizeof (back), &q) == STUB_FORMERR);
    CHECK (dns_stub_parse_query (ext, sizeof (ext), &q) == STUB_FORMERR);
  }
  /* A label of 64, a name of 254 bytes, a label running past the end. */
  {
    uint8_t b[600] = { 0xbe, 0xef, 1, 0, 0, 1 };
    size_t o = 12;

    b[o++] = 64;
    memset (b + o, 'a', 64);
    o += 64;
    b[o++] = 0;
    memcpy (b + o, "\0\1\0\1", 4);
    CHECK (dns_stub_parse_query (b, o + 4, &q) == STUB_FORMERR);
    o = 12;
    for (int i = 0; i < 4; i++)
      {
        b[o++] = 63;
        memset (b + o, 'a', 63);
        o += 63;
      }
    b[o++] = 0; /* 4 * 63 + 3 dots = 255 > 253 */
    memcpy (b + o, "\0\1\0\1", 4);
    CHECK (dns_stub_parse_query (b, o + 4, &q) == STUB_FORMERR);
    b[12] = 40;
    CHECK (dns_stub_parse_query (b, 30, &q) == STUB_FORMERR);
  }
  /* Bytes no host name holds: parsed, but marked. */
  n = query (m, "a b.example", DNS_TYPE_A);
  CHECK (dns_stub_parse_query (m, n, &q) == STUB_QUERY);
  CHECK (!q.host_name);
  n = query (m, "a.example", DNS_TYPE_A);
  m[13] = 0; /* NUL inside a label */
  CHECK (dns_stub_parse_query (m, n, &q) == STUB_QUERY);
  CHECK (!q.host_name);
  {
    static const uint8_t root[] = { 0xbe, 0xef, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1 };
    CHECK (dns_stub_parse_query (root, sizeof (root), &q) == STUB_QUERY);
    CHECK (!q.host_name);
    CHECK_STR_EQ (q.name, "");
  }
}

static void
test_query_good (void)
{
  uint8_t m[600], out[DNS_STUB_ANSWER_MAX];
  struct dns_stub_query q;
  size_t n = query (m, "ExAmple.COM", DNS_TYPE_AAAA), len;
  struct netaddr a[3] = { { .family = AF_INET6 }, { .family = AF_INET }, { .family = AF_INET6 } };

  /* EDNS OPT and anything else after the question is ignored. */
  memcpy (m + n, "\0\0\x29\x04\xd0\0\0\0\0\0\0", 11);
  m[11] = 1;
  CHECK (dns_stub_parse_query (m, n + 11, &q) == STUB_QUERY);
  CHECK (q.host_name && q.rd && q.qtype == DNS_TYPE_AAAA && q.qclass == 1);
  CHECK_STR_EQ (q.name, "example.com");
  CHECK (q.qend == n);
  inet_pton (AF_INET6, "2001:db8::1", a[0].bytes);
  inet_pton (AF_INET, "192.0.2.1", a[1].bytes);
  inet_pton (AF_INET6, "2001:db8::2", a[2].bytes);
  len = dns_stub_answer (out, sizeof (out), m, &q, DNS_RCODE_NOERROR, a, 3, 300);
  CHECK (len == n + 2 * (12 + 16));
  CHECK (out[0] == 0xbe && out[1] == 0xef);
  CHECK (out[2] == 0x81 && out[3] == 0x80);          /* QR RD, RA */
  CHECK (out[5] == 1 && out[7] == 2 && out[9] == 0 && out[11] == 0); /* no OPT echoed */
  CHECK (memcmp (out + 12, m + 12, n - 12) == 0);    /* the client's case kept */
  CHECK (out[n] == 0xc0 && out[n + 1] == 12);
  CHECK (out[n + 6] == 0 && out[n + 7] == 0 && out[n + 8] == 1 && out[n + 9] == 0x2c);
  CHECK (memcmp (out + n + 12, a[0].bytes, 16) == 0);
  /* The answer the client's parser (ours) reads back. */
  {
    struct netaddr back[8];
    size_t nb;
    uint32_t ttl;
    m[11] = 0;
    CHECK (dns_parse_response (out, len, 0xbeef, "example.com", DNS_TYPE_AAAA, back, 8, &nb,
                               &ttl)
           == DNS_OK);
    CHECK (nb == 2 && ttl == 300);
  }
  /* REFUSED: question, no records. */
  len = dns_stub_answer (out, sizeof (out), m, &q, DNS_RCODE_REFUSED, a, 3, 300);
  CHECK (len == n && (out[3] & 0x0f) == DNS_RCODE_REFUSED && out[7] == 0);
  /* Does not fit: TC, no records. */
  len = dns_stub_answer (out, n + 20, m, &q, DNS_RCODE_NOERROR, a, 3, 300);
  CHECK (len == n && (out[2] & 0x02) && out[7] == 0);
  /* FORMERR without a question. */
  q.qend = 0;
  len = dns_stub_answer (out, sizeof (out), m, &q, DNS_RCODE_FORMERR, NULL, 0, 0);
  CHECK (len == 12 && out[5] == 0 && (out[3] & 0x0f) == DNS_RCODE_FORMERR);
  /* The most addresses, longest name: fits in 512 bytes without TC. */
  {
    char name[254];
    struct netaddr many[8];
    memset (name, 'a', 253);
    for (int i = 0; i < 3; i++)
      name[63 + i * 64] = '.';
    name[253] = '\0'; /* 63.63.63.61 */
    n = query (m, name, DNS_TYPE_AAAA);
    CHECK (dns_stub_parse_query (m, n, &q) == STUB_QUERY);
    for (int i = 0; i < 8; i++)
      many[i] = a[0];
    len = dns_stub_answer (out, DNS_STUB_UDP_MAX, m, &q, DNS_RCODE_NOERROR, many, 8, 1);
    CHECK (len <= DNS_STUB_UDP_MAX && out[7] == 8 && !(out[2] & 0x02));
  }
  {
    char buf[16];
    CHECK_STR_EQ (dns_type_name (65, buf), "HTTPS");
    CHECK_STR_EQ (dns_type_name (4242, buf), "TYPE4242");
  }
}

static struct netaddr
v4 (const char *s)
{
  struct netaddr a = { .family = AF_INET };
  inet_pton (AF_INET, s, a.bytes);
  return a;
}

static void
test_cache (void)
{
  struct namecache *nc = namecache_new (4, NAMECACHE_DEFAULT_BYTES, 42);
  struct netaddr a[10];
  const struct namecache_answer *ans;
  const char *names[8];
  uint32_t ttl;
  char longname[300];

  for (int i = 0; i < 10; i++)
    {
      char s[16];
      snprintf (s, sizeof (s), "192.0.2.%d", i + 1);
      a[i] = v4 (s);
    }
  /* Hostile: an overlong name is not stored; more addresses than kept;
   * duplicates; addresses of the other family; a huge TTL. */
  memset (longname, 'a', sizeof (longname) - 1);
  longname[sizeof (longname) - 1] = '\0';
  namecache_put (nc, longname, AF_INET, DNS_OK, a, 1, 60, 0);
  CHECK (namecache_entries (nc) == 0);
  namecache_put (nc, "big.example", AF_INET, DNS_OK, a, 10, 0xffffffffu, 0);
  ans = namecache_get (nc, "big.example", AF_INET, 0, &ttl);
  CHECK (ans && ans->n == NAMECACHE_MAX_ADDRS && ttl == NAMECACHE_TTL_MAX);
  {
    struct netaddr dup[3] = { a[0], a[0], { .family = AF_INET6 } };
    namecache_put (nc, "dup.example", AF_INET, DNS_OK, dup, 3, 60, 0);
    ans = namecache_get (nc, "dup.example", AF_INET, 0, &ttl);
    CHECK (ans && ans->n == 1);
    namecache_put (nc, "none.example", AF_INET, DNS_OK, dup + 2, 1, 60, 0);
    ans = namecache_get (nc, "none.example", AF_INET, 0, &ttl);
    CHECK (ans && ans->result == DNS_NODATA && ans->n == 0);
  }
  namecache_put (nc, "fail.example", AF_INET, DNS_FAIL, a, 1, 60, 0);
  CHECK (namecache_get (nc, "fail.example", AF_INET, 0, &ttl) == NULL);
  namecache_free (nc);

  /* TTL, then the reverse window. */
  nc = namecache_new (4, NAMECACHE_DEFAULT_BYTES, 1);
  namecache_put (nc, "a.example", AF_INET, DNS_OK, a, 2, 10, 1000);
  ans = namecache_get (nc, "a.example", AF_INET, 1500, &ttl);
  CHECK (ans && ans->n == 2 && ttl == 10);
  ans = namecache_get (nc, "a.example", AF_INET, 10999, &ttl);
  CHECK (ans && ttl == 1);
  CHECK (namecache_get (nc, "a.example", AF_INET, 11000, &ttl) == NULL);
  CHECK (namecache_get (nc, "a.example", AF_INET6, 1500, &ttl) == NULL);
  CHECK (namecache_holds (nc, "a.example", &a[1], 11000));
  CHECK (!namecache_holds (nc, "a.example", &a[2], 11000));
  CHECK (!namecache_holds (nc, "b.example", &a[1], 11000));
  CHECK (namecache_names (nc, &a[0], 11000 + NAMECACHE_REVERSE_GRACE_MS - 1, names, 8) == 1);
  CHECK_STR_EQ (names[0], "a.example");
  CHECK (namecache_names (nc, &a[0], 11000 + NAMECACHE_REVERSE_GRACE_MS, names, 8) == 0);
  CHECK (!namecache_holds (nc, "a.example", &a[0], 11000 + NAMECACHE_REVERSE_GRACE_MS));
  /* TTL 0: never answered from the cache, still known in reverse. */
  namecache_put (nc, "zero.example", AF_INET, DNS_OK, a + 5, 1, 0, 2000);
  CHECK (namecache_get (nc, "zero.example", AF_INET, 2000, &ttl) == NULL);
  CHECK (namecache_holds (nc, "zero.example", &a[5], 2000));
  /* Several names on one address, newest first; replacement drops the old
   * addresses. */
  namecache_put (nc, "b.example", AF_INET, DNS_OK, a, 1, 60, 3000);
  CHECK (namecache_names (nc, &a[0], 3000, names, 8) == 2);
  CHECK_STR_EQ (names[0], "b.example");
  CHECK_STR_EQ (names[1], "a.example");
  CHECK (namecache_names (nc, &a[0], 3000, names, 1) == 1);
  namecache_put (nc, "b.example", AF_INET, DNS_OK, a + 3, 1, 60, 3000);
  CHECK (namecache_names (nc, &a[0], 3000, names, 8) == 1);
  CHECK (namecache_entries (nc) == 3);
  /* The entry bound: least recently used first (a lookup counts as use). */
  namecache_put (nc, "c.example", AF_INET, DNS_OK, a + 4, 1, 60, 3000);
  CHECK (namecache_get (nc, "a.example", AF_INET, 3000, &ttl) != NULL);
  namecache_put (nc, "d.example", AF_INET, DNS_OK, a + 6, 1, 60, 3000);
  CHECK (namecache_entries (nc) == 4);
  CHECK (!namecache_holds (nc, "zero.example", &a[5], 3000));
  CHECK (namecache_holds (nc, "a.example", &a[0], 3000));
  namecache_put (nc, "e.example", AF_INET, DNS_OK, a + 7, 1, 60, 3000);
  CHECK (!namecache_holds (nc, "b.example", &a[3], 3000));
  CHECK (namecache_names (nc, &a[3], 3000, names, 8) == 0);
  CHECK (namecache_entries (nc) == 4);
  namecache_free (nc);

  /* The byte bound. */
  nc = namecache_new (1000, 2000, 7);
  for (int i = 0; i < 100; i++)
    {
      char name[32];
      snprintf (name, sizeof (name), "n%d.example", i);
      namecache_put (nc, name, AF_INET, DNS_OK, a + (i % 10), 1, 60, 0);
      CHECK (namecache_bytes (nc) <= 2000);
    }
  CHECK (namecache_entries (nc) >= 1 && namecache_entries (nc) < 100);
  CHECK (namecache_holds (nc, "n99.example", &a[9], 0));
  CHECK (!namecache_holds (nc, "n0.example", &a[0], 0));
  namecache_free (nc);
  /* Smaller than one entry: nothing is kept. */
  nc = namecache_new (10, 16, 7);
  namecache_put (nc, "x.example", AF_INET, DNS_OK, a, 1, 60, 0);
  CHECK (namecache_entries (nc) == 0 && namecache_bytes (nc) == 0);
  namecache_free (nc);
}

/* The TTL the resolver reads: the smallest of the records used. */
static void
test_response_ttl (void)
{
  uint8_t m[512];
  size_t n = dns_build_query (m, 7, "t.example", DNS_TYPE_A);
  static const uint8_t rr[] = {
    /* t.example CNAME u.t.example, TTL 30 */
    0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 30, 0, 4, 1, 'u', 0xc0, 12,
    /* u.t.example A 192.0.2.1, TTL 100 */
    0xc0, 27 + 12, 0, 1, 0, 1, 0, 0, 0, 100, 0, 4, 192, 0, 2, 1,
    /* u.t.example A 192.0.2.2, TTL with the top bit set: 0 */
    0xc0, 27 + 12, 0, 1, 0, 1, 0x80, 0, 0, 5, 0, 4, 192, 0, 2, 2,
  };
  struct netaddr out[8];
  size_t got;
  uint32_t ttl;

  m[2] = 0x81;
  m[3] = 0x80;
  m[7] = 2;
  memcpy (m + n, rr, 32);
  CHECK (n == 27);
  CHECK (dns_parse_response (m, n + 32, 7, "t.example", DNS_TYPE_A, out, 8, &got, &ttl) == DNS_OK);
  CHECK (got == 1 && ttl == 30);
  m[7] = 3;
  memcpy (m + n, rr, sizeof (rr));
  CHECK (dns_parse_response (m, n + sizeof (rr), 7, "t.example", DNS_TYPE_A, out, 8, &got, &ttl)
         == DNS_OK);
  CHECK (got == 2 && ttl == 0);
}

int
main (void)
{
  RUN_TEST (test_query_hostile);
  RUN_TEST (test_query_good);
  RUN_TEST (test_cache);
  RUN_TEST (test_response_ttl);
  return UNIT_EXIT ();
}
