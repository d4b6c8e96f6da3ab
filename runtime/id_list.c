/* CPU and node lists into bitmaps (see id_list.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "runtime/id_list.h"

/* A decimal number at *p (digits only: no sign, no space), advancing *p;
 * a huge one saturates at ULONG_MAX. */
static int
read_number (const char **p, unsigned long *out)
{
  unsigned long v = 0;
  const char *s = *p;

  if (*s < '0' || *s > '9')
    return -EINVAL;
  for (; *s >= '0' && *s <= '9'; s++)
    v = v > (ULONG_MAX - 9) / 10 ? ULONG_MAX
                                 : v * 10 + (unsigned long) (*s - '0');
  *p = s;
  *out = v;
  return 0;
}

int
id_list_parse (const char *list, unsigned long *bits, size_t nbits,
               unsigned long *too_big)
{
  const char *p = list;

  memset (bits, 0, nbits / 8);
  if (*p == '\0')
    return 0;
  for (;;)
    {
      unsigned long a, b;

      if (read_number (&p, &a) < 0)
        return -EINVAL;
      b = a;
      if (*p == '-' && (p++, read_number (&p, &b) < 0))
        return -EINVAL;
      if (b < a || (*p != ',' && *p != '\0'))
        return -EINVAL;
      if (b >= nbits)
        {
          if (too_big)
            *too_big = b;
          return -ERANGE;
        }
      for (; a <= b; a++)
        bits[a / ID_LIST_WORD_BITS] |= 1UL << (a % ID_LIST_WORD_BITS);
      if (*p == '\0')
        return 0;
      p++; /* the ',' */
    }
}
