/* DNS stub query parsing and answer building (see dns_stub.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "dns.h"
#include "dns_stub.h"

#define HEADER_LEN 12
#define CLASS_IN 1
#define RR_FIXED 12 /* pointer, type, class, ttl, rdlength */

static uint16_t
get16 (const uint8_t *p)
{
  return (uint16_t) (p[0] << 8 | p[1]);
}

static void
put16 (uint8_t *p, uint16_t v)
{
  p[0] = (uint8_t) (v >> 8);
  p[1] = (uint8_t) v;
}

static bool
host_byte (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Reads the uncompressed question name at msg[*pos]; false when it is
 * malformed or compressed. */
static bool
read_qname (const uint8_t *msg, size_t len, size_t *pos, struct dns_stub_query *q)
{
  size_t p = *pos, o = 0;

  q->host_name = true;
  for (;;)
    {
      uint8_t l;

      if (p >= len)
        return false;
      l = msg[p];
      if (l & 0xc0)
        return false; /* compression or an extended label type */
      if (l == 0)
        break;
      if (p + 1 + l > len || (o ? o + 1 : 0) + l > HOST_NAME_MAX_LEN)
        return false;
      if (o)
        q->name[o++] = '.';
      for (size_t i = 0; i < l; i++)
        {
          char c = (char) msg[p + 1 + i];
          if (c >= 'A' && c <= 'Z')
            c = (char) (c - 'A' + 'a');
          if (!host_byte (c))
            {
              q->host_name = false;
              c = '?';
            }
          q->name[o++] = c;
        }
      p += 1 + l;
    }
  q->name[o] = '\0';
  if (o == 0)
    q->host_name = false;
  *pos = p + 1;
  return true;
}

enum dns_stub_parse
dns_stub_parse_query (const uint8_t *msg, size_t len, struct dns_stub_query *q)
{
  size_t pos = HEADER_LEN;

  memset (q, 0, sizeof (*q));
  if (len < HEADER_LEN || (msg[2] & 0x80))
    return STUB_DROP;
  q->id = get16 (msg);
  q->rd = msg[2] & 0x01;
  if ((msg[2] & 0x78) != 0)
    return STUB_NOTIMP;
  if (get16 (msg + 4) != 1 || !read_qname (msg, len, &pos, q) || pos + 4 > len)
    {
      q->name[0] = '\0';
      return STUB_FORMERR;
    }
  q->qtype = get16 (msg + pos);
  q->qclass = get16 (msg + pos + 2);
  q->qend = pos + 4;
  return STUB_QUERY;
}

static size_t
header (uint8_t *out, const struct dns_stub_query *q, unsigned rcode, bool tc,
        uint16_t qd, uint16_t an)
{
  memset (out, 0, HEADER_LEN);
  put16 (out, q->id);
  out[2] = (uint8_t) (0x80 | (tc ? 0x02 : 0) | (q->rd ? 0x01 : 0));
  out[3] = (uint8_t) (0x80 | (rcode & 0x0f)); /* RA */
  put16 (out + 4, qd);
  put16 (out + 6, an);
  return HEADER_LEN;
}

size_t
dns_stub_answer (uint8_t *out, size_t max, const uint8_t *query,
                 const struct dns_stub_query *q, unsigned rcode,
                 const struct netaddr *addrs, size_t n, uint32_t ttl)
{
  int family = q->qtype == DNS_TYPE_A ? AF_INET : q->qtype == DNS_TYPE_AAAA ? AF_INET6 : 0;
  size_t alen = family == AF_INET ? 4 : 16, qlen, o, count = 0, need;

  if (q->qend == 0 || q->qend > max)
    return header (out, q, rcode, false, 0, 0);
  qlen = q->qend - HEADER_LEN;
  for (size_t i = 0; rcode == DNS_RCODE_NOERROR && family && i < n; i++)
    count += addrs[i].family == family;
  if (count > 0xffff)
    count = 0xffff;
  need = HEADER_LEN + qlen + count * (RR_FIXED + alen);
  if (need > max)
    {
      header (out, q, rcode, true, 1, 0);
      memcpy (out + HEADER_LEN, query + HEADER_LEN, qlen);
      return HEADER_LEN + qlen;
    }
  o = header (out, q, rcode, false, 1, (uint16_t) count);
  memcpy (out + o, query + HEADER_LEN, qlen);
  o += qlen;
  for (size_t i = 0; count && i < n; i++)
    {
      if (addrs[i].family != family)
        continue;
      put16 (out + o, 0xc000 | HEADER_LEN);
      put16 (out + o + 2, q->qtype);
      put16 (out + o + 4, CLASS_IN);
      put16 (out + o + 6, (uint16_t) (ttl >> 16));
      put16 (out + o + 8, (uint16_t) ttl);
      put16 (out + o + 10, (uint16_t) alen);
      memcpy (out + o + RR_FIXED, addrs[i].bytes, alen);
      o += RR_FIXED + alen;
    }
  return o;
}

const char *
dns_type_name (uint16_t qtype, char *buf)
{
  switch (qtype)
    {
    case 1: return "A";
    case 2: return "NS";
    case 5: return "CNAME";
    case 6: return "SOA";
    case 12: return "PTR";
    case 15: return "MX";
    case 16: return "TXT";
    case 28: return "AAAA";
    case 33: return "SRV";
    case 64: return "SVCB";
    case 65: return "HTTPS";
    case 255: return "ANY";
    default:
      snprintf (buf, 16, "TYPE%u", (unsigned) qtype);
      return buf;
    }
}
