/* libFuzzer target for the proxy's HTTP parsing (runtime/egress/http_parse.c):
 * request heads and their rewrite, response heads and their rewrite, and
 * the chunked decoder, on arbitrary bytes.  Build and run (from the top of
 * the source tree, with a configured build directory B for config.h):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. -IB \
 *     tests/fuzz/fuzz-http.c runtime/egress/http_parse.c runtime/egress/netaddr.c \
 *     -o fuzz-http
 *   ./fuzz-http -max_total_time=300 tests/fuzz/corpus/http */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/egress/http_parse.h"

static void
chunked (const char *p, size_t n)
{
  struct http_chunked c;
  size_t pos = 0;

  http_chunked_init (&c);
  while (pos < n)
    {
      size_t used;
      uint64_t data;
      int rc = http_chunked_feed (&c, p + pos, n - pos, &used, &data);

      if (used > n - pos)
        abort ();
      if (rc != 0)
        return;
      pos += used;
      pos += data < n - pos ? (size_t) data : n - pos;
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *buf = (const char *) data;
  struct http_request req;
  struct http_response resp;
  struct http_error e;

  if (http_parse_request (buf, size, &req, &e) == HTTP_PARSE_DONE)
    {
      char *out = malloc (req.head.len + 16);
      size_t n;

      if (req.head.len > size || req.head.len > HTTP_HEAD_MAX)
        abort ();
      if (!req.is_connect)
        {
          struct http_request again;
          n = http_request_rewrite (buf, &req, out);
          if (n > req.head.len + 16)
            abort ();
          /* What goes upstream must parse as an origin-form request. */
          memcpy (out + n - 2, "\r\n", 2);
          (void) http_parse_request (out, n, &again, &e);
        }
      free (out);
    }
  if (size > 0 && http_parse_response (buf + 1, size - 1, data[0] & 1, &resp, &e)
                      == HTTP_PARSE_DONE)
    {
      char *out = malloc (resp.head.len + 24);
      size_t n = http_response_rewrite (buf + 1, &resp, data[0] & 2, out);
      if (n > resp.head.len + 24)
        abort ();
      free (out);
    }
  chunked (buf, size);
  return 0;
}
