/* The compiled Public Suffix List: its hash table and its cache file (see
 * suffix_cache.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "suffix_cache.h"

#define ENTRY_MAGIC "AGRTPSL"
#define ENTRY_FORMAT 1u
#define FNV_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* An entry: this header, then the slots (native byte order, like the
 * seccomp cache: it never leaves the machine). */
struct entry_header
{
  char magic[8];
  uint32_t format;
  uint32_t bits;
  uint64_t dev, ino, size;
  int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
};

uint64_t
suffix_key (enum suffix_fact fact, const char *name, size_t len)
{
  uint64_t h = (FNV_BASIS ^ (uint64_t) fact) * FNV_PRIME;

  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char) name[i]) * FNV_PRIME;
  h ^= h >> 32;
  return h | 1;
}

static size_t
first_slot (const struct suffix_table *t, uint64_t key)
{
  return (size_t) (key >> 1) & (((size_t) 1 << t->bits) - 1);
}

static int
slot (const struct suffix_table *t, size_t i, uint64_t *v)
{
  if (t->slots)
    {
      *v = t->slots[i];
      return 0;
    }
  return pread (t->fd, v, sizeof (*v), t->offset + (off_t) (i * sizeof (*v)))
                 == (ssize_t) sizeof (*v)
             ? 0
             : -1;
}

/* Linear probing; a table is at most half full, so an empty slot ends
 * every search. */
static int
has (const struct suffix_table *t, uint64_t key, bool *found)
{
  size_t mask = ((size_t) 1 << t->bits) - 1, i = first_slot (t, key);

  for (size_t probes = 0; probes <= mask; probes++, i = (i + 1) & mask)
    {
      uint64_t v;
      if (slot (t, i, &v) < 0)
        return -1;
      if (v == key || v == 0)
        {
          *found = v == key;
          return 0;
        }
    }
  *found = false;
  return 0;
}

void
suffix_table_build (const uint64_t *keys, size_t n, struct suffix_table *t)
{
  memset (t, 0, sizeof (*t));
  t->fd = -1;
  t->bits = 4;
  while (((size_t) 1 << t->bits) < 2 * n)
    t->bits++;
  t->slots = xzalloc (((size_t) 1 << t->bits) * sizeof (*t->slots));
  for (size_t k = 0; k < n; k++)
    {
      size_t mask = ((size_t) 1 << t->bits) - 1, i = first_slot (t, keys[k]);
      while (t->slots[i] != 0 && t->slots[i] != keys[k])
        i = (i + 1) & mask;
      t->slots[i] = keys[k];
    }
}

void
suffix_table_release (struct suffix_table *t)
{
  free (t->slots);
  if (t->fd >= 0)
    close (t->fd);
  memset (t, 0, sizeof (*t));
  t->fd = -1;
}

int
suffix_table_covers (const struct suffix_table *t, const char *name,
                     bool *covered)
{
  const char *dot = strchr (name, '.');
  bool above = false, wild = false, except = false;

  *covered = false;
  if (has (t, suffix_key (SUFFIX_AT_OR_ABOVE, name, strlen (name)), &above) < 0)
    return -1;
  if (above || dot == NULL)
    {
      *covered = above;
      return 0;
    }
  if (has (t, suffix_key (SUFFIX_WILDCARD, dot + 1, strlen (dot + 1)), &wild) < 0
      || (wild && has (t, suffix_key (SUFFIX_EXCEPTION, name, strlen (name)), &except) < 0))
    return -1;
  *covered = wild && !except;
  return 0;
}

/* The entry's file name in the cache directory: the list's path hashed. */
static void
entry_name (const char *list_path, char name[32])
{
  snprintf (name, 32, "%016llx.psl",
            (unsigned long long) suffix_key (SUFFIX_AT_OR_ABOVE, list_path,
                                             strlen (list_path)));
}

static void
header_for (const struct stat *st, unsigned bits, struct entry_header *h)
{
  memset (h, 0, sizeof (*h));
  memcpy (h->magic, ENTRY_MAGIC, sizeof (h->magic));
  h->format = ENTRY_FORMAT;
  h->bits = bits;
  h->dev = (uint64_t) st->st_dev;
  h->ino = (uint64_t) st->st_ino;
  h->size = (uint64_t) st->st_size;
  h->mtime_sec = st->st_mtim.tv_sec;
  h->mtime_nsec = st->st_mtim.tv_nsec;
  h->ctime_sec = st->st_ctim.tv_sec;
  h->ctime_nsec = st->st_ctim.tv_nsec;
}

/* The directory, when only we can write there (whoever can, decides
 * which wildcards pass). */
static int
open_dir (const char *dir, bool create)
{
  int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  cleanup_close int fd = open (dir, flags);
  struct stat st;

  if (fd < 0 && errno == ENOENT && create && mkdir (dir, 0700) == 0)
    fd = open (dir, flags);
  if (fd < 0 || fstat (fd, &st) < 0 || st.st_uid != geteuid ()
      || (st.st_mode & (S_IWGRP | S_IWOTH)))
    return -1;
  return steal_fd (&fd);
}

/* The entry alone is checked (owner, mode, header): one that someone else
 * could have made is not ours, and ours match their list's identity. */
int
suffix_cache_load (const char *dir, const char *list_path,
                   const struct stat *list_st, struct suffix_table *t)
{
  cleanup_free char *path = NULL;
  cleanup_close int fd = -1;
  struct entry_header want, h;
  struct stat st;
  char name[32];

  entry_name (list_path, name);
  path = xasprintf ("%s/%s", dir, name);
  fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)
      || st.st_uid != geteuid () || (st.st_mode & 077)
      || pread (fd, &h, sizeof (h), 0) != (ssize_t) sizeof (h))
    return -1;
  header_for (list_st, h.bits, &want);
  if (memcmp (&h, &want, sizeof (h)) != 0 || h.bits < 4 || h.bits > 24
      || (uint64_t) st.st_size != sizeof (h) + ((uint64_t) 1 << h.bits) * sizeof (uint64_t))
    return -1;
  memset (t, 0, sizeof (*t));
  t->bits = h.bits;
  t->fd = steal_fd (&fd);
  t->offset = (off_t) sizeof (h);
  return 0;
}

bool
suffix_cache_usable (const char *dir)
{
  int fd = open_dir (dir, true);

  if (fd < 0)
    return false;
  close (fd);
  return true;
}

void
suffix_cache_store (const char *dir, const char *list_path,
                    const struct stat *list_st, const struct suffix_table *t)
{
  cleanup_close int dirfd = open_dir (dir, true);
  size_t n_slots = (size_t) 1 << t->bits;
  struct entry_header h;
  char name[32], tmp[64];
  FILE *f;
  int fd, ok;

  if (dirfd < 0 || t->slots == NULL)
    return;
  entry_name (list_path, name);
  snprintf (tmp, sizeof (tmp), ".tmp-%d-%s", (int) getpid (), name);
  header_for (list_st, t->bits, &h);
  unlinkat (dirfd, tmp, 0); /* left over by a crashed process with our pid */
  fd = openat (dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
               0600);
  f = fd >= 0 ? fdopen (fd, "w") : NULL;
  if (f == NULL)
    {
      if (fd >= 0)
        close (fd);
      unlinkat (dirfd, tmp, 0);
      return;
    }
  ok = fwrite (&h, sizeof (h), 1, f) == 1
       && fwrite (t->slots, sizeof (*t->slots), n_slots, f) == n_slots;
  ok = fclose (f) == 0 && ok;
  if (!ok || renameat (dirfd, tmp, dirfd, name) < 0)
    unlinkat (dirfd, tmp, 0);
}
