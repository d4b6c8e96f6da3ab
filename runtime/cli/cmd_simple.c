/* The verbs that take an id and little else: start, state, kill, delete. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "runtime/cli/commands.h"
#include "runtime/container.h"
#include "runtime/proc_util.h"

/* Parses only flags of the form -x/--name without values. */
static int
parse_flags (int argc, char **argv, const struct option *opts, bool *flags,
             agentrt_error_t *err)
{
  int c;
  opterr = 0;
  optind = 0;
  while ((c = getopt_long_only (argc, argv, "+:af", opts, NULL)) != -1)
    {
      const struct option *o;
      for (o = opts; o->name; o++)
        if (c == o->val)
          break;
      if (o->name == NULL)
        return cmd_option_error (argv, c, err);
      flags[o - opts] = true;
    }
  return optind;
}

int
cmd_start (struct global_options *g, int argc, char **argv,
           agentrt_error_t *err)
{
  struct container c;
  int r;
  if (cmd_check_args (argc, 1, 1, 1, "start ID", err) < 0)
    return -1;
  if (container_load (&g->rt, argv[1], &c, err) < 0)
    return -1;
  r = container_start (&c, err);
  container_release (&c);
  return r < 0 ? -1 : 0;
}

int
cmd_state (struct global_options *g, int argc, char **argv,
           agentrt_error_t *err)
{
  cleanup_free char *json = NULL;
  struct container c;

  if (cmd_check_args (argc, 1, 1, 1, "state ID", err) < 0)
    return -1;
  if (container_load (&g->rt, argv[1], &c, err) < 0)
    return -1;
  if (c.state == NULL)
    {
      container_release (&c);
      return agentrt_error (err, ENOENT, "container `%s` does not exist",
                            argv[1]);
    }
  json = container_state_oci_json (c.state, container_status (&c), true, err);
  container_release (&c);
  if (json == NULL)
    return -1;
  printf ("%s\n", json);
  return 0;
}

int
cmd_kill (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  static const struct option opts[] = { { "all", no_argument, NULL, 'a' },
                                        { NULL, 0, NULL, 0 } };
  bool flags[1] = { false };
  struct container c;
  int first, sig = 15, r;

  first = parse_flags (argc, argv, opts, flags, err);
  if (first < 0 || cmd_check_args (argc, first, 1, 2, "kill [--all] ID [SIGNAL]",
                                   err) < 0)
    return -1;
  if (argc - first == 2 && (sig = signal_parse (argv[first + 1])) < 0)
    return agentrt_error (err, 0, "kill: unknown signal `%s`",
                          argv[first + 1]);
  if (container_load (&g->rt, argv[first], &c, err) < 0)
    return -1;
  r = container_kill (&c, sig, flags[0], err);
  container_release (&c);
  return r < 0 ? -1 : 0;
}

int
cmd_delete (struct global_options *g, int argc, char **argv,
            agentrt_error_t *err)
{
  static const struct option opts[] = { { "force", no_argument, NULL, 'f' },
                                        { NULL, 0, NULL, 0 } };
  bool flags[1] = { false };
  struct container c;
  int first, r;

  first = parse_flags (argc, argv, opts, flags, err);
  if (first < 0 || cmd_check_args (argc, first, 1, 1, "delete [--force] ID",
                                   err) < 0)
    return -1;
  if (container_load (&g->rt, argv[first], &c, err) < 0)
    {
      /* the containerd shim sends delete, then delete --force */
      if (flags[0] && (*err)->status == ENOENT)
        {
          agentrt_error_release (err);
          return 0;
        }
      return -1;
    }
  r = container_delete (&c, flags[0], err);
  container_release (&c);
  return r < 0 ? -1 : 0;
}
