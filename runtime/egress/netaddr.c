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

/* Are the first prefix bits of a and b equal? */
static bool
bits_equal (const uint8_t *a, const uint8_t *b, unsigned prefix)
{
  unsigned full = prefix / 8, rest = prefix % 8;

  if (memcmp (a, b, full) != 0)
    return false;
  if (rest == 0)
    return true;
  uint8_t mask = (uint8_t) (0xff << (8 - rest));
  return (a[full] & mask) == (b[full] & mask);
}

static bool
all_zero (const uint8_t *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (b[i])
      return false;
  return true;
}

/* The special-purpose blocks: every entry of the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (the globally reachable anycast
 * services too: no agent needs AS112 or a TURN anycast; the documentation
 * ranges too: not routed on the internet, what answers there is some
 * network's own), multicast, and
 * the metadata and platform endpoints of the clouds, which get blocks of
 * their own so that a CIDR entry for the link-local, CGNAT or ULA space
 * around them does not reach them.  The most specific block holding an
 * address decides.  IPv4 embedded in IPv6 is judged in classify_v6;
 * IPv6 outside 2000::/3 is reserved. */
struct special
{
  uint64_t hi, lo; /* the address, big-endian halves; IPv4 in hi's top */
  uint8_t prefix;
  uint8_t cls;
};

#define V4(a, b, c, d)                                                      \
  ((uint64_t) (a) << 56 | (uint64_t) (b) << 48 | (uint64_t) (c) << 40     \
   | (uint64_t) (d) << 32),                                                 \
      0
#define V6(a, b, c, d, e, f, g, h)                                          \
  ((uint64_t) (a) << 48 | (uint64_t) (b) << 32 | (uint64_t) (c) << 16     \
   | (uint64_t) (d)),                                                       \
      ((uint64_t) (e) << 48 | (uint64_t) (f) << 32 | (uint64_t) (g) << 16  \
       | (uint64_t) (h))

static const struct special v4_special[] = {
  { V4 (0, 0, 0, 0), 8, ADDR_THIS_NETWORK },
  { V4 (0, 0, 0, 0), 32, ADDR_UNSPECIFIED },
  { V4 (10, 0, 0, 0), 8, ADDR_PRIVATE },
  { V4 (100, 64, 0, 0), 10, ADDR_CGNAT },
  { V4 (100, 100, 100, 200), 32, ADDR_METADATA }, /* Alibaba Cloud */
  { V4 (127, 0, 0, 0), 8, ADDR_LOOPBACK },
  { V4 (168, 63, 129, 16), 32, ADDR_METADATA },   /* Azure WireServer */
  { V4 (169, 254, 0, 0), 16, ADDR_LINK_LOCAL },
  { V4 (169, 254, 0, 23), 32, ADDR_METADATA },    /* Tencent Cloud */
  { V4 (169, 254, 42, 42), 32, ADDR_METADATA },   /* Scaleway */
  { V4 (169, 254, 169, 123), 32, ADDR_METADATA }, /* AWS time sync */
  { V4 (169, 254, 169, 253), 32, ADDR_METADATA }, /* AWS DNS resolver */
  /* AWS, GCP, Azure, Oracle, OpenStack, DigitalOcean, Hetzner... IMDS */
  { V4 (169, 254, 169, 254), 32, ADDR_METADATA },
  { V4 (169, 254, 170, 2), 32, ADDR_METADATA },   /* AWS ECS credentials */
  { V4 (169, 254, 170, 23), 32, ADDR_METADATA },  /* AWS EKS Pod Identity */
  { V4 (172, 16, 0, 0), 12, ADDR_PRIVATE },
  /* IETF protocol assignments: DS-Lite, dummy, PCP and TURN anycast,
   * NAT64 discovery (192.0.0.0/29, .8, .9, .10, .170, .171) */
  { V4 (192, 0, 0, 0), 24, ADDR_PROTOCOL },
  { V4 (192, 0, 0, 192), 32, ADDR_METADATA },     /* Oracle Cloud */
  { V4 (192, 0, 2, 0), 24, ADDR_DOCUMENTATION },  /* TEST-NET-1 */
  { V4 (192, 31, 196, 0), 24, ADDR_PROTOCOL },    /* AS112-v4 */
  { V4 (192, 52, 193, 0), 24, ADDR_PROTOCOL },    /* AMT */
  { V4 (192, 88, 99, 0), 24, ADDR_PROTOCOL },     /* 6to4 relay anycast */
  { V4 (192, 168, 0, 0), 16, ADDR_PRIVATE },
  { V4 (192, 175, 48, 0), 24, ADDR_PROTOCOL },    /* AS112 delegation */
  { V4 (198, 18, 0, 0), 15, ADDR_BENCHMARKING },
  { V4 (198, 51, 100, 0), 24, ADDR_DOCUMENTATION }, /* TEST-NET-2 */
  { V4 (203, 0, 113, 0), 24, ADDR_DOCUMENTATION },  /* TEST-NET-3 */
  { V4 (224, 0, 0, 0), 4, ADDR_MULTICAST },
  { V4 (240, 0, 0, 0), 4, ADDR_RESERVED },
  { V4 (255, 255, 255, 255), 32, ADDR_BROADCAST },
};

static const struct special v6_special[] = {
  { V6 (0, 0, 0, 0, 0, 0, 0, 0), 128, ADDR_UNSPECIFIED },
  { V6 (0, 0, 0, 0, 0, 0, 0, 1), 128, ADDR_LOOPBACK },
  { V6 (0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48, ADDR_PRIVATE }, /* local NAT64 */
  { V6 (0x100, 0, 0, 0, 0, 0, 0, 0), 64, ADDR_RESERVED },    /* discard-only */
  { V6 (0x100, 0, 0, 1, 0, 0, 0, 0), 64, ADDR_RESERVED },    /* dummy prefix */
  /* IETF protocol assignments: PCP, TURN and DNS-SD anycast, AMT, AS112,
   * ORCHIDv2, drone DETs */
  { V6 (0x2001, 0, 0, 0, 0, 0, 0, 0), 23, ADDR_PROTOCOL },
  /* Teredo: a tunnel to an address we cannot see */
  { V6 (0x2001, 0, 0, 0, 0, 0, 0, 0), 32, ADDR_RESERVED },
  { V6 (0x2001, 2, 0, 0, 0, 0, 0, 0), 48, ADDR_BENCHMARKING },
  { V6 (0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, ADDR_DOCUMENTATION },
  { V6 (0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0), 48, ADDR_PROTOCOL }, /* AS112 */
  { V6 (0x3fff, 0, 0, 0, 0, 0, 0, 0), 20, ADDR_DOCUMENTATION },
  { V6 (0x5f00, 0, 0, 0, 0, 0, 0, 0), 16, ADDR_RESERVED },   /* SRv6 SIDs */
  { V6 (0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, ADDR_PRIVATE },     /* unique local */
  { V6 (0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x23), 128, ADDR_METADATA },  /* AWS EKS */
  { V6 (0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x123), 128, ADDR_METADATA }, /* AWS time */
  { V6 (0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x253), 128, ADDR_METADATA }, /* AWS DNS */
  { V6 (0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254), 128, ADDR_METADATA }, /* AWS IMDS */
  { V6 (0xfd00, 0x42, 0, 0, 0, 0, 0, 0x42), 128, ADDR_METADATA },   /* Scaleway */
  { V6 (0xfd00, 0xa9fe, 0xa9fe, 0, 0, 0, 0, 1), 128, ADDR_METADATA }, /* Linode */
  { V6 (0xfd00, 0xc1, 0, 0, 0, 0, 0xa9fe, 0xa9fe), 128, ADDR_METADATA }, /* Oracle */
  { V6 (0xfd20, 0xce, 0, 0, 0, 0, 0, 0x254), 128, ADDR_METADATA },  /* GCP */
  { V6 (0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, ADDR_LINK_LOCAL },
  { V6 (0xfe80, 0, 0, 0, 0, 0, 0xa9fe, 0xa9fe), 128, ADDR_METADATA }, /* OpenStack */
  { V6 (0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, ADDR_PRIVATE },    /* site-local */
  { V6 (0xff00, 0, 0, 0, 0, 0, 0, 0), 8, ADDR_MULTICAST },
};

/* An address as two big-endian halves (IPv4: in hi's top 32 bits). */
struct halves
{
  uint64_t hi, lo;
};

static struct halves
load (const uint8_t *b, size_t len)
{
  struct halves a = { 0, 0 };

  for (size_t i = 0; i < 8; i++)
    a.hi = (a.hi << 8) | (i < len ? b[i] : 0);
  for (size_t i = 8; i < 16; i++)
    a.lo = (a.lo << 8) | (i < len ? b[i] : 0);
  return a;
}

/* Are the first prefix bits of a those of hi, lo? */
static bool
halves_in (struct halves a, uint64_t hi, uint64_t lo, unsigned prefix)
{
  uint64_t mh = prefix == 0 ? 0 : prefix >= 64 ? ~(uint64_t) 0 : ~(uint64_t) 0 << (64 - prefix);
  uint64_t ml = prefix <= 64 ? 0 : prefix >= 128 ? ~(uint64_t) 0 : ~(uint64_t) 0 << (128 - prefix);

  return ((a.hi ^ hi) & mh) == 0 && ((a.lo ^ lo) & ml) == 0;
}

static void
special_bytes (const struct special *e, uint8_t out[16])
{
  for (size_t i = 0; i < 8; i++)
    {
      out[i] = (uint8_t) (e->hi >> (56 - 8 * i));
      out[8 + i] = (uint8_t) (e->lo >> (56 - 8 * i));
    }
}

/* The most specific block of table holding a, or NULL.  This runs for
 * every address of every connection: halves, not bytes. */
static const struct special *
lookup (const struct special *table, size_t n, struct halves a)
{
  const struct special *best = NULL;

  for (size_t i = 0; i < n; i++)
    if ((best == NULL || table[i].prefix > best->prefix)
        && halves_in (a, table[i].hi, table[i].lo, table[i].prefix))
      best = &table[i];
  return best;
}

static void
set_block (struct addr_block *blk, int family, const uint8_t *bytes,
           unsigned prefix)
{
  if (blk == NULL)
    return;
  memset (blk, 0, sizeof (*blk));
  blk->net.family = family;
  memcpy (blk->net.bytes, bytes, family == AF_INET ? 4 : 16);
  for (unsigned bit = prefix; bit < (family == AF_INET ? 32u : 128u); bit++)
    blk->net.bytes[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
  blk->prefix = prefix;
}

static enum addr_class
classify_v4 (const uint8_t *b, struct addr_block *blk)
{
  const struct special *s = lookup (v4_special, sizeof (v4_special) / sizeof (*v4_special),
                                    load (b, 4));
  uint8_t bytes[16];

  if (s == NULL)
    return ADDR_PUBLIC;
  special_bytes (s, bytes);
  set_block (blk, AF_INET, bytes, s->prefix);
  return s->cls;
}

/* The IPv4 address at byte `at` of the IPv6 address b: its class, and its
 * block's image in this IPv6 form. */
static enum addr_class
classify_embedded (const uint8_t *b, size_t at, struct addr_block *blk)
{
  struct addr_block v4;
  enum addr_class c = classify_v4 (b + at, &v4);
  uint8_t image[16] = { 0 };

  if (c != ADDR_PUBLIC)
    {
      memcpy (image, b, at);
      memcpy (image + at, v4.net.bytes, 4);
      set_block (blk, AF_INET6, image, (unsigned) at * 8 + v4.prefix);
    }
  return c;
}

/* The forms of IPv6 address that embed an IPv4 one, last 32 bits or
 * (6to4) the 32 after the prefix.  All but the deprecated compatible form
 * (::a.b.c.d) are judged by the IPv4 address they embed; classify_v6
 * judges that one apart. */
static const struct special ipv4_forms[] = {
  { V6 (0, 0, 0, 0, 0, 0xffff, 0, 0), 96, 0 },    /* mapped */
  { V6 (0, 0, 0, 0, 0xffff, 0, 0, 0), 96, 0 },    /* translated */
  { V6 (0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96, 0 }, /* NAT64 */
  { V6 (0x2002, 0, 0, 0, 0, 0, 0, 0), 16, 0 },    /* 6to4 */
  { V6 (0, 0, 0, 0, 0, 0, 0, 0), 96, 0 },         /* compatible */
};
#define N_IPV4_FORMS (sizeof (ipv4_forms) / sizeof (*ipv4_forms))

static bool
embeds_ipv4 (struct halves a, size_t *at)
{
  for (size_t i = 0; i + 1 < N_IPV4_FORMS; i++)
    if (halves_in (a, ipv4_forms[i].hi, ipv4_forms[i].lo, ipv4_forms[i].prefix))
      {
        *at = ipv4_forms[i].prefix / 8;
        return true;
      }
  return false;
}

static enum addr_class
classify_v6 (const uint8_t *b, struct addr_block *blk)
{
  static const uint8_t zero[16];
  struct halves a = load (b, 16);
  const struct special *s;
  uint8_t bytes[16];
  enum addr_class c;
  size_t at;

  if (embeds_ipv4 (a, &at))
    return classify_embedded (b, at, blk);
  s = lookup (v6_special, sizeof (v6_special) / sizeof (*v6_special), a);
  if (s)
    {
      special_bytes (s, bytes);
      set_block (blk, AF_INET6, bytes, s->prefix);
      return s->cls;
    }
  if (all_zero (b, 12))
    {
      /* deprecated IPv4-compatible ::a.b.c.d */
      c = classify_embedded (b, 12, blk);
      if (c != ADDR_PUBLIC)
        return c;
      set_block (blk, AF_INET6, zero, 96);
      return ADDR_RESERVED;
    }
  if ((b[0] & 0xe0) != 0x20)
    {
      set_block (blk, AF_INET6, b, 3); /* outside global unicast 2000::/3 */
      return ADDR_RESERVED;
    }
  return ADDR_PUBLIC;
}

enum addr_class
netaddr_classify_block (const struct netaddr *a, struct addr_block *block)
{
  return a->family == AF_INET ? classify_v4 (a->bytes, block)
                              : classify_v6 (a->bytes, block);
}

enum addr_class
netaddr_classify (const struct netaddr *a)
{
  return netaddr_classify_block (a, NULL);
}

static const char *const class_reasons[ADDR_CLASS_COUNT] = {
  [ADDR_PUBLIC] = "address-public",
  [ADDR_UNSPECIFIED] = "address-unspecified",
  [ADDR_THIS_NETWORK] = "address-this-network",
  [ADDR_LOOPBACK] = "address-loopback",
  [ADDR_LINK_LOCAL] = "address-link-local",
  [ADDR_PRIVATE] = "address-private",
  [ADDR_CGNAT] = "address-cgnat",
  [ADDR_MULTICAST] = "address-multicast",
  [ADDR_BROADCAST] = "address-broadcast",
  [ADDR_RESERVED] = "address-reserved",
  [ADDR_METADATA] = "address-metadata",
  [ADDR_PROTOCOL] = "address-protocol",
  [ADDR_BENCHMARKING] = "address-benchmarking",
  [ADDR_DOCUMENTATION] = "address-documentation",
};

const char *
addr_class_reason (enum addr_class c)
{
  return class_reasons[c];
}

const char *
addr_class_name (enum addr_class c)
{
  return class_reasons[c] + strlen ("address-");
}

bool
netaddr_ipv4_span (const struct netaddr *net, unsigned prefix,
                   unsigned *v4_prefix)
{
  struct halves a = load (net->bytes, 16);

  if (net->family != AF_INET6)
    return false;
  for (size_t i = 0; i < N_IPV4_FORMS; i++)
    {
      const struct special *f = &ipv4_forms[i];
      if (prefix >= f->prefix && halves_in (a, f->hi, f->lo, f->prefix))
        {
          *v4_prefix = prefix - f->prefix > 32 ? 32 : prefix - f->prefix;
          return true;
        }
      if (prefix < f->prefix && halves_in (a, f->hi, f->lo, prefix))
        {
          *v4_prefix = 0;
          return true;
        }
    }
  return false;
}

bool
netaddr_in_prefix (const struct netaddr *a, const struct netaddr *net,
                   unsigned prefix)
{
  if (a->family != net->family || prefix > (a->family == AF_INET ? 32u : 128u))
    return false;
  return bits_equal (a->bytes, net->bytes, prefix);
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
