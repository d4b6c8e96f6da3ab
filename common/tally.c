/* A bounded tally of strings (see tally.h): FNV-1a, linear probing, grown
 * at 3/4 full. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/tally.h"
#include "common/xalloc.h"

void
tally_init (struct tally *t, size_t max_keys)
{
  memset (t, 0, sizeof *t);
  t->max_keys = max_keys;
}

void
tally_release (struct tally *t)
{
  for (size_t i = 0; i < t->cap; i++)
    free (t->slots[i].key);
  free (t->slots);
  memset (t, 0, sizeof *t);
}

static uint64_t
hash (const char *s)
{
  uint64_t h = 14695981039346656037ULL;

  for (; *s; s++)
    h = (h ^ (unsigned char) *s) * 1099511628211ULL;
  return h;
}

/* The slot of key, or the free slot where it would go. */
static struct tally_entry *
find (const struct tally_entry *slots, size_t cap, const char *key)
{
  size_t i = (size_t) hash (key) & (cap - 1);

  while (slots[i].key && strcmp (slots[i].key, key) != 0)
    i = (i + 1) & (cap - 1);
  return (struct tally_entry *) &slots[i];
}

static void
grow (struct tally *t)
{
  size_t cap = t->cap ? t->cap * 2 : 16;
  struct tally_entry *slots = xreallocarray (NULL, cap, sizeof *slots);

  memset (slots, 0, cap * sizeof *slots);
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i].key)
      *find (slots, cap, t->slots[i].key) = t->slots[i];
  free (t->slots);
  t->slots = slots;
  t->cap = cap;
}

void
tally_add (struct tally *t, const char *key, uint64_t n)
{
  struct tally_entry *e;

  t->total += n;
  if (t->cap)
    {
      e = find (t->slots, t->cap, key);
      if (e->key)
        {
          e->count += n;
          return;
        }
    }
  if (t->len >= t->max_keys)
    {
      t->other += n;
      return;
    }
  if ((t->len + 1) * 4 > t->cap * 3)
    grow (t);
  e = find (t->slots, t->cap, key);
  e->key = xstrdup (key);
  e->count = n;
  t->len++;
}

uint64_t
tally_get (const struct tally *t, const char *key)
{
  const struct tally_entry *e;

  if (t->cap == 0)
    return 0;
  e = find (t->slots, t->cap, key);
  return e->key ? e->count : 0;
}

static int
by_count (const void *a, const void *b)
{
  const struct tally_entry *x = *(const struct tally_entry *const *) a;
  const struct tally_entry *y = *(const struct tally_entry *const *) b;

  if (x->count != y->count)
    return x->count < y->count ? 1 : -1;
  return strcmp (x->key, y->key);
}

const struct tally_entry **
tally_sorted (const struct tally *t)
{
  const struct tally_entry **out;
  size_t n = 0;

  if (t->len == 0)
    return NULL;
  out = xreallocarray (NULL, t->len, sizeof *out);
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i].key)
      out[n++] = &t->slots[i];
  qsort (out, n, sizeof *out, by_count);
  return out;
}
