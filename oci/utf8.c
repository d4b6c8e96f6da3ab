/* UTF-8 validation (utf8.h). */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "utf8.h"

size_t
utf8_sequence (const unsigned char *s, size_t n)
{
  uint32_t cp;
  size_t len;

  if (s[0] < 0x80)
    return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    len = 2, cp = s[0] & 0x1f;
  else if (s[0] >= 0xe0 && s[0] <= 0xef)
    len = 3, cp = s[0] & 0x0f;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4)
    len = 4, cp = s[0] & 0x07;
  else
    return 0;
  if (len > n)
    return 0;
  for (size_t i = 1; i < len; i++)
    {
      if ((s[i] & 0xc0) != 0x80)
        return 0;
      cp = (cp << 6) | (s[i] & 0x3f);
    }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
      || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
    return 0;
  return len;
}

bool
utf8_valid (const char *s, size_t n)
{
  const unsigned char *p = (const unsigned char *) s;

  for (size_t i = 0; i < n;)
    {
      uint64_t word;
      size_t len;

      /* ASCII runs eight bytes at a time. */
      if (n - i >= 8 && (memcpy (&word, p + i, 8), (word & 0x8080808080808080ULL) == 0))
        {
          i += 8;
          continue;
        }
      if (p[i] < 0x80)
        {
          i++;
          continue;
        }
      len = utf8_sequence (p + i, n - i);
      if (len == 0)
        return false;
      i += len;
    }
  return true;
}
