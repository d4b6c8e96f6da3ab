/* User namespaces for the runtime itself (see userns.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "runtime/userns.h"

int
userns_write_map (pid_t pid, const char *file, const struct oci_id_mapping *map,
                  size_t n, const char *field, agentrt_error_t *err)
{
  char path[64], buf[4096];
  size_t len = 0;
  cleanup_close int fd = -1;

  for (size_t i = 0; i < n; i++)
    {
      int w = snprintf (buf + len, sizeof buf - len, "%u %u %u\n",
                        map[i].container_id, map[i].host_id, map[i].size);
      if (w < 0 || (size_t) w >= sizeof buf - len)
        return agentrt_error (err, E2BIG, "%s: too many entries", field);
      len += (size_t) w;
    }
  snprintf (path, sizeof path, "/proc/%d/%s", pid, file);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write (fd, buf, len) != (ssize_t) len)
    return agentrt_error (err, errno, "%s: write `%s`", field, path);
  return 0;
}

/* The holder of userns_fd_with_maps: it shares the runtime's memory
 * (CLONE_VM: no page tables copied, the cost of this helper) and only
 * waits for the pipe's write end to close, with raw syscalls. */
static int
hold_userns (void *arg)
{
  const int *hold = arg;
  char c;

  /* its own copy of the write end goes, or the read never ends */
  syscall (SYS_close, hold[1]);
  while (syscall (SYS_read, hold[0], &c, 1) > 0)
    ;
  return 0;
}

int
userns_fd_with_maps (const struct oci_id_mapping *uid, size_t n_uid,
                     const struct oci_id_mapping *gid, size_t n_gid,
                     const char *field, agentrt_error_t *err)
{
  /* the holder's stack: it runs only while this frame waits for it */
  char stack[16384] __attribute__ ((aligned (16)));
  char path[64];
  int hold[2], fd = -1;
  pid_t pid;

  if (pipe2 (hold, O_CLOEXEC) < 0)
    return agentrt_error (err, errno, "%s: pipe", field);
  /* a child born in a new user namespace, waiting for the write end to
   * close: its namespace is what the fd will keep */
  pid = clone (hold_userns, stack + sizeof stack, CLONE_NEWUSER | CLONE_VM
               | SIGCHLD, hold);
  if (pid < 0)
    {
      int e = errno;
      close (hold[0]);
      close (hold[1]);
      return agentrt_error (err, e, "%s: create a user namespace", field);
    }
  if (userns_write_map (pid, "uid_map", uid, n_uid, field, err) == 0
      && userns_write_map (pid, "gid_map", gid, n_gid, field, err) == 0)
    {
      snprintf (path, sizeof path, "/proc/%d/ns/user", pid);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        agentrt_error (err, errno, "%s: open `%s`", field, path);
    }
  close (hold[1]);
  while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
    ;
  close (hold[0]);
  return fd;
}

/* What read_maps_in reads: /proc/self/uid_map and gid_map of the user
 * namespace `fd`, into buffers of the caller's frame. */
struct maps_reader
{
  int fd;
  char map[2][12288]; /* 340 lines of at most 33 bytes, and a NUL */
};

/* Shares the runtime's memory (CLONE_VM) but not its fs_struct, so it may
 * enter a user namespace; raw syscalls only.  Exits with 0 or an errno. */
static int
read_maps_in (void *arg)
{
  static const char *const files[2] = { "/proc/self/uid_map",
                                        "/proc/self/gid_map" };
  struct maps_reader *r = arg;

  if (syscall (SYS_setns, r->fd, CLONE_NEWUSER) < 0)
    return errno;
  for (int i = 0; i < 2; i++)
    {
      size_t len = 0;
      long n, fd = syscall (SYS_openat, AT_FDCWD, files[i],
                            O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        return errno;
      while ((n = syscall (SYS_read, fd, r->map[i] + len,
                           sizeof r->map[i] - 1 - len)) > 0)
        len += (size_t) n;
      syscall (SYS_close, fd);
      if (n < 0 || len == sizeof r->map[i] - 1)
        return n < 0 ? errno : E2BIG;
      r->map[i][len] = '\0';
    }
  return 0;
}

int
userns_check_joined_maps (int userns_fd, const struct oci_linux *l,
                          agentrt_error_t *err)
{
  char stack[16384] __attribute__ ((aligned (16)));
  struct maps_reader r;
  int status = 0;
  pid_t pid;

  if (l->n_uid_mappings == 0 && l->n_gid_mappings == 0)
    return 0;
  r.fd = userns_fd;
  pid = clone (read_maps_in, stack + sizeof stack, CLONE_VM | SIGCHLD, &r);
  if (pid < 0)
    return agentrt_error (err, errno, "linux.uidMappings: read the maps of "
                          "the user namespace joined by path");
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return agentrt_error (err, WIFEXITED (status) ? WEXITSTATUS (status) : 0,
                          "linux.uidMappings: read the maps of the user "
                          "namespace joined by path");
  if (idmap_matches (r.map[0], l->uid_mappings, l->n_uid_mappings) != 1)
    return agentrt_error (err, 0, "linux.uidMappings: not the maps of the "
                          "user namespace joined by path");
  if (idmap_matches (r.map[1], l->gid_mappings, l->n_gid_mappings) != 1)
    return agentrt_error (err, 0, "linux.gidMappings: not the maps of the "
                          "user namespace joined by path");
  return 0;
}

/* The helper's full path, from the system directories only, never PATH:
 * the helpers are setuid root and come with the system; a PATH entry the
 * caller (or an agent, through a work directory on it) can write would
 * have the runtime run whatever was planted there as the user, outside
 * every container.  NULL when there is none. */
char *
userns_find_helper (const char *name)
{
  static const char *const system_dirs[]
      = { "/usr/bin", "/usr/sbin", "/bin", "/sbin", NULL };

  for (size_t i = 0; system_dirs[i]; i++)
    {
      char *full = xasprintf ("%s/%s", system_dirs[i], name);
      if (access (full, X_OK) == 0)
        return full;
      free (full);
    }
  return NULL;
}

void
userns_caller (struct idmap_caller *out)
{
  cleanup_free char *uidmap = NULL, *gidmap = NULL;

  memset (out, 0, sizeof *out);
  out->euid = geteuid ();
  out->egid = getegid ();
  out->privileged = out->euid == 0;
  if (out->privileged)
    return;
  uidmap = userns_find_helper ("newuidmap");
  gidmap = userns_find_helper ("newgidmap");
  out->have_newuidmap = uidmap != NULL;
  out->have_newgidmap = gidmap != NULL;
}

/* "; /etc/subuid gives NAME 100000-165535" for a helper's error, or "". */
static char *
subid_hint (const char *file)
{
  struct idmap_range r[4];
  cleanup_free char *text = NULL;
  cleanup_free char *list = xstrdup ("");
  struct passwd pw, *found = NULL;
  char buf[1024];
  size_t n, len = 0;
  uid_t uid = getuid ();

  if (getpwuid_r (uid, &pw, buf, sizeof buf, &found) != 0)
    found = NULL;
  text = io_read_small_file (file, 1 << 20);
  if (text == NULL)
    return xasprintf ("; %s could not be read", file);
  n = idmap_subid_ranges (text, found ? found->pw_name : NULL, uid, r, 4);
  if (n == 0)
    return xasprintf ("; %s has no range for %s (uid %u)", file,
                      found ? found->pw_name : "this user", (unsigned) uid);
  for (size_t i = 0; i < n && i < 4; i++)
    {
      char *more = xasprintf ("%s%s%u-%u", list, len ? ", " : "",
                              (unsigned) r[i].start,
                              (unsigned) (r[i].start + r[i].count - 1));
      free (list);
      list = more;
      len++;
    }
  return xasprintf ("; %s gives %s %s", file,
                    found ? found->pw_name : "this user", list);
}

/* Runs HELPER PID (container host size)... with its stderr kept for the
 * error. */
static int
run_helper (const char *helper, pid_t pid, const struct oci_id_mapping *map,
            size_t n, const char *field, const char *subid_file,
            agentrt_error_t *err)
{
  cleanup_free char *binary = userns_find_helper (helper);
  cleanup_free char **argv = NULL;
  cleanup_free char *numbers = NULL;
  char msg[512];
  size_t got = 0, at = 0;
  int pipefd[2], status;
  pid_t child;

  if (binary == NULL)
    return agentrt_error (err, ENOENT, "%s: %s not found", field, helper);
  if (n > 340)
    return agentrt_error (err, E2BIG, "%s: too many entries", field);
  argv = xzalloc ((3 * n + 3) * sizeof *argv);
  numbers = xzalloc ((3 * n + 1) * 12);
  argv[0] = (char *) helper;
  argv[1] = numbers;
  at = (size_t) snprintf (numbers, 12, "%d", (int) pid) + 1;
  for (size_t i = 0; i < n; i++)
    {
      uint32_t v[3] = { map[i].container_id, map[i].host_id, map[i].size };
      for (int k = 0; k < 3; k++)
        {
          argv[2 + 3 * i + (size_t) k] = numbers + at;
          at += (size_t) snprintf (numbers + at, 12, "%u", (unsigned) v[k]) + 1;
        }
    }
  if (pipe2 (pipefd, O_CLOEXEC) < 0)
    return agentrt_error (err, errno, "%s: pipe", field);
  child = fork ();
  if (child == 0)
    {
      int null = open ("/dev/null", O_RDWR | O_CLOEXEC);
      if (null < 0 || dup2 (null, 0) < 0 || dup2 (null, 1) < 0
          || dup2 (pipefd[1], 2) < 0)
        _exit (127);
      execv (binary, argv);
      _exit (127);
    }
  close (pipefd[1]);
  if (child < 0)
    {
      close (pipefd[0]);
      return agentrt_error (err, errno, "%s: fork for %s", field, helper);
    }
  for (;;)
    {
      ssize_t r = read (pipefd[0], msg + got, sizeof msg - 1 - got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += (size_t) r;
      if (got == sizeof msg - 1)
        break;
    }
  close (pipefd[0]);
  msg[got] = '\0';
  while (got > 0 && (msg[got - 1] == '\n' || msg[got - 1] == ' '))
    msg[--got] = '\0';
  while (waitpid (child, &status, 0) < 0)
    if (errno != EINTR)
      return agentrt_error (err, errno, "%s: wait for %s", field, helper);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return 0;
  {
    cleanup_free char *hint = subid_hint (subid_file);
    return agentrt_error (err, EPERM, "%s: %s failed (%s %d)%s%s%s", field,
                          binary, WIFEXITED (status) ? "exit" : "signal",
                          WIFEXITED (status) ? WEXITSTATUS (status)
                                             : WTERMSIG (status),
                          got ? ": " : "", msg, hint);
  }
}

/* "deny" to /proc/PID/setgroups: what an unprivileged writer of a gid map
 * must do first. */
static int
deny_setgroups (pid_t pid, agentrt_error_t *err)
{
  char path[64];
  cleanup_close int fd = -1;

  snprintf (path, sizeof path, "/proc/%d/setgroups", (int) pid);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || io_write_all (fd, "deny", 4, NULL) < 0)
    return agentrt_error (err, errno, "linux.gidMappings: write `deny` to `%s`",
                          path);
  return 0;
}

/* One map (`kind` "uid" or "gid"), by the runtime or by its helper. */
static int
write_one (pid_t pid, enum idmap_writer writer, const char *kind,
           const struct oci_id_mapping *map, size_t n, agentrt_error_t *err)
{
  char helper[16], file[16], field[32], subid[16];

  if (n == 0)
    return 0;
  snprintf (helper, sizeof helper, "new%smap", kind);
  snprintf (file, sizeof file, "%s_map", kind);
  snprintf (field, sizeof field, "linux.%sMappings", kind);
  snprintf (subid, sizeof subid, "/etc/sub%s", kind);
  if (writer == IDMAP_WRITE_HELPER)
    return run_helper (helper, pid, map, n, field, subid, err);
  return userns_write_map (pid, file, map, n, field, err);
}

int
userns_write_maps (pid_t pid, const struct idmap_plan *plan,
                   const struct oci_id_mapping *uid, size_t n_uid,
                   const struct oci_id_mapping *gid, size_t n_gid,
                   agentrt_error_t *err)
{
  if (write_one (pid, plan->uid, "uid", uid, n_uid, err) < 0
      || (n_gid && plan->deny_setgroups && deny_setgroups (pid, err) < 0)
      || write_one (pid, plan->gid, "gid", gid, n_gid, err) < 0)
    return -1;
  return 0;
}

int
userns_setgroups_denied (pid_t pid, bool *denied, agentrt_error_t *err)
{
  char path[64], buf[16];
  cleanup_close int fd = -1;
  ssize_t n;

  *denied = false;
  snprintf (path, sizeof path, "/proc/%d/setgroups", (int) pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT)
    return 0; /* a kernel before 3.19 */
  if (fd < 0)
    return agentrt_error (err, errno, "open `%s`", path);
  n = read (fd, buf, sizeof buf - 1);
  if (n < 0)
    return agentrt_error (err, errno, "read `%s`", path);
  buf[n] = '\0';
  *denied = strncmp (buf, "deny", 4) == 0;
  return 0;
}

/* The host id of container id `id`, or false when it is not mapped. */
static bool
host_id_of (const struct oci_id_mapping *map, size_t n, uint32_t id,
            uint32_t *out)
{
  for (size_t i = 0; i < n; i++)
    if (id >= map[i].container_id && id - map[i].container_id < map[i].size)
      {
        *out = map[i].host_id + (id - map[i].container_id);
        return true;
      }
  return false;
}

void
userns_give_stdio (const struct oci_linux *l, uint32_t uid, uint32_t gid)
{
  uint32_t hu, hg;
  struct stat st;

  if (l == NULL || geteuid () != 0
      || !host_id_of (l->uid_mappings, l->n_uid_mappings, uid, &hu)
      || !host_id_of (l->gid_mappings, l->n_gid_mappings, gid, &hg))
    return;
  for (int fd = 0; fd < 3; fd++)
    if (fstat (fd, &st) == 0 && (S_ISFIFO (st.st_mode) || S_ISSOCK (st.st_mode))
        && (st.st_uid != hu || st.st_gid != hg))
      (void) fchown (fd, hu, hg);
}
