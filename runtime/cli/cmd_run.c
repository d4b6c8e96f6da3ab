/* `agentrt run [create options] [--detach] [--keep] ID`: create, start and,
 * unless detached, wait for the container's init, forwarding signals (and
 * the terminal when the bundle asks for one) and, hardened, being its
 * monitor; exit with the init's status, 128+N when it was killed by signal
 * N, then delete the container.
 * Every signal is blocked before the init exists, so that none is lost
 * between its creation and the supervision loop (a signalfd). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>

#include "runtime/cli/cmd_create_options.h"
#include "runtime/cli/commands.h"
#include "runtime/container.h"
#include "runtime/log.h"
#include "runtime/monitor.h"
#include "runtime/supervise.h"

/* Quiet when the container is gone already (a `delete --force` from
 * elsewhere ended it). */
static int
delete_container (struct global_options *g, const char *id)
{
  agentrt_error_t err = NULL;
  struct container c;
  int r = container_load (&g->rt, id, &c, &err);
  if (r == 0)
    {
      r = container_delete (&c, true, &err);
      container_release (&c);
    }
  else if (err->status == ENOENT)
    {
      agentrt_error_release (&err);
      return 0;
    }
  if (r < 0)
    {
      log_warning ("delete `%s`: %s", id, err->msg);
      agentrt_error_release (&err);
    }
  return r;
}

static int
start_it (struct global_options *g, const char *id, agentrt_error_t *err)
{
  struct container c;
  int r;
  if (container_load (&g->rt, id, &c, err) < 0)
    return -1;
  r = container_start (&c, err);
  container_release (&c);
  return r;
}

int
cmd_run (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  struct create_request req = { 0 };
  struct create_outcome out = { .pid = 0, .pty_master = -1 };
  struct run_only_options ro = { 0 };
  sigset_t all, old;
  int first, code;

  first = create_options_parse (argc, argv, &req, &ro, err);
  if (first < 0 || cmd_check_args (argc, first, 1, 1, "run [options] ID", err) < 0)
    return -1;
  req.id = argv[first];
  req.keep_pty_master = !ro.detach && req.console_socket == NULL;
  /* in the foreground, `run` lives as long as the container: it is the
   * container's monitor itself (no process of its own to fork) */
  req.local_monitor = !ro.detach;

  /* Signals are read from a signalfd once the init exists. */
  sigfillset (&all);
  sigprocmask (SIG_BLOCK, &all, &old);
  if (!ro.detach)
    prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  if (container_create (&g->rt, &req, &out, err) < 0)
    return -1;
  if (start_it (g, req.id, err) < 0)
    {
      delete_container (g, req.id);
      monitor_local_free (out.local_monitor);
      return -1;
    }
  if (ro.detach)
    return 0;
  code = supervise_process (out.pid, out.local_monitor, out.pty_master, err);
  monitor_local_free (out.local_monitor);
  if (!ro.keep)
    delete_container (g, req.id);
  return code;
}
