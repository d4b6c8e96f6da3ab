/* libFuzzer target for the approver protocol's parsers (oci/ask_line.c):
 * the answers the sidecar reads from the approver's socket, and the
 * sidecar's lines `agentrt approve` reads.  Build and run with
 * hack/fuzz.sh ask-answer. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oci/ask_line.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  agentrt_error_t err = NULL;
  enum ask_answer a;
  struct ask_msg m;
  uint64_t qid;

  if (ask_answer_parse ((const char *) data, size, &qid, &a, &err) == 0)
    {
      if (a != ASK_ALLOW_ONCE && a != ASK_ALLOW_ALWAYS && a != ASK_DENY)
        abort ();
    }
  agentrt_error_release (&err);
  if (ask_msg_parse ((const char *) data, size, &m, &err) == 0)
    {
      if (strlen (m.host) > ASK_HOST_MAX || strlen (m.id) > ASK_ID_MAX
          || (m.type == ASK_MSG_QUESTION && m.port == 0))
        abort ();
    }
  agentrt_error_release (&err);
  return 0;
}
