/* Test-only fault injection: with --enable-fault-injection, a command stops
 * dead (SIGKILL) at the stage named by AGENTRT_FAULT_STAGE, so that tests
 * can check `delete --force` cleans up after a create or start killed at
 * every step.  With AGENTRT_FAULT_SIGNAL=STOP it stops (SIGSTOP) there
 * instead, so that a test can act at that moment and then SIGCONT it.
 * Release builds compile the calls away. */
#ifndef AGENTRT_FAULT_H
#define AGENTRT_FAULT_H

#include "config.h"

#ifdef AGENTRT_FAULT_INJECTION
void fault_point (const char *stage);
#else
#define fault_point(stage) ((void) 0)
#endif

#endif
