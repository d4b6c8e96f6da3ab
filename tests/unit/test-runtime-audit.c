/* The audit trail (runtime/audit_open.c, runtime/audit.c): hostile file
 * systems first.  audit_judge is pure; audit_open runs on a temporary tree
 * where symlinks, hard links, FIFOs and loose modes are planted: each must
 * be refused with its path and what is wrong, creating nothing.  The
 * ownership cases that need another uid run as root only.  The monitor's
 * trail keeps, in order, what it could not write, and says so. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/audit.h"
#include "tests/unit/unit.h"

static char base[64];

static struct stat
node (mode_t mode, uid_t uid, nlink_t links)
{
  struct stat st;
  memset (&st, 0, sizeof st);
  st.st_mode = mode;
  st.st_uid = uid;
  st.st_nlink = links;
  return st;
}

/* The reason audit_judge gives, or "ok". */
static const char *
judge (mode_t mode, uid_t uid, nlink_t links, enum audit_node what, uid_t euid)
{
  static char why[128];
  struct stat st = node (mode, uid, links);
  if (audit_judge (&st, what, euid, (uid_t) -1, why, sizeof why) == 0)
    return "ok";
  return why;
}

static void
test_judge_refuses_hostile_nodes (void)
{
  /* a symlink is never taken, whatever it is to be */
  CHECK_CONTAINS (judge (S_IFLNK | 0777, 0, 1, AUDIT_ANCESTOR, 0), "symlink");
  CHECK_CONTAINS (judge (S_IFLNK | 0777, 0, 1, AUDIT_DIR, 0), "symlink");
  CHECK_CONTAINS (judge (S_IFLNK | 0777, 0, 1, AUDIT_FILE, 0), "symlink");
  /* the wrong kind */
  CHECK_CONTAINS (judge (S_IFREG | 0700, 0, 1, AUDIT_DIR, 0), "not a directory");
  CHECK_CONTAINS (judge (S_IFREG | 0700, 0, 1, AUDIT_ANCESTOR, 0),
                  "not a directory");
  CHECK_CONTAINS (judge (S_IFDIR | 0700, 0, 2, AUDIT_FILE, 0),
                  "not a regular file");
  CHECK_CONTAINS (judge (S_IFIFO | 0600, 0, 1, AUDIT_FILE, 0),
                  "not a regular file");
  CHECK_CONTAINS (judge (S_IFCHR | 0600, 0, 1, AUDIT_FILE, 0),
                  "not a regular file");
  /* someone else's */
  CHECK_CONTAINS (judge (S_IFDIR | 0700, 1234, 2, AUDIT_DIR, 0),
                  "owned by uid 1234");
  CHECK_CONTAINS (judge (S_IFDIR | 0755, 1234, 2, AUDIT_ANCESTOR, 0),
                  "owned by uid 1234");
  CHECK_CONTAINS (judge (S_IFREG | 0600, 1234, 1, AUDIT_FILE, 1000),
                  "not by root or the runtime (uid 1000)");
  /* writable by others */
  CHECK_CONTAINS (judge (S_IFDIR | 0777, 0, 2, AUDIT_DIR, 0),
                  "writable by anyone (mode 0777)");
  CHECK_CONTAINS (judge (S_IFDIR | 01777, 0, 2, AUDIT_DIR, 0),
                  "writable by anyone");
  CHECK_CONTAINS (judge (S_IFDIR | 0770, 0, 2, AUDIT_DIR, 0),
                  "writable by its group");
  CHECK_CONTAINS (judge (S_IFREG | 0622, 0, 1, AUDIT_FILE, 0),
                  "writable by anyone");
  CHECK_CONTAINS (judge (S_IFREG | 0660, 0, 1, AUDIT_FILE, 0),
                  "writable by its group");
  /* another name for the file */
  CHECK_CONTAINS (judge (S_IFREG | 0600, 0, 2, AUDIT_FILE, 0), "has 2 links");
}

static void
test_judge_takes_sound_nodes (void)
{
  CHECK_STR_EQ (judge (S_IFDIR | 0700, 0, 2, AUDIT_DIR, 0), "ok");
  CHECK_STR_EQ (judge (S_IFDIR | 0755, 0, 2, AUDIT_DIR, 1000), "ok");
  CHECK_STR_EQ (judge (S_IFDIR | 0700, 1000, 2, AUDIT_DIR, 1000), "ok");
  CHECK_STR_EQ (judge (S_IFREG | 0600, 0, 1, AUDIT_FILE, 0), "ok");
  CHECK_STR_EQ (judge (S_IFREG | 0644, 1000, 1, AUDIT_FILE, 1000), "ok");
  /* an ancestor may be shared (/tmp, a group-writable /var/log): what
   * matters is that nobody else can replace the dir itself */
  CHECK_STR_EQ (judge (S_IFDIR | 01777, 0, 2, AUDIT_ANCESTOR, 0), "ok");
  CHECK_STR_EQ (judge (S_IFDIR | 0775, 0, 2, AUDIT_ANCESTOR, 1000), "ok");
}

/* In a user namespace (rootless Podman's) ids it does not map read as the
 * overflow uid: root's / and /home are such ancestors.  The trail and its
 * dir may never be, nor a mapped other user's directory. */
static void
test_judge_in_a_user_namespace (void)
{
  static char why[128];
  struct stat dir = node (S_IFDIR | 0755, 65534, 2);
  struct stat file = node (S_IFREG | 0600, 65534, 1);
  struct stat other = node (S_IFDIR | 0755, 1234, 2);

  CHECK (audit_judge (&dir, AUDIT_ANCESTOR, 0, 65534, why, sizeof why) == 0);
  CHECK (audit_judge (&dir, AUDIT_DIR, 0, 65534, why, sizeof why) < 0);
  CHECK_CONTAINS (why, "owned by uid 65534");
  CHECK (audit_judge (&file, AUDIT_FILE, 0, 65534, why, sizeof why) < 0);
  CHECK (audit_judge (&other, AUDIT_ANCESTOR, 0, 65534, why, sizeof why) < 0);
  /* in the initial namespace 65534 is nobody, never root */
  CHECK (audit_judge (&dir, AUDIT_ANCESTOR, 0, (uid_t) -1, why, sizeof why)
         < 0);
}

static char *
at (const char *rel)
{
  return xasprintf ("%s/%s", base, rel);
}

static void
mkdir_at (const char *rel, mode_t mode)
{
  cleanup_free char *p = at (rel);
  if (mkdir (p, mode) < 0 || chmod (p, mode) < 0)
    perror (p);
}

static void
symlink_at (const char *target, const char *rel)
{
  cleanup_free char *p = at (rel);
  if (symlink (target, p) < 0)
    perror (p);
}

static bool
exists_at (const char *rel)
{
  cleanup_free char *p = at (rel);
  struct stat st;
  return lstat (p, &st) == 0;
}

/* audit_open of dir (under base) refused with a message containing the
 * words; the fd of a success is closed and counts as a failure. */
static void
check_refused (const char *line, const char *rel, const char *want1,
               const char *want2)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_free char *dir = at (rel);
  int fd = audit_open (dir, "c1", &err);

  if (fd >= 0)
    {
      fprintf (stderr, "%s: %s was accepted\n", line, dir);
      close (fd);
      unit_failures++;
      return;
    }
  CHECK_CONTAINS (err->msg, want1);
  CHECK_CONTAINS (err->msg, want2);
  CHECK (strchr (err->msg, '\n') == NULL);
}

static void
test_open_refuses_symlinked_dir (void)
{
  mkdir_at ("real", 0700);
  symlink_at ("real", "link");
  check_refused ("dir", "link", "/link` is a symlink", "not followed");
  CHECK (!exists_at ("real/c1.jsonl"));
  /* dangling: nothing is created where it points */
  symlink_at ("nowhere", "dangling");
  check_refused ("dangling", "dangling", "/dangling` is a symlink", "audit: `");
  CHECK (!exists_at ("nowhere"));
}

static void
test_open_refuses_symlinked_ancestor (void)
{
  mkdir_at ("anc", 0755);
  symlink_at ("anc", "anclink");
  check_refused ("ancestor", "anclink/audit", "/anclink` is a symlink",
                 "not followed");
  CHECK (!exists_at ("anc/audit"));
  /* a symlink to / in the middle */
  symlink_at ("/", "root");
  check_refused ("root link", "root/tmp/audit", "/root` is a symlink", "");
}

static void
test_open_refuses_loose_dir (void)
{
  mkdir_at ("ww", 0777);
  check_refused ("world", "ww", "/ww` is writable by anyone", "0777");
  CHECK (!exists_at ("ww/c1.jsonl"));
  mkdir_at ("sticky", 01777);
  check_refused ("sticky", "sticky", "writable by anyone", "1777");
  mkdir_at ("gw", 0770);
  check_refused ("group", "gw", "/gw` is writable by its group", "0770");
  CHECK (!exists_at ("gw/c1.jsonl"));
  /* a file where the dir should be */
  {
    cleanup_free char *p = at ("afile");
    cleanup_close int fd = open (p, O_WRONLY | O_CREAT, 0600);
    CHECK (fd >= 0);
  }
  check_refused ("file", "afile", "/afile` is not a directory", "");
}

static void
test_open_refuses_planted_trails (void)
{
  cleanup_free char *target = at ("target");
  cleanup_free char *other = at ("other");
  cleanup_free char *hard = at ("h/c1.jsonl");
  cleanup_free char *fifo = at ("f/c1.jsonl");
  cleanup_close int ofd = open (other, O_WRONLY | O_CREAT, 0600);

  CHECK (ofd >= 0);
  mkdir_at ("t", 0700);
  symlink_at (target, "t/c1.jsonl");
  check_refused ("trail symlink", "t", "/t/c1.jsonl` is a symlink", "");
  CHECK (!exists_at ("target"));
  mkdir_at ("h", 0700);
  if (link (other, hard) < 0)
    perror (hard);
  check_refused ("hard link", "h", "/h/c1.jsonl` has 2 links", "");
  mkdir_at ("f", 0700);
  if (mkfifo (fifo, 0600) < 0)
    perror (fifo);
  /* must not block waiting for a reader */
  check_refused ("fifo", "f", "/f/c1.jsonl` is not a regular file", "");
  mkdir_at ("d", 0700);
  mkdir_at ("d/c1.jsonl", 0700);
  check_refused ("dir", "d", "/d/c1.jsonl` is not a regular file", "");
}

static void
test_open_refuses_odd_paths (void)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_free char *dotdot = at ("real/../real");
  CHECK (audit_open ("var/log/agentrt", "c1", &err) < 0);
  CHECK_CONTAINS (err->msg, "not an absolute path");
  agentrt_error_release (&err);
  CHECK (audit_open (dotdot, "c1", &err) < 0);
  CHECK_CONTAINS (err->msg, "has a `..` component");
  agentrt_error_release (&err);
  CHECK (audit_open (base, "../c1", &err) < 0);
  CHECK_CONTAINS (err->msg, "invalid container id");
  agentrt_error_release (&err);
  /* only the last component is made */
  check_refused ("missing parent", "no/such/dir", "audit: open `",
                 "/no`: No such file or directory");
  CHECK (!exists_at ("no"));
}

static void
test_open_creates_and_reads (void)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_free char *dir = at ("new//audit/");
  cleanup_free char *file = at ("new/audit/c1.jsonl");
  cleanup_close int fd = -1, again = -1, rd = -1;
  struct stat st;
  char buf[16] = { 0 };

  mkdir_at ("new", 0755);
  fd = audit_open (dir, "c1", &err);
  CHECK (fd >= 0);
  CHECK (stat (file, &st) == 0 && (st.st_mode & 07777) == 0600);
  {
    cleanup_free char *d = at ("new/audit");
    CHECK (stat (d, &st) == 0 && (st.st_mode & 07777) == 0700);
  }
  CHECK (write (fd, "a\n", 2) == 2);
  again = audit_open (dir, "c1", &err); /* appends */
  CHECK (again >= 0 && write (again, "b\n", 2) == 2);
  CHECK ((fcntl (again, F_GETFL) & (O_APPEND | O_NONBLOCK)) == O_APPEND);
  rd = audit_open_read (dir, "c1", &err);
  CHECK (rd >= 0 && read (rd, buf, sizeof buf - 1) == 4);
  CHECK_STR_EQ (buf, "a\nb\n");
  CHECK (audit_open_read (dir, "c2", &err) < 0 && err->status == ENOENT);
}

/* Owners other than root and the runtime: needs root to make them. */
static void
test_open_refuses_foreign_owner (void)
{
  cleanup_free char *own = at ("own");
  cleanup_free char *anc = at ("foreign");
  cleanup_free char *trail = at ("ft/c1.jsonl");

  if (geteuid () != 0)
    {
      fprintf (stderr, "SKIP: %s (not root)\n", unit_current);
      return;
    }
  mkdir_at ("own", 0700);
  CHECK (chown (own, 1234, 1234) == 0);
  check_refused ("owner", "own", "/own` is owned by uid 1234", "");
  CHECK (!exists_at ("own/c1.jsonl"));
  mkdir_at ("foreign", 0755);
  mkdir_at ("foreign/audit", 0700);
  CHECK (chown (anc, 1234, 1234) == 0);
  check_refused ("ancestor owner", "foreign/audit",
                 "/foreign` is owned by uid 1234", "");
  mkdir_at ("ft", 0700);
  {
    cleanup_close int fd = open (trail, O_WRONLY | O_CREAT, 0600);
    CHECK (fd >= 0 && fchown (fd, 1234, 1234) == 0);
  }
  check_refused ("trail owner", "ft", "/ft/c1.jsonl` is owned by uid 1234", "");
}


/* The monitor's trail: lines that cannot be written wait, in order, and
 * go out before the next one, followed by a line saying so. */
static char *
slurp (const char *path)
{
  char *buf = xzalloc (65536);
  cleanup_close int fd = open (path, O_RDONLY);
  ssize_t n = fd >= 0 ? read (fd, buf, 65535) : -1;
  if (n < 0)
    buf[0] = '\0';
  return buf;
}

static size_t
count (const char *text, const char *needle)
{
  size_t n = 0;
  for (const char *p = text; (p = strstr (p, needle)) != NULL; p++)
    n++;
  return n;
}

static void
test_trail_keeps_what_cannot_be_written (void)
{
  cleanup_free char *path = at ("trail.jsonl");
  cleanup_close int good = open (path, O_WRONLY | O_APPEND | O_CREAT, 0600);
  cleanup_close int bad = open (path, O_RDONLY); /* write: EBADF */
  cleanup_free char *text = NULL;
  struct audit_trail t;
  const char *lim, *note, *ex;

  audit_trail_init (&t, bad, "c1");
  CHECK (audit_limit (&t, "lifetime", "reached") < 0);
  CHECK (audit_incident (&t, "lifetime-kill", "attempt 1 failed") < 0);
  CHECK (t.npending == 2 && t.error == EBADF);
  CHECK (audit_trail_flush (&t) < 0);
  t.fd = good; /* the disk has room again */
  CHECK (audit_exit (&t, 9, 1500) == 0);
  CHECK (t.npending == 0 && t.late == 0 && t.lost == 0);
  text = slurp (path);
  lim = strstr (text, "\"event\":\"limit\"");
  note = strstr (text, "\"event\":\"audit\"");
  ex = strstr (text, "\"event\":\"exit\"");
  /* in order: what waited, the note, the new line */
  CHECK (lim && note && ex && lim < note && note < ex);
  CHECK (strstr (text, "\"event\":\"incident\"") < note);
  CHECK_CONTAINS (note, "\"late\":2,\"lost\":0,\"error\":\"Bad file descriptor\"");
  CHECK_CONTAINS (ex, "\"signal\":9");
  CHECK (count (text, "\n") == 4);
  audit_trail_release (&t);
}

static void
test_trail_drops_the_oldest_beyond_its_bound (void)
{
  cleanup_free char *path = at ("full.jsonl");
  cleanup_close int good = open (path, O_WRONLY | O_APPEND | O_CREAT, 0600);
  cleanup_close int bad = open (path, O_RDONLY);
  cleanup_free char *text = NULL;
  struct audit_trail t;
  char detail[32];
  int i;

  audit_trail_init (&t, bad, "c1");
  for (i = 0; i < AUDIT_PENDING_MAX + 6; i++)
    {
      snprintf (detail, sizeof detail, "n%d.", i);
      audit_limit (&t, "pids", detail);
    }
  CHECK (t.npending == AUDIT_PENDING_MAX && t.lost == 6);
  t.fd = good;
  CHECK (audit_trail_drain (&t, 0) == 0);
  text = slurp (path);
  CHECK (strstr (text, "\"n5.\"") == NULL && strstr (text, "\"n6.\"") != NULL);
  CHECK_CONTAINS (text, "\"late\":64,\"lost\":6");
  CHECK (count (text, "\n") == AUDIT_PENDING_MAX + 1);
  audit_trail_release (&t);
}

/* A write cut short (the disk filled up in the middle): the broken line is
 * ended before the next, so that only it fails to parse. */
static void
test_trail_ends_a_broken_line (void)
{
  cleanup_free char *path = at ("broken.jsonl");
  cleanup_close int good = open (path, O_WRONLY | O_APPEND | O_CREAT, 0600);
  cleanup_free char *text = NULL;
  struct audit_trail t;

  CHECK (write (good, "{\"cut", 5) == 5);
  audit_trail_init (&t, good, "c1");
  t.partial = true;
  t.late = 1;
  t.error = ENOSPC;
  CHECK (audit_exit (&t, 0, 1) == 0);
  text = slurp (path);
  CHECK (strncmp (text, "{\"cut\n{", 7) == 0);
  CHECK_CONTAINS (text, "No space left on device");
  audit_trail_release (&t);
}

int
main (void)
{
  int r;

  strcpy (base, "/tmp/agentrt-audit-XXXXXX");
  if (mkdtemp (base) == NULL)
    return 99;
  RUN_TEST (test_judge_refuses_hostile_nodes);
  RUN_TEST (test_judge_takes_sound_nodes);
  RUN_TEST (test_judge_in_a_user_namespace);
  RUN_TEST (test_open_refuses_symlinked_dir);
  RUN_TEST (test_open_refuses_symlinked_ancestor);
  RUN_TEST (test_open_refuses_loose_dir);
  RUN_TEST (test_open_refuses_planted_trails);
  RUN_TEST (test_open_refuses_odd_paths);
  RUN_TEST (test_open_creates_and_reads);
  RUN_TEST (test_open_refuses_foreign_owner);
  RUN_TEST (test_trail_keeps_what_cannot_be_written);
  RUN_TEST (test_trail_drops_the_oldest_beyond_its_bound);
  RUN_TEST (test_trail_ends_a_broken_line);
  r = UNIT_EXIT ();
  {
    cleanup_free char *rm = xasprintf ("rm -rf '%s'", base);
    if (system (rm) != 0)
      fprintf (stderr, "could not remove %s\n", base);
  }
  return r;
}
