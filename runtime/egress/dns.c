/* DNS query building and answer parsing (see dns.h). */
#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "dns.h"

#define DNS_HEADER_LEN 12
#define DNS_CLASS_IN 1
#define DNS_MAX_RECORDS 64

size_t
dns_build_query (uint8_t *out, uint16_t id, const char *name, uint16_t qtype)
{
  size_t o = DNS_HEADER_LEN;
  const char *p = name;

  memset (out, 0, DNS_HEADER_LEN);
  out[0] = (uint8_t) (id >> 8);
  out[1] = (uint8_t) id;
  out[2] = 0x01; /* RD */
  out[5] = 1;    /* QDCOUNT */
  while (*p)
    {
      const char *dot = strchr (p, '.');
      size_t l = dot ? (size_t) (dot - p) : strlen (p);

      out[o++] = (uint8_t) l;
      memcpy (out + o, p, l);
      o += l;
      p += l + (dot ? 1 : 0);
    }
  out[o++] = 0;
  out[o++] = (uint8_t) (qtype >> 8);
  out[o++] = (uint8_t) qtype;
  out[o++] = 0;
  out[o++] = DNS_CLASS_IN;
  return o;
}

static uint16_t
get16 (const uint8_t *p)
{
  return (uint16_t) (p[0] << 8 | p[1]);
}

/* Decodes the name at *pos into out (HOST_NAME_MAX_LEN + 1 bytes, lowercase,
 * dotted, "" for the root) and moves *pos past it.  A name with bytes that
 * cannot appear in a host name decodes to "\x01", which matches nothing.
 * Returns -1 when the name is malformed. */
static int
read_name (const uint8_t *msg, size_t len, size_t *pos, char *out)
{
  size_t p = *pos, o = 0, end = 0;
  int jumps = 0;
  bool odd = false;

  for (;;)
    {
      uint8_t l;

      if (p >= len)
        return -1;
      l = msg[p];
      if ((l & 0xc0) == 0xc0)
        {
          size_t target;

          if (p + 1 >= len || ++jumps > DNS_MAX_JUMPS)
            return -1;
          target = (size_t) (l & 0x3f) << 8 | msg[p + 1];
          if (end == 0)
            end = p + 2;
          if (target >= p)
            return -1; /* forward or self pointer: loops */
          p = target;
          continue;
        }
      if (l & 0xc0)
        return -1;
      if (l == 0)
        break;
      if (p + 1 + l > len || (o ? o + 1 : 0) + l > HOST_NAME_MAX_LEN)
        return -1;
      if (o)
        out[o++] = '.';
      for (size_t i = 0; i < l; i++)
        {
          char c = (char) msg[p + 1 + i];
          if (c == '.' || c <= 0x20 || c >= 0x7f)
            odd = true;
          out[o++] = (c >= 'A' && c <= 'Z') ? (char) (c - 'A' + 'a') : c;
        }
      p += 1 + l;
    }
  *pos = end ? end : p + 1;
  if (odd)
    strcpy (out, "\x01");
  else
    out[o] = '\0';
  return 0;
}

struct rr
{
  uint16_t type, class, rdlen;
  uint32_t ttl;
  size_t rdata;
};

/* Reads one resource record header at *pos (name into owner). */
static int
read_rr (const uint8_t *msg, size_t len, size_t *pos, char *owner, struct rr *rr)
{
  if (read_name (msg, len, pos, owner) < 0 || *pos + 10 > len)
    return -1;
  rr->type = get16 (msg + *pos);
  rr->class = get16 (msg + *pos + 2);
  rr->ttl = (uint32_t) get16 (msg + *pos + 4) << 16 | get16 (msg + *pos + 6);
  if (rr->ttl > 0x7fffffff)
    rr->ttl = 0; /* RFC 2181 8: a TTL with the top bit set means zero */
  rr->rdlen = get16 (msg + *pos + 8);
  rr->rdata = *pos + 10;
  if (rr->rdata + rr->rdlen > len)
    return -1;
  *pos = rr->rdata + rr->rdlen;
  return 0;
}

/* Scans the answer section for a CNAME owned by target and replaces
 * target with its alias; returns 1 if one was found, 0 if not, -1 on
 * malformed input. */
static int
follow_cname (const uint8_t *msg, size_t len, size_t answers, unsigned count,
              char *target, uint32_t *ttl)
{
  char owner[HOST_NAME_MAX_LEN + 1];
  size_t pos = answers;
  struct rr rr;

  for (unsigned i = 0; i < count; i++)
    {
      if (read_rr (msg, len, &pos, owner, &rr) < 0)
        return -1;
      if (rr.type == DNS_TYPE_CNAME && rr.class == DNS_CLASS_IN
          && strcmp (owner, target) == 0)
        {
          size_t rp = rr.rdata;
          if (read_name (msg, rr.rdata + rr.rdlen, &rp, owner) < 0 || rp != rr.rdata + rr.rdlen)
            return -1;
          strcpy (target, owner);
          if (rr.ttl < *ttl)
            *ttl = rr.ttl;
          return 1;
        }
    }
  return 0;
}

static enum dns_result
collect (const uint8_t *msg, size_t len, size_t answers, unsigned count,
         const char *target, uint16_t qtype, struct netaddr *out, size_t max, size_t *n,
         uint32_t *ttl)
{
  char owner[HOST_NAME_MAX_LEN + 1];
  size_t pos = answers, alen = qtype == DNS_TYPE_A ? 4 : 16;
  struct rr rr;

  *n = 0;
  for (unsigned i = 0; i < count; i++)
    {
      if (read_rr (msg, len, &pos, owner, &rr) < 0)
        return DNS_FAIL;
      if (rr.type != qtype || rr.class != DNS_CLASS_IN || strcmp (owner, target) != 0)
        continue;
      if (rr.rdlen != alen)
        return DNS_FAIL;
      if (rr.ttl < *ttl)
        *ttl = rr.ttl;
      if (*n < max)
        {
          memset (&out[*n], 0, sizeof (*out));
          out[*n].family = qtype == DNS_TYPE_A ? AF_INET : AF_INET6;
          memcpy (out[*n].bytes, msg + rr.rdata, alen);
          (*n)++;
        }
    }
  return *n ? DNS_OK : DNS_NODATA;
}

/* Checks header and question; on success *answers is where the answer
 * section starts. */
static enum dns_result
check_question (const uint8_t *msg, size_t len, uint16_t id, const char *name,
                uint16_t qtype, size_t *answers)
{
  char qname[HOST_NAME_MAX_LEN + 1];
  size_t pos = DNS_HEADER_LEN;

  if (len < DNS_HEADER_LEN || get16 (msg) != id || !(msg[2] & 0x80))
    return DNS_IGNORE;
  if (get16 (msg + 4) != 1 || read_name (msg, len, &pos, qname) < 0 || pos + 4 > len
      || strcmp (qname, name) != 0 || get16 (msg + pos) != qtype
      || get16 (msg + pos + 2) != DNS_CLASS_IN)
    return DNS_IGNORE;
  *answers = pos + 4;
  return DNS_OK;
}

enum dns_result
dns_parse_response (const uint8_t *msg, size_t len, uint16_t id, const char *name,
                    uint16_t qtype, struct netaddr *out, size_t max, size_t *n,
                    uint32_t *ttl)
{
  char target[HOST_NAME_MAX_LEN + 1];
  size_t answers;
  unsigned count;
  enum dns_result r = check_question (msg, len, id, name, qtype, &answers);

  *n = 0;
  *ttl = UINT32_MAX;
  if (r != DNS_OK)
    return r;
  if ((msg[2] & 0x78) != 0 || (msg[2] & 0x02))
    return DNS_FAIL; /* not a standard query answer, or truncated */
  switch (msg[3] & 0x0f)
    {
    case 0:
      break;
    case 3:
      return DNS_NXDOMAIN;
    default:
      return DNS_FAIL;
    }
  count = get16 (msg + 6);
  if (count > DNS_MAX_RECORDS)
    count = DNS_MAX_RECORDS;
  strcpy (target, name);
  for (int i = 0; i <= DNS_MAX_CNAMES; i++)
    {
      int f = follow_cname (msg, len, answers, count, target, ttl);
      if (f < 0)
        return DNS_FAIL;
      if (f == 0)
        return collect (msg, len, answers, count, target, qtype, out, max, n, ttl);
    }
  return DNS_FAIL; /* CNAME chain too long, or a loop */
}
