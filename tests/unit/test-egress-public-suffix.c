/* Unit tests of runtime/egress/public_suffix.c and punycode.c: lists and
 * labels that must be refused first, then wildcards judged against small
 * lists (every kind of rule), the file handling of public_suffix_check,
 * and the real list when the machine has it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/egress/public_suffix.h"
#include "runtime/egress/punycode.h"
#include "runtime/egress/suffix_cache.h"
#include "tests/unit/unit.h"

static void
test_punycode_refused (void)
{
  static const char *const bad[] = {
    "",                 /* empty */
    "\xc0\xaf",         /* overlong '/' */
    "\xe0\x80\xaf",     /* overlong, three bytes */
    "\xed\xa0\x80",     /* surrogate */
    "\xf4\x90\x80\x80", /* past U+10FFFF */
    "\xf8\x88\x80\x80\x80",
    "\xe4\xb8",         /* truncated */
    "a\x80",            /* lone continuation byte */
    "\xff",
    "a\tb",             /* control characters */
    "a\x7f",
  };
  char out[PUNYCODE_LABEL_MAX + 1], long_ascii[80], long_idn[200];

  for (size_t i = 0; i < sizeof (bad) / sizeof (*bad); i++)
    if (punycode_label (bad[i], strlen (bad[i]), out))
      {
        fprintf (stderr, "accepted #%zu -> %s\n", i, out);
        CHECK (0);
      }
  CHECK (punycode_label ("\xc2\x85", 2, out)); /* U+0085 is not ASCII's */
  CHECK (!punycode_label ("a\0b", 3, out));
  memset (long_ascii, 'a', 64);
  CHECK (!punycode_label (long_ascii, 64, out));
  CHECK (punycode_label (long_ascii, 63, out) && strlen (out) == 63);
  /* 58 ASCII letters and one more: 66 bytes encoded. */
  memset (long_idn, 'a', 58);
  memcpy (long_idn + 58, "\xc3\xbc", 2);
  CHECK (!punycode_label (long_idn, 60, out));
  /* 64 code points never fit, whatever they are. */
  for (size_t i = 0; i < 64; i++)
    memcpy (long_idn + 2 * i, "\xc3\xbc", 2);
  CHECK (!punycode_label (long_idn, 128, out));
}

static void
test_punycode_vectors (void)
{
  static const struct
  {
    const char *in, *out;
  } v[] = {
    { "example", "example" },
    { "b\xc3\xbc" "cher", "xn--bcher-kva" },
    { "m\xc3\xbcnchen", "xn--mnchen-3ya" },
    { "\xe5\x85\xac\xe5\x8f\xb8", "xn--55qx5d" },           /* 公司 */
    { "\xe4\xb8\xad\xe5\x9b\xbd", "xn--fiqs8s" },           /* 中国 */
    { "\xe9\xa6\x99\xe6\xb8\xaf", "xn--j6w193g" },          /* 香港 */
    { "\xd1\x80\xd1\x84", "xn--p1ai" },                     /* рф */
    /* RFC 3492 7.1 (B) and (L) */
    { "\xe4\xbb\x96\xe4\xbb\xac\xe4\xb8\xba\xe4\xbb\x80\xe4\xb9\x88\xe4\xb8"
      "\x8d\xe8\xaf\xb4\xe4\xb8\xad\xe6\x96\x87", "xn--ihqwcrb4cv8a8dqg056pqjye" },
    { "3\xe5\xb9\xb4" "B\xe7\xb5\x84\xe9\x87\x91\xe5\x85\xab\xe5\x85\x88\xe7"
      "\x94\x9f", "xn--3B-ww4c5e180e575a65lsy2b" },
  };
  char out[PUNYCODE_LABEL_MAX + 1];

  for (size_t i = 0; i < sizeof (v) / sizeof (*v); i++)
    {
      CHECK (punycode_label (v[i].in, strlen (v[i].in), out));
      CHECK_STR_EQ (out, v[i].out);
    }
}

/* Judges each name against list; returns the verdicts (static). */
static struct suffix_verdict *
scan (const char *list, const char *const *names, size_t n)
{
  static struct suffix_verdict v[16];
  cleanup_error agentrt_error_t err = NULL;

  if (public_suffix_scan (list, strlen (list), names, n, v, &err) < 0)
    {
      fprintf (stderr, "scan failed: %s\n", err->msg);
      CHECK (0);
      memset (v, 0, sizeof (v));
    }
  return v;
}

/* The compiled table says what the scan says, for every name. */
static void
check_compiled_agrees (const char *list, size_t len, const char *const *names,
                       size_t n)
{
  cleanup_error agentrt_error_t err = NULL;
  struct suffix_verdict v;
  struct suffix_table t;

  if (public_suffix_compile (list, len, &t, &err) < 0)
    {
      fprintf (stderr, "compile failed: %s\n", err->msg);
      CHECK (0);
      return;
    }
  for (size_t i = 0; i < n; i++)
    {
      bool covered = false;
      CHECK (public_suffix_scan (list, len, &names[i], 1, &v, &err) == 0);
      CHECK (suffix_table_covers (&t, names[i], &covered) == 0);
      if (covered != v.covered)
        fprintf (stderr, "`*.%s`: scan %d, table %d\n", names[i], v.covered, covered);
      CHECK (covered == v.covered);
    }
  suffix_table_release (&t);
}

static void
scan_bad (const char *list, const char *name, const char *needle)
{
  cleanup_error agentrt_error_t err = NULL;
  struct suffix_verdict v;

  if (public_suffix_scan (list, strlen (list), &name, 1, &v, &err) == 0)
    {
      fprintf (stderr, "list accepted: `%s`\n", list);
      CHECK (0);
      return;
    }
  CHECK_CONTAINS (err->msg, needle);
}

static void
test_bad_lists (void)
{
  scan_bad ("com\na..b.com\n", "x.com", "line 2: not a public suffix rule");
  scan_bad ("// c\n\nfoo.*.com\n", "x.com", "line 3");
  scan_bad ("*.*.com\n", "x.com", "line 1");
  scan_bad ("!*.x.com\n", "x.com", "line 1");
  scan_bad ("*.com\n!.com\n", "x.com", "line 2");
  scan_bad ("a\xc0\xaf.com\n", "x.com", "line 1");
  scan_bad ("\xe5\x85\xac\xe5\x8f.com\n", "x.com", "line 1"); /* truncated */
  scan_bad (".com\n", "x.com", "line 1");
  scan_bad ("x.com\nfoo!.com\n", "x.com", "line 2");
  /* Under an IDN TLD every line is read. */
  scan_bad ("a..b.org\n", "x.xn--p1ai", "line 1");
  /* With no names too: the whole list is checked. */
  {
    cleanup_error agentrt_error_t err = NULL;
    CHECK (public_suffix_scan ("a..b.org\n", 9, NULL, 0, NULL, &err) < 0);
    CHECK_CONTAINS (err->msg, "line 1");
  }
  /* A rule is the first word of a line: the rest is not a rule, and a
   * bad rule under another TLD does not concern these names. */
  static const char *const x[] = { "x.com" };
  CHECK (!scan ("foo.net x.com\na..b.org\n", x, 1)[0].covered);
  CHECK (scan ("x.com  // the rule\r\n", x, 1)[0].covered);
}

static void
test_covered (void)
{
  static const char list[]
      = "// ===BEGIN ICANN DOMAINS===\n"
        "com\nuk\nco.uk\n"
        "*.ck\n!www.ck\n"
        "!city.kawasaki.jp\n*.kawasaki.jp\n"
        "\xe5\x85\xac\xe5\x8f\xb8.cn\n" /* 公司.cn */
        "\xe5\x85\xac\xe5\x8f\xb8.\xe9\xa6\x99\xe6\xb8\xaf\n" /* 公司.香港 */
        "// ===BEGIN PRIVATE DOMAINS===\n"
        "*.compute.amazonaws.com\n"
        "s3.amazonaws.com\n"
        "s3.dualstack.us-east-1.amazonaws.com\n"
        "github.io\n"
        "*.r.appspot.com\n";
  static const struct
  {
    const char *name, *rule; /* rule NULL: not covered */
  } cases[] = {
    /* at any level below the name */
    { "amazonaws.com", "*.compute.amazonaws.com" },
    { "compute.amazonaws.com", "*.compute.amazonaws.com" },
    { "us-east-1.compute.amazonaws.com", "*.compute.amazonaws.com" },
    { "s3.amazonaws.com", "s3.amazonaws.com" },
    { "us-east-1.amazonaws.com", "s3.dualstack.us-east-1.amazonaws.com" },
    { "co.uk", "co.uk" },
    { "github.io", "github.io" },
    { "appspot.com", "*.r.appspot.com" },
    { "foo.ck", "*.ck" },
    { "foo.kawasaki.jp", "*.kawasaki.jp" },
    { "xn--55qx5d.cn", "xn--55qx5d.cn" },
    { "xn--55qx5d.xn--j6w193g", "xn--55qx5d.xn--j6w193g" },
    /* registrable names and what is below them */
    { "a.us-east-1.compute.amazonaws.com", NULL },
    { "bucket.s3.amazonaws.com", NULL },
    { "example.co.uk", NULL },
    { "user.github.io", NULL },
    { "x.r.appspot.com", "*.r.appspot.com" }, /* itself a suffix */
    { "y.x.r.appspot.com", NULL },
    { "www.ck", NULL },
    { "city.kawasaki.jp", NULL },
    { "a.xn--55qx5d.cn", NULL },
    { "github.com", NULL },
    { "example.org", NULL },
    { "xn--bcher-kva.com", NULL },
  };
  const char *names[1];

  for (size_t i = 0; i < sizeof (cases) / sizeof (*cases); i++)
    {
      struct suffix_verdict *v;

      names[0] = cases[i].name;
      check_compiled_agrees (list, strlen (list), names, 1);
      v = scan (list, names, 1);
      if (v[0].covered != (cases[i].rule != NULL))
        fprintf (stderr, "`*.%s`: covered %d by `%s`\n", cases[i].name,
                 v[0].covered, v[0].rule);
      CHECK (v[0].covered == (cases[i].rule != NULL));
      if (cases[i].rule)
        CHECK_STR_EQ (v[0].rule, cases[i].rule);
    }
  /* A list that is not one does not compile either. */
  {
    cleanup_error agentrt_error_t err = NULL;
    struct suffix_table t;
    CHECK (public_suffix_compile ("com\nfoo..org\n", 13, &t, &err) < 0);
    CHECK_CONTAINS (err->msg, "line 2");
  }
  /* Several names in one pass, each with its own verdict. */
  static const char *const several[] = { "example.co.uk", "amazonaws.com",
                                         "github.com", "foo.ck" };
  struct suffix_verdict *v = scan (list, several, 4);
  CHECK (!v[0].covered && v[1].covered && !v[2].covered && v[3].covered);
  CHECK_STR_EQ (v[1].rule, "*.compute.amazonaws.com");
}

static struct allowlist *
parse (const char *spec)
{
  cleanup_error agentrt_error_t err = NULL;
  struct allowlist *al = NULL;

  if (allowlist_parse (spec, false, &al, &err) < 0)
    {
      fprintf (stderr, "%s\n", err->msg);
      abort ();
    }
  return al;
}

static char *
write_list (const char *text)
{
  char *path = strdup ("/tmp/agentrt-psl-XXXXXX");
  int fd = mkstemp (path);

  CHECK (fd >= 0);
  CHECK (write (fd, text, strlen (text)) == (ssize_t) strlen (text));
  close (fd);
  return path;
}

static void
test_check_files (void)
{
  cleanup_free char *path = write_list ("com\nco.uk\ns3.amazonaws.com\n");
  cleanup_free char *bad_list = write_list ("a..b.example\n");
  struct allowlist *al;
  size_t bad = 99;

  /* A missing list refuses the first wildcard, naming it and the file. */
  al = parse ("example.com,*.corp.example,*.example.org");
  {
    cleanup_error agentrt_error_t err = NULL;
    CHECK (public_suffix_check (al, "/nonexistent/psl.dat", NULL, &bad, &err) < 0);
    CHECK_CONTAINS (err->msg, "`*.corp.example`");
    CHECK_CONTAINS (err->msg, "judged against the Public Suffix List: stat "
                              "`/nonexistent/psl.dat`: No such file or directory");
    CHECK (bad == 1);
  }
  {
    cleanup_error agentrt_error_t err = NULL;
    CHECK (public_suffix_check (al, "/tmp", NULL, &bad, &err) < 0);
    CHECK_CONTAINS (err->msg, "not a regular file");
  }
  {
    cleanup_error agentrt_error_t err = NULL;
    CHECK (public_suffix_check (al, bad_list, NULL, &bad, &err) < 0);
    CHECK_CONTAINS (err->msg, "line 1: not a public suffix rule");
    CHECK_CONTAINS (err->msg, bad_list);
  }
  {
    cleanup_error agentrt_error_t err = NULL;
    CHECK (public_suffix_check (al, path, NULL, &bad, &err) == 0);
  }
  allowlist_free (al);

  /* No wildcard: the file is not even opened. */
  al = parse ("example.com,10.1.0.0/16,s3.amazonaws.com");
  {
    cleanup_error agentrt_error_t err = NULL;
    CHECK (public_suffix_check (al, "/nonexistent/psl.dat", NULL, &bad, &err) == 0);
  }
  allowlist_free (al);

  al = parse ("a.test,*.bucket.s3.amazonaws.com,*.ok.example,*.s3.amazonaws.com:443");
  {
    cleanup_error agentrt_error_t err = NULL;
    CHECK (public_suffix_check (al, path, NULL, &bad, &err) < 0);
    CHECK_CONTAINS (err->msg, "entry `*.s3.amazonaws.com`: too broad (covers "
                              "`s3.amazonaws.com` of the Public Suffix List)");
    CHECK (bad == 3);
  }
  allowlist_free (al);
  unlink (path);
  unlink (bad_list);
}

static char *
temp_dir (void)
{
  char *dir = strdup ("/tmp/agentrt-psl-cache-XXXXXX");
  CHECK (mkdtemp (dir) != NULL);
  return dir;
}

/* Judges spec against the list at path with the cache in dir: 0 or -1. */
static int
check_with (const char *spec, const char *path, const char *dir, char **msg)
{
  cleanup_error agentrt_error_t err = NULL;
  struct allowlist *al = parse (spec);
  size_t bad;
  int r = public_suffix_check (al, path, dir, &bad, &err);

  *msg = err ? strdup (err->msg) : NULL;
  allowlist_free (al);
  return r;
}

static void
test_cache (void)
{
  cleanup_free char *path = write_list ("com\nco.uk\ns3.amazonaws.com\n*.ck\n!www.ck\n");
  cleanup_free char *dir = temp_dir ();
  cleanup_free char *cache = NULL, *entry = NULL, *msg = NULL;
  struct suffix_table t;
  struct stat st;
  int fd;

  cache = malloc (strlen (dir) + 16);
  sprintf (cache, "%s/cache", dir);
  /* First use: compiled and stored (the directory made, 0700). */
  CHECK (check_with ("*.example.com,*.www.ck", path, cache, &msg) == 0);
  CHECK (stat (cache, &st) == 0 && (st.st_mode & 0777) == 0700);
  CHECK (stat (path, &st) == 0);
  CHECK (suffix_cache_load (cache, path, &st, &t) == 0);
  {
    bool covered = false;
    CHECK (suffix_table_covers (&t, "s3.amazonaws.com", &covered) == 0 && covered);
    CHECK (suffix_table_covers (&t, "amazonaws.com", &covered) == 0 && covered);
    CHECK (suffix_table_covers (&t, "foo.ck", &covered) == 0 && covered);
    CHECK (suffix_table_covers (&t, "www.ck", &covered) == 0 && !covered);
    CHECK (suffix_table_covers (&t, "example.com", &covered) == 0 && !covered);
  }
  suffix_table_release (&t);
  /* From the cache: the refusal still names its rule. */
  free (msg);
  CHECK (check_with ("*.ok.example,*.amazonaws.com", path, cache, &msg) < 0);
  CHECK_CONTAINS (msg, "`*.amazonaws.com`: too broad (covers `s3.amazonaws.com`");
  /* The list changes (size, mtime, ctime): the entry no longer answers,
   * the new list does. */
  sleep (0); /* ctime moves on rewrite */
  {
    int lf = open (path, O_WRONLY | O_TRUNC);
    CHECK (lf >= 0 && write (lf, "com\nexample.com\n", 16) == 16);
    close (lf);
  }
  CHECK (stat (path, &st) == 0);
  CHECK (suffix_cache_load (cache, path, &st, &t) < 0);
  free (msg);
  CHECK (check_with ("*.example.com", path, cache, &msg) < 0);
  CHECK_CONTAINS (msg, "covers `example.com`");
  free (msg);
  CHECK (check_with ("*.amazonaws.com", path, cache, &msg) == 0);
  /* Entries that cannot be trusted are not used. */
  CHECK (suffix_cache_load (cache, path, &st, &t) == 0);
  suffix_table_release (&t);
  {
    char name[64];
    snprintf (name, sizeof (name), "%016llx.psl",
              (unsigned long long) suffix_key (SUFFIX_AT_OR_ABOVE, path, strlen (path)));
    entry = malloc (strlen (cache) + sizeof (name) + 2);
    sprintf (entry, "%s/%s", cache, name);
  }
  CHECK (chmod (entry, 0640) == 0);
  CHECK (suffix_cache_load (cache, path, &st, &t) < 0);
  CHECK (chmod (entry, 0600) == 0);
  CHECK (truncate (entry, 100) == 0);
  CHECK (suffix_cache_load (cache, path, &st, &t) < 0);
  fd = open (entry, O_WRONLY);
  CHECK (fd >= 0 && pwrite (fd, "XGRTPSL", 7, 0) == 7);
  close (fd);
  CHECK (suffix_cache_load (cache, path, &st, &t) < 0);
  /* A list that is gone refuses wildcards, cache or not. */
  unlink (path);
  free (msg);
  CHECK (check_with ("*.example.org", path, cache, &msg) < 0);
  CHECK_CONTAINS (msg, "No such file or directory");
  free (msg);
  msg = NULL;
  /* A cache directory that cannot be made: judged by a pass over the list. */
  {
    cleanup_free char *list2 = write_list ("co.uk\n");
    CHECK (check_with ("*.co.uk", list2, "/nonexistent/dir/cache", &msg) < 0);
    CHECK_CONTAINS (msg, "covers `co.uk`");
    free (msg);
    msg = NULL;
    CHECK (check_with ("*.example.co.uk", list2, "/nonexistent/dir/cache", &msg) == 0);
    unlink (list2);
  }
  unlink (entry);
  rmdir (cache);
  rmdir (dir);
}

/* The list of the machine (Debian's publicsuffix package), when it has it. */
static void
test_real_list (void)
{
  static const char *const broad[] = {
    "amazonaws.com", "s3.amazonaws.com", "co.uk", "github.io",
    "githubusercontent.com", "blogspot.com", "herokuapp.com", "appspot.com",
    "pages.dev", "workers.dev", "vercel.app", "ngrok.io", "xn--55qx5d.cn",
    "compute.amazonaws.com", "cloudfront.net", "azurewebsites.net",
  };
  static const char *const narrow[] = {
    "github.com", "pythonhosted.org", "example.com", "corp.example",
    "web.test", "bucket.s3.amazonaws.com", "example.co.uk",
  };
  struct suffix_verdict v[sizeof (broad) / sizeof (*broad)];
  cleanup_error agentrt_error_t err = NULL;
  cleanup_free char *text = NULL;
  size_t len = 0;
  FILE *f = fopen (PUBLIC_SUFFIX_LIST_PATH, "re");

  if (f == NULL)
    {
      printf ("SKIP test_real_list: no %s (apt-get install publicsuffix)\n",
              PUBLIC_SUFFIX_LIST_PATH);
      return;
    }
  text = malloc (PUBLIC_SUFFIX_LIST_MAX_BYTES);
  len = fread (text, 1, PUBLIC_SUFFIX_LIST_MAX_BYTES, f);
  fclose (f);
  /* Every line of it is read as a rule. */
  CHECK (public_suffix_scan (text, len, NULL, 0, NULL, &err) == 0);
  CHECK (public_suffix_scan (text, len, broad, sizeof (broad) / sizeof (*broad), v, &err) == 0);
  for (size_t i = 0; i < sizeof (broad) / sizeof (*broad); i++)
    {
      if (!v[i].covered)
        fprintf (stderr, "`*.%s` not judged broad\n", broad[i]);
      CHECK (v[i].covered);
    }
  CHECK (public_suffix_scan (text, len, narrow, sizeof (narrow) / sizeof (*narrow), v, &err) == 0);
  for (size_t i = 0; i < sizeof (narrow) / sizeof (*narrow); i++)
    {
      if (v[i].covered)
        fprintf (stderr, "`*.%s` judged broad by `%s`\n", narrow[i], v[i].rule);
      CHECK (!v[i].covered);
    }
  check_compiled_agrees (text, len, broad, sizeof (broad) / sizeof (*broad));
  check_compiled_agrees (text, len, narrow, sizeof (narrow) / sizeof (*narrow));
}

int
main (void)
{
  RUN_TEST (test_punycode_refused);
  RUN_TEST (test_punycode_vectors);
  RUN_TEST (test_bad_lists);
  RUN_TEST (test_covered);
  RUN_TEST (test_check_files);
  RUN_TEST (test_cache);
  RUN_TEST (test_real_list);
  return UNIT_EXIT ();
}
