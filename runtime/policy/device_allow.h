/* The character devices a hardened container may use: null, zero, full,
 * random, urandom, tty, console, ptmx and the pty slaves always; fuse, kvm
 * and net/tun only when the admin policy lists them (devices.allow).
 * Judged by device number, never by path: a node named /dev/null that is
 * a disk is a disk.  Pure code. */
#ifndef AGENTRT_POLICY_DEVICE_ALLOW_H
#define AGENTRT_POLICY_DEVICE_ALLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

struct device_id
{
  const char *name;  /* "null", "pts"... */
  unsigned major;
  int minor;         /* -1: every minor of the major */
};

/* Is the character device major:minor allowed by the policy? */
bool device_allow_contains (const struct agent_policy *policy,
                            unsigned major, unsigned minor);

/* The allowed devices, in a stable order: the i-th, or NULL past the
 * end. */
const struct device_id *device_allow_get (const struct agent_policy *policy,
                                          size_t i);

/* The canonical name of a device the policy may add ("fuse", "kvm",
 * "net/tun"; "/dev/" in front accepted), or NULL. */
const char *device_allow_optional_name (const char *name);

#endif
