/* `agentrt list [--format table|json] [--quiet]`: every container under
 * --root, as runc prints them. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cli/commands.h"
#include "runtime/container.h"

struct listing
{
  struct container_state **states;
  enum container_status *statuses;
  size_t n;
};

static void
listing_free (struct listing *l)
{
  size_t i;
  for (i = 0; i < l->n; i++)
    container_state_free (l->states[i]);
  free (l->states);
  free (l->statuses);
}

/* Containers that vanish or are half-created while we look are skipped. */
static int
collect (struct global_options *g, struct listing *l, agentrt_error_t *err)
{
  char **ids = NULL;
  size_t n = 0, i;

  if (state_list_ids (g->rt.root, &ids, &n, err) < 0)
    return -1;
  l->states = xzalloc ((n + 1) * sizeof *l->states);
  l->statuses = xzalloc ((n + 1) * sizeof *l->statuses);
  for (i = 0; i < n; i++)
    {
      cleanup_error agentrt_error_t ignored = NULL;
      struct container c;
      if (container_load (&g->rt, ids[i], &c, &ignored) == 0 && c.state)
        {
          l->statuses[l->n] = container_status (&c);
          l->states[l->n++] = steal_pointer (&c.state);
        }
      if (ignored == NULL)
        container_release (&c);
      free (ids[i]);
    }
  free (ids);
  return 0;
}

static void
print_table (const struct listing *l)
{
  size_t i, w_id = 2, w_pid = 3, w_status = 6, w_bundle = 6, w_created = 7;
  char pid[32];

  for (i = 0; i < l->n; i++)
    {
      const struct container_state *s = l->states[i];
      size_t len = strlen (s->id);
      w_id = len > w_id ? len : w_id;
      snprintf (pid, sizeof pid, "%d", l->statuses[i] == STATUS_STOPPED ? 0 : s->pid);
      w_pid = strlen (pid) > w_pid ? strlen (pid) : w_pid;
      len = strlen (container_status_name (l->statuses[i]));
      w_status = len > w_status ? len : w_status;
      len = strlen (s->bundle);
      w_bundle = len > w_bundle ? len : w_bundle;
      len = strlen (s->created);
      w_created = len > w_created ? len : w_created;
    }
  printf ("%-*s   %-*s   %-*s   %-*s   %-*s   %s\n", (int) w_id, "ID",
          (int) w_pid, "PID", (int) w_status, "STATUS", (int) w_bundle,
          "BUNDLE", (int) w_created, "CREATED", "OWNER");
  for (i = 0; i < l->n; i++)
    {
      const struct container_state *s = l->states[i];
      snprintf (pid, sizeof pid, "%d", l->statuses[i] == STATUS_STOPPED ? 0 : s->pid);
      printf ("%-*s   %-*s   %-*s   %-*s   %-*s   %s\n", (int) w_id, s->id,
              (int) w_pid, pid, (int) w_status,
              container_status_name (l->statuses[i]), (int) w_bundle,
              s->bundle, (int) w_created, s->created,
              s->owner[0] ? s->owner : "root");
    }
}

int
cmd_list (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  static const struct option opts[] = {
    { "format", required_argument, NULL, 'f' },
    { "quiet", no_argument, NULL, 'q' },
    { NULL, 0, NULL, 0 },
  };
  const char *format = "table";
  struct listing l = { 0 };
  bool quiet = false;
  size_t i;
  int c;

  opterr = 0;
  optind = 0;
  while ((c = getopt_long_only (argc, argv, "+:f:q", opts, NULL)) != -1)
    {
      if (c == 'f')
        format = optarg;
      else if (c == 'q')
        quiet = true;
      else
        return cmd_option_error (argv, c, err);
    }
  if (strcmp (format, "table") && strcmp (format, "json"))
    return agentrt_error (err, 0, "list: invalid format `%s`", format);
  if (cmd_check_args (argc, optind, 0, 0, "list [--format table|json] [-q]",
                      err) < 0
      || collect (g, &l, err) < 0)
    return -1;
  if (quiet)
    for (i = 0; i < l.n; i++)
      printf ("%s\n", l.states[i]->id);
  else if (strcmp (format, "json") == 0)
    {
      cleanup_free char *json = container_state_list_json (
          (struct container_state *const *) l.states, l.statuses, l.n, err);
      if (json == NULL)
        {
          listing_free (&l);
          return -1;
        }
      printf ("%s\n", json);
    }
  else
    print_table (&l);
  listing_free (&l);
  return 0;
}
