/* The compiled-program cache (runtime/seccomp/seccomp_cache.c, seccomp_key.c):
 * hostile and broken entries are never used (damaged bytes, truncation,
 * wrong key, loose mode, a foreign owner, symlinks, a directory others can
 * write, a key made to collide), the key of a bundle's linux.seccomp
 * changes with every field the compiler reads and only with those, a
 * profile that does not compile is refused even when a variant of it is
 * cached, the cache stays within its bounds evicting the least recently
 * used entry, profile errors name the file and the JSON path; and the
 * figures: compile vs key vs cached load, for agent-default and for the
 * Docker and Podman profiles of hack/bench/engines. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/seccomp/seccomp_cache.h"
#include "runtime/seccomp/seccomp_key.h"
#include "tests/unit/seccomp_test.h"
#include "tests/unit/unit.h"

#define PROFILE SECCOMP_PROFILE_DIR "/agent-default.json"
#define DOCKER_PROFILE ENGINE_PROFILE_DIR "/docker-seccomp.json"
#define PODMAN_PROFILE ENGINE_PROFILE_DIR "/podman-seccomp.json"

static char tmpdir[] = "/tmp/test-seccomp-cache.XXXXXX";
static char *cache_dir;
static struct seccomp_program *reference; /* compiled without the cache */
static struct oci_seccomp *docker;        /* Docker's default profile */
static struct seccomp_program *docker_reference;

static struct seccomp_program *
load (const char *profile, const char *dir, bool *hit)
{
  cleanup_error agentrt_error_t err = NULL;
  struct seccomp_program *p = seccomp_load_profile_cached (profile, dir, NULL,
                                                           hit, &err);
  if (err)
    fprintf (stderr, "%s: %s\n", unit_current, err->msg);
  return p;
}

/* The bundle's linux.seccomp through the cache. */
static struct seccomp_program *
compile_oci (const struct oci_seccomp *s, const char *dir, bool *hit)
{
  cleanup_error agentrt_error_t err = NULL;
  struct seccomp_program *p = seccomp_compile_cached (s, "linux.seccomp", dir,
                                                      NULL, hit, &err);
  if (err)
    fprintf (stderr, "%s: %s\n", unit_current, err->msg);
  return p;
}

static struct oci_seccomp *
parse_file (const char *path)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_free char *text = NULL;
  struct oci_seccomp *s;
  size_t len;

  text = read_text (path, &len);
  s = oci_seccomp_parse (text, len, path, &err);
  if (err)
    fprintf (stderr, "%s: %s\n", path, err->msg);
  return s;
}

static bool
same_program (const struct seccomp_program *a, const struct seccomp_program *b)
{
  return a && b && a->len == b->len && a->flags == b->flags
         && memcmp (a->insns, b->insns, a->len * sizeof (*a->insns)) == 0;
}

/* The one entry in the cache dir (the tests keep it to one). */
static char *
entry_path (void)
{
  cleanup_dir DIR *d = opendir (cache_dir);
  struct dirent *de;
  char *found = NULL;
  int n = 0;

  while (d && (de = readdir (d)))
    {
      if (de->d_name[0] == '.' && strncmp (de->d_name, ".tmp", 4) != 0)
        continue;
      n++;
      free (found);
      found = xasprintf ("%s/%s", cache_dir, de->d_name);
    }
  CHECK (n == 1);
  return found;
}

static void
reset_cache (void)
{
  cleanup_free char *cmd = xasprintf ("rm -rf '%s'", cache_dir);
  CHECK (system (cmd) == 0);
}

/* What the damage tests load: agentrt's profile file, or Docker's profile
 * as a bundle's linux.seccomp. */
struct subject
{
  struct seccomp_program *(*load) (bool *hit);
  const struct seccomp_program *reference;
};

static struct seccomp_program *
load_agent_profile (bool *hit)
{
  return load (PROFILE, cache_dir, hit);
}

static struct seccomp_program *
load_docker_profile (bool *hit)
{
  return compile_oci (docker, cache_dir, hit);
}

/* Loads once to fill the cache, damages the entry with `damage`, and checks
 * that the next load recompiles (same program as the reference) and
 * rewrites a valid entry. */
static void
check_damage (const struct subject *s, void (*damage) (const char *path))
{
  cleanup_free char *path = NULL;
  struct seccomp_program *p;
  bool hit = true;

  reset_cache ();
  seccomp_program_free (s->load (&hit));
  CHECK (!hit);
  path = entry_path ();
  if (path == NULL)
    return;
  damage (path);
  p = s->load (&hit);
  CHECK (!hit);
  CHECK (same_program (p, s->reference));
  seccomp_program_free (p);
  p = s->load (&hit);
  CHECK (hit);
  CHECK (same_program (p, s->reference));
  seccomp_program_free (p);
}

static void
flip_byte (const char *path, off_t where)
{
  int fd = open (path, O_RDWR);
  struct stat st;
  unsigned char c;

  CHECK (fd >= 0 && fstat (fd, &st) == 0);
  if (where < 0)
    where += st.st_size;
  CHECK (pread (fd, &c, 1, where) == 1);
  c ^= 0x40;
  CHECK (pwrite (fd, &c, 1, where) == 1);
  close (fd);
}

static void
damage_program (const char *path)
{
  flip_byte (path, -5); /* inside the last instruction */
}

static void
damage_magic (const char *path)
{
  flip_byte (path, 0);
}

static void
damage_key (const char *path)
{
  flip_byte (path, 60); /* inside the stored key ("agentrt ...") */
}

/* The last byte of the key: the profile's (or object's) own end. */
static void
damage_key_end (const char *path)
{
  struct stat st;
  int fd = open (path, O_RDONLY);
  uint32_t header[6];

  CHECK (fd >= 0 && fstat (fd, &st) == 0);
  /* magic[8], format, flags, n_insns, key_len */
  CHECK (pread (fd, header, sizeof (header), 0) == sizeof (header));
  close (fd);
  flip_byte (path, 40 + (off_t) header[5] - 1);
}

static void
damage_truncate (const char *path)
{
  struct stat st;
  CHECK (stat (path, &st) == 0 && truncate (path, st.st_size - 8) == 0);
}

static void
damage_append (const char *path)
{
  int fd = open (path, O_WRONLY | O_APPEND);
  CHECK (fd >= 0 && write (fd, "\0\0\0\0\0\0\0\0", 8) == 8);
  close (fd);
}

static void
damage_empty (const char *path)
{
  CHECK (truncate (path, 0) == 0);
}

static void
damage_mode (const char *path)
{
  CHECK (chmod (path, 0644) == 0);
}

static void
damage_group_read (const char *path)
{
  CHECK (chmod (path, 0640) == 0);
}

/* Not a regular file (a reader must not block on it either). */
static void
damage_fifo (const char *path)
{
  CHECK (unlink (path) == 0 && mkfifo (path, 0600) == 0);
}

/* Somebody else's entry (only root can make one for this test). */
static void
damage_owner (const char *path)
{
  CHECK (chown (path, 65534, 65534) == 0);
}

/* A symlink to a valid entry is still not followed. */
static void
damage_symlink (const char *path)
{
  cleanup_free char *moved = xasprintf ("%s/elsewhere", tmpdir);
  CHECK (rename (path, moved) == 0);
  CHECK (symlink (moved, path) == 0);
}

static void
test_damaged_entries_are_recompiled (void)
{
  const struct subject subjects[] = {
    { load_agent_profile, reference },
    { load_docker_profile, docker_reference },
  };
  size_t i;

  for (i = 0; i < sizeof (subjects) / sizeof (subjects[0]); i++)
    {
      const struct subject *s = &subjects[i];
      check_damage (s, damage_program);
      check_damage (s, damage_magic);
      check_damage (s, damage_key);
      check_damage (s, damage_key_end);
      check_damage (s, damage_truncate);
      check_damage (s, damage_append);
      check_damage (s, damage_empty);
      check_damage (s, damage_mode);
      check_damage (s, damage_group_read);
      check_damage (s, damage_symlink);
      check_damage (s, damage_fifo);
      if (geteuid () == 0)
        check_damage (s, damage_owner);
    }
  if (geteuid () != 0)
    printf ("SKIP %s: foreign owner (needs root)\n", unit_current);
}

static void
test_hit_and_miss (void)
{
  cleanup_free char *path = NULL, *copy = xasprintf ("%s/p.json", tmpdir);
  cleanup_free char *cmd = NULL;
  struct seccomp_program *p;
  struct stat st;
  bool hit = true;

  reset_cache ();
  p = load (PROFILE, cache_dir, &hit);
  CHECK (!hit && same_program (p, reference));
  seccomp_program_free (p);
  CHECK (stat (cache_dir, &st) == 0 && (st.st_mode & 07777) == 0700);
  path = entry_path (); /* and no temporary file left behind */
  CHECK (path && stat (path, &st) == 0 && (st.st_mode & 07777) == 0600);
  p = load (PROFILE, cache_dir, &hit);
  CHECK (hit && same_program (p, reference));
  seccomp_program_free (p);

  /* Another profile text is another key, even if it means the same. */
  cmd = xasprintf ("cp '%s' '%s' && echo >> '%s'", PROFILE, copy, copy);
  CHECK (system (cmd) == 0);
  p = load (copy, cache_dir, &hit);
  CHECK (!hit && same_program (p, reference));
  seccomp_program_free (p);
  p = load (copy, cache_dir, &hit);
  CHECK (hit);
  seccomp_program_free (p);
  unlink (copy);
}

static int
count_entries (const char *dir)
{
  cleanup_dir DIR *d = opendir (dir);
  struct dirent *de;
  int n = 0;

  while (d && (de = readdir (d)))
    n += strcmp (de->d_name, ".") != 0 && strcmp (de->d_name, "..") != 0;
  return n;
}

/* A cache dir others can write is not used at all. */
static void
test_unsafe_cache_dir (void)
{
  cleanup_free char *dir = xasprintf ("%s/open", tmpdir);
  cleanup_free char *link = xasprintf ("%s/link", tmpdir);
  struct seccomp_program *p;
  bool hit = true;

  CHECK (mkdir (dir, 0700) == 0 && chmod (dir, 0777) == 0);
  p = load (PROFILE, dir, &hit);
  CHECK (p && !hit);
  seccomp_program_free (p);
  CHECK (count_entries (dir) == 0);

  /* Nor is one owned by somebody else. */
  if (geteuid () == 0)
    {
      CHECK (chmod (dir, 0700) == 0 && chown (dir, 65534, 65534) == 0);
      p = load (PROFILE, dir, &hit);
      CHECK (p && !hit);
      seccomp_program_free (p);
      CHECK (count_entries (dir) == 0);
    }

  /* Nor is a symlink to a good one. */
  CHECK (symlink (cache_dir, link) == 0);
  p = load (PROFILE, cache_dir, &hit);
  seccomp_program_free (p);
  p = load (PROFILE, link, &hit);
  CHECK (p && !hit);
  seccomp_program_free (p);
}

static void
expect_profile_error (const char *text, const char *needle)
{
  cleanup_free char *path = xasprintf ("%s/bad.json", tmpdir);
  cleanup_error agentrt_error_t err = NULL;
  FILE *f = fopen (path, "we");
  struct seccomp_program *p;

  CHECK (f != NULL);
  if (f == NULL)
    return;
  fputs (text, f);
  fclose (f);
  p = seccomp_load_profile_cached (path, cache_dir, NULL, NULL, &err);
  CHECK (p == NULL && err != NULL);
  if (err)
    {
      CHECK_CONTAINS (err->msg, path);
      CHECK_CONTAINS (err->msg, needle);
    }
  seccomp_program_free (p);
  unlink (path);
}

static void
test_profile_errors (void)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_free char *big = xasprintf ("%s/big.json", tmpdir);
  int fd;

  expect_profile_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\",", "");
  expect_profile_error ("[]", "");
  expect_profile_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\":"
                        " [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_"
                        "BOGUS\"}]}",
                        "syscalls[0].action");
  expect_profile_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", "
                        "\"architectures\": [\"SCMP_ARCH_LOONGARCH64\"]}",
                        "architectures[0]: unknown architecture");
  expect_profile_error ("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\":"
                        " [{\"names\": [\"read\"], \"action\": "
                        "\"SCMP_ACT_NOTIFY\"}]}",
                        "listenerPath: required");

  CHECK (seccomp_load_profile_cached ("/nonexistent/p.json", cache_dir, NULL,
                                      NULL, &err)
         == NULL);
  if (err)
    CHECK_CONTAINS (err->msg, "open seccomp profile `/nonexistent/p.json`");
  agentrt_error_release (&err);
  CHECK (seccomp_load_profile_cached (tmpdir, cache_dir, NULL, NULL, &err)
         == NULL);
  if (err)
    CHECK_CONTAINS (err->msg, "not a regular file");
  agentrt_error_release (&err);
  fd = open (big, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  CHECK (fd >= 0 && ftruncate (fd, SECCOMP_PROFILE_MAX_SIZE + 1) == 0);
  close (fd);
  CHECK (seccomp_load_profile_cached (big, cache_dir, NULL, NULL, &err)
         == NULL);
  if (err)
    CHECK (err->status == EFBIG);
  unlink (big);
}

/* ---- the key of a bundle's linux.seccomp -------------------------------- */

static char *
key_of (const struct oci_seccomp *s, size_t *len)
{
  return seccomp_key_oci (s, len);
}

static bool
same_key (const struct oci_seccomp *a, const struct oci_seccomp *b)
{
  size_t la, lb;
  cleanup_free char *ka = key_of (a, &la), *kb = key_of (b, &lb);
  return la == lb && memcmp (ka, kb, la) == 0;
}

/* Each edit of a copy of Docker's profile, and whether the key must stay. */
struct key_edit
{
  const char *what;
  void (*edit) (struct oci_seccomp *s);
  bool same;
};

static void
edit_default_action (struct oci_seccomp *s)
{
  s->default_action = OCI_SECCOMP_ACT_KILL_PROCESS;
}

static void
edit_default_errno (struct oci_seccomp *s)
{
  s->has_default_errno_ret = true;
  s->default_errno_ret = EPERM; /* the value it had implicitly: still
                                   another object, and another key */
}

static void
edit_unset_default_errno_value (struct oci_seccomp *s)
{
  s->default_errno_ret = 38; /* without has_default_errno_ret: not read */
}

static void
edit_arch_order (struct oci_seccomp *s)
{
  char *t = s->architectures.items[0];
  s->architectures.items[0] = s->architectures.items[1];
  s->architectures.items[1] = t;
}

static void
edit_arch_drop (struct oci_seccomp *s)
{
  free (s->architectures.items[--s->architectures.len]);
}

static void
edit_flag (struct oci_seccomp *s)
{
  str_list_append (&s->flags, "SECCOMP_FILTER_FLAG_LOG");
}

static void
edit_listener_path (struct oci_seccomp *s)
{
  s->listener_path = xstrdup ("/run/agent.sock");
}

static void
edit_listener_metadata (struct oci_seccomp *s)
{
  s->listener_metadata = xstrdup ("a pod's own metadata");
}

static void
edit_name (struct oci_seccomp *s)
{
  s->syscalls[0].names.items[0][0] ^= 1;
}

/* "a","b" | "c" against "a" | "b","c": the same names in the same order. */
static void
edit_move_name (struct oci_seccomp *s)
{
  struct oci_seccomp_rule *a = &s->syscalls[0], *b = &s->syscalls[1];
  char *moved = a->names.items[--a->names.len];
  char **items = xreallocarray (NULL, b->names.len + 1, sizeof (char *));

  items[0] = moved;
  memcpy (items + 1, b->names.items, b->names.len * sizeof (char *));
  free (b->names.items);
  b->names.items = items;
  b->names.len++;
}

static void
edit_action (struct oci_seccomp *s)
{
  s->syscalls[0].action = OCI_SECCOMP_ACT_LOG;
}

static void
edit_errno (struct oci_seccomp *s)
{
  s->syscalls[0].has_errno_ret = true;
  s->syscalls[0].errno_ret = 1;
}

/* The first rule with conditions. */
static struct oci_seccomp_arg *
first_arg (struct oci_seccomp *s)
{
  size_t i;
  for (i = 0; i < s->n_syscalls; i++)
    if (s->syscalls[i].n_args)
      return &s->syscalls[i].args[0];
  abort ();
}

static void
edit_arg_index (struct oci_seccomp *s)
{
  first_arg (s)->index ^= 1;
}

static void
edit_arg_op (struct oci_seccomp *s)
{
  struct oci_seccomp_arg *a = first_arg (s);
  a->op = a->op == OCI_SECCOMP_OP_EQ ? OCI_SECCOMP_OP_NE : OCI_SECCOMP_OP_EQ;
}

static void
edit_arg_value (struct oci_seccomp *s)
{
  first_arg (s)->value ^= 1ull << 40;
}

static void
edit_arg_value_two (struct oci_seccomp *s)
{
  first_arg (s)->value_two ^= 1;
}

static void
edit_drop_rule (struct oci_seccomp *s)
{
  struct oci_seccomp_rule *r = &s->syscalls[--s->n_syscalls];
  str_list_free (&r->names);
  free (r->args);
}

static void
edit_rule_order (struct oci_seccomp *s)
{
  struct oci_seccomp_rule t = s->syscalls[0];
  s->syscalls[0] = s->syscalls[1];
  s->syscalls[1] = t;
}

static void
test_key_follows_the_compiler (void)
{
  static const struct key_edit edits[] = {
    { "defaultAction", edit_default_action, false },
    { "defaultErrnoRet set", edit_default_errno, false },
    { "an unset defaultErrnoRet's value", edit_unset_default_errno_value,
      true },
    { "architectures' order", edit_arch_order, false },
    { "one architecture less", edit_arch_drop, false },
    { "a flag", edit_flag, false },
    { "a listenerPath", edit_listener_path, false },
    { "listenerMetadata", edit_listener_metadata, true },
    { "a syscall name", edit_name, false },
    { "a name moved to the next rule", edit_move_name, false },
    { "a rule's action", edit_action, false },
    { "a rule's errnoRet", edit_errno, false },
    { "an argument's index", edit_arg_index, false },
    { "an argument's op", edit_arg_op, false },
    { "an argument's value", edit_arg_value, false },
    { "an argument's valueTwo", edit_arg_value_two, false },
    { "one rule less", edit_drop_rule, false },
    { "the rules' order", edit_rule_order, false },
  };
  struct oci_seccomp *with_listener;
  size_t i;

  if (docker == NULL)
    return;
  CHECK (same_key (docker, docker));
  for (i = 0; i < sizeof (edits) / sizeof (edits[0]); i++)
    {
      struct oci_seccomp *copy = oci_seccomp_dup (docker);
      edits[i].edit (copy);
      if (same_key (docker, copy) != edits[i].same)
        {
          fprintf (stderr, "%s: %s: the key %s\n", unit_current,
                   edits[i].what, edits[i].same ? "changed" : "stayed");
          unit_failures++;
        }
      oci_seccomp_free (copy);
    }
  /* The listener's path is used at run time, never compiled: only its
   * presence is in the key. */
  with_listener = oci_seccomp_dup (docker);
  edit_listener_path (with_listener);
  {
    struct oci_seccomp *other = oci_seccomp_dup (with_listener);
    free (other->listener_path);
    other->listener_path = xstrdup ("/elsewhere/agent.sock");
    CHECK (same_key (with_listener, other));
    oci_seccomp_free (other);
  }
  oci_seccomp_free (with_listener);
}

/* Two configs that parse to the same object share an entry. */
static void
test_key_ignores_json_layout (void)
{
  cleanup_error agentrt_error_t err = NULL;
  const char *a = "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": "
                  "[{\"names\": [\"read\", \"write\"], \"action\": "
                  "\"SCMP_ACT_ALLOW\"}], \"architectures\": "
                  "[\"SCMP_ARCH_X86_64\"]}";
  const char *b = "{ \"architectures\":[\"SCMP_ARCH_X86_64\"],\n"
                  "  \"syscalls\":[{\"action\":\"SCMP_ACT_ALLOW\",\n"
                  "  \"names\":[\"read\",\"write\"]}],\n"
                  "  \"defaultAction\":\"SCMP_ACT_ERRNO\" }";
  struct oci_seccomp *sa = oci_seccomp_parse (a, strlen (a), "a", &err);
  struct oci_seccomp *sb = oci_seccomp_parse (b, strlen (b), "b", &err);
  struct seccomp_program *p;
  bool hit = false;

  CHECK (sa && sb);
  if (sa && sb)
    {
      CHECK (same_key (sa, sb));
      reset_cache ();
      seccomp_program_free (compile_oci (sa, cache_dir, &hit));
      CHECK (!hit);
      p = compile_oci (sb, cache_dir, &hit);
      CHECK (p && hit);
      seccomp_program_free (p);
    }
  oci_seccomp_free (sa);
  oci_seccomp_free (sb);
}

static void
test_oci_hit_and_miss (void)
{
  struct oci_seccomp *podman = parse_file (PODMAN_PROFILE);
  struct seccomp_program *p, *podman_reference = NULL;
  cleanup_error agentrt_error_t err = NULL;
  bool hit = true;

  CHECK (docker && podman);
  if (docker == NULL || podman == NULL)
    return;
  podman_reference = seccomp_compile (podman, "linux.seccomp", NULL, &err);
  CHECK (podman_reference != NULL);
  reset_cache ();
  p = compile_oci (docker, cache_dir, &hit);
  CHECK (!hit && same_program (p, docker_reference));
  seccomp_program_free (p);
  p = compile_oci (podman, cache_dir, &hit);
  CHECK (!hit && same_program (p, podman_reference));
  seccomp_program_free (p);
  p = compile_oci (docker, cache_dir, &hit);
  CHECK (hit && same_program (p, docker_reference));
  seccomp_program_free (p);
  p = compile_oci (podman, cache_dir, &hit);
  CHECK (hit && same_program (p, podman_reference));
  seccomp_program_free (p);
  /* no cache dir: compiled, never a hit */
  p = compile_oci (docker, NULL, &hit);
  CHECK (!hit && same_program (p, docker_reference));
  seccomp_program_free (p);
  seccomp_program_free (podman_reference);
  oci_seccomp_free (podman);
}

/* A profile with SCMP_ACT_NOTIFY compiles only with a listenerPath.  Once
 * it is cached, the same rules without a listenerPath must still be
 * refused (an entry must not stand in for the compiler's checks). */
static void
test_oci_failures_are_never_cached (void)
{
  const char *text = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", "
                     "\"listenerPath\": \"/run/agent.sock\", \"syscalls\": "
                     "[{\"names\": [\"mkdirat\"], \"action\": "
                     "\"SCMP_ACT_NOTIFY\"}]}";
  cleanup_error agentrt_error_t err = NULL;
  struct oci_seccomp *s = oci_seccomp_parse (text, strlen (text), "t", &err);
  struct seccomp_program *p;
  bool hit = true;

  CHECK (s != NULL);
  if (s == NULL)
    return;
  reset_cache ();
  p = compile_oci (s, cache_dir, &hit);
  CHECK (p && !hit && (p->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER));
  seccomp_program_free (p);
  p = compile_oci (s, cache_dir, &hit);
  CHECK (p && hit && (p->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER));
  seccomp_program_free (p);
  free (s->listener_path);
  s->listener_path = NULL;
  p = seccomp_compile_cached (s, "linux.seccomp", cache_dir, NULL, &hit,
                              &err);
  CHECK (p == NULL && !hit && err != NULL);
  if (err)
    CHECK_CONTAINS (err->msg, "linux.seccomp.listenerPath: required");
  agentrt_error_release (&err);
  /* and the failure left no entry of its own */
  CHECK (count_entries (cache_dir) == 1);
  oci_seccomp_free (s);
}

/* ---- the cache directory itself ----------------------------------------- */

static struct seccomp_program *
tiny_program (uint32_t ret)
{
  struct sock_filter insn = BPF_STMT (BPF_RET | BPF_K, ret);
  return seccomp_program_new (&insn, 1, 0);
}

/* Two different keys of one length with the same hash: this hash is not
 * made to resist that (each 8-byte step is a bijection, so the second
 * word can undo any difference in the first).  The entry then belongs to
 * whichever was stored last, and the other key misses: never a wrong
 * program. */
static void
test_key_collision (void)
{
  const uint64_t seed = 0xcbf29ce484222325ull, prime = 0x100000001b3ull;
  uint64_t k1[2] = { 1, 2 }, k2[2] = { 3, 0 }, h1, h2;
  struct seccomp_cache c;
  struct seccomp_program *p1 = tiny_program (SECCOMP_RET_ALLOW);
  struct seccomp_program *p2 = tiny_program (SECCOMP_RET_KILL_PROCESS);
  struct seccomp_program *got;

  /* the state after each key's first word, as seccomp_cache_hash steps */
  h1 = (seed ^ k1[0]) * prime;
  h1 ^= h1 >> 29;
  h2 = (seed ^ k2[0]) * prime;
  h2 ^= h2 >> 29;
  k2[1] = h1 ^ k1[1] ^ h2; /* so that both second steps start equal */
  CHECK (memcmp (k1, k2, sizeof (k1)) != 0);
  CHECK (seccomp_cache_hash (k1, sizeof (k1))
         == seccomp_cache_hash (k2, sizeof (k2)));

  reset_cache ();
  CHECK (seccomp_cache_open (&c, cache_dir) == 0);
  seccomp_cache_put (&c, k1, sizeof (k1), p1);
  got = seccomp_cache_get (&c, k2, sizeof (k2));
  CHECK (got == NULL);
  seccomp_program_free (got);
  got = seccomp_cache_get (&c, k1, sizeof (k1));
  CHECK (same_program (got, p1));
  seccomp_program_free (got);
  seccomp_cache_put (&c, k2, sizeof (k2), p2);
  got = seccomp_cache_get (&c, k1, sizeof (k1));
  CHECK (got == NULL);
  seccomp_program_free (got);
  got = seccomp_cache_get (&c, k2, sizeof (k2));
  CHECK (same_program (got, p2));
  seccomp_program_free (got);
  CHECK (count_entries (cache_dir) == 1);
  seccomp_cache_close (&c);
  seccomp_program_free (p1);
  seccomp_program_free (p2);
}

/* The entry file of `key`. */
static char *
entry_of (const char *key)
{
  return xasprintf ("%s/%016llx.bpf", cache_dir,
                    (unsigned long long) seccomp_cache_hash (key,
                                                             strlen (key)));
}

/* Marks an entry as last used `age` seconds ago. */
static void
set_used (const char *key, time_t age)
{
  cleanup_free char *path = entry_of (key);
  struct timespec t[2] = { { .tv_sec = time (NULL) - age },
                           { .tv_nsec = UTIME_OMIT } };
  CHECK (utimensat (AT_FDCWD, path, t, 0) == 0);
}

static bool
cached (const char *key)
{
  cleanup_free char *path = entry_of (key);
  return access (path, F_OK) == 0;
}

static void
put_key (struct seccomp_cache *c, const char *key)
{
  struct seccomp_program *p = tiny_program (SECCOMP_RET_ALLOW);
  seccomp_cache_put (c, key, strlen (key), p);
  seccomp_program_free (p);
}

/* A key in two pieces is the key of their bytes one after the other,
 * wherever it is split (a word of the hash may straddle the pieces). */
static void
test_split_keys (void)
{
  static const char key[] = "agentrt-seccomp-cache 2\nfile\n{\"defaultAction\": "
                            "\"SCMP_ACT_ERRNO\"}";
  size_t len = sizeof (key) - 1;
  struct seccomp_program *p = tiny_program (SECCOMP_RET_ALLOW);
  struct seccomp_cache c;

  for (size_t cut = 0; cut <= len; cut++)
    {
      struct seccomp_cache_key k = { key, cut, key + cut, len - cut };
      struct seccomp_cache_key other = { key, cut, "x", 1 };
      struct seccomp_program *got;

      reset_cache ();
      CHECK (seccomp_cache_open (&c, cache_dir) == 0);
      seccomp_cache_put_split (&c, &k, p);
      got = seccomp_cache_get (&c, key, len);
      CHECK (same_program (got, p));
      seccomp_program_free (got);
      got = seccomp_cache_get_split (&c, &other);
      CHECK (got == NULL);
      seccomp_cache_close (&c);
      reset_cache ();
      CHECK (seccomp_cache_open (&c, cache_dir) == 0);
      seccomp_cache_put (&c, key, len, p);
      got = seccomp_cache_get_split (&c, &k);
      CHECK (same_program (got, p));
      seccomp_program_free (got);
      seccomp_cache_close (&c);
    }
  seccomp_program_free (p);
}

static void
test_eviction (void)
{
  cleanup_free char *stale = xasprintf ("%s/.tmp-1-stale.bpf", cache_dir);
  cleanup_free char *fresh = xasprintf ("%s/.tmp-2-fresh.bpf", cache_dir);
  cleanup_free char *other = xasprintf ("%s/not-an-entry", cache_dir);
  struct timespec old[2] = { { .tv_sec = time (NULL) - 3600 },
                             { .tv_sec = time (NULL) - 3600 } };
  struct seccomp_program *got;
  struct seccomp_cache c;
  size_t entry_size;
  struct stat st;
  int fd;

  reset_cache ();
  CHECK (seccomp_cache_open (&c, cache_dir) == 0);
  CHECK (c.max_entries == SECCOMP_CACHE_MAX_ENTRIES
         && c.max_bytes == SECCOMP_CACHE_MAX_BYTES);
  c.max_entries = 3;
  put_key (&c, "key-a");
  set_used ("key-a", 400);
  put_key (&c, "key-b");
  set_used ("key-b", 300);
  put_key (&c, "key-c");
  set_used ("key-c", 200);
  CHECK (cached ("key-a") && cached ("key-b") && cached ("key-c"));

  /* a hit makes key-a the most recently used: key-b goes next */
  got = seccomp_cache_get (&c, "key-a", 5);
  CHECK (got != NULL);
  seccomp_program_free (got);
  put_key (&c, "key-d");
  CHECK (cached ("key-a") && !cached ("key-b") && cached ("key-c")
         && cached ("key-d"));
  CHECK (count_entries (cache_dir) == 3);

  /* files that are not entries are not counted (nor removed), stale
   * temporary files are removed, fresh ones (a writer at work) kept */
  fd = open (other, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  close (fd);
  fd = open (stale, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  close (fd);
  CHECK (utimensat (AT_FDCWD, stale, old, 0) == 0);
  fd = open (fresh, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  close (fd);
  set_used ("key-c", 100);
  put_key (&c, "key-e");
  CHECK (!cached ("key-c") && cached ("key-a") && cached ("key-d")
         && cached ("key-e"));
  CHECK (access (other, F_OK) == 0 && access (fresh, F_OK) == 0
         && access (stale, F_OK) != 0);

  /* the byte bound: room for two entries */
  {
    cleanup_free char *path = entry_of ("key-e");
    CHECK (stat (path, &st) == 0);
    entry_size = (size_t) st.st_size;
  }
  c.max_bytes = 2 * entry_size + entry_size / 2;
  set_used ("key-a", 50);
  set_used ("key-d", 40);
  set_used ("key-e", 30);
  put_key (&c, "key-f");
  CHECK (!cached ("key-a") && !cached ("key-d") && cached ("key-e")
         && cached ("key-f"));
  seccomp_cache_close (&c);
}

/* The bounds hold with real entries too: many distinct bundle profiles
 * (one per capability set, as engines send them) never fill the disk. */
static void
test_many_profiles_stay_bounded (void)
{
  struct seccomp_cache c;
  size_t i, n = 0, bytes = 0;
  cleanup_dir DIR *d = NULL;
  struct dirent *de;
  struct stat st;

  if (docker == NULL)
    return;
  reset_cache ();
  for (i = 0; i < 12; i++)
    {
      struct oci_seccomp *copy = oci_seccomp_dup (docker);
      struct seccomp_program *p;
      cleanup_free char *key = NULL;
      size_t key_len;

      copy->syscalls[0].has_errno_ret = true;
      copy->syscalls[0].errno_ret = (uint32_t) i + 1;
      key = seccomp_key_oci (copy, &key_len);
      CHECK (seccomp_cache_open (&c, cache_dir) == 0);
      c.max_entries = 5;
      p = seccomp_cache_get (&c, key, key_len);
      CHECK (p == NULL);
      seccomp_cache_put (&c, key, key_len, docker_reference);
      seccomp_cache_close (&c);
      oci_seccomp_free (copy);
    }
  d = opendir (cache_dir);
  while (d && (de = readdir (d)))
    if (de->d_name[0] != '.')
      {
        cleanup_free char *path = xasprintf ("%s/%s", cache_dir, de->d_name);
        CHECK (stat (path, &st) == 0);
        bytes += (size_t) st.st_size;
        n++;
      }
  CHECK (n == 5);
  printf ("Docker's profile: an entry is %zu bytes\n", n ? bytes / n : 0);
}

static double
now_us (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* What a timed step does once: load agent-default or compile Docker's
 * profile (through the cache dir `dir`, or not), or build that key. */
struct timed
{
  enum
  {
    LOAD_AGENT,
    COMPILE_DOCKER,
    KEY_DOCKER
  } what;
  const char *dir;
  bool expect_hit;
};

static void
timed_once (const struct timed *t)
{
  struct seccomp_program *p = NULL;
  bool hit = false;
  size_t len;

  switch (t->what)
    {
    case LOAD_AGENT:
      p = load (PROFILE, t->dir, &hit);
      break;
    case COMPILE_DOCKER:
      p = compile_oci (docker, t->dir, &hit);
      break;
    case KEY_DOCKER:
      free (seccomp_key_oci (docker, &len));
      return;
    }
  CHECK (p && hit == t->expect_hit);
  seccomp_program_free (p);
}

/* The median time of `runs` (at most 101) steps. */
static double
median_us (const struct timed *step, size_t runs)
{
  double t[101];
  size_t i;

  for (i = 0; i < runs && i < 101; i++)
    {
      double t0 = now_us ();
      timed_once (step);
      t[i] = now_us () - t0;
    }
  qsort (t, i, sizeof (t[0]), compare_double);
  return t[i / 2];
}

/* Figures, not assertions (sanitizers and valgrind change them). */
static void
test_timing (void)
{
  double compile, cached, key;

  reset_cache ();
  seccomp_program_free (load (PROFILE, cache_dir, NULL));
  compile = median_us (&(struct timed){ LOAD_AGENT, NULL, false }, 41);
  cached = median_us (&(struct timed){ LOAD_AGENT, cache_dir, true }, 41);
  printf ("agent-default.json (%u BPF instructions): read+parse+compile "
          "median %.0f us, cached load median %.0f us\n",
          reference ? reference->len : 0, compile, cached);
  if (docker == NULL)
    return;
  seccomp_program_free (compile_oci (docker, cache_dir, NULL));
  compile = median_us (&(struct timed){ COMPILE_DOCKER, NULL, false }, 21);
  cached = median_us (&(struct timed){ COMPILE_DOCKER, cache_dir, true }, 41);
  key = median_us (&(struct timed){ KEY_DOCKER, NULL, false }, 101);
  printf ("Docker's profile as linux.seccomp (%u BPF instructions): compile "
          "median %.0f us, key %.1f us, cached (key and load) %.0f us\n",
          docker_reference ? docker_reference->len : 0, compile, key, cached);
}

int
main (void)
{
  cleanup_free char *cmd = NULL;

  if (mkdtemp (tmpdir) == NULL)
    return EXIT_FAILURE;
  cache_dir = xasprintf ("%s/cache", tmpdir);
  reference = load (PROFILE, NULL, NULL);
  CHECK (reference != NULL);
  docker = parse_file (DOCKER_PROFILE);
  CHECK (docker != NULL);
  docker_reference = compile_oci (docker, NULL, NULL);
  CHECK (docker_reference != NULL);
  RUN_TEST (test_hit_and_miss);
  RUN_TEST (test_damaged_entries_are_recompiled);
  RUN_TEST (test_unsafe_cache_dir);
  RUN_TEST (test_profile_errors);
  RUN_TEST (test_key_follows_the_compiler);
  RUN_TEST (test_key_ignores_json_layout);
  RUN_TEST (test_oci_hit_and_miss);
  RUN_TEST (test_oci_failures_are_never_cached);
  RUN_TEST (test_key_collision);
  RUN_TEST (test_split_keys);
  RUN_TEST (test_eviction);
  RUN_TEST (test_many_profiles_stay_bounded);
  RUN_TEST (test_timing);
  cmd = xasprintf ("rm -rf '%s'", tmpdir);
  if (system (cmd) != 0)
    fprintf (stderr, "could not remove %s\n", tmpdir);
  seccomp_program_free (reference);
  seccomp_program_free (docker_reference);
  oci_seccomp_free (docker);
  free (cache_dir);
  return UNIT_EXIT ();
}
