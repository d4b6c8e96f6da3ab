/* Punycode encoding of one label (see punycode.h), written from RFC 3492
 * section 6.3 with the parameters of section 5. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "punycode.h"

enum
{
  BASE = 36,
  TMIN = 1,
  TMAX = 26,
  SKEW = 38,
  DAMP = 700,
  INITIAL_BIAS = 72,
  INITIAL_N = 128,
};

/* Decodes the UTF-8 sequence at s[*i] into *cp, advancing *i; false on an
 * invalid or truncated sequence, an overlong form, a surrogate or a code
 * point past U+10FFFF. */
static bool
utf8_next (const unsigned char *s, size_t len, size_t *i, uint32_t *cp)
{
  unsigned char c = s[*i];
  uint32_t v, min;
  size_t n;

  if (c < 0x80)
    {
      *cp = c;
      (*i)++;
      return true;
    }
  if ((c & 0xe0) == 0xc0)
    n = 1, v = c & 0x1f, min = 0x80;
  else if ((c & 0xf0) == 0xe0)
    n = 2, v = c & 0x0f, min = 0x800;
  else if ((c & 0xf8) == 0xf0)
    n = 3, v = c & 0x07, min = 0x10000;
  else
    return false;
  if (len - *i <= n)
    return false;
  for (size_t k = 1; k <= n; k++)
    {
      if ((s[*i + k] & 0xc0) != 0x80)
        return false;
      v = (v << 6) | (s[*i + k] & 0x3f);
    }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
    return false;
  *cp = v;
  *i += n + 1;
  return true;
}

static char
digit (uint32_t d)
{
  return (char) (d < 26 ? 'a' + d : '0' + (d - 26));
}

static uint32_t
adapt (uint32_t delta, uint32_t numpoints, bool first)
{
  uint32_t k = 0;

  delta = first ? delta / DAMP : delta / 2;
  delta += delta / numpoints;
  while (delta > ((BASE - TMIN) * TMAX) / 2)
    {
      delta /= BASE - TMIN;
      k += BASE;
    }
  return k + (BASE - TMIN + 1) * delta / (delta + SKEW);
}

struct out
{
  char *buf;
  size_t len;
  bool full;
};

static void
emit (struct out *o, char c)
{
  if (o->len == PUNYCODE_LABEL_MAX)
    o->full = true;
  else
    o->buf[o->len++] = c;
}

/* The variable-length integer q with the current bias (section 6.3). */
static void
emit_number (struct out *o, uint32_t q, uint32_t bias)
{
  for (uint32_t k = BASE;; k += BASE)
    {
      uint32_t t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
      if (q < t)
        break;
      emit (o, digit (t + (q - t) % (BASE - t)));
      q = (q - t) / (BASE - t);
    }
  emit (o, digit (q));
}

/* The encoding proper, after "xn--"; false on overflow. */
static bool
encode (const uint32_t *cps, size_t n_cp, struct out *o)
{
  uint32_t n = INITIAL_N, delta = 0, bias = INITIAL_BIAS;
  size_t b = 0, h;

  for (size_t i = 0; i < n_cp; i++)
    if (cps[i] < 0x80)
      {
        emit (o, (char) cps[i]);
        b++;
      }
  if (b > 0)
    emit (o, '-');
  for (h = b; h < n_cp && !o->full;)
    {
      uint32_t m = UINT32_MAX;
      for (size_t i = 0; i < n_cp; i++)
        if (cps[i] >= n && cps[i] < m)
          m = cps[i];
      if (m - n > (UINT32_MAX - delta) / (h + 1))
        return false;
      delta += (m - n) * (uint32_t) (h + 1);
      n = m;
      for (size_t i = 0; i < n_cp; i++)
        {
          if (cps[i] < n && ++delta == 0)
            return false;
          if (cps[i] == n)
            {
              emit_number (o, delta, bias);
              bias = adapt (delta, (uint32_t) h + 1, h == b);
              delta = 0;
              h++;
            }
        }
      delta++;
      n++;
    }
  return true;
}

bool
punycode_label (const char *in, size_t len, char *out)
{
  const unsigned char *s = (const unsigned char *) in;
  uint32_t cps[PUNYCODE_LABEL_MAX + 1];
  struct out o = { out, 0, false };
  size_t n_cp = 0, i = 0;
  bool ascii = true;

  if (len == 0)
    return false;
  while (i < len)
    {
      if (n_cp == sizeof (cps) / sizeof (*cps)
          || !utf8_next (s, len, &i, &cps[n_cp]))
        return false;
      if (cps[n_cp] < 0x20 || cps[n_cp] == 0x7f)
        return false;
      ascii = ascii && cps[n_cp] < 0x80;
      n_cp++;
    }
  if (ascii)
    {
      if (len > PUNYCODE_LABEL_MAX)
        return false;
      memcpy (out, in, len);
      out[len] = '\0';
      return true;
    }
  for (const char *p = "xn--"; *p; p++)
    emit (&o, *p);
  if (!encode (cps, n_cp, &o) || o.full)
    return false;
  out[o.len] = '\0';
  return true;
}
