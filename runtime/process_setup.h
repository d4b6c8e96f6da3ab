/* The container process's identity and limits: computed by the runtime from
 * config.json's process object, applied by the init (or an exec'd process)
 * just before execve, in the order runc uses.  The child side allocates
 * nothing. */
#ifndef AGENTRT_PROCESS_SETUP_H
#define AGENTRT_PROCESS_SETUP_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/caps.h"
#include "runtime/child_error.h"
#include "runtime/mempolicy.h"

struct rlimit_entry
{
  int resource;
  struct rlimit limit;
};

struct sched_settings
{
  uint32_t size;
  uint32_t policy;
  uint64_t flags;
  int32_t nice;
  uint32_t priority;
  uint64_t runtime;
  uint64_t deadline;
  uint64_t period;
};

struct process_spec
{
  uid_t uid;
  gid_t gid;
  gid_t *groups;
  size_t n_groups;
  bool may_setgroups; /* false in a user namespace with setgroups denied */
  bool has_umask;
  mode_t umask;
  struct cap_masks caps;
  struct rlimit_entry *rlimits;
  size_t n_rlimits;
  bool no_new_privileges;
  const char *apparmor_profile;
  const char *selinux_label;
  bool has_personality;
  unsigned long personality;
  bool has_scheduler;
  struct sched_settings scheduler;
  bool has_ioprio;
  int ioprio;
  bool has_final_affinity;
  cpu_set_t final_affinity;
  struct mempolicy_spec mempolicy; /* linux.memoryPolicy (the container's) */
  const char *cwd;
  char **argv; /* NULL-terminated */
  /* { "agentrt-exec-stub", <path, filled in by the child>, argv..., NULL } */
  char **stub_argv;
  char **envp; /* NULL-terminated */
  int preserve_fds; /* fds 3 .. 3+n-1 survive exec */
  bool new_keyring;
  const char *keyring_name;
};

/* Builds the spec.  extra_env ("K=V" strings, may be NULL) is appended,
 * replacing variables of the same name; HOME is added from the rootfs's
 * /etc/passwd (rootfd, may be -1) when the process has none. */
int process_spec_build (const struct oci_process *process, int rootfd,
                        char *const *extra_env, struct process_spec *out,
                        agentrt_error_t *err);
void process_spec_free (struct process_spec *spec);

/* Whether the kernel runs AppArmor (a profile asked for without it is an
 * error). */
bool process_apparmor_enabled (void);

/* HOME from the image's /etc/passwd (rootfd: the rootfs), like runc; "/"
 * when the uid has none. */
char *process_default_home (int rootfd, uid_t uid);

/* Child side, in order; each returns -1 with cerr set. */
int process_apply_labels (const struct process_spec *spec, int procfd,
                          struct child_error *cerr);
int process_apply_limits (const struct process_spec *spec,
                          struct child_error *cerr);
int process_switch_user (const struct process_spec *spec,
                         struct child_error *cerr);
/* Enters process.cwd: first as root (!as_user), before any seccomp filter;
 * a cwd only the user may enter is *deferred to a second call as_user. */
int process_enter_cwd (const struct process_spec *spec, bool as_user,
                       bool *deferred, struct child_error *cerr);
/* Resolves argv[0] through the process's PATH into buf (an executable file
 * the user may run).  -1 with "executable file not found in $PATH". */
int process_find_executable (const struct process_spec *spec, char *buf,
                             size_t len, struct child_error *cerr);

#endif
