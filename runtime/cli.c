/* Global flags and subcommand dispatch. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "runtime/cli.h"

int
cli_main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--version") == 0)
    {
      printf ("agentrt version %s\ncommit: %s\nspec: 1.2.0\n", PACKAGE_VERSION,
              GIT_COMMIT);
      return 0;
    }
  fprintf (stderr, "agentrt: no command given\n");
  return 1;
}
