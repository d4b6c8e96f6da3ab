/* Lexical path operations (see paths.h). */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "paths.h"

char *
path_clean (const char *path)
{
  size_t len = strlen (path), out = 0;
  char *buf;

  if (path[0] != '/')
    return xstrdup (path);
  buf = xmalloc (len + 2);
  for (const char *p = path; *p;)
    {
      size_t n;
      while (*p == '/')
        p++;
      n = strcspn (p, "/");
      if (n == 0 || (n == 1 && p[0] == '.'))
        {
          /* nothing to keep */
        }
      else if (n == 2 && p[0] == '.' && p[1] == '.')
        {
          while (out > 0 && buf[out - 1] != '/')
            out--;
          if (out > 0)
            out--;
        }
      else
        {
          buf[out++] = '/';
          memcpy (buf + out, p, n);
          out += n;
        }
      p += n;
    }
  if (out == 0)
    buf[out++] = '/';
  buf[out] = '\0';
  return buf;
}

char *
path_join (const char *dir, const char *rel)
{
  size_t n = strlen (dir);
  if (n > 0 && dir[n - 1] == '/')
    return xasprintf ("%s%s", dir, rel);
  return xasprintf ("%s/%s", dir, rel);
}

bool
path_is_under (const char *path, const char *base)
{
  size_t n = strlen (base);

  if (strcmp (base, "/") == 0)
    return path[0] == '/';
  return strncmp (path, base, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool
path_has_components (const char *path, const char *rel, bool ends_only)
{
  size_t n = strlen (rel);

  if (n == 0)
    return false;
  for (const char *p = strstr (path, rel); p; p = strstr (p + 1, rel))
    {
      char after = p[n];
      if (p == path || p[-1] != '/')
        continue;
      if (after == '\0' || (!ends_only && after == '/'))
        return true;
    }
  return false;
}

bool
path_is_pattern (const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++)
    if (s[i] == '*' || s[i] == '?' || s[i] == '[')
      return true;
  return false;
}

bool
path_component_match (const char *pattern, size_t plen, const char *name,
                      size_t nlen)
{
  char pat[256], nm[256];

  if (!path_is_pattern (pattern, plen))
    return plen == nlen && memcmp (pattern, name, plen) == 0;
  if (plen >= sizeof (pat) || nlen >= sizeof (nm))
    return false;
  memcpy (pat, pattern, plen);
  pat[plen] = '\0';
  memcpy (nm, name, nlen);
  nm[nlen] = '\0';
  /* a leading dot is matched only by a leading dot, as in the shell */
  return fnmatch (pat, nm, FNM_PERIOD) == 0;
}

enum path_relation
path_relate (const char *path, const char *pattern, const char **rest)
{
  const char *p = path + 1, *q = pattern + 1;

  if (path[0] != '/' || pattern[0] != '/')
    return PATH_UNRELATED;
  for (;;)
    {
      size_t lp, lq;

      if (*p == '\0')
        {
          if (*q == '\0')
            return PATH_MATCH;
          *rest = q;
          return PATH_ABOVE;
        }
      if (*q == '\0')
        return PATH_BELOW;
      /* most patterns part at their first byte: no glob or escape there */
      if (*q != *p && strchr ("*?[\\", *q) == NULL)
        return PATH_UNRELATED;
      lp = strcspn (p, "/");
      lq = strcspn (q, "/");
      if (!path_component_match (q, lq, p, lp))
        return PATH_UNRELATED;
      p += lp + (p[lp] == '/');
      q += lq + (q[lq] == '/');
    }
}
