/* Options shared by `create` and `run` (see cmd_create_options.h). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cli/cmd_create_options.h"
#include "runtime/cli/commands.h"

enum
{
  OPT_BUNDLE = 1000,
  OPT_PID_FILE,
  OPT_CONSOLE_SOCKET,
  OPT_NO_PIVOT,
  OPT_NO_NEW_KEYRING,
  OPT_PRESERVE_FDS,
  OPT_DETACH,
  OPT_KEEP,
  OPT_NO_SUBREAPER,
};

static const struct option options[] = {
  { "bundle", required_argument, NULL, OPT_BUNDLE },
  { "pid-file", required_argument, NULL, OPT_PID_FILE },
  { "console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET },
  { "no-pivot", no_argument, NULL, OPT_NO_PIVOT },
  { "no-new-keyring", no_argument, NULL, OPT_NO_NEW_KEYRING },
  { "preserve-fds", required_argument, NULL, OPT_PRESERVE_FDS },
  { "detach", no_argument, NULL, OPT_DETACH },
  { "keep", no_argument, NULL, OPT_KEEP },
  { "no-subreaper", no_argument, NULL, OPT_NO_SUBREAPER },
  { NULL, 0, NULL, 0 },
};

static int
parse_fd_count (const char *s, int *out, agentrt_error_t *err)
{
  char *end;
  long v;
  errno = 0;
  v = strtol (s, &end, 10);
  if (errno || *end || end == s || v < 0 || v > 65536)
    return agentrt_error (err, 0, "--preserve-fds: `%s` is not a valid "
                          "number of fds", s);
  *out = (int) v;
  return 0;
}

int
create_options_parse (int argc, char **argv, struct create_request *req,
                      struct run_only_options *run_opts, agentrt_error_t *err)
{
  int c;

  opterr = 0;
  optind = 0;
  while ((c = getopt_long_only (argc, argv, "+:b:d", options, NULL)) != -1)
    {
      switch (c)
        {
        case 'b':
        case OPT_BUNDLE:
          req->bundle = optarg;
          break;
        case OPT_PID_FILE:
          req->pid_file = optarg;
          break;
        case OPT_CONSOLE_SOCKET:
          req->console_socket = optarg;
          break;
        case OPT_NO_PIVOT:
          req->no_pivot = true;
          break;
        case OPT_NO_NEW_KEYRING:
          req->no_new_keyring = true;
          break;
        case OPT_PRESERVE_FDS:
          if (parse_fd_count (optarg, &req->preserve_fds, err) < 0)
            return -1;
          break;
        case 'd':
        case OPT_DETACH:
        case OPT_KEEP:
        case OPT_NO_SUBREAPER:
          if (run_opts == NULL)
            return agentrt_error (err, 0, "%s: unknown option `%s`",
                                  argv[0], argv[optind - 1]);
          if (c == 'd' || c == OPT_DETACH)
            run_opts->detach = true;
          else if (c == OPT_KEEP)
            run_opts->keep = true;
          break;
        default:
          return cmd_option_error (argv, c, err);
        }
    }
  return optind;
}
