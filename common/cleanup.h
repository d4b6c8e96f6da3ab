/* Cleanup attributes for local resources, and the helpers that hand
 * ownership out of a scope (steal_pointer, steal_fd). */
#ifndef AGENTRT_CLEANUP_H
#define AGENTRT_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"

static inline void
cleanup_free_fn (void *p)
{
  void **pp = (void **) p;
  free (*pp);
}

static inline void
cleanup_close_fn (int *fd)
{
  if (*fd >= 0)
    {
      int saved = errno;
      close (*fd);
      errno = saved;
    }
}

static inline void
cleanup_file_fn (FILE **f)
{
  if (*f)
    fclose (*f);
}

static inline void
cleanup_dir_fn (DIR **d)
{
  if (*d)
    closedir (*d);
}

static inline void
cleanup_error_fn (agentrt_error_t *err)
{
  agentrt_error_release (err);
}

#define cleanup_free __attribute__ ((cleanup (cleanup_free_fn)))
#define cleanup_close __attribute__ ((cleanup (cleanup_close_fn)))
#define cleanup_file __attribute__ ((cleanup (cleanup_file_fn)))
#define cleanup_dir __attribute__ ((cleanup (cleanup_dir_fn)))
#define cleanup_error __attribute__ ((cleanup (cleanup_error_fn)))

static inline void *
steal_pointer_fn (void *pp)
{
  void **p = (void **) pp;
  void *v = *p;
  *p = NULL;
  return v;
}
#define steal_pointer(pp) ((__typeof__ (*(pp))) steal_pointer_fn (pp))

static inline int
steal_fd (int *fd)
{
  int v = *fd;
  *fd = -1;
  return v;
}

#endif
