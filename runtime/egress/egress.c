/* agentrt-egress: the egress proxy sidecar, the agent container's only way
 * out.  The runtime creates the listening sockets inside the agent's
 * network namespace (which has only `lo`) and execs this program in the
 * outer namespace with them inherited, so it accepts from inside and
 * connects out from outside.
 *
 * Contract (docs/egress.md):
 *   agentrt-egress --id ID --http-fd N --socks-fd N --init-pidfd N
 *                  --audit-fd N --allow "LIST"
 *                  [--resolv-conf-fd N] [--hosts-fd N] [--uid U --gid G]
 *                  [--idle-timeout S] [--handshake-timeout S]
 *                  [--max-conns N] [--busy-poll-us N] [--allow-broad]
 *                  [--no-landlock]
 *                  [--transparent-fd N] [--transparent6-fd N]
 *                  [--dns-udp-fd N] [--dns-tcp-fd N] [--dns-udp6-fd N]
 *                  [--dns-tcp6-fd N] [--dns-cache-entries N]
 *                  [--approver-fd N [--ask-timeout S] [--ask-max N]]
 *                  [--credentials-fd N [--trust-store PATH]]
 *   agentrt-egress --make-ca HOSTS --id ID [--ca-days N]
 *   --http-fd, --socks-fd  listening TCP sockets (HTTP/1.1 proxy, SOCKS5)
 *   --init-pidfd           pidfd of the container's init: when it becomes
 *                          readable (init exited) the proxy exits
 *   --audit-fd             one JSON line per connection is written here
 *   --allow                the allowlist, already validated by the runtime
 *                          with allowlist_parse (parsed again here)
 *   --resolv-conf-fd, --hosts-fd  read once at startup; default
 *                          /etc/resolv.conf and /etc/hosts
 *   --uid, --gid           default 65534; only switchable from root
 *   --idle-timeout 300, --handshake-timeout 10 (seconds), --max-conns 1024
 *   --busy-poll-us         the most it polls for events before sleeping
 *                          (default 100, 0: never; see poll_window.h)
 *   --transparent-fd, --transparent6-fd  listening TCP sockets in the
 *                          agent's namespace that its nftables rules
 *                          REDIRECT every outgoing TCP connection to
 *                          (transparent.c)
 *   --dns-udp-fd, --dns-tcp-fd (and -6)  a UDP socket and a listening TCP
 *                          socket there that its rules send every DNS
 *                          query to (stub.c); --dns-cache-entries bounds
 *                          what the stub remembers (default 4096)
 *   --approver-fd          a unix stream socket connected to the
 *                          approver (ask.c): destinations outside the
 *                          allowlist are asked about, each question
 *                          waiting --ask-timeout seconds (30), at most
 *                          --ask-max (16) at once
 *   --credentials-fd       a pipe with the runtime's credential message
 *                          (inject_wire.h), read to its end at startup:
 *                          connections to those credentials' hosts are
 *                          intercepted (mitm.c), verified against
 *                          --trust-store (default
 *                          /etc/ssl/certs/ca-certificates.crt)
 *   --make-ca HOSTS        makes the container's CA (tls.h) for the comma
 *                          list HOSTS, valid --ca-days (default 2), writes
 *                          its key and certificate (PEM) to stdout, exits
 * Every fd is inherited; nothing else from the environment is used.  The
 * proxy exits 0 on SIGTERM, SIGINT or init exit, 1 when it cannot start
 * (message on stderr), 2 on a usage error. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "ask.h"
#include "egress.h"
#include "inject_wire.h"
#include "lockdown.h"
#include "namecache.h"
#include "runtime/fault.h"
#include "selftest.h"
#include "tls.h"

#define TICK_MS 250
#define MAX_EVENTS 256
#define DEFAULT_UID 65534
/* Pipe capacity asked for; the kernel keeps its default when the user's
 * pipe quota (fs.pipe-user-pages-soft) is used up. */
#define PIPE_SIZE (1024 * 1024)

#define container_of(p, type, member) ((type *) ((char *) (p) - offsetof (type, member)))

static uint64_t
now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

uint64_t
egress_now_ms (void)
{
  return now_us () / 1000;
}

static void __attribute__ ((noreturn))
usage (const char *msg)
{
  fprintf (stderr,
           "agentrt-egress: %s\n"
           "usage: agentrt-egress --id ID --http-fd N --socks-fd N --init-pidfd N "
           "--audit-fd N --allow LIST\n"
           "       [--resolv-conf-fd N] [--hosts-fd N] [--uid U --gid G] [--idle-timeout S]\n"
           "       [--handshake-timeout S] [--max-conns N] [--busy-poll-us N] [--allow-broad]\n"
           "       [--no-landlock] [--transparent-fd N] [--transparent6-fd N]\n"
           "       [--dns-udp-fd N] [--dns-tcp-fd N] [--dns-udp6-fd N] [--dns-tcp6-fd N]\n"
           "       [--dns-cache-entries N] [--approver-fd N [--ask-timeout S] [--ask-max N]]\n"
           "       [--credentials-fd N [--trust-store PATH]]\n"
           "       agentrt-egress --make-ca HOSTS --id ID [--ca-days N]\n",
           msg);
  exit (2);
}

static unsigned
number (const char *name, const char *s, unsigned min, unsigned max)
{
  char *end;
  unsigned long v;

  errno = 0;
  v = strtoul (s, &end, 10);
  if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
    {
      char msg[96];
      snprintf (msg, sizeof (msg), "--%s: expected a number from %u to %u", name, min, max);
      usage (msg);
    }
  return (unsigned) v;
}

static void
parse_args (int argc, char **argv, struct egress_options *o)
{
  enum { O_ID = 256, O_HTTP, O_SOCKS, O_PIDFD, O_AUDIT, O_ALLOW, O_RESOLV, O_HOSTS, O_UID,
         O_GID, O_IDLE, O_HANDSHAKE, O_MAX, O_POLL, O_BROAD, O_NOLL, O_SELFTEST, O_TP, O_TP6,
         O_DUDP, O_DTCP, O_DUDP6, O_DTCP6, O_DCACHE, O_APPROVER, O_ASKTIME, O_ASKMAX, O_CREDS,
         O_TRUST, O_MKCA, O_CADAYS };
  static const struct option opts[] = {
    { "id", required_argument, NULL, O_ID },
    { "http-fd", required_argument, NULL, O_HTTP },
    { "socks-fd", required_argument, NULL, O_SOCKS },
    { "init-pidfd", required_argument, NULL, O_PIDFD },
    { "audit-fd", required_argument, NULL, O_AUDIT },
    { "allow", required_argument, NULL, O_ALLOW },
    { "resolv-conf-fd", required_argument, NULL, O_RESOLV },
    { "hosts-fd", required_argument, NULL, O_HOSTS },
    { "uid", required_argument, NULL, O_UID },
    { "gid", required_argument, NULL, O_GID },
    { "idle-timeout", required_argument, NULL, O_IDLE },
    { "handshake-timeout", required_argument, NULL, O_HANDSHAKE },
    { "max-conns", required_argument, NULL, O_MAX },
    { "busy-poll-us", required_argument, NULL, O_POLL },
    { "allow-broad", no_argument, NULL, O_BROAD },
    { "no-landlock", no_argument, NULL, O_NOLL },
    { "self-test", required_argument, NULL, O_SELFTEST },
    { "transparent-fd", required_argument, NULL, O_TP },
    { "transparent6-fd", required_argument, NULL, O_TP6 },
    { "dns-udp-fd", required_argument, NULL, O_DUDP },
    { "dns-tcp-fd", required_argument, NULL, O_DTCP },
    { "dns-udp6-fd", required_argument, NULL, O_DUDP6 },
    { "dns-tcp6-fd", required_argument, NULL, O_DTCP6 },
    { "dns-cache-entries", required_argument, NULL, O_DCACHE },
    { "approver-fd", required_argument, NULL, O_APPROVER },
    { "ask-timeout", required_argument, NULL, O_ASKTIME },
    { "ask-max", required_argument, NULL, O_ASKMAX },
    { "credentials-fd", required_argument, NULL, O_CREDS },
    { "trust-store", required_argument, NULL, O_TRUST },
    { "make-ca", required_argument, NULL, O_MKCA },
    { "ca-days", required_argument, NULL, O_CADAYS },
    { NULL, 0, NULL, 0 },
  };
  int c;

  *o = (struct egress_options){
    .http_fd = -1, .socks_fd = -1, .init_pidfd = -1, .audit_fd = -1, .resolv_fd = -1,
    .hosts_fd = -1, .uid = DEFAULT_UID, .gid = DEFAULT_UID, .idle_timeout_s = 300,
    .handshake_timeout_s = 10, .max_conns = 1024, .busy_poll_us = POLL_WINDOW_DEFAULT_US,
    .transparent_fd = -1, .transparent6_fd = -1, .dns_udp_fd = -1, .dns_tcp_fd = -1,
    .dns_udp6_fd = -1, .dns_tcp6_fd = -1, .dns_cache_entries = NAMECACHE_DEFAULT_ENTRIES,
    .approver_fd = -1, .ask_timeout_s = 30, .ask_max = 16,
    .credentials_fd = -1, .trust_store = "/etc/ssl/certs/ca-certificates.crt", .ca_days = 2,
  };
  while ((c = getopt_long (argc, argv, "", opts, NULL)) != -1)
    switch (c)
      {
      case O_ID: o->id = optarg; break;
      case O_HTTP: o->http_fd = (int) number ("http-fd", optarg, 0, 1 << 20); break;
      case O_SOCKS: o->socks_fd = (int) number ("socks-fd", optarg, 0, 1 << 20); break;
      case O_PIDFD: o->init_pidfd = (int) number ("init-pidfd", optarg, 0, 1 << 20); break;
      case O_AUDIT: o->audit_fd = (int) number ("audit-fd", optarg, 0, 1 << 20); break;
      case O_ALLOW: o->allow = optarg; break;
      case O_RESOLV: o->resolv_fd = (int) number ("resolv-conf-fd", optarg, 0, 1 << 20); break;
      case O_HOSTS: o->hosts_fd = (int) number ("hosts-fd", optarg, 0, 1 << 20); break;
      case O_UID: o->uid = number ("uid", optarg, 1, 0xfffffffe); break;
      case O_GID: o->gid = number ("gid", optarg, 1, 0xfffffffe); break;
      case O_IDLE: o->idle_timeout_s = number ("idle-timeout", optarg, 1, 86400); break;
      case O_HANDSHAKE: o->handshake_timeout_s = number ("handshake-timeout", optarg, 1, 600); break;
      case O_MAX: o->max_conns = number ("max-conns", optarg, 1, 100000); break;
      case O_POLL: o->busy_poll_us = number ("busy-poll-us", optarg, 0, POLL_WINDOW_MAX_US); break;
      case O_BROAD: o->allow_broad = true; break;
      case O_NOLL: o->no_landlock = true; break;
      case O_SELFTEST: o->self_test = optarg; break;
      case O_TP: o->transparent_fd = (int) number ("transparent-fd", optarg, 0, 1 << 20); break;
      case O_TP6: o->transparent6_fd = (int) number ("transparent6-fd", optarg, 0, 1 << 20); break;
      case O_DUDP: o->dns_udp_fd = (int) number ("dns-udp-fd", optarg, 0, 1 << 20); break;
      case O_DTCP: o->dns_tcp_fd = (int) number ("dns-tcp-fd", optarg, 0, 1 << 20); break;
      case O_DUDP6: o->dns_udp6_fd = (int) number ("dns-udp6-fd", optarg, 0, 1 << 20); break;
      case O_DTCP6: o->dns_tcp6_fd = (int) number ("dns-tcp6-fd", optarg, 0, 1 << 20); break;
      case O_DCACHE: o->dns_cache_entries = number ("dns-cache-entries", optarg, 1, 1 << 20); break;
      case O_APPROVER: o->approver_fd = (int) number ("approver-fd", optarg, 0, 1 << 20); break;
      case O_ASKTIME: o->ask_timeout_s = number ("ask-timeout", optarg, 1, 600); break;
      case O_ASKMAX: o->ask_max = number ("ask-max", optarg, 1, 256); break;
      case O_CREDS: o->credentials_fd = (int) number ("credentials-fd", optarg, 0, 1 << 20); break;
      case O_TRUST: o->trust_store = optarg; break;
      case O_MKCA: o->make_ca = optarg; break;
      case O_CADAYS: o->ca_days = number ("ca-days", optarg, 1, 3660); break;
      default: usage ("unknown option");
      }
  if (optind != argc)
    usage ("unexpected argument");
  if (o->self_test)
    return;
  if (o->make_ca && !o->id)
    usage ("--make-ca needs --id");
  if (o->make_ca)
    return;
  if (!o->id || !o->allow || o->http_fd < 0 || o->socks_fd < 0 || o->init_pidfd < 0
      || o->audit_fd < 0)
    usage ("--id, --http-fd, --socks-fd, --init-pidfd, --audit-fd and --allow are required");
}

/* Reads up to NAMECONF_FILE_MAX bytes of fd (closing it), or of path when
 * fd is -1 (a missing file reads as empty). */
static int
read_conf (int fd, const char *path, char **out, size_t *len, agentrt_error_t *err)
{
  cleanup_close int own = fd >= 0 ? fd : open (path, O_RDONLY | O_CLOEXEC);
  cleanup_free char *buf = xmalloc (NAMECONF_FILE_MAX);
  size_t n = 0;

  if (own < 0)
    {
      if (errno != ENOENT)
        return agentrt_error (err, errno, "open `%s`", path);
      *out = NULL;
      *len = 0;
      return 0;
    }
  while (n < NAMECONF_FILE_MAX)
    {
      ssize_t r = read (own, buf + n, NAMECONF_FILE_MAX - n);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return agentrt_error (err, errno, "read %s", fd >= 0 ? "passed fd" : path);
      if (r == 0)
        break;
      n += (size_t) r;
    }
  *out = xrealloc (steal_pointer (&buf), n ? n : 1);
  *len = n;
  return 0;
}

/* An inherited socket must be what the contract says: a listening TCP
 * socket (type SOCK_STREAM) or a UDP one (SOCK_DGRAM), IPv4 or IPv6.  It
 * becomes non-blocking. */
static int
check_socket (int fd, int want, const char *what, agentrt_error_t *err)
{
  int listening = 0, domain = 0, type = 0, flags;
  socklen_t len = sizeof (int);

  if (getsockopt (fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0
      || getsockopt (fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0
      || getsockopt (fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
    return agentrt_error (err, errno, "%s fd %d", what, fd);
  if (type != want || (want == SOCK_STREAM && !listening)
      || (domain != AF_INET && domain != AF_INET6))
    return agentrt_error (err, EINVAL, "%s fd %d is not a %s socket", what, fd,
                          want == SOCK_STREAM ? "listening TCP" : "UDP");
  /* Accepted sockets inherit TCP_NODELAY and the congestion control from
   * the listener: the agent's side is loopback, where pacing and BBR's
   * model only cost CPU (the outer side keeps the host's default).  No
   * TCP_DEFER_ACCEPT: a deferred accept made each new connection cost
   * more (10-20 us in A/B runs of `netbench conns`), not less. */
  if (want == SOCK_STREAM)
    {
      (void) setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof (int));
      (void) setsockopt (fd, IPPROTO_TCP, TCP_CONGESTION, "reno", 4);
    }
  flags = fcntl (fd, F_GETFL);
  if (flags < 0 || fcntl (fd, F_SETFL, flags | O_NONBLOCK) < 0
      || fcntl (fd, F_SETFD, FD_CLOEXEC) < 0)
    return agentrt_error (err, errno, "%s fd %d: fcntl", what, fd);
  return 0;
}

static int
check_listener (int fd, const char *what, agentrt_error_t *err)
{
  return check_socket (fd, SOCK_STREAM, what, err);
}

static void
http_listener_event (struct ev_handler *h, uint32_t events)
{
  struct egress *eg = container_of (h, struct egress, http_ev);

  (void) events;
  conn_accept (eg, eg->opt.http_fd, KIND_HTTP);
}

static void
socks_listener_event (struct ev_handler *h, uint32_t events)
{
  struct egress *eg = container_of (h, struct egress, socks_ev);

  (void) events;
  conn_accept (eg, eg->opt.socks_fd, KIND_SOCKS5);
}

static void
transparent_listener_event (struct ev_handler *h, uint32_t events)
{
  struct egress *eg = container_of (h, struct egress, transparent_ev);

  (void) events;
  conn_accept (eg, eg->opt.transparent_fd, KIND_TRANSPARENT);
}

static void
transparent6_listener_event (struct ev_handler *h, uint32_t events)
{
  struct egress *eg = container_of (h, struct egress, transparent6_ev);

  (void) events;
  conn_accept (eg, eg->opt.transparent6_fd, KIND_TRANSPARENT);
}

/* The container's init exited: the proxy must not outlive it. */
static void
pidfd_event (struct ev_handler *h, uint32_t events)
{
  (void) events;
  container_of (h, struct egress, pidfd_ev)->stop = true;
}

static void
signal_event (struct ev_handler *h, uint32_t events)
{
  (void) events;
  container_of (h, struct egress, signal_ev)->stop = true;
}

static int
watch_fd (struct egress *eg, int fd, struct ev_handler *h, void (*fn) (struct ev_handler *, uint32_t),
          const char *what, agentrt_error_t *err)
{
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = h };

  h->fn = fn;
  if (epoll_ctl (eg->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
    return agentrt_error (err, errno, "epoll: watch the %s (fd %d)", what, fd);
  return 0;
}

/* The transparent path's sockets, each optional; a name cache when any. */
static int
setup_transparent (struct egress *eg, agentrt_error_t *err)
{
  const struct egress_options *o = &eg->opt;
  uint32_t seed = 0;

  if ((o->transparent_fd >= 0 && check_listener (o->transparent_fd, "--transparent-fd", err) < 0)
      || (o->transparent6_fd >= 0
          && check_listener (o->transparent6_fd, "--transparent6-fd", err) < 0)
      || (o->dns_tcp_fd >= 0 && check_listener (o->dns_tcp_fd, "--dns-tcp-fd", err) < 0)
      || (o->dns_tcp6_fd >= 0 && check_listener (o->dns_tcp6_fd, "--dns-tcp6-fd", err) < 0)
      || (o->dns_udp_fd >= 0 && check_socket (o->dns_udp_fd, SOCK_DGRAM, "--dns-udp-fd", err) < 0)
      || (o->dns_udp6_fd >= 0
          && check_socket (o->dns_udp6_fd, SOCK_DGRAM, "--dns-udp6-fd", err) < 0))
    return -1;
  if (o->transparent_fd < 0 && o->transparent6_fd < 0 && o->dns_udp_fd < 0
      && o->dns_tcp_fd < 0 && o->dns_udp6_fd < 0 && o->dns_tcp6_fd < 0)
    return 0;
  if (getrandom (&seed, sizeof (seed), 0) != sizeof (seed))
    return agentrt_error (err, errno, "getrandom");
  eg->names = namecache_new (o->dns_cache_entries, NAMECACHE_DEFAULT_BYTES, seed);
  if ((o->transparent_fd >= 0
       && watch_fd (eg, o->transparent_fd, &eg->transparent_ev, transparent_listener_event,
                    "transparent listener", err) < 0)
      || (o->transparent6_fd >= 0
          && watch_fd (eg, o->transparent6_fd, &eg->transparent6_ev,
                       transparent6_listener_event, "transparent IPv6 listener", err) < 0))
    return -1;
  return stub_setup (eg, err);
}

/* The runtime's credential message, read to its end and closed; the TLS
 * contexts made from it and the trust store, all before lockdown. */
static int
setup_credentials (struct egress *eg, agentrt_error_t *err)
{
  cleanup_close int fd = eg->opt.credentials_fd;
  char *buf;
  size_t n = 0;
  int r;

  eg->opt.credentials_fd = -1;
  if (fd < 0)
    return 0;
  buf = xmalloc (INJECT_WIRE_MAX + 1);
  while (n <= INJECT_WIRE_MAX)
    {
      ssize_t got = read (fd, buf + n, INJECT_WIRE_MAX + 1 - n);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        {
          r = got < 0 ? -errno : 0;
          if (r < 0)
            {
              free (buf);
              return agentrt_error (err, -r, "--credentials-fd: read");
            }
          break;
        }
      n += (size_t) got;
    }
  eg->inject = xzalloc (sizeof (*eg->inject));
  r = inject_wire_decode (buf, n, eg->inject, err);
  explicit_bzero (buf, INJECT_WIRE_MAX + 1);
  free (buf);
  if (r < 0)
    {
      free (eg->inject);
      eg->inject = NULL;
      return -1;
    }
  eg->tls = tls_setup (eg->inject, eg->opt.trust_store, err);
  return eg->tls ? 0 : agentrt_error_wrap (err, "injected credentials");
}

static void
free_credentials (struct egress *eg)
{
  tls_free (eg->tls);
  if (eg->inject)
    inject_set_release (eg->inject);
  free (eg->inject);
  eg->tls = NULL;
  eg->inject = NULL;
}

/* Closes every inherited fd above stderr that the contract does not name:
 * a stray directory or socket fd from the runtime must not reach the
 * sandbox (Landlock does not restrict fds opened before it): a failure is
 * fatal. */
static int
close_range_checked (unsigned first, unsigned last, agentrt_error_t *err)
{
  if (FAULT_CALL ("egress:close-range", close_range (first, last, 0)) < 0)
    return agentrt_error (err, errno, "close the inherited fds %u..%u "
                          "(close_range)", first, last);
  return 0;
}

static int
close_other_fds (const struct egress_options *o, agentrt_error_t *err)
{
  int keep[] = { o->http_fd, o->socks_fd, o->init_pidfd, o->audit_fd, o->resolv_fd, o->hosts_fd,
                 o->transparent_fd, o->transparent6_fd, o->dns_udp_fd, o->dns_tcp_fd,
                 o->dns_udp6_fd, o->dns_tcp6_fd, o->approver_fd, o->credentials_fd };
  size_t n = sizeof (keep) / sizeof (*keep);
  unsigned next = 3;

  for (size_t i = 1; i < n; i++)
    for (size_t k = i; k > 0 && keep[k - 1] > keep[k]; k--)
      {
        int t = keep[k];
        keep[k] = keep[k - 1];
        keep[k - 1] = t;
      }
  for (size_t i = 0; i < n; i++)
    {
      if (keep[i] < (int) next)
        continue;
      if ((unsigned) keep[i] > next && close_range_checked (next, (unsigned) keep[i] - 1, err) < 0)
        return -1;
      next = (unsigned) keep[i] + 1;
    }
  return close_range_checked (next, ~0U, err);
}

static int
setup (struct egress *eg, agentrt_error_t *err)
{
  char *resolv = NULL;
  size_t resolv_len = 0;
  sigset_t mask;

  if (close_other_fds (&eg->opt, err) < 0)
    return -1;
  if (allowlist_parse (eg->opt.allow, eg->opt.allow_broad, &eg->allow, err) < 0)
    return -1;
  if (check_listener (eg->opt.http_fd, "--http-fd", err) < 0
      || check_listener (eg->opt.socks_fd, "--socks-fd", err) < 0)
    return -1;
  if (fcntl (eg->opt.init_pidfd, F_SETFD, FD_CLOEXEC) < 0
      || fcntl (eg->opt.audit_fd, F_SETFD, FD_CLOEXEC) < 0)
    return agentrt_error (err, errno, "--init-pidfd or --audit-fd is not an open fd");
  if (read_conf (eg->opt.resolv_fd, "/etc/resolv.conf", &resolv, &resolv_len, err) < 0
      || read_conf (eg->opt.hosts_fd, "/etc/hosts", &eg->hosts, &eg->hosts_len, err) < 0)
    return -1;
  resolv_conf_parse (resolv ? resolv : "", resolv_len, &eg->rc);
  free (resolv);

  sigemptyset (&mask);
  sigaddset (&mask, SIGTERM);
  sigaddset (&mask, SIGINT);
  if (signal (SIGPIPE, SIG_IGN) == SIG_ERR || sigprocmask (SIG_BLOCK, &mask, NULL) < 0)
    return agentrt_error (err, errno, "signals");
  eg->sigfd = signalfd (-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  eg->epfd = epoll_create1 (EPOLL_CLOEXEC);
  if (eg->sigfd < 0 || eg->epfd < 0)
    return agentrt_error (err, errno, "signalfd/epoll");
  if (watch_fd (eg, eg->opt.http_fd, &eg->http_ev, http_listener_event, "http listener", err) < 0
      || watch_fd (eg, eg->opt.socks_fd, &eg->socks_ev, socks_listener_event, "socks listener",
                   err) < 0
      || watch_fd (eg, eg->opt.init_pidfd, &eg->pidfd_ev, pidfd_event, "init pidfd", err) < 0
      || watch_fd (eg, eg->sigfd, &eg->signal_ev, signal_event, "signalfd", err) < 0
      || setup_transparent (eg, err) < 0 || ask_setup (eg, err) < 0)
    return -1;
  eg->pipe_size = PIPE_SIZE;
  poll_window_init (&eg->poll, eg->opt.busy_poll_us);
  if (setup_credentials (eg, err) < 0)
    return -1;

  if (lockdown_privileges (eg->opt.uid, eg->opt.gid, err) < 0
      || lockdown_follow_parent (eg->parent, err) < 0)
    return -1;
  if (!eg->opt.no_landlock && lockdown_landlock (err) < 0)
    return -1;
  return lockdown_seccomp (err);
}

/* Waits for events: first polls for the poll window, yielding the CPU to
 * anything else that is ready to run, then sleeps until an event or the
 * timeout; the window then adapts to how long the wait was. */
static int
wait_events (struct egress *eg, struct epoll_event *events, int timeout_ms)
{
  uint64_t start = now_us (), end;
  int n = 0;

  if (eg->poll.cur_us)
    while ((n = epoll_wait (eg->epfd, events, MAX_EVENTS, 0)) == 0
           && now_us () - start < eg->poll.cur_us)
      sched_yield ();
  if (n == 0)
    n = FAULT_CALL ("egress:epoll-wait", epoll_wait (eg->epfd, events, MAX_EVENTS, timeout_ms));
  end = now_us ();
  poll_window_update (&eg->poll, end - start, n > 0);
  eg->now_ms = end / 1000;
  return n;
}

/* The audit trail failed (audit.c): what is being relayed would go
 * unrecorded, so it is closed; the refusals being sent stay. */
static void
shut_unaudited (struct egress *eg)
{
  struct conn *c = eg->conns;

  eg->audit_shut = true;
  while (c)
    {
      struct conn *next = c->next;
      if (c->phase != PHASE_LINGER)
        conn_close (c, "audit-unavailable");
      c = next;
    }
}

/* The loop; a wait that fails for another reason than a signal stops it
 * (it would spin, watching nothing): -1, errno. */
static int
run (struct egress *eg)
{
  struct epoll_event events[MAX_EVENTS];
  uint64_t next_tick = 0;
  int r = 0;

  eg->now_ms = egress_now_ms ();
  while (!eg->stop)
    {
      int timeout = (eg->nconns || eg->dns_pending || eg->idle_since_ms || stub_busy (eg))
                      ? TICK_MS : -1;
      int n = wait_events (eg, events, timeout);

      if (n < 0 && errno != EINTR)
        {
          r = -1;
          break;
        }

      for (int i = 0; i < n && !eg->stop; i++)
        {
          struct ev_handler *h = events[i].data.ptr;
          h->fn (h, events[i].events);
        }
      if (eg->audit_failed && !eg->audit_shut)
        shut_unaudited (eg);
      if (eg->now_ms >= next_tick)
        {
          conn_timers (eg);
          next_tick = eg->now_ms + TICK_MS;
        }
      conn_reap (eg);
    }
  if (r < 0)
    {
      int saved = errno;
      conn_close_all (eg);
      errno = saved;
      return -1;
    }
  conn_close_all (eg);
  return 0;
}

int
main (int argc, char **argv)
{
  cleanup_error agentrt_error_t err = NULL;
  struct egress eg = { .epfd = -1, .sigfd = -1, .parent = getppid () };

  parse_args (argc, argv, &eg.opt);
  if (eg.opt.self_test)
    return selftest_run (&eg.opt);
  /* before any secret is read or made (lockdown.h) */
  if (lockdown_undumpable (&err) < 0)
    {
      fprintf (stderr, "agentrt-egress: %s\n", err->msg);
      return 1;
    }
  if (eg.opt.make_ca)
    {
      if (tls_make_ca (eg.opt.id, eg.opt.make_ca, eg.opt.ca_days, STDOUT_FILENO, &err) == 0)
        return 0;
      fprintf (stderr, "agentrt-egress: %s\n", err->msg);
      return 1;
    }
  if (setup (&eg, &err) < 0)
    {
      /* before a connection was accepted: the agent has no egress, and
       * the trail says why (stderr is /dev/null under the runtime) */
      cleanup_free char *msg = xasprintf ("agentrt-egress cannot start: %s", err->msg);
      audit_stopped (&eg.opt, msg);
      fprintf (stderr, "agentrt-egress: %s\n", err->msg);
      stub_free (&eg);
      free_credentials (&eg);
      ask_free (&eg);
      namecache_free (eg.names);
      allowlist_free (eg.allow); /* parsed before a later step failed */
      free (eg.hosts);
      return 1;
    }
  if (run (&eg) < 0)
    {
      /* no fprintf: stdio may fstat, which the seccomp filter forbids */
      cleanup_free char *msg = xasprintf ("agentrt-egress stops: epoll_wait: %s",
                                          strerror (errno));
      audit_stopped (&eg.opt, msg);
      audit_say (msg);
      return 1;
    }
  stub_free (&eg);
  ask_free (&eg);
  while (eg.resolves)
    resolve_cancel (eg.resolves);
  namecache_free (eg.names);
  free_credentials (&eg);
  pipes_free (&eg);
  allowlist_free (eg.allow);
  free (eg.hosts);
  return 0;
}
