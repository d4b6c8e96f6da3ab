/* libFuzzer target for the allowlist parser and matcher
 * (runtime/egress/allowlist.c) and the strict host parser behind both.
 * The input's first line is the allowlist, each further line a host:port
 * to match.  Build and run (B: a configured build dir):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. -IB \
 *     tests/fuzz/fuzz-allowlist.c runtime/egress/allowlist.c \
 *     runtime/egress/netaddr.c common/error.c common/xalloc.c -o fuzz-allowlist
 *   ./fuzz-allowlist -max_total_time=300 tests/fuzz/corpus/allowlist */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/egress/allowlist.h"

static void
match_line (const struct allowlist *al, char *line)
{
  char *colon = strrchr (line, ':');
  uint16_t port = 443;
  struct host h;

  if (colon && colon != line && colon[-1] != ':')
    {
      port = (uint16_t) atoi (colon + 1);
      *colon = '\0';
    }
  (void) allowlist_match_name (al, line, port);
  if (host_parse (line, strlen (line), true, &h) == NULL)
    {
      if (h.is_addr)
        (void) allowlist_unlocks (al, &h.addr, port);
      else if (strlen (h.name) > HOST_NAME_MAX_LEN)
        abort ();
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text = malloc (size + 1), *line, *save = NULL;
  agentrt_error_t err = NULL;
  struct allowlist *al = NULL;

  memcpy (text, data, size);
  text[size] = '\0';
  line = strtok_r (text, "\n", &save);
  if (line && allowlist_parse (line, size > 0 && data[0] == '!', &al, &err) == 0)
    {
      while ((line = strtok_r (NULL, "\n", &save)) != NULL)
        match_line (al, line);
      allowlist_free (al);
    }
  agentrt_error_release (&err);
  free (text);
  return 0;
}
