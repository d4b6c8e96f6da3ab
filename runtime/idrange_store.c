/* The allocation store (see idrange_store.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "runtime/fault.h"
#include "runtime/idrange.h"
#include "runtime/idrange_store.h"
#include "runtime/proc_util.h"
#include "runtime/state_store.h"

#define RANGES_FILE "ranges"
#define RANGES_MAX (16u << 20)

/* The store's directory (made 0700 when missing), locked: *lockfd holds
 * the flock.  With `create` false a missing store is 0 and *dirfd -1. */
static int
store_open (const char *root, bool create, int *dirfd, int *lockfd,
            agentrt_error_t *err)
{
  cleanup_close int rootfd = -1, dfd = -1, lfd = -1;

  *dirfd = *lockfd = -1;
  if (create && state_root_create (root, err) < 0)
    return -1;
  rootfd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0 && !create && errno == ENOENT)
    return 0;
  if (rootfd < 0)
    return agentrt_error (err, errno, "open the state root `%s`", root);
  if (create && mkdirat (rootfd, IDRANGE_STORE_DIR, 0700) < 0 && errno != EEXIST)
    return agentrt_error (err, errno, "create `%s/%s`", root, IDRANGE_STORE_DIR);
  dfd = openat (rootfd, IDRANGE_STORE_DIR,
                O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0 && !create && errno == ENOENT)
    return 0;
  if (dfd < 0)
    return agentrt_error (err, errno, "open `%s/%s`", root, IDRANGE_STORE_DIR);
  lfd = openat (dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (lfd < 0)
    return agentrt_error (err, errno, "open `%s/%s/lock`", root,
                          IDRANGE_STORE_DIR);
  while (flock (lfd, LOCK_EX) < 0)
    if (errno != EINTR)
      return agentrt_error (err, errno, "lock `%s/%s/lock`", root,
                            IDRANGE_STORE_DIR);
  *dirfd = steal_fd (&dfd);
  *lockfd = steal_fd (&lfd);
  return 0;
}

/* The entries, each judged live or stale. */
static int
store_read (const char *root, int dirfd, struct idrange_table *t,
            agentrt_error_t *err)
{
  cleanup_free char *origin = xasprintf ("%s/%s/%s", root, IDRANGE_STORE_DIR,
                                         RANGES_FILE);
  cleanup_close int fd = openat (dirfd, RANGES_FILE,
                                 O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_close int rootfd = -1;
  cleanup_free char *text = NULL;
  char proc[64];

  memset (t, 0, sizeof *t);
  if (fd < 0 && errno == ENOENT)
    return 0;
  if (fd >= 0)
    {
      snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
      text = io_read_small_file (proc, RANGES_MAX);
    }
  if (text == NULL)
    return agentrt_error (err, errno, "read `%s`", origin);
  if (idrange_parse (text, origin, t, err) < 0)
    return -1;
  rootfd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  for (size_t i = 0; i < t->len; i++)
    {
      struct idrange_entry *e = &t->items[i];
      struct stat st;
      e->live = (rootfd >= 0 && state_id_valid (e->id)
                 && fstatat (rootfd, e->id, &st, AT_SYMLINK_NOFOLLOW) == 0)
                || (e->pid > 0 && proc_is_alive (e->pid, e->pid_start));
    }
  return 0;
}

/* Replaces the file with the live entries (a temporary, renamed over it:
 * a runtime killed meanwhile leaves the old file; no fsync: the entries
 * describe processes, which a machine crash ends too). */
static int
store_write (const char *root, int dirfd, const struct idrange_table *t,
             agentrt_error_t *err)
{
  cleanup_free char *text = idrange_format (t);
  cleanup_close int wdir = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int fd = -1;
  char tmp[32];

  snprintf (tmp, sizeof tmp, ".%s.%d", RANGES_FILE, (int) getpid ());
  if (wdir >= 0)
    fd = openat (wdir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                 0600);
  if (fd < 0 || io_write_all (fd, text, strlen (text), NULL) < 0
      || renameat (wdir, tmp, wdir, RANGES_FILE) < 0)
    {
      int e = errno;
      if (wdir >= 0)
        unlinkat (wdir, tmp, 0);
      return agentrt_error (err, e, "write `%s/%s/%s`", root,
                            IDRANGE_STORE_DIR, RANGES_FILE);
    }
  return 0;
}

int
idrange_store_allocate (const char *root, const char *id,
                        const struct agent_policy *policy, uint32_t *uid,
                        uint32_t *gid, agentrt_error_t *err)
{
  cleanup_free char *subuid = io_read_small_file ("/etc/subuid", 1 << 20);
  cleanup_free char *subgid = io_read_small_file ("/etc/subgid", 1 << 20);
  cleanup_close int dirfd = -1, lockfd = -1;
  struct idrange_pool pool;
  struct idrange_table t;
  uint64_t start = 0;
  int r;

  idrange_pool_decide (policy, subuid, subgid, &pool);
  if (store_open (root, true, &dirfd, &lockfd, err) < 0)
    {
      idrange_pool_release (&pool);
      return -1;
    }
  r = store_read (root, dirfd, &t, err);
  if (r == 0)
    r = idrange_choose (&pool, &t, uid, gid, err);
  if (r == 0 && (r = proc_stat_read (getpid (), &start, NULL)) < 0)
    r = agentrt_error (err, -r, "user namespace: this runtime's start time");
  if (r == 0)
    {
      idrange_add (&t, *uid, *gid, getpid (), start, id);
      r = store_write (root, dirfd, &t, err);
    }
  idrange_table_free (&t);
  idrange_pool_release (&pool);
  return r;
}

int
idrange_store_release (const char *root, const char *id, bool has_uid,
                       uint32_t uid_start, agentrt_error_t *err)
{
  cleanup_close int dirfd = -1, lockfd = -1;
  struct idrange_table t;
  int r;

  if (store_open (root, false, &dirfd, &lockfd, err) < 0)
    return -1;
  if (dirfd < 0)
    return 0;
  r = store_read (root, dirfd, &t, err);
  if (r == 0 && idrange_drop (&t, id, has_uid, uid_start) > 0)
    r = store_write (root, dirfd, &t, err);
  idrange_table_free (&t);
  return r;
}
