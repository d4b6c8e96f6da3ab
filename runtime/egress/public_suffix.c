/* The Public Suffix List and wildcard allowlist entries (see
 * public_suffix.h): reading the list's rules (in ASCII form, IDN rules
 * converted with punycode.c), judging names by one pass over it, compiling
 * it into suffix_cache.c's table, and the check the runtime calls. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "public_suffix.h"
#include "punycode.h"
#include "suffix_cache.h"

/* One rule of the list, its name in ASCII form. */
struct rule
{
  bool exception; /* `!name`: not a public suffix, though `*.` says so */
  bool wildcard;  /* `*.name`: every child of name is one */
  char name[HOST_NAME_MAX_LEN + 1];
  size_t len;
};

/* A name being judged. */
struct judged
{
  const char *name;
  size_t len;
  const char *parent; /* after its first dot */
  size_t parent_len;
  const char *tld; /* after its last dot */
  size_t tld_len;
  bool idn_parent; /* an `xn--` label in parent: rules spell it in UTF-8 */
  bool child_of_wildcard; /* `*.parent` is a rule... */
  bool excepted;          /* ...but `!name` is one too */
  char child_rule[HOST_NAME_MAX_LEN + 3];
};

static bool
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static char
lower (char c)
{
  return (c >= 'A' && c <= 'Z') ? (char) (c - 'A' + 'a') : c;
}

/* Appends the label s[0..len) to r->name in ASCII form. */
static bool
add_label (struct rule *r, const char *s, size_t len)
{
  char low[4 * PUNYCODE_LABEL_MAX], ace[PUNYCODE_LABEL_MAX + 1];
  size_t alen;

  if (len == 0 || len > sizeof (low) || memchr (s, '*', len) || memchr (s, '!', len))
    return false;
  for (size_t i = 0; i < len; i++)
    low[i] = lower (s[i]);
  if (!punycode_label (low, len, ace))
    return false;
  alen = strlen (ace);
  if (r->len + (r->len > 0) + alen > HOST_NAME_MAX_LEN)
    return false;
  if (r->len > 0)
    r->name[r->len++] = '.';
  memcpy (r->name + r->len, ace, alen + 1);
  r->len += alen;
  return true;
}

/* A rule token: `[!]` or `[*.]`, then dot-separated labels. */
static bool
rule_parse (const char *s, size_t len, struct rule *r)
{
  r->exception = s[0] == '!';
  if (r->exception)
    s++, len--;
  r->wildcard = len >= 2 && s[0] == '*' && s[1] == '.';
  if (r->wildcard)
    s += 2, len -= 2;
  if (r->exception && r->wildcard)
    return false;
  r->len = 0;
  r->name[0] = '\0';
  do
    {
      const char *dot = memchr (s, '.', len);
      size_t l = dot ? (size_t) (dot - s) : len;

      if (!add_label (r, s, l))
        return false;
      s += l;
      len -= l;
      if (dot)
        {
          s++;
          if (--len == 0)
            return false; /* a trailing dot */
        }
    }
  while (len > 0);
  return true;
}

/* Is name (nlen bytes) the name base or one of its ancestors? */
static bool
at_or_above (const char *base, size_t blen, const char *name, size_t nlen)
{
  return blen >= nlen && memcmp (base + blen - nlen, name, nlen) == 0
         && (blen == nlen || base[blen - nlen - 1] == '.');
}

static void
rule_text (const struct rule *r, char *out)
{
  strcpy (out, r->wildcard ? "*." : "");
  strcat (out, r->name);
}

static void
judge (const struct rule *r, struct judged *j, struct suffix_verdict *v)
{
  if (r->exception)
    {
      j->excepted = j->excepted || (r->len == j->len && memcmp (r->name, j->name, r->len) == 0);
      return;
    }
  if (v->covered)
    return;
  if (at_or_above (r->name, r->len, j->name, j->len))
    {
      v->covered = true;
      rule_text (r, v->rule);
    }
  else if (r->wildcard && !j->child_of_wildcard && j->parent
           && r->len == j->parent_len && memcmp (r->name, j->parent, r->len) == 0)
    {
      j->child_of_wildcard = true;
      rule_text (r, j->child_rule);
    }
}

/* Does tok end with name, at a label boundary (any case)? */
static bool
ends_with_name (const char *tok, size_t len, const char *name, size_t nlen)
{
  return len >= nlen && strncasecmp (tok + len - nlen, name, nlen) == 0
         && (len == nlen || tok[len - nlen - 1] == '.');
}

/* Can the rule tok[0..len) concern a name?  judge() needs a rule at or
 * below the name, or one naming its parent or the name itself: all of
 * them end with the name's parent.  Checked on the raw text, which keeps
 * the ASCII tail of an IDN rule, before the dearer rule_parse: most rules
 * under the same TLD as a name concern none. */
static bool
may_concern (const char *tok, size_t len, const struct judged *js, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (js[i].parent == NULL || js[i].idn_parent
        || ends_with_name (tok, len, js[i].parent, js[i].parent_len))
      return true;
  return false;
}

/* What is done with each rule found: judging names, or compiling. */
struct visit
{
  const char *list; /* for line numbers */
  struct judged *js;
  size_t n;
  struct suffix_verdict *verdicts;
  /* compiling: */
  bool compile;
  uint64_t *keys;
  size_t n_keys, cap_keys;
};

/* The keys of a rule (suffix_cache.h): its name and every ancestor are at
 * or above a rule, unless it is an exception. */
static bool
add_keys (struct visit *v, const struct rule *r)
{
  const char *p = r->name;
  size_t need = r->exception ? 1 : r->wildcard + 1;

  for (const char *q = r->name; *q; q++)
    need += *q == '.';
  if (v->n_keys + need > SUFFIX_TABLE_MAX_KEYS)
    return false;
  if (v->n_keys + need > v->cap_keys)
    {
      v->cap_keys = 2 * (v->n_keys + need) + 1024;
      v->keys = xreallocarray (v->keys, v->cap_keys, sizeof (*v->keys));
    }
  if (r->exception)
    {
      v->keys[v->n_keys++] = suffix_key (SUFFIX_EXCEPTION, r->name, r->len);
      return true;
    }
  if (r->wildcard)
    v->keys[v->n_keys++] = suffix_key (SUFFIX_WILDCARD, r->name, r->len);
  for (;;)
    {
      const char *dot = strchr (p, '.');
      v->keys[v->n_keys++] = suffix_key (SUFFIX_AT_OR_ABOVE, p,
                                         r->len - (size_t) (p - r->name));
      if (dot == NULL)
        return true;
      p = dot + 1;
    }
}

/* The rule tok[0..len), found in the list: judged against every name, or
 * compiled.  A token that is not a rule fails, naming its line. */
static int
rule_seen (struct visit *v, const char *tok, size_t len, agentrt_error_t *err)
{
  struct rule r;
  size_t line = 1;

  if (len >= 2 && tok[0] == '/' && tok[1] == '/')
    return 0; /* a comment */
  if (v->n > 0 && !may_concern (tok, len, v->js, v->n))
    return 0;
  if (!rule_parse (tok, len, &r))
    {
      for (const char *p = v->list; p < tok; p++)
        line += *p == '\n';
      return agentrt_error (err, 0, "line %zu: not a public suffix rule", line);
    }
  if (v->compile && !add_keys (v, &r))
    return agentrt_error (err, E2BIG, "more than %u keys", SUFFIX_TABLE_MAX_KEYS);
  for (size_t i = 0; i < v->n; i++)
    judge (&r, &v->js[i], &v->verdicts[i]);
  return 0;
}

/* Only a rule that ends in the top-level label of a name can concern it,
 * and not the TLD alone (names have two labels or more): the rules ending
 * in `.tld` are found with memmem, without going through the list line by
 * line (most of its 10,000 rules are under TLDs nobody allowlists).  A
 * rule is the start of a line up to the first blank. */
static int
scan_tld (struct visit *v, size_t len, const char *tld, size_t tld_len,
          agentrt_error_t *err)
{
  const char *list = v->list, *p = list, *end = list + len, *hit;
  char needle[PUNYCODE_LABEL_MAX + 2] = ".";

  memcpy (needle + 1, tld, tld_len);
  while ((hit = memmem (p, (size_t) (end - p), needle, tld_len + 1)) != NULL)
    {
      const char *after = hit + tld_len + 1, *start = hit;

      p = after;
      if (after < end && *after != '\n' && !is_blank (*after))
        continue;
      while (start > list && start[-1] != '\n' && !is_blank (start[-1]))
        start--;
      if (start > list && start[-1] != '\n')
        continue; /* not the line's first word */
      if (rule_seen (v, start, (size_t) (after - start), err) < 0)
        return -1;
    }
  return 0;
}

/* Every rule, line by line: to compile, to check the list, or for a name
 * under an IDN TLD (`xn--...`), whose rules are written in UTF-8. */
static int
scan_all (struct visit *v, size_t len, agentrt_error_t *err)
{
  const char *p = v->list, *end = v->list + len;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (size_t) (end - p));
      const char *eol = nl ? nl : end;
      size_t tlen = 0;

      while (p + tlen < eol && !is_blank (p[tlen]))
        tlen++;
      if (tlen > 0 && rule_seen (v, p, tlen, err) < 0)
        return -1;
      p = nl ? nl + 1 : end;
    }
  return 0;
}

int
public_suffix_scan (const char *list, size_t len, const char *const *names,
                    size_t n, struct suffix_verdict *verdicts,
                    agentrt_error_t *err)
{
  cleanup_free struct judged *js = xzalloc ((n ? n : 1) * sizeof (*js));
  struct visit v = { .list = list, .js = js, .n = n, .verdicts = verdicts };
  bool idn = false;

  for (size_t i = 0; i < n; i++)
    {
      const char *dot = strchr (names[i], '.');
      const char *last = strrchr (names[i], '.');
      js[i].tld = last ? last + 1 : names[i];
      js[i].tld_len = strlen (js[i].tld);
      js[i].name = names[i];
      js[i].len = strlen (names[i]);
      js[i].parent = dot ? dot + 1 : NULL;
      js[i].parent_len = dot ? strlen (dot + 1) : 0;
      js[i].idn_parent = dot && (strncmp (dot + 1, "xn--", 4) == 0
                                 || strstr (dot + 1, ".xn--") != NULL);
      idn = idn || strncmp (js[i].tld, "xn--", 4) == 0;
      memset (&verdicts[i], 0, sizeof (verdicts[i]));
    }
  if ((idn || n == 0) && scan_all (&v, len, err) < 0)
    return -1;
  for (size_t i = 0; i < n && !idn; i++)
    {
      bool seen = false;
      for (size_t j = 0; j < i && !seen; j++)
        seen = strcmp (js[j].tld, js[i].tld) == 0;
      if (!seen && scan_tld (&v, len, js[i].tld, js[i].tld_len, err) < 0)
        return -1;
    }
  for (size_t i = 0; i < n; i++)
    if (!verdicts[i].covered && js[i].child_of_wildcard && !js[i].excepted)
      {
        verdicts[i].covered = true;
        strcpy (verdicts[i].rule, js[i].child_rule);
      }
  return 0;
}

int
public_suffix_compile (const char *list, size_t len, struct suffix_table *t,
                       agentrt_error_t *err)
{
  struct visit v = { .list = list, .compile = true };

  if (scan_all (&v, len, err) < 0)
    {
      free (v.keys);
      return -1;
    }
  suffix_table_build (v.keys, v.n_keys, t);
  free (v.keys);
  return 0;
}

/* The list file: stat'ed first (the cache's key), opened and mapped only
 * when its text is needed (mapped, not read: copying 250 KB into fresh
 * anonymous memory cost milliseconds of page faults in a new process here,
 * mapping the page cache a few).  Its identity is checked again on open. */
struct list_file
{
  int fd;
  struct stat st;
  void *addr;
  size_t len;
};

static void
list_close (struct list_file *l)
{
  if (l->addr && l->addr != MAP_FAILED)
    munmap (l->addr, l->len);
  if (l->fd >= 0)
    close (l->fd);
}

static int
list_stat (const char *path, struct list_file *l, agentrt_error_t *err)
{
  if (stat (path, &l->st) < 0)
    return agentrt_error (err, errno, "stat `%s`", path);
  if (!S_ISREG (l->st.st_mode) || l->st.st_size > PUBLIC_SUFFIX_LIST_MAX_BYTES)
    return agentrt_error (err, 0, "`%s`: not a regular file of at most %d bytes",
                          path, PUBLIC_SUFFIX_LIST_MAX_BYTES);
  l->len = (size_t) l->st.st_size;
  return 0;
}

static int
list_map (struct list_file *l, const char *path, agentrt_error_t *err)
{
  struct stat st;

  if (l->fd >= 0)
    return 0;
  l->fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (l->fd < 0)
    return agentrt_error (err, errno, "open `%s`", path);
  if (fstat (l->fd, &st) < 0)
    return agentrt_error (err, errno, "stat `%s`", path);
  if (st.st_dev != l->st.st_dev || st.st_ino != l->st.st_ino
      || st.st_size != l->st.st_size)
    return agentrt_error (err, EAGAIN, "`%s` changed while judged", path);
  if (l->len == 0)
    return 0;
  l->addr = mmap (NULL, l->len, PROT_READ, MAP_PRIVATE, l->fd, 0);
  if (l->addr == MAP_FAILED)
    {
      l->addr = NULL;
      return agentrt_error (err, errno, "mmap `%s`", path);
    }
  return 0;
}

static const char *
list_text (const struct list_file *l)
{
  return l->addr ? l->addr : "";
}

/* The compiled list's answer for each name (*answered), from the cache,
 * or compiled now and stored; no answer when there is no cache entry and
 * none can be stored (compiling costs more than a pass).  Fails only when
 * the list cannot be read or compiled. */
static int
judge_compiled (const char *cache_dir, const char *path, struct list_file *l,
                const char *const *names, size_t n, bool *covered,
                bool *answered, agentrt_error_t *err)
{
  struct suffix_table t;
  int r = 0;

  *answered = false;
  if (suffix_cache_load (cache_dir, path, &l->st, &t) < 0)
    {
      if (!suffix_cache_usable (cache_dir))
        return 0;
      if (list_map (l, path, err) < 0)
        return -1;
      if (public_suffix_compile (list_text (l), l->len, &t, err) < 0)
        return agentrt_error_wrap (err, "`%s`", path);
      suffix_cache_store (cache_dir, path, &l->st, &t);
    }
  *answered = true;
  for (size_t i = 0; i < n && r == 0; i++)
    if (suffix_table_covers (&t, names[i], &covered[i]) < 0)
      r = agentrt_error (err, errno, "read the cache of `%s` in `%s`", path,
                         cache_dir);
  suffix_table_release (&t);
  return r;
}

int
public_suffix_check (const struct allowlist *al, const char *path,
                     const char *cache_dir, size_t *bad, agentrt_error_t *err)
{
  cleanup_free const char **names = xzalloc ((al->n ? al->n : 1) * sizeof (*names));
  cleanup_free size_t *index = xzalloc ((al->n ? al->n : 1) * sizeof (*index));
  cleanup_free struct suffix_verdict *verdicts = NULL;
  cleanup_free bool *covered = NULL;
  __attribute__ ((cleanup (list_close))) struct list_file list = { .fd = -1 };
  bool any = true, answered = false;
  size_t n = 0;
  int r;

  for (size_t i = 0; i < al->n; i++)
    if (al->entries[i].kind == ALLOW_SUFFIX)
      {
        index[n] = i;
        names[n++] = al->entries[i].name;
      }
  if (n == 0)
    return 0;
  verdicts = xzalloc (n * sizeof (*verdicts));
  covered = xzalloc (n * sizeof (*covered));
  *bad = index[0];
  r = list_stat (path, &list, err);
  if (r == 0 && cache_dir)
    r = judge_compiled (cache_dir, path, &list, names, n, covered, &answered, err);
  if (answered)
    {
      any = false;
      for (size_t i = 0; i < n; i++)
        any = any || covered[i];
    }
  /* No cache: one pass over the list.  A refusal: the pass finds the
   * rule to name. */
  if (r == 0 && any)
    {
      r = list_map (&list, path, err);
      if (r == 0 && public_suffix_scan (list_text (&list), list.len, names, n,
                                        verdicts, err) < 0)
        r = agentrt_error_wrap (err, "`%s`", path);
    }
  if (r < 0)
    return agentrt_error_wrap (err, "egress allowlist entry `*.%s`: a wildcard "
                               "is judged against the Public Suffix List",
                               names[0]);
  for (size_t i = 0; i < n; i++)
    if (answered ? covered[i] : verdicts[i].covered)
      {
        *bad = index[i];
        return agentrt_error (err, 0, "egress allowlist entry `*.%s`: too broad "
                              "(covers `%s` of the Public Suffix List)", names[i],
                              verdicts[i].covered ? verdicts[i].rule : "a suffix");
      }
  return 0;
}
