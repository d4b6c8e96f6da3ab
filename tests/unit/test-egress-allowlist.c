/* Unit tests of runtime/egress/allowlist.c: entries that must be refused
 * (too broad, malformed, tricky forms) first, then matching. */
#include "config.h"

#include <string.h>

#include "common/cleanup.h"
#include "runtime/egress/allowlist.h"
#include "tests/unit/unit.h"

static struct allowlist *
parse_ok (const char *spec, bool broad)
{
  cleanup_error agentrt_error_t err = NULL;
  struct allowlist *al = NULL;

  if (allowlist_parse (spec, broad, &al, &err) < 0)
    {
      fprintf (stderr, "unexpected error for `%s`: %s\n", spec, err->msg);
      CHECK (0);
      return NULL;
    }
  return al;
}

/* Checks that spec is refused and that the message contains needle. */
static void
parse_bad (const char *spec, bool broad, const char *needle)
{
  cleanup_error agentrt_error_t err = NULL;
  struct allowlist *al = NULL;

  if (allowlist_parse (spec, broad, &al, &err) == 0)
    {
      fprintf (stderr, "accepted: `%s`\n", spec);
      CHECK (0);
      allowlist_free (al);
      return;
    }
  CHECK (al == NULL);
  CHECK_CONTAINS (err->msg, needle);
}

static void
test_too_broad (void)
{
  static const char *const broad[] = {
    "*", "*.com", "*.COM.", "*.localhost:8080", "0.0.0.0/0", "10.0.0.0/8",
    "10.0.0.0/15", "172.16.0.0/12", "127.0.0.0/8", "[::/0]:443", "::/0",
    "2001:db8::/32", "[2001:db8::/47]:443", "fd00::/8", "::ffff:0.0.0.0/96",
  };

  for (size_t i = 0; i < sizeof (broad) / sizeof (*broad); i++)
    {
      parse_bad (broad[i], false, "too broad");
      allowlist_free (parse_ok (broad[i], true));
    }
  parse_bad ("*.com", false, "`*.com`");
  parse_bad ("*.com", false, "top-level domain");
  parse_bad ("example.com,*.org", false, "`*.org` (#2)");
  parse_bad ("10.0.0.0/8", false, "a CIDR wider than /16");
  parse_bad ("[2001:db8::/32]:443", false, "a CIDR wider than /48");
  /* The narrowest broad CIDRs' neighbours are not broad. */
  allowlist_free (parse_ok ("10.0.0.0/16,2001:db8::/48,[fd00:ec2::/64]:443,"
                            "::ffff:10.1.2.0/120,0.0.0.0/16", false));
  /* Wildcards over multi-label public suffixes are left to the Public
   * Suffix List, which this parser does not read (public_suffix.h). */
  allowlist_free (parse_ok ("*.co.uk,*.github.io:443,*.example.co.uk", false));
}

static void
test_malformed (void)
{
  parse_bad (",", false, "empty entry");
  parse_bad ("a.com,", false, "empty entry");
  parse_bad ("a.com,,b.com", false, "empty entry");
  parse_bad ("a.*.com", false, "wildcard");
  parse_bad ("*a.com", false, "wildcard");
  parse_bad ("**.a.com", false, "wildcard");
  parse_bad ("*.1.2.3.4", false, "IP address");
  parse_bad ("*.10.0.0.0/8", false, "CIDR");
  parse_bad ("2130706433", false, "numeric-ip-form");
  parse_bad ("127.1", false, "numeric-ip-form");
  parse_bad ("0x7f.0.0.1:80", false, "numeric-ip-form");
  parse_bad ("user@a.com", false, "bad-host");
  parse_bad ("a.com:0", false, "port");
  parse_bad ("a.com:65536", false, "port");
  parse_bad ("a.com:", false, "port");
  parse_bad ("a.com:80:90", false, "`a.com:80:90`");
  parse_bad ("fe80::1%eth0", false, "zone");
  parse_bad ("[fe80::1%eth0]:443", false, "zone");
  parse_bad ("[::1", false, "`]`");
  parse_bad ("[::1]x", false, "after");
  parse_bad ("[1.2.3.4]", false, "not a valid IP");
  parse_bad ("10.0.0.1/8", false, "host bits");
  parse_bad ("10.0.0.0/33", false, "prefix");
  parse_bad ("10.0.0.0/", false, "prefix");
  parse_bad ("10.0.0.0/08", false, "prefix");
  parse_bad ("2001:db8::/129", false, "prefix");
  parse_bad ("exa mple.com", false, "bad-host");
  parse_bad ("http://a.com", false, "`http://a.com`");
}

static void
test_empty_denies_all (void)
{
  struct allowlist *al = parse_ok ("", false);
  struct netaddr a;

  CHECK (al && al->n == 0);
  CHECK (!allowlist_match_name (al, "example.com", 443));
  netaddr_parse_ipv4 ("1.2.3.4", 7, &a);
  CHECK (!allowlist_match_name (al, "1.2.3.4", 443));
  netaddr_parse_ipv4 ("10.2.3.4", 8, &a);
  CHECK (!allowlist_unlocks (al, &a, 443));
  allowlist_free (al);
  al = parse_ok ("  ", false);
  CHECK (al && al->n == 0);
  allowlist_free (al);
}

static void
test_names (void)
{
  struct allowlist *al = parse_ok (" Example.COM. , *.github.com:22,api.test:8443 ", false);

  CHECK (al && al->n == 3);
  CHECK (allowlist_match_name (al, "example.com", 443));
  CHECK (allowlist_match_name (al, "EXAMPLE.com.", 80));
  CHECK (!allowlist_match_name (al, "example.com", 8080));
  CHECK (!allowlist_match_name (al, "www.example.com", 443));
  CHECK (!allowlist_match_name (al, "example.com.evil.net", 443));
  CHECK (!allowlist_match_name (al, "evilexample.com", 443));
  CHECK (allowlist_match_name (al, "a.github.com", 22));
  CHECK (allowlist_match_name (al, "a.b.github.com", 22));
  CHECK (!allowlist_match_name (al, "github.com", 22));
  CHECK (!allowlist_match_name (al, "a.github.com", 443));
  CHECK (!allowlist_match_name (al, "agithub.com", 22));
  CHECK (allowlist_match_name (al, "api.test", 8443));
  CHECK (!allowlist_match_name (al, "api.test", 443));
  /* Tricky spellings of allowed names never match. */
  CHECK (!allowlist_match_name (al, "example.com@evil.net", 443));
  CHECK (!allowlist_match_name (al, "example.com..", 443));
  CHECK (!allowlist_match_name (al, "", 443));
  allowlist_free (al);
}

static void
test_addresses (void)
{
  struct allowlist *al = parse_ok ("10.9.0.0/16,192.168.1.5:8080,[fd00::/48]:443,"
                                   "2001:db8::1,[2001:db8::2]", false);
  struct netaddr a;

  CHECK (al && al->n == 5);
  netaddr_parse_ipv4 ("10.9.8.7", 8, &a);
  CHECK (allowlist_unlocks (al, &a, 443));
  CHECK (!allowlist_unlocks (al, &a, 22));
  CHECK (allowlist_match_name (al, "10.9.8.7", 80));
  CHECK (!allowlist_match_name (al, "10.8.8.7", 80));
  netaddr_parse_ipv4 ("192.168.1.5", 11, &a);
  CHECK (allowlist_unlocks (al, &a, 8080));
  CHECK (!allowlist_unlocks (al, &a, 80));
  CHECK (allowlist_match_name (al, "[fd00::1]", 443));
  CHECK (!allowlist_match_name (al, "[fd00::1]", 80));
  CHECK (allowlist_match_name (al, "[2001:db8::1]", 80));
  CHECK (allowlist_match_name (al, "[2001:db8::2]", 443));
  CHECK (!allowlist_match_name (al, "[2001:db8::3]", 443));
  /* The IPv4-mapped form of a listed address is a different address. */
  CHECK (!allowlist_match_name (al, "[::ffff:10.0.0.1]", 443));
  /* A name that looks like a listed address in another spelling. */
  CHECK (!allowlist_match_name (al, "012.0.0.1", 443));
  allowlist_free (al);
}

static bool
unlocks (const struct allowlist *al, const char *addr, uint16_t port)
{
  struct netaddr a;

  if (!netaddr_parse_ipv4 (addr, strlen (addr), &a)
      && !netaddr_parse_ipv6 (addr, strlen (addr), &a))
    abort ();
  return allowlist_unlocks (al, &a, port);
}

/* A CIDR never unlocks special-purpose space it merely covers: only the
 * part of a special block that an entry inside the block names. */
static void
test_unlocks_only_inside (void)
{
  static const struct
  {
    const char *spec, *addr;
    bool unlocked;
  } cases[] = {
    /* broad entries (with allow_broad) unlock nothing special */
    { "0.0.0.0/0", "10.1.2.3", false },
    { "0.0.0.0/0", "127.0.0.1", false },
    { "0.0.0.0/0", "169.254.169.254", false },
    { "0.0.0.0/0", "100.100.100.200", false },
    { "0.0.0.0/0", "168.63.129.16", false },
    { "::/0", "::1", false },
    { "::/0", "fd00:ec2::254", false },
    { "::/0", "fe80::1", false },
    { "::/0", "::ffff:10.1.2.3", false },
    { "10.0.0.0/8", "10.1.2.3", false },
    { "127.0.0.0/8", "127.0.0.1", false },
    { "fd00::/8", "fd00::1", false },
    { "198.18.0.0/15", "198.18.0.1", false },
    { "*", "10.1.2.3", false },
    /* an entry around a smaller block does not reach into it */
    { "169.254.0.0/16", "169.254.1.1", true },
    { "169.254.0.0/16", "169.254.169.254", false },
    { "169.254.0.0/16", "169.254.170.2", false },
    { "169.254.169.0/24", "169.254.169.1", true },
    { "169.254.169.0/24", "169.254.169.254", false },
    { "169.254.169.0/24", "169.254.169.253", false },
    { "100.100.0.0/16", "100.100.1.1", true },
    { "100.100.0.0/16", "100.100.100.200", false },
    { "fd00:ec2::/64", "fd00:ec2::1", true },
    { "fd00:ec2::/64", "fd00:ec2::254", false },
    { "fd00:ec2::/64", "fd00:ec2::23", false },
    { "fe80::/64", "fe80::a9fe:a9fe", false },
    { "192.0.0.0/24", "192.0.0.9", true },
    { "192.0.0.0/24", "192.0.0.192", false },
    /* an entry straddling a block and public space is not inside it */
    { "192.0.0.0/16", "192.0.0.9", false },
    { "198.0.0.0/16", "198.0.0.1", false }, /* public: nothing to unlock */
    { "198.18.0.0/16", "198.18.7.7", true },
    { "203.0.113.0/24", "203.0.113.7", true },
    { "0.0.0.0/0", "203.0.113.7", false },
    { "2001:db8::/48", "2001:db8::1", true },
    { "2001:db8::/48", "2001:db8:1::1", false },
    { "198.18.0.0/16", "198.19.0.1", false },
    /* inside: that part only */
    { "10.1.2.0/24", "10.1.2.7", true },
    { "10.1.2.0/24", "10.1.3.7", false },
    { "10.1.2.0/24", "::ffff:10.1.2.7", false }, /* another address */
    { "::ffff:10.1.2.0/120", "::ffff:10.1.2.7", true },
    { "::ffff:10.1.2.0/120", "10.1.2.7", false },
    { "2002:a01:200::/40", "2002:a01:203::1", true }, /* 6to4 of 10.1.2.3 */
    { "64:ff9b::a01:200/120", "64:ff9b::10.1.2.3", true },
    { "64:ff9b::a9fe:a900/120", "64:ff9b::169.254.169.254", false },
    /* literals are explicit choices */
    { "169.254.169.254", "169.254.169.254", true },
    { "168.63.129.16", "168.63.129.16", true },
    { "100.100.100.200", "100.100.100.200", true },
    { "[fd00:ec2::254]:80", "fd00:ec2::254", true },
    { "127.0.0.1", "127.0.0.1", true },
    { "::ffff:169.254.169.254", "::ffff:169.254.169.254", true },
    { "8.8.8.8", "8.8.8.8", false }, /* public: nothing to unlock */
  };

  for (size_t i = 0; i < sizeof (cases) / sizeof (*cases); i++)
    {
      struct allowlist *al = parse_ok (cases[i].spec, true);
      bool got = al && unlocks (al, cases[i].addr, 80);

      if (got != cases[i].unlocked)
        fprintf (stderr, "`%s` unlocks %s: %d\n", cases[i].spec,
                 cases[i].addr, got);
      CHECK (got == cases[i].unlocked);
      allowlist_free (al);
    }
  /* ports still apply */
  struct allowlist *al = parse_ok ("10.1.2.0/24:8080", false);
  CHECK (unlocks (al, "10.1.2.7", 8080));
  CHECK (!unlocks (al, "10.1.2.7", 443));
  allowlist_free (al);
  /* a broad entry still lets a public IP literal through the name check */
  al = parse_ok ("0.0.0.0/0", true);
  CHECK (allowlist_match_name (al, "8.8.8.8", 443));
  CHECK (allowlist_match_name (al, "10.1.2.3", 443));
  CHECK (!unlocks (al, "10.1.2.3", 443));
  allowlist_free (al);
}

static void
test_any (void)
{
  struct allowlist *al = parse_ok ("*", true);

  CHECK (allowlist_match_name (al, "anything.example", 443));
  CHECK (allowlist_match_name (al, "1.2.3.4", 80));
  CHECK (!allowlist_match_name (al, "anything.example", 22));
  /* `*` is not a literal entry: it never lets a special address through. */
  CHECK (!unlocks (al, "127.0.0.1", 443));
  allowlist_free (al);
}

static void
test_limits (void)
{
  size_t n = 1025 * 4;
  char *spec = malloc (n + 1);

  for (size_t i = 0; i < n; i += 4)
    memcpy (spec + i, "a.b,", 4);
  spec[n - 1] = '\0';
  parse_bad (spec, false, "more than");
  free (spec);
}

int
main (void)
{
  RUN_TEST (test_too_broad);
  RUN_TEST (test_malformed);
  RUN_TEST (test_empty_denies_all);
  RUN_TEST (test_names);
  RUN_TEST (test_addresses);
  RUN_TEST (test_unlocks_only_inside);
  RUN_TEST (test_any);
  RUN_TEST (test_limits);
  return UNIT_EXIT ();
}
