/* A tally: how many times each string was counted (hosts, reasons,
 * causes), in a hash table whose number of distinct keys is bounded: the
 * keys come from files a summary reads, and a million distinct names must
 * not take a million allocations.  Counts of keys beyond the bound go to
 * `other` (and still to `total`). */
#ifndef AGENTRT_TALLY_H
#define AGENTRT_TALLY_H

#include <stddef.h>
#include <stdint.h>

struct tally_entry
{
  char *key;
  uint64_t count;
};

struct tally
{
  struct tally_entry *slots; /* open addressing; key NULL: free */
  size_t cap;                /* a power of two, or 0 */
  size_t len;                /* distinct keys held */
  size_t max_keys;
  uint64_t other;            /* counted for keys that did not fit */
  uint64_t total;            /* everything counted */
};

void tally_init (struct tally *t, size_t max_keys);
void tally_release (struct tally *t);

/* Adds n to key's count (key copied; it may hold any byte but NUL). */
void tally_add (struct tally *t, const char *key, uint64_t n);

/* The count of key (0 when never counted or not held). */
uint64_t tally_get (const struct tally *t, const char *key);

/* The held entries, highest count first, then by key (bytewise): a
 * malloc'd array of len pointers into the tally (NULL when empty). */
const struct tally_entry **tally_sorted (const struct tally *t);

#endif
