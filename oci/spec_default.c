/* The default spec of `agentrt spec` (spec_default.h), built as a struct
 * oci_config and written by the config writer, so it always parses back. */
#include <config.h>

#include "common/xalloc.h"
#include "config.h"
#include "spec_default.h"

static const char *const default_caps[]
    = { "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE", NULL };

static const char *const masked_paths[]
    = { "/proc/acpi",      "/proc/asound",       "/proc/kcore",
        "/proc/keys",      "/proc/latency_stats", "/proc/timer_list",
        "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
        "/proc/scsi",      NULL };

static const char *const readonly_paths[]
    = { "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
        "/proc/sysrq-trigger", NULL };

struct mount_row
{
  const char *destination;
  const char *type;
  const char *source;
  const char *const *options;
  const struct mount_row *rootless; /* what --rootless uses instead */
};

#define OPTIONS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* No group 5 inside the user namespace. */
static const struct mount_row rootless_devpts
    = { "/dev/pts", "devpts", "devpts",
        OPTIONS ("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"),
        NULL };
/* sysfs cannot be mounted without owning the network namespace. */
static const struct mount_row rootless_sys
    = { "/sys", "none", "/sys", OPTIONS ("rbind", "nosuid", "noexec", "nodev", "ro"),
        NULL };

static const struct mount_row default_mounts[] = {
  { "/proc", "proc", "proc", NULL, NULL },
  { "/dev", "tmpfs", "tmpfs",
    OPTIONS ("nosuid", "strictatime", "mode=755", "size=65536k"), NULL },
  { "/dev/pts", "devpts", "devpts",
    OPTIONS ("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"),
    &rootless_devpts },
  { "/dev/shm", "tmpfs", "shm",
    OPTIONS ("nosuid", "noexec", "nodev", "mode=1777", "size=65536k"), NULL },
  { "/dev/mqueue", "mqueue", "mqueue", OPTIONS ("nosuid", "noexec", "nodev"), NULL },
  { "/sys", "sysfs", "sysfs", OPTIONS ("nosuid", "noexec", "nodev", "ro"),
    &rootless_sys },
  { "/sys/fs/cgroup", "cgroup", "cgroup",
    OPTIONS ("nosuid", "noexec", "nodev", "relatime", "ro"), NULL },
};

static void
append_all (struct str_list *list, const char *const *items)
{
  for (; *items; items++)
    str_list_append (list, *items);
}

static struct oci_process *
default_process (void)
{
  struct oci_process *p = xzalloc (sizeof (*p));

  p->terminal = true;
  str_list_append (&p->args, "sh");
  str_list_append (&p->env,
                   "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  str_list_append (&p->env, "TERM=xterm");
  p->cwd = xstrdup ("/");
  p->capabilities = xzalloc (sizeof (*p->capabilities));
  append_all (&p->capabilities->bounding, default_caps);
  append_all (&p->capabilities->effective, default_caps);
  append_all (&p->capabilities->permitted, default_caps);
  append_all (&p->capabilities->ambient, default_caps);
  p->rlimits = xzalloc (sizeof (*p->rlimits));
  p->n_rlimits = 1;
  p->rlimits[0].type = xstrdup ("RLIMIT_NOFILE");
  p->rlimits[0].resource = oci_rlimit_from_name ("RLIMIT_NOFILE");
  p->rlimits[0].soft = p->rlimits[0].hard = 1024;
  p->no_new_privileges = true;
  return p;
}

static void
default_mounts_fill (struct oci_config *c, bool rootless)
{
  const size_t n = sizeof default_mounts / sizeof default_mounts[0];

  c->mounts = xzalloc (n * sizeof (*c->mounts));
  c->n_mounts = n;
  for (size_t i = 0; i < n; i++)
    {
      const struct mount_row *row = &default_mounts[i];
      if (rootless && row->rootless)
        row = row->rootless;
      c->mounts[i].destination = xstrdup (row->destination);
      c->mounts[i].type = xstrdup (row->type);
      c->mounts[i].source = xstrdup (row->source);
      if (row->options)
        append_all (&c->mounts[i].options, row->options);
    }
}

static struct oci_id_mapping *
root_mapping (uint32_t host_id)
{
  struct oci_id_mapping *m = xzalloc (sizeof (*m));
  m->host_id = host_id;
  m->size = 1;
  return m;
}

static struct oci_linux *
default_linux (bool rootless, uint32_t uid, uint32_t gid)
{
  static const enum oci_namespace_type rootful_ns[]
      = { OCI_NS_PID, OCI_NS_NETWORK, OCI_NS_IPC, OCI_NS_UTS, OCI_NS_MOUNT };
  static const enum oci_namespace_type rootless_ns[]
      = { OCI_NS_PID, OCI_NS_IPC, OCI_NS_UTS, OCI_NS_MOUNT, OCI_NS_USER };
  const enum oci_namespace_type *ns = rootless ? rootless_ns : rootful_ns;
  struct oci_linux *l = xzalloc (sizeof (*l));

  l->n_namespaces = 5;
  l->namespaces = xzalloc (l->n_namespaces * sizeof (*l->namespaces));
  for (size_t i = 0; i < l->n_namespaces; i++)
    l->namespaces[i].type = ns[i];
  if (rootless)
    {
      l->uid_mappings = root_mapping (uid);
      l->n_uid_mappings = 1;
      l->gid_mappings = root_mapping (gid);
      l->n_gid_mappings = 1;
    }
  else
    {
      l->resources = xzalloc (sizeof (*l->resources));
      l->resources->devices = xzalloc (sizeof (*l->resources->devices));
      l->resources->n_devices = 1;
      l->resources->devices[0].type = 'a';
      l->resources->devices[0].access = xstrdup ("rwm");
    }
  append_all (&l->masked_paths, masked_paths);
  append_all (&l->readonly_paths, readonly_paths);
  return l;
}

char *
spec_default_json (bool rootless, uint32_t uid, uint32_t gid,
                   agentrt_error_t *err)
{
  cleanup_oci_config struct oci_config *c = xzalloc (sizeof (*c));

  c->oci_version = xstrdup ("1.2.0");
  c->process = default_process ();
  c->root.path = xstrdup ("rootfs");
  c->root.readonly = true;
  c->hostname = xstrdup ("agentrt");
  default_mounts_fill (c, rootless);
  c->linux_cfg = default_linux (rootless, uid, gid);
  return oci_config_to_json_indent (c, "\t", err);
}
