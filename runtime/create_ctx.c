/* The create context: the rollback of a failed create, state.json saved
 * as each resource comes to exist, and which failure is reported. */
#include "config.h"

#include <sys/wait.h>

#include "common/cleanup.h"
#include "runtime/log.h"
#include "runtime/sync.h"

#include "runtime/create_ctx.h"
#include "runtime/idrange_store.h"

void
create_rollback_run (struct rollback *rb)
{
  cleanup_error agentrt_error_t ignored = NULL;
  monitor_local_free (rb->local_monitor);
  if (rb->monitor.monitor > 0)
    {
      kill (rb->monitor.monitor, SIGKILL);
      waitpid (rb->monitor.monitor, NULL, 0);
    }
  if (rb->pid > 0)
    {
      kill (rb->pid, SIGKILL);
      while (waitpid (rb->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    }
  if (rb->cgroup)
    {
      cgroup_kill_all (rb->cgroup, SIGKILL, &ignored);
      agentrt_error_release (&ignored);
      if (cgroup_destroy (rb->cgroup, &ignored) < 0)
        log_warning ("%s", ignored->msg);
      cgroup_free (rb->cgroup);
    }
  if (rb->userns_id
      && idrange_store_release (rb->userns_root, rb->userns_id, true,
                                rb->userns_uid, &ignored) < 0)
    {
      log_warning ("%s", ignored->msg);
      agentrt_error_release (&ignored);
    }
  if (rb->have_dir && state_dir_remove (&rb->dir, &ignored) < 0)
    log_warning ("%s", ignored->msg);
}

int
create_save (struct create_ctx *ctx, agentrt_error_t *err)
{
  return state_dir_save (&ctx->rb.dir, &ctx->state, err);
}

/* A step that failed while the init sets itself up: the init may have
 * failed on its own meanwhile, and then that is the reason.  Returns -1. */
int
create_prefer_init_reason (struct create_ctx *ctx, agentrt_error_t *err)
{
  struct sync_msg msg;
  if (ctx->sock >= 0 && sync_recv_nowait (ctx->sock, &msg) == 0
      && msg.type == SYNC_ERROR)
    {
      msg.error.msg[sizeof msg.error.msg - 1] = '\0';
      agentrt_error_release (err);
      agentrt_error_verbatim (err, msg.error.status, msg.error.msg);
    }
  return -1;
}
