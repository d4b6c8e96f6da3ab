/* Connections: accepting them, the destination pipeline (allowlist ->
 * resolution -> address policy -> connect to exactly the address that was
 * checked), timeouts, closing and the audit record of each upstream
 * connection.  The protocol code (proxy_http.c, proxy_socks.c) decides
 * what the client asked for; relay.c moves the bytes. */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "ask.h"
#include "egress.h"
#include "socks5.h"

#define LINGER_MS 2000
#define LINGER_MAX_BYTES (64 * 1024)
#define ACCEPT_BATCH 64
#define IDLE_TRIM_MS 2000
/* Refusals beyond --max-conns that may linger (bounded memory). */
#define OVER_LIMIT_LINGER 64

#define container_of(p, type, member) ((type *) ((char *) (p) - offsetof (type, member)))

void
conn_record_start (struct conn *c)
{
  clock_gettime (CLOCK_REALTIME, &c->start_rt);
  c->start_ms = c->eg->now_ms;
  c->audit_open = true;
  c->decision = NULL;
  c->reason = NULL;
  c->bytes_up = c->bytes_down = 0;
  c->naddrs = c->next_addr = 0;
  memset (&c->host, 0, sizeof (c->host));
  c->port = 0;
  /* A kept-alive client's next request is a record of its own: what let
   * the last one through is not this one's. */
  c->asked = NULL;
  c->standin = NULL;
}

static void
set_outcome (struct conn *c, const char *decision, const char *reason)
{
  if (decision && c->decision == NULL)
    c->decision = decision;
  if (reason && c->reason == NULL)
    c->reason = reason;
}

static void
finish_record (struct conn *c, const char *reason)
{
  if (!c->audit_open)
    return;
  set_outcome (c, NULL, reason);
  c->audit_open = false;
  if (c->decision || c->host.is_addr || c->host.name[0] || c->kind == KIND_TRANSPARENT)
    audit_write (c);
}

static void
close_fd (struct endpoint *ep)
{
  if (ep->fd < 0)
    return;
  close (ep->fd); /* also leaves the epoll set: the fd is never duplicated */
  ep->fd = -1;
  ep->readable = ep->writable = ep->hup = false;
}

/* Sets what the listeners wait for: EPOLLIN, or nothing while paused. */
static void
listeners_events (struct egress *eg, uint32_t events)
{
  struct
  {
    int fd;
    struct ev_handler *h;
  } l[] = {
    { eg->opt.http_fd, &eg->http_ev },
    { eg->opt.socks_fd, &eg->socks_ev },
    { eg->opt.transparent_fd, &eg->transparent_ev },
    { eg->opt.transparent6_fd, &eg->transparent6_ev },
  };

  for (size_t i = 0; i < sizeof (l) / sizeof (*l); i++)
    {
      struct epoll_event ev = { .events = events, .data.ptr = l[i].h };
      if (l[i].fd >= 0)
        epoll_ctl (eg->epfd, EPOLL_CTL_MOD, l[i].fd, &ev);
    }
}

static void
resume_listeners (struct egress *eg)
{
  if (!eg->listeners_paused)
    return;
  eg->listeners_paused = false;
  listeners_events (eg, EPOLLIN);
}

void
conn_close (struct conn *c, const char *reason)
{
  struct egress *eg = c->eg;

  if (c->dead)
    return;
  c->dead = true;
  mitm_free (c);
  resolver_cancel (c);
  finish_record (c, reason);
  close_fd (&c->client);
  close_fd (&c->upstream);
  flow_reset (eg, &c->up);
  flow_reset (eg, &c->down);
  if (c->prev)
    c->prev->next = c->next;
  else
    eg->conns = c->next;
  if (c->next)
    c->next->prev = c->prev;
  c->next = eg->graveyard;
  eg->graveyard = c;
  eg->nconns--;
  resume_listeners (eg);
}

void
conn_close_upstream (struct conn *c, const char *reason)
{
  struct egress *eg = c->eg;

  resolver_cancel (c);
  finish_record (c, reason);
  close_fd (&c->upstream);
  flow_reset (eg, &c->down);
  /* Keep what the client already sent: it may be its next request. */
  flow_drop_output (eg, &c->up);
  c->connected = false;
}

void
conn_reap (struct egress *eg)
{
  bool reaped = eg->graveyard != NULL;

  while (eg->graveyard)
    {
      struct conn *c = eg->graveyard;
      eg->graveyard = c->next;
      free (c);
    }
  if (reaped && eg->nconns == 0)
    eg->idle_since_ms = eg->now_ms;
}

void
conn_close_all (struct egress *eg)
{
  while (eg->conns)
    conn_close (eg->conns, "shutdown");
  conn_reap (eg);
}

/* Moves both directions until neither can progress.  Called again from
 * inside (a connect that completed at once), it only asks for another
 * round. */
static void
conn_pump (struct conn *c)
{
  if (c->mitm)
    {
      mitm_pump (c);
      return;
    }
  if (c->in_pump)
    {
      c->repump = true;
      return;
    }
  c->in_pump = true;
  do
    {
      c->repump = false;
      if (c->phase == PHASE_LINGER || !flow_pump (c, &c->up) || !flow_pump (c, &c->down))
        break;
    }
  while (c->repump);
  c->in_pump = false;
}

/* After a reply the proxy made up: send it, half-close, then discard
 * input until EOF so that closing does not reset the reply away. */
static void
linger (struct conn *c)
{
  char sink[4096];

  while (c->down.out)
    {
      ssize_t r = send (c->client.fd, c->down.out + c->down.out_off,
                        c->down.out_len - c->down.out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (r < 0)
        {
          if (errno != EAGAIN && errno != EINTR)
            conn_close (c, NULL);
          return;
        }
      c->down.out_off += (size_t) r;
      if (c->down.out_off == c->down.out_len)
        {
          flow_set_out (&c->down, NULL, 0, false);
          shutdown (c->client.fd, SHUT_WR);
        }
    }
  for (;;)
    {
      ssize_t r = recv (c->client.fd, sink, sizeof (sink), MSG_DONTWAIT);
      if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return;
      c->discarded += r > 0 ? (uint64_t) r : 0;
      if (r <= 0 || c->discarded > LINGER_MAX_BYTES)
        {
          conn_close (c, NULL);
          return;
        }
    }
}

void
conn_reply_close (struct conn *c, const char *decision, const char *reason,
                  const void *reply, size_t len)
{
  char *pending = NULL;
  size_t plen = 0;

  set_outcome (c, decision, reason);
  /* A reply not yet sent (the SOCKS5 method choice) goes out first. */
  if (c->down.out)
    {
      plen = c->down.out_len - c->down.out_off;
      pending = steal_pointer (&c->down.out);
      memmove (pending, pending + c->down.out_off, plen);
    }
  resolver_cancel (c);
  close_fd (&c->upstream);
  flow_reset (c->eg, &c->up);
  flow_reset (c->eg, &c->down);
  flow_set_out (&c->down, pending, plen, false);
  flow_queue_out (&c->down, reply, len);
  c->phase = PHASE_LINGER;
  c->deadline_ms = c->eg->now_ms + LINGER_MS;
  linger (c);
}

void
conn_refuse (struct conn *c, const char *decision, const char *reason)
{
  struct linger lg = { .l_onoff = 1, .l_linger = 0 };

  set_outcome (c, decision, reason);
  /* A reset, so that the client sees a refusal at once, not an EOF. */
  if (c->client.fd >= 0)
    (void) setsockopt (c->client.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof (lg));
  conn_close (c, NULL);
}

static void
target_fail (struct conn *c, int status, uint8_t socks, const char *decision,
             const char *reason)
{
  if (c->kind == KIND_TRANSPARENT)
    conn_refuse (c, decision, reason);
  else if (c->kind == KIND_SOCKS5)
    socks_deny (c, socks, decision, reason);
  else
    http_deny (c, status, decision, reason);
}

static void connect_next (struct conn *c);
static void upstream_connected (struct conn *c);

static void
connect_done (struct conn *c)
{
  int err = 0;
  socklen_t len = sizeof (err);

  if (getsockopt (c->upstream.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
    err = errno;
  if (err == EINPROGRESS || err == EALREADY)
    return;
  if (err)
    {
      close_fd (&c->upstream);
      connect_next (c);
      return;
    }
  upstream_connected (c);
}

static void
upstream_connected (struct conn *c)
{
  c->connected = true;
  c->phase = PHASE_OPEN;
  c->last_ms = c->eg->now_ms;
  if (c->kind == KIND_SOCKS5)
    socks_upstream_ready (c);
  else if (c->kind == KIND_TRANSPARENT)
    transparent_upstream_ready (c);
  else
    http_upstream_ready (c);
  conn_pump (c);
}

static void
endpoint_event (struct ev_handler *h, uint32_t events)
{
  struct endpoint *ep = container_of (h, struct endpoint, ev);
  struct conn *c = ep->conn;

  if (c->dead)
    return;
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
    ep->readable = true;
  if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
    ep->hup = true;
  if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
    ep->writable = true;
  if (c->phase == PHASE_LINGER)
    {
      if (ep == &c->client)
        linger (c);
      return;
    }
  /* The client is gone while its destination is being looked up. */
  if (ep == &c->client && (events & (EPOLLHUP | EPOLLERR))
      && (c->phase == PHASE_RESOLVING || c->phase == PHASE_CONNECTING
          || c->phase == PHASE_ASKING))
    {
      conn_close (c, "client-closed");
      return;
    }
  if (ep == &c->upstream && c->phase == PHASE_CONNECTING)
    {
      if (ep->writable)
        connect_done (c);
      return;
    }
  conn_pump (c);
}

static int
watch (struct conn *c, struct endpoint *ep, int fd)
{
  struct epoll_event ev = {
    .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
    .data.ptr = &ep->ev,
  };

  ep->fd = fd;
  ep->readable = ep->writable = ep->hup = false;
  return epoll_ctl (c->eg->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static void
connect_next (struct conn *c)
{
  while (c->next_addr < c->naddrs)
    {
      const struct netaddr *a = &c->addrs[c->next_addr++];
      struct sockaddr_storage ss;
      socklen_t len = netaddr_to_sockaddr (a, c->port, &ss);
      int fd = socket (a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

      if (fd < 0)
        break;
      (void) setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof (int));
      if (connect (fd, (struct sockaddr *) &ss, len) < 0 && errno != EINPROGRESS)
        {
          close (fd);
          continue;
        }
      if (watch (c, &c->upstream, fd) < 0)
        {
          close (fd);
          c->upstream.fd = -1;
          break;
        }
      c->phase = PHASE_CONNECTING;
      /* A near peer (loopback, the same host) may be connected already:
       * asking again saves a trip through epoll. */
      if (connect (fd, (struct sockaddr *) &ss, len) == 0 || errno == EISCONN)
        {
          c->upstream.writable = true;
          upstream_connected (c);
          return;
        }
      if (errno == EALREADY || errno == EINPROGRESS)
        return;
      close_fd (&c->upstream);
    }
  target_fail (c, 502, SOCKS5_REFUSED, "allow", "connect-failed");
}

/* The address policy: every address must be public, or be unlocked by an
 * IP or CIDR entry of the allowlist inside its special-purpose block. */
void
conn_check_and_connect (struct conn *c)
{
  for (size_t i = 0; i < c->naddrs; i++)
    {
      enum addr_class cls = netaddr_classify (&c->addrs[i]);

      if (cls != ADDR_PUBLIC && !allowlist_unlocks (c->eg->allow, &c->addrs[i], c->port))
        {
          c->next_addr = i + 1; /* the audit line names this address */
          target_fail (c, 403, SOCKS5_NOT_ALLOWED, "deny", addr_class_reason (cls));
          return;
        }
    }
  set_outcome (c, "allow", NULL);
  c->next_addr = 0;
  connect_next (c);
}

static void
conn_lookup_done (void *owner, const struct resolve_result *res)
{
  struct conn *c = owner;

  c->dns = NULL; /* gone with this call */
  if (c->kind == KIND_TRANSPARENT)
    transparent_resolved (c, res);
  else
    conn_resolved (c, res->addrs, res->n, res->failure);
}

int
resolver_start (struct conn *c, const char *name)
{
  return resolve_start (c->eg, name, conn_lookup_done, c, &c->dns) < 0 ? -1 : 0;
}

void
resolver_cancel (struct conn *c)
{
  resolve_cancel (c->dns);
  c->dns = NULL;
}

void
conn_resolved (struct conn *c, const struct netaddr *addrs, size_t n, const char *failure)
{
  if (failure)
    {
      target_fail (c, 502, SOCKS5_HOST_UNREACHABLE, "deny", failure);
      return;
    }
  memcpy (c->addrs, addrs, n * sizeof (*addrs));
  c->naddrs = n;
  conn_check_and_connect (c);
}

void
conn_deny (struct conn *c, const char *reason)
{
  target_fail (c, 403, SOCKS5_NOT_ALLOWED, "deny", reason);
}

void
conn_open_target (struct conn *c)
{
  char host[HOST_NAME_MAX_LEN + 1];

  host_format (&c->host, true, host);
  c->deadline_ms = c->eg->now_ms + c->eg->opt.handshake_timeout_s * 1000ull;
  if (!allowlist_match_name (c->eg->allow, host, c->port))
    {
      if (!ask_hold (c))
        conn_deny (c, "not-allowlisted");
      return;
    }
  conn_open_allowed (c);
}

void
conn_open_allowed (struct conn *c)
{
  c->deadline_ms = c->eg->now_ms + c->eg->opt.handshake_timeout_s * 1000ull;
  if (c->kind == KIND_TRANSPARENT)
    {
      transparent_lookup (c);
      return;
    }
  if (c->host.is_addr)
    {
      c->addrs[0] = c->host.addr;
      c->naddrs = 1;
      conn_check_and_connect (c);
      return;
    }
  c->phase = PHASE_RESOLVING;
  if (resolver_start (c, c->host.name) < 0)
    target_fail (c, 502, SOCKS5_FAILURE, "deny", "resolve-failed");
}

static const char *
kind_proto (enum conn_kind kind)
{
  return kind == KIND_HTTP ? "http" : kind == KIND_SOCKS5 ? "socks5" : "tcp";
}

/* Far beyond --max-conns: no state at all, an audit line, a close. */
static void
drop_over_limit (struct egress *eg, int fd, enum conn_kind kind)
{
  struct conn c = { .eg = eg, .proto = kind_proto (kind), .kind = kind };

  close (fd);
  conn_record_start (&c);
  set_outcome (&c, "deny", "max-connections");
  audit_write (&c);
}

/* Just beyond --max-conns, or while the audit trail cannot be written:
 * a short refusal (503 for HTTP; SOCKS5 has no message for it before the
 * greeting), sent properly before closing. */
static void
refuse_503 (struct conn *c, const char *reason, const char *why)
{
  char reply[256];
  int n = snprintf (reply, sizeof (reply),
                    "HTTP/1.1 503 Service Unavailable\r\nX-Agentrt-Denied: %s\r\n"
                    "Connection: close\r\nContent-Length: %zu\r\n\r\n"
                    "agentrt-egress: denied: %s\n",
                    reason, strlen ("agentrt-egress: denied: \n") + strlen (why), why);

  if (c->kind == KIND_TRANSPARENT)
    conn_refuse (c, "deny", reason); /* no protocol to say it in: a reset */
  else
    conn_reply_close (c, "deny", reason, reply, c->kind == KIND_HTTP ? (size_t) n : 0);
}

static void
pause_listeners (struct egress *eg)
{
  eg->listeners_paused = true;
  listeners_events (eg, 0);
}

static struct conn *
conn_new (struct egress *eg, int fd, enum conn_kind kind)
{
  struct conn *c = xzalloc (sizeof (*c));

  c->eg = eg;
  c->kind = kind;
  static const inspect_fn up[] = { http_inspect_request, socks_inspect,
                                    transparent_inspect_up };
  static const inspect_fn down[] = { http_inspect_response, socks_inspect_down,
                                      transparent_inspect_down };

  c->proto = kind_proto (kind);
  c->client.conn = c->upstream.conn = c;
  c->client.ev.fn = c->upstream.ev.fn = endpoint_event;
  c->upstream.fd = -1;
  flow_init (&c->up, &c->client, &c->upstream, &c->bytes_up, up[kind]);
  flow_init (&c->down, &c->upstream, &c->client, &c->bytes_down, down[kind]);
  c->phase = PHASE_REQUEST;
  c->deadline_ms = eg->now_ms + eg->opt.handshake_timeout_s * 1000ull;
  c->last_ms = eg->now_ms;
  conn_record_start (c);
  if (watch (c, &c->client, fd) < 0)
    {
      close (fd);
      free (c);
      return NULL;
    }
  c->next = eg->conns;
  if (eg->conns)
    eg->conns->prev = c;
  eg->conns = c;
  eg->nconns++;
  return c;
}

void
conn_accept (struct egress *eg, int lfd, enum conn_kind kind)
{
  for (int i = 0; i < ACCEPT_BATCH; i++)
    {
      int fd = accept4 (lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
      struct conn *c;

      if (fd < 0)
        {
          if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            pause_listeners (eg); /* resumed when a connection closes */
          if (errno == EAGAIN || errno != ECONNABORTED)
            return;
          continue;
        }
      if (eg->nconns >= eg->opt.max_conns + OVER_LIMIT_LINGER)
        drop_over_limit (eg, fd, kind);
      else if (!audit_ready (eg))
        {
          if ((c = conn_new (eg, fd, kind)) != NULL)
            refuse_503 (c, "audit-unavailable", "the audit trail cannot be written");
        }
      else if (eg->nconns >= eg->opt.max_conns)
        {
          if ((c = conn_new (eg, fd, kind)) != NULL)
            refuse_503 (c, "max-connections", "too many connections");
        }
      else if ((c = conn_new (eg, fd, kind)) != NULL)
        {
          if (kind == KIND_TRANSPARENT)
            {
              c->tp_family = lfd == eg->opt.transparent6_fd ? AF_INET6 : AF_INET;
              transparent_start (c);
              if (c->dead)
                continue;
            }
          /* The client talks first and mostly has by now: read at once
           * (EAGAIN clears the flag until the edge).  A new socket's send
           * buffer is empty: a reply made at once (the CONNECT's 200)
           * goes out without waiting for epoll's first EPOLLOUT; EAGAIN
           * would still clear the flag. */
          c->client.readable = c->client.writable = true;
          conn_pump (c);
        }
    }
}

void
conn_timers (struct egress *eg)
{
  struct conn *c;

  resolve_tick (eg);
  stub_tick (eg);
  ask_tick (eg);
  c = eg->conns;

  while (c)
    {
      struct conn *next = c->next;
      uint64_t idle = eg->opt.idle_timeout_s * 1000ull;

      if (c->dead)
        ;
      else if (c->phase == PHASE_OPEN && eg->now_ms - c->last_ms >= idle)
        conn_close (c, "idle-timeout");
      else if (c->phase != PHASE_OPEN && eg->now_ms >= c->deadline_ms)
        {
          if (c->phase == PHASE_RESOLVING || c->phase == PHASE_CONNECTING)
            target_fail (c, 504, SOCKS5_TTL_EXPIRED,
                         c->phase == PHASE_RESOLVING ? "deny" : "allow",
                         c->phase == PHASE_RESOLVING ? "resolve-timeout" : "connect-timeout");
          else
            conn_close (c, c->phase == PHASE_LINGER ? NULL : "handshake-timeout");
        }
      c = next;
    }
  if (eg->listeners_paused)
    resume_listeners (eg);
  /* Idle for a while: give the pipes and the memory of the last burst
   * back (not at once: sequential connections would pay for it each). */
  if (eg->idle_since_ms && eg->nconns == 0 && eg->now_ms - eg->idle_since_ms >= IDLE_TRIM_MS)
    {
      eg->idle_since_ms = 0;
      pipes_free (eg);
      malloc_trim (0);
    }
}
