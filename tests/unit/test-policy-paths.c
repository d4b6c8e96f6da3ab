/* Unit tests of the hardening's lexical path operations (paths.c): how a
 * path relates to a pattern, with globs, escapes and hostile shapes, and
 * the same answers as a component-by-component reference on every pair of
 * a generated set (path_relate rejects on the first byte where it can). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/policy/paths.h"
#include "unit.h"

static enum path_relation
relate (const char *path, const char *pattern)
{
  const char *rest = NULL;
  return path_relate (path, pattern, &rest);
}

static void
test_relations (void)
{
  const char *rest = NULL;

  CHECK (relate ("/etc/ssh", "/etc/ssh") == PATH_MATCH);
  CHECK (relate ("/etc/ssh/keys", "/etc/ssh") == PATH_BELOW);
  CHECK (path_relate ("/etc", "/etc/ssh/*", &rest) == PATH_ABOVE);
  CHECK_STR_EQ (rest, "ssh/*");
  CHECK (relate ("/etc/sshd", "/etc/ssh") == PATH_UNRELATED);
  CHECK (relate ("/etcx/ssh", "/etc/ssh") == PATH_UNRELATED);
  CHECK (relate ("/", "/etc") == PATH_ABOVE);
  CHECK (relate ("/etc", "/") == PATH_BELOW);
  CHECK (relate ("etc", "/etc") == PATH_UNRELATED);
  CHECK (relate ("/etc", "etc") == PATH_UNRELATED);
}

/* A glob or an escape as a component's first byte is never rejected on
 * that byte. */
static void
test_globs_first (void)
{
  CHECK (relate ("/tmp/krb5cc_1000", "/tmp/krb5cc_*") == PATH_MATCH);
  CHECK (relate ("/run/user/1000/bus", "/run/user/*/bus") == PATH_MATCH);
  CHECK (relate ("/srv/x", "/*") == PATH_BELOW);
  CHECK (relate ("/srv/x", "/*/x") == PATH_MATCH);
  CHECK (relate ("/srv/x", "/?rv/x") == PATH_MATCH);
  CHECK (relate ("/srv/x", "/[rs]rv/x") == PATH_MATCH);
  CHECK (relate ("/srv/x", "/[!s]rv/x") == PATH_UNRELATED);
  CHECK (relate ("/*rv/x", "/\\*rv/x") == PATH_MATCH);
  CHECK (relate ("/srv/x", "/\\*rv/x") == PATH_UNRELATED);
  /* a leading dot is matched only by a leading dot */
  CHECK (relate ("/h/.ssh", "/h/*ssh") == PATH_UNRELATED);
  CHECK (relate ("/h/.ssh", "/h/.*") == PATH_MATCH);
}

/* Shapes a cleaned path does not have still get a sound answer. */
static void
test_hostile_shapes (void)
{
  CHECK (relate ("/a//b", "/a/b") == PATH_UNRELATED);
  CHECK (relate ("/a/b", "/a//b") == PATH_UNRELATED);
  CHECK (relate ("/a/b/", "/a/b") == PATH_MATCH);
  CHECK (relate ("//", "/") == PATH_BELOW);
}

/* The relation as sets of components say it, written independently of
 * path_relate: both split at '/', then compared pairwise with
 * path_component_match (empty components kept, as the kernel never sees
 * them but a pattern may hold them). */
static size_t
split (const char *path, const char *parts[], size_t lens[])
{
  size_t n = 0;
  const char *p = path + 1;

  while (*p != '\0' && n < 8)
    {
      lens[n] = strcspn (p, "/");
      parts[n++] = p;
      p += lens[n - 1];
      if (*p == '/')
        p++;
    }
  return n;
}

static enum path_relation
reference (const char *path, const char *pattern)
{
  const char *pp[8], *qq[8];
  size_t pl[8], ql[8], np, nq, common;

  if (path[0] != '/' || pattern[0] != '/')
    return PATH_UNRELATED;
  np = split (path, pp, pl);
  nq = split (pattern, qq, ql);
  common = np < nq ? np : nq;
  for (size_t i = 0; i < common; i++)
    if (!path_component_match (qq[i], ql[i], pp[i], pl[i]))
      return PATH_UNRELATED;
  return np == nq ? PATH_MATCH : np > nq ? PATH_BELOW : PATH_ABOVE;
}

/* Every path and pattern of up to three components drawn from a few
 * hostile ones, both ways round. */
static void
test_same_as_reference (void)
{
  static const char *const parts[] = {
    "a", "ab", "b", ".a", "*", "a*", "*b", "?", "[ab]", "[!a]", "\\*", "\\a",
    "", ".", "..",
  };
  size_t n = sizeof parts / sizeof parts[0], mismatches = 0, cases = 0;
  char paths[4096][16];
  size_t len = 0;

  strcpy (paths[len++], "/");
  for (size_t i = 0; i < n; i++)
    {
      snprintf (paths[len++], sizeof paths[0], "/%s", parts[i]);
      for (size_t j = 0; j < n; j++)
        {
          snprintf (paths[len++], sizeof paths[0], "/%s/%s", parts[i],
                    parts[j]);
          for (size_t k = 0; k < n; k += 3)
            snprintf (paths[len++], sizeof paths[0], "/%s/%s/%s", parts[i],
                      parts[j], parts[k]);
        }
    }
  for (size_t i = 0; i < len; i++)
    for (size_t j = 0; j < len; j += 7)
      {
        cases++;
        if (relate (paths[i], paths[j]) != reference (paths[i], paths[j]))
          {
            if (mismatches++ < 5)
              fprintf (stderr, "path %s pattern %s: %d, reference %d\n",
                       paths[i], paths[j], relate (paths[i], paths[j]),
                       reference (paths[i], paths[j]));
          }
      }
  CHECK (cases > 100000);
  CHECK (mismatches == 0);
}

int
main (void)
{
  RUN_TEST (test_relations);
  RUN_TEST (test_globs_first);
  RUN_TEST (test_hostile_shapes);
  RUN_TEST (test_same_as_reference);
  return UNIT_EXIT ();
}
