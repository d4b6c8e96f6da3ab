/* Unit tests of the real host view (runtime/policy/host_view.c) on a
 * scratch directory: symlinks, dangling links, loops, sockets, fifos; and
 * the hardening step run through it.  Everything is made under a mkdtemp
 * directory and removed at the end. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "runtime/policy/harden.h"
#include "unit.h"

static char root[] = "/tmp/agentrt-hostview.XXXXXX";
static int sock_fd = -1;

static char *
at (const char *rel)
{
  return xasprintf ("%s/%s", root, rel);
}

static void
make_dir (const char *rel)
{
  char *p = at (rel);
  CHECK (mkdir (p, 0755) == 0);
  free (p);
}

static void
make_file (const char *rel)
{
  char *p = at (rel);
  int fd = open (p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  CHECK (fd >= 0);
  close (fd);
  free (p);
}

static void
make_link (const char *target, const char *rel)
{
  char *p = at (rel);
  CHECK (symlink (target, p) == 0);
  free (p);
}

static void
make_socket (const char *rel)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  char *p = at (rel);

  sock_fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  CHECK (sock_fd >= 0 && strlen (p) < sizeof (sa.sun_path));
  strcpy (sa.sun_path, p);
  CHECK (bind (sock_fd, (struct sockaddr *) &sa, sizeof (sa)) == 0);
  free (p);
}

static void
setup (void)
{
  CHECK (mkdtemp (root) != NULL);
  make_dir ("home");
  make_dir ("home/u");
  make_dir ("home/u/.ssh");
  make_file ("home/u/.ssh/id_rsa");
  make_file ("home/u/.netrc");
  make_link (".ssh", "home/u/keys");
  make_link ("nowhere", "home/u/dangling");
  make_link ("loop2", "home/u/loop1");
  make_link ("loop1", "home/u/loop2");
  make_dir ("home/u/src");
  make_dir ("sockets");
  make_socket ("sockets/ctl.sock");
  make_dir ("bundle");
  make_dir ("bundle/data");
  char *fifo = at ("fifo");
  CHECK (mkfifo (fifo, 0600) == 0);
  free (fifo);
}

static void
teardown (void)
{
  static const char *const files[]
      = { "home/u/.ssh/id_rsa", "home/u/.netrc", "home/u/keys",
          "home/u/dangling", "home/u/loop1", "home/u/loop2",
          "sockets/ctl.sock", "fifo", NULL };
  static const char *const dirs[]
      = { "home/u/.ssh", "home/u/src", "home/u", "home", "sockets",
          "bundle/data", "bundle", NULL };

  if (sock_fd >= 0)
    close (sock_fd);
  for (size_t i = 0; files[i]; i++)
    {
      char *p = at (files[i]);
      unlink (p);
      free (p);
    }
  for (size_t i = 0; dirs[i]; i++)
    {
      char *p = at (dirs[i]);
      rmdir (p);
      free (p);
    }
  CHECK (rmdir (root) == 0);
}

static void
check_resolve (const struct host_view *v, const char *path,
               const char *expect_rel, enum host_kind expect_kind)
{
  char *canon = NULL, *expect = expect_rel ? at (expect_rel) : NULL;
  enum host_kind kind;
  agentrt_error_t err = NULL;

  CHECK (v->resolve (v->ctx, path, &canon, &kind, &err) == 0);
  CHECK (kind == expect_kind);
  if (expect)
    CHECK_STR_EQ (canon, expect);
  else
    CHECK (canon == NULL);
  free (canon);
  free (expect);
}

static void
test_hostile_paths (void)
{
  struct host_view v;
  char *bundle = at ("bundle"), *loop = at ("home/u/loop1");
  char *canon = NULL;
  enum host_kind kind;
  agentrt_error_t err = NULL;

  host_view_system (&v, bundle);
  CHECK (v.resolve (v.ctx, loop, &canon, &kind, &err) < 0);
  CHECK (err && err->status == ELOOP);
  agentrt_error_release (&err);
  free (loop);

  loop = at ("home/u/dangling");
  check_resolve (&v, loop, NULL, HOST_MISSING);
  free (loop);
  loop = at ("home/u/.netrc/below-a-file");
  check_resolve (&v, loop, NULL, HOST_MISSING);
  free (loop);
  loop = at ("fifo");
  check_resolve (&v, loop, "fifo", HOST_OTHER);
  free (loop);
  check_resolve (&v, "data", "bundle/data", HOST_DIR);
  check_resolve (&v, "data/../../home/u/keys/", "home/u/.ssh", HOST_DIR);
  free (bundle);
}

static void
test_exists_and_scan (void)
{
  struct host_view v;
  char *p;
  bool exists = false, has_socket = true;
  struct str_list subdirs = { NULL, 0 };
  agentrt_error_t err = NULL;

  host_view_system (&v, root);
  p = at ("home/u/dangling");
  CHECK (v.exists (v.ctx, p, &exists, &err) == 0 && exists);
  free (p);
  p = at ("home/u/.gnupg");
  CHECK (v.exists (v.ctx, p, &exists, &err) == 0 && !exists);
  free (p);
  p = at ("home/u/.netrc/x");
  CHECK (v.exists (v.ctx, p, &exists, &err) == 0 && !exists);
  free (p);

  p = at ("home/u");
  CHECK (v.scan_dir (v.ctx, p, &subdirs, &has_socket, &err) == 0);
  CHECK (!has_socket);
  CHECK (subdirs.len == 2);
  CHECK (str_list_contains (&subdirs, ".ssh"));
  CHECK (str_list_contains (&subdirs, "src"));
  CHECK (!str_list_contains (&subdirs, "keys")); /* a symlink */
  str_list_free (&subdirs);
  free (p);

  p = at ("sockets");
  CHECK (v.scan_dir (v.ctx, p, &subdirs, &has_socket, &err) == 0);
  CHECK (has_socket && subdirs.len == 0);
  free (p);

  p = at ("home/u/keys"); /* scan_dir does not follow a symlink */
  CHECK (v.scan_dir (v.ctx, p, &subdirs, &has_socket, &err) < 0);
  CHECK (err && (err->status == ELOOP || err->status == ENOTDIR));
  agentrt_error_release (&err);
  free (p);
}

/* The hardening step through the real host view. */
static void
test_harden_real (void)
{
  struct oci_config *c = xzalloc (sizeof (*c));
  struct agent_policy policy;
  struct harden_result r;
  struct host_view v;
  agentrt_error_t err = NULL;
  char *home = at ("home/u"), *socks = at ("sockets"), *keys = at ("home/u/keys");
  const char *srcs[] = { home, socks, keys };
  const char *dests[] = { "/home/u", "/s", "/k" };

  policy_init_defaults (&policy);
  host_view_system (&v, root);
  c->mounts = xzalloc (3 * sizeof (*c->mounts));
  c->n_mounts = 3;
  for (size_t i = 0; i < 3; i++)
    {
      c->mounts[i].destination = xstrdup (dests[i]);
      c->mounts[i].type = xstrdup ("bind");
      c->mounts[i].source = xstrdup (srcs[i]);
      str_list_append (&c->mounts[i].options, "rbind");
    }
  CHECK (harden (c, &policy, &c->annotations, &v, &r, &err) == 0);
  CHECK (str_list_contains (&c->linux_cfg->masked_paths, "/home/u/.ssh"));
  CHECK (str_list_contains (&c->linux_cfg->masked_paths, "/home/u/.netrc"));
  size_t n_home = 0;
  for (size_t i = 0; i < c->linux_cfg->masked_paths.len; i++)
    n_home += strncmp (c->linux_cfg->masked_paths.items[i], "/home/", 6) == 0;
  CHECK (n_home == 2);
  /* /s (sockets) and /k (keys -> .ssh) dropped; /tmp, /run and /dev/shm
   * added. */
  CHECK (c->n_mounts == 4);
  CHECK_STR_EQ (c->mounts[0].destination, "/home/u");
  harden_result_release (&r);
  policy_release (&policy);
  oci_config_free (c);
  free (home);
  free (socks);
  free (keys);
}

int
main (void)
{
  setup ();
  RUN_TEST (test_hostile_paths);
  RUN_TEST (test_exists_and_scan);
  RUN_TEST (test_harden_real);
  teardown ();
  return UNIT_EXIT ();
}
