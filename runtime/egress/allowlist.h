/* The egress allowlist: parsing the `run.agentrt.egress.allow` comma list
 * and matching destinations against it.  Pure code, shared by the runtime
 * (which validates the annotation before starting the proxy) and by
 * agentrt-egress.
 *
 * Entries: `host` (exact), `*.host` (subdomains, not the apex), either
 * with `:port`; `1.2.3.4`, `10.1.0.0/16`, `2001:db8::1`, `2001:db8::/48`,
 * `[2001:db8::1]:443`, `[2001:db8::/48]:443`, `1.2.3.4:8080`.  Without a
 * port an entry allows 80 and 443.  Names are case-insensitive and a
 * trailing dot is ignored.
 *
 * Broad entries are refused unless allow_broad: `*`, a wildcard over a
 * single label (`*.com`), a CIDR wider than /16 (IPv4) or /48 (IPv6).
 * Wildcards over a public suffix at any level (`*.co.uk`, `*.amazonaws.com`)
 * are judged separately, against the Public Suffix List, by the runtime
 * (public_suffix.h): this parser does no I/O. */
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
  ALLOW_NET,    /* IP literal or CIDR (a broad one only with allow_broad) */
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
 * only by an IP/CIDR entry (or `*`).  This says nothing of the address
 * policy: see allowlist_unlocks. */
bool allowlist_match_name (const struct allowlist *al, const char *host,
                           uint16_t port);

/* Does an IP or CIDR entry unlock addr:port, a special-purpose address
 * (loopback, private, metadata...: netaddr_classify_block)?  Only an
 * entry that holds addr, is not broad and lies inside addr's block does:
 * `10.1.2.0/24` unlocks 10.1.2.x, `169.254.169.254` itself; `0.0.0.0/0`,
 * `10.0.0.0/8` (broad) or `169.254.0.0/16` (around the metadata block)
 * unlock nothing.  False for a public address. */
bool allowlist_unlocks (const struct allowlist *al, const struct netaddr *addr,
                        uint16_t port);

/* Is e broad: `*`, or a CIDR wider than /16 (IPv4) or /48 (IPv6)?  IPv4
 * written as IPv6 (mapped, NAT64, 6to4...) is judged as IPv4. */
bool allowlist_entry_broad (const struct allow_entry *e);

/* The shortest CIDR prefixes that are not broad. */
#define ALLOWLIST_MIN_PREFIX_V4 16
#define ALLOWLIST_MIN_PREFIX_V6 48

#endif
