/* The runtime-spec "features" document (`agentrt features`): what the
 * runtime recognises, fixed at build time.  oci/ knows what the config
 * parser accepts (features_init fills that); the runtime fills the rest
 * (mount options, capabilities, supported seccomp flags, cgroup and LSM
 * support, annotations) and prints features_to_json(). */
#ifndef AGENTRT_OCI_FEATURES_H
#define AGENTRT_OCI_FEATURES_H

#include <stdbool.h>

#include "../common/error.h"

/* Lists are NULL-terminated arrays the caller keeps alive; a NULL list is
 * left out of the document (the spec distinguishes absent from empty). */
struct oci_features_seccomp
{
  bool enabled;
  const char *const *actions;
  const char *const *operators;
  const char *const *archs;
  const char *const *known_flags;
  const char *const *supported_flags;
};

struct oci_features
{
  const char *const *hooks;
  const char *const *mount_options;
  const char *const *namespaces;
  const char *const *capabilities;
  bool cgroup_v1;
  bool cgroup_v2;
  bool cgroup_systemd;
  bool cgroup_systemd_user;
  bool cgroup_rdma;
  struct oci_features_seccomp seccomp;
  bool apparmor;
  bool selinux;
  bool intel_rdt;
  bool idmap_mounts; /* mountExtensions.idmap */
  const char *const *mempolicy_modes; /* memoryPolicy.modes (NULL: absent) */
  const char *const *mempolicy_flags;
  /* Key, value, key, value, ..., NULL: the runtime's own metadata. */
  const char *const *annotations;
  /* Annotations (or prefixes ending in ".") that change the runtime's
   * behaviour: agentrt's run.agentrt. family. */
  const char *const *potentially_unsafe_annotations;
};

/* Zeroes *f and sets the lists the config parser defines: hooks,
 * namespaces, seccomp actions, operators, architectures and known flags,
 * memory policy modes and flags. */
void features_init (struct oci_features *f);

/* The document with ociVersionMin "1.0.0" and ociVersionMax "1.2.0",
 * indented with four spaces like `runc features`. */
char *features_to_json (const struct oci_features *f);

#endif
