/* The HTTP/1.1 forward proxy on the http listener: CONNECT tunnels and
 * absolute-form requests forwarded in origin form, with keep-alive to the
 * client.  Requests and responses are followed head by head so that the
 * proxy always knows where a message ends (Content-Length, chunked, or
 * the end of the connection); when it cannot be sure, it closes the client
 * connection after the response instead of guessing. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/xalloc.h"
#include "egress.h"
#include "inject_rewrite.h"

enum
{
  REQ_HEAD,
  REQ_CHUNKED,
  REQ_BODY_END, /* the body is on its way; then wait for the response */
  REQ_WAIT,
};

enum
{
  RESP_IDLE, /* no request outstanding */
  RESP_HEAD,
  RESP_CHUNKED,
  RESP_BODY_END,
};

static const char *
status_text (int status)
{
  switch (status)
    {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

void
http_deny (struct conn *c, int status, const char *decision, const char *reason)
{
  char body[160], reply[512];
  bool denied = decision == NULL || strcmp (decision, "deny") == 0;
  int blen = snprintf (body, sizeof (body), "agentrt-egress: %s: %s\n",
                       denied ? "denied" : "failed", reason);
  int n = snprintf (reply, sizeof (reply),
                    "HTTP/1.1 %d %s\r\n%s: %s\r\nContent-Type: text/plain\r\n"
                    "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
                    status, status_text (status),
                    denied ? "X-Agentrt-Denied" : "X-Agentrt-Error", reason, blen, body);

  conn_reply_close (c, decision, reason, reply, (size_t) n);
}

/* Follows a chunked body; *state becomes done_state after the last chunk. */
static enum inspect_result
chunked_step (struct conn *c, struct flow *f, int *state, int done_state)
{
  size_t used;
  uint64_t data;
  int rc;

  if (f->len == 0)
    {
      if (!f->eof)
        return INSPECT_NEED_INPUT;
      conn_close (c, "truncated");
      return INSPECT_STOP;
    }
  rc = http_chunked_feed (&f->chunked, f->buf + f->off, f->len, &used, &data);
  if (rc < 0)
    {
      conn_close (c, "bad-chunked-body");
      return INSPECT_STOP;
    }
  f->pass = used + data;
  if (rc == 1)
    *state = done_state;
  return INSPECT_CONTINUE;
}

static bool
same_target (const struct conn *c, const struct http_request *r)
{
  if (!c->connected || strcmp (c->proto, "http") != 0 || c->port != r->port
      || c->host.is_addr != r->host.is_addr)
    return false;
  return c->host.is_addr ? netaddr_equal (&c->host.addr, &r->host.addr)
                         : strcmp (c->host.name, r->host.name) == 0;
}

/* Sets up the request's body framing and queues its rewritten head. */
static void
queue_request (struct conn *c, struct flow *f, const struct http_request *r)
{
  char *out = xmalloc (r->head.len + 16);
  size_t n = http_request_rewrite (f->buf + f->off, r, out);
  const struct inject_cred *seen
      = inject_find_standin (c->eg->inject, f->buf + f->off, r->head.len, &r->head);

  /* In clear to any host: it goes out as it is (never the value), and the
   * audit line says so. */
  if (seen)
    c->standin = seen->name;

  c->head_request = r->method_len == 4 && memcmp (f->buf + f->off, "HEAD", 4) == 0;
  c->client_close = r->head.close;
  flow_consume (f, r->head.len);
  flow_set_out (f, out, n, true);
  c->req_state = REQ_BODY_END;
  if (r->head.framing == HTTP_BODY_LENGTH)
    f->pass = r->head.content_length;
  else if (r->head.framing == HTTP_BODY_CHUNKED)
    {
      http_chunked_init (&f->chunked);
      c->req_state = REQ_CHUNKED;
    }
  c->resp_state = RESP_HEAD;
}

static enum inspect_result
request_head (struct conn *c, struct flow *f)
{
  struct http_request r;
  struct http_error e;
  int rc;

  if (f->len == 0 && f->eof)
    {
      conn_close (c, "ok");
      return INSPECT_STOP;
    }
  rc = f->len ? http_parse_request (f->buf + f->off, f->len, &r, &e) : HTTP_PARSE_MORE;
  if (rc == HTTP_PARSE_MORE && !f->eof)
    return INSPECT_NEED_INPUT;
  if (rc == HTTP_PARSE_MORE)
    {
      rc = HTTP_PARSE_ERROR;
      e = (struct http_error){ 400, "truncated-request" };
    }
  if (rc == HTTP_PARSE_DONE && same_target (c, &r))
    {
      queue_request (c, f, &r);
      c->upstream_reused = true;
      c->repump = true;
      return INSPECT_CONTINUE;
    }
  c->upstream_reused = false;
  if (c->connected || c->dns)
    conn_close_upstream (c, "ok");
  if (!c->audit_open)
    conn_record_start (c);
  if (rc == HTTP_PARSE_ERROR)
    {
      http_deny (c, e.status, "deny", e.reason);
      return INSPECT_STOP;
    }
  c->proto = r.is_connect ? "connect" : "http";
  c->host = r.host;
  c->port = r.port;
  if (r.is_connect)
    {
      flow_consume (f, r.head.len); /* bytes after the head go through the tunnel */
      c->req_state = REQ_WAIT;
      c->resp_state = RESP_IDLE;
    }
  else
    queue_request (c, f, &r);
  f->paused = true;
  conn_open_target (c);
  return INSPECT_STOP;
}

enum inspect_result
http_inspect_request (struct conn *c, struct flow *f)
{
  switch (c->req_state)
    {
    case REQ_HEAD:
      return request_head (c, f);
    case REQ_CHUNKED:
      return chunked_step (c, f, &c->req_state, REQ_BODY_END);
    case REQ_BODY_END:
      c->req_state = REQ_WAIT;
      if (c->down.done)
        {
          conn_close (c, "ok");
          return INSPECT_STOP;
        }
      /* fall through */
    default:
      f->paused = true;
      return INSPECT_STOP;
    }
}

void
http_upstream_ready (struct conn *c)
{
  static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";

  if (strcmp (c->proto, "connect") == 0 && mitm_wanted (c, &c->up))
    {
      mitm_start (c, &c->up, established);
      return;
    }
  if (strcmp (c->proto, "connect") == 0)
    {
      flow_queue_out (&c->down, established, sizeof (established) - 1);
      c->up.pass = c->down.pass = FLOW_UNTIL_EOF;
    }
  c->up.paused = false;
}

static enum inspect_result
response_head (struct conn *c, struct flow *f)
{
  struct http_response r;
  struct http_error e;
  char *out;
  size_t n;
  int rc = f->len ? http_parse_response (f->buf + f->off, f->len, c->head_request, &r, &e)
                  : HTTP_PARSE_MORE;

  if (rc == HTTP_PARSE_MORE && !f->eof)
    return INSPECT_NEED_INPUT;
  if (rc == HTTP_PARSE_MORE && f->len == 0 && c->upstream_reused)
    {
      /* The server closed its idle connection as the request went out.
       * Closing the client's connection without an answer is what it
       * would have seen from the server: it may retry on a new one. */
      conn_close (c, "upstream-closed");
      return INSPECT_STOP;
    }
  if (rc != HTTP_PARSE_DONE || r.status == 101)
    {
      http_deny (c, 502, "allow",
                 rc == HTTP_PARSE_ERROR ? e.reason
                 : rc == HTTP_PARSE_MORE ? "truncated-response" : "upgrade-refused");
      return INSPECT_STOP;
    }
  if (r.status < 200)
    {
      f->pass = r.head.len; /* interim response, forwarded as is */
      return INSPECT_CONTINUE;
    }
  c->client_close = c->client_close || r.head.framing == HTTP_BODY_UNTIL_CLOSE;
  c->upstream_close = r.head.close;
  out = xmalloc (r.head.len + 24);
  n = http_response_rewrite (f->buf + f->off, &r, c->client_close, out);
  flow_consume (f, r.head.len);
  flow_set_out (f, out, n, true);
  c->resp_state = RESP_BODY_END;
  if (r.head.framing == HTTP_BODY_LENGTH)
    f->pass = r.head.content_length;
  else if (r.head.framing == HTTP_BODY_UNTIL_CLOSE)
    f->pass = FLOW_UNTIL_EOF;
  else if (r.head.framing == HTTP_BODY_CHUNKED)
    {
      http_chunked_init (&f->chunked);
      c->resp_state = RESP_CHUNKED;
    }
  return INSPECT_CONTINUE;
}

/* The response was forwarded completely. */
static enum inspect_result
response_done (struct conn *c)
{
  c->resp_state = RESP_IDLE;
  if (c->client_close || c->req_state != REQ_WAIT)
    {
      conn_close (c, "ok");
      return INSPECT_STOP;
    }
  if (c->upstream_close)
    conn_close_upstream (c, "ok");
  c->req_state = REQ_HEAD;
  c->up.paused = false;
  c->repump = true;
  return c->connected ? INSPECT_CONTINUE : INSPECT_STOP;
}

enum inspect_result
http_inspect_response (struct conn *c, struct flow *f)
{
  switch (c->resp_state)
    {
    case RESP_HEAD:
      return response_head (c, f);
    case RESP_CHUNKED:
      return chunked_step (c, f, &c->resp_state, RESP_BODY_END);
    case RESP_BODY_END:
      return response_done (c);
    default:
      if (!c->connected)
        return INSPECT_STOP;
      if (f->len == 0 && !f->eof)
        return INSPECT_NEED_INPUT;
      /* The server closed its idle connection, or sent what nobody asked for. */
      conn_close_upstream (c, f->len ? "unexpected-data" : "ok");
      return INSPECT_STOP;
    }
}
