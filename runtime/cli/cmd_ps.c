/* `agentrt ps [--format table|json] ID [PS_ARGS...]`: the container's
 * processes.  json: an array of host pids (what the containerd shim reads);
 * table: the host's `ps` (default `ps -ef`) filtered to those pids, like
 * runc. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cli/commands.h"
#include "runtime/container.h"

static bool
has_pid (const pid_t *pids, size_t n, pid_t pid)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (pids[i] == pid)
      return true;
  return false;
}

/* The PID column of the header line decides which field to read. */
static int
pid_column (const char *header)
{
  int col = 0;
  const char *p = header;
  while (*p)
    {
      size_t len;
      while (*p == ' ')
        p++;
      len = strcspn (p, " \n");
      if (len == 3 && strncmp (p, "PID", 3) == 0)
        return col;
      p += len;
      col++;
    }
  return -1;
}

static pid_t
field_pid (const char *line, int col)
{
  const char *p = line;
  for (; col > 0; col--)
    {
      while (*p == ' ')
        p++;
      p += strcspn (p, " ");
    }
  return (pid_t) atoi (p);
}

/* Runs the host's ps (no shell) and returns its stdout for reading. */
static FILE *
run_ps (char **ps_args, pid_t *child, agentrt_error_t *err)
{
  static char *default_args[] = { (char *) "-ef", NULL };
  char **args = ps_args[0] ? ps_args : default_args;
  cleanup_free char **argv = NULL;
  size_t n = 0, i;
  int p[2];

  while (args[n])
    n++;
  argv = xzalloc ((n + 2) * sizeof *argv);
  argv[0] = (char *) "ps";
  for (i = 0; i < n; i++)
    argv[i + 1] = args[i];
  if (pipe2 (p, O_CLOEXEC) < 0)
    return agentrt_error (err, errno, "ps: pipe"), NULL;
  *child = fork ();
  if (*child == 0)
    {
      dup2 (p[1], STDOUT_FILENO);
      execvp ("ps", argv);
      _exit (127);
    }
  close (p[1]);
  if (*child < 0)
    {
      close (p[0]);
      return agentrt_error (err, errno, "ps: fork"), NULL;
    }
  return fdopen (p[0], "r");
}

static int
print_table (char **ps_args, const pid_t *pids, size_t n, agentrt_error_t *err)
{
  cleanup_free char *line = NULL;
  size_t cap = 0;
  pid_t child;
  FILE *f;
  int col = -1, status;

  f = run_ps (ps_args, &child, err);
  if (f == NULL)
    return -1;
  bool header = true;

  while (getline (&line, &cap, f) > 0)
    {
      if (header)
        col = pid_column (line);
      if (header || (col >= 0 && has_pid (pids, n, field_pid (line, col))))
        fputs (line, stdout);
      header = false;
    }
  fclose (f);
  while (waitpid (child, &status, 0) < 0 && errno == EINTR)
    ;
  if (col < 0)
    return agentrt_error (err, 0, "ps: no PID column in ps's output");
  return WIFEXITED (status) && WEXITSTATUS (status) == 0
             ? 0
             : agentrt_error (err, 0, "ps: the host's ps failed");
}

int
cmd_ps (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  static const struct option opts[] = { { "format", required_argument, NULL, 'f' },
                                        { NULL, 0, NULL, 0 } };
  cleanup_free pid_t *pids = NULL;
  const char *format = "table";
  struct container c;
  size_t n = 0, i;
  int ch, r;

  opterr = 0;
  optind = 0;
  while ((ch = getopt_long_only (argc, argv, "+:f:", opts, NULL)) != -1)
    {
      if (ch != 'f')
        return cmd_option_error (argv, ch, err);
      format = optarg;
    }
  if (strcmp (format, "table") && strcmp (format, "json"))
    return agentrt_error (err, 0, "ps: invalid format `%s`", format);
  if (cmd_check_args (argc, optind, 1, 1 << 20, "ps [--format table|json] ID "
                      "[PS_ARGS...]", err) < 0)
    return -1;
  if (container_load (&g->rt, argv[optind], &c, err) < 0)
    return -1;
  r = container_pids (&c, &pids, &n, err);
  container_release (&c);
  if (r < 0)
    return -1;
  if (strcmp (format, "table") == 0)
    return print_table (argv + optind + 1, pids, n, err) < 0 ? -1 : 0;
  printf ("[");
  for (i = 0; i < n; i++)
    printf ("%s%d", i ? "," : "", pids[i]);
  printf ("]\n");
  return 0;
}
