/* Unit tests of the real host view (runtime/policy/host_view.c) on a
 * scratch directory: symlinks, dangling links, loops, sockets, fifos, a
 * source swapped for a symlink once opened, a walk below it (a directory
 * that is a symlink, one swapped for a symlink or a mount while the walk
 * is below it, a tree deeper than the open directories kept, a directory
 * of thousands of entries), this host's devices, mounts and namespaces;
 * and the hardening step run through it.  Everything is made under a
 * mkdtemp directory and removed at the end. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
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
  free (ents);
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
  free (ents);
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

static int
remove_one (const char *path, const struct stat *st, int flag, struct FTW *f)
{
  (void) st;
  (void) f;
  return flag == FTW_DP ? rmdir (path) : unlink (path);
}

static void
remove_tree (const char *rel)
{
  char *p = at (rel);
  CHECK (nftw (p, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
  free (p);
}

/* Lists `rel` through the view: 0 with the entries' count in *n, or the
 * error's errno. */
static int
list (const struct host_view *v, const char *rel, size_t *n,
      const char *expect_name)
{
  char *p = at (rel);
  struct host_dirent *ents = NULL;
  agentrt_error_t err = NULL;
  int r = v->list_dir (v->ctx, p, &ents, n, &err);
  bool found = expect_name == NULL;

  free (p);
  if (r < 0)
    {
      r = err->status;
      agentrt_error_release (&err);
      return r ? r : -1;
    }
  for (size_t i = 0; i < *n; i++)
    found |= expect_name && strcmp (ents[i].name, expect_name) == 0;
  free (ents);
  return found ? 0 : -1;
}

static enum host_kind
kind (const struct host_view *v, const char *rel)
{
  char *p = at (rel);
  struct host_node node;
  agentrt_error_t err = NULL;

  CHECK (v->lookup (v->ctx, p, &node, NULL, &err) == 0);
  free (p);
  return node.kind;
}

/* The walk goes below the source through the directories it opened last:
 * a directory swapped for a symlink (to /) before it is listed is refused,
 * one swapped after is read where it was opened, never through the link;
 * a symlink on the way is never followed. */
static void
test_walk_swaps (void)
{
  struct host_view v;
  char *src = at ("w"), *canon = NULL, *a = at ("w/a"), *old = at ("w/a.old");
  char *b = at ("w/b"), *bold = at ("w/b.old");
  struct host_node node;
  agentrt_error_t err = NULL;
  size_t n = 0;

  make_dir ("w");
  make_dir ("w/a");
  make_dir ("w/a/b");
  make_dir ("w/a/b/c");
  make_file ("w/a/b/c/secret");
  make_dir ("w/a/x");
  make_file ("w/a/x/y");
  make_dir ("w/b");
  make_file ("w/b/z");
  make_link ("/", "w/root");
  make_link ("a", "w/alias");
  host_view_system (&v, root, NULL);
  CHECK (v.open_source (v.ctx, src, true, &canon, &node, &err) == 0);
  CHECK (list (&v, "w", &n, "alias") == 0 && n == 4);
  /* symlinks are not directories to the walk, at the end or on the way */
  CHECK (list (&v, "w/root", &n, NULL) == ELOOP);
  CHECK (list (&v, "w/alias/b", &n, NULL) == ELOOP);
  CHECK (kind (&v, "w/alias/b/c/secret") == HOST_SYMLINK);
  CHECK (kind (&v, "w/root/etc") == HOST_SYMLINK);
  CHECK (list (&v, "w/a", &n, "b") == 0 && n == 2);
  CHECK (list (&v, "w/a/b", &n, "c") == 0 && n == 1);
  /* w/a goes away and becomes a symlink to / while the walk is below it */
  CHECK (rename (a, old) == 0 && symlink ("/", a) == 0);
  CHECK (list (&v, "w/a/b/c", &n, "secret") == 0 && n == 1);
  CHECK (kind (&v, "w/a/b/c/secret") == HOST_FILE);
  CHECK (list (&v, "w/a/x", &n, "y") == 0 && n == 1);
  CHECK (kind (&v, "w/a/x/y") == HOST_FILE);
  CHECK (kind (&v, "w/a/etc") == HOST_MISSING);
  /* the same directory asked again below it: the one opened */
  CHECK (list (&v, "w/a", &n, "x") == 0 && n == 2);
  /* back at the top: w/a is the symlink now, and is refused */
  CHECK (list (&v, "w", &n, "a") == 0);
  CHECK (list (&v, "w/a", &n, NULL) == ELOOP);
  CHECK (kind (&v, "w/a/b") == HOST_SYMLINK);
  /* swapped after the listing of its parent, before its own */
  CHECK (list (&v, "w", &n, "b") == 0);
  CHECK (rename (b, bold) == 0 && symlink ("/", b) == 0);
  CHECK (list (&v, "w/b", &n, NULL) == ELOOP);
  CHECK (kind (&v, "w/b/etc") == HOST_SYMLINK);
  host_view_system_release (&v);
  CHECK (unlink (a) == 0 && rename (old, a) == 0);
  CHECK (unlink (b) == 0 && rename (bold, b) == 0);
  remove_tree ("w");
  free (canon);
  free (src);
  free (a);
  free (old);
  free (b);
  free (bold);
}

/* A mount made over a directory the walk has open (root, in a mount
 * namespace of the test's own) is not what the walk reads below it. */
static void
test_walk_mount (void)
{
  struct host_view v;
  char *src = at ("m"), *canon = NULL, *a = at ("m/a");
  struct host_node node;
  agentrt_error_t err = NULL;
  size_t n = 0;

  if (geteuid () != 0 || unshare (CLONE_NEWNS) < 0
      || mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    {
      printf ("# SKIP %s: needs root and a mount namespace of its own\n",
              unit_current);
      free (src);
      free (a);
      return;
    }
  make_dir ("m");
  make_dir ("m/a");
  make_dir ("m/a/b");
  make_file ("m/a/b/f");
  host_view_system (&v, root, NULL);
  CHECK (v.open_source (v.ctx, src, true, &canon, &node, &err) == 0);
  CHECK (list (&v, "m/a", &n, "b") == 0);
  CHECK (mount ("none", a, "tmpfs", 0, "size=64k") == 0);
  CHECK (list (&v, "m/a/b", &n, "f") == 0 && n == 1);
  CHECK (kind (&v, "m/a/b/f") == HOST_FILE);
  host_view_system_release (&v);
  CHECK (umount (a) == 0);
  remove_tree ("m");
  free (canon);
  free (src);
  free (a);
}

/* d/wide's listing holds each of its 3000 files once, by its name: its
 * records take many reads, into a buffer that grows. */
static bool
wide_listing_whole (const struct host_view *v)
{
  char *p = at ("d/wide");
  struct host_dirent *ents = NULL;
  agentrt_error_t err = NULL;
  size_t n = 0;
  static bool seen[3000];
  bool whole;

  memset (seen, 0, sizeof seen);
  whole = v->list_dir (v->ctx, p, &ents, &n, &err) == 0 && n == 3000;
  for (size_t i = 0; whole && i < n; i++)
    {
      unsigned k;
      whole = ents[i].kind == HOST_FILE
              && sscanf (ents[i].name, "entry-with-a-long-name-%4u", &k) == 1
              && k < 3000 && !seen[k];
      if (whole)
        seen[k] = true;
    }
  agentrt_error_release (&err);
  free (ents);
  free (p);
  return whole;
}

/* Deeper than the open directories the view keeps, and wide: 3000
 * entries in one directory (many reads of it). */
static void
test_walk_deep_wide (void)
{
  struct host_view v;
  char rel[4096] = "d", *src = at ("d"), *canon = NULL;
  struct host_node node;
  agentrt_error_t err = NULL;
  size_t n = 0, depth = 48;

  make_dir ("d");
  for (size_t i = 0; i < depth; i++)
    {
      strcat (rel, "/sub");
      make_dir (rel);
    }
  make_file ("d/sub/f");
  make_dir ("d/wide");
  for (int i = 0; i < 3000; i++)
    {
      char name[64];
      snprintf (name, sizeof name, "d/wide/entry-with-a-long-name-%04d", i);
      make_file (name);
    }
  host_view_system (&v, root, NULL);
  CHECK (v.open_source (v.ctx, src, true, &canon, &node, &err) == 0);
  strcpy (rel, "d");
  for (size_t i = 0; i < depth; i++)
    {
      CHECK (list (&v, rel, &n, i + 1 < depth ? NULL : NULL) == 0);
      CHECK (n == (i == 0 ? 2 : i == 1 ? 2 : 1));
      strcat (rel, "/sub");
    }
  CHECK (list (&v, rel, &n, NULL) == 0 && n == 0);
  CHECK (kind (&v, rel) == HOST_DIR);
  CHECK (kind (&v, "d/sub/f") == HOST_FILE);
  CHECK (list (&v, "d/wide", &n, "entry-with-a-long-name-2999") == 0);
  CHECK (n == 3000);
  CHECK (list (&v, "d/wide", &n, "entry-with-a-long-name-0000") == 0);
  CHECK (wide_listing_whole (&v));
  host_view_system_release (&v);
  remove_tree ("d");
  free (canon);
  free (src);
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
  RUN_TEST (test_walk_swaps);
  RUN_TEST (test_walk_deep_wide);
  RUN_TEST (test_host_facts);
  RUN_TEST (test_harden_real);
  RUN_TEST (test_walk_mount); /* last: it leaves the mount namespace */
  teardown ();
  return UNIT_EXIT ();
}
