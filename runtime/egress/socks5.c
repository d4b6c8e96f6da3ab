/* SOCKS5 greeting and request parsing (see socks5.h). */
#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "socks5.h"

int
socks5_parse_greeting (const uint8_t *buf, size_t len, size_t *consumed, bool *no_auth)
{
  size_t n;

  if (len >= 1 && buf[0] != 5)
    return SOCKS5_PARSE_ERROR;
  if (len >= 2 && buf[1] == 0)
    return SOCKS5_PARSE_ERROR;
  if (len < 2 || len < 2 + (size_t) buf[1])
    return SOCKS5_PARSE_MORE;
  n = buf[1];
  *no_auth = memchr (buf + 2, 0, n) != NULL;
  *consumed = 2 + n;
  return SOCKS5_PARSE_DONE;
}

static int
refuse (uint8_t *reply, const char **reason, uint8_t code, const char *why)
{
  *reply = code;
  *reason = why;
  return SOCKS5_PARSE_ERROR;
}

int
socks5_parse_request (const uint8_t *buf, size_t len, struct socks5_request *req,
                      size_t *consumed, uint8_t *reply, const char **reason)
{
  size_t alen, need;
  const char *why;

  if (len >= 1 && buf[0] != 5)
    return refuse (reply, reason, SOCKS5_FAILURE, "bad-version");
  if (len >= 2 && buf[1] != 1)
    return refuse (reply, reason, SOCKS5_BAD_COMMAND, "unsupported-command");
  if (len >= 3 && buf[2] != 0)
    return refuse (reply, reason, SOCKS5_FAILURE, "bad-request");
  if (len < 5)
    return SOCKS5_PARSE_MORE;
  switch (buf[3])
    {
    case 1:
      alen = 4;
      need = 4 + alen + 2;
      break;
    case 4:
      alen = 16;
      need = 4 + alen + 2;
      break;
    case 3:
      alen = buf[4];
      if (alen == 0)
        return refuse (reply, reason, SOCKS5_FAILURE, "empty-host");
      need = 5 + alen + 2;
      break;
    default:
      return refuse (reply, reason, SOCKS5_BAD_ADDRESS_TYPE, "unsupported-address-type");
    }
  if (len < need)
    return SOCKS5_PARSE_MORE;
  memset (req, 0, sizeof (*req));
  if (buf[3] == 3)
    {
      why = host_parse ((const char *) buf + 5, alen, false, &req->host);
      if (why)
        return refuse (reply, reason, SOCKS5_NOT_ALLOWED, why);
    }
  else
    {
      req->host.is_addr = true;
      req->host.addr.family = buf[3] == 1 ? AF_INET : AF_INET6;
      memcpy (req->host.addr.bytes, buf + 4, alen);
    }
  req->port = (uint16_t) (buf[need - 2] << 8 | buf[need - 1]);
  if (req->port == 0)
    return refuse (reply, reason, SOCKS5_FAILURE, "bad-port");
  *consumed = need;
  return SOCKS5_PARSE_DONE;
}

void
socks5_reply (uint8_t *out, uint8_t code)
{
  static const uint8_t tmpl[SOCKS5_REPLY_LEN] = { 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };

  memcpy (out, tmpl, sizeof (tmpl));
  out[1] = code;
}
