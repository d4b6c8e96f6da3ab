/* Device access rules: linux.resources.devices after an implicit "deny
 * everything", then linux.devices and agentrt's default devices allowed
 * (runc's list without /dev/net/tun).  v1: written in order to
 * devices.allow/devices.deny; v2: an eBPF program (bpf_devices.c). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/bpf_devices.h"
#include "runtime/cgroup/cgroup_internal.h"

/* mknod of anything (the rootfs code creates nodes), /dev/null, random,
 * full, tty, zero, urandom, the pty slaves and /dev/ptmx. */
static const struct bpf_dev_rule default_rules[] = {
  { true, 'c', -1, -1, BPF_DEV_MKNOD }, { true, 'b', -1, -1, BPF_DEV_MKNOD },
  { true, 'c', 1, 3, BPF_DEV_RWM },     { true, 'c', 1, 8, BPF_DEV_RWM },
  { true, 'c', 1, 7, BPF_DEV_RWM },     { true, 'c', 5, 0, BPF_DEV_RWM },
  { true, 'c', 1, 5, BPF_DEV_RWM },     { true, 'c', 1, 9, BPF_DEV_RWM },
  { true, 'c', 136, -1, BPF_DEV_RWM },  { true, 'c', 5, 2, BPF_DEV_RWM },
};

static int
number (bool has, int64_t v, size_t i, const char *what, int64_t *out,
        agentrt_error_t *err)
{
  *out = has ? v : -1;
  if (has && (v < -1 || v > UINT32_MAX))
    return agentrt_error (err, 0,
                          "linux.resources.devices[%zu].%s: %" PRId64
                          " is out of range",
                          i, what, v);
  return 0;
}

static int
oci_rules (const struct oci_resources *r, struct bpf_dev_rule *out,
           size_t *k, agentrt_error_t *err)
{
  for (size_t i = 0; r && i < r->n_devices; i++)
    {
      const struct oci_device_rule *d = &r->devices[i];
      struct bpf_dev_rule *o = &out[(*k)++];

      o->allow = d->allow;
      o->type = d->type ? d->type : 'a';
      if (o->type != 'a' && o->type != 'c' && o->type != 'b')
        return agentrt_error (err, 0,
                              "linux.resources.devices[%zu].type: `%c` is not "
                              "a, c or b",
                              i, d->type);
      if (number (d->has_major, d->major, i, "major", &o->major, err) < 0
          || number (d->has_minor, d->minor, i, "minor", &o->minor, err) < 0)
        return -1;
      if (bpf_devices_access (d->access, &o->access) < 0)
        return agentrt_error (err, 0,
                              "linux.resources.devices[%zu].access: `%s` is "
                              "not a non-empty combination of r, w and m",
                              i, d->access);
    }
  return 0;
}

/* The full ordered rule list (malloc'd). */
static int
device_rules (const struct oci_resources *r, const struct oci_device *devs,
              size_t n_devs, struct bpf_dev_rule **rules, size_t *n,
              agentrt_error_t *err)
{
  size_t max = 1 + (r ? r->n_devices : 0) + n_devs
               + sizeof default_rules / sizeof default_rules[0];
  cleanup_free struct bpf_dev_rule *out = xreallocarray (NULL, max, sizeof *out);
  size_t k = 0;

  out[k++] = (struct bpf_dev_rule){ false, 'a', -1, -1, BPF_DEV_RWM };
  if (oci_rules (r, out, &k, err) < 0)
    return -1;
  for (size_t i = 0; i < n_devs; i++)
    {
      if (devs[i].type == 'p')
        continue; /* FIFOs are not device nodes */
      if (devs[i].major < 0 || devs[i].major > UINT32_MAX || devs[i].minor < 0
          || devs[i].minor > UINT32_MAX)
        return agentrt_error (err, 0, "linux.devices[%zu]: major/minor out of "
                                      "range", i);
      out[k++] = (struct bpf_dev_rule){ true, devs[i].type == 'b' ? 'b' : 'c',
                                        devs[i].major, devs[i].minor,
                                        BPF_DEV_RWM };
    }
  memcpy (out + k, default_rules, sizeof default_rules);
  k += sizeof default_rules / sizeof default_rules[0];
  bpf_devices_drop_repeated (out, &k);
  *rules = steal_pointer (&out);
  *n = k;
  return 0;
}

int
cg_device_policy (const struct oci_resources *r, const struct oci_device *devs,
                  size_t n_devs, struct bpf_dev_policy *policy,
                  agentrt_error_t *err)
{
  cleanup_free struct bpf_dev_rule *rules = NULL;
  size_t n = 0;

  if (device_rules (r, devs, n_devs, &rules, &n, err) < 0)
    return -1;
  return bpf_devices_policy (rules, n, policy, err);
}

static void
v1_line (const struct bpf_dev_rule *r, char type, char *buf, size_t size)
{
  char major[24] = "*", minor[24] = "*", access[4];
  size_t a = 0;

  if (r->major >= 0)
    snprintf (major, sizeof major, "%" PRId64, r->major);
  if (r->minor >= 0)
    snprintf (minor, sizeof minor, "%" PRId64, r->minor);
  if (r->access & BPF_DEV_READ)
    access[a++] = 'r';
  if (r->access & BPF_DEV_WRITE)
    access[a++] = 'w';
  if (r->access & BPF_DEV_MKNOD)
    access[a++] = 'm';
  access[a] = '\0';
  snprintf (buf, size, "%c %s:%s %s\n", type, major, minor, access);
}

/* v1: the kernel applies each line as it comes; a type "a" rule that is
 * not "everything" becomes one line for c and one for b. */
static int
v1_devices (struct cg_dir *d, const struct bpf_dev_rule *rules, size_t n,
            agentrt_error_t *err)
{
  cleanup_close int allow = cg_open_write (d, "devices.allow", err);
  cleanup_close int deny = allow < 0 ? -1 : cg_open_write (d, "devices.deny", err);

  if (deny < 0)
    return -1;
  for (size_t i = 0; i < n; i++)
    {
      const struct bpf_dev_rule *r = &rules[i];
      int fd = r->allow ? allow : deny;
      const char *file = r->allow ? "devices.allow" : "devices.deny";
      char line[80];

      if (r->type == 'a' && r->major < 0 && r->minor < 0
          && r->access == BPF_DEV_RWM)
        {
          if (cg_write_fd (d, fd, file, "a\n", err) < 0)
            return -1;
          continue;
        }
      char types[3] = { r->type, 0, 0 };
      if (r->type == 'a')
        types[0] = 'c', types[1] = 'b';
      for (const char *t = types; *t; t++)
        {
          v1_line (r, *t, line, sizeof line);
          if (cg_write_fd (d, fd, file, line, err) < 0)
            return -1;
        }
    }
  return 0;
}

static int
v2_devices (struct cg_dir *d, const struct bpf_dev_rule *rules, size_t n,
            bool replace, agentrt_error_t *err)
{
  struct bpf_dev_policy policy;
  cleanup_free struct bpf_insn *insns = NULL;
  cleanup_close int prog = -1;
  size_t n_insns;
  int ret;

  if (bpf_devices_policy (rules, n, &policy, err) < 0)
    return -1;
  ret = bpf_devices_program (&policy, &insns, &n_insns, err);
  bpf_devices_policy_release (&policy);
  if (ret < 0)
    return -1;
  prog = bpf_devices_load (insns, n_insns, err);
  if (prog < 0)
    return -1;
  if (bpf_devices_attach (d->fd, prog, replace, err) < 0)
    return agentrt_error_wrap (err, "cgroup `%s`", d->path);
  return 0;
}

int
cg_apply_devices (struct cgroup *cg, const struct oci_resources *r,
                  const struct oci_device *devices, size_t n_devices,
                  bool replace, agentrt_error_t *err)
{
  cleanup_free struct bpf_dev_rule *rules = NULL;
  struct cg_dir *d;
  size_t n = 0;
  int ret;

  if (device_rules (r, devices, n_devices, &rules, &n, err) < 0)
    return -1;
  d = cg_ctrl_dir (cg, CG_DEVICES, err);
  if (d == NULL && err && *err)
    return agentrt_error_wrap (err, "linux.resources.devices");
  if (d == NULL)
    return agentrt_error (err, 0, "linux.resources.devices: the devices cgroup "
                                  "controller is not mounted");
  ret = d->v2 ? v2_devices (d, rules, n, replace, err)
              : v1_devices (d, rules, n, err);
  if (ret < 0)
    return agentrt_error_wrap (err, "linux.resources.devices");
  return 0;
}
