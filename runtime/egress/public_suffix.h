/* Judging wildcard allowlist entries against the Public Suffix List
 * (publicsuffix.org, both its ICANN section and its private one, where
 * `s3.amazonaws.com` and `github.io` live).  `*.NAME` is too broad when
 * NAME is a public suffix or has one below it, at any depth: it reaches
 * names that anyone can register or publish under (`*.amazonaws.com`
 * covers every S3 bucket, `*.co.uk` every company).
 *
 * The runtime judges the allowlist before it starts the sidecar; the
 * sidecar, which has no filesystem after its lockdown, does not read the
 * list (docs/egress.md, Allowlist).  public_suffix_scan is pure;
 * public_suffix_check reads the file, and only when there is a wildcard
 * to judge. */
#ifndef AGENTRT_EGRESS_PUBLIC_SUFFIX_H
#define AGENTRT_EGRESS_PUBLIC_SUFFIX_H

#include <stdbool.h>
#include <stddef.h>

#include "allowlist.h"
#include "common/error.h"
#include "netaddr.h"
#include "suffix_cache.h"

/* Where Debian's publicsuffix package (and Fedora's, Arch's) puts it. */
#define PUBLIC_SUFFIX_LIST_PATH "/usr/share/publicsuffix/public_suffix_list.dat"
/* A larger file is refused (the list is about 250 KB). */
#define PUBLIC_SUFFIX_LIST_MAX_BYTES (16 * 1024 * 1024)

/* What the list says of `*.name`. */
struct suffix_verdict
{
  bool covered;
  /* The first rule, in list order, that makes it broad, in ASCII
   * (Punycode) form: `*.compute.amazonaws.com`, `co.uk`. */
  char rule[HOST_NAME_MAX_LEN + 3];
};

/* Reads list[0..len) (the file's text: one rule per line, up to the first
 * blank; `//` comments; `*.` and `!` rules; labels in UTF-8, lowercase as
 * the list is published) and judges `*.names[i]` into verdicts[i] for each
 * of the n names (lowercase ASCII, two labels or more, no trailing dot, as
 * allowlist_parse leaves them).  Only the rules that can concern a name
 * (those ending in its top-level label) are read closely.  Fails closed:
 * -1 when such a line is not a rule, the error naming the line.  With no
 * names (n = 0) it checks that every line is a rule. */
int public_suffix_scan (const char *list, size_t len, const char *const *names,
                        size_t n, struct suffix_verdict *verdicts,
                        agentrt_error_t *err);

/* Compiles the whole list into t (suffix_cache.h).  -1 when a line is not
 * a rule, or the list is far too large. */
int public_suffix_compile (const char *list, size_t len,
                           struct suffix_table *t, agentrt_error_t *err);

/* Refuses the first wildcard entry of al that is too broad by the list at
 * path: the error names the entry and the rule, *bad is the entry's index
 * in al.  The file is opened only when al has a wildcard entry; when it
 * cannot be read (or is not a list), the first wildcard is refused and the
 * error names the file.  With cache_dir (NULL: none) the list is judged
 * by its compiled form, kept there (suffix_cache.h), and read only to
 * compile it or to name the rule of a refusal. */
int public_suffix_check (const struct allowlist *al, const char *path,
                         const char *cache_dir, size_t *bad,
                         agentrt_error_t *err);

#endif
