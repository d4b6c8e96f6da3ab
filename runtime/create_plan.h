/* Everything `create` computes before the container's init exists: the
 * namespaces to join or create, the mounts, devices, sysctls, the process
 * spec and the compiled seccomp filters, gathered into the struct
 * init_plan the init reads.  Errors name the config.json field. */
#ifndef AGENTRT_CREATE_PLAN_H
#define AGENTRT_CREATE_PLAN_H

#include <stdbool.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/idmap.h"
#include "runtime/init.h"
#include "runtime/namespaces.h"
#include "runtime/policy/changes.h"

struct create_plan_options
{
  const char *bundle;          /* absolute */
  bool no_pivot;
  bool no_new_keyring;
  int preserve_fds;            /* --preserve-fds plus LISTEN_FDS */
  char *const *extra_env;      /* appended to process.env (LISTEN_FDS...) */
  const struct cgroup_request *cgroup; /* for the cgroup mounts */
  /* seccomp programs installed before the bundle's own (agentrt's). */
  const struct seccomp_program *extra_seccomp;
  /* where the bundle's compiled program is cached (seccomp_cache.h);
   * NULL: compiled every time */
  const char *seccomp_cache;
  const char *keyring_name;
  /* From the hardening (all zero when it is off): the host view whose
   * judged bind sources are mounted, the masks that must be applied and
   * the paths made read-only after them. */
  const struct host_view *judged;
  const struct str_list *required_masks;
  const struct str_list *protected_paths;
  const struct str_list *protected_dirs;
  unsigned long long ephemeral_size;
  const struct net_plan *net;
  bool hardened;         /* no fallback around the exec stub */
  /* the hardening gave the container its own user namespace
   * (docs/userns.md): the rootfs and the binds are idmapped; a bind
   * kept without one is recorded in `changes` */
  bool userns_auto;
  struct change_list *changes;
  /* the runtime is not root of the host (runtime/rootless.h): mknod(2)
   * needs CAP_MKNOD in the initial user namespace, so the device nodes
   * are bound from the host's, as in a user namespace of the bundle's */
  bool no_mknod;
};

struct create_plan
{
  struct init_plan init;
  struct ns_plan ns;
  struct mount_plan mounts;
  struct cgroup_mounts *cgroup_mounts;
  struct device_node *devices;
  bool *mask_required;     /* parallel to linux.maskedPaths */
  char **device_paths;     /* the bundle's device paths, clean; NULL-ended */
  char *rootfs;            /* absolute host path */
  int rootfd;              /* O_PATH, for reading the image's /etc/passwd */
  int rootfs_tree;         /* userns_auto: the idmapped copy of the rootfs */
  int stub_fd;             /* the sealed exec stub */
  struct seccomp_program *bundle_seccomp;
  const struct seccomp_program *seccomp_list[2];
  struct hook_set prestart;
  struct hook_set create_runtime;
  struct idmap_plan idmap; /* a new user namespace's maps: who writes them */
};

int create_plan_build (const struct oci_config *config,
                       const struct create_plan_options *opts,
                       struct create_plan *plan, agentrt_error_t *err);
void create_plan_free (struct create_plan *plan);

/* Checks linux.sysctl against the namespaces the container has, and turns
 * each key into its /proc/sys path (exported for unit tests). */
int create_plan_sysctls (const struct oci_config *config,
                         struct sysctl_entry **out, size_t *n,
                         agentrt_error_t *err);

/* The device nodes: the defaults, then linux.devices with lexically clean
 * paths (a bundle device replaces a default of the same path); sets
 * plan->devices, plan->device_paths and plan->init.devices (exported for
 * unit tests; create_plan_free frees them). */
int create_plan_devices (const struct oci_config *config,
                         struct create_plan *plan, agentrt_error_t *err);

#endif
