/* libFuzzer target for the allowlist parser and matcher
 * (runtime/egress/allowlist.c), the strict host parser behind both, and
 * the Public Suffix List scan that judges wildcards (public_suffix.c,
 * punycode.c).  The input's first line is the allowlist, each further line
 * a host:port to match, until a line `%%`: what follows it is a public
 * suffix list.  Build and run (B: a configured build dir; hack/fuzz.sh
 * does this):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. -IB \
 *     tests/fuzz/fuzz-allowlist.c runtime/egress/allowlist.c \
 *     runtime/egress/netaddr.c runtime/egress/public_suffix.c \
 *     runtime/egress/punycode.c common/error.c common/xalloc.c -o fuzz-allowlist
 *   ./fuzz-allowlist -max_total_time=300 tests/fuzz/corpus/allowlist */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/egress/allowlist.h"
#include "runtime/egress/public_suffix.h"

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

/* The wildcard entries of al judged against list, and the whole list. */
static void
judge_wildcards (const struct allowlist *al, const char *list, size_t len)
{
  const char **names = malloc ((al->n + 1) * sizeof (*names));
  struct suffix_verdict *v = malloc ((al->n + 1) * sizeof (*v));
  agentrt_error_t err = NULL;
  size_t n = 0;

  for (size_t i = 0; i < al->n; i++)
    if (al->entries[i].kind == ALLOW_SUFFIX)
      names[n++] = al->entries[i].name;
  if (public_suffix_scan (list, len, names, n, v, &err) == 0)
    for (size_t i = 0; i < n; i++)
      if (v[i].covered && (v[i].rule[0] == '\0'
                           || strnlen (v[i].rule, sizeof (v[i].rule)) == sizeof (v[i].rule)))
        abort ();
  agentrt_error_release (&err);
  (void) public_suffix_scan (list, len, NULL, 0, NULL, &err);
  agentrt_error_release (&err);
  free (names);
  free (v);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text = malloc (size + 1), *line, *save = NULL, *list;
  agentrt_error_t err = NULL;
  struct allowlist *al = NULL;
  size_t list_len = 0;

  memcpy (text, data, size);
  text[size] = '\0';
  list = NULL; /* memmem is GNU, and hack/fuzz.sh builds without _GNU_SOURCE */
  for (size_t i = 0; list == NULL && i + 4 <= size; i++)
    if (memcmp (text + i, "\n%%\n", 4) == 0)
      list = text + i;
  if (list)
    {
      *list = '\0';
      list += 4;
      list_len = size - (size_t) (list - text); /* may hold NUL bytes */
    }
  line = strtok_r (text, "\n", &save);
  if (line && allowlist_parse (line, size > 0 && data[0] == '!', &al, &err) == 0)
    {
      while ((line = strtok_r (NULL, "\n", &save)) != NULL)
        match_line (al, line);
      if (list)
        judge_wildcards (al, list, list_len);
      allowlist_free (al);
    }
  agentrt_error_release (&err);
  free (text);
  return 0;
}
