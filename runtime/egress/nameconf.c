/* resolv.conf and hosts-file parsing (see nameconf.h).  Lines are split
 * on blanks; `#` (and `;` in resolv.conf) start comments; anything that
 * does not parse strictly is skipped, never guessed at. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "nameconf.h"

struct words
{
  const char *w[16];
  size_t len[16];
  size_t n;
};

/* NUL counts as a blank: the text is not a C string. */
static bool
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\0';
}

static bool
is_comment (char c, const char *comments)
{
  return c != '\0' && strchr (comments, c) != NULL;
}

/* Splits the line starting at text[*pos] into words and moves *pos to the
 * next line; returns 0 at the end of the text. */
static int
next_line (const char *text, size_t len, size_t *pos, const char *comments,
           struct words *ws)
{
  size_t p = *pos;
  bool comment = false;

  if (p >= len)
    return 0;
  ws->n = 0;
  while (p < len && text[p] != '\n')
    {
      size_t start = p;

      comment = comment || is_comment (text[p], comments);
      if (comment || is_blank (text[p]))
        {
          p++;
          continue;
        }
      while (p < len && text[p] != '\n' && !is_blank (text[p])
             && !is_comment (text[p], comments))
        p++;
      if (ws->n < 16)
        {
          ws->w[ws->n] = text + start;
          ws->len[ws->n++] = p - start;
        }
    }
  *pos = p + 1;
  return 1;
}

static bool
word_is (const struct words *ws, size_t i, const char *s)
{
  return ws->len[i] == strlen (s) && memcmp (ws->w[i], s, ws->len[i]) == 0;
}

static unsigned
option_value (const char *s, size_t len, unsigned lo, unsigned hi, unsigned dflt)
{
  unsigned v = 0;

  if (len == 0 || len > 3)
    return dflt;
  for (size_t i = 0; i < len; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return dflt;
      v = v * 10 + (unsigned) (s[i] - '0');
    }
  return v < lo ? lo : v > hi ? hi : v;
}

static bool
parse_addr (const char *s, size_t len, struct netaddr *a)
{
  return netaddr_parse_ipv4 (s, len, a) || netaddr_parse_ipv6 (s, len, a);
}

void
resolv_conf_parse (const char *text, size_t len, struct resolv_conf *rc)
{
  struct words ws;
  size_t pos = 0;

  memset (rc, 0, sizeof (*rc));
  rc->timeout_s = 5;
  rc->attempts = 2;
  while (next_line (text, len, &pos, "#;", &ws))
    {
      if (ws.n >= 2 && word_is (&ws, 0, "nameserver"))
        {
          if (rc->nns < RESOLV_MAX_NS && parse_addr (ws.w[1], ws.len[1], &rc->ns[rc->nns]))
            rc->nns++;
          continue;
        }
      if (ws.n < 2 || !word_is (&ws, 0, "options"))
        continue;
      for (size_t i = 1; i < ws.n; i++)
        {
          if (ws.len[i] > 8 && memcmp (ws.w[i], "timeout:", 8) == 0)
            rc->timeout_s = option_value (ws.w[i] + 8, ws.len[i] - 8, 1, 30, rc->timeout_s);
          else if (ws.len[i] > 9 && memcmp (ws.w[i], "attempts:", 9) == 0)
            rc->attempts = option_value (ws.w[i] + 9, ws.len[i] - 9, 1, 5, rc->attempts);
        }
    }
  if (rc->nns == 0)
    {
      netaddr_parse_ipv4 ("127.0.0.1", 9, &rc->ns[0]);
      rc->nns = 1;
    }
}

static bool
name_is (const char *w, size_t wlen, const char *name)
{
  size_t nlen = strlen (name);

  if (wlen > 1 && w[wlen - 1] == '.')
    wlen--;
  return wlen == nlen && strncasecmp (w, name, nlen) == 0;
}

size_t
hosts_lookup (const char *text, size_t len, const char *name, struct netaddr *out,
              size_t max)
{
  static const int families[] = { AF_INET, AF_INET6 };
  size_t n = 0;

  for (int f = 0; f < 2; f++)
    {
      struct words ws;
      size_t pos = 0;

      while (n < max && next_line (text, len, &pos, "#", &ws))
        {
          struct netaddr a;

          if (ws.n < 2 || !parse_addr (ws.w[0], ws.len[0], &a) || a.family != families[f])
            continue;
          for (size_t i = 1; i < ws.n; i++)
            if (name_is (ws.w[i], ws.len[i], name))
              {
                bool dup = false;
                for (size_t k = 0; k < n; k++)
                  dup |= netaddr_equal (&out[k], &a);
                if (!dup)
                  out[n++] = a;
                break;
              }
        }
    }
  return n;
}
