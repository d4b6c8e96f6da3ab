/* libFuzzer target for the DNS stub's query parser and answer builder
 * (runtime/egress/dns_stub.c): whatever a query holds, the answer stays
 * within its buffer, copies exactly the question, and reads back.  Build
 * and run (B: a configured build dir; or hack/fuzz.sh dns-query):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. -IB \
 *     tests/fuzz/fuzz-dns-query.c runtime/egress/dns_stub.c runtime/egress/dns.c \
 *     -o fuzz-dns-query
 *   ./fuzz-dns-query -max_total_time=300 tests/fuzz/corpus/dns-query */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "runtime/egress/dns.h"
#include "runtime/egress/dns_stub.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct dns_stub_query q;
  uint8_t out[DNS_STUB_ANSWER_MAX + 16];
  struct netaddr addrs[8];
  enum dns_stub_parse r;
  size_t len;

  if (size > DNS_STUB_QUERY_MAX)
    size = DNS_STUB_QUERY_MAX;
  r = dns_stub_parse_query (data, size, &q);
  if (r == STUB_DROP)
    return 0;
  if (r != STUB_QUERY)
    q.qend = 0;
  else if (q.qend > size || q.qend < 12 + 5 || strlen (q.name) > HOST_NAME_MAX_LEN)
    abort ();
  memset (addrs, 0, sizeof (addrs));
  for (int i = 0; i < 8; i++)
    {
      addrs[i].family = i & 1 ? AF_INET6 : AF_INET;
      addrs[i].bytes[0] = (uint8_t) i;
    }
  memset (out, 0xa5, sizeof (out));
  len = dns_stub_answer (out, DNS_STUB_UDP_MAX, data, &q, DNS_RCODE_NOERROR, addrs, 8, 60);
  if (len > DNS_STUB_UDP_MAX || out[DNS_STUB_UDP_MAX] != 0xa5)
    abort ();
  if (r == STUB_QUERY && memcmp (out + 12, data + 12, q.qend - 12) != 0)
    abort ();
  /* A well-formed A or AAAA answer reads back with the same id and
   * question, unless the name holds bytes no host name has. */
  if (r == STUB_QUERY && q.host_name && q.qclass == 1
      && (q.qtype == DNS_TYPE_A || q.qtype == DNS_TYPE_AAAA) && !(out[2] & 0x02))
    {
      struct netaddr back[8];
      size_t n;
      uint32_t ttl;
      if (dns_parse_response (out, len, q.id, q.name, q.qtype, back, 8, &n, &ttl) != DNS_OK
          || n != 4 || ttl != 60)
        abort ();
    }
  return 0;
}
