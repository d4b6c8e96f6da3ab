/* Compiling an OCI `linux.seccomp` object into a BPF program with libseccomp
 * (parent side), the name tables behind it, and the seccomp part of
 * `agentrt features`.  See seccomp.h for the rules followed. */
#include "config.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/seccomp/seccomp.h"
#include "runtime/seccomp/seccomp_enosys.h"
#include "runtime/seccomp/seccomp_ranges.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* Errno values fit in 12 bits (the kernel clamps larger ones). */
#define MAX_ERRNO_RET 4095
/* SCMP_ACT_TRACE's data is a 16-bit message for the tracer. */
#define MAX_TRACE_RET 0xffff
/* runc asks libseccomp for a binary-tree layout above this many rules. */
#define OPTIMIZE_MIN_RULES 32

/* The architectures libseccomp 2.5 knows, and the flags agentrt knows,
 * sorted by name: the order `features` prints them in. */
static const struct
{
  const char *name;
  uint32_t token;
} arch_table[] = {
  { "SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64 },
  { "SCMP_ARCH_ARM", SCMP_ARCH_ARM },
  { "SCMP_ARCH_MIPS", SCMP_ARCH_MIPS },
  { "SCMP_ARCH_MIPS64", SCMP_ARCH_MIPS64 },
  { "SCMP_ARCH_MIPS64N32", SCMP_ARCH_MIPS64N32 },
  { "SCMP_ARCH_MIPSEL", SCMP_ARCH_MIPSEL },
  { "SCMP_ARCH_MIPSEL64", SCMP_ARCH_MIPSEL64 },
  { "SCMP_ARCH_MIPSEL64N32", SCMP_ARCH_MIPSEL64N32 },
  { "SCMP_ARCH_PARISC", SCMP_ARCH_PARISC },
  { "SCMP_ARCH_PARISC64", SCMP_ARCH_PARISC64 },
  { "SCMP_ARCH_PPC", SCMP_ARCH_PPC },
  { "SCMP_ARCH_PPC64", SCMP_ARCH_PPC64 },
  { "SCMP_ARCH_PPC64LE", SCMP_ARCH_PPC64LE },
  { "SCMP_ARCH_RISCV64", SCMP_ARCH_RISCV64 },
  { "SCMP_ARCH_S390", SCMP_ARCH_S390 },
  { "SCMP_ARCH_S390X", SCMP_ARCH_S390X },
  { "SCMP_ARCH_X32", SCMP_ARCH_X32 },
  { "SCMP_ARCH_X86", SCMP_ARCH_X86 },
  { "SCMP_ARCH_X86_64", SCMP_ARCH_X86_64 },
};

static const struct
{
  const char *name;
  unsigned int flag;
} flag_table[] = {
  { "SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG },
  { "SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
  { "SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
  { "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV",
    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV },
};

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))

struct seen_rule
{
  int nr;
  size_t rule; /* index in syscalls[] */
  uint32_t action;
  bool conditional;
};

struct compile
{
  const struct oci_seccomp *seccomp;
  const char *prefix; /* "" or "linux.seccomp." */
  struct str_list *notes;
  scmp_filter_ctx ctx;
  uint32_t default_action;
  bool notify;
  struct seen_rule *seen;
  size_t n_seen;
  /* The ranges prologue's syscalls, sorted by number. */
  uint32_t *ranged;
  size_t n_ranged;
};

/* OCI operator -> libseccomp's; -1 when unknown. */
static int
scmp_compare_of (enum oci_seccomp_op op)
{
  switch (op)
    {
    case OCI_SECCOMP_OP_NE:
      return SCMP_CMP_NE;
    case OCI_SECCOMP_OP_LT:
      return SCMP_CMP_LT;
    case OCI_SECCOMP_OP_LE:
      return SCMP_CMP_LE;
    case OCI_SECCOMP_OP_EQ:
      return SCMP_CMP_EQ;
    case OCI_SECCOMP_OP_GE:
      return SCMP_CMP_GE;
    case OCI_SECCOMP_OP_GT:
      return SCMP_CMP_GT;
    case OCI_SECCOMP_OP_MASKED_EQ:
      return SCMP_CMP_MASKED_EQ;
    }
  return -1;
}

/* OCI action (+ errnoRet) -> libseccomp action.  `path` is the JSON path
 * prefix of the fields ("linux.seccomp.syscalls[3]." for a rule). */
static int
resolve_action (enum oci_seccomp_action action, bool has_ret, uint32_t ret,
                const char *path, const char *action_field,
                const char *ret_field, uint32_t *out, agentrt_error_t *err)
{
  if (oci_seccomp_action_name (action) == NULL)
    return agentrt_error (err, 0, "%s%s: unknown action %d", path,
                          action_field, (int) action);
  if (has_ret && action != OCI_SECCOMP_ACT_ERRNO
      && action != OCI_SECCOMP_ACT_TRACE)
    return agentrt_error (err, 0, "%s%s: not valid with action %s", path,
                          ret_field, oci_seccomp_action_name (action));
  if (!has_ret)
    ret = EPERM;
  switch (action)
    {
    case OCI_SECCOMP_ACT_KILL:
    case OCI_SECCOMP_ACT_KILL_THREAD:
      *out = SCMP_ACT_KILL_THREAD;
      return 0;
    case OCI_SECCOMP_ACT_KILL_PROCESS:
      *out = SCMP_ACT_KILL_PROCESS;
      return 0;
    case OCI_SECCOMP_ACT_TRAP:
      *out = SCMP_ACT_TRAP;
      return 0;
    case OCI_SECCOMP_ACT_ERRNO:
      if (ret > MAX_ERRNO_RET)
        return agentrt_error (err, 0, "%s%s: %u is not an errno value (0..%d)",
                              path, ret_field, ret, MAX_ERRNO_RET);
      *out = SCMP_ACT_ERRNO (ret);
      return 0;
    case OCI_SECCOMP_ACT_TRACE:
      if (ret > MAX_TRACE_RET)
        return agentrt_error (err, 0, "%s%s: %u does not fit in 16 bits",
                              path, ret_field, ret);
      *out = SCMP_ACT_TRACE (ret);
      return 0;
    case OCI_SECCOMP_ACT_ALLOW:
      *out = SCMP_ACT_ALLOW;
      return 0;
    case OCI_SECCOMP_ACT_LOG:
      *out = SCMP_ACT_LOG;
      return 0;
    case OCI_SECCOMP_ACT_NOTIFY:
      *out = SCMP_ACT_NOTIFY;
      return 0;
    }
  return agentrt_error (err, 0, "%s%s: unknown action", path, action_field);
}

/* Kernel precedence: a lower value wins when filters or rules disagree. */
static int32_t
precedence (uint32_t action)
{
  return (int32_t) (action & SECCOMP_RET_ACTION_FULL);
}

/* Actions newer than seccomp itself need a kernel that knows them (4.14 for
 * KILL_PROCESS and LOG, 5.0 for NOTIFY); libseccomp would only say EINVAL. */
static int
check_action_available (uint32_t action, enum oci_seccomp_action oci,
                        const char *path, const char *field,
                        agentrt_error_t *err)
{
  uint32_t probe = action & SECCOMP_RET_ACTION_FULL;

  if (oci != OCI_SECCOMP_ACT_KILL_PROCESS && oci != OCI_SECCOMP_ACT_LOG
      && oci != OCI_SECCOMP_ACT_NOTIFY)
    return 0;
  if (syscall (SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &probe) == 0)
    return 0;
  return agentrt_error (err, errno, "%s%s: %s is not supported by this kernel",
                        path, field, oci_seccomp_action_name (oci));
}

unsigned int
seccomp_flag_from_name (const char *name)
{
  size_t i;
  for (i = 0; i < N_ELEMENTS (flag_table); i++)
    if (strcmp (flag_table[i].name, name) == 0)
      return flag_table[i].flag;
  return 0;
}

bool
seccomp_flag_supported (unsigned int flag)
{
  unsigned int probe = flag;

  /* The kernel takes WAIT_KILLABLE_RECV only together with a listener. */
  if (flag & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
    probe |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
  /* Flags are checked before the (NULL) program is read: EFAULT means the
   * kernel knows them, EINVAL that it does not. */
  return syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, probe, NULL) < 0
         && errno == EFAULT;
}

static int
resolve_flags (const struct compile *c, unsigned int *flags,
               agentrt_error_t *err)
{
  const struct str_list *names = &c->seccomp->flags;
  size_t i;

  *flags = 0;
  for (i = 0; i < names->len; i++)
    {
      unsigned int flag = seccomp_flag_from_name (names->items[i]);
      if (flag == 0)
        return agentrt_error (err, 0, "%sflags[%zu]: unknown flag `%s`",
                              c->prefix, i, names->items[i]);
      if (!seccomp_flag_supported (flag))
        return agentrt_error (err, 0,
                              "%sflags[%zu]: `%s` is not supported by this "
                              "kernel",
                              c->prefix, i, names->items[i]);
      *flags |= flag;
    }
  if (c->notify)
    {
      *flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
      /* TSYNC with a listener needs TSYNC_ESRCH (else EINVAL). */
      if (*flags & SECCOMP_FILTER_FLAG_TSYNC)
        *flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
    }
  else
    /* Only meaningful for a listener; the kernel refuses it without one. */
    *flags &= ~(unsigned int) SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
  return 0;
}

/* The libseccomp token of an SCMP_ARCH_* name, 0 when unknown. */
static uint32_t
arch_token (const char *name)
{
  size_t i;

  for (i = 0; i < N_ELEMENTS (arch_table); i++)
    if (strcmp (arch_table[i].name, name) == 0)
      return arch_table[i].token;
  return 0;
}

static int
add_architectures (const struct compile *c, agentrt_error_t *err)
{
  const struct str_list *archs = &c->seccomp->architectures;
  size_t i;

  for (i = 0; i < archs->len; i++)
    {
      uint32_t token = arch_token (archs->items[i]);
      if (token == 0)
        return agentrt_error (err, 0,
                              "%sarchitectures[%zu]: unknown architecture "
                              "`%s`",
                              c->prefix, i, archs->items[i]);
      int ret = seccomp_arch_add (c->ctx, token);
      if (ret < 0 && ret != -EEXIST)
        return agentrt_error (err, -ret, "%sarchitectures[%zu]: add `%s`",
                              c->prefix, i, archs->items[i]);
    }
  return 0;
}

/* Fills cmps[] from the rule's args; *same_arg tells whether two of them
 * test the same argument (libseccomp cannot AND those in one rule). */
static int
build_conditions (const struct compile *c, size_t r, struct scmp_arg_cmp *cmps,
                  bool *same_arg, agentrt_error_t *err)
{
  const struct oci_seccomp_rule *rule = &c->seccomp->syscalls[r];
  unsigned int seen = 0;
  size_t k;

  *same_arg = false;
  for (k = 0; k < rule->n_args; k++)
    {
      const struct oci_seccomp_arg *arg = &rule->args[k];

      if (arg->index > 5)
        return agentrt_error (err, 0,
                              "%ssyscalls[%zu].args[%zu].index: %u is not a "
                              "syscall argument (0..5)",
                              c->prefix, r, k, arg->index);
      int op = scmp_compare_of (arg->op);
      if (op < 0)
        return agentrt_error (err, 0,
                              "%ssyscalls[%zu].args[%zu].op: unknown operator "
                              "%d",
                              c->prefix, r, k, (int) arg->op);
      if (seen & (1u << arg->index))
        *same_arg = true;
      seen |= 1u << arg->index;
      /* MASKED_EQ: value is the mask, valueTwo the expected result. */
      cmps[k] = (struct scmp_arg_cmp){
        .arg = arg->index,
        .op = (enum scmp_compare) op,
        .datum_a = arg->value,
        .datum_b = arg->op == OCI_SECCOMP_OP_MASKED_EQ ? arg->value_two : 0,
      };
    }
  return 0;
}

static void
add_note (const struct compile *c, char *line)
{
  if (c->notes)
    str_list_append (c->notes, line);
  free (line);
}

/* libseccomp lets an unconditional rule for a syscall silently win over
 * every other rule for it (the first unconditional one over later ones):
 * note it so that a surprising profile is visible with --debug. */
static void
track_shadowing (struct compile *c, size_t r, size_t j, int nr,
                 uint32_t action, bool conditional)
{
  const char *name = c->seccomp->syscalls[r].names.items[j];
  size_t i;

  for (i = 0; i < c->n_seen; i++)
    {
      const struct seen_rule *s = &c->seen[i];
      if (s->nr != nr || s->action == action
          || (s->conditional && conditional))
        continue;
      add_note (c, xasprintf ("%ssyscalls[%zu].names[%zu]: `%s` also has a "
                              "rule in syscalls[%zu]; the unconditional one "
                              "decides",
                              c->prefix, r, j, name, s->rule));
      break;
    }
  c->seen = xreallocarray (c->seen, c->n_seen + 1, sizeof (*c->seen));
  c->seen[c->n_seen++] = (struct seen_rule){ nr, r, action, conditional };
}

static int
compare_u32 (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return (x > y) - (x < y);
}

static bool
is_ranged (const struct compile *c, int nr)
{
  uint32_t key = (uint32_t) nr;
  return nr >= 0 && c->n_ranged
         && bsearch (&key, c->ranged, c->n_ranged, sizeof (key), compare_u32);
}

static int
add_syscall (struct compile *c, size_t r, size_t j, uint32_t action,
             const struct scmp_arg_cmp *cmps, bool split,
             agentrt_error_t *err)
{
  const struct oci_seccomp_rule *rule = &c->seccomp->syscalls[r];
  const char *name = rule->names.items[j];
  int nr, ret = 0;
  size_t k;

  nr = seccomp_syscall_resolve_name (name);
  if (nr == __NR_SCMP_ERROR)
    {
      add_note (c, xasprintf ("%ssyscalls[%zu].names[%zu]: unknown syscall "
                              "`%s` ignored",
                              c->prefix, r, j, name));
      return 0;
    }
  if (is_ranged (c, nr))
    return 0; /* the ranges prologue allows it */
  track_shadowing (c, r, j, nr, action, rule->n_args > 0);
  if (!split)
    ret = seccomp_rule_add_array (c->ctx, action, nr,
                                  (unsigned int) rule->n_args, cmps);
  for (k = 0; split && k < rule->n_args && ret == 0; k++)
    ret = seccomp_rule_add_array (c->ctx, action, nr, 1, &cmps[k]);
  if (ret == -EEXIST)
    return agentrt_error (err, 0,
                          "%ssyscalls[%zu].names[%zu]: `%s` has another rule "
                          "with the same conditions and a different action",
                          c->prefix, r, j, name);
  if (ret < 0)
    return agentrt_error (err, -ret, "%ssyscalls[%zu].names[%zu]: add `%s`",
                          c->prefix, r, j, name);
  return 0;
}

/* The syscalls the container's process makes between installing a filter
 * and the listener reaching the agent (runc refuses `write` for the same
 * reason; agentrt's sync socket uses sendmsg). */
static bool
hands_over_listener (const char *name)
{
  return strcmp (name, "sendmsg") == 0 || strcmp (name, "write") == 0;
}

static int
compile_rule (struct compile *c, size_t r, agentrt_error_t *err)
{
  const struct oci_seccomp_rule *rule = &c->seccomp->syscalls[r];
  cleanup_free struct scmp_arg_cmp *cmps = NULL;
  cleanup_free char *path = xasprintf ("%ssyscalls[%zu].", c->prefix, r);
  uint32_t action;
  bool split;
  size_t j;

  if (resolve_action (rule->action, rule->has_errno_ret, rule->errno_ret,
                      path, "action", "errnoRet", &action, err)
      < 0)
    return -1;
  cmps = xreallocarray (NULL, rule->n_args, sizeof (*cmps));
  if (build_conditions (c, r, cmps, &split, err) < 0)
    return -1;
  /* OR of the conditions is wider than their AND: acceptable only when the
   * rule is at least as strict as the default. */
  if (split && precedence (action) > precedence (c->default_action))
    return agentrt_error (err, 0,
                          "%sargs: several conditions on one argument would "
                          "be OR'ed (libseccomp cannot AND them), widening "
                          "what %s permits; write one rule per range",
                          path, oci_seccomp_action_name (rule->action));
  for (j = 0; j < rule->names.len; j++)
    {
      const char *name = rule->names.items[j];
      if (name[0] == '\0')
        return agentrt_error (err, 0, "%snames[%zu]: empty syscall name",
                              path, j);
      if (rule->action == OCI_SECCOMP_ACT_NOTIFY && hands_over_listener (name))
        return agentrt_error (err, 0,
                              "%snames[%zu]: SCMP_ACT_NOTIFY cannot be used "
                              "for `%s`: the runtime calls it to hand the "
                              "listener over, before anyone could answer",
                              path, j, name);
    }
  if (check_action_available (action, rule->action, path, "action", err) < 0)
    return -1;
  if (split)
    add_note (c, xasprintf ("%sargs: conditions on one argument OR'ed", path));
  if (action == c->default_action)
    return 0; /* redundant; libseccomp would refuse it */
  for (j = 0; j < rule->names.len; j++)
    if (add_syscall (c, r, j, action, cmps, split, err) < 0)
      return -1;
  return 0;
}

/* libseccomp 2.5 exports only to an fd: go through a memfd. */
static int
export_bpf (scmp_filter_ctx ctx, struct sock_filter **insns, size_t *len,
            agentrt_error_t *err)
{
  cleanup_close int fd = memfd_create ("agentrt-seccomp", MFD_CLOEXEC);
  struct stat st;
  ssize_t n;
  int ret;

  if (fd < 0)
    return agentrt_error (err, errno, "seccomp: memfd_create");
  ret = seccomp_export_bpf (ctx, fd);
  if (ret < 0)
    return agentrt_error (err, -ret, "seccomp: export the BPF program");
  if (fstat (fd, &st) < 0)
    return agentrt_error (err, errno, "seccomp: fstat the exported program");
  if (st.st_size <= 0 || st.st_size % sizeof (struct sock_filter) != 0)
    return agentrt_error (err, 0, "seccomp: libseccomp exported %lld bytes",
                          (long long) st.st_size);
  *len = (size_t) st.st_size / sizeof (struct sock_filter);
  *insns = xreallocarray (NULL, *len, sizeof (struct sock_filter));
  n = pread (fd, *insns, (size_t) st.st_size, 0);
  if (n != st.st_size)
    {
      free (*insns);
      *insns = NULL;
      return agentrt_error (err, n < 0 ? errno : EIO,
                            "seccomp: read the exported program");
    }
  return 0;
}

/* Highest syscall number, per architecture of the filter, among every name
 * of every rule (even rules dropped as redundant: the profile knew them). */
static size_t
collect_max_numbers (const struct compile *c, struct enosys_arch *archs,
                     size_t max_archs)
{
  const struct oci_seccomp *s = c->seccomp;
  size_t n = 0, i, a, r, j;

  archs[n++] = (struct enosys_arch){ .token = seccomp_arch_native () };
  for (i = 0; i < s->architectures.len && n < max_archs; i++)
    {
      uint32_t token = arch_token (s->architectures.items[i]);
      for (j = 0; j < n && archs[j].token != token; j++)
        ;
      if (token && j == n)
        archs[n++] = (struct enosys_arch){ .token = token };
    }
  for (a = 0; a < n; a++)
    for (r = 0; r < s->n_syscalls; r++)
      for (j = 0; j < s->syscalls[r].names.len; j++)
        {
          int nr = seccomp_syscall_resolve_name_arch (
              archs[a].token, s->syscalls[r].names.items[j]);
          if (nr >= 0 && (uint32_t) nr > archs[a].max_nr)
            archs[a].max_nr = (uint32_t) nr;
        }
  return n;
}

/* Whether the filter is for the native architecture alone: other
 * architectures need libseccomp's rule for every name. */
static bool
native_only (const struct compile *c)
{
  const struct str_list *archs = &c->seccomp->architectures;
  size_t i;

  for (i = 0; i < archs->len; i++)
    if (arch_token (archs->items[i]) != seccomp_arch_native ())
      return false;
  return true;
}

/* The syscalls for the ranges prologue: allowed by a rule without
 * conditions and named by no other rule (whose action or conditions would
 * have to be weighed against it), in a filter whose default is not to
 * allow; none when the prologue would not be shorter. */
static void
collect_ranged (struct compile *c)
{
  const struct oci_seccomp *s = c->seccomp;
  cleanup_free unsigned *uses = NULL;
  cleanup_free bool *plain_allow = NULL;
  size_t n_nrs = 0, r, j, nr, len;

  if (c->default_action == SCMP_ACT_ALLOW || !native_only (c))
    return;
  for (r = 0; r < s->n_syscalls; r++)
    for (j = 0; j < s->syscalls[r].names.len; j++)
      {
        int k = seccomp_syscall_resolve_name (s->syscalls[r].names.items[j]);
        if (k < 0)
          continue;
        if ((size_t) k >= n_nrs)
          {
            size_t n = (size_t) k + 1;
            uses = xreallocarray (uses, n, sizeof (*uses));
            plain_allow = xreallocarray (plain_allow, n, sizeof (*plain_allow));
            memset (uses + n_nrs, 0, (n - n_nrs) * sizeof (*uses));
            memset (plain_allow + n_nrs, 0, (n - n_nrs) * sizeof (*plain_allow));
            n_nrs = n;
          }
        uses[k]++;
        plain_allow[k] = s->syscalls[r].action == OCI_SECCOMP_ACT_ALLOW
                         && s->syscalls[r].n_args == 0;
      }
  for (nr = 0; nr < n_nrs; nr++)
    if (uses[nr] == 1 && plain_allow[nr])
      {
        c->ranged = xreallocarray (c->ranged, c->n_ranged + 1,
                                   sizeof (*c->ranged));
        c->ranged[c->n_ranged++] = (uint32_t) nr;
      }
  /* libseccomp spends at least one instruction per syscall: a prologue no
   * longer than the syscalls it takes never makes the program longer (nor
   * past the kernel's limit). */
  len = seccomp_ranges_length (c->ranged, c->n_ranged);
  if (len == 0 || len > c->n_ranged)
    c->n_ranged = 0;
}

static bool
default_denies (uint32_t action)
{
  return precedence (action) <= precedence (SCMP_ACT_ERRNO (0))
         && action != SCMP_ACT_ERRNO (ENOSYS);
}

static int
compile_filter (struct compile *c, struct sock_filter **insns, size_t *len,
                agentrt_error_t *err)
{
  struct enosys_arch archs[N_ELEMENTS (arch_table) + 1];
  size_t r, n_archs;
  int ret;

  if (add_architectures (c, err) < 0)
    return -1;
  for (r = 0; r < c->seccomp->n_syscalls; r++)
    if (compile_rule (c, r, err) < 0)
      return -1;
  /* Counted on the rules added: libseccomp <= 2.5.4 misbehaves with the
   * tree layout and no rules. */
  if (c->n_seen > OPTIMIZE_MIN_RULES)
    {
      ret = seccomp_attr_set (c->ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
      if (ret < 0)
        return agentrt_error (err, -ret, "seccomp: binary tree layout");
    }
  if (export_bpf (c->ctx, insns, len, err) < 0)
    return -1;
  if (default_denies (c->default_action))
    {
      n_archs = collect_max_numbers (c, archs, N_ELEMENTS (archs));
      if (seccomp_enosys_prepend (insns, len, archs, n_archs, err) < 0)
        return -1;
    }
  if (c->n_ranged)
    return seccomp_ranges_prepend (insns, len, seccomp_arch_native (),
                                   c->ranged, c->n_ranged, err);
  if (*len > BPF_MAXINSNS)
    return agentrt_error (err, 0,
                          "seccomp: the filter has %zu instructions, the "
                          "kernel accepts at most %d",
                          *len, BPF_MAXINSNS);
  return 0;
}

/* Checks of the object as a whole, before compiling any rule. */
static int
check_object (struct compile *c, agentrt_error_t *err)
{
  const struct oci_seccomp *s = c->seccomp;
  size_t r;

  if (resolve_action (s->default_action, s->has_default_errno_ret,
                      s->default_errno_ret, c->prefix, "defaultAction",
                      "defaultErrnoRet", &c->default_action, err)
      < 0)
    return -1;
  if (s->default_action == OCI_SECCOMP_ACT_NOTIFY)
    return agentrt_error (err, 0,
                          "%sdefaultAction: SCMP_ACT_NOTIFY cannot be the "
                          "default (the runtime's own write(2) would wait on "
                          "the listener)",
                          c->prefix);
  if (check_action_available (c->default_action, s->default_action,
                              c->prefix, "defaultAction", err)
      < 0)
    return -1;
  for (r = 0; r < s->n_syscalls; r++)
    if (s->syscalls[r].action == OCI_SECCOMP_ACT_NOTIFY)
      c->notify = true;
  if (c->notify && s->listener_path == NULL)
    return agentrt_error (err, 0,
                          "%slistenerPath: required with SCMP_ACT_NOTIFY",
                          c->prefix);
  return 0;
}

struct seccomp_program *
seccomp_compile (const struct oci_seccomp *seccomp, const char *path,
                 struct str_list *notes, agentrt_error_t *err)
{
  return seccomp_compile_layout (seccomp, path, notes, true, err);
}

struct seccomp_program *
seccomp_compile_layout (const struct oci_seccomp *seccomp, const char *path,
                        struct str_list *notes, bool ranges,
                        agentrt_error_t *err)
{
  cleanup_free char *prefix = xasprintf ("%s%s", path, path[0] ? "." : "");
  struct compile c = { .seccomp = seccomp, .prefix = prefix, .notes = notes };
  cleanup_free struct sock_filter *insns = NULL;
  struct seccomp_program *program;
  unsigned int flags = 0;
  size_t len = 0;
  int ret;

  if (check_object (&c, err) < 0)
    return NULL;
  c.ctx = seccomp_init (c.default_action);
  if (c.ctx == NULL)
    {
      agentrt_error (err, 0, "seccomp: seccomp_init failed");
      return NULL;
    }
  if (ranges)
    collect_ranged (&c);
  ret = compile_filter (&c, &insns, &len, err);
  if (ret == 0)
    ret = resolve_flags (&c, &flags, err);
  seccomp_release (c.ctx);
  free (c.seen);
  free (c.ranged);
  if (ret < 0)
    return NULL;
  program = xzalloc (sizeof (*program));
  program->insns = steal_pointer (&insns);
  program->len = (unsigned short) len;
  program->flags = flags;
  return program;
}

struct seccomp_program *
seccomp_program_new (const struct sock_filter *insns, size_t len,
                     unsigned int flags)
{
  struct seccomp_program *program = xzalloc (sizeof (*program));

  program->insns = xreallocarray (NULL, len, sizeof (*insns));
  memcpy (program->insns, insns, len * sizeof (*insns));
  program->len = (unsigned short) len;
  program->flags = flags;
  return program;
}

void
seccomp_program_free (struct seccomp_program *program)
{
  if (program == NULL)
    return;
  free (program->insns);
  free (program);
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

void
seccomp_features_get (struct seccomp_features *features)
{
  size_t i, n = 0;

  memset (features, 0, sizeof (*features));
  for (i = 0; i <= OCI_SECCOMP_ACT_NOTIFY; i++)
    features->actions[i] = oci_seccomp_action_name (i);
  qsort (features->actions, i, sizeof (char *), compare_names);
  for (i = 0; i <= OCI_SECCOMP_OP_MASKED_EQ; i++)
    features->operators[i] = oci_seccomp_op_name (i);
  qsort (features->operators, i, sizeof (char *), compare_names);
  for (i = 0; i < N_ELEMENTS (arch_table); i++)
    features->archs[i] = arch_table[i].name;
  for (i = 0; i < N_ELEMENTS (flag_table); i++)
    {
      features->known_flags[i] = flag_table[i].name;
      if (seccomp_flag_supported (flag_table[i].flag))
        features->supported_flags[n++] = flag_table[i].name;
    }
}
