/* Unit tests of runtime/egress/dns.c and nameconf.c: hostile answers
 * (wrong id or question, pointer loops, truncation at every byte, records
 * of other names, overlong CNAME chains) first, then good answers, the
 * resolv.conf and hosts-file parsers. */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include "runtime/egress/dns.h"
#include "runtime/egress/nameconf.h"
#include "tests/unit/unit.h"

struct msg
{
  uint8_t b[1024];
  size_t n;
};

static void
put (struct msg *m, const void *p, size_t n)
{
  memcpy (m->b + m->n, p, n);
  m->n += n;
}

static void
put16 (struct msg *m, uint16_t v)
{
  uint8_t b[2] = { (uint8_t) (v >> 8), (uint8_t) v };
  put (m, b, 2);
}

/* Starts an answer to the query for name/qtype with id, flags and ancount. */
static void
start (struct msg *m, uint16_t id, uint16_t flags, const char *name, uint16_t qtype,
       uint16_t ancount)
{
  m->n = 0;
  m->n = dns_build_query (m->b, id, name, qtype);
  m->b[2] = (uint8_t) (flags >> 8);
  m->b[3] = (uint8_t) flags;
  m->b[6] = (uint8_t) (ancount >> 8);
  m->b[7] = (uint8_t) ancount;
}

/* A record owned by the question name (pointer to offset 12). */
static void
add_rr (struct msg *m, uint16_t type, const void *rdata, uint16_t rdlen)
{
  put16 (m, 0xc00c);
  put16 (m, type);
  put16 (m, 1);
  put16 (m, 0);
  put16 (m, 60);
  put16 (m, rdlen);
  put (m, rdata, rdlen);
}

static enum dns_result
parse (const struct msg *m, uint16_t id, const char *name, uint16_t qtype,
       struct netaddr *out, size_t *n)
{
  uint32_t ttl;

  return dns_parse_response (m->b, m->n, id, name, qtype, out, 8, n, &ttl);
}

static void
test_not_ours (void)
{
  struct msg m;
  struct netaddr out[8];
  size_t n;
  static const uint8_t a[4] = { 203, 0, 113, 1 };

  start (&m, 0x1234, 0x8180, "example.com", DNS_TYPE_A, 1);
  add_rr (&m, DNS_TYPE_A, a, 4);
  CHECK (parse (&m, 0x1235, "example.com", DNS_TYPE_A, out, &n) == DNS_IGNORE);
  CHECK (parse (&m, 0x1234, "example.org", DNS_TYPE_A, out, &n) == DNS_IGNORE);
  CHECK (parse (&m, 0x1234, "example.com", DNS_TYPE_AAAA, out, &n) == DNS_IGNORE);
  m.b[2] &= 0x7f; /* a query, not an answer */
  CHECK (parse (&m, 0x1234, "example.com", DNS_TYPE_A, out, &n) == DNS_IGNORE);
  m.b[2] |= 0x80;
  CHECK (parse (&m, 0x1234, "example.com", DNS_TYPE_A, out, &n) == DNS_OK && n == 1);
  /* Every truncation of a good answer is refused or ignored, never read past. */
  for (size_t i = 0; i < m.n; i++)
    {
      uint32_t ttl;
      enum dns_result r = dns_parse_response (m.b, i, 0x1234, "example.com", DNS_TYPE_A, out, 8,
                                              &n, &ttl);
      CHECK (r == DNS_IGNORE || r == DNS_FAIL);
    }
}

static void
test_hostile (void)
{
  struct msg m;
  struct netaddr out[8];
  size_t n;
  static const uint8_t a[4] = { 203, 0, 113, 1 };

  /* Truncated flag, server failure, NXDOMAIN. */
  start (&m, 1, 0x8380, "a.test", DNS_TYPE_A, 0);
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_FAIL);
  start (&m, 1, 0x8182, "a.test", DNS_TYPE_A, 0);
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_FAIL);
  start (&m, 1, 0x8183, "a.test", DNS_TYPE_A, 0);
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_NXDOMAIN);
  /* An answer for another name is not used. */
  start (&m, 1, 0x8180, "a.test", DNS_TYPE_A, 1);
  put (&m, "\x01" "b\x04test\x00", 8);
  put16 (&m, DNS_TYPE_A); put16 (&m, 1); put16 (&m, 0); put16 (&m, 60); put16 (&m, 4);
  put (&m, a, 4);
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_NODATA && n == 0);
  /* A self-pointer and a forward pointer loop. */
  start (&m, 1, 0x8180, "a.test", DNS_TYPE_A, 1);
  put16 (&m, (uint16_t) (0xc000 | m.n));
  put16 (&m, DNS_TYPE_A); put16 (&m, 1); put16 (&m, 0); put16 (&m, 60); put16 (&m, 4);
  put (&m, a, 4);
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_FAIL);
  start (&m, 1, 0x8180, "a.test", DNS_TYPE_A, 1);
  put16 (&m, (uint16_t) (0xc000 | (m.n + 2)));
  put16 (&m, (uint16_t) (0xc000 | (m.n - 2)));
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_FAIL);
  /* Wrong rdata length for an A record. */
  start (&m, 1, 0x8180, "a.test", DNS_TYPE_A, 1);
  add_rr (&m, DNS_TYPE_A, a, 3);
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_FAIL);
  /* rdlength beyond the message. */
  start (&m, 1, 0x8180, "a.test", DNS_TYPE_A, 1);
  add_rr (&m, DNS_TYPE_A, a, 4);
  m.b[m.n - 5] = 200;
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_FAIL);
  /* A CNAME loop: a.test -> a.test. */
  start (&m, 1, 0x8180, "a.test", DNS_TYPE_A, 1);
  add_rr (&m, DNS_TYPE_CNAME, "\xc0\x0c", 2);
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_FAIL);
  /* A label with a dot inside must not match "a.test". */
  start (&m, 1, 0x8180, "a.test", DNS_TYPE_A, 1);
  put (&m, "\x06" "a.test\x00", 8);
  put16 (&m, DNS_TYPE_A); put16 (&m, 1); put16 (&m, 0); put16 (&m, 60); put16 (&m, 4);
  put (&m, a, 4);
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_NODATA);
  /* An answer count larger than the message. */
  start (&m, 1, 0x8180, "a.test", DNS_TYPE_A, 40);
  add_rr (&m, DNS_TYPE_A, a, 4);
  CHECK (parse (&m, 1, "a.test", DNS_TYPE_A, out, &n) == DNS_FAIL);
}

static void
test_good (void)
{
  struct msg m;
  struct netaddr out[8];
  size_t n;
  char buf[NETADDR_STR_LEN];
  static const uint8_t a1[4] = { 203, 0, 113, 1 }, a2[4] = { 203, 0, 113, 2 };
  static const uint8_t v6[16] = { 0x20, 1, 0xd, 0xb8, [15] = 1 };

  start (&m, 7, 0x8180, "a.test", DNS_TYPE_A, 2);
  add_rr (&m, DNS_TYPE_A, a1, 4);
  add_rr (&m, DNS_TYPE_A, a2, 4);
  CHECK (parse (&m, 7, "a.test", DNS_TYPE_A, out, &n) == DNS_OK && n == 2);
  netaddr_format (&out[1], buf);
  CHECK_STR_EQ (buf, "203.0.113.2");
  /* Case differences in the echoed question are fine. */
  m.b[13] = 'A';
  CHECK (parse (&m, 7, "a.test", DNS_TYPE_A, out, &n) == DNS_OK && n == 2);
  /* CNAME chain: a.test -> b.a.test (compressed) -> A. */
  start (&m, 7, 0x8180, "a.test", DNS_TYPE_AAAA, 2);
  add_rr (&m, DNS_TYPE_CNAME, "\x01" "b\xc0\x0c", 4);
  put16 (&m, (uint16_t) (0xc000 | (m.n - 4)));
  put16 (&m, DNS_TYPE_AAAA); put16 (&m, 1); put16 (&m, 0); put16 (&m, 60); put16 (&m, 16);
  put (&m, v6, 16);
  CHECK (parse (&m, 7, "a.test", DNS_TYPE_AAAA, out, &n) == DNS_OK && n == 1);
  netaddr_format (&out[0], buf);
  CHECK_STR_EQ (buf, "2001:db8::1");
  /* A record of the original name when a CNAME exists is ignored. */
  start (&m, 7, 0x8180, "a.test", DNS_TYPE_A, 2);
  add_rr (&m, DNS_TYPE_A, a1, 4);
  add_rr (&m, DNS_TYPE_CNAME, "\x01" "c\xc0\x0c", 4);
  CHECK (parse (&m, 7, "a.test", DNS_TYPE_A, out, &n) == DNS_NODATA);
}

static void
test_resolv_conf (void)
{
  struct resolv_conf rc;
  char buf[NETADDR_STR_LEN];
  static const char text[] = "# comment\nsearch example\nnameserver 192.0.2.53 # x\n"
                             "nameserver fe80::1%eth0\nnameserver 0x7f.1\nnameserver\n"
                             "nameserver 2001:db8::53\r\noptions ndots:2 timeout:99 attempts:0\n"
                             "nameserver 192.0.2.54\nnameserver 192.0.2.55\n";

  resolv_conf_parse (text, sizeof (text) - 1, &rc);
  CHECK (rc.nns == 3);
  netaddr_format (&rc.ns[0], buf);
  CHECK_STR_EQ (buf, "192.0.2.53");
  netaddr_format (&rc.ns[1], buf);
  CHECK_STR_EQ (buf, "2001:db8::53");
  CHECK (rc.timeout_s == 30 && rc.attempts == 1);
  /* NUL bytes count as blanks: they never end the parse early. */
  resolv_conf_parse ("\0nameserver\0 1.2.3.4", 20, &rc);
  CHECK (rc.nns == 1);
  netaddr_format (&rc.ns[0], buf);
  CHECK_STR_EQ (buf, "1.2.3.4");
  resolv_conf_parse ("nameserver 1.2.3.4.5\nnameserver", 31, &rc);
  CHECK (rc.nns == 1);
  netaddr_format (&rc.ns[0], buf);
  CHECK_STR_EQ (buf, "127.0.0.1");
  CHECK (rc.timeout_s == 5 && rc.attempts == 2);
}

static void
test_hosts (void)
{
  static const char text[] = "127.0.0.1 localhost\n::1 localhost ip6-localhost\n"
                             "# 1.1.1.1 web.test\n203.0.113.10\tWeb.Test. www.test # c\n"
                             "2001:db8::10 web.test\n0x7f.1 evil.test\n203.0.113.10 web.test\n"
                             "fe80::1%lo web.test\n203.0.113.11 web.test";
  struct netaddr out[4];
  char buf[NETADDR_STR_LEN];

  CHECK (hosts_lookup (text, sizeof (text) - 1, "web.test", out, 4) == 3);
  netaddr_format (&out[0], buf);
  CHECK_STR_EQ (buf, "203.0.113.10");
  netaddr_format (&out[1], buf);
  CHECK_STR_EQ (buf, "203.0.113.11");
  netaddr_format (&out[2], buf);
  CHECK_STR_EQ (buf, "2001:db8::10");
  CHECK (hosts_lookup (text, sizeof (text) - 1, "web.test", out, 1) == 1);
  CHECK (hosts_lookup (text, sizeof (text) - 1, "evil.test", out, 4) == 0);
  CHECK (hosts_lookup (text, sizeof (text) - 1, "1.1.1.1", out, 4) == 0);
  CHECK (hosts_lookup (text, sizeof (text) - 1, "localhost", out, 4) == 2);
  CHECK (hosts_lookup (text, sizeof (text) - 1, "www.test", out, 4) == 1);
}

int
main (void)
{
  RUN_TEST (test_not_ours);
  RUN_TEST (test_hostile);
  RUN_TEST (test_good);
  RUN_TEST (test_resolv_conf);
  RUN_TEST (test_hosts);
  return UNIT_EXIT ();
}
