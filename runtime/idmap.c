/* Who writes a user namespace's id maps (see idmap.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/idmap.h"

/* One line mapping one id onto the caller's own: what the kernel lets
 * an unprivileged process write itself. */
static bool
own_id_only (const struct oci_id_mapping *map, size_t n, uint32_t own)
{
  return n == 1 && map[0].host_id == own && map[0].size == 1;
}

static int
decide_one (const struct idmap_caller *caller, const struct oci_id_mapping *map,
            size_t n, uint32_t own, bool have_helper, const char *field,
            const char *helper, const char *file, enum idmap_writer *out,
            agentrt_error_t *err)
{
  if (caller->privileged || own_id_only (map, n, own))
    {
      *out = IDMAP_WRITE_DIRECT;
      return 0;
    }
  if (!have_helper)
    return agentrt_error (err, EPERM, "%s: maps more than the caller's own "
                          "id (%u): a user other than root needs %s (package "
                          "uidmap) and ranges in %s, or a mapping of its own "
                          "id alone (`agentrt spec --rootless`)",
                          field, (unsigned) own, helper, file);
  *out = IDMAP_WRITE_HELPER;
  return 0;
}

int
idmap_plan_decide (const struct idmap_caller *caller,
                   const struct oci_id_mapping *uid, size_t n_uid,
                   const struct oci_id_mapping *gid, size_t n_gid,
                   size_t n_groups, struct idmap_plan *out,
                   agentrt_error_t *err)
{
  memset (out, 0, sizeof *out);
  out->unprivileged = !caller->privileged;
  if (decide_one (caller, uid, n_uid, caller->euid, caller->have_newuidmap,
                  "linux.uidMappings", "newuidmap", "/etc/subuid", &out->uid,
                  err) < 0
      || decide_one (caller, gid, n_gid, caller->egid, caller->have_newgidmap,
                     "linux.gidMappings", "newgidmap", "/etc/subgid", &out->gid,
                     err) < 0)
    return -1;
  out->deny_setgroups = !caller->privileged && out->gid == IDMAP_WRITE_DIRECT;
  if (out->deny_setgroups && n_groups > 0)
    return agentrt_error (err, EPERM, "process.user.additionalGids: a user "
                          "other than root that maps only its own gid must "
                          "deny setgroups(2) to the container; map a range "
                          "of /etc/subgid (newgidmap) to give it "
                          "supplementary groups");
  return 0;
}

/* A decimal u32 of exactly len bytes (no sign, no spaces). */
static bool
parse_u32 (const char *s, size_t len, uint32_t *out)
{
  uint64_t v = 0;

  if (len == 0 || len > 10)
    return false;
  for (size_t i = 0; i < len; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return false;
      v = v * 10 + (uint64_t) (s[i] - '0');
    }
  if (v > UINT32_MAX)
    return false;
  *out = (uint32_t) v;
  return true;
}

/* Whether the owner field (len bytes) names this user. */
static bool
owner_matches (const char *s, size_t len, const char *name, uid_t id)
{
  uint32_t n;

  if (name && strlen (name) == len && memcmp (s, name, len) == 0)
    return true;
  return parse_u32 (s, len, &n) && n == (uint32_t) id;
}

size_t
idmap_subid_ranges (const char *text, const char *name, uid_t id,
                    struct idmap_range *out, size_t max)
{
  size_t found = 0;
  const char *line = text;

  while (line && *line)
    {
      const char *end = strchr (line, '\n');
      size_t len = end ? (size_t) (end - line) : strlen (line);
      const char *c1 = memchr (line, ':', len);
      const char *c2 = c1 ? memchr (c1 + 1, ':', len - (size_t) (c1 + 1 - line))
                          : NULL;
      struct idmap_range r;

      if (c2 && line[0] != '#'
          && owner_matches (line, (size_t) (c1 - line), name, id)
          && parse_u32 (c1 + 1, (size_t) (c2 - c1 - 1), &r.start)
          && parse_u32 (c2 + 1, len - (size_t) (c2 + 1 - line), &r.count)
          && r.count > 0 && (uint64_t) r.start + r.count - 1 <= UINT32_MAX)
        {
          if (found < max)
            out[found] = r;
          found++;
        }
      line = end ? end + 1 : NULL;
    }
  return found;
}

/* One line of a uid_map: three numbers separated and padded by blanks.
 * Returns the start of the next line, or NULL when the line is not that. */
static const char *
parse_map_line (const char *line, uint32_t f[3])
{
  const char *p = line;

  for (int i = 0; i < 3; i++)
    {
      const char *start;
      while (*p == ' ' || *p == '\t')
        p++;
      start = p;
      while (*p >= '0' && *p <= '9')
        p++;
      if (!parse_u32 (start, (size_t) (p - start), &f[i]))
        return NULL;
    }
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p != '\n' && *p != '\0')
    return NULL;
  /* the kernel's rule: start + count stays within u32 (-1 is no id) */
  if (f[2] == 0 || (uint64_t) f[0] + f[2] > UINT32_MAX
      || (uint64_t) f[1] + f[2] > UINT32_MAX)
    return NULL;
  return *p == '\n' ? p + 1 : p;
}

/* Calls fn for each line; -1 when the text is not a map (or has no
 * line), else what fn returned last (fn stops the walk by returning
 * non-zero). */
static int
walk_map (const char *text, int (*fn) (const uint32_t f[3], void *), void *arg)
{
  const char *p = text;
  int lines = 0, r = 0;

  if (text == NULL)
    return -1;
  while (*p)
    {
      uint32_t f[3];
      if (++lines > 340 || (p = parse_map_line (p, f)) == NULL)
        return -1;
      if (r == 0)
        r = fn (f, arg);
    }
  return lines == 0 ? -1 : r;
}

struct outer_query
{
  uint32_t inside, outside;
};

static int
find_outer (const uint32_t f[3], void *arg)
{
  struct outer_query *q = arg;

  if (q->inside < f[0] || q->inside - f[0] >= f[2])
    return 0;
  q->outside = f[1] + (q->inside - f[0]);
  return 1;
}

struct match_query
{
  const struct oci_id_mapping *m;
  size_t n;
  size_t lines;
};

static int
line_in_mappings (const uint32_t f[3], void *arg)
{
  struct match_query *q = arg;

  q->lines++;
  for (size_t i = 0; i < q->n; i++)
    if (q->m[i].container_id == f[0] && q->m[i].host_id == f[1]
        && q->m[i].size == f[2])
      return 0;
  return 1;
}

int
idmap_matches (const char *text, const struct oci_id_mapping *m, size_t n)
{
  struct match_query q = { .m = m, .n = n };
  int r = walk_map (text, line_in_mappings, &q);

  if (r < 0)
    return -1;
  if (r != 0)
    return 0;
  /* every line is a mapping; as many distinct mappings as lines (the
   * kernel refuses overlapping lines, so a map has no two alike) */
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (m[i].container_id == m[j].container_id
          && m[i].host_id == m[j].host_id && m[i].size == m[j].size)
        return 0;
  return q.lines == n;
}

int
idmap_outer_id (const char *text, uint32_t inside, uint32_t *outside)
{
  struct outer_query q = { .inside = inside };

  if (walk_map (text, find_outer, &q) != 1)
    return -1;
  *outside = q.outside;
  return 0;
}
