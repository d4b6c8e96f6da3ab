/* The SOCKS5 proxy on the socks listener: method negotiation (no
 * authentication only), then one CONNECT, then a tunnel.  BIND and UDP
 * ASSOCIATE are refused with reply 0x07, denials with 0x02. */
#include "config.h"

#include <string.h>

#include "egress.h"
#include "socks5.h"

enum
{
  SOCKS_GREETING,
  SOCKS_REQUEST,
  SOCKS_WAIT,
};

void
socks_deny (struct conn *c, uint8_t code, const char *decision, const char *reason)
{
  uint8_t reply[SOCKS5_REPLY_LEN];

  socks5_reply (reply, code);
  conn_reply_close (c, decision, reason, reply, sizeof (reply));
}

static enum inspect_result
greeting (struct conn *c, struct flow *f)
{
  static const uint8_t no_acceptable[2] = { 5, 0xff };
  size_t used;
  bool no_auth;
  int rc = socks5_parse_greeting ((const uint8_t *) f->buf + f->off, f->len, &used, &no_auth);

  if (rc == SOCKS5_PARSE_MORE)
    {
      if (!f->eof)
        return INSPECT_NEED_INPUT;
      conn_close (c, NULL);
      return INSPECT_STOP;
    }
  if (rc == SOCKS5_PARSE_ERROR || !no_auth)
    {
      conn_reply_close (c, "deny", rc == SOCKS5_PARSE_ERROR ? "bad-greeting" : "auth-required",
                        no_acceptable, rc == SOCKS5_PARSE_ERROR ? 0 : sizeof (no_acceptable));
      return INSPECT_STOP;
    }
  flow_consume (f, used);
  flow_queue_out (&c->down, "\x05\x00", 2);
  c->req_state = SOCKS_REQUEST;
  c->repump = true;
  return INSPECT_CONTINUE;
}

static enum inspect_result
request (struct conn *c, struct flow *f)
{
  struct socks5_request r;
  const char *reason = NULL;
  uint8_t code = SOCKS5_FAILURE;
  size_t used;
  int rc = socks5_parse_request ((const uint8_t *) f->buf + f->off, f->len, &r, &used,
                                 &code, &reason);

  if (rc == SOCKS5_PARSE_MORE && !f->eof)
    return INSPECT_NEED_INPUT;
  if (rc != SOCKS5_PARSE_DONE)
    {
      socks_deny (c, code, "deny", reason ? reason : "truncated-request");
      return INSPECT_STOP;
    }
  flow_consume (f, used);
  c->host = r.host;
  c->port = r.port;
  c->req_state = SOCKS_WAIT;
  f->paused = true;
  conn_open_target (c);
  return INSPECT_STOP;
}

enum inspect_result
socks_inspect (struct conn *c, struct flow *f)
{
  if (f->len == 0 && f->eof)
    {
      conn_close (c, NULL);
      return INSPECT_STOP;
    }
  if (f->len == 0)
    return INSPECT_NEED_INPUT;
  switch (c->req_state)
    {
    case SOCKS_GREETING:
      return greeting (c, f);
    case SOCKS_REQUEST:
      return request (c, f);
    default:
      f->paused = true;
      return INSPECT_STOP;
    }
}

enum inspect_result
socks_inspect_down (struct conn *c, struct flow *f)
{
  (void) c;
  (void) f;
  return INSPECT_STOP; /* nothing comes from upstream before the tunnel */
}

void
socks_upstream_ready (struct conn *c)
{
  uint8_t reply[SOCKS5_REPLY_LEN];

  socks5_reply (reply, SOCKS5_OK);
  flow_queue_out (&c->down, reply, sizeof (reply));
  c->up.pass = c->down.pass = FLOW_UNTIL_EOF;
  c->up.paused = false;
}
