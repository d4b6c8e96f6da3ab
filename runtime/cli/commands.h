/* The subcommand handlers, one file each (cmd_<verb>.c). */
#ifndef AGENTRT_COMMANDS_H
#define AGENTRT_COMMANDS_H

#include "runtime/cli/cli.h"

int cmd_create (struct global_options *g, int argc, char **argv,
                agentrt_error_t *err);
int cmd_start (struct global_options *g, int argc, char **argv,
               agentrt_error_t *err);
int cmd_run (struct global_options *g, int argc, char **argv,
             agentrt_error_t *err);
int cmd_state (struct global_options *g, int argc, char **argv,
               agentrt_error_t *err);
int cmd_kill (struct global_options *g, int argc, char **argv,
              agentrt_error_t *err);
int cmd_delete (struct global_options *g, int argc, char **argv,
                agentrt_error_t *err);
int cmd_list (struct global_options *g, int argc, char **argv,
              agentrt_error_t *err);
int cmd_spec (struct global_options *g, int argc, char **argv,
              agentrt_error_t *err);
int cmd_features (struct global_options *g, int argc, char **argv,
                  agentrt_error_t *err);
int cmd_exec (struct global_options *g, int argc, char **argv,
              agentrt_error_t *err);
int cmd_ps (struct global_options *g, int argc, char **argv,
            agentrt_error_t *err);
int cmd_pause (struct global_options *g, int argc, char **argv,
               agentrt_error_t *err);
int cmd_resume (struct global_options *g, int argc, char **argv,
                agentrt_error_t *err);
int cmd_update (struct global_options *g, int argc, char **argv,
                agentrt_error_t *err);
int cmd_events (struct global_options *g, int argc, char **argv,
                agentrt_error_t *err);
int cmd_policy (struct global_options *g, int argc, char **argv,
                agentrt_error_t *err);
int cmd_audit (struct global_options *g, int argc, char **argv,
               agentrt_error_t *err);
int cmd_approve (struct global_options *g, int argc, char **argv,
                 agentrt_error_t *err);

/* Checks the number of positional arguments left after the options. */
int cmd_check_args (int argc, int optind_, int min, int max, const char *usage,
                    agentrt_error_t *err);

/* The error for what getopt returned ('?' or ':'): names the option. */
int cmd_option_error (char **argv, int c, agentrt_error_t *err);

#endif
