/* `agentrt spec [--bundle DIR] [--rootless]`: writes a default config.json
 * (refusing to overwrite one), like `runc spec`. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/spec_default.h"
#include "runtime/cli/commands.h"

int
cmd_spec (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  static const struct option opts[] = {
    { "bundle", required_argument, NULL, 'b' },
    { "rootless", no_argument, NULL, 'r' },
    { NULL, 0, NULL, 0 },
  };
  cleanup_free char *json = NULL;
  cleanup_free char *path = NULL;
  cleanup_close int fd = -1;
  const char *bundle = ".";
  bool rootless = false;
  size_t len;
  int c;

  (void) g;
  opterr = 0;
  optind = 0;
  while ((c = getopt_long_only (argc, argv, "+:b:", opts, NULL)) != -1)
    {
      if (c == 'b')
        bundle = optarg;
      else if (c == 'r')
        rootless = true;
      else
        return cmd_option_error (argv, c, err);
    }
  if (cmd_check_args (argc, optind, 0, 0, "spec [--bundle DIR] [--rootless]",
                      err) < 0)
    return -1;
  json = spec_default_json (rootless, geteuid (), getegid (), err);
  if (json == NULL)
    return -1;
  path = xasprintf ("%s/config.json", bundle);
  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      if (errno == EEXIST)
        return agentrt_error (err, EEXIST, "file `%s` exists: remove it first",
                              path);
      return agentrt_error (err, errno, "create `%s`", path);
    }
  len = strlen (json);
  if (write (fd, json, len) != (ssize_t) len)
    return agentrt_error (err, errno, "write `%s`", path);
  return 0;
}
