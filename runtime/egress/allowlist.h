/* The egress allowlist: parsing the `run.agentrt.egress.allow` comma list
 * and matching destinations against it.  Pure code, shared by the runtime
 * (which validates the annotation before starting the proxy) and by
 * agentrt-egress.
 *
 * Entries: `host` (exact), `*.host` (subdomains, not the apex), either
 * with `:port`; `1.2.3.4`, `10.0.0.0/8`, `2001:db8::1`, `2001:db8::/32`,
 * `[2001:db8::1]:443`, `[2001:db8::/32]:443`, `1.2.3.4:8080`.  Without a
 * port an entry allows 80 and 443.  Names are case-insensitive and a
 * trailing dot is ignored.  `*` and wildcards whose suffix is a public
 * suffix (`*.com`, `*.co.uk`, `*.github.io`...) are refused as too broad
 * unless allow_broad. */
#ifndef AGENTRT_EGRESS_ALLOWLIST_H
#define AGENTRT_EGRESS_ALLOWLIST_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "netaddr.h"

enum allow_kind
{
  ALLOW_NAME,   /* exact name */
  ALLOW_SUFFIX, /* *.name: strict subdomains of name */
  ALLOW_NET,    /* IP literal or CIDR */
  ALLOW_ANY,    /* `*`, only with allow_broad */
};

struct allow_entry
{
  enum allow_kind kind;
  char *name; /* ALLOW_NAME, ALLOW_SUFFIX: lowercase, no trailing dot */
  struct netaddr net; /* ALLOW_NET */
  unsigned prefix;    /* ALLOW_NET */
  uint16_t port;      /* 0: ports 80 and 443 */
};

struct allowlist
{
  struct allow_entry *entries;
  size_t n;
};

/* Parses spec (the comma list; an empty or blank spec is an empty list
 * that denies everything) into a new allowlist.  Errors name the entry. */
int allowlist_parse (const char *spec, bool allow_broad,
                     struct allowlist **out, agentrt_error_t *err);
void allowlist_free (struct allowlist *al);

/* Is a connection to host:port allowed?  host is a name or an IP literal
 * (dotted quad or [IPv6]), checked with the same strict rules as requests;
 * anything that does not parse is not allowed.  An IP literal is allowed
 * only by an IP/CIDR entry (or `*`). */
bool allowlist_match_name (const struct allowlist *al, const char *host,
                           uint16_t port);

/* Does an IP or CIDR entry name addr:port literally?  This is what lets a
 * special-purpose address (loopback, private...) through. */
bool allowlist_match_addr (const struct allowlist *al,
                           const struct netaddr *addr, uint16_t port);

#endif
