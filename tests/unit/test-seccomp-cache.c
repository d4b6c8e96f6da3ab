/* The compiled-profile cache (runtime/seccomp/seccomp_cache.c): hostile and broken
 * entries are never used (damaged bytes, truncation, wrong key, loose mode,
 * symlinks, a directory others can write), profile errors name the file and
 * the JSON path, and the figures: compile vs cached load of agent-default. */
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
#include "tests/unit/unit.h"

#define PROFILE SECCOMP_PROFILE_DIR "/agent-default.json"

static char tmpdir[] = "/tmp/test-seccomp-cache.XXXXXX";
static char *cache_dir;
static struct seccomp_program *reference; /* compiled without the cache */

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

/* Loads once to fill the cache, damages the entry with `damage`, and checks
 * that the next load recompiles (same program as the reference) and
 * rewrites a valid entry. */
static void
check_damage (void (*damage) (const char *path))
{
  cleanup_free char *path = NULL;
  struct seccomp_program *p;
  bool hit = true;

  reset_cache ();
  seccomp_program_free (load (PROFILE, cache_dir, &hit));
  CHECK (!hit);
  path = entry_path ();
  if (path == NULL)
    return;
  damage (path);
  p = load (PROFILE, cache_dir, &hit);
  CHECK (!hit);
  CHECK (same_program (p, reference));
  seccomp_program_free (p);
  p = load (PROFILE, cache_dir, &hit);
  CHECK (hit);
  CHECK (same_program (p, reference));
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
  check_damage (damage_program);
  check_damage (damage_magic);
  check_damage (damage_key);
  check_damage (damage_truncate);
  check_damage (damage_append);
  check_damage (damage_empty);
  check_damage (damage_mode);
  check_damage (damage_symlink);
  if (geteuid () == 0)
    check_damage (damage_owner);
  else
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

static double
median_us (const char *dir, bool expect_hit)
{
  enum
  {
    RUNS = 41
  };
  double t[RUNS];
  size_t i;

  for (i = 0; i < RUNS; i++)
    {
      bool hit;
      double t0 = now_us ();
      struct seccomp_program *p = load (PROFILE, dir, &hit);
      t[i] = now_us () - t0;
      CHECK (p && hit == expect_hit);
      seccomp_program_free (p);
    }
  qsort (t, RUNS, sizeof (t[0]), compare_double);
  return t[RUNS / 2];
}

/* Figures, not assertions (sanitizers and valgrind change them). */
static void
test_timing (void)
{
  double compile, cached;

  reset_cache ();
  seccomp_program_free (load (PROFILE, cache_dir, NULL));
  compile = median_us (NULL, false);
  cached = median_us (cache_dir, true);
  printf ("agent-default.json (%u BPF instructions): read+parse+compile "
          "median %.0f us, cached load median %.0f us\n",
          reference ? reference->len : 0, compile, cached);
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
  RUN_TEST (test_hit_and_miss);
  RUN_TEST (test_damaged_entries_are_recompiled);
  RUN_TEST (test_unsafe_cache_dir);
  RUN_TEST (test_profile_errors);
  RUN_TEST (test_timing);
  cmd = xasprintf ("rm -rf '%s'", tmpdir);
  if (system (cmd) != 0)
    fprintf (stderr, "could not remove %s\n", tmpdir);
  seccomp_program_free (reference);
  free (cache_dir);
  return UNIT_EXIT ();
}
