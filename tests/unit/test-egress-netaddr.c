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
  CHECK (cls ("169.254.169.254") == ADDR_LINK_LOCAL);
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
  CHECK (cls ("203.0.113.7") == ADDR_PUBLIC);
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
  CHECK (cls ("::ffff:169.254.169.254") == ADDR_LINK_LOCAL);
  CHECK (cls ("::ffff:10.0.0.1") == ADDR_PRIVATE);
  CHECK (cls ("::ffff:8.8.8.8") == ADDR_PUBLIC);
  CHECK (cls ("::ffff:0:127.0.0.1") == ADDR_LOOPBACK);
  CHECK (cls ("::127.0.0.1") == ADDR_LOOPBACK);
  CHECK (cls ("::8.8.8.8") == ADDR_RESERVED);
  CHECK (cls ("64:ff9b::7f00:1") == ADDR_LOOPBACK);
  CHECK (cls ("64:ff9b::a9fe:a9fe") == ADDR_LINK_LOCAL);
  CHECK (cls ("64:ff9b::808:808") == ADDR_PUBLIC);
  CHECK (cls ("64:ff9b:1::1") == ADDR_PRIVATE);
  CHECK (cls ("2002:7f00:1::") == ADDR_LOOPBACK);
  CHECK (cls ("2002:a9fe:a9fe::1") == ADDR_LINK_LOCAL);
  CHECK (cls ("2002:808:808::1") == ADDR_PUBLIC);
  CHECK (cls ("2001:0:4136:e378::1") == ADDR_RESERVED);
  CHECK (cls ("100::1") == ADDR_RESERVED);
  CHECK (cls ("4000::1") == ADDR_RESERVED);
  CHECK (cls ("2001:db8::1") == ADDR_PUBLIC);
  CHECK (cls ("2606:4700::1111") == ADDR_PUBLIC);
  CHECK_STR_EQ (addr_class_name (ADDR_LINK_LOCAL), "link-local");
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
  RUN_TEST (test_prefix);
  return UNIT_EXIT ();
}
