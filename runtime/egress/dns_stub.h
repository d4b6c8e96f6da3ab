/* The DNS stub's wire format: parsing a query from the agent and building
 * the answer the stub chose.  Queries are untrusted input: the header and
 * the one question are checked against the message length, the name may
 * not be compressed (no query needs it), labels are 1-63 bytes and the
 * name at most HOST_NAME_MAX_LEN; whatever follows the question (EDNS
 * OPT, anything else) is ignored and never echoed.  Answers copy the
 * question as the client wrote it (0x20 case randomisation survives) and
 * point at it for the records' owner.  Pure code. */
#ifndef AGENTRT_EGRESS_DNS_STUB_H
#define AGENTRT_EGRESS_DNS_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netaddr.h"

#define DNS_RCODE_NOERROR 0
#define DNS_RCODE_FORMERR 1
#define DNS_RCODE_SERVFAIL 2
#define DNS_RCODE_NXDOMAIN 3
#define DNS_RCODE_NOTIMP 4
#define DNS_RCODE_REFUSED 5

/* Over UDP an answer is at most 512 bytes (the stub speaks no EDNS);
 * a longer one is sent with TC set and no records, for the client to ask
 * again over TCP.  Over TCP the stub reads queries of at most
 * DNS_STUB_QUERY_MAX bytes. */
#define DNS_STUB_UDP_MAX 512
#define DNS_STUB_QUERY_MAX 512
#define DNS_STUB_ANSWER_MAX 1024

enum dns_stub_parse
{
  STUB_QUERY,   /* a standard query with one question: q is filled */
  STUB_DROP,    /* not worth an answer: too short for a header, or a response */
  STUB_FORMERR, /* answer FORMERR (header only) */
  STUB_NOTIMP,  /* answer NOTIMP (header only): not a standard query */
};

struct dns_stub_query
{
  uint16_t id;
  bool rd;
  uint16_t qtype, qclass;
  size_t qend; /* the question is msg[12..qend) */
  /* The name, lowercase, without the trailing dot; "" for the root.
   * host_name says whether it is made only of the bytes a host name may
   * hold (letters, digits, '-', '_'): anything else matches no entry. */
  char name[HOST_NAME_MAX_LEN + 1];
  bool host_name;
};

enum dns_stub_parse dns_stub_parse_query (const uint8_t *msg, size_t len,
                                          struct dns_stub_query *q);

/* Writes the answer to q (whose question is in query) into out (max
 * bytes, at least 12): rcode, and for NOERROR the n addresses (those of
 * q->qtype's family) with ttl.  When it does not fit in max, the answer
 * has TC set and no records.  For STUB_FORMERR/STUB_NOTIMP pass q with
 * only id set and qend 0: a header without question.  Returns the length. */
size_t dns_stub_answer (uint8_t *out, size_t max, const uint8_t *query,
                        const struct dns_stub_query *q, unsigned rcode,
                        const struct netaddr *addrs, size_t n, uint32_t ttl);

/* "A", "AAAA", "MX"...; "TYPE<n>" in buf (16 bytes) for the others. */
const char *dns_type_name (uint16_t qtype, char *buf);

#endif
