/* The transparent path: TCP connections the agent's nftables rules
 * redirected to --transparent-fd / --transparent6-fd.  For each: the
 * original destination (SO_ORIGINAL_DST), then the name, from
 *   - the DNS stub's answers: a name the stub gave this address (and the
 *     allowlist accepts on this port) decides at once, so that protocols
 *     where the server speaks first (SSH) work; the client's first bytes
 *     are still looked at when they come, and an SNI or Host naming
 *     another name than one the stub gave this address closes the
 *     connection before a byte of it is relayed;
 *   - an IP entry of the allowlist that lists the address itself;
 *   - otherwise the first bytes: the TLS SNI or the HTTP Host, whose name
 *     must be allowlisted and must resolve (by the sidecar, outside) to
 *     the original destination.
 * Then the address policy on the original destination, and a connection
 * to exactly that address from outside, relayed like a CONNECT tunnel.
 * What cannot be decided (no name, a name that disagrees, no first bytes
 * within the handshake timeout) is refused by resetting the connection,
 * and audited. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ask.h"
#include "egress.h"
#include "inject_rewrite.h"
#include "namecache.h"
#include "peek.h"

/* <linux/netfilter_ipv4.h>, <linux/netfilter_ipv6/ip6_tables.h> */
#define EGRESS_SO_ORIGINAL_DST 80
#define EGRESS_IP6T_SO_ORIGINAL_DST 80
/* Names of one address looked at. */
#define MAX_NAMES 8

enum
{
  TP_PEEK = 0, /* undecided: waiting for the first bytes */
  TP_CHECK,    /* decided by the stub's name: check the first bytes */
  TP_PASS,     /* relay as is */
};

static int
original_dst (struct conn *c)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof (ss);
  struct netaddr *a = &c->addrs[0];

  memset (a, 0, sizeof (*a));
  if (c->tp_family == AF_INET6)
    {
      struct sockaddr_in6 *s6 = (struct sockaddr_in6 *) &ss;
      if (getsockopt (c->client.fd, SOL_IPV6, EGRESS_IP6T_SO_ORIGINAL_DST, s6, &len) < 0
          || s6->sin6_family != AF_INET6)
        return -1;
      a->family = AF_INET6;
      memcpy (a->bytes, &s6->sin6_addr, 16);
      c->port = ntohs (s6->sin6_port);
    }
  else
    {
      struct sockaddr_in *s4 = (struct sockaddr_in *) &ss;
      if (getsockopt (c->client.fd, SOL_IP, EGRESS_SO_ORIGINAL_DST, s4, &len) < 0
          || s4->sin_family != AF_INET)
        return -1;
      a->family = AF_INET;
      memcpy (a->bytes, &s4->sin_addr, 4);
      c->port = ntohs (s4->sin_port);
    }
  c->naddrs = 1;
  /* The rules redirect nothing bound for loopback: a loopback original
   * destination is a connection to the listener itself (127.0.0.1:P or
   * [::1]:P), whose conntrack entry names the listener. */
  return c->port && netaddr_classify (a) != ADDR_LOOPBACK ? 0 : -1;
}

static void
set_name (struct conn *c, const char *name)
{
  c->host.is_addr = false;
  snprintf (c->host.name, sizeof (c->host.name), "%s", name);
}

/* Decided: the address policy, then the connection. */
static void
decided (struct conn *c, const char *via, int state)
{
  c->via = via;
  c->tp_state = state;
  c->up.paused = true;
  c->deadline_ms = c->eg->now_ms + c->eg->opt.handshake_timeout_s * 1000ull;
  conn_check_and_connect (c);
}

void
transparent_start (struct conn *c)
{
  struct egress *eg = c->eg;
  const char *names[MAX_NAMES];
  char addr[NETADDR_STR_LEN + 2];
  size_t n;

  if (original_dst (c) < 0)
    {
      c->naddrs = 0;
      conn_refuse (c, "deny", "no-original-destination");
      return;
    }
  n = eg->names ? namecache_names (eg->names, &c->addrs[0], eg->now_ms, names, MAX_NAMES) : 0;
  for (size_t i = 0; i < n; i++)
    if (allowlist_match_name (eg->allow, names[i], c->port))
      {
        set_name (c, names[i]);
        decided (c, "dns", TP_CHECK);
        return;
      }
  c->host.is_addr = true;
  c->host.addr = c->addrs[0];
  host_format (&c->host, true, addr);
  if (allowlist_match_name (eg->allow, addr, c->port))
    {
      decided (c, "addr", TP_PASS);
      return;
    }
  if (n)
    {
      /* The stub named this address, but for no name allowed on this
       * port: an SNI or Host could only disagree with it. */
      set_name (c, names[0]);
      c->via = "dns";
      conn_refuse (c, "deny", "not-allowlisted");
      return;
    }
  memset (&c->host, 0, sizeof (c->host));
  c->tp_state = TP_PEEK; /* the up flow reads the first bytes */
}

/* The first bytes of a connection decided by the stub's name: an SNI or
 * Host must name a name the stub gave this address, allowed on this port. */
static bool
check_first (struct conn *c, const struct peek *p)
{
  struct egress *eg = c->eg;

  if (p->host.is_addr)
    return netaddr_equal (&p->host.addr, &c->addrs[0]);
  if (strcmp (p->host.name, c->host.name) != 0
      && (!namecache_holds (eg->names, p->host.name, &c->addrs[0], eg->now_ms)
          || !allowlist_match_name (eg->allow, p->host.name, c->port)))
    return false;
  set_name (c, p->host.name);
  return true;
}

/* The first bytes of an undecided connection name it. */
static enum inspect_result
learn (struct conn *c, struct flow *f, const struct peek *p)
{
  c->via = peek_proto_via (p->proto);
  if (p->host.is_addr)
    {
      conn_refuse (c, "deny", "not-allowlisted"); /* a raw IP needs an IP entry */
      return INSPECT_STOP;
    }
  set_name (c, p->host.name);
  f->paused = true;
  if (!allowlist_match_name (c->eg->allow, c->host.name, c->port))
    {
      if (!ask_hold (c))
        conn_refuse (c, "deny", "not-allowlisted");
      return INSPECT_STOP;
    }
  transparent_lookup (c);
  return INSPECT_STOP;
}

void
transparent_lookup (struct conn *c)
{
  c->phase = PHASE_RESOLVING;
  c->deadline_ms = c->eg->now_ms + c->eg->opt.handshake_timeout_s * 1000ull;
  if (resolver_start (c, c->host.name) < 0)
    conn_refuse (c, "deny", "resolve-failed");
}

/* Decided and connected: relayed as it is, or, for a credential's host
 * over TLS, intercepted (mitm.c).  A plain HTTP head carrying a stand-in
 * goes out as it is, recorded. */
static enum inspect_result
pass_or_intercept (struct conn *c, struct flow *f)
{
  const struct inject_cred *seen;
  struct http_request r;
  struct http_error e;

  c->tp_state = TP_PASS;
  if (f->len && mitm_wanted (c, f))
    {
      mitm_start (c, f, NULL);
      return INSPECT_STOP;
    }
  if (f->len && c->eg->inject
      && http_parse_origin_request (f->buf + f->off, f->len, c->port, &r, &e) == HTTP_PARSE_DONE
      && (seen = inject_find_standin (c->eg->inject, f->buf + f->off, r.head.len, &r.head)))
    c->standin = seen->name;
  f->pass = FLOW_UNTIL_EOF;
  return INSPECT_CONTINUE;
}

enum inspect_result
transparent_inspect_up (struct conn *c, struct flow *f)
{
  struct peek p;
  enum peek_result r;

  if (c->tp_state == TP_PASS || (c->tp_state == TP_CHECK && f->len == 0 && f->eof))
    return pass_or_intercept (c, f);
  if (f->len == 0 && f->eof)
    {
      conn_close (c, "client-closed");
      return INSPECT_STOP;
    }
  if (f->len == 0)
    return INSPECT_NEED_INPUT;
  r = peek_first_bytes ((const uint8_t *) f->buf + f->off, f->len, f->eof, &p);
  if (r == PEEK_MORE)
    return INSPECT_NEED_INPUT;
  if (c->tp_state == TP_PEEK)
    {
      if (r == PEEK_NAME)
        return learn (c, f, &p);
      if (r == PEEK_BAD)
        c->via = peek_proto_via (p.proto);
      conn_refuse (c, "deny", r == PEEK_BAD ? p.reason : "no-name");
      return INSPECT_STOP;
    }
  /* TP_CHECK */
  if (r == PEEK_BAD || (r == PEEK_NAME && !check_first (c, &p)))
    {
      if (r == PEEK_NAME)
        set_name (c, p.host.is_addr ? c->host.name : p.host.name);
      c->via = peek_proto_via (p.proto);
      c->decision = NULL; /* the stub's name allowed it until the first bytes */
      conn_refuse (c, "deny", r == PEEK_BAD ? p.reason : "name-mismatch");
      return INSPECT_STOP;
    }
  if (r == PEEK_NAME)
    c->via = peek_proto_via (p.proto);
  return pass_or_intercept (c, f);
}

enum inspect_result
transparent_inspect_down (struct conn *c, struct flow *f)
{
  (void) c;
  (void) f;
  return INSPECT_STOP; /* nothing comes from upstream before it is connected */
}

void
transparent_upstream_ready (struct conn *c)
{
  c->down.pass = FLOW_UNTIL_EOF;
  c->up.paused = false;
}

/* The name the first bytes gave was looked up: it must lead to the
 * original destination, and all its addresses must pass the policy. */
void
transparent_resolved (struct conn *c, const struct resolve_result *res)
{
  struct netaddr orig = c->addrs[0];
  bool found = false;

  if (res->failure)
    {
      conn_refuse (c, "deny", res->failure);
      return;
    }
  for (size_t i = 0; i < res->n; i++)
    {
      enum addr_class cls = netaddr_classify (&res->addrs[i]);

      found = found || netaddr_equal (&res->addrs[i], &orig);
      if (cls != ADDR_PUBLIC && !allowlist_unlocks (c->eg->allow, &res->addrs[i], c->port))
        {
          c->addrs[0] = res->addrs[i]; /* the audit line names it */
          conn_refuse (c, "deny", addr_class_reason (cls));
          return;
        }
    }
  if (!found)
    {
      conn_refuse (c, "deny", "address-mismatch");
      return;
    }
  /* The sidecar's own answer, checked: later connections to the address
   * find the name without a lookup.  Not a name only the approver let
   * through: the cache names addresses for the allowlist (the stub's
   * answers), and such a name there would refuse the next connection to
   * the address unasked, whatever its first bytes say. */
  for (int fam = 0; fam < 2 && c->asked == NULL; fam++)
    if (res->result[fam] == DNS_OK)
      namecache_put (c->eg->names, c->host.name, fam ? AF_INET6 : AF_INET, DNS_OK, res->addrs,
                     res->n, res->ttl[fam], c->eg->now_ms);
  c->tp_state = TP_PASS;
  c->addrs[0] = orig;
  c->naddrs = 1;
  conn_check_and_connect (c);
}
