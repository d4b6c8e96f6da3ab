/* The sidecar asks the approver (see ask.h; docs/egress.md, Asking a
 * person).  The socket is the runtime's: connected before the sidecar
 * started, so the lockdown (no filesystem, no new unix sockets) holds.
 * What the approver sends is parsed strictly (oci/ask_line.c); a line
 * that is not an answer, a line too long, an error or EOF ends asking for
 * the container's lifetime: every question in flight is denied at once
 * and so is every later one (the sidecar cannot reconnect by design: it
 * opens no path). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "ask.h"
#include "ask_table.h"
#include "oci/ask_line.h"

#define container_of(p, type, member) ((type *) ((char *) (p) - offsetof (type, member)))

struct ask
{
  struct egress *eg;
  int fd; /* -1 once the approver is gone */
  uid_t uid;
  struct ev_handler ev;
  struct ask_table table;
  char buf[ASK_LINE_MAX];
  size_t len;
};

/* One line to the approver, whole, or the approver is gone. */
static void approver_gone (struct ask *a, const char *why);

static void
send_msg (struct ask *a, const struct ask_msg *m)
{
  size_t len;
  char *line;
  ssize_t r;

  if (a->fd < 0)
    return;
  line = ask_msg_format (m, &len);
  do
    r = send (a->fd, line, len, MSG_DONTWAIT | MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  free (line);
  if (r != (ssize_t) len)
    approver_gone (a, r < 0 ? strerror (errno) : "a short write");
}

static void
send_done (struct ask *a, const struct ask_pending *q, const char *outcome)
{
  struct ask_msg m = { .type = ASK_MSG_DONE, .qid = q->qid };

  snprintf (m.id, sizeof m.id, "%s", a->eg->opt.id);
  snprintf (m.outcome, sizeof m.outcome, "%s", outcome);
  send_msg (a, &m);
}

/* The question is settled: audited, its slot freed, and every connection
 * it held goes on (allowed) or is denied (reason). */
static void
settle (struct ask *a, struct ask_pending *q, const char *answer, const char *allowed,
        const char *reason)
{
  struct egress *eg = a->eg;
  uint64_t qid = q->qid;
  struct conn *c, *next;

  audit_ask (eg, q, answer, a->uid);
  ask_table_settle (&a->table, q);
  for (c = eg->conns; c; c = next)
    {
      next = c->next;
      if (c->dead || c->phase != PHASE_ASKING || c->ask_qid != qid)
        continue;
      c->ask_qid = 0;
      c->phase = PHASE_REQUEST;
      if (allowed)
        {
          c->asked = allowed;
          conn_open_allowed (c);
        }
      else
        conn_deny (c, reason);
    }
}

static void
approver_gone (struct ask *a, const char *why)
{
  char msg[256];
  struct ask_pending *q;

  if (a->fd < 0)
    return;
  close (a->fd); /* leaves the epoll set */
  a->fd = -1;
  snprintf (msg, sizeof msg, "the approver's connection ended (%s): destinations "
            "outside the allowlist are denied from now on", why);
  audit_stopped (&a->eg->opt, msg);
  for (unsigned i = 0; i < a->table.max_pending; i++)
    if ((q = &a->table.pending[i])->qid)
      settle (a, q, "approver-gone", NULL, "ask-unavailable");
}

static void
on_answer (struct ask *a, const char *line, size_t len)
{
  cleanup_error agentrt_error_t err = NULL;
  enum ask_answer answer;
  struct ask_pending *q;
  uint64_t qid;

  if (ask_answer_parse (line, len, &qid, &answer, &err) < 0)
    {
      approver_gone (a, err->msg);
      return;
    }
  q = ask_table_find (&a->table, qid);
  if (q == NULL)
    return; /* settled already (its time was up): "done" told the approver */
  if (answer == ASK_ALLOW_ALWAYS)
    ask_table_remember (&a->table, q->host, q->port);
  if (answer == ASK_DENY)
    settle (a, q, ask_answer_name (answer), NULL, "ask-denied");
  else
    settle (a, q, ask_answer_name (answer), ask_answer_name (answer), NULL);
}

static void
approver_event (struct ev_handler *h, uint32_t events)
{
  struct ask *a = container_of (h, struct ask, ev);

  (void) events;
  while (a->fd >= 0)
    {
      ssize_t r = recv (a->fd, a->buf + a->len, sizeof a->buf - a->len, MSG_DONTWAIT);
      char *nl;

      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0 && errno == EAGAIN)
        return;
      if (r <= 0)
        {
          approver_gone (a, r == 0 ? "closed" : strerror (errno));
          return;
        }
      a->len += (size_t) r;
      while (a->fd >= 0 && (nl = memchr (a->buf, '\n', a->len)) != NULL)
        {
          size_t n = (size_t) (nl - a->buf) + 1;
          on_answer (a, a->buf, n);
          memmove (a->buf, a->buf + n, a->len - n);
          a->len -= n;
        }
      if (a->len == sizeof a->buf)
        approver_gone (a, "a line longer than 2048 bytes");
    }
}

int
ask_setup (struct egress *eg, agentrt_error_t *err)
{
  const struct egress_options *o = &eg->opt;
  struct ask_msg hello = { .type = ASK_MSG_HELLO, .version = ASK_PROTOCOL_VERSION };
  struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
  int domain = 0, type = 0, flags;
  socklen_t len = sizeof (int);
  struct ucred cred;
  struct ask *a;

  if (o->approver_fd < 0)
    return 0;
  if (getsockopt (o->approver_fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0
      || getsockopt (o->approver_fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0
      || domain != AF_UNIX || type != SOCK_STREAM)
    return agentrt_error (err, errno ? errno : EINVAL, "--approver-fd %d is not a unix "
                          "stream socket", o->approver_fd);
  len = sizeof cred;
  if (getsockopt (o->approver_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
    return agentrt_error (err, errno, "--approver-fd %d: whose is it (SO_PEERCRED)",
                          o->approver_fd);
  flags = fcntl (o->approver_fd, F_GETFL);
  if (flags < 0 || fcntl (o->approver_fd, F_SETFL, flags | O_NONBLOCK) < 0
      || fcntl (o->approver_fd, F_SETFD, FD_CLOEXEC) < 0)
    return agentrt_error (err, errno, "--approver-fd %d: fcntl", o->approver_fd);
  a = xzalloc (sizeof *a);
  a->eg = eg;
  a->fd = o->approver_fd;
  a->uid = cred.uid;
  a->ev.fn = approver_event;
  ask_table_init (&a->table, o->ask_max);
  ev.data.ptr = &a->ev;
  eg->ask = a;
  if (epoll_ctl (eg->epfd, EPOLL_CTL_ADD, a->fd, &ev) < 0)
    return agentrt_error (err, errno, "epoll: watch the approver (fd %d)", a->fd);
  snprintf (hello.id, sizeof hello.id, "%s", o->id);
  send_msg (a, &hello);
  return 0;
}

void
ask_free (struct egress *eg)
{
  struct ask *a = eg->ask;

  if (a == NULL)
    return;
  if (a->fd >= 0)
    close (a->fd);
  ask_table_free (&a->table);
  free (a);
  eg->ask = NULL;
}

/* Never asked about: an address in special-purpose space the allowlist
 * does not unlock. */
static bool
special (struct egress *eg, const struct netaddr *addr, uint16_t port)
{
  return netaddr_classify (addr) != ADDR_PUBLIC && !allowlist_unlocks (eg->allow, addr, port);
}

/* The address policy as far as it can be known without a DNS query: the
 * literal, the original destination of a transparent connection, what
 * the hosts file says of the name. */
static bool
askable (struct conn *c)
{
  struct egress *eg = c->eg;
  struct netaddr addrs[EGRESS_MAX_ADDRS];
  size_t n;

  if (c->host.is_addr)
    return !special (eg, &c->host.addr, c->port);
  if (c->kind == KIND_TRANSPARENT && c->naddrs > 0 && special (eg, &c->addrs[0], c->port))
    return false;
  n = hosts_lookup (eg->hosts, eg->hosts_len, c->host.name, addrs, EGRESS_MAX_ADDRS);
  for (size_t i = 0; i < n; i++)
    if (special (eg, &addrs[i], c->port))
      return false;
  return true;
}

bool
ask_hold (struct conn *c)
{
  struct egress *eg = c->eg;
  struct ask *a = eg->ask;
  struct ask_msg m = { .type = ASK_MSG_QUESTION };
  struct ask_pending *q;

  if (a == NULL || !askable (c))
    return false;
  if (a->fd < 0)
    {
      conn_deny (c, "ask-unavailable");
      return true;
    }
  host_format (&c->host, false, m.host);
  switch (ask_table_ask (&a->table, m.host, c->port, eg->now_ms,
                         eg->opt.ask_timeout_s * 1000ull, &q))
    {
    case ASK_ALLOWED:
      c->asked = "allow-always";
      conn_open_allowed (c);
      return true;
    case ASK_FULL:
      conn_deny (c, "ask-busy");
      return true;
    case ASK_JOINED:
      break;
    case ASK_NEW:
      q->proto = c->proto;
      q->via = c->via ? c->via : "proxy";
      m.qid = q->qid;
      m.port = c->port;
      m.timeout_ms = eg->opt.ask_timeout_s * 1000u;
      snprintf (m.id, sizeof m.id, "%s", eg->opt.id);
      snprintf (m.proto, sizeof m.proto, "%s", q->proto);
      snprintf (m.via, sizeof m.via, "%s", q->via);
      break;
    }
  c->phase = PHASE_ASKING;
  c->ask_qid = q->qid;
  /* the question's own deadline comes first (ask_tick) */
  c->deadline_ms = q->deadline_ms + 1000;
  if (m.qid)
    send_msg (a, &m); /* the approver gone: c was denied with the rest */
  return true;
}

void
ask_tick (struct egress *eg)
{
  struct ask *a = eg->ask;
  struct ask_pending *q;

  if (a == NULL)
    return;
  while ((q = ask_table_expired (&a->table, eg->now_ms)) != NULL)
    {
      send_done (a, q, "timeout");
      if (q->qid) /* not settled by the approver's going away meanwhile */
        settle (a, q, "timeout", NULL, "ask-timeout");
    }
}
