/* A minimal unit-test harness: each test is a function; a failed CHECK
 * prints file:line and the expression and marks the run as failed.  The
 * program's exit status is what automake's test driver reads. */
#ifndef AGENTRT_UNIT_H
#define AGENTRT_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failures;
static const char *unit_current;

#define CHECK(expr)                                                         \
  do                                                                        \
    {                                                                       \
      if (!(expr))                                                          \
        {                                                                   \
          fprintf (stderr, "%s:%d: %s: check failed: %s\n", __FILE__,       \
                   __LINE__, unit_current, #expr);                          \
          unit_failures++;                                                  \
        }                                                                   \
    }                                                                       \
  while (0)

#define CHECK_STR_EQ(a, b)                                                  \
  do                                                                        \
    {                                                                       \
      const char *unit_a_ = (a), *unit_b_ = (b);                            \
      if (unit_a_ == NULL || unit_b_ == NULL || strcmp (unit_a_, unit_b_))  \
        {                                                                   \
          fprintf (stderr, "%s:%d: %s: \"%s\" != \"%s\"\n", __FILE__,       \
                   __LINE__, unit_current, unit_a_ ? unit_a_ : "(null)",    \
                   unit_b_ ? unit_b_ : "(null)");                           \
          unit_failures++;                                                  \
        }                                                                   \
    }                                                                       \
  while (0)

/* Checks that haystack contains needle (error messages name their field). */
#define CHECK_CONTAINS(haystack, needle)                                    \
  do                                                                        \
    {                                                                       \
      const char *unit_h_ = (haystack), *unit_n_ = (needle);                \
      if (unit_h_ == NULL || strstr (unit_h_, unit_n_) == NULL)             \
        {                                                                   \
          fprintf (stderr, "%s:%d: %s: \"%s\" does not contain \"%s\"\n",   \
                   __FILE__, __LINE__, unit_current,                        \
                   unit_h_ ? unit_h_ : "(null)", unit_n_);                  \
          unit_failures++;                                                  \
        }                                                                   \
    }                                                                       \
  while (0)

#define RUN_TEST(fn)                                                        \
  do                                                                        \
    {                                                                       \
      unit_current = #fn;                                                   \
      fn ();                                                                \
    }                                                                       \
  while (0)

#define UNIT_EXIT()                                                         \
  (unit_failures ? (fprintf (stderr, "%d check(s) failed\n", unit_failures), \
                    EXIT_FAILURE)                                           \
                 : EXIT_SUCCESS)

#endif
