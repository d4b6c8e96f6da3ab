/* libFuzzer target for the SOCKS5 greeting and request parsers
 * (runtime/egress/socks5.c).  Build and run (B: a configured build dir):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. -IB \
 *     tests/fuzz/fuzz-socks5.c runtime/egress/socks5.c runtime/egress/netaddr.c \
 *     -o fuzz-socks5
 *   ./fuzz-socks5 -max_total_time=300 tests/fuzz/corpus/socks5 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/egress/socks5.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct socks5_request req;
  size_t used = 0;
  bool no_auth;
  uint8_t reply;
  const char *reason;

  if (socks5_parse_greeting (data, size, &used, &no_auth) == SOCKS5_PARSE_DONE)
    {
      if (used > size)
        abort ();
      data += used;
      size -= used;
    }
  if (socks5_parse_request (data, size, &req, &used, &reply, &reason) == SOCKS5_PARSE_DONE)
    {
      if (used > size || req.port == 0)
        abort ();
      if (!req.host.is_addr && strlen (req.host.name) > HOST_NAME_MAX_LEN)
        abort ();
    }
  return 0;
}
