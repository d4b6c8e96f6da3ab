/* The stub's answer cache (see namecache.h).  Entries are on an LRU list
 * and in two chained hash tables: by (name, family), and by address
 * through link nodes embedded in the entry (one per address it holds). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/xalloc.h"
#include "namecache.h"

struct entry;

struct addr_link
{
  struct entry *e;
  struct addr_link *next;
};

struct entry
{
  struct entry *older, *newer; /* LRU list */
  struct entry *hnext;         /* name chain */
  struct addr_link links[NAMECACHE_MAX_ADDRS];
  uint64_t expires_ms, reverse_ms;
  size_t bytes;
  int family;
  struct namecache_answer ans;
  char name[];
};

struct namecache
{
  size_t max_entries, max_bytes, entries, bytes;
  uint32_t seed;
  size_t mask; /* buckets - 1 */
  struct entry *newest, *oldest;
  struct entry **names;
  struct addr_link **addrs;
};

static uint32_t
fnv (uint32_t h, const void *p, size_t n)
{
  const uint8_t *b = p;

  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

static size_t
name_bucket (const struct namecache *nc, const char *name, int family)
{
  uint32_t h = fnv (nc->seed ^ 2166136261u, name, strlen (name));
  return fnv (h, &family, sizeof (family)) & nc->mask;
}

static size_t
addr_bucket (const struct namecache *nc, const struct netaddr *a)
{
  uint32_t h = fnv (nc->seed ^ 2166136261u, &a->family, sizeof (a->family));
  return fnv (h, a->bytes, a->family == AF_INET ? 4 : 16) & nc->mask;
}

struct namecache *
namecache_new (size_t max_entries, size_t max_bytes, uint32_t seed)
{
  struct namecache *nc = xzalloc (sizeof (*nc));
  size_t buckets = 16;

  while (buckets < max_entries && buckets < (1u << 20))
    buckets <<= 1;
  nc->max_entries = max_entries ? max_entries : 1;
  nc->max_bytes = max_bytes;
  nc->seed = seed;
  nc->mask = buckets - 1;
  nc->names = xzalloc (buckets * sizeof (*nc->names));
  nc->addrs = xzalloc (buckets * sizeof (*nc->addrs));
  return nc;
}

static void
lru_unlink (struct namecache *nc, struct entry *e)
{
  if (e->older)
    e->older->newer = e->newer;
  else
    nc->oldest = e->newer;
  if (e->newer)
    e->newer->older = e->older;
  else
    nc->newest = e->older;
  e->older = e->newer = NULL;
}

static void
lru_push (struct namecache *nc, struct entry *e)
{
  e->older = nc->newest;
  e->newer = NULL;
  if (nc->newest)
    nc->newest->newer = e;
  else
    nc->oldest = e;
  nc->newest = e;
}

static void
entry_remove (struct namecache *nc, struct entry *e)
{
  struct entry **pp = &nc->names[name_bucket (nc, e->name, e->family)];

  while (*pp != e)
    pp = &(*pp)->hnext;
  *pp = e->hnext;
  for (size_t i = 0; i < e->ans.n; i++)
    {
      struct addr_link **lp = &nc->addrs[addr_bucket (nc, &e->ans.addrs[i])];
      while (*lp != &e->links[i])
        lp = &(*lp)->next;
      *lp = e->links[i].next;
    }
  lru_unlink (nc, e);
  nc->entries--;
  nc->bytes -= e->bytes;
  free (e);
}

void
namecache_free (struct namecache *nc)
{
  if (nc == NULL)
    return;
  while (nc->oldest)
    entry_remove (nc, nc->oldest);
  free (nc->names);
  free (nc->addrs);
  free (nc);
}

static struct entry *
find (struct namecache *nc, const char *name, int family)
{
  for (struct entry *e = nc->names[name_bucket (nc, name, family)]; e; e = e->hnext)
    if (e->family == family && strcmp (e->name, name) == 0)
      return e;
  return NULL;
}

void
namecache_put (struct namecache *nc, const char *name, int family, enum dns_result result,
               const struct netaddr *addrs, size_t n, uint32_t ttl_s, uint64_t now_ms)
{
  size_t len = strnlen (name, HOST_NAME_MAX_LEN + 1), bytes;
  struct entry *e;

  if (len > HOST_NAME_MAX_LEN || (result != DNS_OK && result != DNS_NODATA
                                  && result != DNS_NXDOMAIN))
    return;
  if ((e = find (nc, name, family)) != NULL)
    entry_remove (nc, e);
  bytes = sizeof (*e) + len + 1;
  if (bytes > nc->max_bytes)
    return;
  while (nc->oldest && (nc->entries >= nc->max_entries || nc->bytes + bytes > nc->max_bytes))
    entry_remove (nc, nc->oldest);
  e = xzalloc (bytes);
  memcpy (e->name, name, len + 1);
  e->family = family;
  e->bytes = bytes;
  e->ans.result = result;
  if (ttl_s > NAMECACHE_TTL_MAX)
    ttl_s = NAMECACHE_TTL_MAX;
  e->expires_ms = now_ms + ttl_s * 1000ull;
  e->reverse_ms = e->expires_ms + NAMECACHE_REVERSE_GRACE_MS;
  for (size_t i = 0; result == DNS_OK && i < n && e->ans.n < NAMECACHE_MAX_ADDRS; i++)
    {
      struct addr_link **head;
      bool dup = false;

      if (addrs[i].family != family)
        continue;
      for (size_t k = 0; k < e->ans.n && !dup; k++)
        dup = netaddr_equal (&e->ans.addrs[k], &addrs[i]);
      if (dup)
        continue;
      e->ans.addrs[e->ans.n] = addrs[i];
      head = &nc->addrs[addr_bucket (nc, &addrs[i])];
      e->links[e->ans.n] = (struct addr_link){ e, *head };
      *head = &e->links[e->ans.n];
      e->ans.n++;
    }
  if (result == DNS_OK && e->ans.n == 0)
    e->ans.result = DNS_NODATA;
  e->hnext = nc->names[name_bucket (nc, name, family)];
  nc->names[name_bucket (nc, name, family)] = e;
  lru_push (nc, e);
  nc->entries++;
  nc->bytes += bytes;
}

const struct namecache_answer *
namecache_get (struct namecache *nc, const char *name, int family, uint64_t now_ms,
               uint32_t *ttl_left)
{
  struct entry *e = find (nc, name, family);

  if (e == NULL)
    return NULL;
  if (now_ms >= e->reverse_ms)
    {
      entry_remove (nc, e);
      return NULL;
    }
  if (now_ms >= e->expires_ms)
    return NULL;
  lru_unlink (nc, e);
  lru_push (nc, e);
  *ttl_left = (uint32_t) ((e->expires_ms - now_ms + 999) / 1000);
  return &e->ans;
}

size_t
namecache_names (struct namecache *nc, const struct netaddr *addr, uint64_t now_ms,
                 const char **names, size_t max)
{
  size_t n = 0;

  for (struct addr_link *l = nc->addrs[addr_bucket (nc, addr)]; l && n < max; l = l->next)
    {
      bool seen = false;

      if (now_ms >= l->e->reverse_ms || !netaddr_equal (&l->e->ans.addrs[l - l->e->links], addr))
        continue;
      for (size_t k = 0; k < n && !seen; k++)
        seen = strcmp (names[k], l->e->name) == 0;
      if (!seen)
        names[n++] = l->e->name;
    }
  return n;
}

bool
namecache_holds (struct namecache *nc, const char *name, const struct netaddr *addr,
                 uint64_t now_ms)
{
  struct entry *e = find (nc, name, addr->family);

  if (e == NULL || now_ms >= e->reverse_ms)
    return false;
  for (size_t i = 0; i < e->ans.n; i++)
    if (netaddr_equal (&e->ans.addrs[i], addr))
      return true;
  return false;
}

size_t
namecache_entries (const struct namecache *nc)
{
  return nc->entries;
}

size_t
namecache_bytes (const struct namecache *nc)
{
  return nc->bytes;
}
