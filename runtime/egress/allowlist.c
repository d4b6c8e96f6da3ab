/* Allowlist parsing and matching (see allowlist.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "allowlist.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#define ALLOWLIST_MAX_ENTRIES 1024
#define ALLOWLIST_MAX_SPEC (64 * 1024)

/* "ADDR" or "ADDR/PREFIX" (v4 dotted quad or v6), host bits clear. */
static const char *
parse_net (const char *s, size_t len, bool v6, struct allow_entry *e)
{
  const char *slash = memchr (s, '/', len);
  size_t alen = slash ? (size_t) (slash - s) : len;
  unsigned max;
  bool ok = v6 ? netaddr_parse_ipv6 (s, alen, &e->net)
               : netaddr_parse_ipv4 (s, alen, &e->net);

  if (!ok)
    return memchr (s, '%', len) ? "IPv6 zone ids are not allowed"
                                : "not a valid IP address";
  max = v6 ? 128 : 32;
  e->prefix = max;
  if (slash)
    {
      const char *p = slash + 1;
      size_t plen = len - alen - 1;
      unsigned v = 0;

      if (plen == 0 || plen > 3 || (p[0] == '0' && plen > 1))
        return "bad CIDR prefix length";
      for (size_t i = 0; i < plen; i++)
        {
          if (p[i] < '0' || p[i] > '9')
            return "bad CIDR prefix length";
          v = v * 10 + (unsigned) (p[i] - '0');
        }
      if (v > max)
        return "bad CIDR prefix length";
      e->prefix = v;
      for (unsigned bit = v; bit < max; bit++)
        if (e->net.bytes[bit / 8] & (0x80 >> (bit % 8)))
          return "CIDR has host bits set";
    }
  e->kind = ALLOW_NET;
  return NULL;
}

static const char *
parse_port (const char *s, size_t len, struct allow_entry *e)
{
  return port_parse (s, len, &e->port) ? NULL : "bad port (1-65535)";
}

/* "[v6]", "[v6]:port", "[v6/len]", "[v6/len]:port". */
static const char *
parse_bracketed (const char *s, size_t len, struct allow_entry *e)
{
  const char *close = memchr (s, ']', len);
  const char *why;
  size_t inner;

  if (close == NULL)
    return "missing `]`";
  inner = (size_t) (close - s) - 1;
  why = parse_net (s + 1, inner, true, e);
  if (why)
    return why;
  if ((size_t) (close - s) + 1 == len)
    return NULL;
  if (close[1] != ':')
    return "unexpected text after `]`";
  return parse_port (close + 2, len - inner - 3, e);
}

static const char *
parse_name (const char *s, size_t len, bool allow_broad, struct allow_entry *e)
{
  struct host h;
  bool wildcard = len >= 2 && s[0] == '*' && s[1] == '.';
  const char *why;

  if (len == 1 && s[0] == '*')
    {
      if (!allow_broad)
        return "too broad (`*` allows everything)";
      e->kind = ALLOW_ANY;
      return NULL;
    }
  if (wildcard)
    {
      s += 2;
      len -= 2;
    }
  if (memchr (s, '*', len))
    return "a wildcard is only allowed as a leading `*.`";
  if (memchr (s, '/', len))
    return wildcard ? "a wildcard cannot apply to a CIDR"
                    : parse_net (s, len, false, e);
  why = host_parse (s, len, false, &h);
  if (why)
    return why;
  if (h.is_addr)
    {
      if (wildcard)
        return "a wildcard cannot apply to an IP address";
      e->kind = ALLOW_NET;
      e->net = h.addr;
      e->prefix = 32;
      return NULL;
    }
  if (wildcard && !allow_broad && strchr (h.name, '.') == NULL)
    return "too broad (wildcard over a top-level domain)";
  e->kind = wildcard ? ALLOW_SUFFIX : ALLOW_NAME;
  e->name = xstrdup (h.name);
  return NULL;
}

static const char *
parse_entry_syntax (const char *s, size_t len, bool allow_broad,
                    struct allow_entry *e)
{
  const char *colon = memchr (s, ':', len);
  const char *why;

  if (len == 0)
    return "empty entry";
  if (s[0] == '[')
    return parse_bracketed (s, len, e);
  if (colon && memchr (colon + 1, ':', len - (size_t) (colon - s) - 1))
    return parse_net (s, len, true, e); /* bare IPv6, no port */
  if (colon == NULL)
    return parse_name (s, len, allow_broad, e);
  why = parse_name (s, (size_t) (colon - s), allow_broad, e);
  if (why)
    return why;
  return parse_port (colon + 1, len - (size_t) (colon - s) - 1, e);
}

/* IPv4 written as IPv6 (::ffff:0.0.0.0/96 is the IPv4 internet) is as
 * broad as the IPv4 network it spans. */
bool
allowlist_entry_broad (const struct allow_entry *e)
{
  unsigned v4;

  if (e->kind == ALLOW_ANY)
    return true;
  if (e->kind != ALLOW_NET)
    return false;
  if (e->net.family == AF_INET)
    return e->prefix < ALLOWLIST_MIN_PREFIX_V4;
  if (netaddr_ipv4_span (&e->net, e->prefix, &v4))
    return v4 < ALLOWLIST_MIN_PREFIX_V4;
  return e->prefix < ALLOWLIST_MIN_PREFIX_V6;
}

static const char *
parse_entry (const char *s, size_t len, bool allow_broad, struct allow_entry *e)
{
  const char *why;

  memset (e, 0, sizeof (*e));
  why = parse_entry_syntax (s, len, allow_broad, e);
  if (why || allow_broad || e->kind != ALLOW_NET || !allowlist_entry_broad (e))
    return why;
  return e->net.family == AF_INET || e->prefix >= ALLOWLIST_MIN_PREFIX_V6
             ? "too broad (a CIDR wider than /16 of IPv4)"
             : "too broad (a CIDR wider than /48)";
}

void
allowlist_free (struct allowlist *al)
{
  if (al == NULL)
    return;
  for (size_t i = 0; i < al->n; i++)
    free (al->entries[i].name);
  free (al->entries);
  free (al);
}

static void
cleanup_allowlist_fn (struct allowlist **al)
{
  allowlist_free (*al);
}

static bool
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

int
allowlist_parse (const char *spec, bool allow_broad, struct allowlist **out,
                 agentrt_error_t *err)
{
  __attribute__ ((cleanup (cleanup_allowlist_fn))) struct allowlist *al
      = xzalloc (sizeof (*al));
  const char *p = spec, *end = spec + strlen (spec);

  if (end - spec > ALLOWLIST_MAX_SPEC)
    return agentrt_error (err, EINVAL, "egress allowlist: longer than %d bytes",
                          ALLOWLIST_MAX_SPEC);
  while (p < end && is_blank (*p))
    p++;
  while (p < end)
    {
      const char *comma = memchr (p, ',', (size_t) (end - p));
      const char *stop = comma ? comma : end, *s = p, *why;
      size_t len;

      while (s < stop && is_blank (*s))
        s++;
      len = (size_t) (stop - s);
      while (len > 0 && is_blank (s[len - 1]))
        len--;
      if (al->n == ALLOWLIST_MAX_ENTRIES)
        return agentrt_error (err, EINVAL, "egress allowlist: more than %d entries",
                              ALLOWLIST_MAX_ENTRIES);
      al->entries = xreallocarray (al->entries, al->n + 1, sizeof (*al->entries));
      why = parse_entry (s, len, allow_broad, &al->entries[al->n]);
      if (why)
        {
          free (al->entries[al->n].name); /* set before a bad port was seen */
          return agentrt_error (err, EINVAL, "egress allowlist entry `%.*s` (#%zu): %s",
                                (int) (len > 200 ? 200 : len), s, al->n + 1, why);
        }
      al->n++;
      p = comma ? comma + 1 : end;
      if (comma && p == end)
        return agentrt_error (err, EINVAL, "egress allowlist: empty entry after the last `,`");
    }
  *out = steal_pointer (&al);
  return 0;
}

static bool
port_ok (const struct allow_entry *e, uint16_t port)
{
  return e->port ? e->port == port : (port == 80 || port == 443);
}

/* Is addr:port within an IP or CIDR entry? */
static bool
net_listed (const struct allowlist *al, const struct netaddr *addr,
            uint16_t port)
{
  for (size_t i = 0; i < al->n; i++)
    {
      const struct allow_entry *e = &al->entries[i];
      if (e->kind == ALLOW_NET && port_ok (e, port)
          && netaddr_in_prefix (addr, &e->net, e->prefix))
        return true;
    }
  return false;
}

bool
allowlist_unlocks (const struct allowlist *al, const struct netaddr *addr,
                   uint16_t port)
{
  struct addr_block block;

  if (netaddr_classify_block (addr, &block) == ADDR_PUBLIC)
    return false;
  for (size_t i = 0; i < al->n; i++)
    {
      const struct allow_entry *e = &al->entries[i];
      if (e->kind == ALLOW_NET && port_ok (e, port) && !allowlist_entry_broad (e)
          && netaddr_in_prefix (addr, &e->net, e->prefix)
          && e->prefix >= block.prefix
          && netaddr_in_prefix (&e->net, &block.net, block.prefix))
        return true;
    }
  return false;
}

static bool
suffix_match (const char *name, size_t nlen, const char *suffix)
{
  size_t slen = strlen (suffix);
  return nlen > slen + 1 && name[nlen - slen - 1] == '.'
         && memcmp (name + nlen - slen, suffix, slen) == 0;
}

bool
allowlist_match_name (const struct allowlist *al, const char *host, uint16_t port)
{
  struct host h;
  size_t nlen;

  if (host_parse (host, strlen (host), true, &h) != NULL)
    return false;
  if (h.is_addr && net_listed (al, &h.addr, port))
    return true;
  nlen = strlen (h.name);
  for (size_t i = 0; i < al->n; i++)
    {
      const struct allow_entry *e = &al->entries[i];

      if (!port_ok (e, port))
        continue;
      if (e->kind == ALLOW_ANY)
        return true;
      if (h.is_addr)
        continue;
      if (e->kind == ALLOW_NAME && strcmp (e->name, h.name) == 0)
        return true;
      if (e->kind == ALLOW_SUFFIX && suffix_match (h.name, nlen, e->name))
        return true;
    }
  return false;
}
