/* The cache of compiled seccomp programs (see seccomp_cache.h): its
 * directory, entries, bounds, and the two front ends (a profile file, a
 * parsed linux.seccomp object).
 *
 * Entry file "<key hash>.bpf":
 *   struct cache_header | key (key_len bytes) | n_insns sock_filter
 * The key is stored whole and compared byte for byte, so the 64-bit hash
 * only names the file: a collision costs a recompile, never a wrong
 * program.  The checksum covers the header (checksum field zeroed) and the
 * program, and catches torn or damaged entries.  The hash is not
 * cryptographic and need not be: only the cache's owner can write entries,
 * and a key made to collide with another only makes the two take turns. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "runtime/seccomp/seccomp_cache.h"
#include "runtime/seccomp/seccomp_key.h"

#define CACHE_MAGIC "AGRTBPF"
#define CACHE_FORMAT 2u
#define ENTRY_SUFFIX ".bpf"
#define TMP_PREFIX ".tmp-"
/* A temporary file this old was left by a process that died writing it. */
#define TMP_STALE_SECONDS 60
#define HASH_SEED 0xcbf29ce484222325ull /* FNV-1a's offset basis and prime */
#define HASH_PRIME 0x100000001b3ull

struct cache_header
{
  char magic[8];
  uint32_t format;
  uint32_t flags; /* for seccomp(2) */
  uint32_t n_insns;
  uint32_t key_len;
  uint64_t key_hash;
  uint64_t checksum;
};

/* Flags a cached program may carry. */
#define KNOWN_FLAGS                                                           \
  (SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG                        \
   | SECCOMP_FILTER_FLAG_SPEC_ALLOW | SECCOMP_FILTER_FLAG_NEW_LISTENER        \
   | SECCOMP_FILTER_FLAG_TSYNC_ESRCH | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)

/* FNV-1a over 8-byte words, with a shift to fold high bits down: each step
 * is a bijection of the state, so a change confined to one word always
 * changes the result.  About 4x faster than bytewise FNV-1a.  Fed in
 * pieces, it hashes their concatenation: a word may straddle two. */
struct hasher
{
  uint64_t h;
  unsigned char pending[8];
  size_t n_pending;
};

static void
hash_step (struct hasher *s, uint64_t w)
{
  s->h = (s->h ^ w) * HASH_PRIME;
  s->h ^= s->h >> 29;
}

static void
hash_feed (struct hasher *s, const void *data, size_t len)
{
  const unsigned char *p = data;
  uint64_t w;

  while (s->n_pending && len)
    {
      s->pending[s->n_pending++] = *p++;
      len--;
      if (s->n_pending == sizeof (w))
        {
          memcpy (&w, s->pending, sizeof (w));
          hash_step (s, w);
          s->n_pending = 0;
        }
    }
  for (; len >= sizeof (w); p += sizeof (w), len -= sizeof (w))
    {
      memcpy (&w, p, sizeof (w));
      hash_step (s, w);
    }
  if (len) /* a missing piece is NULL */
    memcpy (s->pending + s->n_pending, p, len);
  s->n_pending += len;
}

/* The bytes short of a word go in one by one. */
static uint64_t
hash_finish (const struct hasher *s)
{
  uint64_t h = s->h;

  for (size_t i = 0; i < s->n_pending; i++)
    h = (h ^ s->pending[i]) * HASH_PRIME;
  return h;
}

static uint64_t
hash64 (uint64_t h, const void *data, size_t len)
{
  struct hasher s = { .h = h };

  hash_feed (&s, data, len);
  return hash_finish (&s);
}

static uint64_t
key_hash_of (const struct seccomp_cache_key *k)
{
  struct hasher s = { .h = HASH_SEED };

  hash_feed (&s, k->head, k->head_len);
  hash_feed (&s, k->body, k->body_len);
  return hash_finish (&s);
}

uint64_t
seccomp_cache_hash (const void *key, size_t key_len)
{
  struct seccomp_cache_key k = { key, key_len, NULL, 0 };

  return key_hash_of (&k); /* what names the entry: the same function */
}

char *
seccomp_cache_dir (const char *state_root)
{
  return xasprintf ("%s/.seccomp-cache", state_root);
}

int
seccomp_cache_open (struct seccomp_cache *c, const char *dir)
{
  int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  cleanup_close int fd = -1;
  struct stat st;

  c->dirfd = -1;
  c->max_entries = SECCOMP_CACHE_MAX_ENTRIES;
  c->max_bytes = SECCOMP_CACHE_MAX_BYTES;
  if (dir == NULL)
    return -1;
  fd = open (dir, flags);
  if (fd < 0 && errno == ENOENT && mkdir (dir, 0700) == 0)
    fd = open (dir, flags);
  if (fd < 0 || fstat (fd, &st) < 0)
    return -1;
  /* Whoever can write here chooses our filter: only we may. */
  if (st.st_uid != geteuid () || (st.st_mode & (S_IWGRP | S_IWOTH)))
    return -1;
  c->dirfd = steal_fd (&fd);
  return 0;
}

void
seccomp_cache_close (struct seccomp_cache *c)
{
  if (c->dirfd >= 0)
    close (c->dirfd);
  c->dirfd = -1;
}

static void
entry_name (char name[32], uint64_t key_hash)
{
  snprintf (name, 32, "%016llx" ENTRY_SUFFIX, (unsigned long long) key_hash);
}

/* Over the header (checksum zeroed) and the program; the key between them
 * is compared whole instead. */
static uint64_t
entry_checksum (const struct cache_header *header, const void *insns,
                size_t insns_len)
{
  struct cache_header h = *header;

  h.checksum = 0;
  return hash64 (hash64 (HASH_SEED, &h, sizeof (h)), insns, insns_len);
}

/* Whether the n bytes at `off` in fd are `want`: read a page at a time
 * (a profile's text is most of a key: read whole into a fresh buffer, it
 * cost a create four page faults). */
static bool
bytes_equal (int fd, off_t off, const void *want, size_t n)
{
  char buf[4096];
  const char *w = want;

  while (n)
    {
      size_t chunk = n < sizeof (buf) ? n : sizeof (buf);
      if (pread (fd, buf, chunk, off) != (ssize_t) chunk
          || memcmp (buf, w, chunk) != 0)
        return false;
      off += (off_t) chunk;
      w += chunk;
      n -= chunk;
    }
  return true;
}

/* The entry's header, when it is a file of ours that only we can read or
 * write, of the size its header and the key's length make. */
static bool
read_header (int fd, size_t key_len, struct cache_header *h)
{
  struct stat st;

  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)
      || st.st_uid != geteuid () || (st.st_mode & 077) || st.st_size < 0
      || pread (fd, h, sizeof (*h), 0) != (ssize_t) sizeof (*h))
    return false;
  return memcmp (h->magic, CACHE_MAGIC, sizeof (h->magic)) == 0
         && h->format == CACHE_FORMAT && h->key_len == key_len
         && (h->flags & ~KNOWN_FLAGS) == 0 && h->n_insns > 0
         && h->n_insns <= BPF_MAXINSNS
         && (uint64_t) st.st_size
                == sizeof (*h) + key_len
                       + (uint64_t) h->n_insns * sizeof (struct sock_filter);
}

struct seccomp_program *
seccomp_cache_get_split (struct seccomp_cache *c,
                         const struct seccomp_cache_key *k)
{
  size_t key_len = k->head_len + k->body_len;
  uint64_t key_hash = key_hash_of (k);
  cleanup_close int fd = -1;
  cleanup_free struct sock_filter *insns = NULL;
  struct cache_header h;
  struct timespec times[2] = { { .tv_nsec = UTIME_NOW },
                               { .tv_nsec = UTIME_OMIT } };
  off_t at = sizeof (h);
  size_t insns_len;
  char name[32];

  if (c->dirfd < 0)
    return NULL;
  entry_name (name, key_hash);
  /* O_NONBLOCK: a fifo put there must not hang us (read_header refuses it) */
  fd = openat (c->dirfd, name,
               O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 || !read_header (fd, key_len, &h) || h.key_hash != key_hash
      || !bytes_equal (fd, at, k->head, k->head_len)
      || !bytes_equal (fd, at + (off_t) k->head_len, k->body, k->body_len))
    return NULL;
  insns_len = h.n_insns * sizeof (*insns);
  insns = xmalloc (insns_len);
  if (pread (fd, insns, insns_len, at + (off_t) key_len)
          != (ssize_t) insns_len
      || h.checksum != entry_checksum (&h, insns, insns_len))
    return NULL;
  /* used now: the least recently used entries are the ones evicted */
  futimens (fd, times);
  return seccomp_program_new (insns, h.n_insns, h.flags);
}

struct seccomp_program *
seccomp_cache_get (struct seccomp_cache *c, const void *key, size_t key_len)
{
  struct seccomp_cache_key k = { key, key_len, NULL, 0 };

  return seccomp_cache_get_split (c, &k);
}

struct entry_stat
{
  char name[32];
  struct timespec used;
  size_t size;
};

static int
compare_used (const void *a, const void *b)
{
  const struct timespec *x = &((const struct entry_stat *) a)->used;
  const struct timespec *y = &((const struct entry_stat *) b)->used;
  if (x->tv_sec != y->tv_sec)
    return x->tv_sec < y->tv_sec ? -1 : 1;
  return (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

/* Whether `name` is "<16 hex digits>.bpf". */
static bool
is_entry_name (const char *name)
{
  size_t i;

  for (i = 0; i < 16; i++)
    if (name[i] == '\0' || !strchr ("0123456789abcdef", name[i]))
      return false;
  return strcmp (name + 16, ENTRY_SUFFIX) == 0;
}

/* Lists the entries (and removes stale temporary files). */
static struct entry_stat *
list_entries (struct seccomp_cache *c, size_t *n, size_t *bytes)
{
  /* a description of its own: a dup would share (and move) the offset */
  int fd = openat (c->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_dir DIR *d = fd >= 0 ? fdopendir (fd) : NULL;
  struct entry_stat *list = NULL;
  struct dirent *de;
  struct stat st;
  time_t now = time (NULL);

  *n = *bytes = 0;
  if (d == NULL)
    {
      if (fd >= 0)
        close (fd);
      return NULL;
    }
  while ((de = readdir (d)))
    {
      if (fstatat (c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        continue;
      if (strncmp (de->d_name, TMP_PREFIX, strlen (TMP_PREFIX)) == 0)
        {
          if (now - st.st_mtime > TMP_STALE_SECONDS)
            unlinkat (c->dirfd, de->d_name, 0);
          continue;
        }
      if (!is_entry_name (de->d_name))
        continue;
      list = xreallocarray (list, *n + 1, sizeof (*list));
      memcpy (list[*n].name, de->d_name, strlen (ENTRY_SUFFIX) + 17);
      list[*n].used = st.st_atim;
      list[*n].size = (size_t) st.st_size;
      *bytes += (size_t) st.st_size;
      (*n)++;
    }
  return list;
}

/* Removes the least recently used entries until the bounds hold. */
static void
evict (struct seccomp_cache *c)
{
  cleanup_free struct entry_stat *list = NULL;
  size_t n, bytes, i;

  list = list_entries (c, &n, &bytes);
  if (n <= c->max_entries && bytes <= c->max_bytes)
    return;
  qsort (list, n, sizeof (*list), compare_used);
  for (i = 0; i < n && (n - i > c->max_entries || bytes > c->max_bytes); i++)
    {
      /* another process may have evicted it already: it is gone either way */
      unlinkat (c->dirfd, list[i].name, 0);
      bytes -= list[i].size;
    }
}

void
seccomp_cache_put_split (struct seccomp_cache *c,
                         const struct seccomp_cache_key *k,
                         const struct seccomp_program *p)
{
  size_t key_len = k->head_len + k->body_len;
  size_t insns_len = p->len * sizeof (struct sock_filter);
  size_t size = sizeof (struct cache_header) + key_len + insns_len;
  uint64_t key_hash = key_hash_of (k);
  cleanup_free char *buf = NULL, *tmp = NULL;
  struct cache_header h = {
    .magic = CACHE_MAGIC,
    .format = CACHE_FORMAT,
    .flags = p->flags,
    .n_insns = p->len,
    .key_len = (uint32_t) key_len,
    .key_hash = key_hash,
  };
  char name[32];
  int fd, ok;

  if (c->dirfd < 0)
    return;
  entry_name (name, key_hash);
  buf = xzalloc (size);
  memcpy (buf, &h, sizeof (h));
  memcpy (buf + sizeof (h), k->head, k->head_len);
  if (k->body_len) /* a missing piece is NULL */
    memcpy (buf + sizeof (h) + k->head_len, k->body, k->body_len);
  memcpy (buf + sizeof (h) + key_len, p->insns, insns_len);
  h.checksum = entry_checksum (&h, p->insns, insns_len);
  memcpy (buf, &h, sizeof (h));

  tmp = xasprintf (TMP_PREFIX "%d-%s", (int) getpid (), name);
  unlinkat (c->dirfd, tmp, 0); /* left by a crashed process with our pid */
  fd = openat (c->dirfd, tmp,
               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  ok = io_write_all (fd, buf, size, NULL) == 0;
  ok = close (fd) == 0 && ok;
  if (!ok || renameat (c->dirfd, tmp, c->dirfd, name) < 0)
    {
      unlinkat (c->dirfd, tmp, 0);
      return;
    }
  evict (c);
}

void
seccomp_cache_put (struct seccomp_cache *c, const void *key, size_t key_len,
                   const struct seccomp_program *p)
{
  struct seccomp_cache_key k = { key, key_len, NULL, 0 };

  seccomp_cache_put_split (c, &k, p);
}

static int
read_profile (const char *path, char **out, size_t *len, agentrt_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  struct stat st;

  if (fd < 0)
    return agentrt_error (err, errno, "open seccomp profile `%s`", path);
  if (fstat (fd, &st) < 0)
    return agentrt_error (err, errno, "stat `%s`", path);
  if (!S_ISREG (st.st_mode))
    return agentrt_error (err, 0, "seccomp profile `%s`: not a regular file",
                          path);
  if (io_read_all (fd, SECCOMP_PROFILE_MAX_SIZE, out, len) < 0)
    return agentrt_error (err, errno, "seccomp profile `%s`", path);
  return 0;
}

struct seccomp_program *
seccomp_load_profile_cached (const char *path, const char *cache_dir,
                             struct str_list *notes, bool *cache_hit,
                             agentrt_error_t *err)
{
  cleanup_free char *text = NULL, *head = NULL;
  struct seccomp_cache cache;
  struct oci_seccomp *seccomp = NULL;
  struct seccomp_program *program = NULL;
  struct seccomp_cache_key key = { 0 };
  size_t len = 0;

  if (cache_hit)
    *cache_hit = false;
  if (read_profile (path, &text, &len, err) < 0)
    return NULL;
  if (seccomp_cache_open (&cache, cache_dir) == 0)
    {
      head = seccomp_key_file_head (&key.head_len);
      key.head = head;
      key.body = text;
      key.body_len = len;
      program = seccomp_cache_get_split (&cache, &key);
    }
  if (program && cache_hit)
    *cache_hit = true;
  if (program == NULL)
    {
      seccomp = oci_seccomp_parse (text, len, path, err);
      if (seccomp)
        program = seccomp_compile (seccomp, "", notes, err);
      if (seccomp && program == NULL)
        agentrt_error_wrap (err, "%s", path);
      oci_seccomp_free (seccomp);
      if (program && head)
        seccomp_cache_put_split (&cache, &key, program);
    }
  seccomp_cache_close (&cache);
  return program;
}

struct seccomp_program *
seccomp_compile_cached (const struct oci_seccomp *seccomp, const char *path,
                        const char *cache_dir, struct str_list *notes,
                        bool *cache_hit, agentrt_error_t *err)
{
  cleanup_free char *key = NULL;
  struct seccomp_cache cache;
  struct seccomp_program *program = NULL;
  size_t key_len = 0;

  if (cache_hit)
    *cache_hit = false;
  if (seccomp_cache_open (&cache, cache_dir) == 0)
    {
      key = seccomp_key_oci (seccomp, &key_len);
      program = seccomp_cache_get (&cache, key, key_len);
    }
  if (program && cache_hit)
    *cache_hit = true;
  if (program == NULL)
    {
      program = seccomp_compile (seccomp, path, notes, err);
      if (program && key)
        seccomp_cache_put (&cache, key, key_len, program);
    }
  seccomp_cache_close (&cache);
  return program;
}
