/* The exec stub (exec_stub.c), embedded in agentrt: container processes
 * reach their program through it, from a sealed memfd (CVE-2019-5736). */
#ifndef AGENTRT_EXEC_STUB_H
#define AGENTRT_EXEC_STUB_H

#include <stddef.h>

#include "common/error.h"

extern const unsigned char exec_stub_image[];
extern const size_t exec_stub_image_size;

/* A sealed, close-on-exec memfd holding the stub. */
int exec_stub_memfd (agentrt_error_t *err);

/* Child side: execveat(stub_fd) with stub_argv = { "agentrt-exec-stub",
 * PATH, ARGV0, ..., NULL } (the caller fills slot 1); returns only on
 * failure, with errno set. */
void exec_stub_run (int stub_fd, char *const stub_argv[], char *const envp[]);

#endif
