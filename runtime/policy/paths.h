/* Lexical path operations for the hardening step: cleaning, joining,
 * ancestry, component-sequence search and `*` patterns.  Strings only: no
 * symlink is resolved here (the host view does that for host paths). */
#ifndef AGENTRT_POLICY_PATHS_H
#define AGENTRT_POLICY_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* An absolute path with "//", "." and ".." folded (".." stops at "/") and
 * no trailing '/'.  A relative path is returned as a copy.  malloc'd. */
char *path_clean (const char *path);

/* dir + "/" + rel, without doubling the '/' when dir is "/". */
char *path_join (const char *dir, const char *rel);

/* Is `path` equal to `base` or below it?  Both clean. */
bool path_is_under (const char *path, const char *base);

/* Does the component sequence `rel` ("a/b") occur in `path`, starting at
 * a component boundary?  ends_only: only as the last components. */
bool path_has_components (const char *path, const char *rel, bool ends_only);

enum path_relation
{
  PATH_UNRELATED,
  PATH_MATCH,  /* path matches the pattern exactly */
  PATH_BELOW,  /* path is below something the pattern matches */
  PATH_ABOVE,  /* path is an ancestor of what the pattern matches */
};

/* Does the component (not NUL-terminated) hold a glob character? */
bool path_is_pattern (const char *s, size_t len);

/* Does the component `name` match the component `pattern` (fnmatch, a
 * leading dot matched only by a leading dot; plain text compares
 * exactly)? */
bool path_component_match (const char *pattern, size_t plen,
                           const char *name, size_t nlen);

/* Relates a clean absolute path to a pattern whose components may be
 * globs ("*", "ssh-*"), each matching one component.  For PATH_ABOVE, *rest points into the pattern at
 * the components below path (they may contain `*`). */
enum path_relation path_relate (const char *path, const char *pattern,
                                const char **rest);

#endif
