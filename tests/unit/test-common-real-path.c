/* Unit tests of common/real_path.c: the same answer (path, or errno) as
 * realpath(3) on every path built from the components of a tree with
 * directories, files, relative, absolute, dangling and looping symlinks,
 * with ".", "..", repeated and trailing slashes, and through /proc's
 * magic links. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/real_path.h"
#include "unit.h"

static char dir[] = "/tmp/agentrt-test-real-path-XXXXXX";

static void
make_tree (void)
{
  char p[512];
  int fd;

  snprintf (p, sizeof p, "%s/d", dir);
  CHECK (mkdir (p, 0755) == 0);
  snprintf (p, sizeof p, "%s/d/e", dir);
  CHECK (mkdir (p, 0755) == 0);
  snprintf (p, sizeof p, "%s/d/f", dir);
  fd = open (p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  CHECK (fd >= 0);
  close (fd);
  snprintf (p, sizeof p, "%s/rel", dir);
  CHECK (symlink ("d/e", p) == 0);
  snprintf (p, sizeof p, "%s/d/up", dir);
  CHECK (symlink ("..", p) == 0);
  snprintf (p, sizeof p, "%s/abs", dir);
  CHECK (symlink (dir, p) == 0);
  snprintf (p, sizeof p, "%s/dangling", dir);
  CHECK (symlink ("nowhere/x", p) == 0);
  snprintf (p, sizeof p, "%s/loop", dir);
  CHECK (symlink ("loop", p) == 0);
  snprintf (p, sizeof p, "%s/d/e/tofile", dir);
  CHECK (symlink ("../f", p) == 0);
}

static size_t mismatches, cases;

static void
compare (const char *path)
{
  char *want, *got;
  int want_errno, got_errno;

  errno = 0;
  want = realpath (path, NULL);
  want_errno = want ? 0 : errno;
  errno = 0;
  got = real_path (path);
  got_errno = got ? 0 : errno;
  cases++;
  if ((want == NULL) != (got == NULL) || (want && strcmp (want, got) != 0)
      || want_errno != got_errno)
    {
      if (mismatches++ < 5)
        fprintf (stderr, "%s: realpath %s (%d), real_path %s (%d)\n", path,
                 want ? want : "NULL", want_errno, got ? got : "NULL",
                 got_errno);
    }
  free (want);
  free (got);
}

static void
test_same_as_realpath (void)
{
  static const char *const parts[] = {
    "d", "e", "f", "rel", "up", "abs", "dangling", "loop", "tofile",
    "missing", ".", "..", "", "d/", "d//e",
  };
  size_t n = sizeof parts / sizeof parts[0];
  char p[1024];

  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      for (size_t k = 0; k < n; k++)
        {
          snprintf (p, sizeof p, "%s/%s/%s/%s", dir, parts[i], parts[j],
                    parts[k]);
          compare (p);
          snprintf (p, sizeof p, "%s//%s/%s/", dir, parts[i], parts[j]);
          compare (p);
        }
  /* magic links: /proc/self is a symlink, its fd and root links too */
  compare ("/proc/self/cwd");
  compare ("/proc/self/root/tmp/");
  compare ("/proc/thread-self/root");
  compare ("/");
  compare ("//");
  compare ("/tmp/");
  compare ("relative/path");
  compare ("");
  CHECK (cases > 6000);
  CHECK (mismatches == 0);
}

/* A path with nothing to resolve is answered as written, squeezed. */
static void
test_plain (void)
{
  char p[512], *got;

  snprintf (p, sizeof p, "%s///d//e/", dir);
  got = real_path (p);
  snprintf (p, sizeof p, "%s/d/e", dir);
  CHECK_STR_EQ (got, p);
  free (got);
}

int
main (void)
{
  char cmd[256];

  if (mkdtemp (dir) == NULL)
    return 1;
  make_tree ();
  RUN_TEST (test_same_as_realpath);
  RUN_TEST (test_plain);
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system (cmd) != 0)
    return 1;
  return UNIT_EXIT ();
}
