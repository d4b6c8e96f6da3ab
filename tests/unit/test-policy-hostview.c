/* Unit tests of the real host view (runtime/policy/host_view.c) on a
 * scratch directory: symlinks, dangling links, loops, sockets, fifos, a
 * source swapped for a symlink once opened, this host's devices, mounts
 * and namespaces; and the hardening step run through it.  Everything is made under a mkdtemp
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
  make_file ("home/u/src/main.c");
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
          "home/u/src/main.c",
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
check_open (const struct host_view *v, const char *path,
            const char *expect_rel, enum host_kind expect_kind)
{
  char *canon = NULL, *expect = expect_rel ? at (expect_rel) : NULL;
  struct host_node node;
  agentrt_error_t err = NULL;

  CHECK (v->open_source (v->ctx, path, true, &canon, &node, &err) == 0);
  CHECK (node.kind == expect_kind);
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
  struct host_node node;
  agentrt_error_t err = NULL;

  host_view_system (&v, bundle, NULL);
  CHECK (v.open_source (v.ctx, loop, true, &canon, &node, &err) < 0);
  CHECK (err && err->status == ELOOP);
  agentrt_error_release (&err);
  free (loop);

  loop = at ("home/u/dangling");
  check_open (&v, loop, NULL, HOST_MISSING);
  free (loop);
  loop = at ("home/u/.netrc/below-a-file");
  check_open (&v, loop, NULL, HOST_MISSING);
  free (loop);
  loop = at ("fifo");
  check_open (&v, loop, "fifo", HOST_OTHER);
  free (loop);
  check_open (&v, "data", "bundle/data", HOST_DIR);
  check_open (&v, "data/../../home/u/keys/", "home/u/.ssh", HOST_DIR);
  /* a path derived below an open source never follows a symlink */
  loop = at ("home/u/.ssh/../keys");
  check_open (&v, loop, "home/u/.ssh", HOST_DIR);
  free (loop);
  host_view_system_release (&v);
  free (bundle);
}

/* What is judged is what was opened: a directory swapped for a symlink
 * after open_source changes nothing that is asked through the view. */
static void
test_swapped_source (void)
{
  struct host_view v;
  char *src = at ("home/u/src"), *old = at ("home/u/src.old");
  char *canon = NULL;
  struct host_node node;
  struct host_dirent *ents = NULL;
  size_t n = 0;
  struct stat before, after;
  agentrt_error_t err = NULL;

  host_view_system (&v, root, NULL);
  CHECK (v.open_source (v.ctx, src, true, &canon, &node, &err) == 0);
  CHECK (node.kind == HOST_DIR);
  CHECK (fstat (host_view_source_fd (&v, canon), &before) == 0);
  CHECK (rename (src, old) == 0);
  CHECK (symlink ("/", src) == 0);
  CHECK (fstat (host_view_source_fd (&v, canon), &after) == 0);
  CHECK (before.st_ino == after.st_ino && S_ISDIR (after.st_mode));
  CHECK (v.list_dir (v.ctx, canon, &ents, &n, &err) == 0);
  CHECK (n == 1 && strcmp (ents[0].name, "main.c") == 0);
  host_dirents_free (ents, n);
  /* a new open of the path sees the symlink, followed */
  host_view_system_release (&v);
  host_view_system (&v, root, NULL);
  free (canon);
  CHECK (v.open_source (v.ctx, src, true, &canon, &node, &err) == 0);
  CHECK_STR_EQ (canon, "/");
  host_view_system_release (&v);
  CHECK (unlink (src) == 0 && rename (old, src) == 0);
  free (canon);
  free (src);
  free (old);
}

static void
test_lookup_and_list (void)
{
  struct host_view v;
  char *home = at ("home/u"), *p, *target = NULL, *canon = NULL;
  struct host_node node;
  struct host_dirent *ents = NULL;
  size_t n = 0;
  agentrt_error_t err = NULL;

  host_view_system (&v, root, NULL);
  CHECK (v.open_source (v.ctx, home, true, &canon, &node, &err) == 0);
  p = at ("home/u/keys");
  CHECK (v.lookup (v.ctx, p, &node, &target, &err) == 0);
  CHECK (node.kind == HOST_SYMLINK);
  free (p);
  p = at ("home/u/.ssh");
  CHECK_STR_EQ (target, p);
  free (p);
  free (target);
  p = at ("home/u/keys/id_rsa"); /* through a symlink on the way */
  CHECK (v.lookup (v.ctx, p, &node, &target, &err) == 0);
  CHECK (node.kind == HOST_SYMLINK);
  free (p);
  p = at ("home/u/.ssh/id_rsa");
  CHECK_STR_EQ (target, p);
  free (p);
  free (target);
  p = at ("home/u/.gnupg");
  CHECK (v.lookup (v.ctx, p, &node, NULL, &err) == 0);
  CHECK (node.kind == HOST_MISSING);
  free (p);
  p = at ("home/u/.netrc/x");
  CHECK (v.lookup (v.ctx, p, &node, NULL, &err) == 0);
  CHECK (node.kind == HOST_MISSING);
  free (p);

  CHECK (v.list_dir (v.ctx, home, &ents, &n, &err) == 0);
  CHECK (n == 7);
  for (size_t i = 0; i < n; i++)
    {
      if (strcmp (ents[i].name, ".ssh") == 0 || strcmp (ents[i].name, "src") == 0)
        CHECK (ents[i].kind == HOST_DIR);
      else if (strcmp (ents[i].name, ".netrc") == 0)
        CHECK (ents[i].kind == HOST_FILE);
      else
        CHECK (ents[i].kind == HOST_SYMLINK);
    }
  host_dirents_free (ents, n);
  p = at ("home/u/keys"); /* list_dir does not follow a symlink */
  CHECK (v.list_dir (v.ctx, p, &ents, &n, &err) < 0);
  CHECK (err && err->status == ELOOP);
  agentrt_error_release (&err);
  free (p);
  p = at ("sockets");
  CHECK (v.list_dir (v.ctx, p, &ents, &n, &err) < 0); /* not a source */
  agentrt_error_release (&err);
  free (p);
  host_view_system_release (&v);
  free (canon);
  free (home);
}

/* Devices, kernel filesystems, mounts and namespaces of this host. */
static void
test_host_facts (void)
{
  struct host_view v;
  char *canon = NULL;
  struct host_node node;
  struct host_mount *mounts = NULL;
  size_t n = 0;
  bool is_host = false, proc = false;
  agentrt_error_t err = NULL;

  host_view_system (&v, root, NULL);
  CHECK (v.open_source (v.ctx, "/dev/null", true, &canon, &node, &err) == 0);
  CHECK (node.kind == HOST_CHAR && node.major == 1 && node.minor == 3);
  free (canon);
  CHECK (v.open_source (v.ctx, "/proc/self", true, &canon, &node, &err) == 0);
  CHECK_STR_EQ (node.special_fs, "proc");
  free (canon);
  CHECK (v.open_source (v.ctx, root, true, &canon, &node, &err) == 0);
  CHECK (node.special_fs == NULL || strcmp (node.special_fs, "devtmpfs") != 0);
  free (canon);
  CHECK (v.submounts (v.ctx, "/", &mounts, &n, &err) == 0);
  for (size_t i = 0; i < n; i++)
    proc |= strcmp (mounts[i].path, "/proc") == 0
            && mounts[i].special_fs && strcmp (mounts[i].special_fs, "proc") == 0;
  CHECK (proc);
  host_mounts_free (mounts, n);
  CHECK (v.ns_is_host (v.ctx, "/proc/self/ns/pid", OCI_NS_PID, &is_host, &err)
         == 0 && is_host);
  CHECK (v.ns_is_host (v.ctx, "/proc/self/ns/net", OCI_NS_PID, &is_host, &err)
         == 0 && !is_host);
  CHECK (v.ns_is_host (v.ctx, "/nonexistent", OCI_NS_PID, &is_host, &err) == 0
         && !is_host);
  host_view_system_release (&v);
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
  host_view_system (&v, root, NULL);
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
  /* /s (sockets) and /k (keys -> .ssh) dropped; the home (writable) is
   * read-only but for src; /tmp, /run and /dev/shm added. */
  CHECK (c->n_mounts == 5);
  CHECK_STR_EQ (c->mounts[0].destination, "/home/u");
  CHECK (str_list_contains (&c->mounts[0].options, "ro"));
  CHECK_STR_EQ (c->mounts[1].destination, "/home/u/src");
  CHECK (host_view_source_fd (&v, c->mounts[1].source) >= 0);
  harden_result_release (&r);
  host_view_system_release (&v);
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
  RUN_TEST (test_swapped_source);
  RUN_TEST (test_lookup_and_list);
  RUN_TEST (test_host_facts);
  RUN_TEST (test_harden_real);
  teardown ();
  return UNIT_EXIT ();
}
