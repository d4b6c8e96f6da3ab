/* Unit tests of runtime/egress/netaddr.c: strict host and IP parsing and
 * the special-purpose address classes.  Hostile forms first. */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include "runtime/egress/netaddr.h"
#include "tests/unit/unit.h"

static const char *
parse (const char *s, bool brackets, struct host *h)
{
  return host_parse (s, strlen (s), brackets, h);
}

static void
test_numeric_ipv4_forms_refused (void)
{
  static const char *const forms[] = {
    "2130706433", "0x7f.1", "0x7f000001", "017700000001", "127.1", "127.0.1",
    "0177.0.0.1", "127.0.0.01", "1.2.3.256", "0x7f.0.0.1", "1.2.3.4.5",
    "example.0x10", "example.123", "0x", "1.2.3.4x.5", "00.0.0.0", "127.000.0.1",
    "1..2.3", "4294967296",
  };
  struct host h;

  for (size_t i = 0; i < sizeof (forms) / sizeof (*forms); i++)
    {
      const char *why = parse (forms[i], true, &h);
      if (why == NULL)
        fprintf (stderr, "accepted: %s\n", forms[i]);
      CHECK (why != NULL);
    }
  CHECK_STR_EQ (parse ("2130706433", true, &h), "numeric-ip-form");
  CHECK_STR_EQ (parse ("0x7f.1", true, &h), "numeric-ip-form");
}

static void
test_bad_names_refused (void)
{
  static const char *const bad[] = {
    "", ".", "..", "a..b", ".a", "-a.com", "a-.com", "a b", "a\tb", "évil.com",
    "a@b", "a/b", "a\\b", "a:80", "a%2ecom", "[::1]", "[::1%eth0]", "fe80::1%eth0",
    "a.com..",
  };
  struct host h;
  char label[80], longname[300];

  for (size_t i = 0; i < sizeof (bad) / sizeof (*bad); i++)
    {
      bool brackets = bad[i][0] != '[';
      const char *why = parse (bad[i], brackets && strcmp (bad[i], "[::1]") != 0, &h);
      if (why == NULL)
        fprintf (stderr, "accepted: '%s'\n", bad[i]);
      CHECK (why != NULL);
    }
  CHECK_STR_EQ (parse ("[fe80::1%25eth0]", true, &h), "ipv6-zone-id");
  CHECK_STR_EQ (parse ("[fe80::1%eth0]", true, &h), "ipv6-zone-id");
  CHECK (host_parse ("a\0b", 3, true, &h) != NULL);
  memset (label, 'a', 64);
  label[64] = '\0';
  CHECK (parse (label, true, &h) != NULL);
  label[63] = '\0';
  CHECK (parse (label, true, &h) == NULL);
  memset (longname, 'a', sizeof (longname));
  for (size_t i = 50; i < sizeof (longname); i += 51)
    longname[i] = '.';
  longname[254] = '\0';
  CHECK_STR_EQ (parse (longname, true, &h), "host-too-long");
  longname[253] = '\0';
  CHECK (parse (longname, true, &h) == NULL);
}

static void
test_good_hosts (void)
{
  struct host h;
  char buf[NETADDR_STR_LEN];

  CHECK (parse ("Example.COM.", true, &h) == NULL);
  CHECK (!h.is_addr);
  CHECK_STR_EQ (h.name, "example.com");
  CHECK (parse ("x_y-z.example", true, &h) == NULL);
  CHECK (parse ("0x7f.example.com", true, &h) == NULL);
  CHECK (parse ("localhost", true, &h) == NULL);
  CHECK (parse ("1.2.3.4", true, &h) == NULL && h.is_addr);
  netaddr_format (&h.addr, buf);
  CHECK_STR_EQ (buf, "1.2.3.4");
  CHECK (parse ("1.2.3.4.", true, &h) == NULL && h.is_addr);
  CHECK (parse ("0.0.0.0", true, &h) == NULL && h.is_addr);
  CHECK (parse ("[2001:DB8::1]", true, &h) == NULL && h.is_addr);
  netaddr_format (&h.addr, buf);
  CHECK_STR_EQ (buf, "2001:db8::1");
  CHECK (parse ("[::ffff:127.0.0.1]", true, &h) == NULL && h.is_addr);
}

static void
test_ports (void)
{
  uint16_t p;

  CHECK (!port_parse ("", 0, &p));
  CHECK (!port_parse ("0", 1, &p));
  CHECK (!port_parse ("65536", 5, &p));
  CHECK (!port_parse ("000080", 6, &p));
  CHECK (!port_parse ("+80", 3, &p));
  CHECK (!port_parse ("8 0", 3, &p));
  CHECK (port_parse ("65535", 5, &p) && p == 65535);
  CHECK (port_parse ("080", 3, &p) && p == 80);
}

static enum addr_class
cls (const char *s)
{
  struct netaddr a;

  if (!netaddr_parse_ipv4 (s, strlen (s), &a) && !netaddr_parse_ipv6 (s, strlen (s), &a))
    {
      fprintf (stderr, "bad test address %s\n", s);
      abort ();
    }
  return netaddr_classify (&a);
}

static void
test_classes (void)
{
  CHECK (cls ("127.0.0.1") == ADDR_LOOPBACK);
  CHECK (cls ("127.255.255.254") == ADDR_LOOPBACK);
  CHECK (cls ("169.254.169.254") == ADDR_METADATA);
  CHECK (cls ("169.254.169.1") == ADDR_LINK_LOCAL);
  CHECK (cls ("10.1.2.3") == ADDR_PRIVATE);
  CHECK (cls ("172.16.0.1") == ADDR_PRIVATE);
  CHECK (cls ("172.31.255.255") == ADDR_PRIVATE);
  CHECK (cls ("172.32.0.1") == ADDR_PUBLIC);
  CHECK (cls ("172.15.255.255") == ADDR_PUBLIC);
  CHECK (cls ("192.168.1.1") == ADDR_PRIVATE);
  CHECK (cls ("100.64.0.1") == ADDR_CGNAT);
  CHECK (cls ("100.127.255.255") == ADDR_CGNAT);
  CHECK (cls ("100.128.0.1") == ADDR_PUBLIC);
  CHECK (cls ("0.0.0.0") == ADDR_UNSPECIFIED);
  CHECK (cls ("0.1.2.3") == ADDR_THIS_NETWORK);
  CHECK (cls ("224.0.0.1") == ADDR_MULTICAST);
  CHECK (cls ("239.255.255.255") == ADDR_MULTICAST);
  CHECK (cls ("255.255.255.255") == ADDR_BROADCAST);
  CHECK (cls ("240.0.0.1") == ADDR_RESERVED);
  CHECK (cls ("203.0.113.7") == ADDR_DOCUMENTATION);
  CHECK (cls ("1.2.3.4") == ADDR_PUBLIC);
  CHECK (cls ("8.8.8.8") == ADDR_PUBLIC);
  CHECK (cls ("::1") == ADDR_LOOPBACK);
  CHECK (cls ("::") == ADDR_UNSPECIFIED);
  CHECK (cls ("fe80::1") == ADDR_LINK_LOCAL);
  CHECK (cls ("febf::1") == ADDR_LINK_LOCAL);
  CHECK (cls ("fc00::1") == ADDR_PRIVATE);
  CHECK (cls ("fd12:3456::1") == ADDR_PRIVATE);
  CHECK (cls ("fec0::1") == ADDR_PRIVATE);
  CHECK (cls ("ff02::1") == ADDR_MULTICAST);
  CHECK (cls ("::ffff:127.0.0.1") == ADDR_LOOPBACK);
  CHECK (cls ("::ffff:169.254.169.254") == ADDR_METADATA);
  CHECK (cls ("::ffff:169.254.1.1") == ADDR_LINK_LOCAL);
  CHECK (cls ("::ffff:10.0.0.1") == ADDR_PRIVATE);
  CHECK (cls ("::ffff:8.8.8.8") == ADDR_PUBLIC);
  CHECK (cls ("::ffff:0:127.0.0.1") == ADDR_LOOPBACK);
  CHECK (cls ("::127.0.0.1") == ADDR_LOOPBACK);
  CHECK (cls ("::8.8.8.8") == ADDR_RESERVED);
  CHECK (cls ("64:ff9b::7f00:1") == ADDR_LOOPBACK);
  CHECK (cls ("64:ff9b::a9fe:a9fe") == ADDR_METADATA);
  CHECK (cls ("64:ff9b::808:808") == ADDR_PUBLIC);
  CHECK (cls ("64:ff9b:1::1") == ADDR_PRIVATE);
  CHECK (cls ("2002:7f00:1::") == ADDR_LOOPBACK);
  CHECK (cls ("2002:a9fe:a9fe::1") == ADDR_METADATA);
  CHECK (cls ("2002:808:808::1") == ADDR_PUBLIC);
  CHECK (cls ("2001:0:4136:e378::1") == ADDR_RESERVED);
  CHECK (cls ("100::1") == ADDR_RESERVED);
  CHECK (cls ("4000::1") == ADDR_RESERVED);
  CHECK (cls ("2001:db8::1") == ADDR_DOCUMENTATION);
  CHECK (cls ("3ffe:213::10") == ADDR_PUBLIC); /* the tests' "public" servers */
  CHECK (cls ("2606:4700::1111") == ADDR_PUBLIC);
  CHECK_STR_EQ (addr_class_name (ADDR_LINK_LOCAL), "link-local");
}

/* Every entry of the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries (first and last address), whether globally reachable or not,
 * and every cloud metadata or platform endpoint: none is public. */
static void
test_special_purpose_registries (void)
{
  static const struct
  {
    const char *first, *last;
    enum addr_class c;
  } v[] = {
    { "0.0.0.1", "0.255.255.255", ADDR_THIS_NETWORK },
    { "0.0.0.0", "0.0.0.0", ADDR_UNSPECIFIED },
    { "10.0.0.0", "10.255.255.255", ADDR_PRIVATE },
    { "100.64.0.0", "100.127.255.255", ADDR_CGNAT },
    { "127.0.0.0", "127.255.255.255", ADDR_LOOPBACK },
    { "169.254.0.0", "169.254.255.255", ADDR_LINK_LOCAL },
    { "172.16.0.0", "172.31.255.255", ADDR_PRIVATE },
    { "192.0.0.0", "192.0.0.255", ADDR_PROTOCOL },
    { "192.0.0.0", "192.0.0.7", ADDR_PROTOCOL },     /* DS-Lite */
    { "192.0.0.8", "192.0.0.8", ADDR_PROTOCOL },     /* dummy */
    { "192.0.0.9", "192.0.0.10", ADDR_PROTOCOL },    /* PCP, TURN anycast */
    { "192.0.0.170", "192.0.0.171", ADDR_PROTOCOL }, /* NAT64 discovery */
    { "192.31.196.0", "192.31.196.255", ADDR_PROTOCOL },
    { "192.52.193.0", "192.52.193.255", ADDR_PROTOCOL },
    { "192.88.99.0", "192.88.99.255", ADDR_PROTOCOL },
    { "192.168.0.0", "192.168.255.255", ADDR_PRIVATE },
    { "192.175.48.0", "192.175.48.255", ADDR_PROTOCOL },
    { "198.18.0.0", "198.19.255.255", ADDR_BENCHMARKING },
    { "192.0.2.0", "192.0.2.255", ADDR_DOCUMENTATION },
    { "198.51.100.0", "198.51.100.255", ADDR_DOCUMENTATION },
    { "203.0.113.0", "203.0.113.255", ADDR_DOCUMENTATION },
    { "2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_DOCUMENTATION },
    { "3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_DOCUMENTATION },
    { "224.0.0.0", "239.255.255.255", ADDR_MULTICAST },
    { "240.0.0.0", "255.255.255.254", ADDR_RESERVED },
    { "255.255.255.255", "255.255.255.255", ADDR_BROADCAST },
    { "::", "::", ADDR_UNSPECIFIED },
    { "::1", "::1", ADDR_LOOPBACK },
    { "64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", ADDR_PRIVATE },
    { "100::", "100::ffff:ffff:ffff:ffff", ADDR_RESERVED },
    { "100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff", ADDR_RESERVED },
    { "2001::", "2001:0:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_RESERVED }, /* Teredo */
    { "2001:1::1", "2001:1::3", ADDR_PROTOCOL }, /* PCP, TURN, DNS-SD */
    { "2001:2::", "2001:2:0:ffff:ffff:ffff:ffff:ffff", ADDR_BENCHMARKING },
    { "2001:3::", "2001:3:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_PROTOCOL }, /* AMT */
    { "2001:4:112::", "2001:4:112:ffff:ffff:ffff:ffff:ffff", ADDR_PROTOCOL },
    { "2001:10::", "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_PROTOCOL }, /* ORCHID */
    { "2001:20::", "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_PROTOCOL }, /* ORCHIDv2 */
    { "2001:30::", "2001:3f:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_PROTOCOL }, /* DETs */
    { "2001:1::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_PROTOCOL },
    { "2620:4f:8000::", "2620:4f:8000:ffff:ffff:ffff:ffff:ffff", ADDR_PROTOCOL },
    { "5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_RESERVED }, /* SRv6 */
    { "fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_PRIVATE },
    { "fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_LINK_LOCAL },
    { "fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_PRIVATE },
    { "ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_MULTICAST },
    /* cloud metadata and platform endpoints */
    { "169.254.169.254", "169.254.169.254", ADDR_METADATA }, /* AWS, GCP, Azure... */
    { "169.254.169.253", "169.254.169.253", ADDR_METADATA }, /* AWS DNS */
    { "169.254.169.123", "169.254.169.123", ADDR_METADATA }, /* AWS time */
    { "169.254.170.2", "169.254.170.2", ADDR_METADATA },     /* AWS ECS */
    { "169.254.170.23", "169.254.170.23", ADDR_METADATA },   /* AWS EKS */
    { "169.254.0.23", "169.254.0.23", ADDR_METADATA },       /* Tencent */
    { "169.254.42.42", "169.254.42.42", ADDR_METADATA },     /* Scaleway */
    { "100.100.100.200", "100.100.100.200", ADDR_METADATA }, /* Alibaba */
    { "168.63.129.16", "168.63.129.16", ADDR_METADATA },     /* Azure */
    { "192.0.0.192", "192.0.0.192", ADDR_METADATA },         /* Oracle */
    { "fd00:ec2::254", "fd00:ec2::254", ADDR_METADATA },     /* AWS */
    { "fd00:ec2::253", "fd00:ec2::253", ADDR_METADATA },
    { "fd00:ec2::123", "fd00:ec2::123", ADDR_METADATA },
    { "fd00:ec2::23", "fd00:ec2::23", ADDR_METADATA },
    { "fd20:ce::254", "fd20:ce::254", ADDR_METADATA },       /* GCP */
    { "fd00:c1::a9fe:a9fe", "fd00:c1::a9fe:a9fe", ADDR_METADATA }, /* Oracle */
    { "fd00:a9fe:a9fe::1", "fd00:a9fe:a9fe::1", ADDR_METADATA },   /* Linode */
    { "fd00:42::42", "fd00:42::42", ADDR_METADATA },         /* Scaleway */
    { "fe80::a9fe:a9fe", "fe80::a9fe:a9fe", ADDR_METADATA }, /* OpenStack */
    /* embedded forms take the class of what they embed */
    { "::ffff:168.63.129.16", "::ffff:168.63.129.16", ADDR_METADATA },
    { "64:ff9b::100.100.100.200", "64:ff9b::100.100.100.200", ADDR_METADATA },
    { "2002:c000:c0::", "2002:c000:c0::", ADDR_METADATA }, /* 192.0.0.192 */
    { "::ffff:0:198.18.0.1", "::ffff:0:198.18.0.1", ADDR_BENCHMARKING },
  };

  for (size_t i = 0; i < sizeof (v) / sizeof (*v); i++)
    {
      if (cls (v[i].first) != v[i].c || cls (v[i].last) != v[i].c)
        fprintf (stderr, "%s-%s: %s, %s\n", v[i].first, v[i].last,
                 addr_class_name (cls (v[i].first)),
                 addr_class_name (cls (v[i].last)));
      CHECK (cls (v[i].first) == v[i].c);
      CHECK (cls (v[i].last) == v[i].c);
    }
  /* Their public neighbours. */
  static const char *const public[] = {
    "1.0.0.0", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0",
    "126.255.255.255", "128.0.0.0", "168.63.129.15", "168.63.129.17",
    "169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0",
    "191.255.255.255", "192.0.1.0", "192.31.195.255", "192.31.197.0",
    "192.88.98.255", "192.167.255.255", "192.169.0.0", "198.17.255.255",
    "198.20.0.0", "223.255.255.255", "2000::", "2001:200::", "192.0.3.0",
    "198.51.99.255", "198.51.101.0", "203.0.112.255", "203.0.114.0",
    "2001:db7:ffff::", "2001:db9::", "3ffe:ffff::", "3fff:1000::",
    "2620:4f:7fff:ffff::", "2620:4f:8001::",
    "3ffe:ffff::", "2606:4700::1111", "2002:808:808::",
    "64:ff9b::8.8.8.8", "::ffff:1.1.1.1",
  };
  for (size_t i = 0; i < sizeof (public) / sizeof (*public); i++)
    {
      if (cls (public[i]) != ADDR_PUBLIC)
        fprintf (stderr, "%s: %s\n", public[i], addr_class_name (cls (public[i])));
      CHECK (cls (public[i]) == ADDR_PUBLIC);
    }
}

/* The block an address was classified by: the most specific one. */
static void
test_blocks (void)
{
  static const struct
  {
    const char *addr, *net;
    unsigned prefix;
  } v[] = {
    { "169.254.169.254", "169.254.169.254", 32 },
    { "169.254.1.1", "169.254.0.0", 16 },
    { "10.1.2.3", "10.0.0.0", 8 },
    { "198.19.1.1", "198.18.0.0", 15 },
    { "192.0.0.9", "192.0.0.0", 24 },
    { "::1", "::1", 128 },
    { "fd00:ec2::1", "fc00::", 7 },
    { "fd00:ec2::254", "fd00:ec2::254", 128 },
    { "::ffff:10.1.2.3", "::ffff:10.0.0.0", 104 },
    { "::ffff:0:10.1.2.3", "::ffff:0:10.0.0.0", 104 },
    { "64:ff9b::169.254.169.254", "64:ff9b::169.254.169.254", 128 },
    { "2002:a01:203::1", "2002:a00::", 24 },
    { "::10.1.2.3", "::10.0.0.0", 104 },
    { "::8.8.8.8", "::", 96 },
    { "4000::1", "4000::", 3 },
    { "::1:0:0:0", "::", 3 },
    { "2001::1", "2001::", 32 },
    { "2001:1::1", "2001::", 23 },
  };

  for (size_t i = 0; i < sizeof (v) / sizeof (*v); i++)
    {
      struct netaddr a;
      struct addr_block b;
      char text[NETADDR_STR_LEN];

      if (!netaddr_parse_ipv4 (v[i].addr, strlen (v[i].addr), &a))
        CHECK (netaddr_parse_ipv6 (v[i].addr, strlen (v[i].addr), &a));
      CHECK (netaddr_classify_block (&a, &b) != ADDR_PUBLIC);
      netaddr_format (&b.net, text);
      if (strcmp (text, v[i].net) != 0 || b.prefix != v[i].prefix)
        {
          char want[NETADDR_STR_LEN];
          struct netaddr w;
          /* compare in canonical form */
          if (!netaddr_parse_ipv4 (v[i].net, strlen (v[i].net), &w))
            netaddr_parse_ipv6 (v[i].net, strlen (v[i].net), &w);
          netaddr_format (&w, want);
          if (strcmp (text, want) != 0 || b.prefix != v[i].prefix)
            {
              fprintf (stderr, "%s: block %s/%u, want %s/%u\n", v[i].addr,
                       text, b.prefix, want, v[i].prefix);
              CHECK (0);
            }
        }
    }
}

static void
test_reasons (void)
{
  for (int c = 0; c < ADDR_CLASS_COUNT; c++)
    {
      const char *r = addr_class_reason ((enum addr_class) c);
      CHECK (r != NULL && strncmp (r, "address-", 8) == 0 && strlen (r) > 8);
      CHECK_STR_EQ (addr_class_name ((enum addr_class) c), r + 8);
    }
  CHECK_STR_EQ (addr_class_reason (ADDR_METADATA), "address-metadata");
  CHECK_STR_EQ (addr_class_reason (ADDR_PROTOCOL), "address-protocol");
  CHECK_STR_EQ (addr_class_reason (ADDR_BENCHMARKING), "address-benchmarking");
  CHECK_STR_EQ (addr_class_reason (ADDR_DOCUMENTATION), "address-documentation");
}

/* IPv4 written in an IPv6 form spans an IPv4 network. */
static void
test_ipv4_span (void)
{
  static const struct
  {
    const char *net;
    unsigned prefix;
    int v4; /* -1: not an IPv4 form */
  } v[] = {
    { "::ffff:0.0.0.0", 96, 0 },   { "::ffff:10.1.0.0", 112, 16 },
    { "::ffff:10.1.2.3", 128, 32 }, { "::", 64, 0 },
    { "::", 0, 0 },                { "64:ff9b::", 96, 0 },
    { "64:ff9b::a01:0", 112, 16 }, { "2002::", 16, 0 },
    { "2002:a01::", 32, 16 },      { "2002:a01:203::", 64, 32 },
    { "::ffff:0:10.0.0.0", 104, 8 }, { "::10.0.0.0", 104, 8 },
    { "2001:db8::", 32, -1 },      { "fd00::", 8, -1 },
    { "64:ff9b:1::", 48, -1 },
  };

  for (size_t i = 0; i < sizeof (v) / sizeof (*v); i++)
    {
      struct netaddr n;
      unsigned v4 = 99;
      bool is = (netaddr_parse_ipv6 (v[i].net, strlen (v[i].net), &n),
                 netaddr_ipv4_span (&n, v[i].prefix, &v4));
      if (is != (v[i].v4 >= 0) || (is && (int) v4 != v[i].v4))
        {
          fprintf (stderr, "%s/%u: %d %u\n", v[i].net, v[i].prefix, is, v4);
          CHECK (0);
        }
    }
}

static void
test_prefix (void)
{
  struct netaddr a, net;

  netaddr_parse_ipv4 ("10.1.2.3", 8, &a);
  netaddr_parse_ipv4 ("10.0.0.0", 8, &net);
  CHECK (netaddr_in_prefix (&a, &net, 8));
  CHECK (!netaddr_in_prefix (&a, &net, 16));
  CHECK (netaddr_in_prefix (&a, &net, 0));
  CHECK (!netaddr_in_prefix (&a, &net, 33));
  netaddr_parse_ipv6 ("::ffff:10.1.2.3", 15, &net);
  CHECK (!netaddr_in_prefix (&a, &net, 0));
}

int
main (void)
{
  RUN_TEST (test_numeric_ipv4_forms_refused);
  RUN_TEST (test_bad_names_refused);
  RUN_TEST (test_good_hosts);
  RUN_TEST (test_ports);
  RUN_TEST (test_classes);
  RUN_TEST (test_special_purpose_registries);
  RUN_TEST (test_blocks);
  RUN_TEST (test_reasons);
  RUN_TEST (test_ipv4_span);
  RUN_TEST (test_prefix);
  return UNIT_EXIT ();
}
