/* `agentrt audit ID`: prints a container's audit trail (JSON lines), also
 * after it was deleted. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/audit.h"
#include "runtime/commands.h"
#include "runtime/container.h"
#include "runtime/hardening.h"

/* The trail's directory: the one recorded at create, else the policy's. */
static char *
trail_dir (struct global_options *g, const char *id, agentrt_error_t *err)
{
  cleanup_error agentrt_error_t ignored = NULL;
  struct agent_policy policy;
  struct container c;
  char *dir = NULL;

  if (container_load (&g->rt, id, &c, &ignored) == 0)
    {
      if (c.state && c.state->audit_dir)
        dir = xstrdup (c.state->audit_dir);
      container_release (&c);
      if (dir)
        return dir;
    }
  if (hardening_load_policy (&g->rt, &policy, NULL, err) < 0)
    return NULL;
  dir = xstrdup (policy.audit_dir);
  policy_release (&policy);
  return dir;
}

int
cmd_audit (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  cleanup_free char *dir = NULL;
  cleanup_close int fd = -1;
  char buf[65536];
  ssize_t n;

  if (cmd_check_args (argc, 1, 1, 1, "audit ID", err) < 0)
    return -1;
  if (!state_id_valid (argv[1]))
    return agentrt_error (err, 0, "invalid container id `%s`", argv[1]);
  dir = trail_dir (g, argv[1], err);
  if (dir == NULL)
    return -1;
  /* the same checks as for writing it: a trail someone else could have
   * written or redirected is not printed */
  fd = audit_open_read (dir, argv[1], err);
  if (fd < 0 && (*err)->status == ENOENT)
    {
      cleanup_free char *path = audit_path (dir, argv[1]);
      agentrt_error_release (err);
      return agentrt_error (err, ENOENT, "no audit trail for `%s` (`%s`)",
                            argv[1], path);
    }
  if (fd < 0)
    return -1;
  while ((n = read (fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0 && fwrite (buf, 1, (size_t) n, stdout) != (size_t) n)
      return agentrt_error (err, errno, "write");
  if (n < 0)
    {
      cleanup_free char *path = audit_path (dir, argv[1]);
      return agentrt_error (err, errno, "read `%s`", path);
    }
  return 0;
}
