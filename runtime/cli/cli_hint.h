/* What to do about an error: the fix for the failures a newcomer meets
 * first, appended by the CLI to the one line it prints. */
#ifndef AGENTRT_CLI_HINT_H
#define AGENTRT_CLI_HINT_H

#include <stdbool.h>

/* The hint for the error MSG (with errno STATUS, 0 for none) that command
 * VERB (NULL: before a command was chosen) failed with, run as root or
 * not; NULL when there is no obvious fix.  The result is static, or owned
 * by *buf (freed by the caller) when it names the command. */
const char *cli_hint (const char *verb, const char *msg, int status,
                      bool root, char **buf);

#endif
