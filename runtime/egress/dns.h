/* The DNS wire format as far as the proxy's stub resolver needs it:
 * building an A or AAAA query and parsing the answer.  The answer is
 * untrusted input: every length is checked against the message, name
 * compression may only point backwards (at most DNS_MAX_JUMPS times), the
 * question must be ours, and only the records of the queried name (after a
 * bounded CNAME chain) are used.  Pure code. */
#ifndef AGENTRT_EGRESS_DNS_H
#define AGENTRT_EGRESS_DNS_H

#include <stddef.h>
#include <stdint.h>

#include "netaddr.h"

#define DNS_TYPE_A 1
#define DNS_TYPE_CNAME 5
#define DNS_TYPE_AAAA 28
#define DNS_QUERY_MAX 300   /* a query for a 253-byte name fits */
#define DNS_ANSWER_MAX 1232 /* we advertise no EDNS: 512 is the real limit */
#define DNS_MAX_JUMPS 16
#define DNS_MAX_CNAMES 8

enum dns_result
{
  DNS_OK,       /* *n addresses (at least one) */
  DNS_NODATA,   /* the name exists but has no record of that type */
  DNS_NXDOMAIN, /* the name does not exist */
  DNS_FAIL,     /* the server failed, truncated or sent garbage for our question */
  DNS_IGNORE,   /* not an answer to our question: keep waiting */
};

/* Writes a recursive query for name (a host_parse'd name) into out
 * (DNS_QUERY_MAX bytes); returns its length. */
size_t dns_build_query (uint8_t *out, uint16_t id, const char *name, uint16_t qtype);

/* Parses an answer to the query (id, name, qtype); stores at most max
 * addresses in out, and in *ttl the smallest TTL of the records used (the
 * addresses and the CNAMEs that led to them; UINT32_MAX when none). */
enum dns_result dns_parse_response (const uint8_t *msg, size_t len, uint16_t id,
                                    const char *name, uint16_t qtype,
                                    struct netaddr *out, size_t max, size_t *n,
                                    uint32_t *ttl);

#endif
