/* Turning config.json mounts into mount steps (see mount_plan.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/lsm_selinux.h"
#include "runtime/mount_idmap.h"
#include "runtime/mount_plan.h"
#include "runtime/policy/host_view.h"
#include "runtime/policy/paths.h"

enum opt_effect
{
  OPT_NOOP,
  OPT_ATTR,      /* set/clear a MOUNT_ATTR bit on this mount */
  OPT_RATTR,     /* the same, recursively */
  OPT_ATIME,     /* an atime mode (exclusive choices) */
  OPT_RATIME,
  OPT_BIND,
  OPT_RBIND,
  OPT_PROPAGATION,
  OPT_COPYUP,
  OPT_SB_FLAG,   /* a superblock flag fsconfig understands */
  OPT_IDMAP,     /* idmap (ridmap: recursive) */
};

struct mount_option
{
  const char *name;
  enum opt_effect effect;
  uint64_t attr;  /* MOUNT_ATTR_* or propagation flag */
  bool clear;     /* the option turns the attribute off */
  bool recursive; /* propagation applied recursively */
};

static const struct mount_option mount_options[] = {
  { "defaults", OPT_NOOP, 0, false, false },
  { "ro", OPT_ATTR, MOUNT_ATTR_RDONLY, false, false },
  { "rw", OPT_ATTR, MOUNT_ATTR_RDONLY, true, false },
  { "nosuid", OPT_ATTR, MOUNT_ATTR_NOSUID, false, false },
  { "suid", OPT_ATTR, MOUNT_ATTR_NOSUID, true, false },
  { "nodev", OPT_ATTR, MOUNT_ATTR_NODEV, false, false },
  { "dev", OPT_ATTR, MOUNT_ATTR_NODEV, true, false },
  { "noexec", OPT_ATTR, MOUNT_ATTR_NOEXEC, false, false },
  { "exec", OPT_ATTR, MOUNT_ATTR_NOEXEC, true, false },
  { "nodiratime", OPT_ATTR, MOUNT_ATTR_NODIRATIME, false, false },
  { "diratime", OPT_ATTR, MOUNT_ATTR_NODIRATIME, true, false },
  { "nosymfollow", OPT_ATTR, MOUNT_ATTR_NOSYMFOLLOW, false, false },
  { "symfollow", OPT_ATTR, MOUNT_ATTR_NOSYMFOLLOW, true, false },
  { "noatime", OPT_ATIME, MOUNT_ATTR_NOATIME, false, false },
  { "relatime", OPT_ATIME, MOUNT_ATTR_RELATIME, false, false },
  { "strictatime", OPT_ATIME, MOUNT_ATTR_STRICTATIME, false, false },
  { "atime", OPT_ATIME, MOUNT_ATTR_RELATIME, false, false },
  { "norelatime", OPT_ATIME, MOUNT_ATTR_STRICTATIME, false, false },
  { "nostrictatime", OPT_ATIME, MOUNT_ATTR_RELATIME, false, false },
  { "rro", OPT_RATTR, MOUNT_ATTR_RDONLY, false, false },
  { "rrw", OPT_RATTR, MOUNT_ATTR_RDONLY, true, false },
  { "rnosuid", OPT_RATTR, MOUNT_ATTR_NOSUID, false, false },
  { "rsuid", OPT_RATTR, MOUNT_ATTR_NOSUID, true, false },
  { "rnodev", OPT_RATTR, MOUNT_ATTR_NODEV, false, false },
  { "rdev", OPT_RATTR, MOUNT_ATTR_NODEV, true, false },
  { "rnoexec", OPT_RATTR, MOUNT_ATTR_NOEXEC, false, false },
  { "rexec", OPT_RATTR, MOUNT_ATTR_NOEXEC, true, false },
  { "rnodiratime", OPT_RATTR, MOUNT_ATTR_NODIRATIME, false, false },
  { "rdiratime", OPT_RATTR, MOUNT_ATTR_NODIRATIME, true, false },
  { "rnosymfollow", OPT_RATTR, MOUNT_ATTR_NOSYMFOLLOW, false, false },
  { "rsymfollow", OPT_RATTR, MOUNT_ATTR_NOSYMFOLLOW, true, false },
  { "rnoatime", OPT_RATIME, MOUNT_ATTR_NOATIME, false, false },
  { "rrelatime", OPT_RATIME, MOUNT_ATTR_RELATIME, false, false },
  { "rstrictatime", OPT_RATIME, MOUNT_ATTR_STRICTATIME, false, false },
  { "ratime", OPT_RATIME, MOUNT_ATTR_RELATIME, false, false },
  { "bind", OPT_BIND, 0, false, false },
  { "rbind", OPT_RBIND, 0, false, false },
  { "private", OPT_PROPAGATION, MS_PRIVATE, false, false },
  { "rprivate", OPT_PROPAGATION, MS_PRIVATE, false, true },
  { "shared", OPT_PROPAGATION, MS_SHARED, false, false },
  { "rshared", OPT_PROPAGATION, MS_SHARED, false, true },
  { "slave", OPT_PROPAGATION, MS_SLAVE, false, false },
  { "rslave", OPT_PROPAGATION, MS_SLAVE, false, true },
  { "unbindable", OPT_PROPAGATION, MS_UNBINDABLE, false, false },
  { "runbindable", OPT_PROPAGATION, MS_UNBINDABLE, false, true },
  { "tmpcopyup", OPT_COPYUP, 0, false, false },
  { "notmpcopyup", OPT_NOOP, 0, false, false },
  { "sync", OPT_SB_FLAG, 0, false, false },
  { "dirsync", OPT_SB_FLAG, 0, false, false },
  { "mand", OPT_SB_FLAG, 0, false, false },
  { "lazytime", OPT_SB_FLAG, 0, false, false },
  { "async", OPT_NOOP, 0, false, false },
  { "nomand", OPT_NOOP, 0, false, false },
  { "nolazytime", OPT_NOOP, 0, false, false },
  { "silent", OPT_NOOP, 0, false, false },
  { "loud", OPT_NOOP, 0, false, false },
  { "remount", OPT_NOOP, 0, false, false },
  { "z", OPT_NOOP, 0, false, false }, /* SELinux relabel: done by the engine */
  { "Z", OPT_NOOP, 0, false, false },
  { "idmap", OPT_IDMAP, 0, false, false },
  { "ridmap", OPT_IDMAP, 0, false, true },
};

const char *
mount_plan_option_name (size_t i)
{
  return i < sizeof mount_options / sizeof mount_options[0]
             ? mount_options[i].name
             : NULL;
}

static const struct mount_option *
find_option (const char *name)
{
  size_t i;
  for (i = 0; i < sizeof mount_options / sizeof mount_options[0]; i++)
    if (strcmp (mount_options[i].name, name) == 0)
      return &mount_options[i];
  return NULL;
}

static void
apply_attr (uint64_t *set, uint64_t *clr, uint64_t attr, bool clear)
{
  if (clear)
    {
      *set &= ~attr;
      *clr |= attr;
    }
  else
    {
      *set |= attr;
      *clr &= ~attr;
    }
}

static void
apply_atime (uint64_t *set, uint64_t *clr, uint64_t mode)
{
  *set = (*set & ~(uint64_t) MOUNT_ATTR__ATIME) | mode;
  *clr |= MOUNT_ATTR__ATIME;
}

static void
add_param (struct mount_step *step, const char *key, const char *value)
{
  step->params = xreallocarray (step->params, step->n_params + 1,
                                sizeof *step->params);
  step->params[step->n_params].key = key;
  step->params[step->n_params].value = value;
  step->n_params++;
}

/* Strings the plan allocates (data option copies, absolute sources) are
 * kept in one list so that the steps can point into them. */
static char *
plan_keep (struct mount_plan *plan, char *s)
{
  plan->strings = xreallocarray (plan->strings, plan->n_strings + 1,
                                 sizeof *plan->strings);
  plan->strings[plan->n_strings++] = s;
  return s;
}

/* "key=value" becomes a string parameter, "key" a flag. */
static void
add_data_option (struct mount_plan *plan, struct mount_step *step,
                 const char *option)
{
  char *copy = plan_keep (plan, xstrdup (option));
  char *eq = strchr (copy, '=');
  if (eq)
    {
      *eq = '\0';
      add_param (step, copy, eq + 1);
    }
  else
    add_param (step, copy, NULL);
}

static int
parse_options (struct mount_plan *plan, const struct str_list *options,
               struct mount_step *step, size_t index, agentrt_error_t *err)
{
  size_t i;
  for (i = 0; options && i < options->len; i++)
    {
      const char *name = options->items[i];
      const struct mount_option *o = find_option (name);

      if (o == NULL)
        {
          if (strncmp (name, "x-", 2) != 0) /* x-*: userspace-only options */
            add_data_option (plan, step, name);
          continue;
        }
      switch (o->effect)
        {
        case OPT_NOOP:
          break;
        case OPT_ATTR:
          apply_attr (&step->attr_set, &step->attr_clr, o->attr, o->clear);
          break;
        case OPT_RATTR:
          apply_attr (&step->rattr_set, &step->rattr_clr, o->attr, o->clear);
          break;
        case OPT_ATIME:
          apply_atime (&step->attr_set, &step->attr_clr, o->attr);
          break;
        case OPT_RATIME:
          apply_atime (&step->rattr_set, &step->rattr_clr, o->attr);
          break;
        case OPT_BIND:
          step->kind = MOUNT_KIND_BIND;
          break;
        case OPT_RBIND:
          step->kind = MOUNT_KIND_BIND;
          step->recursive = true;
          break;
        case OPT_PROPAGATION:
          step->propagation = (unsigned long) o->attr;
          step->propagation_recursive = o->recursive;
          break;
        case OPT_COPYUP:
          step->copy_up = true;
          break;
        case OPT_SB_FLAG:
          add_param (step, o->name, NULL);
          break;
        case OPT_IDMAP:
          step->idmap = true;
          step->idmap_recursive = o->recursive;
          break;
        }
    }
  return 0;
}

static bool
fs_takes_context (const char *fstype)
{
  /* proc, sysfs, cgroup and bind mounts take no context= option */
  return strcmp (fstype, "tmpfs") == 0 || strcmp (fstype, "devpts") == 0
         || strcmp (fstype, "mqueue") == 0;
}

/* The open file of a bind source: the judged one, or opened here. */
static int
open_bind_source (const struct host_view *judged, const char *src,
                  const struct oci_mount *m, size_t index, int *owned,
                  agentrt_error_t *err)
{
  int fd;

  if (judged)
    {
      fd = host_view_source_fd (judged, src);
      if (fd < 0)
        return agentrt_error (err, EPERM, "mounts[%zu] (`%s`): source `%s` "
                              "was not checked by the hardening", index,
                              m->destination, src);
      return fd;
    }
  fd = *owned = open (src, O_PATH | O_CLOEXEC);
  if (fd < 0)
    return agentrt_error (err, errno, "mounts[%zu] (`%s`): source `%s`", index,
                          m->destination, src);
  return fd;
}

static int
plan_bind_source (struct mount_plan *plan, struct mount_step *step,
                  const struct oci_mount *m, const char *bundle,
                  const struct host_view *judged, size_t index,
                  agentrt_error_t *err)
{
  cleanup_close int owned = -1;
  struct stat st;
  const char *src = m->source;
  int fd;

  if (src == NULL || src[0] == '\0')
    return agentrt_error (err, 0, "mounts[%zu].source: a bind mount "
                          "needs a source", index);
  if (src[0] != '/')
    src = plan_keep (plan, xasprintf ("%s/%s", bundle, src));
  fd = open_bind_source (judged, src, m, index, &owned, err);
  if (fd < 0)
    return -1;
  if (fstat (fd, &st) < 0)
    return agentrt_error (err, errno, "mounts[%zu] (`%s`): source `%s`", index,
                          m->destination, src);
  step->source = src;
  step->dest_is_file = !S_ISDIR (st.st_mode);
  step->tree_fd = mount_copy_tree (fd, "", AT_EMPTY_PATH
                                               | (step->recursive ? AT_RECURSIVE : 0));
  /* Without CAP_SYS_ADMIN over the runtime's mount namespace (a rootless
   * runtime) the init copies the source by path in its own namespace; for
   * a hardened container only the file that was judged: the init checks
   * that what it opened (no symlink followed) is that file. */
  if (step->tree_fd < 0 && errno != EPERM)
    return agentrt_error (err, errno, "mounts[%zu] (`%s`): copy the source "
                          "`%s`", index, m->destination, src);
  if (step->tree_fd < 0 && judged)
    {
      step->judged_reopen = true;
      step->judged_dev = st.st_dev;
      step->judged_ino = st.st_ino;
    }
  return 0;
}

static int
plan_one (struct mount_plan *plan, const struct oci_config *config,
          const struct oci_mount *m, const char *bundle,
          const struct host_view *judged, const char *mount_label,
          size_t index, agentrt_error_t *err)
{
  struct mount_step *step;

  plan->steps = xreallocarray (plan->steps, plan->n_steps + 1,
                               sizeof *plan->steps);
  step = &plan->steps[plan->n_steps];
  memset (step, 0, sizeof *step);
  step->tree_fd = -1;
  step->destination = m->destination;
  step->fstype = m->type;
  step->source = m->source;
  if (m->type && strcmp (m->type, "bind") == 0)
    step->kind = MOUNT_KIND_BIND;
  if (parse_options (plan, &m->options, step, index, err) < 0)
    {
      free (step->params);
      return -1;
    }
  plan->n_steps++;
  /* mappings without the option are an idmap all the same */
  if (m->n_uid_mappings || m->n_gid_mappings)
    step->idmap = true;
  if (step->kind == MOUNT_KIND_BIND
      && plan_bind_source (plan, step, m, bundle, judged, index, err) < 0)
    return -1;
  if (step->idmap)
    return mount_idmap_apply (plan, step, m, config, index, err);
  if (step->kind == MOUNT_KIND_BIND)
    return 0;

  if (m->type == NULL || m->type[0] == '\0')
    return agentrt_error (err, 0, "mounts[%zu].type: required for a "
                          "mount that is not a bind mount", index);
  if (strcmp (m->type, "cgroup") == 0)
    step->kind = MOUNT_KIND_CGROUP;
  if (step->source == NULL || step->source[0] == '\0')
    step->source = m->type;
  if (mount_label && mount_label[0] && fs_takes_context (m->type))
    add_param (step, "context",
               plan_keep (plan, xasprintf ("\"%s\"", mount_label)));
  return 0;
}

int
mount_plan_build (const struct oci_config *config, const char *bundle,
                  const struct host_view *judged, struct mount_plan *plan,
                  agentrt_error_t *err)
{
  const char *label = NULL;
  size_t i;

  memset (plan, 0, sizeof *plan);
  plan->container_userns_fd = -1;
  if (config->linux_cfg && config->linux_cfg->mount_label
      && selinux_enabled ())
    label = config->linux_cfg->mount_label;

  for (i = 0; i < config->n_mounts; i++)
    {
      const struct oci_mount *m = &config->mounts[i];
      if (plan_one (plan, config, m, bundle, judged, label, i, err) < 0)
        {
          mount_plan_free (plan);
          return -1;
        }
      if (strcmp (m->destination, "/dev") == 0)
        {
          plan->has_dev_mount = true;
          plan->dev_is_bind = plan->steps[plan->n_steps - 1].kind
                              == MOUNT_KIND_BIND;
        }
      if (strcmp (m->destination, "/dev/pts") == 0 && m->type
          && strcmp (m->type, "devpts") == 0)
        plan->has_pts = true;
    }
  return 0;
}

void
mount_plan_defer_sysfs (struct mount_plan *plan)
{
  for (size_t i = 0; i < plan->n_steps; i++)
    {
      const struct mount_step *s = &plan->steps[i];
      if (s->kind != MOUNT_KIND_FS || strcmp (s->fstype, "sysfs") != 0)
        continue;
      cleanup_free char *sys = path_clean (s->destination);
      for (size_t k = i; k < plan->n_steps; k++)
        {
          cleanup_free char *dest = path_clean (plan->steps[k].destination);
          if (path_is_under (dest, sys))
            plan->steps[k].deferred = true;
        }
    }
}

void
mount_plan_add_file (struct mount_plan *plan, const char *destination,
                     int tree_fd)
{
  struct mount_step *s;

  plan->steps = xreallocarray (plan->steps, plan->n_steps + 1, sizeof *plan->steps);
  s = &plan->steps[plan->n_steps++];
  memset (s, 0, sizeof *s);
  s->kind = MOUNT_KIND_BIND;
  s->destination = plan_keep (plan, xstrdup (destination));
  s->source = s->destination; /* for errors: the runtime's own file */
  s->tree_fd = tree_fd;
  s->dest_is_file = true;
  s->attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV
                | MOUNT_ATTR_NOEXEC;
}

void
mount_plan_free (struct mount_plan *plan)
{
  size_t i;
  for (i = 0; i < plan->n_steps; i++)
    {
      free (plan->steps[i].params);
      if (plan->steps[i].tree_fd >= 0)
        close (plan->steps[i].tree_fd);
    }
  free (plan->steps);
  for (i = 0; i < plan->n_strings; i++)
    free (plan->strings[i]);
  free (plan->strings);
  if (plan->container_userns_fd >= 0)
    close (plan->container_userns_fd);
  memset (plan, 0, sizeof *plan);
  plan->container_userns_fd = -1;
}

int
mount_copy_tree (int dirfd, const char *path, unsigned int flags)
{
  struct mount_attr slave = { .propagation = MS_SLAVE };
  int fd = open_tree (dirfd, path, flags | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
  int e;

  if (fd < 0
      || mount_setattr (fd, "", AT_EMPTY_PATH | (flags & AT_RECURSIVE), &slave,
                        sizeof slave) == 0)
    return fd;
  e = errno;
  close (fd);
  errno = e;
  return -1;
}
