/* libFuzzer target for what the sidecar parses for injected credentials:
 * the runtime's message (runtime/egress/inject_wire.c), and request heads
 * inside an intercepted connection (http_parse_origin_request) rewritten
 * with a credential (runtime/egress/inject_rewrite.c), Basic included.
 * The first byte chooses: even, a message; odd, a head.  Build and run
 * (hack/fuzz.sh inject). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/egress/http_parse.h"
#include "runtime/egress/inject_rewrite.h"
#include "runtime/egress/inject_wire.h"

#define STANDIN "agentrt-standin-00112233445566778899aabbccddeeff"
#define VALUE "ghp_value0123456789"

static void
message (const uint8_t *data, size_t size)
{
  char *copy = malloc (size ? size : 1);
  struct inject_set s;
  agentrt_error_t err = NULL;

  memcpy (copy, data, size);
  if (inject_wire_decode (copy, size, &s, &err) == 0)
    {
      if (s.n == 0 || s.ca_key == NULL || s.ca_cert == NULL)
        abort ();
      for (size_t i = 0; i < s.n; i++)
        if (s.creds[i].nhosts == 0 || strlen (s.creds[i].value) != s.creds[i].value_len
            || strpbrk (s.creds[i].value, "\r\n"))
          abort ();
      inject_set_release (&s);
    }
  agentrt_error_release (&err);
  free (copy);
}

static void
head (const uint8_t *data, size_t size)
{
  static struct inject_cred cred = { .name = "GH", .header = "X-Key", .standin = STANDIN,
                                     .value = (char *) VALUE, .value_len = sizeof VALUE - 1 };
  struct inject_set set = { .n = 1 };
  struct http_request r;
  struct http_error e;
  unsigned count;
  size_t n;
  char *out;

  set.creds[0] = cred;
  if (http_parse_origin_request ((const char *) data, size, 443, &r, &e) != HTTP_PARSE_DONE)
    return;
  (void) inject_find_standin (&set, (const char *) data, r.head.len, &r.head);
  out = inject_rewrite ((const char *) data, &r.head, &cred, &n, &count);
  if (out == NULL)
    return;
  /* never more lines than before, and a head still */
  if (n < 4 || memcmp (out + n - 4, "\r\n\r\n", 4) != 0)
    abort ();
  {
    size_t before = 0, after = 0;
    for (size_t i = 0; i < r.head.len; i++)
      before += data[i] == '\n';
    for (size_t i = 0; i < n; i++)
      after += out[i] == '\n';
    if (before != after)
      abort ();
  }
  free (out);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  if (data[0] & 1)
    head (data + 1, size - 1);
  else
    message (data + 1, size - 1);
  return 0;
}
