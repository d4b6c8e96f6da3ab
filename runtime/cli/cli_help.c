/* Each command's usage (`agentrt help CMD`, `agentrt CMD --help`): the
 * synopsis and the options its parser accepts, as runc users expect to
 * find them.  tests/integration/help.bats checks that every option listed
 * here is accepted by its command. */
#include "config.h"

#include <string.h>

#include "runtime/cli/cli_help.h"

#define CREATE_OPTIONS                                                        \
  "  --bundle, -b DIR        the bundle (default: the current directory)\n"  \
  "  --pid-file FILE         write the container's init pid to FILE\n"      \
  "  --console-socket PATH   send the pty master to this unix socket\n"     \
  "                          (process.terminal)\n"                          \
  "  --preserve-fds N        pass N fds after stdio (3..3+N-1) to the\n"    \
  "                          process\n"                                     \
  "  --no-pivot              move the root with MS_MOVE, not pivot_root\n"  \
  "  --no-new-keyring        keep the caller's session keyring\n"

static const struct
{
  const char *verb;
  const char *text;
} helps[] = {
  { "create", "usage: agentrt create [options] ID\n\n"
              "Creates the container from its bundle; its process waits for "
              "`start`.\n\noptions:\n" CREATE_OPTIONS },
  { "run", "usage: agentrt run [options] ID\n\n"
           "create and start; the exit status is the container's (128+N "
           "after signal N).\n\noptions:\n" CREATE_OPTIONS
           "  --detach, -d            return once the process has started\n"
           "  --keep                  do not delete the container when it "
           "exits\n"
           "  --no-subreaper          accepted for runc compatibility\n" },
  { "start", "usage: agentrt start ID\n\n"
             "Starts the process of a created container.\n" },
  { "state", "usage: agentrt state ID\n\n"
             "Prints the runtime-spec state of a container (JSON).\n" },
  { "kill", "usage: agentrt kill [--all] ID [SIGNAL]\n\n"
            "Sends SIGNAL (a name, SIG-name or number; default TERM) to the "
            "init.\n\noptions:\n"
            "  --all, -a               to every process of the container\n" },
  { "delete", "usage: agentrt delete [--force] ID\n\n"
              "Deletes a stopped container: state, cgroup, sidecar, "
              "ephemeral root.\n\noptions:\n"
              "  --force, -f             kill it first if it still runs\n" },
  { "exec", "usage: agentrt exec [options] ID [COMMAND [ARGS...]]\n\n"
            "Runs a new process in the container, confined as its init.\n\n"
            "options:\n"
            "  --process, -p FILE      the process (runtime-spec JSON) "
            "instead of COMMAND\n"
            "  --tty, -t               allocate a pty\n"
            "  --console-socket PATH   send the pty master to this unix "
            "socket\n"
            "  --detach, -d            do not wait for the process\n"
            "  --pid-file FILE         write the process's pid to FILE\n"
            "  --env, -e NAME=VALUE    set a variable (repeatable)\n"
            "  --cwd DIR               working directory\n"
            "  --user, -u UID[:GID]    run as this user\n"
            "  --additional-gids, -g GID  a supplementary group "
            "(repeatable)\n"
            "  --cap, -c CAP           add a capability (repeatable)\n"
            "  --no-new-privs          set no_new_privileges\n"
            "  --process-label LABEL   SELinux label of the process\n"
            "  --apparmor PROFILE      AppArmor profile of the process\n"
            "  --preserve-fds N        pass N fds after stdio\n"
            "  --ignore-paused         exec even into a paused container\n"
            "  --cgroup PATH           refused: sub-cgroups are not "
            "supported\n" },
  { "list", "usage: agentrt list [options]\n\noptions:\n"
            "  --format, -f table|json  output format (default table)\n"
            "  --quiet, -q             ids only\n" },
  { "ps", "usage: agentrt ps [--format table|json] ID [PS_ARGS...]\n\n"
          "Lists the container's processes: a table from the host's ps (with "
          "PS_ARGS), or a JSON array of pids.\n\noptions:\n"
          "  --format, -f table|json  output format (default table)\n" },
  { "pause", "usage: agentrt pause ID\n\n"
             "Freezes every process of the container (cgroup freezer).\n" },
  { "resume", "usage: agentrt resume ID\n\n"
              "Thaws a paused container.\n" },
  { "update", "usage: agentrt update [options] ID\n\n"
              "Changes the limits of a running container.\n\noptions:\n"
              "  --resources, -r FILE    LinuxResources JSON ('-': stdin)\n"
              "  --memory BYTES          memory limit\n"
              "  --memory-swap BYTES     memory plus swap limit\n"
              "  --memory-reservation BYTES  soft limit\n"
              "  --pids-limit N          process limit\n"
              "  --cpu-quota US          CPU time per period\n"
              "  --cpu-period US         the period\n"
              "  --cpu-shares, --cpu-share N  relative weight\n"
              "  --cpu-rt-period US      realtime period\n"
              "  --cpu-rt-runtime US     realtime runtime per period\n"
              "  --blkio-weight N        block IO weight (10-1000)\n"
              "  --cpuset-cpus LIST      CPUs allowed (e.g. 0-1)\n"
              "  --cpuset-mems LIST      memory nodes allowed\n" },
  { "events", "usage: agentrt events [options] ID\n\n"
              "Prints resource usage and OOM events (runc's JSON) until the "
              "container exits.\n\noptions:\n"
              "  --stats                 print the usage once and exit\n"
              "  --interval DURATION     between stats (default 5s; 200ms, 1m30s)\n" },
  { "spec", "usage: agentrt spec [options]\n\n"
            "Writes a default config.json (agentrt's hardening still applies "
            "when it runs).\n\noptions:\n"
            "  --bundle, -b DIR        where to write it\n"
            "  --rootless              a spec for an unprivileged user\n" },
  { "features", "usage: agentrt features\n\n"
                "Prints what this runtime supports (runtime-spec features "
                "JSON).\n" },
  { "policy", "usage: agentrt policy explain [options]\n\n"
              "Shows what the hardening does to a bundle, under the admin "
              "policy.\n\noptions:\n"
              "  --bundle, -b DIR        the bundle (default .)\n"
              "  --format, -f text|json  output format (default text)\n" },
  { "audit", "usage: agentrt audit ID\n"
             "       agentrt audit --summary [options]\n\n"
             "Prints a container's audit trail (JSON lines), also after "
             "`delete`; with\n--summary, the figures of every trail in the "
             "audit dir: containers run,\nlifetimes, exits, limits hit, "
             "egress by host, secrets removed, paths masked,\nhardening off "
             "or loosened.\n\noptions:\n"
             "  --summary               every trail, added up (a table; "
             "damaged lines\n"
             "                          are skipped and counted)\n"
             "  --since TIME            only events at or after TIME: RFC "
             "3339\n"
             "                          (2026-11-29T14:00:00Z), a date "
             "(2026-11-29, UTC)\n"
             "                          or a time ago (90m, 24h, 7d)\n"
             "  --format, -f text|json  output format (default text)\n"
             "  --top N                 names per list (hosts, reasons, "
             "containers;\n"
             "                          default 10, 0: all)\n" },
  { "approve", "usage: agentrt approve [options]\n\n"
               "Answers the egress sidecars' questions about destinations "
               "outside their\nallowlist (the policy's egress.ask): each is "
               "shown here; y allows it once,\na for the container's "
               "lifetime, n denies.  The sidecar records every\nanswer in "
               "the container's audit trail.\n\noptions:\n"
               "  --socket PATH           where to listen (default "
               "/run/agentrt-approve.sock)\n"
               "  --auto-deny-after S     deny what is not answered within S "
               "(10, 20s, 1m)\n"
               "  --allow-pattern P       allow once what matches P (host or "
               "host:port, glob;\n"
               "                          repeatable)\n" },
};

const char *
cli_help_text (const char *verb)
{
  size_t i;

  for (i = 0; i < sizeof helps / sizeof helps[0]; i++)
    if (strcmp (helps[i].verb, verb) == 0)
      return helps[i].text;
  return NULL;
}
