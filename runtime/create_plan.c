/* Computing the init's plan before the clone (see create_plan.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>


#include "common/cleanup.h"
#include "runtime/lsm_selinux.h"
#include "common/real_path.h"
#include "common/xalloc.h"
#include "runtime/create_plan.h"
#include "runtime/exec_stub.h"
#include "runtime/log.h"
#include "runtime/mount_idmap.h"
#include "runtime/userns.h"
#include "runtime/policy/paths.h"
#include "runtime/seccomp/seccomp_cache.h"

static bool
has_new_ns (const struct oci_config *c, enum oci_namespace_type t)
{
  const struct oci_namespace *ns = oci_config_namespace (c, t);
  return ns && (ns->path == NULL || ns->path[0] == '\0');
}

static bool
has_ns (const struct oci_config *c, enum oci_namespace_type t)
{
  return oci_config_namespace (c, t) != NULL;
}

static int
check_namespaces (const struct oci_config *c, agentrt_error_t *err)
{
  const struct oci_linux *l = c->linux_cfg;

  if (has_new_ns (c, OCI_NS_USER) && (l->n_uid_mappings == 0 || l->n_gid_mappings == 0))
    return agentrt_error (err, 0, "linux.uidMappings: a new user "
                          "namespace needs uidMappings and gidMappings");
  /* with one joined by path they must be its own (checked once open) */
  if (!has_ns (c, OCI_NS_USER) && (l->n_uid_mappings || l->n_gid_mappings))
    return agentrt_error (err, 0, "linux.uidMappings: mappings need a "
                          "user namespace");
  /* a joined uts namespace is the container's too (runc sets it there) */
  if (c->hostname && c->hostname[0] && !has_ns (c, OCI_NS_UTS))
    return agentrt_error (err, 0, "hostname: setting it needs a uts "
                          "namespace of the container's own");
  if (c->domainname && c->domainname[0] && !has_ns (c, OCI_NS_UTS))
    return agentrt_error (err, 0, "domainname: setting it needs a uts "
                          "namespace of the container's own");
  if ((l->time_offset_boottime.present || l->time_offset_monotonic.present)
      && !has_new_ns (c, OCI_NS_TIME))
    return agentrt_error (err, 0, "linux.timeOffsets: need a new time "
                          "namespace");
  return 0;
}

static const char *const ipc_sysctls[] = {
  "kernel.msgmax", "kernel.msgmnb",  "kernel.msgmni",
  "kernel.sem",    "kernel.shmall",  "kernel.shmmax",
  "kernel.shmmni", "kernel.shm_rmid_forced",
};

/* Which namespace owns a sysctl, so that it never touches the host. */
static int
sysctl_namespace (const char *key)
{
  size_t i;
  for (i = 0; i < sizeof ipc_sysctls / sizeof ipc_sysctls[0]; i++)
    if (strcmp (key, ipc_sysctls[i]) == 0)
      return OCI_NS_IPC;
  if (strncmp (key, "fs.mqueue.", 10) == 0)
    return OCI_NS_IPC;
  if (strncmp (key, "net.", 4) == 0)
    return OCI_NS_NETWORK;
  if (strcmp (key, "kernel.hostname") == 0
      || strcmp (key, "kernel.domainname") == 0)
    return OCI_NS_UTS;
  return -1;
}

/* The uts name sysctls have fields of their own: kernel.hostname is
 * refused (runc and crun refuse it), kernel.domainname only when it
 * contradicts a domainname the config sets (crun's rule; runc takes it). */
static int
sysctl_conflicts (const struct oci_config *config, const char *key,
                  const char *value, agentrt_error_t *err)
{
  const char *dn = config->domainname;

  if (strcmp (key, "kernel.hostname") == 0)
    return agentrt_error (err, 0, "linux.sysctl: `%s` conflicts with the "
                          "`hostname` field: set the hostname there", key);
  if (strcmp (key, "kernel.domainname") == 0 && dn && dn[0]
      && strcmp (value, dn) != 0)
    return agentrt_error (err, 0, "linux.sysctl: `%s` = `%s` conflicts with "
                          "the `domainname` field (`%s`)", key, value, dn);
  return 0;
}

int
create_plan_sysctls (const struct oci_config *config, struct sysctl_entry **out,
                     size_t *n, agentrt_error_t *err)
{
  const struct kv_list *sys = &config->linux_cfg->sysctl;
  struct sysctl_entry *list;
  size_t i;

  *out = NULL;
  *n = 0;
  if (sys->len == 0)
    return 0;
  list = xzalloc (sys->len * sizeof *list);
  for (i = 0; i < sys->len; i++)
    {
      const char *key = sys->items[i].key;
      int ns = sysctl_namespace (key);
      char *path, *p;

      if (strstr (key, "..") || strchr (key, '/') || key[0] == '.')
        goto bad_key;
      if (ns < 0)
        {
          free (list);
          return agentrt_error (err, 0, "linux.sysctl: `%s` is not a "
                                "namespaced sysctl", key);
        }
      if (sysctl_conflicts (config, key, sys->items[i].value, err) < 0)
        {
          free (list);
          return -1;
        }
      if (ns == OCI_NS_NETWORK ? !has_ns (config, OCI_NS_NETWORK)
                               : !has_new_ns (config, ns))
        {
          free (list);
          return agentrt_error (err, 0, "linux.sysctl: `%s` needs the "
                                "container's own %s namespace", key,
                                oci_namespace_type_name (ns));
        }
      path = xstrdup (key);
      for (p = path; *p; p++)
        if (*p == '.')
          *p = '/';
      list[i].path = path;
      list[i].key = key;
      list[i].value = sys->items[i].value;
    }
  *out = list;
  *n = sys->len;
  return 0;
bad_key:
  free (list);
  return agentrt_error (err, 0, "linux.sysctl: invalid key `%s`",
                        sys->items[i].key);
}

static int
open_rootfs (const struct oci_config *config, const char *bundle,
             struct create_plan *plan, agentrt_error_t *err)
{
  cleanup_free char *joined = NULL;
  const char *path = config->root.path;
  struct stat st;

  if (path == NULL || path[0] == '\0')
    return agentrt_error (err, 0, "root.path: required");
  if (path[0] != '/')
    path = joined = xasprintf ("%s/%s", bundle, path);
  plan->rootfs = real_path (path);
  if (plan->rootfs == NULL)
    return agentrt_error (err, errno, "root.path: `%s`", path);
  plan->rootfd = open (plan->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (plan->rootfd < 0 || fstat (plan->rootfd, &st) < 0)
    return agentrt_error (err, errno, "root.path: `%s`", plan->rootfs);
  if (strcmp (plan->rootfs, "/") == 0)
    return agentrt_error (err, 0, "root.path: the host's `/` cannot be "
                          "a container's root");
  return 0;
}

/* Defaults first; a bundle device with the same path replaces one.  Paths
 * are taken lexically clean ("/dev/foo/" is "/dev/foo", as runc and crun
 * take it). */
int
create_plan_devices (const struct oci_config *config, struct create_plan *plan,
                     agentrt_error_t *err)
{
  const struct oci_linux *l = config->linux_cfg;
  size_t n = devices_default_count, i, k;
  struct device_node *list = xzalloc ((n + l->n_devices) * sizeof *list);

  memcpy (list, devices_default, n * sizeof *list);
  plan->devices = list;
  plan->device_paths = xzalloc ((l->n_devices + 1) * sizeof (char *));
  for (i = 0; i < l->n_devices; i++)
    {
      const struct oci_device *d = &l->devices[i];
      char *path = plan->device_paths[i] = path_clean (d->path);
      struct device_node node = {
        .path = path,
        .type = d->type,
        .major = (unsigned int) d->major,
        .minor = (unsigned int) d->minor,
        .mode = d->has_file_mode ? (mode_t) d->file_mode : 0666,
        .uid = d->has_uid ? d->uid : 0,
        .gid = d->has_gid ? d->gid : 0,
      };
      if (strcmp (path, "/") == 0)
        return agentrt_error (err, 0, "linux.devices[%zu].path: `%s` names "
                              "the root directory", i, d->path);
      for (k = 0; k < n; k++)
        if (strcmp (list[k].path, path) == 0)
          break;
      list[k] = node;
      if (k == n)
        n++;
    }
  plan->init.devices.nodes = list;
  plan->init.devices.n_nodes = n;
  /* mknod is not allowed from a user namespace: bind the host's nodes */
  plan->init.devices.bind_from_host = has_ns (config, OCI_NS_USER);
  plan->init.devices.ptmx_link = plan->mounts.has_pts;
  return 0;
}

static int
parse_propagation (const char *name, unsigned long *flags, agentrt_error_t *err)
{
  static const struct
  {
    const char *name;
    unsigned long flags;
  } table[] = {
    { "private", MS_PRIVATE },      { "rprivate", MS_PRIVATE | MS_REC },
    { "shared", MS_SHARED },        { "rshared", MS_SHARED | MS_REC },
    { "slave", MS_SLAVE },          { "rslave", MS_SLAVE | MS_REC },
    { "unbindable", MS_UNBINDABLE }, { "runbindable", MS_UNBINDABLE | MS_REC },
  };
  size_t i;
  *flags = 0;
  if (name == NULL || name[0] == '\0')
    return 0;
  for (i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp (name, table[i].name) == 0)
      {
        *flags = table[i].flags;
        return 0;
      }
  return agentrt_error (err, 0, "linux.rootfsPropagation: unknown value "
                        "`%s`", name);
}

/* The container's own user namespace: the rootfs and every bind idmapped
 * (runtime/mount_idmap.h). */
static int
plan_auto_idmap (const struct oci_config *config, bool writable,
                 struct change_list *changes, struct create_plan *plan,
                 agentrt_error_t *err)
{
  const struct oci_linux *l = config->linux_cfg;
  struct mount_auto_idmap a;

  if (l->n_uid_mappings != 1 || l->n_gid_mappings != 1)
    return agentrt_error (err, EINVAL, "linux.uidMappings: the container's "
                          "own user namespace has one mapping");
  a.uid_start = l->uid_mappings[0].host_id;
  a.gid_start = l->gid_mappings[0].host_id;
  a.agent_uid = config->process->user.uid;
  a.agent_gid = config->process->user.gid;
  a.changes = changes;
  if (mount_idmap_auto (&plan->mounts, &a, err) < 0)
    return -1;
  plan->rootfs_tree = mount_idmap_rootfs (&plan->mounts, config, plan->rootfs,
                                          writable, err);
  return plan->rootfs_tree < 0 ? -1 : 0;
}

static int
plan_rootfs (const struct oci_config *config,
             const struct create_plan_options *opts, struct create_plan *plan,
             agentrt_error_t *err)
{
  const struct oci_linux *l = config->linux_cfg;
  struct rootfs_spec *r = &plan->init.rootfs;

  if (open_rootfs (config, opts->bundle, plan, err) < 0
      || mount_plan_build (config, opts->bundle, opts->judged, &plan->mounts,
                           err) < 0
      || parse_propagation (l->rootfs_propagation, &r->root_propagation, err) < 0
      || (opts->userns_auto
          && plan_auto_idmap (config,
                              !config->root.readonly && opts->ephemeral_size == 0,
                              opts->changes, plan, err) < 0))
    return -1;
  if (opts->cgroup)
    {
      plan->cgroup_mounts = cgroup_mounts_plan (opts->cgroup, err);
      if (plan->cgroup_mounts == NULL)
        return -1;
    }
  r->rootfs = plan->rootfs;
  r->rootfs_tree = plan->rootfs_tree;
  r->mounts = &plan->mounts;
  r->cgroups = plan->cgroup_mounts;
  r->cgroup_ns = has_new_ns (config, OCI_NS_CGROUP);
  r->no_pivot = opts->no_pivot;
  r->readonly = config->root.readonly;
  r->ephemeral_size = opts->ephemeral_size;
  /* Without a mount namespace of its own the container's mounts are made
   * in the runtime's (as the runtime-spec says, and runc does): no
   * propagation change, chroot instead of pivot_root. */
  r->host_mount_ns = !has_ns (config, OCI_NS_MOUNT);
  if (opts->net->agent == NET_AGENT_INNER)
    mount_plan_defer_sysfs (&plan->mounts);
  r->masked_paths = (const char *const *) l->masked_paths.items;
  r->n_masked_paths = l->masked_paths.len;
  plan->mask_required = xzalloc ((l->masked_paths.len + 1) * sizeof (bool));
  for (size_t i = 0; opts->required_masks && i < l->masked_paths.len; i++)
    plan->mask_required[i] = str_list_contains (opts->required_masks,
                                                l->masked_paths.items[i]);
  r->mask_required = plan->mask_required;
  r->readonly_paths = (const char *const *) l->readonly_paths.items;
  r->n_readonly_paths = l->readonly_paths.len;
  if (opts->protected_paths)
    {
      r->protected_paths = (const char *const *) opts->protected_paths->items;
      r->n_protected_paths = opts->protected_paths->len;
    }
  if (opts->protected_dirs)
    {
      r->protected_dirs = (const char *const *) opts->protected_dirs->items;
      r->n_protected_dirs = opts->protected_dirs->len;
    }
  if (create_plan_devices (config, plan, err) < 0)
    return -1;
  plan->init.devices.bind_from_host |= opts->no_mknod;
  return 0;
}

static int
plan_process (const struct oci_config *config,
              const struct create_plan_options *opts, struct create_plan *plan,
              agentrt_error_t *err)
{
  const struct oci_process *p = config->process;
  struct process_spec *spec = &plan->init.process;
  const struct oci_personality *pers = config->linux_cfg->personality;

  if (process_spec_build (p, plan->rootfd, opts->extra_env, spec, err) < 0
      || mempolicy_build (config->linux_cfg->memory_policy, &spec->mempolicy,
                          err) < 0)
    return -1;
  spec->preserve_fds = opts->preserve_fds;
  spec->new_keyring = !opts->no_new_keyring;
  spec->keyring_name = opts->keyring_name;
  spec->may_setgroups = true;
  /* process.selinuxLabel is a no-op when SELinux is off, like runc */
  if (spec->selinux_label && !selinux_enabled ())
    spec->selinux_label = NULL;
  if (selinux_check_label (spec->selinux_label, "process.selinuxLabel", err) < 0
      || selinux_check_label (config->linux_cfg->mount_label, "linux.mountLabel",
                              err) < 0)
    return -1;
  if (pers)
    {
      if (strcmp (pers->domain, "LINUX") == 0)
        spec->personality = 0x0000;
      else if (strcmp (pers->domain, "LINUX32") == 0)
        spec->personality = 0x0008;
      else
        return agentrt_error (err, 0, "linux.personality.domain: unknown "
                              "domain `%s`", pers->domain);
      if (pers->flags.len)
        return agentrt_error (err, 0, "linux.personality.flags: no flag "
                              "is supported");
      spec->has_personality = true;
    }
  plan->init.stage.process = spec;
  plan->init.stage.terminal = p->terminal;
  plan->init.stage.console_rows = (unsigned short) p->console_height;
  plan->init.stage.console_cols = (unsigned short) p->console_width;
  return 0;
}

static int
plan_seccomp (const struct oci_config *config,
              const struct create_plan_options *opts, struct create_plan *plan,
              agentrt_error_t *err)
{
  const struct oci_seccomp *sc = config->linux_cfg->seccomp;
  size_t n = 0;

  if (opts->extra_seccomp)
    plan->seccomp_list[n++] = opts->extra_seccomp;
  if (sc)
    {
      struct str_list notes = { 0 };
      bool hit = false;
      size_t i;
      plan->bundle_seccomp = seccomp_compile_cached (sc, "linux.seccomp",
                                                     opts->seccomp_cache,
                                                     &notes, &hit, err);
      for (i = 0; i < notes.len; i++)
        log_debug ("%s", notes.items[i]);
      str_list_free (&notes);
      if (plan->bundle_seccomp == NULL)
        return -1;
      log_debug ("linux.seccomp %s", hit ? "(cached)" : "(compiled)");
      plan->seccomp_list[n++] = plan->bundle_seccomp;
    }
  plan->init.stage.seccomp = plan->seccomp_list;
  plan->init.stage.n_seccomp = n;
  return 0;
}

/* Who writes a new user namespace's maps (runtime/idmap.h); a gid map
 * that denies setgroups(2) leaves the process's groups as they are. */
static int
plan_idmap (const struct oci_config *config, struct create_plan *plan,
            agentrt_error_t *err)
{
  const struct oci_linux *l = config->linux_cfg;
  struct idmap_caller caller;

  if (!has_new_ns (config, OCI_NS_USER))
    return 0;
  userns_caller (&caller);
  if (idmap_plan_decide (&caller, l->uid_mappings, l->n_uid_mappings,
                         l->gid_mappings, l->n_gid_mappings,
                         config->process->user.n_additional_gids, &plan->idmap,
                         err) < 0)
    return -1;
  plan->init.process.may_setgroups = !plan->idmap.deny_setgroups;
  return 0;
}

int
create_plan_build (const struct oci_config *config,
                   const struct create_plan_options *opts,
                   struct create_plan *plan, agentrt_error_t *err)
{
  memset (plan, 0, sizeof *plan);
  plan->rootfd = plan->stub_fd = plan->rootfs_tree = -1;
  plan->init.rootfs.rootfs_tree = -1;
  plan->mounts.container_userns_fd = -1;
  plan->init.stage.sync_sock = plan->init.exec_fifo_fd = -1;
  plan->init.stage.stub_fd = -1;
  plan->init.create_container_state = plan->init.start_container_state = -1;
  ns_plan_build (NULL, &plan->ns, NULL);

  if (config->process == NULL)
    return agentrt_error (err, 0, "process: required to create a "
                          "container");
  if (config->linux_cfg == NULL)
    return agentrt_error (err, 0, "linux: required on Linux");
  if (check_namespaces (config, err) < 0
      || ns_plan_build (config->linux_cfg, &plan->ns, err) < 0
      || (plan->ns.join_fds[OCI_NS_USER] >= 0
          && userns_check_joined_maps (plan->ns.join_fds[OCI_NS_USER],
                                       config->linux_cfg, err) < 0)
      || plan_rootfs (config, opts, plan, err) < 0
      || create_plan_sysctls (config, &plan->init.sysctls,
                              &plan->init.n_sysctls, err) < 0
      || plan_process (config, opts, plan, err) < 0
      || plan_idmap (config, plan, err) < 0
      || plan_seccomp (config, opts, plan, err) < 0)
    {
      create_plan_free (plan);
      return -1;
    }
  plan->init.cgroup_ns = has_new_ns (config, OCI_NS_CGROUP);
  plan->init.net = *opts->net;
  plan->init.agent_netns_fd = -1;
  plan->init.hostname = config->hostname;
  plan->init.domainname = config->domainname;
  hook_set_build (&config->hooks.prestart, "prestart", opts->bundle,
                  &plan->prestart);
  hook_set_build (&config->hooks.create_runtime, "createRuntime",
                  opts->bundle, &plan->create_runtime);
  hook_set_build (&config->hooks.create_container, "createContainer",
                  opts->bundle, &plan->init.create_container);
  hook_set_build (&config->hooks.start_container, "startContainer", "/",
                  &plan->init.start_container);
  plan->init.runtime_hooks = plan->prestart.n + plan->create_runtime.n > 0;
  /* what runs inside the container is reached through the sealed stub */
  plan->stub_fd = exec_stub_memfd (err);
  if (plan->stub_fd < 0)
    {
      create_plan_free (plan);
      return -1;
    }
  plan->init.stage.stub_fd = plan->stub_fd;
  plan->init.create_container.stub_fd = plan->stub_fd;
  plan->init.start_container.stub_fd = plan->stub_fd;
  plan->init.stage.stub_required = opts->hardened;
  plan->init.stage.chown_stdio_files = !opts->hardened;
  plan->init.create_container.stub_required = opts->hardened;
  plan->init.start_container.stub_required = opts->hardened;
  return 0;
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

void
create_plan_free (struct create_plan *plan)
{
  size_t i;
  ns_plan_close (&plan->ns);
  mount_plan_free (&plan->mounts);
  cgroup_mounts_free (plan->cgroup_mounts);
  free (plan->devices);
  free (plan->mask_required);
  for (i = 0; plan->device_paths && plan->device_paths[i]; i++)
    free (plan->device_paths[i]);
  free (plan->device_paths);
  free (plan->rootfs);
  close_fd (&plan->rootfd);
  close_fd (&plan->rootfs_tree);
  close_fd (&plan->stub_fd);
  seccomp_program_free (plan->bundle_seccomp);
  hook_set_free (&plan->prestart);
  hook_set_free (&plan->create_runtime);
  hook_set_free (&plan->init.create_container);
  hook_set_free (&plan->init.start_container);
  for (i = 0; i < plan->init.n_sysctls; i++)
    free ((char *) plan->init.sysctls[i].path);
  free (plan->init.sysctls);
  process_spec_free (&plan->init.process);
  close_fd (&plan->init.exec_fifo_fd);
  close_fd (&plan->init.create_container_state);
  close_fd (&plan->init.start_container_state);
  memset (plan, 0, sizeof *plan);
  plan->rootfd = plan->stub_fd = plan->rootfs_tree = -1;
  plan->init.rootfs.rootfs_tree = -1;
  plan->mounts.container_userns_fd = -1;
}
