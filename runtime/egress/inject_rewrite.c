/* Stand-ins replaced in request heads (see inject_rewrite.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "inject_rewrite.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int
b64_value (char c)
{
  const char *p = c ? strchr (b64, c) : NULL;
  return p ? (int) (p - b64) : -1;
}

long
inject_base64_decode (const char *src, size_t n, unsigned char *dst)
{
  size_t out = 0;

  if (n == 0 || n % 4)
    return -1;
  for (size_t i = 0; i < n; i += 4)
    {
      int v[4];
      size_t pad = 0;
      for (int k = 0; k < 4; k++)
        {
          if (src[i + k] == '=' && i + 4 == n && k >= 2)
            {
              v[k] = 0;
              pad++;
              continue;
            }
          if (pad || (v[k] = b64_value (src[i + k])) < 0)
            return -1;
        }
      dst[out++] = (unsigned char) (v[0] << 2 | v[1] >> 4);
      if (pad < 2)
        dst[out++] = (unsigned char) ((v[1] & 15) << 4 | v[2] >> 2);
      if (pad < 1)
        dst[out++] = (unsigned char) ((v[2] & 3) << 6 | v[3]);
    }
  return (long) out;
}

size_t
inject_base64_encode (const unsigned char *src, size_t n, char *dst)
{
  size_t out = 0;

  for (size_t i = 0; i < n; i += 3)
    {
      unsigned v = (unsigned) src[i] << 16 | (i + 1 < n ? (unsigned) src[i + 1] << 8 : 0)
                   | (i + 2 < n ? src[i + 2] : 0);
      dst[out++] = b64[v >> 18 & 63];
      dst[out++] = b64[v >> 12 & 63];
      dst[out++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
      dst[out++] = i + 2 < n ? b64[v & 63] : '=';
    }
  return out;
}

/* A growing output buffer, bounded by INJECT_HEAD_MAX. */
struct out
{
  char *p;
  size_t len;
  bool over;
};

static void
put (struct out *o, const void *s, size_t n)
{
  if (o->over || o->len + n > INJECT_HEAD_MAX)
    {
      o->over = true;
      return;
    }
  memcpy (o->p + o->len, s, n);
  o->len += n;
}

/* s[0..n) with every stand-in replaced (count them). */
static void
put_replaced (struct out *o, const char *s, size_t n, const struct inject_cred *c,
              unsigned *count)
{
  size_t sl = strlen (c->standin);

  while (n)
    {
      const char *hit = memmem (s, n, c->standin, sl);
      size_t before = hit ? (size_t) (hit - s) : n;

      put (o, s, before);
      if (hit == NULL)
        return;
      put (o, c->value, c->value_len);
      (*count)++;
      s += before + sl;
      n -= before + sl;
    }
}

static bool
name_is (const char *buf, const struct http_field *f, const char *name)
{
  return f->name_len == strlen (name) && strncasecmp (buf + f->line, name, f->name_len) == 0;
}

/* "Basic <base64>": the base64 span, or NULL. */
static const char *
basic_token (const char *v, size_t vlen, size_t *tlen)
{
  if (vlen < 7 || strncasecmp (v, "Basic ", 6) != 0)
    return NULL;
  v += 6, vlen -= 6;
  while (vlen && *v == ' ')
    v++, vlen--;
  *tlen = vlen;
  return vlen ? v : NULL;
}

/* Authorization: Basic with the stand-in inside user:password: written
 * with the value instead; false when it holds none (nothing written). */
static bool
put_basic (struct out *o, const char *line, size_t line_len, const char *tok, size_t tlen,
           const struct inject_cred *c, unsigned *count)
{
  unsigned char *plain = xmalloc (tlen / 4 * 3 + 1);
  long n = inject_base64_decode (tok, tlen, plain);
  unsigned before = *count;
  struct out r = { NULL, 0, false };
  char *enc;

  if (n <= 0 || memmem (plain, (size_t) n, c->standin, strlen (c->standin)) == NULL)
    {
      free (plain);
      return false;
    }
  r.p = xmalloc (INJECT_HEAD_MAX);
  put_replaced (&r, (const char *) plain, (size_t) n, c, count);
  explicit_bzero (plain, (size_t) n);
  free (plain);
  enc = xmalloc ((r.len + 2) / 3 * 4 + 1);
  n = (long) inject_base64_encode ((const unsigned char *) r.p, r.len, enc);
  put (o, line, (size_t) (tok - line));
  put (o, enc, (size_t) n);
  put (o, tok + tlen, line_len - (size_t) (tok + tlen - line));
  explicit_bzero (r.p, r.len);
  explicit_bzero (enc, (size_t) n);
  free (r.p);
  free (enc);
  o->over |= r.over;
  return *count > before;
}

char *
inject_rewrite (const char *buf, const struct http_head *h, const struct inject_cred *cred,
                size_t *out_len, unsigned *count)
{
  struct out o = { xmalloc (INJECT_HEAD_MAX), 0, false };
  size_t prev = 0;

  *count = 0;
  put (&o, buf, h->first_line_len + 2);
  prev = h->first_line_len + 2;
  for (unsigned i = 0; i < h->nfields; i++)
    {
      const struct http_field *f = &h->fields[i];
      const char *line = buf + f->line, *v, *tok;
      size_t vlen, tlen;

      put (&o, buf + prev, f->line - prev); /* nothing, for a well-formed head */
      prev = f->line + f->line_len + 2;
      v = http_field_value (buf, f, &vlen);
      if (name_is (buf, f, "Authorization") && (tok = basic_token (v, vlen, &tlen)) != NULL
          && put_basic (&o, line, f->line_len, tok, tlen, cred, count))
        ;
      else if (name_is (buf, f, cred->header))
        put_replaced (&o, line, f->line_len, cred, count);
      else
        put (&o, line, f->line_len);
      put (&o, "\r\n", 2);
    }
  put (&o, buf + prev, h->len - prev);
  if (o.over)
    {
      explicit_bzero (o.p, INJECT_HEAD_MAX);
      free (o.p);
      return NULL;
    }
  *out_len = o.len;
  return o.p;
}

const struct inject_cred *
inject_find_standin (const struct inject_set *s, const char *buf, size_t len,
                     const struct http_head *h)
{
  for (size_t i = 0; s && i < s->n; i++)
    {
      const struct inject_cred *c = &s->creds[i];
      if (memmem (buf, len, c->standin, strlen (c->standin)))
        return c;
      for (unsigned k = 0; h && k < h->nfields; k++)
        {
          const struct http_field *f = &h->fields[k];
          size_t vlen, tlen;
          const char *v = http_field_value (buf, f, &vlen), *tok;
          unsigned char *plain;
          long n;
          bool hit;

          if (!name_is (buf, f, "Authorization") || (tok = basic_token (v, vlen, &tlen)) == NULL)
            continue;
          plain = xmalloc (tlen / 4 * 3 + 1);
          n = inject_base64_decode (tok, tlen, plain);
          hit = n > 0 && memmem (plain, (size_t) n, c->standin, strlen (c->standin));
          free (plain);
          if (hit)
            return c;
        }
    }
  return NULL;
}
