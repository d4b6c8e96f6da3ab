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

struct resolve;

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
  struct netaddr addrs[EGRESS_MAX_ADDRS];
  size_t n;
};

struct resolve
{
  struct conn *c;
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

static void
resolve_free (struct egress *eg, struct resolve *r)
{
  query_close (eg, &r->q[0]);
  query_close (eg, &r->q[1]);
  free (r);
  eg->dns_pending--;
}

void
resolver_cancel (struct conn *c)
{
  if (c->dns == NULL)
    return;
  resolve_free (c->eg, c->dns);
  c->dns = NULL;
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

/* Both queries are done: hand the addresses (IPv4 first) to the
 * connection. */
static void
resolve_finish (struct resolve *r)
{
  struct conn *c = r->c;
  struct netaddr addrs[EGRESS_MAX_ADDRS];
  size_t n = 0;
  bool absent = true;

  for (int i = 0; i < 2; i++)
    {
      for (size_t k = 0; k < r->q[i].n && n < EGRESS_MAX_ADDRS; k++)
        addrs[n++] = r->q[i].addrs[k];
      absent = absent && (r->q[i].result == DNS_NXDOMAIN || r->q[i].result == DNS_NODATA);
    }
  resolver_cancel (c);
  if (n)
    conn_resolved (c, addrs, n, NULL);
  else
    conn_resolved (c, NULL, 0, absent ? "nxdomain" : "resolve-failed");
}

static void
query_done (struct resolve *r, struct dns_query *q, enum dns_result result)
{
  struct egress *eg = r->c->eg;
  struct dns_query *other = q == &r->q[0] ? &r->q[1] : &r->q[0];

  q->done = true;
  q->result = result;
  query_close (eg, q);
  if (!other->done)
    {
      if (result == DNS_OK && eg->now_ms + DNS_GRACE_MS < other->deadline_ms)
        other->deadline_ms = eg->now_ms + DNS_GRACE_MS;
      other->last_chance = other->last_chance || result == DNS_OK;
      return;
    }
  resolve_finish (r);
}

/* A failed try: the next server, or give up. */
static void
query_retry (struct resolve *r, struct dns_query *q)
{
  if (q->last_chance || !query_send (r->c->eg, q))
    query_done (r, q, DNS_FAIL);
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
                                EGRESS_MAX_ADDRS, &q->n);
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
resolver_start (struct conn *c, const char *name)
{
  struct egress *eg = c->eg;
  struct netaddr addrs[EGRESS_MAX_ADDRS];
  size_t n = hosts_lookup (eg->hosts, eg->hosts_len, name, addrs, EGRESS_MAX_ADDRS);
  struct resolve *r;

  if (n)
    {
      conn_resolved (c, addrs, n, NULL);
      return 0;
    }
  r = xzalloc (sizeof (*r));
  r->c = c;
  strcpy (r->name, name);
  c->dns = r;
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
        resolver_cancel (c);
        return -1;
      }
  return 0;
}

void
resolver_tick (struct conn *c)
{
  struct resolve *r = c->dns;

  for (int i = 0; r && i < 2; i++)
    {
      struct dns_query *q = &r->q[i];

      if (!q->done && c->eg->now_ms >= q->deadline_ms)
        {
          query_retry (r, q);
          r = c->dns; /* gone if that finished the lookup */
        }
    }
}
