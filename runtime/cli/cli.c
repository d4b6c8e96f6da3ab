/* Global flags (runc's names), subcommand dispatch, and the one place where
 * an error is reported: a single line on stderr (with what to do about it,
 * when that is obvious: cli_hint.c) and, with --log, a final "error"
 * record. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/policy_file.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/cli_help.h"
#include "runtime/cli/cli_hint.h"
#include "runtime/cloned_binary.h"
#include "runtime/cli/commands.h"
#include "runtime/log.h"
#include "runtime/rootless.h"

#define DEFAULT_ROOT "/run/agentrt"

static const struct
{
  const char *name;
  cli_handler_t handler;
  const char *summary;
  bool stateless; /* needs no state root */
} commands[] = {
  { "create", cmd_create, "create a container from a bundle", false },
  { "start", cmd_start, "start the process of a created container", false },
  { "run", cmd_run, "create and start a container", false },
  { "exec", cmd_exec, "run a new process inside a container", false },
  { "state", cmd_state, "print the state of a container", false },
  { "kill", cmd_kill, "send a signal to a container's init (or all)", false },
  { "delete", cmd_delete, "delete a container", false },
  { "list", cmd_list, "list containers", false },
  { "ps", cmd_ps, "list the processes of a container", false },
  { "pause", cmd_pause, "freeze every process of a container", false },
  { "resume", cmd_resume, "thaw a paused container", false },
  { "update", cmd_update, "change a container's resource limits", false },
  { "events", cmd_events, "print resource usage and OOM events", false },
  { "spec", cmd_spec, "write a default config.json", true },
  { "features", cmd_features, "print what this runtime supports", true },
  { "policy", cmd_policy, "policy explain: what hardening does to a bundle",
    false },
  { "audit", cmd_audit, "print a container's audit trail, or a summary of all",
    false },
  { "approve", cmd_approve,
    "answer the sidecars' questions about egress (egress.ask)", true },
};

/* --root's default: /run/agentrt for root, $XDG_RUNTIME_DIR/agentrt for
 * anyone else (runtime/rootless.h), as runc does. */
static const char *
default_root (char **to_free, agentrt_error_t *err)
{
  if (!rootless_is ())
    return DEFAULT_ROOT;
  *to_free = rootless_state_root (err);
  return *to_free;
}

static void
usage (FILE *out)
{
  size_t i;
  fprintf (out, "usage: agentrt [global options] COMMAND [options] [ID]\n\n"
                "global options:\n"
                "  --root DIR           state directory (default %s;\n"
                "                       $XDG_RUNTIME_DIR/agentrt when not root)\n"
                "  --log FILE           log file\n"
                "  --log-format FORMAT  text or json\n"
                "  --debug              debug logging\n"
                "  --systemd-cgroup     manage cgroups through systemd\n"
                "  --policy FILE        admin policy (default " POLICY_FILE_DEFAULT_PATH ")\n"
                "  --version, -v        print the version\n"
                "  --help, -h           this text\n\ncommands:\n",
           DEFAULT_ROOT);
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\n`agentrt help COMMAND` or `agentrt COMMAND --help`: its "
                "options\n");
}

/* The one error line of command VERB (NULL before one was chosen). */
static void
report (const char *verb, const struct agentrt_error *err)
{
  cleanup_free char *own = NULL;
  cleanup_free char *line = NULL;
  const char *hint;

  if (err == NULL)
    {
      log_error_message ("unknown error");
      return;
    }
  hint = cli_hint (verb, err->msg, err->status, !rootless_is (), &own);
  if (hint == NULL)
    {
      log_error_message (err->msg);
      return;
    }
  line = xasprintf ("%s; %s", err->msg, hint);
  log_error_message (line);
}

static bool
is_help_flag (const char *arg)
{
  return arg && (strcmp (arg, "--help") == 0 || strcmp (arg, "-help") == 0
                 || strcmp (arg, "-h") == 0);
}

/* `help [COMMAND]`, or COMMAND's first argument asks for help: prints the
 * usage (exit 0); an unknown command is an error.  Returns -1 when the
 * arguments are not a request for help. */
static int
help_request (int argc, char **argv, agentrt_error_t *err)
{
  bool help_verb = strcmp (argv[0], "help") == 0;
  const char *verb = help_verb ? (argc > 1 ? argv[1] : NULL) : argv[0];
  const char *text;

  if (!help_verb && (argc < 2 || !is_help_flag (argv[1])))
    return -1;
  if (verb == NULL)
    {
      usage (stdout);
      return 0;
    }
  text = cli_help_text (verb);
  if (text == NULL && help_verb)
    return agentrt_error (err, 0, "help: unknown command `%s`", verb), 1;
  if (text == NULL)
    return -1; /* `NOPE --help`: the unknown command's error */
  fputs (text, stdout);
  return 0;
}

static void
print_version (void)
{
  printf ("agentrt version %s\ncommit: %s\nspec: 1.2.0\n", PACKAGE_VERSION,
          GIT_COMMIT);
}

enum
{
  OPT_ROOT = 1000,
  OPT_LOG,
  OPT_LOG_FORMAT,
  OPT_DEBUG,
  OPT_SYSTEMD_CGROUP,
  OPT_POLICY,
  OPT_VERSION,
  OPT_HELP,
  OPT_ROOTLESS,
  OPT_CRIU,
};

static const struct option global_options[] = {
  { "root", required_argument, NULL, OPT_ROOT },
  { "log", required_argument, NULL, OPT_LOG },
  { "log-format", required_argument, NULL, OPT_LOG_FORMAT },
  { "debug", no_argument, NULL, OPT_DEBUG },
  { "systemd-cgroup", no_argument, NULL, OPT_SYSTEMD_CGROUP },
  { "policy", required_argument, NULL, OPT_POLICY },
  { "version", no_argument, NULL, OPT_VERSION },
  { "help", no_argument, NULL, OPT_HELP },
  /* accepted for runc compatibility; rootless is detected, criu unused */
  { "rootless", required_argument, NULL, OPT_ROOTLESS },
  { "criu", required_argument, NULL, OPT_CRIU },
  { NULL, 0, NULL, 0 },
};

/* Returns the index of the command word, or -1 after printing (exit 0),
 * or -2 on a bad option. */
static int
parse_globals (int argc, char **argv, struct global_options *g,
               agentrt_error_t *err)
{
  int c;

  opterr = 0;
  optind = 0;
  while ((c = getopt_long_only (argc, argv, "+:hv", global_options, NULL)) != -1)
    {
      switch (c)
        {
        case OPT_ROOT:
          g->rt.root = optarg;
          break;
        case OPT_LOG:
          g->log = optarg;
          break;
        case OPT_LOG_FORMAT:
          if (strcmp (optarg, "text") && strcmp (optarg, "json"))
            return agentrt_error (err, 0, "--log-format: `%s` is neither "
                                  "text nor json", optarg), -2;
          g->log_format = optarg;
          break;
        case OPT_DEBUG:
          g->debug = true;
          break;
        case OPT_SYSTEMD_CGROUP:
          g->rt.systemd_cgroup = true;
          break;
        case OPT_POLICY:
          g->rt.policy = optarg;
          break;
        case 'v':
        case OPT_VERSION:
          print_version ();
          return -1;
        case 'h':
        case OPT_HELP:
          usage (stdout);
          return -1;
        case OPT_ROOTLESS:
        case OPT_CRIU:
          break;
        case ':':
          return agentrt_error (err, 0, "global option `%s` needs a value",
                                argv[optind - 1]), -2;
        default:
          return agentrt_error (err, 0, "unknown global option `%s`",
                                argv[optind - 1]), -2;
        }
    }
  return optind;
}

int
cli_main (int argc, char **argv)
{
  struct global_options g = { .log_format = "text" };
  cleanup_error agentrt_error_t err = NULL;
  cleanup_free char *root = NULL, *user_systemd = NULL;
  size_t i;
  int first, r;

  cloned_binary_origin (); /* read (and clear) before anything runs */
  first = parse_globals (argc, argv, &g, &err);
  if (first == -1)
    return 0;
  if (first >= 0
      && log_init (g.log, strcmp (g.log_format, "json") == 0 ? LOG_FORMAT_JSON
                                                             : LOG_FORMAT_TEXT,
                   g.debug, &err) < 0)
    first = -2;
  if (first == -2)
    {
      report (NULL, err);
      return 1;
    }
  if (first >= argc)
    {
      usage (stderr);
      return 1;
    }
  r = help_request (argc - first, argv + first, &err);
  if (r >= 0)
    {
      if (r > 0)
        report (NULL, err);
      return r;
    }
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp (argv[first], commands[i].name) == 0)
      break;
  if (i == sizeof commands / sizeof commands[0])
    {
      agentrt_error (&err, 0, "unknown command `%s` (`agentrt help` lists "
                     "them)", argv[first]);
      report (NULL, err);
      return 1;
    }
  if (g.rt.root == NULL && !commands[i].stateless
      && (g.rt.root = default_root (&root, &err)) == NULL)
    {
      report (NULL, err);
      return 1;
    }
  /* a scope made with --systemd-cgroup is the user's systemd's to stop,
   * whatever flags delete gets */
  if (rootless_is ())
    cgroup_systemd_user_manager (user_systemd = rootless_systemd_socket ());
  g.rt.argv = argv;
  r = commands[i].handler (&g, argc - first, argv + first, &err);
  if (r < 0)
    {
      report (commands[i].name, err);
      return 1;
    }
  return r;
}
