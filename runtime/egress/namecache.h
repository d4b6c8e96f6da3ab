/* The DNS stub's memory of what it answered: for each (name, family) the
 * addresses the sidecar resolved for that name (or that the name had none,
 * or did not exist), with the upstream TTL.  Used both ways:
 *   - forward, while the TTL lasts: the stub answers from it without
 *     asking upstream again;
 *   - reverse, for NAMECACHE_REVERSE_GRACE_MS more: which names did the
 *     stub give this address?  The transparent path learns a connection's
 *     name there (a client may connect a while after the TTL ran out; the
 *     address is still one the sidecar resolved and checked for it).
 * Bounded in entries and in bytes; the least recently used entry goes
 * first.  Hash tables keyed with a seed the caller draws at random (the
 * agent chooses the names under a wildcard entry).  Pure code: time is a
 * parameter. */
#ifndef AGENTRT_EGRESS_NAMECACHE_H
#define AGENTRT_EGRESS_NAMECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dns.h"
#include "netaddr.h"

#define NAMECACHE_MAX_ADDRS 8
/* TTLs above this are cut to it. */
#define NAMECACHE_TTL_MAX 86400
#define NAMECACHE_REVERSE_GRACE_MS (300 * 1000ull)
#define NAMECACHE_DEFAULT_ENTRIES 4096
#define NAMECACHE_DEFAULT_BYTES (1024 * 1024)

struct namecache;

/* One cached answer; valid until the next namecache_put or _free. */
struct namecache_answer
{
  enum dns_result result; /* DNS_OK, DNS_NODATA or DNS_NXDOMAIN */
  size_t n;
  struct netaddr addrs[NAMECACHE_MAX_ADDRS];
};

/* max_entries >= 1; max_bytes counts each entry's size and its name. */
struct namecache *namecache_new (size_t max_entries, size_t max_bytes, uint32_t seed);
void namecache_free (struct namecache *nc);

/* Stores the answer for name (lowercase, no trailing dot, at most
 * HOST_NAME_MAX_LEN bytes) and family (AF_INET or AF_INET6), replacing the
 * previous one; at most NAMECACHE_MAX_ADDRS addresses of that family are
 * kept.  Evicts least recently used entries to stay within the bounds. */
void namecache_put (struct namecache *nc, const char *name, int family,
                    enum dns_result result, const struct netaddr *addrs, size_t n,
                    uint32_t ttl_s, uint64_t now_ms);

/* The answer for name/family while its TTL lasts (else NULL), with the
 * seconds left in *ttl_left (rounded up). */
const struct namecache_answer *namecache_get (struct namecache *nc, const char *name,
                                              int family, uint64_t now_ms,
                                              uint32_t *ttl_left);

/* Names whose answer held addr, within the reverse window, most recently
 * stored first; at most max, pointers valid until the next put.  Returns
 * how many were stored in names. */
size_t namecache_names (struct namecache *nc, const struct netaddr *addr, uint64_t now_ms,
                        const char **names, size_t max);

/* Did name's answer hold addr, within the reverse window? */
bool namecache_holds (struct namecache *nc, const char *name, const struct netaddr *addr,
                      uint64_t now_ms);

size_t namecache_entries (const struct namecache *nc);
size_t namecache_bytes (const struct namecache *nc);

#endif
