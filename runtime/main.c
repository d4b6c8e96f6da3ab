/* agentrt entry point: global flags, then one handler per subcommand. */
#include "config.h"

#include "runtime/cli/cli.h"

int
main (int argc, char **argv)
{
  return cli_main (argc, argv);
}
