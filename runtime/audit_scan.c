/* Reading the audit dir's trails (see audit_scan.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/audit_open.h"
#include "runtime/audit_scan.h"

#define READ_CHUNK (256u << 10)

struct names
{
  char **items;
  size_t len, cap;
};

static void
names_release (struct names *n)
{
  for (size_t i = 0; i < n->len; i++)
    free (n->items[i]);
  free (n->items);
}

static int
by_name (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The trails' file names (ID.jsonl, ID not starting with a dot), sorted. */
static int
list_trails (DIR *d, const char *dir, struct names *out, agentrt_error_t *err)
{
  struct dirent *e;

  for (errno = 0; (e = readdir (d)) != NULL; errno = 0)
    {
      size_t len = strlen (e->d_name);
      if (e->d_name[0] == '.' || len <= 6
          || strcmp (e->d_name + len - 6, ".jsonl") != 0)
        continue;
      if (out->len == out->cap)
        {
          out->cap = out->cap ? out->cap * 2 : 64;
          out->items = xreallocarray (out->items, out->cap, sizeof *out->items);
        }
      out->items[out->len++] = xstrdup (e->d_name);
    }
  if (errno)
    return agentrt_error (err, errno, "audit: list `%s`", dir);
  if (out->len)
    qsort (out->items, out->len, sizeof *out->items, by_name);
  return 0;
}

/* Feeds the complete lines of buf[0..len) to s; returns how many bytes
 * were taken.  *skipping: the start of buf is the rest of a line too long
 * to keep, dropped up to its newline. */
static size_t
feed_lines (struct audit_summary *s, const char *buf, size_t len,
            bool *skipping)
{
  size_t done = 0;
  const char *nl;

  while ((nl = memchr (buf + done, '\n', len - done)) != NULL)
    {
      size_t n = (size_t) (nl - (buf + done));
      if (*skipping)
        *skipping = false;
      else
        audit_summary_line (s, buf + done, n);
      done += n + 1;
    }
  return done;
}

/* The read buffer, kept from trail to trail. */
struct read_buf
{
  char *data;
  size_t cap;
};

/* Reads the trail at fd line by line into s.  -1 with err when a read
 * fails (the lines before it were counted). */
static int
read_trail (int fd, struct audit_summary *s, const char *path,
            struct read_buf *rb, agentrt_error_t *err)
{
  size_t len = 0;
  bool skipping = false;

  for (;;)
    {
      char *buf = rb->data;
      size_t cap = rb->cap;
      ssize_t n;
      size_t done;

      if (len == cap && cap < AUDIT_SCAN_MAX_LINE)
        {
          rb->data = buf = xrealloc (buf, cap *= 2);
          rb->cap = cap;
        }
      else if (len == cap)
        {
          if (!skipping)
            audit_summary_line_damaged (s, "longer than the longest line read "
                                           "(16 MiB): skipped");
          skipping = true;
          len = 0;
        }
      n = read (fd, buf + len, cap - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return agentrt_error (err, errno, "audit: read `%s`", path);
      if (n == 0)
        break;
      done = feed_lines (s, buf, len + (size_t) n, &skipping);
      len = len + (size_t) n - done;
      memmove (buf, buf + done, len);
    }
  if (len > 0 && !skipping)
    audit_summary_line_damaged (s, "the last line is cut short (no newline)");
  return 0;
}

/* One trail: refused, older than the window, or read. */
static void
scan_one (int dirfd, const char *dir, const char *name, struct audit_summary *s,
          struct read_buf *rb)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_free char *id = xstrndup (name, strlen (name) - 6);
  cleanup_free char *path = xasprintf ("%s/%s", dir, name);
  cleanup_close int fd = audit_open_read_at (dirfd, dir, name, &err);
  struct stat st;

  if (fd < 0 && err->status == ENOENT)
    return; /* deleted since it was listed */
  if (fd < 0)
    {
      audit_summary_trail_refused (s, id, err->msg);
      return;
    }
  if (s->has_since && fstat (fd, &st) == 0
      && (int64_t) st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000
             < s->since_us)
    {
      audit_summary_trail_older (s);
      return;
    }
  audit_summary_trail_begin (s, id);
  if (read_trail (fd, s, path, rb, &err) < 0)
    audit_summary_trail_refused (s, id, err->msg);
  audit_summary_trail_end (s);
}

int
audit_scan (const char *dir, struct audit_summary *s, agentrt_error_t *err)
{
  cleanup_dir DIR *d = NULL;
  struct names names = { NULL, 0, 0 };
  struct read_buf rb = { NULL, READ_CHUNK };
  int fd = audit_open_dir (dir, err);

  if (fd < 0)
    return -1;
  d = fdopendir (fd);
  if (d == NULL)
    {
      close (fd);
      return agentrt_error (err, errno, "audit: list `%s`", dir);
    }
  if (list_trails (d, dir, &names, err) < 0)
    {
      names_release (&names);
      return -1;
    }
  rb.data = xmalloc (rb.cap);
  for (size_t i = 0; i < names.len; i++)
    scan_one (dirfd (d), dir, names.items[i], s, &rb);
  free (rb.data);
  names_release (&names);
  audit_summary_finish (s);
  return 0;
}
