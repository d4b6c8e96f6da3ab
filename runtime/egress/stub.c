/* The DNS stub: the agent's nftables rules send every DNS query (UDP and
 * TCP port 53, any address) to --dns-udp-fd/--dns-tcp-fd (and the IPv6
 * ones).  It never forwards a query.  For a name the allowlist accepts (on
 * any port) an A or AAAA query is answered from the cache, or by the
 * sidecar's own resolver (outside, both families at once, one lookup per
 * name however many ask), with the upstream TTL, provided every address
 * passes the address policy; other types of an allowed name get NOERROR
 * without records; every other name gets REFUSED, and nothing about it
 * leaves the machine.  Bounded: lookups, queries waiting on them, TCP
 * connections, bytes per query; one audit line per answer or refusal. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "dns_stub.h"
#include "egress.h"
#include "namecache.h"

#define MAX_LOOKUPS 64
#define MAX_WAITERS 256
#define MAX_WAITERS_PER_LOOKUP 16
#define MAX_TCP 32
#define UDP_BATCH 64
/* The TTL of NXDOMAIN and NODATA answers (their SOA is not parsed). */
#define NEGATIVE_TTL 30

#define container_of(p, type, member) ((type *) ((char *) (p) - offsetof (type, member)))

struct stub_tcp;

struct waiter
{
  struct waiter *next;
  int udp_fd; /* or -1: tcp */
  struct stub_tcp *tcp;
  struct sockaddr_storage peer;
  socklen_t peerlen;
  struct dns_stub_query q;
  uint8_t query[DNS_STUB_QUERY_MAX];
};

struct lookup
{
  struct lookup *next;
  struct stub *stub;
  struct resolve *r;
  struct waiter *waiters;
  unsigned nwaiters;
  char name[HOST_NAME_MAX_LEN + 1];
};

struct stub_tcp
{
  struct stub_tcp *prev, *next;
  struct stub *stub;
  struct ev_handler ev;
  int fd;
  struct waiter *waiting; /* the query being answered */
  bool readable;
  uint64_t deadline_ms;
  size_t len;
  uint8_t buf[2 + DNS_STUB_QUERY_MAX];
};

struct udp_sock
{
  struct stub *stub;
  struct ev_handler ev;
  int fd;
};

struct listen_sock
{
  struct stub *stub;
  struct ev_handler ev;
  int fd;
};

struct stub
{
  struct egress *eg;
  struct udp_sock udp[2];
  struct listen_sock tcp[2];
  struct lookup *lookups;
  unsigned nlookups, nwaiters, ntcp;
  struct stub_tcp *conns;
};

static void tcp_close (struct stub_tcp *t);
static void tcp_next (struct stub_tcp *t);

/* w was answered: free it, and let its TCP connection go on. */
static void
waiter_done (struct waiter *w)
{
  struct stub_tcp *t = w->tcp;

  free (w);
  if (t)
    {
      t->waiting = NULL;
      tcp_next (t);
    }
}

bool
stub_name_allowed (struct egress *eg, const char *name)
{
  struct host h;

  if (host_parse (name, strlen (name), false, &h) != NULL || h.is_addr)
    return false;
  return allowlist_match_name (eg->allow, h.name, ALLOWLIST_ANY_PORT);
}

/* Sends the answer to w (which the caller then frees or reuses). */
static void
reply (struct stub *s, struct waiter *w, unsigned rcode, const struct netaddr *addrs,
       size_t n, uint32_t ttl)
{
  uint8_t out[2 + DNS_STUB_ANSWER_MAX];
  size_t len;

  if (w->udp_fd >= 0)
    {
      len = dns_stub_answer (out, DNS_STUB_UDP_MAX, w->query, &w->q, rcode, addrs, n, ttl);
      (void) sendto (w->udp_fd, out, len, MSG_DONTWAIT | MSG_NOSIGNAL,
                     (struct sockaddr *) &w->peer, w->peerlen);
      return;
    }
  if (w->tcp == NULL)
    return; /* the client went away */
  len = dns_stub_answer (out + 2, DNS_STUB_ANSWER_MAX, w->query, &w->q, rcode, addrs, n, ttl);
  out[0] = (uint8_t) (len >> 8);
  out[1] = (uint8_t) len;
  /* Small, and one at a time: a client that does not read its answers
   * loses its connection rather than holding memory. */
  if (send (w->tcp->fd, out, len + 2, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t) (len + 2))
    tcp_close (w->tcp);
  (void) s;
}

/* Records the answer, then sends it.  An answer that cannot be recorded
 * is not given: SERVFAIL instead (the audit trail failed, audit.c). */
static void
respond (struct stub *s, struct waiter *w, unsigned rcode, const struct netaddr *addrs,
         size_t n, uint32_t ttl, const char *decision, const char *reason)
{
  char type[16];

  if (audit_dns (s->eg, w->udp_fd >= 0 ? "udp" : "tcp", w->q.name[0] ? w->q.name : NULL,
                 dns_type_name (w->q.qtype, type), decision, reason, n, ttl)
      < 0)
    {
      rcode = DNS_RCODE_SERVFAIL;
      n = 0;
    }
  reply (s, w, rcode, addrs, n, ttl);
}

/* Answers an A/AAAA query from a cached (or just resolved) answer. */
static void
answer_cached (struct stub *s, struct waiter *w, const struct namecache_answer *a,
               uint32_t ttl)
{
  if (a->result == DNS_NXDOMAIN)
    {
      respond (s, w, DNS_RCODE_NXDOMAIN, NULL, 0, ttl, "allow", "nxdomain");
      return;
    }
  respond (s, w, DNS_RCODE_NOERROR, a->addrs, a->n, ttl, "allow", a->n ? "ok" : "nodata");
}

/* Every address must be public or unlocked by an IP entry (on some port):
 * a name that answers with a private address is a rebinding attempt. */
static const char *
policy (struct stub *s, const struct resolve_result *res)
{
  for (size_t i = 0; i < res->n; i++)
    {
      enum addr_class cls = netaddr_classify (&res->addrs[i]);
      if (cls != ADDR_PUBLIC
          && !allowlist_unlocks (s->eg->allow, &res->addrs[i], ALLOWLIST_ANY_PORT))
        return addr_class_reason (cls);
    }
  return NULL;
}

static void
lookup_done (void *owner, const struct resolve_result *res)
{
  struct lookup *l = owner;
  struct stub *s = l->stub;
  struct egress *eg = s->eg;
  const char *denied = policy (s, res);
  struct lookup **pp = &s->lookups;

  while (*pp != l)
    pp = &(*pp)->next;
  *pp = l->next;
  s->nlookups--;
  for (int fam = 0; !denied && fam < 2; fam++)
    {
      enum dns_result r = res->result[fam];
      uint32_t ttl = res->ttl[fam];

      if (r != DNS_OK && r != DNS_NODATA && r != DNS_NXDOMAIN)
        continue;
      if (r != DNS_OK && ttl > NEGATIVE_TTL)
        ttl = NEGATIVE_TTL;
      namecache_put (eg->names, l->name, fam ? AF_INET6 : AF_INET, r, res->addrs, res->n, ttl,
                     eg->now_ms);
    }
  while (l->waiters)
    {
      struct waiter *w = l->waiters;
      int family = w->q.qtype == DNS_TYPE_A ? AF_INET : AF_INET6;
      const struct namecache_answer *a;
      uint32_t ttl = 0;

      l->waiters = w->next;
      s->nwaiters--;
      if (denied)
        respond (s, w, DNS_RCODE_REFUSED, NULL, 0, 0, "deny", denied);
      else if ((a = namecache_get (eg->names, w->q.name, family, eg->now_ms, &ttl)) != NULL)
        answer_cached (s, w, a, ttl);
      else
        {
          /* The lookup failed (or its TTL was 0: answered once, not cached). */
          int fam = family == AF_INET6;
          bool ok = res->result[fam] == DNS_OK || res->result[fam] == DNS_NODATA;
          respond (s, w, ok ? DNS_RCODE_NOERROR : DNS_RCODE_SERVFAIL, res->addrs,
                   ok ? res->n : 0, 0, ok ? "allow" : "deny", ok ? "ok" : "resolve-failed");
        }
      waiter_done (w);
    }
  free (l);
}

/* Queues w on the lookup of its name (starting one); false when the
 * stub is too busy. */
static bool
wait_lookup (struct stub *s, struct waiter *w)
{
  struct lookup *l;
  struct resolve *r;
  int rc;

  for (l = s->lookups; l; l = l->next)
    if (strcmp (l->name, w->q.name) == 0)
      break;
  if (s->nwaiters >= MAX_WAITERS || (l && l->nwaiters >= MAX_WAITERS_PER_LOOKUP)
      || (!l && s->nlookups >= MAX_LOOKUPS))
    return false;
  if (l == NULL)
    {
      l = xzalloc (sizeof (*l));
      l->stub = s;
      strcpy (l->name, w->q.name);
      l->next = s->lookups;
      s->lookups = l;
      s->nlookups++;
    }
  w->next = l->waiters;
  l->waiters = w;
  l->nwaiters++;
  s->nwaiters++;
  if (l->r || l->nwaiters > 1)
    return true;
  rc = resolve_start (s->eg, l->name, lookup_done, l, &r);
  if (rc == 0)
    l->r = r;
  else if (rc < 0)
    {
      struct resolve_result failed = { .failure = "resolve-failed",
                                       .result = { DNS_FAIL, DNS_FAIL } };
      lookup_done (l, &failed);
    }
  return true;
}

/* Handles one query; w is taken (freed or queued). */
static void
handle (struct stub *s, struct waiter *w, size_t len)
{
  enum dns_stub_parse p = dns_stub_parse_query (w->query, len, &w->q);
  const struct namecache_answer *a;
  uint32_t ttl = 0;

  if (p == STUB_DROP)
    goto done;
  if (p != STUB_QUERY)
    {
      w->q.qend = 0;
      respond (s, w, p == STUB_NOTIMP ? DNS_RCODE_NOTIMP : DNS_RCODE_FORMERR, NULL, 0, 0, "deny",
               p == STUB_NOTIMP ? "not-a-query" : "malformed-query");
      goto done;
    }
  if (!w->q.host_name || w->q.qclass != 1 || !stub_name_allowed (s->eg, w->q.name))
    {
      respond (s, w, DNS_RCODE_REFUSED, NULL, 0, 0, "deny",
               w->q.qclass != 1 ? "not-class-in" : "not-allowlisted");
      goto done;
    }
  if (w->q.qtype != DNS_TYPE_A && w->q.qtype != DNS_TYPE_AAAA)
    {
      respond (s, w, DNS_RCODE_NOERROR, NULL, 0, 0, "allow", "type-not-answered");
      goto done;
    }
  a = namecache_get (s->eg->names, w->q.name, w->q.qtype == DNS_TYPE_A ? AF_INET : AF_INET6,
                     s->eg->now_ms, &ttl);
  if (a)
    {
      answer_cached (s, w, a, ttl);
      goto done;
    }
  /* A lookup the trail could not record is not made. */
  if (!audit_ready (s->eg))
    {
      respond (s, w, DNS_RCODE_SERVFAIL, NULL, 0, 0, "deny", "audit-unavailable");
      goto done;
    }
  if (wait_lookup (s, w))
    return;
  respond (s, w, DNS_RCODE_SERVFAIL, NULL, 0, 0, "deny", "busy");
done:
  waiter_done (w);
}

static void
udp_event (struct ev_handler *h, uint32_t events)
{
  struct udp_sock *u = container_of (h, struct udp_sock, ev);

  (void) events;
  for (int i = 0; i < UDP_BATCH; i++)
    {
      struct waiter *w = xmalloc (sizeof (*w));
      ssize_t n;

      w->peerlen = sizeof (w->peer);
      n = recvfrom (u->fd, w->query, sizeof (w->query), MSG_DONTWAIT | MSG_TRUNC,
                    (struct sockaddr *) &w->peer, &w->peerlen);
      if (n < 0)
        {
          free (w);
          return;
        }
      w->udp_fd = u->fd;
      w->tcp = NULL;
      w->next = NULL;
      if ((size_t) n > sizeof (w->query))
        n = 0; /* longer than any query the stub answers: dropped */
      handle (u->stub, w, (size_t) n);
    }
}

static void
tcp_close (struct stub_tcp *t)
{
  struct stub *s = t->stub;

  if (t->waiting)
    t->waiting->tcp = NULL; /* answered into the void */
  close (t->fd);
  if (t->prev)
    t->prev->next = t->next;
  else
    s->conns = t->next;
  if (t->next)
    t->next->prev = t->prev;
  s->ntcp--;
  free (t);
}

/* Reads and handles the next complete query, one at a time; closes on
 * EOF, errors and queries too short or too long. */
static void
tcp_next (struct stub_tcp *t)
{
  while (t->waiting == NULL)
    {
      size_t need = 2;
      ssize_t r;

      if (t->len >= 2)
        {
          need = 2 + (size_t) (t->buf[0] << 8 | t->buf[1]);
          if (need < 2 + 12 || need > sizeof (t->buf))
            {
              tcp_close (t);
              return;
            }
        }
      if (t->len >= 2 && t->len >= need)
        {
          struct waiter *w = xmalloc (sizeof (*w));

          w->udp_fd = -1;
          w->tcp = t;
          w->next = NULL;
          memcpy (w->query, t->buf + 2, need - 2);
          memmove (t->buf, t->buf + need, t->len - need);
          t->len -= need;
          t->deadline_ms = t->stub->eg->now_ms + t->stub->eg->opt.handshake_timeout_s * 1000ull;
          t->waiting = w;
          /* Goes on from waiter_done, once w is answered (t may be gone). */
          handle (t->stub, w, need - 2);
          return;
        }
      if (!t->readable)
        return;
      r = recv (t->fd, t->buf + t->len, need - t->len, MSG_DONTWAIT);
      if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
        {
          tcp_close (t);
          return;
        }
      if (r < 0)
        {
          t->readable = errno != EAGAIN;
          continue;
        }
      t->len += (size_t) r;
    }
}

static void
tcp_event (struct ev_handler *h, uint32_t events)
{
  struct stub_tcp *t = container_of (h, struct stub_tcp, ev);

  if (events & (EPOLLERR | EPOLLHUP))
    {
      tcp_close (t);
      return;
    }
  t->readable = true;
  tcp_next (t);
}

static void
tcp_accept (struct ev_handler *h, uint32_t events)
{
  struct listen_sock *l = container_of (h, struct listen_sock, ev);
  struct stub *s = l->stub;

  (void) events;
  for (int i = 0; i < UDP_BATCH; i++)
    {
      int fd = accept4 (l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
      struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET };
      struct stub_tcp *t;

      if (fd < 0)
        return;
      if (s->ntcp >= MAX_TCP)
        {
          close (fd);
          continue;
        }
      t = xzalloc (sizeof (*t));
      t->stub = s;
      t->fd = fd;
      t->ev.fn = tcp_event;
      t->deadline_ms = s->eg->now_ms + s->eg->opt.handshake_timeout_s * 1000ull;
      ev.data.ptr = &t->ev;
      if (epoll_ctl (s->eg->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
        {
          close (fd);
          free (t);
          continue;
        }
      t->next = s->conns;
      if (s->conns)
        s->conns->prev = t;
      s->conns = t;
      s->ntcp++;
      t->readable = true;
      tcp_next (t);
    }
}

static int
watch (struct egress *eg, int fd, struct ev_handler *h, const char *what, agentrt_error_t *err)
{
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = h };

  if (epoll_ctl (eg->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
    return agentrt_error (err, errno, "epoll: watch the %s (fd %d)", what, fd);
  return 0;
}

int
stub_setup (struct egress *eg, agentrt_error_t *err)
{
  int udp[2] = { eg->opt.dns_udp_fd, eg->opt.dns_udp6_fd };
  int tcp[2] = { eg->opt.dns_tcp_fd, eg->opt.dns_tcp6_fd };
  struct stub *s;

  if (udp[0] < 0 && udp[1] < 0 && tcp[0] < 0 && tcp[1] < 0)
    return 0;
  s = eg->stub = xzalloc (sizeof (*s));
  s->eg = eg;
  for (int i = 0; i < 2; i++)
    {
      s->udp[i] = (struct udp_sock){ .stub = s, .ev.fn = udp_event, .fd = udp[i] };
      s->tcp[i] = (struct listen_sock){ .stub = s, .ev.fn = tcp_accept, .fd = tcp[i] };
      if ((udp[i] >= 0 && watch (eg, udp[i], &s->udp[i].ev, "DNS UDP socket", err) < 0)
          || (tcp[i] >= 0 && watch (eg, tcp[i], &s->tcp[i].ev, "DNS TCP listener", err) < 0))
        return -1;
    }
  return 0;
}

void
stub_tick (struct egress *eg)
{
  struct stub *s = eg->stub;
  struct stub_tcp *t = s ? s->conns : NULL;

  while (t)
    {
      struct stub_tcp *next = t->next;
      if (t->waiting == NULL && eg->now_ms >= t->deadline_ms)
        tcp_close (t);
      t = next;
    }
}

bool
stub_busy (const struct egress *eg)
{
  return eg->stub && eg->stub->ntcp;
}

void
stub_free (struct egress *eg)
{
  struct stub *s = eg->stub;

  if (s == NULL)
    return;
  while (s->conns)
    tcp_close (s->conns);
  while (s->lookups)
    {
      struct lookup *l = s->lookups;
      s->lookups = l->next;
      resolve_cancel (l->r);
      while (l->waiters)
        {
          struct waiter *w = l->waiters;
          l->waiters = w->next;
          free (w);
        }
      free (l);
    }
  free (s);
  eg->stub = NULL;
}
