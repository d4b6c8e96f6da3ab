/* `agentrt pause ID` and `agentrt resume ID`: the cgroup freezer (v1
 * freezer.state, v2 cgroup.freeze). */
#include "config.h"

#include <errno.h>

#include "runtime/cli/commands.h"
#include "runtime/container.h"

static int
freeze_or_thaw (struct global_options *g, int argc, char **argv, bool freeze,
                agentrt_error_t *err)
{
  enum container_status status;
  struct container c;
  struct cgroup *cg;
  int r;

  if (cmd_check_args (argc, 1, 1, 1, freeze ? "pause ID" : "resume ID", err) < 0)
    return -1;
  if (container_load (&g->rt, argv[1], &c, err) < 0)
    return -1;
  status = container_status (&c);
  if (freeze ? status != STATUS_RUNNING && status != STATUS_CREATED
             : status != STATUS_PAUSED)
    {
      container_release (&c);
      return agentrt_error (err, 0, "container `%s` is %s: cannot %s it",
                            argv[1], container_status_name (status),
                            freeze ? "pause" : "resume");
    }
  cg = container_cgroup (&c, err);
  if (cg == NULL)
    r = *err ? -1
             : agentrt_error (err, ENOTSUP, "%s: container `%s` has no cgroup "
                              "to freeze (a runtime that is not root makes "
                              "one only in a delegated cgroup v2 subtree: "
                              "docs/cgroups.md)",
                              freeze ? "pause" : "resume", argv[1]);
  else
    r = freeze ? cgroup_freeze (cg, err) : cgroup_thaw (cg, err);
  cgroup_free (cg);
  container_release (&c);
  return r < 0 ? -1 : 0;
}

int
cmd_pause (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  return freeze_or_thaw (g, argc, argv, true, err);
}

int
cmd_resume (struct global_options *g, int argc, char **argv,
            agentrt_error_t *err)
{
  return freeze_or_thaw (g, argc, argv, false, err);
}
