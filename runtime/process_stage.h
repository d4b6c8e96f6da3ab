/* The last steps of any container process, the init's and exec'd ones
 * alike: its terminal, then labels, limits, fd hygiene, its stdio's owner,
 * seccomp, the user switch and the cwd, up to the executable to run.
 * Between clone and exec: nothing allocates. */
#ifndef AGENTRT_PROCESS_STAGE_H
#define AGENTRT_PROCESS_STAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/child_error.h"
#include "runtime/process_setup.h"
#include "runtime/seccomp/seccomp.h"

struct process_stage
{
  int sync_sock;
  int stub_fd; /* the sealed exec stub the program is reached through */
  bool stub_required; /* hardened: no direct execve when the bundle's
                         seccomp filter denies execveat */
  bool chown_stdio_files; /* not hardened: stdio that is a regular file is
                             given to the user too, not only pipes */
  const struct process_spec *process;
  const struct seccomp_program *const *seccomp; /* in load order */
  size_t n_seccomp;
  bool terminal;
  bool die_with_parent; /* `run` in the foreground is the container's
                           monitor: the program must not outlive it */
  unsigned short console_rows;
  unsigned short console_cols;
};

/* Opens a pty from the container's devpts, sends the master to the runtime
 * (SYNC_PTY_MASTER) and makes the slave the controlling terminal and stdio;
 * with bind_console the slave is also bind-mounted on /dev/console. */
int process_stage_terminal (const struct process_stage *ps, bool bind_console,
                            struct child_error *cerr);

/* Everything up to exec; exe receives the program's path.  procfd is a
 * procfs the container cannot have tampered with. */
int process_stage_prepare (const struct process_stage *ps, int procfd,
                           char *exe, size_t exe_len, struct child_error *cerr);

/* Clears the signal mask and execs; reports on stderr and exits 127 when
 * execve fails. */
void process_stage_exec (const struct process_stage *ps, const char *exe)
    __attribute__ ((noreturn));

/* A detached procfs instance of the caller's pid namespace. */
int process_stage_private_proc (struct child_error *cerr);

#endif
