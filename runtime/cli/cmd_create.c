/* `agentrt create [--bundle DIR] [--pid-file F] [--console-socket S]
 *  [--no-pivot] [--no-new-keyring] [--preserve-fds N] ID` */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cli/cmd_create_options.h"
#include "runtime/cli/commands.h"
#include "runtime/container.h"

int
cmd_create (struct global_options *g, int argc, char **argv,
            agentrt_error_t *err)
{
  struct create_request req = { 0 };
  struct create_outcome out = { 0 };
  int first;

  first = create_options_parse (argc, argv, &req, NULL, err);
  if (first < 0)
    return -1;
  if (cmd_check_args (argc, first, 1, 1, "create [options] ID", err) < 0)
    return -1;
  req.id = argv[first];
  return container_create (&g->rt, &req, &out, err) < 0 ? -1 : 0;
}

int
cmd_check_args (int argc, int optind_, int min, int max, const char *usage,
                agentrt_error_t *err)
{
  int n = argc - optind_;
  if (n < min || n > max)
    return agentrt_error (err, 0, "%s argument%s; usage: agentrt %s",
                          n < min ? "missing" : "unexpected",
                          (n < min ? min - n : n - max) > 1 ? "s" : "", usage);
  return 0;
}

int
cmd_option_error (char **argv, int c, agentrt_error_t *err)
{
  const char *opt = optind > 0 ? argv[optind - 1] : "?";
  if (c == ':')
    return agentrt_error (err, 0, "%s: option `%s` needs a value",
                          argv[0], opt);
  return agentrt_error (err, 0, "%s: unknown option `%s`", argv[0], opt);
}
