/* Test-only fault injection, compiled in with --enable-fault-injection and
 * compiled away in release builds.  Two kinds of points:
 *  - stages (fault_point): a command stops dead (SIGKILL) at the stage
 *    named by AGENTRT_FAULT_STAGE, so that tests can check `delete --force`
 *    cleans up after a create or start killed at every step.  With
 *    AGENTRT_FAULT_SIGNAL=STOP it stops (SIGSTOP) there instead, so that a
 *    test can act at that moment and then SIGCONT it.
 *  - failures (fault_fail, FAULT_CALL): the operation at the point named
 *    by AGENTRT_FAULT_FAIL fails with the errno AGENTRT_FAULT_ERRNO (a
 *    number, default EIO), the first AGENTRT_FAULT_COUNT times in this
 *    process (default: every time), so that tests can check that a failing
 *    close_range, kill, audit write or lockdown step is handled.
 *  - layers (fault_layer_off): a protection named in the comma list
 *    AGENTRT_FAULT_LAYER_OFF is not applied at all ("kernel-surface": the
 *    read-only kernel interfaces, masks and the device allowlist), so that
 *    tests can show what the next layer (the user namespace) stops on its
 *    own (docs/userns.md). */
#ifndef AGENTRT_FAULT_H
#define AGENTRT_FAULT_H

#include "config.h"

#include <stdbool.h>

#ifdef AGENTRT_FAULT_INJECTION
void fault_point (const char *stage);
/* 0, or -1 with errno set when the operation at `point` is to fail. */
int fault_fail (const char *point);
/* CALL, unless the point fails it: then -1 with errno set. */
#define FAULT_CALL(point, call) (fault_fail (point) < 0 ? -1 : (call))
/* Whether the layer is switched off (test builds only). */
bool fault_layer_off (const char *layer);
#else
#define fault_layer_off(layer) false
#define fault_point(stage) ((void) 0)
#define fault_fail(point) 0
#define FAULT_CALL(point, call) (call)
#endif

#endif
