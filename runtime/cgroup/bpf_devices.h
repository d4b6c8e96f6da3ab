/* cgroup v2 device control: an ordered list of device rules (OCI
 * linux.resources.devices semantics, i.e. what writing them one by one to
 * v1 devices.allow/devices.deny does) reduced to a default plus
 * exceptions, compiled to a BPF_PROG_TYPE_CGROUP_DEVICE program, loaded and
 * attached to a cgroup2 directory with BPF_CGROUP_DEVICE. */
#ifndef AGENTRT_RUNTIME_BPF_DEVICES_H
#define AGENTRT_RUNTIME_BPF_DEVICES_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Access bits, the kernel's BPF_DEVCG_ACC_* values. */
#define BPF_DEV_MKNOD 1u
#define BPF_DEV_READ 2u
#define BPF_DEV_WRITE 4u
#define BPF_DEV_RWM 7u

struct bpf_dev_rule
{
  bool allow;
  char type;      /* 'a' (both), 'c' or 'b' */
  int64_t major;  /* -1: any */
  int64_t minor;  /* -1: any */
  unsigned access; /* BPF_DEV_* bits, not 0 */
};

/* "rwm" (any subset, in any order) to bits; -1 for other characters or an
 * empty string.  NULL means all. */
int bpf_devices_access (const char *s, unsigned *bits);

/* The effect of the rules: default_allow plus exceptions of the other
 * kind ('c' or 'b' only), merged per device like the v1 kernel does. */
struct bpf_dev_policy
{
  bool default_allow;
  struct bpf_dev_rule *exceptions;
  size_t n;
};

/* Drops each rule the same rule repeats later, keeping the order of the
 * rest: what the kernel makes of the list (and the policy below) does not
 * change.  A list longer than BPF_DEVICES_MAX_RULES is left as it is. */
void bpf_devices_drop_repeated (struct bpf_dev_rule *rules, size_t *n);

/* Rules start from "deny everything".  At most BPF_DEVICES_MAX_RULES. */
#define BPF_DEVICES_MAX_RULES 4096
int bpf_devices_policy (const struct bpf_dev_rule *rules, size_t n,
                        struct bpf_dev_policy *policy, agentrt_error_t *err);
void bpf_devices_policy_release (struct bpf_dev_policy *policy);

/* The program (malloc'd) that returns 1 to allow an access. */
int bpf_devices_program (const struct bpf_dev_policy *policy,
                         struct bpf_insn **insns, size_t *n_insns,
                         agentrt_error_t *err);

/* Loads the program; returns its fd (O_CLOEXEC).  Verifier messages are
 * part of the error. */
int bpf_devices_load (const struct bpf_insn *insns, size_t n_insns,
                      agentrt_error_t *err);

/* Attaches prog_fd to the cgroup2 directory with BPF_F_ALLOW_MULTI (every
 * program on the path must allow).  With `replace`, agentrt's earlier
 * device programs on that cgroup are detached afterwards. */
int bpf_devices_attach (int cgroup_fd, int prog_fd, bool replace,
                        agentrt_error_t *err);

/* Number of agentrt device programs attached to the cgroup (tests). */
int bpf_devices_count (int cgroup_fd, agentrt_error_t *err);

#endif
