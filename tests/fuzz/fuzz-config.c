/* libFuzzer target for the config.json parser and writer (oci/config.h):
 * any input must parse or fail with a message, without a crash, a leak or
 * undefined behaviour; whatever parses must be written, parse back, and be
 * written identically (parse(write(parse(x))) == parse(x)).  The same
 * bytes also go to the process, resources, seccomp and state parsers.
 *
 * Build against the sources, from the top of the source tree, with the
 * autoconf config.h of any configured build directory $BUILD:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *       -I. -I$BUILD tests/fuzz/fuzz-config.c oci/config_*.c oci/json_*.c \
 *       oci/state.c oci/utf8.c common/error.c common/xalloc.c -lyajl \
 *       -o fuzz-config
 * Run:
 *   ./fuzz-config -max_len=65536 -max_total_time=300 tests/fuzz/corpus/config
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oci/config.h"
#include "oci/state.h"

static char *
write_or_die (const struct oci_config *c, bool pretty)
{
  agentrt_error_t err = NULL;
  char *json = oci_config_to_json (c, pretty, &err);

  if (json == NULL) /* a parsed config must always be writable */
    __builtin_trap ();
  return json;
}

static void
round_trip (const struct oci_config *c)
{
  char *once = write_or_die (c, false), *pretty = write_or_die (c, true);
  agentrt_error_t err = NULL;

  for (int i = 0; i < 2; i++)
    {
      const char *text = i ? pretty : once;
      struct oci_config *again = oci_config_parse (text, strlen (text), "written", &err);
      char *twice;

      if (again == NULL)
        __builtin_trap ();
      twice = write_or_die (again, false);
      if (strcmp (once, twice) != 0)
        __builtin_trap ();
      free (twice);
      oci_config_free (again);
    }
  free (once);
  free (pretty);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *json = (const char *) data;
  agentrt_error_t err = NULL;
  struct oci_config *c = oci_config_parse (json, size, "fuzz", &err);

  if (c)
    {
      round_trip (c);
      oci_config_free (c);
    }
  else if (err == NULL || err->msg == NULL || strchr (err->msg, '\n'))
    __builtin_trap (); /* errors are one line */
  agentrt_error_release (&err);

  oci_process_free (oci_process_parse (json, size, "fuzz", &err));
  agentrt_error_release (&err);
  oci_resources_free (oci_resources_parse (json, size, "fuzz", &err));
  agentrt_error_release (&err);
  oci_seccomp_free (oci_seccomp_parse (json, size, "fuzz", &err));
  agentrt_error_release (&err);
  container_state_free (container_state_parse (json, size, &err));
  agentrt_error_release (&err);
  return 0;
}
