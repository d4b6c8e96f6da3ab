/* Test-only fault injection (see fault.h). */
#include "config.h"

#ifdef AGENTRT_FAULT_INJECTION
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fault.h"

void
fault_point (const char *stage)
{
  const char *wanted = getenv ("AGENTRT_FAULT_STAGE");
  const char *sig = getenv ("AGENTRT_FAULT_SIGNAL");
  if (wanted && strcmp (wanted, stage) == 0)
    raise (sig && strcmp (sig, "STOP") == 0 ? SIGSTOP : SIGKILL);
}

/* Only getenv and arithmetic: also safe in agentrt-egress after its
 * seccomp filter is loaded, and in a child between fork and exec. */
int
fault_fail (const char *point)
{
  static unsigned long failed;
  const char *wanted = getenv ("AGENTRT_FAULT_FAIL");
  const char *count = getenv ("AGENTRT_FAULT_COUNT");
  const char *code = getenv ("AGENTRT_FAULT_ERRNO");
  int e = code ? atoi (code) : 0;

  if (wanted == NULL || strcmp (wanted, point) != 0)
    return 0;
  if (count && *count && failed >= strtoul (count, NULL, 10))
    return 0;
  failed++;
  errno = e > 0 ? e : EIO;
  return -1;
}

bool
fault_layer_off (const char *layer)
{
  const char *list = getenv ("AGENTRT_FAULT_LAYER_OFF");
  size_t n = strlen (layer);

  while (list && *list)
    {
      size_t len = strcspn (list, ",");
      if (len == n && strncmp (list, layer, n) == 0)
        return true;
      list += len + (list[len] == ',');
    }
  return false;
}
#endif
