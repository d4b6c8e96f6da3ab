/* Each command's usage text, for `agentrt help CMD` and `CMD --help`. */
#ifndef AGENTRT_CLI_HELP_H
#define AGENTRT_CLI_HELP_H

/* The usage of VERB (ends with a newline), or NULL for an unknown verb. */
const char *cli_help_text (const char *verb);

#endif
