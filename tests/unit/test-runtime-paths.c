/* Path resolution inside a rootfs (runtime/path_resolve.c): hostile images
 * first.  A temporary directory plays the rootfs; every resolution must stay
 * inside it, whatever the symlinks say.  Needs no root. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "runtime/path_resolve.h"
#include "runtime/process_setup.h"
#include "tests/unit/unit.h"

static char root[256];
static char outside[256];
static int rootfd = -1;

static void
make_file (const char *rel)
{
  char path[PATH_MAX];
  int fd;
  snprintf (path, sizeof path, "%s/%s", root, rel);
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0)
    close (fd);
}

static void
make_link (const char *target, const char *rel)
{
  char path[PATH_MAX];
  snprintf (path, sizeof path, "%s/%s", root, rel);
  if (symlink (target, path) < 0)
    perror (path);
}

/* The fd's path must be below the temporary root. */
static bool
inside_root (int fd)
{
  char link[64], path[PATH_MAX];
  ssize_t n;
  snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink (link, path, sizeof path - 1);
  if (n < 0)
    return false;
  path[n] = '\0';
  return strncmp (path, root, strlen (root)) == 0
         && (path[strlen (root)] == '/' || path[strlen (root)] == '\0');
}

static void
setup (void)
{
  char tmpl[] = "/tmp/agentrt-path-XXXXXX";
  char otmpl[] = "/tmp/agentrt-outside-XXXXXX";
  char path[PATH_MAX];

  if (mkdtemp (tmpl) == NULL || mkdtemp (otmpl) == NULL)
    exit (77);
  strcpy (root, tmpl);
  strcpy (outside, otmpl);
  snprintf (path, sizeof path, "%s/etc", root);
  mkdir (path, 0755);
  snprintf (path, sizeof path, "%s/secret", outside);
  close (open (path, O_WRONLY | O_CREAT, 0600));
  make_file ("etc/passwd");
  make_link ("/etc", "abs-etc");           /* absolute: must mean root/etc */
  make_link ("../../../../../..", "up");   /* climbs: must stop at root */
  make_link (outside, "out");              /* a host directory by name */
  make_link ("loop-b", "loop-a");          /* a loop */
  make_link ("loop-a", "loop-b");
  make_link ("../run/missing/stub", "etc/resolv.conf"); /* dangling */
  make_link ("/proc/self/root", "magic");  /* a magic link's name */
  rootfd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static void
teardown (void)
{
  char cmd[2 * PATH_MAX + 32];
  snprintf (cmd, sizeof cmd, "rm -rf '%s' '%s'", root, outside);
  if (system (cmd) != 0)
    fprintf (stderr, "cleanup failed\n");
}

static void
test_absolute_symlink_stays_inside (void)
{
  int fd = path_open_in_root (rootfd, "/abs-etc/passwd", O_PATH);
  CHECK (fd >= 0 && inside_root (fd));
  if (fd >= 0)
    close (fd);
}

static void
test_dotdot_is_clamped (void)
{
  int fd = path_open_in_root (rootfd, "/up/etc/passwd", O_PATH);
  CHECK (fd >= 0 && inside_root (fd));
  if (fd >= 0)
    close (fd);
  fd = path_open_in_root (rootfd, "../../../etc/passwd", O_PATH);
  CHECK (fd >= 0 && inside_root (fd));
  if (fd >= 0)
    close (fd);
}

static void
test_host_path_symlink_is_not_followed_out (void)
{
  char rel[PATH_MAX];
  int fd;
  /* "out" names the host directory, but inside the root it does not exist */
  snprintf (rel, sizeof rel, "/out/secret");
  fd = path_open_in_root (rootfd, rel, O_PATH);
  CHECK (fd == -ENOENT);
  if (fd >= 0)
    close (fd);
}

static void
test_loops_and_magic_links_fail (void)
{
  CHECK (path_open_in_root (rootfd, "/loop-a", O_PATH) == -ELOOP);
  CHECK (path_open_in_root (rootfd, "/magic/etc", O_PATH) < 0);
}

static void
test_nofollow_refuses_any_symlink (void)
{
  CHECK (path_open_in_root_nofollow (rootfd, "/abs-etc/passwd", O_PATH) == -ELOOP);
  CHECK (path_open_in_root_nofollow (rootfd, "/etc/passwd", O_PATH) >= 0);
}

static void
test_ensure_creates_inside (void)
{
  struct stat st;
  char path[PATH_MAX];
  int fd = path_ensure_in_root (rootfd, "/up/new/dir/file", PATH_KIND_FILE);
  CHECK (fd >= 0 && inside_root (fd));
  if (fd >= 0)
    close (fd);
  snprintf (path, sizeof path, "%s/new/dir/file", root);
  CHECK (stat (path, &st) == 0 && S_ISREG (st.st_mode));
  /* through the absolute symlink: root/etc/made, not the host's /etc */
  fd = path_ensure_in_root (rootfd, "/abs-etc/agentrt-made", PATH_KIND_DIR);
  CHECK (fd >= 0 && inside_root (fd));
  if (fd >= 0)
    close (fd);
  CHECK (access ("/etc/agentrt-made", F_OK) < 0);
}

static void
test_ensure_follows_dangling_symlink_inside (void)
{
  char path[PATH_MAX];
  int fd = path_ensure_in_root (rootfd, "/etc/resolv.conf", PATH_KIND_FILE);
  CHECK (fd >= 0 && inside_root (fd));
  if (fd >= 0)
    close (fd);
  snprintf (path, sizeof path, "%s/run/missing/stub", root);
  CHECK (access (path, F_OK) == 0);
}

static void
test_ensure_refuses_loops (void)
{
  int fd = path_ensure_in_root (rootfd, "/loop-a/x", PATH_KIND_DIR);
  CHECK (fd == -ELOOP);
  if (fd >= 0)
    close (fd);
}

/* Only a regular file is opened for reading: a FIFO (it would block), a
 * directory, a device node (one of the host's, acted on by root) are not,
 * wherever a symlink leads. */
static void
test_regular_only (void)
{
  char path[PATH_MAX];
  struct stat st;
  int fd;

  fd = path_open_regular_in_root (rootfd, "/etc/passwd");
  CHECK (fd >= 0 && fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
         && (fcntl (fd, F_GETFL) & O_ACCMODE) == O_RDONLY);
  if (fd >= 0)
    close (fd);
  /* through an absolute symlink, kept inside */
  fd = path_open_regular_in_root (rootfd, "/abs-etc/passwd");
  CHECK (fd >= 0 && inside_root (fd));
  if (fd >= 0)
    close (fd);
  snprintf (path, sizeof path, "%s/fifo", root);
  CHECK (mkfifo (path, 0644) == 0);
  CHECK (path_open_regular_in_root (rootfd, "/fifo") == -EINVAL);
  make_link ("/fifo", "to-fifo");
  CHECK (path_open_regular_in_root (rootfd, "/to-fifo") == -EINVAL);
  CHECK (path_open_regular_in_root (rootfd, "/etc") == -EINVAL);
  CHECK (path_open_regular_in_root (rootfd, "/missing") == -ENOENT);
  CHECK (path_open_regular_in_root (rootfd, "/out/secret") == -ENOENT);
  /* a node of the host's /dev/zero (as root only) */
  snprintf (path, sizeof path, "%s/zero", root);
  if (mknod (path, S_IFCHR | 0666, makedev (1, 5)) == 0)
    CHECK (path_open_regular_in_root (rootfd, "/zero") == -EINVAL);
}

/* Whether process_default_home gives `want` for uid. */
static bool
home_is (uid_t uid, const char *want)
{
  char *home = process_default_home (rootfd, uid);
  bool same = strcmp (home, want) == 0;

  if (!same)
    fprintf (stderr, "uid %u: HOME %s, wanted %s\n", (unsigned) uid, home, want);
  free (home);
  return same;
}

/* HOME from the image's /etc/passwd; one that is a FIFO or a directory
 * gives "/" at once (the create would have waited for a writer). */
static void
test_default_home (void)
{
  char path[PATH_MAX];
  FILE *f;

  snprintf (path, sizeof path, "%s/etc/passwd", root);
  f = fopen (path, "w");
  CHECK (f != NULL);
  if (f == NULL)
    return;
  fputs ("root:x:0:0:root:/root:/bin/sh\nbad line\n:x::0::/nowhere:\n"
         "agent:x:1000:1000::/home/agent:/bin/sh\nnohome:x:1001:1::", f);
  fclose (f);
  CHECK (home_is (1000, "/home/agent"));
  CHECK (home_is (0, "/root"));
  CHECK (home_is (1001, "/"));
  CHECK (home_is (4242, "/"));
  CHECK (unlink (path) == 0 && mkfifo (path, 0644) == 0);
  CHECK (home_is (0, "/"));
}

int
main (void)
{
  int probe;

  setup ();
  if (rootfd < 0)
    return 77;
  /* valgrind 3.19 does not know openat2: nothing to test under it */
  probe = path_open_in_root (rootfd, "/etc", O_PATH);
  if (probe == -ENOSYS)
    {
      fprintf (stderr, "SKIP: openat2 is not available (valgrind?)\n");
      teardown ();
      return 77;
    }
  close (probe);
  RUN_TEST (test_absolute_symlink_stays_inside);
  RUN_TEST (test_dotdot_is_clamped);
  RUN_TEST (test_host_path_symlink_is_not_followed_out);
  RUN_TEST (test_loops_and_magic_links_fail);
  RUN_TEST (test_nofollow_refuses_any_symlink);
  RUN_TEST (test_ensure_creates_inside);
  RUN_TEST (test_ensure_follows_dangling_symlink_inside);
  RUN_TEST (test_ensure_refuses_loops);
  RUN_TEST (test_regular_only);
  RUN_TEST (test_default_home);
  close (rootfd);
  teardown ();
  return UNIT_EXIT ();
}
