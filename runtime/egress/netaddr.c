/* Strict host/IP/port parsing and address classification (see netaddr.h).
 * The parsers refuse every form that some resolver or URL library reads
 * differently from the dotted quad, because a proxy that checks one
 * reading and connects to another is the classic allowlist bypass. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "netaddr.h"

static bool
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

static bool
is_hex (char c)
{
  return is_digit (c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static char
lower (char c)
{
  return (c >= 'A' && c <= 'Z') ? (char) (c - 'A' + 'a') : c;
}

bool
netaddr_parse_ipv4 (const char *s, size_t len, struct netaddr *out)
{
  size_t i = 0;

  memset (out, 0, sizeof (*out));
  out->family = AF_INET;
  for (int part = 0; part < 4; part++)
    {
      size_t start = i;
      unsigned v = 0;

      if (part > 0)
        {
          if (i >= len || s[i] != '.')
            return false;
          start = ++i;
        }
      while (i < len && is_digit (s[i]) && i - start < 3)
        v = v * 10 + (unsigned) (s[i++] - '0');
      if (i == start || v > 255 || (s[start] == '0' && i - start > 1))
        return false;
      out->bytes[part] = (uint8_t) v;
    }
  return i == len;
}

bool
netaddr_parse_ipv6 (const char *s, size_t len, struct netaddr *out)
{
  char buf[INET6_ADDRSTRLEN];

  if (len == 0 || len >= sizeof (buf))
    return false;
  for (size_t i = 0; i < len; i++)
    if (!is_hex (s[i]) && s[i] != ':' && s[i] != '.')
      return false;
  memcpy (buf, s, len);
  buf[len] = '\0';
  memset (out, 0, sizeof (*out));
  out->family = AF_INET6;
  return inet_pton (AF_INET6, buf, out->bytes) == 1;
}

bool
port_parse (const char *s, size_t len, uint16_t *out)
{
  unsigned v = 0;

  if (len == 0 || len > 5)
    return false;
  for (size_t i = 0; i < len; i++)
    {
      if (!is_digit (s[i]))
        return false;
      v = v * 10 + (unsigned) (s[i] - '0');
    }
  if (v == 0 || v > 65535)
    return false;
  *out = (uint16_t) v;
  return true;
}

/* The URL standard's "ends in a number" rule: a last label of digits, or of
 * 0x and hex digits, makes the whole host an IPv4 address to WHATWG
 * parsers and to inet_aton; anything but a canonical dotted quad is then
 * ambiguous. */
static bool
last_label_numeric (const char *s, size_t len)
{
  size_t start = len;

  while (start > 0 && s[start - 1] != '.')
    start--;
  if (start == len)
    return false;
  if (len - start >= 2 && s[start] == '0' && lower (s[start + 1]) == 'x')
    {
      for (size_t i = start + 2; i < len; i++)
        if (!is_hex (s[i]))
          return false;
      return true;
    }
  for (size_t i = start; i < len; i++)
    if (!is_digit (s[i]))
      return false;
  return true;
}

static const char *
name_parse (const char *s, size_t len, struct host *out)
{
  size_t label = 0;

  if (len > HOST_NAME_MAX_LEN)
    return "host-too-long";
  for (size_t i = 0; i < len; i++)
    {
      char c = s[i];

      if (c == '.')
        {
          if (label == 0 || s[i - 1] == '-')
            return "bad-host";
          label = 0;
        }
      else if (is_digit (c) || (lower (c) >= 'a' && lower (c) <= 'z')
               || c == '_' || c == '-')
        {
          if ((label == 0 && c == '-') || ++label > 63)
            return "bad-host";
        }
      else
        return c == '%' ? "ipv6-zone-id" : "bad-host";
      out->name[i] = lower (c);
    }
  if (label == 0 || s[len - 1] == '-')
    return "bad-host";
  out->name[len] = '\0';
  return NULL;
}

const char *
host_parse (const char *s, size_t len, bool brackets, struct host *out)
{
  memset (out, 0, sizeof (*out));
  if (len == 0)
    return "empty-host";
  if (s[0] == '[')
    {
      if (!brackets || len < 3 || s[len - 1] != ']')
        return "bad-host";
      if (memchr (s, '%', len))
        return "ipv6-zone-id";
      if (!netaddr_parse_ipv6 (s + 1, len - 2, &out->addr))
        return "bad-ipv6";
      out->is_addr = true;
      return NULL;
    }
  if (len > 1 && s[len - 1] == '.')
    len--;
  if (memchr (s, ':', len))
    return memchr (s, '%', len) ? "ipv6-zone-id" : "bad-host";
  if (last_label_numeric (s, len))
    {
      if (!netaddr_parse_ipv4 (s, len, &out->addr))
        return "numeric-ip-form";
      out->is_addr = true;
      return NULL;
    }
  return name_parse (s, len, out);
}

static enum addr_class
classify_v4 (const uint8_t *b)
{
  if (b[0] == 0)
    return (b[1] | b[2] | b[3]) ? ADDR_THIS_NETWORK : ADDR_UNSPECIFIED;
  if (b[0] == 10 || (b[0] == 172 && (b[1] & 0xf0) == 16)
      || (b[0] == 192 && b[1] == 168))
    return ADDR_PRIVATE;
  if (b[0] == 100 && (b[1] & 0xc0) == 64)
    return ADDR_CGNAT;
  if (b[0] == 127)
    return ADDR_LOOPBACK;
  if (b[0] == 169 && b[1] == 254)
    return ADDR_LINK_LOCAL;
  if ((b[0] & 0xf0) == 224)
    return ADDR_MULTICAST;
  if (b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255)
    return ADDR_BROADCAST;
  if ((b[0] & 0xf0) == 240)
    return ADDR_RESERVED;
  return ADDR_PUBLIC;
}

static bool
all_zero (const uint8_t *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (b[i])
      return false;
  return true;
}

/* ::/8 holds the unspecified and loopback addresses, the IPv4-mapped,
 * IPv4-translated and deprecated IPv4-compatible forms; all of them are
 * judged by the IPv4 address they embed. */
static enum addr_class
classify_v6_zero_block (const uint8_t *b)
{
  static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
  static const uint8_t translated[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0 };
  enum addr_class c;

  if (memcmp (b, mapped, 12) == 0 || memcmp (b, translated, 12) == 0)
    return classify_v4 (b + 12);
  if (!all_zero (b, 12))
    return ADDR_RESERVED;
  if (all_zero (b + 12, 4))
    return ADDR_UNSPECIFIED;
  if (all_zero (b + 12, 3) && b[15] == 1)
    return ADDR_LOOPBACK;
  c = classify_v4 (b + 12);
  return c == ADDR_PUBLIC ? ADDR_RESERVED : c;
}

static enum addr_class
classify_v6 (const uint8_t *b)
{
  static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0 };

  if (memcmp (b, nat64, 12) == 0)
    return classify_v4 (b + 12);
  if (memcmp (b, nat64, 4) == 0 && b[4] == 0 && b[5] == 1)
    return ADDR_PRIVATE; /* 64:ff9b:1::/48, local-use NAT64 */
  if (b[0] == 0)
    return classify_v6_zero_block (b);
  if (b[0] == 0xff)
    return ADDR_MULTICAST;
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
    return ADDR_LINK_LOCAL;
  if ((b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) || (b[0] & 0xfe) == 0xfc)
    return ADDR_PRIVATE; /* deprecated site-local, unique local */
  if (b[0] == 0x20 && b[1] == 0x02)
    return classify_v4 (b + 2); /* 6to4 */
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0)
    return ADDR_RESERVED; /* Teredo: a tunnel to an address we cannot see */
  if (b[0] == 0x01 && b[1] == 0 && all_zero (b + 2, 6))
    return ADDR_RESERVED; /* 100::/64, discard-only */
  if ((b[0] & 0xe0) != 0x20)
    return ADDR_RESERVED; /* outside global unicast 2000::/3 */
  return ADDR_PUBLIC;
}

enum addr_class
netaddr_classify (const struct netaddr *a)
{
  return a->family == AF_INET ? classify_v4 (a->bytes) : classify_v6 (a->bytes);
}

const char *
addr_class_name (enum addr_class c)
{
  static const char *const names[] = {
    [ADDR_PUBLIC] = "public",         [ADDR_UNSPECIFIED] = "unspecified",
    [ADDR_THIS_NETWORK] = "this-network", [ADDR_LOOPBACK] = "loopback",
    [ADDR_LINK_LOCAL] = "link-local", [ADDR_PRIVATE] = "private",
    [ADDR_CGNAT] = "cgnat",           [ADDR_MULTICAST] = "multicast",
    [ADDR_BROADCAST] = "broadcast",   [ADDR_RESERVED] = "reserved",
  };
  return names[c];
}

bool
netaddr_in_prefix (const struct netaddr *a, const struct netaddr *net,
                   unsigned prefix)
{
  unsigned full = prefix / 8, rest = prefix % 8;

  if (a->family != net->family || prefix > (a->family == AF_INET ? 32u : 128u))
    return false;
  if (memcmp (a->bytes, net->bytes, full) != 0)
    return false;
  if (rest == 0)
    return true;
  uint8_t mask = (uint8_t) (0xff << (8 - rest));
  return (a->bytes[full] & mask) == (net->bytes[full] & mask);
}

bool
netaddr_equal (const struct netaddr *a, const struct netaddr *b)
{
  return a->family == b->family
         && memcmp (a->bytes, b->bytes, a->family == AF_INET ? 4 : 16) == 0;
}

void
netaddr_format (const struct netaddr *a, char *buf)
{
  if (inet_ntop (a->family, a->bytes, buf, NETADDR_STR_LEN) == NULL)
    strcpy (buf, "?");
}

void
host_format (const struct host *h, bool brackets, char *buf)
{
  if (!h->is_addr)
    {
      strcpy (buf, h->name);
      return;
    }
  if (brackets && h->addr.family == AF_INET6)
    {
      buf[0] = '[';
      netaddr_format (&h->addr, buf + 1);
      strcat (buf, "]");
      return;
    }
  netaddr_format (&h->addr, buf);
}

socklen_t
netaddr_to_sockaddr (const struct netaddr *a, uint16_t port,
                     struct sockaddr_storage *ss)
{
  memset (ss, 0, sizeof (*ss));
  if (a->family == AF_INET)
    {
      struct sockaddr_in *sin = (struct sockaddr_in *) ss;
      sin->sin_family = AF_INET;
      sin->sin_port = htons (port);
      memcpy (&sin->sin_addr, a->bytes, 4);
      return sizeof (*sin);
    }
  struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) ss;
  sin6->sin6_family = AF_INET6;
  sin6->sin6_port = htons (port);
  memcpy (&sin6->sin6_addr, a->bytes, 16);
  return sizeof (*sin6);
}
