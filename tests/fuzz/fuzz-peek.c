/* libFuzzer target for the transparent path's look at a connection's first
 * bytes (runtime/egress/peek.c): TLS ClientHello SNI and HTTP Host, fed
 * whole, at EOF, and cut at a point the input chooses.  Build and run (B:
 * a configured build dir; or hack/fuzz.sh peek):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. -IB \
 *     tests/fuzz/fuzz-peek.c runtime/egress/peek.c runtime/egress/netaddr.c \
 *     -o fuzz-peek
 *   ./fuzz-peek -max_total_time=300 tests/fuzz/corpus/peek */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/egress/peek.h"

static void
check (const struct peek *p, enum peek_result r)
{
  if (r == PEEK_NAME)
    {
      if (p->proto != PEEK_TLS && p->proto != PEEK_HTTP)
        abort ();
      if (!p->host.is_addr
          && (p->host.name[0] == '\0' || strlen (p->host.name) > HOST_NAME_MAX_LEN))
        abort ();
      if (p->proto == PEEK_TLS && p->host.is_addr)
        abort (); /* SNI never names an address */
    }
  if (r == PEEK_BAD && p->reason == NULL)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct peek p;
  enum peek_result whole, cut;
  size_t at;

  whole = peek_first_bytes (data, size, false, &p);
  check (&p, whole);
  check (&p, peek_first_bytes (data, size, true, &p));
  if (size < 2)
    return 0;
  at = (data[0] | (size_t) data[1] << 8) % size;
  cut = peek_first_bytes (data, at, false, &p);
  check (&p, cut);
  /* A decision made on fewer bytes never changes with more of them
   * (the bytes after a complete ClientHello or head do not matter). */
  if (cut != PEEK_MORE && cut != PEEK_BAD && cut != whole)
    abort ();
  return 0;
}
