/* Test-only fault injection (see fault.h). */
#include "config.h"

#ifdef AGENTRT_FAULT_INJECTION
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
#endif
