/* Building the process of `agentrt exec` (see exec_process.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "runtime/exec_process.h"

static int
parse_id (const char *s, uint32_t *out, const char *what, agentrt_error_t *err)
{
  char *end;
  unsigned long v;
  errno = 0;
  v = strtoul (s, &end, 10);
  if (errno || end == s || *end || v > UINT32_MAX || s[0] == '-')
    return agentrt_error (err, 0, "%s: `%s` is not a numeric id", what, s);
  *out = (uint32_t) v;
  return 0;
}

static int
apply_user (struct oci_process *p, const char *user, agentrt_error_t *err)
{
  cleanup_free char *copy = xstrdup (user);
  char *colon = strchr (copy, ':');
  if (colon)
    *colon = '\0';
  if (parse_id (copy, &p->user.uid, "--user", err) < 0)
    return -1;
  if (colon && parse_id (colon + 1, &p->user.gid, "--user", err) < 0)
    return -1;
  return 0;
}

static void
env_set (struct str_list *env, const char *entry)
{
  size_t len = strcspn (entry, "="), i;
  for (i = 0; i < env->len; i++)
    if (strncmp (env->items[i], entry, len) == 0 && env->items[i][len] == '=')
      {
        free (env->items[i]);
        env->items[i] = xstrdup (entry);
        return;
      }
  str_list_append (env, entry);
}

static int
apply_flags (struct oci_process *p, const struct exec_options *o,
             agentrt_error_t *err)
{
  size_t i;

  str_list_free (&p->args);
  for (i = 0; o->command[i]; i++)
    str_list_append (&p->args, o->command[i]);
  for (i = 0; i < o->env.len; i++)
    {
      if (strchr (o->env.items[i], '=') == NULL)
        return agentrt_error (err, 0, "--env: `%s` is not NAME=VALUE",
                              o->env.items[i]);
      env_set (&p->env, o->env.items[i]);
    }
  if (o->cwd)
    {
      free (p->cwd);
      p->cwd = xstrdup (o->cwd);
    }
  if (o->user && apply_user (p, o->user, err) < 0)
    return -1;
  for (i = 0; i < o->extra_gids.len; i++)
    {
      uint32_t gid;
      if (parse_id (o->extra_gids.items[i], &gid, "--additional-gids", err) < 0)
        return -1;
      p->user.additional_gids = xreallocarray (p->user.additional_gids,
                                               p->user.n_additional_gids + 1,
                                               sizeof gid);
      p->user.additional_gids[p->user.n_additional_gids++] = gid;
    }
  if (o->caps.len && p->capabilities == NULL)
    p->capabilities = xzalloc (sizeof *p->capabilities);
  for (i = 0; i < o->caps.len; i++)
    {
      /* not inheritable: that is how CVE-2022-29162 spread capabilities */
      str_list_append (&p->capabilities->bounding, o->caps.items[i]);
      str_list_append (&p->capabilities->effective, o->caps.items[i]);
      str_list_append (&p->capabilities->permitted, o->caps.items[i]);
    }
  if (o->no_new_privs)
    p->no_new_privileges = true;
  return 0;
}

/* An exec --process file (or a pipe: /dev/stdin) larger than this is
 * refused: a process object is a few KiB. */
#define EXEC_PROCESS_FILE_MAX (4 * 1024 * 1024)

static struct oci_process *
read_process_file (const char *path, agentrt_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  cleanup_free char *buf = NULL;
  size_t len;

  if (fd < 0 || io_read_all (fd, EXEC_PROCESS_FILE_MAX, &buf, &len) < 0)
    return agentrt_error (err, errno, "--process `%s`", path), NULL;
  return oci_process_parse (buf, len, path, err);
}

struct oci_process *
exec_process_build (const struct exec_options *opts,
                    const struct oci_process *container, agentrt_error_t *err)
{
  struct oci_process *p;

  if (opts->process_file)
    {
      p = read_process_file (opts->process_file, err);
      if (p && opts->tty)
        p->terminal = true;
      return p;
    }
  if (opts->command == NULL || opts->command[0] == NULL)
    return agentrt_error (err, 0, "exec: a command or --process is "
                          "required"), NULL;
  p = container ? oci_process_dup (container) : xzalloc (sizeof *p);
  if (p->cwd == NULL)
    p->cwd = xstrdup ("/");
  p->terminal = opts->tty;
  p->has_console_size = false;
  if (opts->apparmor)
    {
      free (p->apparmor_profile);
      p->apparmor_profile = xstrdup (opts->apparmor);
    }
  if (opts->process_label)
    {
      free (p->selinux_label);
      p->selinux_label = xstrdup (opts->process_label);
    }
  if (apply_flags (p, opts, err) < 0)
    {
      oci_process_free (p);
      return NULL;
    }
  return p;
}
