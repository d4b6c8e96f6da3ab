/* cgroup v2 device control with eBPF (see bpf_devices.h): rule reduction
 * with the v1 kernel's semantics, the instruction generator, and the
 * bpf(2) calls that load, attach and replace the program. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/bpf_devices.h"

#define PROG_NAME "agentrt_dev"

static bool
same_rule (const struct bpf_dev_rule *a, const struct bpf_dev_rule *b)
{
  return a->allow == b->allow && a->type == b->type && a->major == b->major
         && a->minor == b->minor && a->access == b->access;
}

/* The kernel applies a rule bit by bit to the entry of its type, major and
 * minor (or resets them all, for "a"): what an earlier copy of a rule did
 * is done again by the later one, whatever came between.  (The policy's
 * device allowlist and the default devices share eight: eight writes to
 * devices.allow on every v1 create.) */
void
bpf_devices_drop_repeated (struct bpf_dev_rule *rules, size_t *n)
{
  size_t out = 0;

  /* a list that long is refused whole (bpf_devices_policy): a hostile
   * bundle's hundreds of thousands of rules must not cost n² compares */
  if (*n > BPF_DEVICES_MAX_RULES)
    return;
  for (size_t i = 0; i < *n; i++)
    {
      bool later = false;
      for (size_t j = i + 1; !later && j < *n; j++)
        later = same_rule (&rules[i], &rules[j]);
      if (!later)
        rules[out++] = rules[i];
    }
  *n = out;
}

int
bpf_devices_access (const char *s, unsigned *bits)
{
  *bits = 0;
  if (s == NULL)
    {
      *bits = BPF_DEV_RWM;
      return 0;
    }
  for (; *s; s++)
    switch (*s)
      {
      case 'r':
        *bits |= BPF_DEV_READ;
        break;
      case 'w':
        *bits |= BPF_DEV_WRITE;
        break;
      case 'm':
        *bits |= BPF_DEV_MKNOD;
        break;
      default:
        return -1;
      }
  return *bits ? 0 : -1;
}

static bool
same_device (const struct bpf_dev_rule *a, char type, const struct bpf_dev_rule *r)
{
  return a->type == type && a->major == r->major && a->minor == r->minor;
}

/* Adds access to the exception for this exact device, or a new one. */
static void
add_exception (struct bpf_dev_policy *p, char type, const struct bpf_dev_rule *r)
{
  for (size_t i = 0; i < p->n; i++)
    if (same_device (&p->exceptions[i], type, r))
      {
        p->exceptions[i].access |= r->access;
        return;
      }
  p->exceptions = xreallocarray (p->exceptions, p->n + 1, sizeof *p->exceptions);
  p->exceptions[p->n] = *r;
  p->exceptions[p->n].type = type;
  p->exceptions[p->n].allow = !p->default_allow;
  p->n++;
}

/* Takes access away from the exception for this exact device (the v1
 * kernel matches exactly here: a wildcard does not cover specific ones). */
static void
remove_exception (struct bpf_dev_policy *p, char type, const struct bpf_dev_rule *r)
{
  for (size_t i = 0; i < p->n; i++)
    if (same_device (&p->exceptions[i], type, r))
      {
        p->exceptions[i].access &= ~r->access;
        if (p->exceptions[i].access == 0)
          {
            memmove (&p->exceptions[i], &p->exceptions[i + 1],
                     (p->n - i - 1) * sizeof *p->exceptions);
            p->n--;
          }
        return;
      }
}

static int
check_rule (const struct bpf_dev_rule *r, size_t i, agentrt_error_t *err)
{
  if (r->type != 'a' && r->type != 'c' && r->type != 'b')
    return agentrt_error (err, 0, "device rule %zu: invalid type `%c`", i,
                          r->type);
  if (r->major < -1 || r->major > UINT32_MAX || r->minor < -1
      || r->minor > UINT32_MAX)
    return agentrt_error (err, 0, "device rule %zu: major/minor out of range",
                          i);
  if (r->access == 0 || (r->access & ~BPF_DEV_RWM))
    return agentrt_error (err, 0, "device rule %zu: invalid access", i);
  return 0;
}

int
bpf_devices_policy (const struct bpf_dev_rule *rules, size_t n,
                    struct bpf_dev_policy *p, agentrt_error_t *err)
{
  memset (p, 0, sizeof *p);
  if (n > BPF_DEVICES_MAX_RULES)
    return agentrt_error (err, E2BIG, "%zu device rules (at most %u)", n,
                          BPF_DEVICES_MAX_RULES);
  for (size_t i = 0; i < n; i++)
    {
      const struct bpf_dev_rule *r = &rules[i];
      char types[2] = { r->type, 0 };

      if (check_rule (r, i, err) < 0)
        {
          bpf_devices_policy_release (p);
          return -1;
        }
      if (r->type == 'a' && r->major == -1 && r->minor == -1
          && r->access == BPF_DEV_RWM)
        {
          p->default_allow = r->allow;
          p->n = 0;
          continue;
        }
      if (r->type == 'a')
        types[0] = 'c', types[1] = 'b';
      for (size_t t = 0; t < 2 && types[t]; t++)
        {
          if (r->allow == p->default_allow)
            remove_exception (p, types[t], r);
          else
            add_exception (p, types[t], r);
        }
    }
  return 0;
}

void
bpf_devices_policy_release (struct bpf_dev_policy *p)
{
  free (p->exceptions);
  memset (p, 0, sizeof *p);
}

#define INSN(c, d, s, o, i)                                                 \
  ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s),          \
                      .off = (o), .imm = (i) })
#define LDX_W(dst, src, off) INSN (BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0)
#define ALU32_K(op, dst, imm) INSN (BPF_ALU | (op) | BPF_K, dst, 0, 0, imm)
#define MOV32_X(dst, src) INSN (BPF_ALU | BPF_MOV | BPF_X, dst, src, 0, 0)
#define JMP32_K(op, dst, imm, off) INSN (BPF_JMP32 | (op) | BPF_K, dst, 0, off, imm)
#define MOV64_K(dst, imm) INSN (BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define EXIT() INSN (BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* Registers after the prologue: r2 device type, r3 requested access,
 * r4 major, r5 minor (struct bpf_cgroup_dev_ctx). */
static size_t
emit_exception (struct bpf_insn *out, const struct bpf_dev_rule *e,
                bool default_allow)
{
  bool check_access = e->access != BPF_DEV_RWM;
  size_t len = 2 + (e->major >= 0) + (e->minor >= 0) + 1 + 3 * check_access;
  size_t k = 0;

  /* Every "no match" jump lands on the instruction after the block. */
#define SKIP ((short) (len - k - 1))
  out[k] = JMP32_K (BPF_JNE, 2,
                    e->type == 'c' ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK,
                    SKIP);
  k++;
  if (e->major >= 0)
    {
      out[k] = JMP32_K (BPF_JNE, 4, (int32_t) (uint32_t) e->major, SKIP);
      k++;
    }
  if (e->minor >= 0)
    {
      out[k] = JMP32_K (BPF_JNE, 5, (int32_t) (uint32_t) e->minor, SKIP);
      k++;
    }
  if (check_access)
    {
      out[k++] = MOV32_X (1, 3);
      if (default_allow)
        {
          /* A deny exception matches when any requested bit is denied. */
          out[k++] = ALU32_K (BPF_AND, 1, (int32_t) e->access);
          out[k] = JMP32_K (BPF_JEQ, 1, 0, SKIP);
        }
      else
        {
          /* An allow exception matches when it covers every requested bit. */
          out[k++] = ALU32_K (BPF_AND, 1, (int32_t) (~e->access & BPF_DEV_RWM));
          out[k] = JMP32_K (BPF_JNE, 1, 0, SKIP);
        }
      k++;
    }
#undef SKIP
  out[k++] = MOV64_K (0, default_allow ? 0 : 1);
  out[k++] = EXIT ();
  return k;
}

int
bpf_devices_program (const struct bpf_dev_policy *p, struct bpf_insn **insns,
                     size_t *n_insns, agentrt_error_t *err)
{
  size_t max = 8 + p->n * 9, k = 0;
  struct bpf_insn *out;

  if (p->n > 2 * BPF_DEVICES_MAX_RULES)
    return agentrt_error (err, E2BIG, "too many device exceptions");
  out = xreallocarray (NULL, max, sizeof *out);
  out[k++] = LDX_W (2, 1, 0); /* access_type = (access << 16) | type */
  out[k++] = MOV32_X (3, 2);
  out[k++] = ALU32_K (BPF_AND, 2, 0xffff);
  out[k++] = ALU32_K (BPF_RSH, 3, 16);
  out[k++] = LDX_W (4, 1, 4); /* major */
  out[k++] = LDX_W (5, 1, 8); /* minor */
  for (size_t i = 0; i < p->n; i++)
    k += emit_exception (out + k, &p->exceptions[i], p->default_allow);
  out[k++] = MOV64_K (0, p->default_allow ? 1 : 0);
  out[k++] = EXIT ();
  *insns = out;
  *n_insns = k;
  return 0;
}

static long
sys_bpf (int cmd, union bpf_attr *attr)
{
  return syscall (SYS_bpf, cmd, attr, sizeof *attr);
}

int
bpf_devices_load (const struct bpf_insn *insns, size_t n_insns,
                  agentrt_error_t *err)
{
  static const char license[] = "GPL";
  union bpf_attr attr;
  char log[4096];
  int fd;

  memset (&attr, 0, sizeof attr);
  attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  attr.insns = (uintptr_t) insns;
  attr.insn_cnt = (uint32_t) n_insns;
  attr.license = (uintptr_t) license;
  memcpy (attr.prog_name, PROG_NAME, sizeof PROG_NAME);
  fd = (int) sys_bpf (BPF_PROG_LOAD, &attr);
  if (fd >= 0)
    return fd;
  if (errno != EINVAL && errno != EACCES)
    return agentrt_error (err, errno, "load the device eBPF program");
  /* Load again with the verifier's log to say why. */
  log[0] = '\0';
  attr.log_level = 1;
  attr.log_buf = (uintptr_t) log;
  attr.log_size = sizeof log;
  fd = (int) sys_bpf (BPF_PROG_LOAD, &attr);
  if (fd >= 0)
    return fd;
  log[strcspn (log, "\n")] = '\0';
  return agentrt_error (err, errno, "load the device eBPF program (%s)", log);
}

/* Fills ids with the programs attached for BPF_CGROUP_DEVICE. */
static int
query (int cgroup_fd, uint32_t *ids, uint32_t *n, agentrt_error_t *err)
{
  union bpf_attr attr;

  memset (&attr, 0, sizeof attr);
  attr.query.target_fd = (uint32_t) cgroup_fd;
  attr.query.attach_type = BPF_CGROUP_DEVICE;
  attr.query.prog_ids = (uintptr_t) ids;
  attr.query.prog_cnt = *n;
  if (sys_bpf (BPF_PROG_QUERY, &attr) < 0)
    return agentrt_error (err, errno, "query the cgroup's device programs");
  *n = attr.query.prog_cnt < *n ? attr.query.prog_cnt : *n;
  return 0;
}

/* fd of program `id` when it is one of agentrt's, -1 otherwise. */
static int
ours (uint32_t id)
{
  union bpf_attr attr;
  struct bpf_prog_info info;
  int fd;

  memset (&attr, 0, sizeof attr);
  attr.prog_id = id;
  fd = (int) sys_bpf (BPF_PROG_GET_FD_BY_ID, &attr);
  if (fd < 0)
    return -1;
  memset (&info, 0, sizeof info);
  memset (&attr, 0, sizeof attr);
  attr.info.bpf_fd = (uint32_t) fd;
  attr.info.info_len = sizeof info;
  attr.info.info = (uintptr_t) &info;
  if (sys_bpf (BPF_OBJ_GET_INFO_BY_FD, &attr) < 0
      || strncmp (info.name, PROG_NAME, sizeof info.name) != 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

static uint32_t
prog_id (int prog_fd)
{
  union bpf_attr attr;
  struct bpf_prog_info info;

  memset (&info, 0, sizeof info);
  memset (&attr, 0, sizeof attr);
  attr.info.bpf_fd = (uint32_t) prog_fd;
  attr.info.info_len = sizeof info;
  attr.info.info = (uintptr_t) &info;
  return sys_bpf (BPF_OBJ_GET_INFO_BY_FD, &attr) < 0 ? 0 : info.id;
}

int
bpf_devices_attach (int cgroup_fd, int prog_fd, bool replace,
                    agentrt_error_t *err)
{
  union bpf_attr attr;
  uint32_t ids[64], n = 64, self;

  memset (&attr, 0, sizeof attr);
  attr.target_fd = (uint32_t) cgroup_fd;
  attr.attach_bpf_fd = (uint32_t) prog_fd;
  attr.attach_type = BPF_CGROUP_DEVICE;
  attr.attach_flags = BPF_F_ALLOW_MULTI;
  if (sys_bpf (BPF_PROG_ATTACH, &attr) < 0)
    return agentrt_error (err, errno, "attach the device eBPF program");
  if (!replace)
    return 0;
  self = prog_id (prog_fd);
  if (query (cgroup_fd, ids, &n, err) < 0)
    return -1;
  for (uint32_t i = 0; i < n; i++)
    {
      cleanup_close int fd = ids[i] == self ? -1 : ours (ids[i]);
      if (fd < 0)
        continue;
      memset (&attr, 0, sizeof attr);
      attr.target_fd = (uint32_t) cgroup_fd;
      attr.attach_bpf_fd = (uint32_t) fd;
      attr.attach_type = BPF_CGROUP_DEVICE;
      if (sys_bpf (BPF_PROG_DETACH, &attr) < 0 && errno != ENOENT)
        return agentrt_error (err, errno,
                              "detach the previous device eBPF program");
    }
  return 0;
}

int
bpf_devices_count (int cgroup_fd, agentrt_error_t *err)
{
  uint32_t ids[64], n = 64;
  int count = 0;

  if (query (cgroup_fd, ids, &n, err) < 0)
    return -1;
  for (uint32_t i = 0; i < n; i++)
    {
      cleanup_close int fd = ours (ids[i]);
      count += fd >= 0;
    }
  return count;
}
