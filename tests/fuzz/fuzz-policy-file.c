/* libFuzzer target for the admin policy file parser (oci/policy_file.h):
 * any input must parse into a policy or fail with a message, without a
 * crash, a leak or undefined behaviour.
 *
 * Build and run (clang, from a sanitizer build of the libraries):
 *   mkdir -p /work/build-fuzz && cd /work/build-fuzz
 *   /work/main/configure -q CC=clang --enable-sanitizers \
 *       CFLAGS="-g -O1 -fsanitize=fuzzer-no-link"
 *   make libpolicyfile.a libpolicy.a libegress.a liboci.a libcommon.a
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *       -I/work/main -I. /work/main/tests/fuzz/fuzz-policy-file.c \
 *       libpolicyfile.a libpolicy.a libegress.a liboci.a libcommon.a \
 *       -lyajl -o fuzz-policy-file
 *   ./fuzz-policy-file -max_total_time=300 /work/main/tests/fuzz/corpus/policy
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "oci/policy_file.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct agent_policy policy;
  agentrt_error_t err = NULL;

  if (policy_file_parse ((const char *) data, size, "fuzz", &policy, &err)
      == 0)
    policy_release (&policy);
  else if (err == NULL || err->msg == NULL)
    __builtin_trap (); /* a failure always says why */
  agentrt_error_release (&err);
  return 0;
}
