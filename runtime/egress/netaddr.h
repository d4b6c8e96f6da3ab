/* Network addresses and host names as the egress proxy sees them: strict
 * parsing of IP literals and host names (no numeric/octal/hex IPv4 forms,
 * no IPv6 zone ids), ports, and the classification of addresses into the
 * special-purpose blocks (the IANA special-purpose registries, multicast,
 * cloud metadata endpoints) that are denied unless an allowlist entry
 * inside the block names them.  Pure code: no I/O, no allocation. */
#ifndef AGENTRT_EGRESS_NETADDR_H
#define AGENTRT_EGRESS_NETADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Longest host name kept, without the trailing dot (RFC 1035: 253). */
#define HOST_NAME_MAX_LEN 253
/* Room for any address printed by netaddr_format, NUL included. */
#define NETADDR_STR_LEN 46

struct netaddr
{
  int family; /* AF_INET or AF_INET6 */
  uint8_t bytes[16]; /* network order; 4 used for AF_INET */
};

/* A parsed destination: either a name (lowercase, no trailing dot) or an
 * IP literal. */
struct host
{
  bool is_addr;
  struct netaddr addr;
  char name[HOST_NAME_MAX_LEN + 1];
};

/* The special-purpose classes; ADDR_PUBLIC is the only one allowed without
 * an IP or CIDR allowlist entry inside the address's block. */
enum addr_class
{
  ADDR_PUBLIC = 0,
  ADDR_UNSPECIFIED,
  ADDR_THIS_NETWORK,
  ADDR_LOOPBACK,
  ADDR_LINK_LOCAL,
  ADDR_PRIVATE,
  ADDR_CGNAT,
  ADDR_MULTICAST,
  ADDR_BROADCAST,
  ADDR_RESERVED,
  ADDR_METADATA,      /* cloud metadata and platform-service endpoints */
  ADDR_PROTOCOL,      /* IETF protocol assignments, anycast services */
  ADDR_BENCHMARKING,  /* 198.18.0.0/15, 2001:2::/48 */
  ADDR_DOCUMENTATION, /* 192.0.2.0/24... 2001:db8::/32, 3fff::/20 */
  ADDR_CLASS_COUNT
};

/* The special-purpose block an address was classified by: the most
 * specific one that holds it (169.254.169.254/32 inside 169.254.0.0/16).
 * For an IPv4 address embedded in IPv6 (::ffff:a.b.c.d, NAT64, 6to4) it is
 * the IPv4 block's image in that IPv6 form. */
struct addr_block
{
  struct netaddr net;
  unsigned prefix;
};

/* Dotted quad only: exactly four decimal parts 0-255 without leading
 * zeros.  Everything inet_aton would also accept is refused. */
bool netaddr_parse_ipv4 (const char *s, size_t len, struct netaddr *out);

/* IPv6 text form (no brackets).  Zone ids ("%eth0") are refused. */
bool netaddr_parse_ipv6 (const char *s, size_t len, struct netaddr *out);

/* Decimal port 1-65535, at most five digits. */
bool port_parse (const char *s, size_t len, uint16_t *out);

/* Parses a host as written in a URI authority, a CONNECT target or a SOCKS5
 * domain: a DNS name (letters, digits, '-', '_'; labels 1-63 bytes; one
 * trailing dot allowed), a dotted-quad IPv4 literal, or, when brackets is
 * true, "[IPv6]".  Returns NULL on success, else a short reason usable in
 * X-Agentrt-Denied ("numeric-ip-form", "ipv6-zone-id", "bad-host"...). */
const char *host_parse (const char *s, size_t len, bool brackets,
                        struct host *out);

enum addr_class netaddr_classify (const struct netaddr *a);
/* The same, and when the class is not ADDR_PUBLIC, the block in *block
 * (which may be NULL). */
enum addr_class netaddr_classify_block (const struct netaddr *a,
                                        struct addr_block *block);
/* "loopback", "link-local", ...; "public" for ADDR_PUBLIC. */
const char *addr_class_name (enum addr_class c);
/* The audit and X-Agentrt-Denied reason: "address-loopback"... */
const char *addr_class_reason (enum addr_class c);

/* When the IPv6 network net/prefix lies in a form that embeds IPv4
 * addresses (IPv4-mapped, -translated, -compatible, NAT64, 6to4), sets
 * *v4_prefix to the IPv4 prefix length it spans (::ffff:10.1.0.0/112:
 * 16), or to 0 when it holds such a form whole (::/64), and returns true. */
bool netaddr_ipv4_span (const struct netaddr *net, unsigned prefix,
                        unsigned *v4_prefix);

/* True when the first prefix bits of a and net are equal (same family). */
bool netaddr_in_prefix (const struct netaddr *a, const struct netaddr *net,
                        unsigned prefix);
bool netaddr_equal (const struct netaddr *a, const struct netaddr *b);

/* Writes h as text into buf (HOST_NAME_MAX_LEN + 1 bytes): the name, or
 * the address, in brackets if it is IPv6 and brackets is true. */
void host_format (const struct host *h, bool brackets, char *buf);

/* Writes the canonical text form into buf (NETADDR_STR_LEN bytes). */
void netaddr_format (const struct netaddr *a, char *buf);

socklen_t netaddr_to_sockaddr (const struct netaddr *a, uint16_t port,
                               struct sockaddr_storage *ss);

#endif
