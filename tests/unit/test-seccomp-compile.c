/* Unit tests of runtime/seccomp/seccomp.c: compiling OCI seccomp objects (errors
 * name their JSON path; bad actions, operators, arguments and flags are
 * refused) and, through a small BPF interpreter, what the compiled
 * agent-default profile decides for hostile syscalls.  No root needed: the
 * programs are evaluated here, not installed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/seccomp/seccomp.h"
#include "tests/unit/seccomp_test.h"
#include "tests/unit/unit.h"

#define PROFILE SECCOMP_PROFILE_DIR "/agent-default.json"
#define RET_EPERM (SECCOMP_RET_ERRNO | EPERM)
#define RET_ENOSYS (SECCOMP_RET_ERRNO | ENOSYS)

/* seccomp(2) itself (valgrind does not emulate it): without it, the actions
 * and flags that need kernel support cannot be compiled, and those cases are
 * skipped with a note. */
static bool
kernel_has_seccomp (void)
{
  uint32_t action = SECCOMP_RET_LOG;
  return syscall (SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

static void
skip_note (const char *what)
{
  printf ("SKIP %s: %s (seccomp(2) unavailable here, e.g. under valgrind)\n",
          unit_current, what);
}

static uint32_t
call_arch (const struct seccomp_program *p, uint32_t arch, int nr,
           uint64_t a0, uint64_t a1, uint64_t a2)
{
  struct seccomp_data d = { .nr = nr, .arch = arch, .args = { a0, a1, a2 } };
  return bpf_eval (p, &d);
}

static uint32_t
call (const struct seccomp_program *p, int nr, uint64_t a0, uint64_t a1,
      uint64_t a2)
{
  return call_arch (p, AUDIT_ARCH_X86_64, nr, a0, a1, a2);
}

/* ---- building configs in C */

struct fixture
{
  struct oci_seccomp s;
  struct oci_seccomp_rule rules[4];
  struct oci_seccomp_arg args[4][4];
  char *names[4][4];
  char *flags[4];
  char *archs[4];
};

static void
fixture_init (struct fixture *f, enum oci_seccomp_action def)
{
  memset (f, 0, sizeof (*f));
  f->s.default_action = def;
  f->s.syscalls = f->rules;
  f->s.flags.items = f->flags;
  f->s.architectures.items = f->archs;
}

static struct oci_seccomp_rule *
add_rule (struct fixture *f, enum oci_seccomp_action action, const char *name)
{
  size_t i = f->s.n_syscalls++;
  struct oci_seccomp_rule *r = &f->rules[i];

  r->action = action;
  r->names.items = f->names[i];
  r->args = f->args[i];
  if (name)
    r->names.items[r->names.len++] = (char *) name;
  return r;
}

static void
add_arg (struct oci_seccomp_rule *r, uint32_t index, enum oci_seccomp_op op,
         uint64_t value, uint64_t value_two)
{
  r->args[r->n_args++] = (struct oci_seccomp_arg){ index, value, value_two, op };
}

/* Compiles and expects an error containing `needle`. */
static void
expect_error (const struct fixture *f, const char *needle)
{
  cleanup_error agentrt_error_t err = NULL;
  struct seccomp_program *p = seccomp_compile (&f->s, "linux.seccomp", NULL,
                                               &err);
  CHECK (p == NULL);
  CHECK (err != NULL);
  if (err)
    CHECK_CONTAINS (err->msg, needle);
  seccomp_program_free (p);
}

static struct seccomp_program *
expect_ok (const struct fixture *f, struct str_list *notes)
{
  cleanup_error agentrt_error_t err = NULL;
  struct seccomp_program *p = seccomp_compile (&f->s, "linux.seccomp", notes,
                                               &err);
  CHECK (p != NULL);
  if (err)
    fprintf (stderr, "%s: unexpected error: %s\n", unit_current, err->msg);
  return p;
}

/* ---- hostile configurations first */

static void
test_refuses_bad_fields (void)
{
  struct fixture f;
  struct oci_seccomp_rule *r;

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "getpid");
  r = add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "read");
  add_arg (r, 6, OCI_SECCOMP_OP_EQ, 1, 0);
  expect_error (&f, "linux.seccomp.syscalls[1].args[0].index: 6 is not");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  r = add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "read");
  add_arg (r, 0, (enum oci_seccomp_op) 42, 1, 0);
  expect_error (&f, "linux.seccomp.syscalls[0].args[0].op: unknown operator");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  add_rule (&f, (enum oci_seccomp_action) 99, "read");
  expect_error (&f, "linux.seccomp.syscalls[0].action: unknown action");

  fixture_init (&f, (enum oci_seccomp_action) -1);
  expect_error (&f, "linux.seccomp.defaultAction: unknown action");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  r = add_rule (&f, OCI_SECCOMP_ACT_KILL, "read");
  r->has_errno_ret = true;
  r->errno_ret = 1;
  expect_error (&f, "linux.seccomp.syscalls[0].errnoRet: not valid with "
                    "action SCMP_ACT_KILL");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  f.s.has_default_errno_ret = true;
  expect_error (&f, "linux.seccomp.defaultErrnoRet: not valid");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  r = add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "read");
  r->has_errno_ret = true;
  r->errno_ret = 70000; /* would spill into the action bits */
  expect_error (&f, "linux.seccomp.syscalls[0].errnoRet: 70000 is not an errno");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "");
  expect_error (&f, "linux.seccomp.syscalls[0].names[0]: empty syscall name");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  f.flags[f.s.flags.len++] = "SECCOMP_FILTER_FLAG_BOGUS";
  expect_error (&f, "linux.seccomp.flags[0]: unknown flag "
                    "`SECCOMP_FILTER_FLAG_BOGUS`");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  f.archs[f.s.architectures.len++] = "SCMP_ARCH_X86_64";
  f.archs[f.s.architectures.len++] = "SCMP_ARCH_LOONGARCH64";
  expect_error (&f, "linux.seccomp.architectures[1]: unknown architecture");
}

static void
test_refuses_notify_misuse (void)
{
  struct fixture f;
  struct oci_seccomp_rule *r;

  fixture_init (&f, OCI_SECCOMP_ACT_NOTIFY);
  f.s.listener_path = "/run/agent.sock";
  expect_error (&f, "linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  f.s.listener_path = "/run/agent.sock";
  r = add_rule (&f, OCI_SECCOMP_ACT_NOTIFY, "mknod");
  r->names.items[r->names.len++] = "write";
  expect_error (&f, "linux.seccomp.syscalls[0].names[1]: SCMP_ACT_NOTIFY "
                    "cannot be used for `write`");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  f.s.listener_path = "/run/agent.sock";
  add_rule (&f, OCI_SECCOMP_ACT_NOTIFY, "sendmsg");
  expect_error (&f, "linux.seccomp.syscalls[0].names[0]: SCMP_ACT_NOTIFY "
                    "cannot be used for `sendmsg`: the runtime calls it");

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  add_rule (&f, OCI_SECCOMP_ACT_NOTIFY, "mknod");
  expect_error (&f, "linux.seccomp.listenerPath: required");
}

/* libseccomp cannot AND two conditions on one argument; OR'ing them widens
 * an ALLOW under a denying default, so that is refused. */
static void
test_same_argument_conditions (void)
{
  struct fixture f;
  struct oci_seccomp_rule *r;
  struct seccomp_program *p;
  struct str_list notes = { 0 };

  fixture_init (&f, OCI_SECCOMP_ACT_ERRNO);
  r = add_rule (&f, OCI_SECCOMP_ACT_ALLOW, "socket");
  add_arg (r, 0, OCI_SECCOMP_OP_GE, 2, 0);
  add_arg (r, 0, OCI_SECCOMP_OP_LE, 10, 0);
  expect_error (&f, "linux.seccomp.syscalls[0].args: several conditions on "
                    "one argument");

  /* The other way round only gets stricter: accepted (runc's behaviour). */
  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  r = add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "personality");
  add_arg (r, 0, OCI_SECCOMP_OP_EQ, 8, 0);
  add_arg (r, 0, OCI_SECCOMP_OP_EQ, 0x400000, 0);
  p = expect_ok (&f, &notes);
  CHECK (notes.len == 1);
  if (notes.len)
    CHECK_CONTAINS (notes.items[0], "syscalls[0].args: conditions on one "
                                    "argument OR'ed");
  if (p)
    {
      CHECK (call (p, SYS_personality, 8, 0, 0) == RET_EPERM);
      CHECK (call (p, SYS_personality, 0x400000, 0, 0) == RET_EPERM);
      CHECK (call (p, SYS_personality, 0, 0, 0) == SECCOMP_RET_ALLOW);
    }
  seccomp_program_free (p);
  str_list_free (&notes);
}

static void
test_conflicting_rules (void)
{
  struct fixture f;
  struct oci_seccomp_rule *r;
  struct seccomp_program *p;
  struct str_list notes = { 0 };

  /* Same conditions, different actions: libseccomp says EEXIST. */
  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  r = add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "read");
  add_arg (r, 0, OCI_SECCOMP_OP_EQ, 3, 0);
  r = add_rule (&f, OCI_SECCOMP_ACT_KILL, "read");
  add_arg (r, 0, OCI_SECCOMP_OP_EQ, 3, 0);
  expect_error (&f, "linux.seccomp.syscalls[1].names[0]: `read` has another "
                    "rule");

  /* An unconditional rule silently wins in libseccomp: it is noted. */
  fixture_init (&f, OCI_SECCOMP_ACT_ERRNO);
  r = add_rule (&f, OCI_SECCOMP_ACT_TRAP, "ptrace");
  add_arg (r, 0, OCI_SECCOMP_OP_EQ, 0, 0);
  add_rule (&f, OCI_SECCOMP_ACT_ALLOW, "ptrace");
  p = expect_ok (&f, &notes);
  CHECK (notes.len == 1);
  if (notes.len)
    CHECK_CONTAINS (notes.items[0], "syscalls[1].names[0]: `ptrace` also has "
                                    "a rule in syscalls[0]");
  seccomp_program_free (p);
  str_list_free (&notes);
}

static void
test_unknown_syscall_skipped (void)
{
  struct fixture f;
  struct oci_seccomp_rule *r;
  struct seccomp_program *p;
  struct str_list notes = { 0 };

  fixture_init (&f, OCI_SECCOMP_ACT_ERRNO);
  r = add_rule (&f, OCI_SECCOMP_ACT_ALLOW, "getpid");
  r->names.items[r->names.len++] = "no_such_syscall_2099";
  p = expect_ok (&f, &notes);
  CHECK (notes.len == 1);
  if (notes.len)
    CHECK_STR_EQ (notes.items[0], "linux.seccomp.syscalls[0].names[1]: "
                                  "unknown syscall `no_such_syscall_2099` "
                                  "ignored");
  if (p)
    CHECK (call (p, SYS_getpid, 0, 0, 0) == SECCOMP_RET_ALLOW);
  seccomp_program_free (p);
  str_list_free (&notes);
}

/* Every action maps to the kernel's return value, with its data. */
static void
test_actions (void)
{
  static const struct
  {
    enum oci_seccomp_action action;
    bool has_ret;
    uint32_t ret, expect;
  } cases[] = {
    { OCI_SECCOMP_ACT_KILL, false, 0, SECCOMP_RET_KILL_THREAD },
    { OCI_SECCOMP_ACT_KILL_THREAD, false, 0, SECCOMP_RET_KILL_THREAD },
    { OCI_SECCOMP_ACT_KILL_PROCESS, false, 0, SECCOMP_RET_KILL_PROCESS },
    { OCI_SECCOMP_ACT_TRAP, false, 0, SECCOMP_RET_TRAP },
    { OCI_SECCOMP_ACT_ERRNO, false, 0, SECCOMP_RET_ERRNO | EPERM },
    { OCI_SECCOMP_ACT_ERRNO, true, 0, SECCOMP_RET_ERRNO | 0 },
    { OCI_SECCOMP_ACT_ERRNO, true, EACCES, SECCOMP_RET_ERRNO | EACCES },
    { OCI_SECCOMP_ACT_TRACE, false, 0, SECCOMP_RET_TRACE | EPERM },
    { OCI_SECCOMP_ACT_TRACE, true, 1234, SECCOMP_RET_TRACE | 1234 },
    { OCI_SECCOMP_ACT_LOG, false, 0, SECCOMP_RET_LOG },
    { OCI_SECCOMP_ACT_NOTIFY, false, 0, SECCOMP_RET_USER_NOTIF },
  };
  size_t i;

  for (i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
    {
      struct fixture f;
      struct oci_seccomp_rule *r;
      struct seccomp_program *p;

      if (!kernel_has_seccomp ()
          && (cases[i].action == OCI_SECCOMP_ACT_KILL_PROCESS
              || cases[i].action == OCI_SECCOMP_ACT_LOG
              || cases[i].action == OCI_SECCOMP_ACT_NOTIFY))
        {
          skip_note (oci_seccomp_action_name (cases[i].action));
          continue;
        }
      fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
      f.s.listener_path = "/run/agent.sock";
      r = add_rule (&f, cases[i].action, "mknodat");
      r->has_errno_ret = cases[i].has_ret;
      r->errno_ret = cases[i].ret;
      p = expect_ok (&f, NULL);
      if (p == NULL)
        continue;
      CHECK (call (p, SYS_mknodat, 0, 0, 0) == cases[i].expect);
      CHECK (call (p, SYS_getpid, 0, 0, 0) == SECCOMP_RET_ALLOW);
      CHECK (((p->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) != 0)
             == (cases[i].action == OCI_SECCOMP_ACT_NOTIFY));
      seccomp_program_free (p);
    }

  /* Default action with its errno; a rule equal to it is dropped. */
  {
    struct fixture f;
    struct seccomp_program *p;

    fixture_init (&f, OCI_SECCOMP_ACT_ERRNO);
    f.s.has_default_errno_ret = true;
    f.s.default_errno_ret = EACCES;
    add_rule (&f, OCI_SECCOMP_ACT_ALLOW, "getpid");
    add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "read")->errno_ret = EPERM;
    p = expect_ok (&f, NULL);
    if (p)
      {
        CHECK (call (p, SYS_getpid, 0, 0, 0) == SECCOMP_RET_ALLOW);
        CHECK (call (p, SYS_read, 0, 0, 0) == (SECCOMP_RET_ERRNO | EPERM));
        CHECK (call (p, SYS_write, 0, 0, 0) == (SECCOMP_RET_ERRNO | EACCES));
      }
    seccomp_program_free (p);
  }
}

/* Every operator, on 64-bit values, and several args ANDed. */
static void
test_operators (void)
{
  static const struct
  {
    enum oci_seccomp_op op;
    uint64_t value, value_two, arg;
    bool match;
  } cases[] = {
    { OCI_SECCOMP_OP_EQ, 5, 0, 5, true },
    { OCI_SECCOMP_OP_EQ, 5, 0, 5 | (1ull << 32), false },
    { OCI_SECCOMP_OP_NE, 5, 0, 6, true },
    { OCI_SECCOMP_OP_NE, 5, 0, 5, false },
    { OCI_SECCOMP_OP_LT, 5, 0, 4, true },
    { OCI_SECCOMP_OP_LT, 5, 0, 5, false },
    { OCI_SECCOMP_OP_LE, 5, 0, 5, true },
    { OCI_SECCOMP_OP_LE, 5, 0, 6, false },
    { OCI_SECCOMP_OP_GT, 5, 0, 1ull << 40, true },
    { OCI_SECCOMP_OP_GT, 5, 0, 5, false },
    { OCI_SECCOMP_OP_GE, 5, 0, 5, true },
    { OCI_SECCOMP_OP_GE, 5, 0, 4, false },
    { OCI_SECCOMP_OP_MASKED_EQ, 0xf0, 0x30, 0x1234, true },
    { OCI_SECCOMP_OP_MASKED_EQ, 0xf0, 0x30, 0x1244, false },
  };
  size_t i;

  for (i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
    {
      struct fixture f;
      struct oci_seccomp_rule *r;
      struct seccomp_program *p;

      fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
      r = add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "read");
      add_arg (r, 2, cases[i].op, cases[i].value, cases[i].value_two);
      p = expect_ok (&f, NULL);
      if (p == NULL)
        continue;
      if ((call (p, SYS_read, 0, 0, cases[i].arg) == RET_EPERM)
          != cases[i].match)
        fprintf (stderr, "operator case %zu\n", i);
      CHECK ((call (p, SYS_read, 0, 0, cases[i].arg) == RET_EPERM)
             == cases[i].match);
      seccomp_program_free (p);
    }

  {
    struct fixture f;
    struct oci_seccomp_rule *r;
    struct seccomp_program *p;

    fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
    r = add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "read");
    add_arg (r, 0, OCI_SECCOMP_OP_EQ, 1, 0);
    add_arg (r, 2, OCI_SECCOMP_OP_GT, 100, 0);
    p = expect_ok (&f, NULL);
    if (p)
      {
        CHECK (call (p, SYS_read, 1, 0, 101) == RET_EPERM);
        CHECK (call (p, SYS_read, 1, 0, 100) == SECCOMP_RET_ALLOW);
        CHECK (call (p, SYS_read, 2, 0, 101) == SECCOMP_RET_ALLOW);
      }
    seccomp_program_free (p);
  }
}

static void
test_flags_and_archs (void)
{
  struct fixture f;
  struct seccomp_program *p;

  if (!kernel_has_seccomp ())
    {
      skip_note ("flags");
      goto archs;
    }
  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  f.flags[f.s.flags.len++] = "SECCOMP_FILTER_FLAG_TSYNC";
  f.flags[f.s.flags.len++] = "SECCOMP_FILTER_FLAG_LOG";
  f.flags[f.s.flags.len++] = "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV";
  p = expect_ok (&f, NULL);
  if (p)
    /* WAIT_KILLABLE_RECV only means something with a listener. */
    CHECK (p->flags == (SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG));
  seccomp_program_free (p);

  add_rule (&f, OCI_SECCOMP_ACT_NOTIFY, "mknodat");
  f.s.listener_path = "/run/agent.sock";
  p = expect_ok (&f, NULL);
  if (p)
    CHECK (p->flags
           == (SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG
               | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
               | SECCOMP_FILTER_FLAG_NEW_LISTENER
               | SECCOMP_FILTER_FLAG_TSYNC_ESRCH));
  seccomp_program_free (p);

archs:
  /* A foreign architecture gets its own syscall numbers. */
  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  f.archs[f.s.architectures.len++] = "SCMP_ARCH_X86_64";
  f.archs[f.s.architectures.len++] = "SCMP_ARCH_X86";
  add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "getpid");
  p = expect_ok (&f, NULL);
  if (p)
    {
      CHECK (call (p, 39, 0, 0, 0) == RET_EPERM); /* x86_64 getpid */
      CHECK (call_arch (p, AUDIT_ARCH_I386, 20, 0, 0, 0) == RET_EPERM);
      CHECK (call_arch (p, AUDIT_ARCH_I386, 39, 0, 0, 0) == SECCOMP_RET_ALLOW);
      CHECK (call_arch (p, AUDIT_ARCH_AARCH64, 172, 0, 0, 0)
             == SECCOMP_RET_KILL_THREAD);
    }
  seccomp_program_free (p);
}

/* Syscalls above the highest one the profile names get ENOSYS when the
 * default denies (libc then falls back), not when it allows. */
static void
test_enosys_for_newer_syscalls (void)
{
  struct fixture f;
  struct seccomp_program *p;

  fixture_init (&f, OCI_SECCOMP_ACT_ERRNO);
  add_rule (&f, OCI_SECCOMP_ACT_ALLOW, "getpid");
  add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "openat2"); /* 437, dropped */
  p = expect_ok (&f, NULL);
  if (p)
    {
      CHECK (call (p, SYS_getpid, 0, 0, 0) == SECCOMP_RET_ALLOW);
      CHECK (call (p, 437, 0, 0, 0) == RET_EPERM);
      CHECK (call (p, 438, 0, 0, 0) == RET_ENOSYS);
      CHECK (call (p, 1000, 0, 0, 0) == RET_ENOSYS);
      CHECK (call (p, SYS_read, 0, 0, 0) == RET_EPERM);
      /* x32 numbers are left to libseccomp (bad architecture). */
      CHECK (call (p, 0x40000000 | 1000, 0, 0, 0) == SECCOMP_RET_KILL_THREAD);
      CHECK (call_arch (p, AUDIT_ARCH_I386, 1000, 0, 0, 0)
             == SECCOMP_RET_KILL_THREAD);
    }
  seccomp_program_free (p);

  fixture_init (&f, OCI_SECCOMP_ACT_ALLOW);
  add_rule (&f, OCI_SECCOMP_ACT_ERRNO, "getpid");
  p = expect_ok (&f, NULL);
  if (p)
    CHECK (call (p, 1000, 0, 0, 0) == SECCOMP_RET_ALLOW);
  seccomp_program_free (p);
}

static void
test_features (void)
{
  struct seccomp_features ft;
  size_t i, n;

  seccomp_features_get (&ft);
  for (n = 0; ft.actions[n]; n++)
    if (n > 0)
      CHECK (strcmp (ft.actions[n - 1], ft.actions[n]) < 0);
  CHECK (n == 9);
  CHECK_STR_EQ (ft.actions[0], "SCMP_ACT_ALLOW");
  for (n = 0; ft.operators[n]; n++)
    ;
  CHECK (n == 7);
  CHECK_STR_EQ (ft.operators[5], "SCMP_CMP_MASKED_EQ");
  for (n = 0; ft.archs[n]; n++)
    ;
  CHECK (n == 19);
  for (n = 0; ft.known_flags[n]; n++)
    CHECK (seccomp_flag_from_name (ft.known_flags[n]) != 0);
  CHECK (n == 4);
  for (i = 0; ft.supported_flags[i]; i++)
    CHECK (seccomp_flag_from_name (ft.supported_flags[i]) != 0);
  /* This machine's kernel (6.x) has every known flag. */
  if (kernel_has_seccomp ())
    CHECK (i == n);
  else
    skip_note ("supported flags");
  CHECK (seccomp_flag_from_name ("SECCOMP_FILTER_FLAG_NEW_LISTENER") == 0);
}

/* ---- agent-default.json, decided by the interpreter */

static struct seccomp_program *
compile_agent_default (struct oci_seccomp **out, struct str_list *notes)
{
  cleanup_error agentrt_error_t err = NULL;
  size_t len;
  cleanup_free char *text = read_text (PROFILE, &len);
  struct oci_seccomp *s = oci_seccomp_parse (text, len, PROFILE, &err);
  struct seccomp_program *p = NULL;

  CHECK (s != NULL);
  if (s)
    p = seccomp_compile (s, "", notes, &err);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  *out = s;
  return p;
}

static void
test_agent_default_profile (void)
{
  struct str_list notes = { 0 };
  struct oci_seccomp *s = NULL;
  struct seccomp_program *p = compile_agent_default (&s, &notes);
  const uint64_t hi = 1ull << 32;
  size_t i, j;

  CHECK (p != NULL);
  CHECK (notes.len == 0); /* every name known, no shadowed rule */
  for (i = 0; i < notes.len; i++)
    fprintf (stderr, "note: %s\n", notes.items[i]);
  str_list_free (&notes);
  if (p == NULL || s == NULL)
    goto out;
  /* Explicit denials only deny: none of them is allowed by another rule. */
  for (i = 0; i < s->n_syscalls; i++)
    if (s->syscalls[i].action == OCI_SECCOMP_ACT_ERRNO)
      for (j = 0; j < s->syscalls[i].names.len; j++)
        {
          const char *name = s->syscalls[i].names.items[j];
          int nr = seccomp_syscall_resolve_name (name);
          /* clone3 and openat2 carry what matters in memory: ENOSYS */
          bool enosys = strcmp (name, "clone3") == 0
                        || strcmp (name, "openat2") == 0;
          if (nr >= 0 && call (p, nr, 0, 0, 0) != (enosys ? RET_ENOSYS : RET_EPERM))
            fprintf (stderr, "%s is not denied\n", name);
          if (nr >= 0)
            CHECK (call (p, nr, 0, 0, 0) == (enosys ? RET_ENOSYS : RET_EPERM));
        }

  CHECK (p->flags == 0);
  CHECK (call (p, SYS_ptrace, PTRACE_TRACEME, 0, 0) == RET_EPERM);
  CHECK (call (p, SYS_bpf, 0, 0, 0) == RET_EPERM);
  CHECK (call (p, SYS_io_uring_setup, 8, 0, 0) == RET_EPERM);
  CHECK (call (p, SYS_clone3, 0, 0, 0) == RET_ENOSYS);
  /* no setuid/setgid bits (a planted setuid-root file in a shared work
   * directory would be the host's problem) */
  CHECK (call (p, SYS_chmod, 0, 04755, 0) == RET_EPERM);
  CHECK (call (p, SYS_chmod, 0, 02755, 0) == RET_EPERM);
  CHECK (call (p, SYS_chmod, 0, 0755, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_fchmod, 3, 04755, 0) == RET_EPERM);
  CHECK (call (p, SYS_fchmodat, AT_FDCWD, 0, 06755) == RET_EPERM);
  CHECK (call (p, SYS_fchmodat, AT_FDCWD, 0, 0644) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_open, 0, O_CREAT | O_WRONLY, 04755) == RET_EPERM);
  CHECK (call (p, SYS_open, 0, O_RDONLY, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_creat, 0, 04755, 0) == RET_EPERM);
  CHECK (call (p, SYS_mknod, 0, S_IFREG | 04755, 0) == RET_EPERM);
  CHECK (call (p, SYS_openat2, AT_FDCWD, 0, 0) == RET_ENOSYS);
  CHECK (call (p, SYS_clone, SIGCHLD, 0, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_clone, CLONE_VM | CLONE_THREAD | CLONE_SIGHAND, 0, 0)
         == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_clone, CLONE_NEWNS | SIGCHLD, 0, 0) == RET_EPERM);
  CHECK (call (p, SYS_clone, CLONE_NEWUSER, 0, 0) == RET_EPERM);
  CHECK (call (p, SYS_unshare, CLONE_NEWUSER, 0, 0) == RET_EPERM);
  CHECK (call (p, SYS_unshare, CLONE_NEWTIME, 0, 0) == RET_EPERM);
  CHECK (call (p, SYS_unshare, CLONE_FILES, 0, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_setns, 3, 0, 0) == RET_EPERM);

  CHECK (call (p, SYS_socket, AF_UNIX, SOCK_STREAM, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)
         == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_socket, AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK,
               IPPROTO_UDP)
         == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_socket, AF_INET, SOCK_DGRAM, IPPROTO_ICMP)
         == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_socket, AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP)
         == RET_EPERM);
  CHECK (call (p, SYS_socket, AF_INET6, SOCK_RAW, IPPROTO_RAW) == RET_EPERM);
  CHECK (call (p, SYS_socket, AF_INET, SOCK_STREAM, IPPROTO_SCTP)
         == RET_EPERM);
  CHECK (call (p, SYS_socket, AF_INET, SOCK_SEQPACKET, 0) == RET_EPERM);
  /* Garbage in the upper half of an int argument: the kernel ignores it,
   * the filter must not be fooled into allowing. */
  CHECK (call (p, SYS_socket, AF_INET | hi, SOCK_RAW, 0) == RET_EPERM);
  CHECK (call (p, SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)
         == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_socket, AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
               NETLINK_ROUTE)
         == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT)
         == RET_EPERM);
  CHECK (call (p, SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE | hi)
         == RET_EPERM);
  CHECK (call (p, SYS_socket, AF_PACKET, SOCK_RAW, 0) == RET_EPERM);
  CHECK (call (p, SYS_socket, AF_VSOCK, SOCK_STREAM, 0) == RET_EPERM);
  CHECK (call (p, SYS_socket, AF_ALG, SOCK_SEQPACKET, 0) == RET_EPERM);
  CHECK (call (p, SYS_socketpair, AF_UNIX, SOCK_STREAM, 0)
         == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_socketpair, AF_TIPC, SOCK_STREAM, 0) == RET_EPERM);

  CHECK (call (p, SYS_ioctl, 0, TCGETS, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_ioctl, 0, FIONREAD, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_ioctl, 0, TIOCSTI, 0) == RET_EPERM);
  CHECK (call (p, SYS_ioctl, 0, TIOCSTI | hi, 0) == RET_EPERM);

  CHECK (call (p, SYS_personality, 0xffffffff, 0, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_personality, PER_LINUX32, 0, 0)
         == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_personality, ADDR_NO_RANDOMIZE, 0, 0)
         == RET_EPERM);

  /* What the runtime does after installing the filter, and ordinary work. */
  CHECK (call (p, SYS_openat, AT_FDCWD, 0, O_RDONLY) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_execveat, 3, 0, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_execve, 0, 0, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_write, 1, 0, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, SYS_close, 3, 0, 0) == SECCOMP_RET_ALLOW);
  CHECK (call (p, 452 /* fchmodat2 */, 0, 0, 0) == SECCOMP_RET_ALLOW);
  /* Newer than the profile (mseal, 462): ENOSYS; foreign ABIs: killed. */
  CHECK (call (p, 462, 0, 0, 0) == RET_ENOSYS);
  CHECK (call (p, 0x40000000 | SYS_getpid, 0, 0, 0)
         == SECCOMP_RET_KILL_THREAD);
  CHECK (call_arch (p, AUDIT_ARCH_I386, 20, 0, 0, 0)
         == SECCOMP_RET_KILL_THREAD);
  CHECK (!eval_failed);
out:
  seccomp_program_free (p);
  oci_seccomp_free (s);
}

int
main (void)
{
  RUN_TEST (test_refuses_bad_fields);
  RUN_TEST (test_refuses_notify_misuse);
  RUN_TEST (test_same_argument_conditions);
  RUN_TEST (test_conflicting_rules);
  RUN_TEST (test_unknown_syscall_skipped);
  RUN_TEST (test_actions);
  RUN_TEST (test_operators);
  RUN_TEST (test_flags_and_archs);
  RUN_TEST (test_enosys_for_newer_syscalls);
  RUN_TEST (test_features);
  RUN_TEST (test_agent_default_profile);
  CHECK (!eval_failed);
  return UNIT_EXIT ();
}
