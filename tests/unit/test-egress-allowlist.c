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
  parse_bad ("*", false, "too broad");
  parse_bad ("*.com", false, "`*.com`");
  parse_bad ("*.com", false, "too broad");
  parse_bad ("*.COM.", false, "too broad");
  parse_bad ("*.co.uk", false, "too broad");
  parse_bad ("*.github.io:443", false, "too broad");
  parse_bad ("example.com,*.org", false, "`*.org` (#2)");
  allowlist_free (parse_ok ("*.com", true));
  allowlist_free (parse_ok ("*", true));
  allowlist_free (parse_ok ("*.example.co.uk", false));
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
  CHECK (!allowlist_match_addr (al, &a, 443));
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
  struct allowlist *al = parse_ok ("10.0.0.0/8,192.168.1.5:8080,[fd00::/8]:443,"
                                   "2001:db8::1,[2001:db8::2]", false);
  struct netaddr a;

  CHECK (al && al->n == 5);
  netaddr_parse_ipv4 ("10.9.8.7", 8, &a);
  CHECK (allowlist_match_addr (al, &a, 443));
  CHECK (!allowlist_match_addr (al, &a, 22));
  CHECK (allowlist_match_name (al, "10.9.8.7", 80));
  netaddr_parse_ipv4 ("192.168.1.5", 11, &a);
  CHECK (allowlist_match_addr (al, &a, 8080));
  CHECK (!allowlist_match_addr (al, &a, 80));
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

static void
test_any (void)
{
  struct allowlist *al = parse_ok ("*", true);

  CHECK (allowlist_match_name (al, "anything.example", 443));
  CHECK (allowlist_match_name (al, "1.2.3.4", 80));
  CHECK (!allowlist_match_name (al, "anything.example", 22));
  /* `*` is not a literal entry: it never lets a special address through. */
  struct netaddr a;
  netaddr_parse_ipv4 ("127.0.0.1", 9, &a);
  CHECK (!allowlist_match_addr (al, &a, 443));
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
  RUN_TEST (test_any);
  RUN_TEST (test_limits);
  return UNIT_EXIT ();
}
