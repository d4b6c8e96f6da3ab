/* The hidden `--self-test=NAME` mode: applies the lockdown and then checks
 * from inside that each layer holds (tests/egress/run.sh drives it). */
#ifndef AGENTRT_EGRESS_SELFTEST_H
#define AGENTRT_EGRESS_SELFTEST_H

#include "egress.h"

/* NAME `layers`: prints one "ok"/"FAIL" line per check and returns 0 if
 * all passed.  NAME `seccomp-<op>` (open, unix, netlink, execve,
 * io_uring, ptrace, mmap-exec): does the forbidden operation after the
 * lockdown; the process must die of SIGSYS, else it returns 1. */
int selftest_run (const struct egress_options *opt);

#endif
