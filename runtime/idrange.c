/* Host id ranges, decided (see idrange.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/idrange.h"
#include "runtime/policy/userns_auto.h"

/* ids are handled as uint64_t here: start + count may reach 2^32 */
struct span
{
  uint64_t lo, hi; /* [lo, hi) */
};

static int
cmp_span (const void *a, const void *b)
{
  const struct span *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

size_t
idrange_slots (const struct idmap_range *ranges, size_t n, uint32_t **out)
{
  cleanup_free struct span *s = NULL;
  uint32_t *slots = NULL;
  size_t m = 0, count = 0;

  *out = NULL;
  if (n == 0)
    return 0;
  s = xzalloc (n * sizeof *s);
  for (size_t i = 0; i < n; i++)
    {
      uint64_t lo = ranges[i].start;
      uint64_t hi = lo + ranges[i].count;
      if (lo < IDRANGE_MIN)
        lo = IDRANGE_MIN;
      if (hi > UINT32_MAX) /* 4294967295 is no id */
        hi = UINT32_MAX;
      if (lo < hi)
        s[m++] = (struct span){ lo, hi };
    }
  qsort (s, m, sizeof *s, cmp_span);
  /* merge what overlaps or touches: a slot may span two adjacent lines,
   * and overlapping lines must never give two slots one id */
  size_t k = 0;
  for (size_t i = 0; i < m; i++)
    {
      if (k > 0 && s[i].lo <= s[k - 1].hi)
        {
          if (s[i].hi > s[k - 1].hi)
            s[k - 1].hi = s[i].hi;
          continue;
        }
      s[k++] = s[i];
    }
  for (size_t i = 0; i < k; i++)
    count += (size_t) ((s[i].hi - s[i].lo) / USERNS_AUTO_SIZE);
  if (count == 0)
    return 0;
  slots = xzalloc (count * sizeof *slots);
  count = 0;
  for (size_t i = 0; i < k; i++)
    for (uint64_t lo = s[i].lo; lo + USERNS_AUTO_SIZE <= s[i].hi;
         lo += USERNS_AUTO_SIZE)
      slots[count++] = (uint32_t) lo;
  *out = slots;
  return count;
}

/* The slots of one subordinate id file for `user` (no numeric owner: the
 * subid user need not exist as an account). */
static size_t
subid_slots (const char *text, const char *user, uint32_t **out)
{
  size_t n, got;
  cleanup_free struct idmap_range *r = NULL;

  *out = NULL;
  if (text == NULL)
    return 0;
  /* a name that is all digits would also match by number: ask with an
   * impossible uid and count first */
  n = idmap_subid_ranges (text, user, (uid_t) -1, NULL, 0);
  if (n == 0)
    return 0;
  r = xzalloc (n * sizeof *r);
  got = idmap_subid_ranges (text, user, (uid_t) -1, r, n);
  return idrange_slots (r, got < n ? got : n, out);
}

void
idrange_pool_decide (const struct agent_policy *policy, const char *subuid_text,
                     const char *subgid_text, struct idrange_pool *out)
{
  uint32_t *uid = NULL, *gid = NULL;
  size_t nu = 0, ng = 0;

  memset (out, 0, sizeof *out);
  if (!policy->userns_has_pool)
    {
      nu = subid_slots (subuid_text, policy->userns_subid_user, &uid);
      ng = subid_slots (subgid_text, policy->userns_subid_user, &gid);
      if (nu > 0 && ng > 0)
        {
          out->origin = xasprintf ("/etc/subuid and /etc/subgid of `%s`",
                                   policy->userns_subid_user);
          out->uid = uid;
          out->gid = gid;
          out->n = nu < ng ? nu : ng;
          return;
        }
      free (uid);
      free (gid);
    }
  {
    struct idmap_range ru = { policy->userns_pool_uid, policy->userns_pool_size };
    struct idmap_range rg = { policy->userns_pool_gid, policy->userns_pool_size };
    nu = idrange_slots (&ru, 1, &out->uid);
    ng = idrange_slots (&rg, 1, &out->gid);
    out->n = nu < ng ? nu : ng;
    out->origin = xstrdup (policy->userns_has_pool ? "the policy's userns.pool"
                                                   : "the built-in pool");
  }
}

void
idrange_pool_release (struct idrange_pool *pool)
{
  free (pool->origin);
  free (pool->uid);
  free (pool->gid);
  memset (pool, 0, sizeof *pool);
}

/* One decimal field of at most `max` ending at a space or the line's end. */
static bool
field_u64 (const char **p, uint64_t max, uint64_t *out)
{
  const char *s = *p;
  uint64_t v = 0;

  if (*s < '0' || *s > '9')
    return false;
  for (; *s >= '0' && *s <= '9'; s++)
    {
      if (v > (max - (uint64_t) (*s - '0')) / 10)
        return false;
      v = v * 10 + (uint64_t) (*s - '0');
    }
  if (*s != ' ')
    return false;
  *p = s + 1;
  *out = v;
  return true;
}

static bool
parse_line (const char *line, size_t len, struct idrange_table *t)
{
  cleanup_free char *copy = xstrndup (line, len);
  const char *p = copy;
  uint64_t uid, gid, size, pid, start;
  size_t idlen;

  if (!field_u64 (&p, UINT32_MAX, &uid) || !field_u64 (&p, UINT32_MAX, &gid)
      || !field_u64 (&p, UINT32_MAX, &size) || !field_u64 (&p, INT32_MAX, &pid)
      || !field_u64 (&p, UINT64_MAX, &start))
    return false;
  idlen = strlen (p);
  if (idlen == 0 || strpbrk (p, " \t\r") || size == 0
      || uid + size > (uint64_t) UINT32_MAX + 1
      || gid + size > (uint64_t) UINT32_MAX + 1)
    return false;
  idrange_add (t, (uint32_t) uid, (uint32_t) gid, (pid_t) pid, start, p);
  t->items[t->len - 1].size = (uint32_t) size;
  return true;
}

int
idrange_parse (const char *text, const char *origin, struct idrange_table *out,
               agentrt_error_t *err)
{
  size_t lineno = 0;

  memset (out, 0, sizeof *out);
  for (const char *line = text; line && *line;)
    {
      const char *end = strchr (line, '\n');
      size_t len = end ? (size_t) (end - line) : strlen (line);
      lineno++;
      if (len > 0 && !parse_line (line, len, out))
        {
          idrange_table_free (out);
          return agentrt_error (err, EINVAL, "`%s` line %zu: not an "
                                "allocation (it may hold ids a container "
                                "uses: remove it once none does)", origin,
                                lineno);
        }
      line = end ? end + 1 : NULL;
    }
  return 0;
}

char *
idrange_format (const struct idrange_table *t)
{
  char *text = xstrdup ("");

  for (size_t i = 0; i < t->len; i++)
    {
      const struct idrange_entry *e = &t->items[i];
      char *more;
      if (!e->live)
        continue;
      more = xasprintf ("%s%u %u %u %d %llu %s\n", text, (unsigned) e->uid,
                        (unsigned) e->gid, (unsigned) e->size, (int) e->pid,
                        (unsigned long long) e->pid_start, e->id);
      free (text);
      text = more;
    }
  return text;
}

void
idrange_add (struct idrange_table *t, uint32_t uid, uint32_t gid, pid_t pid,
             uint64_t pid_start, const char *id)
{
  t->items = xreallocarray (t->items, t->len + 1, sizeof *t->items);
  t->items[t->len++] = (struct idrange_entry){
    .uid = uid, .gid = gid, .size = USERNS_AUTO_SIZE, .pid = pid,
    .pid_start = pid_start, .id = xstrdup (id), .live = true,
  };
}

size_t
idrange_drop (struct idrange_table *t, const char *id, bool has_uid,
              uint32_t uid_start)
{
  size_t n = 0;

  for (size_t i = 0; i < t->len; i++)
    if (t->items[i].live && strcmp (t->items[i].id, id) == 0
        && (!has_uid || t->items[i].uid == uid_start))
      {
        t->items[i].live = false;
        n++;
      }
  return n;
}

void
idrange_table_free (struct idrange_table *t)
{
  for (size_t i = 0; i < t->len; i++)
    free (t->items[i].id);
  free (t->items);
  memset (t, 0, sizeof *t);
}

static bool
overlaps (uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
  return a < b + blen && b < a + alen;
}

int
idrange_choose (const struct idrange_pool *pool, const struct idrange_table *t,
                uint32_t *uid, uint32_t *gid, agentrt_error_t *err)
{
  size_t live = 0;

  for (size_t i = 0; i < t->len; i++)
    live += t->items[i].live;
  for (size_t k = 0; k < pool->n; k++)
    {
      bool taken = false;
      for (size_t i = 0; i < t->len && !taken; i++)
        {
          const struct idrange_entry *e = &t->items[i];
          taken = e->live
                  && (overlaps (pool->uid[k], USERNS_AUTO_SIZE, e->uid, e->size)
                      || overlaps (pool->gid[k], USERNS_AUTO_SIZE, e->gid,
                                   e->size));
        }
      if (!taken)
        {
          *uid = pool->uid[k];
          *gid = pool->gid[k];
          return 0;
        }
    }
  return agentrt_error (err, ENOSPC, "user namespace: no free range of %u "
                        "ids in %s (%zu ranges; %zu containers hold one)",
                        USERNS_AUTO_SIZE, pool->origin, pool->n, live);
}
