/* Connections to a credential's hosts, whichever way they came (CONNECT
 * or the transparent path), once the upstream is connected: the sidecar
 * speaks TLS to the agent with a certificate of the container's CA, and
 * TLS to the host, whose certificate it verifies against the trust store.
 * Between the two it reads the agent's requests head by head (origin
 * form; bodies by Content-Length or chunked), puts the credential's value
 * in place of its stand-in (inject_rewrite.h), audits each injection
 * (name, host, request line without its query), and relays the responses
 * as they come.  Anything it cannot follow (a malformed head, a Host that
 * names another host, a head that grows too large) closes the
 * connection.  The agent's TLS bytes go through a memory BIO (the first
 * ones were read already, to learn the name); the rest uses the sockets
 * directly, non-blocking, edge-triggered: each step runs until OpenSSL
 * says it would block. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "common/xalloc.h"
#include "egress.h"
#include "inject_rewrite.h"
#include "tls.h"

/* The agent's TLS bytes buffered before OpenSSL reads them. */
#define MITM_IN_MAX (256 * 1024)
#define MITM_DOWN 16384

enum
{
  REQ_HEAD,
  REQ_BODY,
  REQ_CHUNKED,
};

struct mitm
{
  SSL *cli, *up;
  BIO *cli_in;
  const struct inject_cred *cred;
  bool cli_hs, up_hs, cli_eof;
  char raw[64]; /* the CONNECT's 200, sent before TLS */
  size_t raw_off, raw_len;
  char *req; /* decrypted from the agent, not handled yet */
  size_t req_len;
  int req_state;
  uint64_t body; /* bytes of the current body (or chunk) still to forward */
  struct http_chunked ch;
  char *out; /* for the upstream, plaintext */
  size_t out_off, out_len;
  char down[MITM_DOWN];
  size_t down_off, down_len;
};

void
mitm_free (struct conn *c)
{
  struct mitm *m = c->mitm;

  if (m == NULL)
    return;
  SSL_free (m->cli); /* frees cli_in; the sockets are the connection's */
  SSL_free (m->up);
  if (m->req)
    explicit_bzero (m->req, HTTP_HEAD_MAX);
  free (m->req);
  if (m->out)
    explicit_bzero (m->out, m->out_len);
  free (m->out);
  explicit_bzero (m->down, sizeof m->down);
  free (m);
  c->mitm = NULL;
  ERR_clear_error ();
}

static void
fail (struct conn *c, const char *reason)
{
  c->decision = NULL; /* allowed until now */
  conn_refuse (c, "deny", reason);
}

static bool
would_block (SSL *s, int r)
{
  int e = SSL_get_error (s, r);
  return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
}

bool
mitm_wanted (const struct conn *c, const struct flow *f)
{
  const struct egress *eg = c->eg;

  return eg->tls && c->connected && !c->host.is_addr && c->host.name[0]
         && inject_set_for_host (eg->inject, c->host.name)
         && (f->len == 0 || (uint8_t) f->buf[f->off] == 0x16); /* a TLS handshake */
}

void
mitm_start (struct conn *c, struct flow *f, const char *reply)
{
  struct egress *eg = c->eg;
  struct mitm *m = xzalloc (sizeof (*m));
  BIO *w;

  c->mitm = m;
  c->intercepted = true;
  m->cred = inject_set_for_host (eg->inject, c->host.name);
  m->cli = tls_new_server (eg->tls, c->host.name);
  m->up = tls_new_client (eg->tls, c->host.name);
  m->cli_in = BIO_new (BIO_s_mem ());
  w = BIO_new_socket (c->client.fd, BIO_NOCLOSE);
  if (m->cli == NULL || m->up == NULL || m->cli_in == NULL || w == NULL
      || !SSL_set_fd (m->up, c->upstream.fd))
    {
      BIO_free (m->cli_in);
      BIO_free (w);
      m->cli_in = NULL;
      fail (c, "tls-setup-failed");
      return;
    }
  SSL_set_bio (m->cli, m->cli_in, w);
  SSL_set_accept_state (m->cli);
  SSL_set_connect_state (m->up);
  m->req = xmalloc (HTTP_HEAD_MAX);
  if (f->len)
    BIO_write (m->cli_in, f->buf + f->off, (int) f->len);
  flow_consume (f, f->len);
  if (reply)
    {
      m->raw_len = strlen (reply) < sizeof m->raw ? strlen (reply) : 0;
      memcpy (m->raw, reply, m->raw_len);
    }
  c->up.paused = c->down.paused = true;
  c->up.pass = c->down.pass = 0;
  mitm_pump (c);
}

/* Queues n bytes of req for the upstream and drops them from req. */
static void
forward (struct mitm *m, size_t n)
{
  m->out = xmalloc (n ? n : 1);
  memcpy (m->out, m->req, n);
  m->out_off = 0;
  m->out_len = n;
  memmove (m->req, m->req + n, m->req_len - n);
  m->req_len -= n;
}

/* The request line without its query, for the audit. */
static void
audit_request (struct conn *c, const char *buf, const struct http_request *r)
{
  size_t path = r->path_len, q = 0;

  while (q < path && buf[r->path + q] != '?')
    q++;
  audit_inject (c, c->mitm->cred->name, buf, r->method_len, buf + r->path, q);
}

/* A complete head in req: checked, rewritten, queued. -1: closed. */
static int
request_head (struct conn *c, struct mitm *m)
{
  struct http_request r;
  struct http_error e;
  const struct inject_cred *other;
  unsigned count = 0;
  size_t n;
  char *out;
  int rc = http_parse_origin_request (m->req, m->req_len, c->port, &r, &e);

  if (rc == HTTP_PARSE_MORE)
    {
      if (m->req_len < HTTP_HEAD_MAX)
        return 0;
      fail (c, "request-head-too-large");
      return -1;
    }
  if (rc == HTTP_PARSE_ERROR)
    {
      fail (c, e.reason);
      return -1;
    }
  if (r.host.is_addr || strcasecmp (r.host.name, c->host.name) != 0)
    {
      fail (c, "host-mismatch"); /* no fronting inside the tunnel */
      return -1;
    }
  out = inject_rewrite (m->req, &r.head, m->cred, &n, &count);
  if (out == NULL)
    {
      fail (c, "request-head-too-large");
      return -1;
    }
  if (count)
    audit_request (c, m->req, &r);
  /* another credential's stand-in goes out as it is: recorded */
  if ((other = inject_find_standin (c->eg->inject, out, n, NULL)) != NULL && other != m->cred)
    c->standin = other->name;
  memmove (m->req, m->req + r.head.len, m->req_len - r.head.len);
  m->req_len -= r.head.len;
  m->out = out;
  m->out_off = 0;
  m->out_len = n;
  m->req_state = REQ_HEAD;
  if (r.head.framing == HTTP_BODY_LENGTH && r.head.content_length)
    {
      m->req_state = REQ_BODY;
      m->body = r.head.content_length;
    }
  else if (r.head.framing == HTTP_BODY_CHUNKED)
    {
      m->req_state = REQ_CHUNKED;
      m->body = 0;
      http_chunked_init (&m->ch);
    }
  return 1;
}

/* What req holds next. 1: queued something, 0: needs more, -1: closed. */
static int
handle (struct conn *c, struct mitm *m)
{
  size_t used, n;
  uint64_t data;
  int rc;

  if (m->req_len == 0)
    return 0;
  if (m->req_state == REQ_HEAD)
    return request_head (c, m);
  if (m->body)
    {
      n = m->body < m->req_len ? (size_t) m->body : m->req_len;
      forward (m, n);
      m->body -= n;
      if (m->body == 0 && m->req_state == REQ_BODY)
        m->req_state = REQ_HEAD;
      return 1;
    }
  /* REQ_CHUNKED, between chunks: framing bytes */
  rc = http_chunked_feed (&m->ch, m->req, m->req_len, &used, &data);
  if (rc < 0)
    {
      fail (c, "bad-chunked-body");
      return -1;
    }
  if (used == 0 && data == 0 && rc == 0)
    return 0;
  forward (m, used);
  m->body = data;
  if (rc == 1)
    m->req_state = REQ_HEAD;
  return 1;
}

/* The agent's side ended (close_notify, FIN or an error). */
static void
agent_ended (struct conn *c, struct mitm *m, int r)
{
  int e = SSL_get_error (m->cli, r);

  if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && m->cli_eof))
    conn_close (c, m->req_state == REQ_HEAD && m->req_len == 0 ? "ok" : "truncated");
  else
    conn_close (c, "agent-tls-error");
}

/* Agent to upstream: true when something moved. */
static bool
up_step (struct conn *c, struct mitm *m)
{
  int r;

  if (m->out)
    {
      r = m->out_len > m->out_off
              ? SSL_write (m->up, m->out + m->out_off, (int) (m->out_len - m->out_off))
              : 0;
      if (m->out_len > m->out_off && r <= 0)
        {
          if (!would_block (m->up, r))
            conn_close (c, "reset");
          return false;
        }
      m->out_off += (size_t) r;
      c->bytes_up += (uint64_t) r;
      if (m->out_off == m->out_len)
        {
          explicit_bzero (m->out, m->out_len);
          free (m->out);
          m->out = NULL;
        }
      return true;
    }
  r = handle (c, m);
  if (r != 0)
    return r > 0;
  if (m->req_len == HTTP_HEAD_MAX)
    return false;
  r = SSL_read (m->cli, m->req + m->req_len, (int) (HTTP_HEAD_MAX - m->req_len));
  if (r > 0)
    {
      m->req_len += (size_t) r;
      return true;
    }
  if (!would_block (m->cli, r))
    agent_ended (c, m, r);
  return false;
}

/* Upstream to agent: true when something moved. */
static bool
down_step (struct conn *c, struct mitm *m)
{
  int r;

  if (m->down_len > m->down_off)
    {
      r = SSL_write (m->cli, m->down + m->down_off, (int) (m->down_len - m->down_off));
      if (r <= 0)
        {
          if (!would_block (m->cli, r))
            conn_close (c, "reset");
          return false;
        }
      m->down_off += (size_t) r;
      c->bytes_down += (uint64_t) r;
      if (m->down_off == m->down_len)
        m->down_off = m->down_len = 0;
      return true;
    }
  r = SSL_read (m->up, m->down, sizeof m->down);
  if (r > 0)
    {
      m->down_len = (size_t) r;
      return true;
    }
  if (would_block (m->up, r))
    return false;
  /* the host is done: say so to the agent, then close */
  (void) SSL_shutdown (m->cli);
  conn_close (c, SSL_get_error (m->up, r) == SSL_ERROR_ZERO_RETURN
                         || SSL_get_error (m->up, r) == SSL_ERROR_SYSCALL
                     ? "ok"
                     : "upstream-tls-error");
  return false;
}

/* The agent's raw bytes into the memory BIO, and the CONNECT reply out. */
static bool
agent_io (struct conn *c, struct mitm *m)
{
  char buf[16384];
  ssize_t n;

  if (m->raw_off < m->raw_len)
    {
      n = send (c->client.fd, m->raw + m->raw_off, m->raw_len - m->raw_off,
                MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0)
        m->raw_off += (size_t) n;
      else if (errno != EAGAIN && errno != EINTR)
        conn_close (c, "reset");
      return n > 0;
    }
  if (!c->client.readable || m->cli_eof || BIO_ctrl_pending (m->cli_in) >= MITM_IN_MAX)
    return false;
  n = recv (c->client.fd, buf, sizeof buf, MSG_DONTWAIT);
  if (n > 0)
    {
      BIO_write (m->cli_in, buf, (int) n);
      return true;
    }
  if (n == 0)
    {
      m->cli_eof = true;
      BIO_set_mem_eof_return (m->cli_in, 0);
      return true;
    }
  if (errno == EAGAIN)
    c->client.readable = false;
  else if (errno != EINTR)
    conn_close (c, "reset");
  return false;
}

static bool
handshake (struct conn *c, SSL *s, bool *done, const char *prefix)
{
  int r;

  if (*done)
    return false;
  r = SSL_do_handshake (s);
  if (r == 1)
    {
      if (prefix == NULL)
        tls_upstream_ready (c->eg->tls, s);
      return *done = true;
    }
  if (!would_block (s, r))
    fail (c, prefix ? "agent-tls-handshake-failed" : tls_failure (s, r));
  return false;
}

void
mitm_pump (struct conn *c)
{
  struct mitm *m = c->mitm;

  while (!c->dead)
    {
      bool progress = agent_io (c, m);

      if (c->dead)
        return;
      progress |= handshake (c, m->up, &m->up_hs, NULL);
      if (!c->dead && m->raw_off == m->raw_len)
        progress |= handshake (c, m->cli, &m->cli_hs, "agent");
      if (!c->dead && m->up_hs && m->cli_hs)
        {
          progress |= up_step (c, m);
          if (!c->dead)
            progress |= down_step (c, m);
        }
      if (c->dead)
        return;
      if (progress)
        c->last_ms = c->eg->now_ms;
      else
        break;
    }
  ERR_clear_error ();
}
