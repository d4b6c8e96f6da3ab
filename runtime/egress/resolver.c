/* Name resolution inside the event loop, with no threads and no NSS: the
 * hosts file read at startup first, then A and AAAA queries over UDP to
 * the resolv.conf nameservers in parallel.  Each query gets a random id
 * and its own connected socket (so a random source port, and the kernel
 * drops datagrams from anyone but the server); answers that are not for
 * our question are ignored; failures and timeouts move on to the next
 * server, `attempts` rounds at most. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "dns.h"
#include "egress.h"

#define DNS_PORT 53
/* Once one family has answered, how long the other may still take. */
#define DNS_GRACE_MS 500

#define container_of(p, type, member) ((type *) ((char *) (p) - offsetof (type, member)))

struct dns_query
{
  struct resolve *r;
  struct ev_handler ev;
  int fd;
  uint16_t id, qtype;
  unsigned tries;
  uint64_t deadline_ms;
  bool done, last_chance;
  enum dns_result result;
  uint32_t ttl;
  struct netaddr addrs[EGRESS_MAX_ADDRS];
  size_t n;
};

struct resolve
{
  struct egress *eg;
  struct resolve *prev, *next; /* eg->resolves */
  resolve_fn fn;
  void *owner;
  char name[HOST_NAME_MAX_LEN + 1];
  struct dns_query q[2];
};

static void
query_close (struct egress *eg, struct dns_query *q)
{
  if (q->fd >= 0)
    {
      epoll_ctl (eg->epfd, EPOLL_CTL_DEL, q->fd, NULL);
      close (q->fd);
      q->fd = -1;
    }
}

void
resolve_cancel (struct resolve *r)
{
  struct egress *eg;

  if (r == NULL)
    return;
  eg = r->eg;
  query_close (eg, &r->q[0]);
  query_close (eg, &r->q[1]);
  if (r->prev)
    r->prev->next = r->next;
  else
    eg->resolves = r->next;
  if (r->next)
    r->next->prev = r->prev;
  free (r);
  eg->dns_pending--;
}
/* Sends the query to the server for this try; false if none is left or
 * the socket cannot be made. */
static bool
query_send (struct egress *eg, struct dns_query *q)
{
  const struct netaddr *ns;
  struct sockaddr_storage ss;
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &q->ev };
  uint8_t msg[DNS_QUERY_MAX];
  size_t len;
  socklen_t slen;

  query_close (eg, q);
  if (q->tries >= eg->rc.attempts * eg->rc.nns)
    return false;
  ns = &eg->rc.ns[q->tries++ % eg->rc.nns];
  slen = netaddr_to_sockaddr (ns, DNS_PORT, &ss);
  if (getrandom (&q->id, sizeof (q->id), 0) != sizeof (q->id))
    return false;
  q->fd = socket (ns->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (q->fd < 0)
    return false;
  len = dns_build_query (msg, q->id, q->r->name, q->qtype);
  if (connect (q->fd, (struct sockaddr *) &ss, slen) < 0
      || send (q->fd, msg, len, MSG_NOSIGNAL) != (ssize_t) len
      || epoll_ctl (eg->epfd, EPOLL_CTL_ADD, q->fd, &ev) < 0)
    {
      query_close (eg, q);
      return q->tries < eg->rc.attempts * eg->rc.nns ? query_send (eg, q) : false;
    }
  q->deadline_ms = eg->now_ms + eg->rc.timeout_s * 1000ull;
  return true;
}

/* Both queries are done: hand the addresses (IPv4 first) to the owner. */
static void
resolve_finish (struct resolve *r)
{
  struct resolve_result res = { .n = 0 };
  resolve_fn fn = r->fn;
  void *owner = r->owner;
  bool absent = true;

  for (int i = 0; i < 2; i++)
    {
      for (size_t k = 0; k < r->q[i].n && res.n < EGRESS_MAX_ADDRS; k++)
        res.addrs[res.n++] = r->q[i].addrs[k];
      res.result[i] = r->q[i].result;
      res.ttl[i] = r->q[i].ttl;
      absent = absent && (r->q[i].result == DNS_NXDOMAIN || r->q[i].result == DNS_NODATA);
    }
  if (res.n == 0)
    res.failure = absent ? "nxdomain" : "resolve-failed";
  resolve_cancel (r);
  fn (owner, &res);
}

/* Returns false when that finished (and freed) the lookup. */
static bool
query_done (struct resolve *r, struct dns_query *q, enum dns_result result)
{
  struct egress *eg = r->eg;
  struct dns_query *other = q == &r->q[0] ? &r->q[1] : &r->q[0];

  q->done = true;
  q->result = result;
  query_close (eg, q);
  if (!other->done)
    {
      if (result == DNS_OK && eg->now_ms + DNS_GRACE_MS < other->deadline_ms)
        other->deadline_ms = eg->now_ms + DNS_GRACE_MS;
      other->last_chance = other->last_chance || result == DNS_OK;
      return true;
    }
  resolve_finish (r);
  return false;
}

/* A failed try: the next server, or give up.  False when that finished
 * the lookup. */
static bool
query_retry (struct resolve *r, struct dns_query *q)
{
  if (q->last_chance || !query_send (r->eg, q))
    return query_done (r, q, DNS_FAIL);
  return true;
}

static void
query_event (struct ev_handler *h, uint32_t events)
{
  struct dns_query *q = container_of (h, struct dns_query, ev);
  struct resolve *r = q->r;
  uint8_t msg[DNS_ANSWER_MAX];

  (void) events;
  for (;;)
    {
      ssize_t len = recv (q->fd, msg, sizeof (msg), MSG_DONTWAIT);
      enum dns_result res;

      if (len < 0)
        {
          if (errno == EAGAIN || errno == EINTR)
            return;
          query_retry (r, q); /* ICMP unreachable and the like */
          return;
        }
      res = dns_parse_response (msg, (size_t) len, q->id, r->name, q->qtype, q->addrs,
                                EGRESS_MAX_ADDRS, &q->n, &q->ttl);
      if (res == DNS_IGNORE)
        continue;
      if (res == DNS_FAIL)
        query_retry (r, q);
      else
        query_done (r, q, res);
      return;
    }
}

int
resolve_start (struct egress *eg, const char *name, resolve_fn fn, void *owner,
               struct resolve **out)
{
  struct resolve_result res = { .n = 0 };
  struct resolve *r;

  *out = NULL;
  res.n = hosts_lookup (eg->hosts, eg->hosts_len, name, res.addrs, EGRESS_MAX_ADDRS);
  if (res.n)
    {
      for (size_t i = 0; i < res.n; i++)
        res.result[res.addrs[i].family == AF_INET6] = DNS_OK;
      for (int i = 0; i < 2; i++)
        {
          if (res.result[i] != DNS_OK)
            res.result[i] = DNS_NODATA;
          res.ttl[i] = RESOLVE_HOSTS_TTL;
        }
      fn (owner, &res);
      return 1;
    }
  r = xzalloc (sizeof (*r));
  r->eg = eg;
  r->fn = fn;
  r->owner = owner;
  strcpy (r->name, name);
  r->next = eg->resolves;
  if (eg->resolves)
    eg->resolves->prev = r;
  eg->resolves = r;
  eg->dns_pending++;
  for (int i = 0; i < 2; i++)
    {
      r->q[i].r = r;
      r->q[i].fd = -1;
      r->q[i].ev.fn = query_event;
      r->q[i].qtype = i == 0 ? DNS_TYPE_A : DNS_TYPE_AAAA;
    }
  for (int i = 0; i < 2; i++)
    if (!query_send (eg, &r->q[i]))
      {
        resolve_cancel (r);
        return -1;
      }
  *out = r;
  return 0;
}

void
resolve_tick (struct egress *eg)
{
  struct resolve *r = eg->resolves;

  while (r)
    {
      struct resolve *next = r->next;

      for (int i = 0; i < 2; i++)
        {
          struct dns_query *q = &r->q[i];

          /* Finishing the lookup frees r (and only r: an owner cancels
           * no other lookup from its callback). */
          if (!q->done && eg->now_ms >= q->deadline_ms && !query_retry (r, q))
            break;
        }
      r = next;
    }
}
