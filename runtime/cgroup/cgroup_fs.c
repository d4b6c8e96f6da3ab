/* The container cgroup handle's directories and the file access every
 * cgroup writer shares: directories opened once and files written with
 * openat/write, errors naming the value and the full path, recursive
 * removal that waits for dying processes. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"

struct cgroup *
cg_new (const struct cgroup_layout *layout, const char *path,
        const char *unit, bool owned)
{
  struct cgroup *cg = xzalloc (sizeof *cg);

  cg->layout = layout;
  cg->path = xstrdup (path);
  cg->systemd_unit = xstrdup (unit);
  cg->owned = owned;
  cg->dirs = xreallocarray (NULL, layout->n, sizeof *cg->dirs);
  for (size_t i = 0; i < layout->n; i++)
    {
      cg->dirs[i].fd = -1;
      cg->dirs[i].path = cg_hier_path (&layout->h[i], path);
      cg->dirs[i].v2 = layout->h[i].v2;
    }
  return cg;
}

struct cg_dir *
cg_dir (struct cgroup *cg, size_t i, agentrt_error_t *err)
{
  struct cg_dir *d = &cg->dirs[i];

  if (d->fd < 0)
    {
      d->fd = open (d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (d->fd < 0)
        {
          agentrt_error (err, errno, "open cgroup `%s`", d->path);
          return NULL;
        }
    }
  return d;
}

struct cg_dir *
cg_ctrl_dir (struct cgroup *cg, enum cg_ctrl ctrl, agentrt_error_t *err)
{
  int i = cg->layout->route[ctrl];

  if (i < 0)
    return NULL;
  return cg_dir (cg, (size_t) i, err);
}

int
cg_open_write (struct cg_dir *d, const char *file, agentrt_error_t *err)
{
  int fd = openat (d->fd, file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return agentrt_error (err, errno, "open `%s/%s`", d->path, file);
  return fd;
}

int
cg_write_fd (struct cg_dir *d, int fd, const char *file, const char *value,
             agentrt_error_t *err)
{
  size_t len = strlen (value);
  ssize_t r;
  int shown;

  do
    r = write (fd, value, len);
  while (r < 0 && errno == EINTR);
  /* Messages stay on one line: no trailing newline of the value. */
  shown = (int) (len && value[len - 1] == '\n' ? len - 1 : len);
  if (r < 0)
    return agentrt_error (err, errno, "write `%.*s` to `%s/%s`", shown, value,
                          d->path, file);
  if ((size_t) r != len)
    return agentrt_error (err, EIO, "short write of `%.*s` to `%s/%s`", shown,
                          value, d->path, file);
  return 0;
}

int
cg_write (struct cg_dir *d, const char *file, const char *value,
          agentrt_error_t *err)
{
  cleanup_close int fd = cg_open_write (d, file, err);
  if (fd < 0)
    return -1;
  return cg_write_fd (d, fd, file, value, err);
}

int
cg_writef (struct cg_dir *d, const char *file, agentrt_error_t *err,
           const char *fmt, ...)
{
  char buf[256];
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  if (n < 0 || (size_t) n >= sizeof buf)
    return agentrt_error (err, EOVERFLOW, "value for `%s/%s` too long",
                          d->path, file);
  return cg_write (d, file, buf, err);
}

static ssize_t
read_all (int fd, char *buf, size_t size)
{
  size_t len = 0;
  while (len < size)
    {
      ssize_t r = read (fd, buf + len, size - len);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return -1;
      if (r == 0)
        break;
      len += (size_t) r;
    }
  return (ssize_t) len;
}

ssize_t
cg_read_buf (struct cg_dir *d, const char *file, char *buf, size_t size,
             agentrt_error_t *err)
{
  cleanup_close int fd = openat (d->fd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  ssize_t n;

  if (fd < 0)
    return agentrt_error (err, errno, "open `%s/%s`", d->path, file);
  n = read_all (fd, buf, size - 1);
  if (n < 0)
    return agentrt_error (err, errno, "read `%s/%s`", d->path, file);
  buf[n] = '\0';
  return n;
}

int
cg_read (struct cg_dir *d, const char *file, char **out, agentrt_error_t *err)
{
  cleanup_close int fd = openat (d->fd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  size_t size = 4096, len = 0;
  cleanup_free char *buf = NULL;
  ssize_t n;

  if (fd < 0)
    return agentrt_error (err, errno, "open `%s/%s`", d->path, file);
  buf = xmalloc (size);
  while ((n = read_all (fd, buf + len, size - len - 1)) > 0)
    {
      len += (size_t) n;
      if (len + 1 < size)
        break;
      buf = xrealloc (buf, size *= 2);
    }
  if (n < 0)
    return agentrt_error (err, errno, "read `%s/%s`", d->path, file);
  buf[len] = '\0';
  *out = steal_pointer (&buf);
  return 0;
}

int
cg_read_u64 (struct cg_dir *d, const char *file, uint64_t *value,
             agentrt_error_t *err)
{
  char buf[64], *end;

  if (cg_read_buf (d, file, buf, sizeof buf, err) < 0)
    return -1;
  if (strncmp (buf, "max", 3) == 0)
    {
      *value = UINT64_MAX;
      return 0;
    }
  errno = 0;
  *value = strtoull (buf, &end, 10);
  if (errno || end == buf || (*end != '\0' && *end != '\n'))
    return agentrt_error (err, EINVAL, "parse `%s/%s`", d->path, file);
  return 0;
}

bool
cg_has_file (struct cg_dir *d, const char *file)
{
  return faccessat (d->fd, file, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

bool
cg_kv_find (const char *text, const char *key, uint64_t *value)
{
  size_t klen = strlen (key);

  for (const char *line = text; line && *line;)
    {
      if (strncmp (line, key, klen) == 0 && line[klen] == ' ')
        {
          char *end;
          errno = 0;
          *value = strtoull (line + klen + 1, &end, 10);
          return errno == 0 && end != line + klen + 1;
        }
      line = strchr (line, '\n');
      if (line)
        line++;
    }
  return false;
}

static void
sleep_ms (unsigned ms)
{
  struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

/* Sub-cgroup names of path (cgroupfs lists controls as files, children as
 * directories). */
static int
list_children (const char *path, struct str_list *out, agentrt_error_t *err)
{
  cleanup_dir DIR *dir = opendir (path);
  struct dirent *de;

  if (dir == NULL)
    return errno == ENOENT ? 0 : agentrt_error (err, errno, "open `%s`", path);
  while ((errno = 0, de = readdir (dir)))
    if (de->d_type == DT_DIR && strcmp (de->d_name, ".") != 0
        && strcmp (de->d_name, "..") != 0)
      str_list_append (out, de->d_name);
  if (errno)
    return agentrt_error (err, errno, "read `%s`", path);
  return 0;
}

static int
rmdir_tree (const char *path, int depth, agentrt_error_t *err)
{
  unsigned waited = 0, delay = 1;

  if (depth > 64)
    return agentrt_error (err, ELOOP, "remove cgroup `%s`: nested too deep",
                          path);
  for (;;)
    {
      struct str_list children = { 0 };
      int ret;

      if (rmdir (path) == 0 || errno == ENOENT)
        return 0;
      if (errno != EBUSY && errno != ENOTEMPTY)
        return agentrt_error (err, errno, "remove cgroup `%s`", path);
      ret = list_children (path, &children, err);
      for (size_t i = 0; ret == 0 && i < children.len; i++)
        {
          cleanup_free char *sub = xasprintf ("%s/%s", path, children.items[i]);
          ret = rmdir_tree (sub, depth + 1, err);
        }
      str_list_free (&children);
      if (ret < 0)
        return ret;
      if (rmdir (path) == 0 || errno == ENOENT)
        return 0;
      if (errno != EBUSY || waited >= 1000)
        return agentrt_error (err, errno, "remove cgroup `%s`", path);
      sleep_ms (delay);
      waited += delay;
      delay = delay < 64 ? delay * 2 : 64;
    }
}

int
cg_rmdir_tree (const char *path, agentrt_error_t *err)
{
  return rmdir_tree (path, 0, err);
}
