/* The process of `agentrt exec`: either a runtime-spec process.json
 * (--process), or the container's own process with runc's flag-form
 * overrides (command, --env, --cwd, --user, --cap, --no-new-privs...). */
#ifndef AGENTRT_EXEC_PROCESS_H
#define AGENTRT_EXEC_PROCESS_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"

struct exec_options
{
  const char *id;
  const char *process_file;   /* --process */
  char **command;             /* flag form: COMMAND [ARGS...], NULL-ended */
  struct str_list env;        /* --env K=V */
  struct str_list caps;       /* --cap CAP_X */
  struct str_list extra_gids; /* --additional-gids */
  const char *cwd;
  const char *user;           /* "uid[:gid]" */
  const char *apparmor;
  const char *process_label;
  bool tty;
  bool no_new_privs;
  bool detach;
  bool ignore_paused;
  const char *pid_file;
  const char *console_socket;
  int preserve_fds;
};

/* Builds the process to run; `container` is the container's own process
 * (the defaults of the flag form). */
struct oci_process *exec_process_build (const struct exec_options *opts,
                                        const struct oci_process *container,
                                        agentrt_error_t *err);

#endif
