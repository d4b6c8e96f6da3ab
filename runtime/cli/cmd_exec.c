/* `agentrt exec [options] ID [COMMAND [ARGS...]]`, runc's flags:
 * --process/-p FILE, --tty/-t, --console-socket, --detach/-d, --pid-file,
 * --env/-e, --cwd, --user/-u UID[:GID], --additional-gids/-g, --cap/-c,
 * --no-new-privs, --apparmor, --process-label, --preserve-fds,
 * --ignore-paused. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cli/commands.h"
#include "runtime/container_exec.h"

enum
{
  OPT_CONSOLE_SOCKET = 1000,
  OPT_CWD,
  OPT_PID_FILE,
  OPT_PROCESS_LABEL,
  OPT_APPARMOR,
  OPT_NO_NEW_PRIVS,
  OPT_PRESERVE_FDS,
  OPT_IGNORE_PAUSED,
  OPT_CGROUP,
};

static const struct option options[] = {
  { "process", required_argument, NULL, 'p' },
  { "tty", no_argument, NULL, 't' },
  { "detach", no_argument, NULL, 'd' },
  { "env", required_argument, NULL, 'e' },
  { "user", required_argument, NULL, 'u' },
  { "additional-gids", required_argument, NULL, 'g' },
  { "cap", required_argument, NULL, 'c' },
  { "console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET },
  { "cwd", required_argument, NULL, OPT_CWD },
  { "pid-file", required_argument, NULL, OPT_PID_FILE },
  { "process-label", required_argument, NULL, OPT_PROCESS_LABEL },
  { "apparmor", required_argument, NULL, OPT_APPARMOR },
  { "no-new-privs", no_argument, NULL, OPT_NO_NEW_PRIVS },
  { "preserve-fds", required_argument, NULL, OPT_PRESERVE_FDS },
  { "ignore-paused", no_argument, NULL, OPT_IGNORE_PAUSED },
  { "cgroup", required_argument, NULL, OPT_CGROUP },
  { NULL, 0, NULL, 0 },
};

static int
parse_one (int c, struct exec_options *o, char **argv, agentrt_error_t *err)
{
  char *end;
  switch (c)
    {
    case 'p': o->process_file = optarg; break;
    case 't': o->tty = true; break;
    case 'd': o->detach = true; break;
    case 'e': str_list_append (&o->env, optarg); break;
    case 'u': o->user = optarg; break;
    case 'g': str_list_append (&o->extra_gids, optarg); break;
    case 'c': str_list_append (&o->caps, optarg); break;
    case OPT_CONSOLE_SOCKET: o->console_socket = optarg; break;
    case OPT_CWD: o->cwd = optarg; break;
    case OPT_PID_FILE: o->pid_file = optarg; break;
    case OPT_PROCESS_LABEL: o->process_label = optarg; break;
    case OPT_APPARMOR: o->apparmor = optarg; break;
    case OPT_NO_NEW_PRIVS: o->no_new_privs = true; break;
    case OPT_IGNORE_PAUSED: o->ignore_paused = true; break;
    case OPT_PRESERVE_FDS:
      o->preserve_fds = (int) strtol (optarg, &end, 10);
      if (*end || end == optarg || o->preserve_fds < 0)
        return agentrt_error (err, 0, "--preserve-fds: `%s` is not a "
                              "number", optarg);
      break;
    case OPT_CGROUP:
      return agentrt_error (err, ENOTSUP, "exec --cgroup: sub-cgroups are "
                            "not supported");
    default:
      return cmd_option_error (argv, c, err);
    }
  return 0;
}

int
cmd_exec (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  struct exec_options o = { 0 };
  int c, r = -1;

  opterr = 0;
  optind = 0;
  while ((c = getopt_long_only (argc, argv, "+:p:tde:u:g:c:", options, NULL)) != -1)
    if (parse_one (c, &o, argv, err) < 0)
      goto out;
  if (optind >= argc)
    {
      agentrt_error (err, 0, "exec: missing container id; usage: agentrt "
                     "exec [options] ID [COMMAND [ARGS...]]");
      goto out;
    }
  o.id = argv[optind];
  o.command = argv + optind + 1;
  if (o.process_file && o.command[0])
    {
      agentrt_error (err, 0, "exec: give either --process or a command");
      goto out;
    }
  r = container_exec (&g->rt, &o, err);
out:
  str_list_free (&o.env);
  str_list_free (&o.caps);
  str_list_free (&o.extra_gids);
  return r;
}
