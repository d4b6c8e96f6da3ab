/* Internal types of agentrt-egress shared by its parts: the process-wide
 * state (struct egress), a connection (struct conn) with its two flows,
 * and the entry points each part offers the others.  See egress.c for the
 * command-line contract and docs/egress.md for the design. */
#ifndef AGENTRT_EGRESS_EGRESS_H
#define AGENTRT_EGRESS_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "allowlist.h"
#include "dns.h"
#include "http_parse.h"
#include "nameconf.h"
#include "netaddr.h"
#include "poll_window.h"

#define EGRESS_MAX_ADDRS 8
/* Input buffer of a flow; a request or response head must fit. */
#define FLOW_BUF_SIZE HTTP_HEAD_MAX
#define FLOW_UNTIL_EOF UINT64_MAX

/* Something registered in epoll: data.ptr points at one of these. */
struct ev_handler
{
  void (*fn) (struct ev_handler *h, uint32_t events);
};

struct egress_options
{
  const char *id;
  const char *allow;
  int http_fd, socks_fd, init_pidfd, audit_fd, resolv_fd, hosts_fd;
  /* The transparent path (all optional, -1 when absent). */
  int transparent_fd, transparent6_fd, dns_udp_fd, dns_tcp_fd, dns_udp6_fd, dns_tcp6_fd;
  unsigned dns_cache_entries;
  /* Asking a person (ask.c): the approver's socket (-1: never ask), how
   * long a question waits, how many may wait at once. */
  int approver_fd;
  unsigned ask_timeout_s, ask_max;
  uid_t uid;
  gid_t gid;
  unsigned idle_timeout_s, handshake_timeout_s, max_conns, busy_poll_us;
  bool allow_broad, no_landlock;
  const char *self_test; /* hidden: run a lockdown self-test and exit */
  /* Injected credentials (tls.h, mitm.c): the runtime's message, the
   * trust store for their hosts; --make-ca HOSTS makes a CA and exits. */
  int credentials_fd;
  const char *trust_store;
  const char *make_ca;
  unsigned ca_days;
};

struct pipe_pair
{
  int r, w;
  struct pipe_pair *next;
};

struct conn;
struct mitm;
struct inject_set;
struct tls_state;
struct resolve_result;
struct namecache;
struct stub;
struct ask;
struct ask_pending;

struct egress
{
  struct egress_options opt;
  pid_t parent; /* the monitor, which it dies with (lockdown_follow_parent) */
  int epfd, sigfd;
  struct allowlist *allow;
  struct resolv_conf rc;
  char *hosts;
  size_t hosts_len;
  struct resolve *resolves; /* lookups under way */
  struct conn *conns;     /* open connections */
  struct conn *graveyard; /* closed during this loop iteration */
  unsigned nconns;
  unsigned dns_pending;
  struct pipe_pair *free_pipes;
  unsigned nfree_pipes;
  int pipe_size;
  struct poll_window poll;
  uint64_t now_ms;
  uint64_t idle_since_ms; /* no connection since then; 0 once trimmed */
  bool stop, listeners_paused;
  struct ev_handler http_ev, socks_ev, pidfd_ev, signal_ev, transparent_ev, transparent6_ev;
  struct namecache *names; /* what the DNS stub answered */
  struct stub *stub;       /* the DNS stub, when it has sockets */
  struct ask *ask;         /* asking the approver (ask.c), or NULL */
  /* The audit trail could not be written (audit.c): no connection is
   * relayed until it can again. */
  bool audit_failed, audit_partial;
  bool audit_shut; /* the open connections were closed for it */
  int audit_errno;
  uint64_t audit_lost; /* records not written since the last that was */
  /* Injected credentials, when the runtime gave some (--credentials-fd). */
  struct inject_set *inject;
  struct tls_state *tls;
};

struct endpoint
{
  int fd;
  bool readable, writable;
  bool hup; /* the peer's FIN (or an error) was reported */
  struct ev_handler ev;
  struct conn *conn;
};

/* What the protocol code tells the flow engine after looking at input. */
enum inspect_result
{
  INSPECT_CONTINUE,   /* state changed: pump again */
  INSPECT_NEED_INPUT, /* read more input first */
  INSPECT_STOP,       /* the flow is paused or the connection closed */
};

struct flow;
typedef enum inspect_result (*inspect_fn) (struct conn *c, struct flow *f);

/* One direction of a connection.  Bytes go out in this order: `out`
 * (a head the proxy wrote), the pipe, buffered input; `pass` input bytes
 * are forwarded without inspection (FLOW_UNTIL_EOF: all of them), after
 * which `inspect` decides what comes next. */
struct flow
{
  struct endpoint *src, *dst;
  struct pipe_pair *pipe;
  size_t pipe_bytes;
  char *buf;
  size_t off, len;
  char *out;
  size_t out_off, out_len;
  bool out_counted; /* bytes of `out` count as forwarded payload */
  uint64_t pass;
  uint64_t *bytes;
  inspect_fn inspect;
  bool eof, done, paused;
  struct http_chunked chunked;
};

enum conn_kind
{
  KIND_HTTP,
  KIND_SOCKS5,
  KIND_TRANSPARENT,
};

enum conn_phase
{
  PHASE_REQUEST,    /* reading what the client asks for */
  PHASE_ASKING,     /* held while the approver is asked (ask.c) */
  PHASE_RESOLVING,  /* waiting for DNS */
  PHASE_CONNECTING, /* waiting for connect() */
  PHASE_OPEN,       /* forwarding */
  PHASE_LINGER,     /* reply sent, discarding input until EOF, then close */
};

struct resolve;

struct conn
{
  struct conn *prev, *next;
  struct egress *eg;
  enum conn_kind kind;
  enum conn_phase phase;
  const char *proto; /* audit: "http", "connect", "socks5", "tcp" */
  const char *via;   /* audit: how the name was learned; NULL: "proxy" */
  struct endpoint client, upstream;
  struct flow up, down; /* client -> upstream, upstream -> client */
  bool dead, repump, in_pump;

  /* The destination of the current (or last) upstream connection. */
  struct host host;
  uint16_t port;
  struct netaddr addrs[EGRESS_MAX_ADDRS];
  size_t naddrs, next_addr;
  bool connected;
  struct resolve *dns;
  uint64_t ask_qid;  /* PHASE_ASKING: the question it waits for */
  const char *asked; /* audit: the approver's answer that let it go on */

  /* The audit record being built (one per upstream connection). */
  bool audit_open;
  const char *decision, *reason;
  struct timespec start_rt;
  uint64_t start_ms, last_ms, deadline_ms;
  uint64_t bytes_up, bytes_down;
  uint64_t discarded; /* input thrown away after a refusal */

  /* Transparent path: the original destination is addrs[0]:port. */
  int tp_family;
  int tp_state;

  /* HTTP forward-proxy state. */
  int req_state, resp_state;
  bool head_request, client_close, upstream_close;
  bool upstream_reused; /* the current request went to a kept-alive upstream */

  /* A credential host's connection the sidecar speaks TLS on (mitm.c). */
  struct mitm *mitm;
  bool intercepted;
  const char *standin; /* a credential's stand-in seen going out as it is */
};

/* conn.c */
void conn_accept (struct egress *eg, int lfd, enum conn_kind kind);
void conn_open_target (struct conn *c);
void conn_resolved (struct conn *c, const struct netaddr *addrs, size_t n,
                    const char *failure);
void conn_close (struct conn *c, const char *reason);
void conn_close_upstream (struct conn *c, const char *reason);
/* Sends a reply the proxy made up, then closes the connection (after
 * discarding what the client still sends). */
void conn_reply_close (struct conn *c, const char *decision, const char *reason,
                       const void *reply, size_t len);
void conn_timers (struct egress *eg);
void conn_reap (struct egress *eg);
void conn_close_all (struct egress *eg);
void conn_record_start (struct conn *c);
/* The address policy over c->addrs[0..naddrs), then connects to them. */
void conn_check_and_connect (struct conn *c);
/* Records the outcome and resets the client connection. */
void conn_refuse (struct conn *c, const char *decision, const char *reason);
/* The approver allowed c's destination (ask.c): what follows the
 * allowlist (resolution, the address policy, the connection). */
void conn_open_allowed (struct conn *c);
/* Denies c's destination the way its protocol says it (403, a SOCKS5
 * reply, a reset). */
void conn_deny (struct conn *c, const char *reason);

/* relay.c */
void flow_init (struct flow *f, struct endpoint *src, struct endpoint *dst,
                uint64_t *bytes, inspect_fn inspect);
void flow_reset (struct egress *eg, struct flow *f);
/* Forgets everything on the way to the destination (which is going away)
 * but keeps the input already read. */
void flow_drop_output (struct egress *eg, struct flow *f);
/* Takes data (malloc'd) as the bytes to send before anything else. */
void flow_set_out (struct flow *f, char *data, size_t len, bool counted);
/* Appends a copy of a reply the proxy made up (not counted as payload). */
void flow_queue_out (struct flow *f, const void *data, size_t len);
void flow_consume (struct flow *f, size_t n);
/* Moves what can be moved; false when the connection was closed. */
bool flow_pump (struct conn *c, struct flow *f);
void pipes_free (struct egress *eg);

/* proxy_http.c, proxy_socks.c */
enum inspect_result http_inspect_request (struct conn *c, struct flow *f);
enum inspect_result http_inspect_response (struct conn *c, struct flow *f);
void http_upstream_ready (struct conn *c);
void http_deny (struct conn *c, int status, const char *decision, const char *reason);
enum inspect_result socks_inspect (struct conn *c, struct flow *f);
enum inspect_result socks_inspect_down (struct conn *c, struct flow *f);
void socks_upstream_ready (struct conn *c);
void socks_deny (struct conn *c, uint8_t code, const char *decision, const char *reason);

/* transparent.c */
void transparent_start (struct conn *c);
enum inspect_result transparent_inspect_up (struct conn *c, struct flow *f);
enum inspect_result transparent_inspect_down (struct conn *c, struct flow *f);
void transparent_upstream_ready (struct conn *c);
void transparent_resolved (struct conn *c, const struct resolve_result *res);
/* The name learned from the first bytes is allowed: look it up. */
void transparent_lookup (struct conn *c);

/* stub.c: the DNS stub on --dns-*-fd */
int stub_setup (struct egress *eg, agentrt_error_t *err);
void stub_tick (struct egress *eg);
/* Has the stub TCP connections whose timeouts need the tick? */
bool stub_busy (const struct egress *eg);
void stub_free (struct egress *eg);
/* Is the allowlist willing to name name (a host name) on some port? */
bool stub_name_allowed (struct egress *eg, const char *name);

/* mitm.c: connections to a credential's hosts */
/* Should this connection (upstream connected, f holding the client's
 * first bytes, if any) be intercepted? */
bool mitm_wanted (const struct conn *c, const struct flow *f);
/* Takes the connection over: f's bytes go to the agent-side TLS, reply
 * (the CONNECT's 200, or NULL) goes out before it. */
void mitm_start (struct conn *c, struct flow *f, const char *reply);
void mitm_pump (struct conn *c);
void mitm_free (struct conn *c);

/* resolver.c */
#define RESOLVE_HOSTS_TTL 60 /* the TTL of an answer from the hosts file */
struct resolve_result
{
  struct netaddr addrs[EGRESS_MAX_ADDRS]; /* IPv4 first */
  size_t n;
  enum dns_result result[2]; /* A, AAAA: DNS_OK, DNS_NODATA, DNS_NXDOMAIN, DNS_FAIL */
  uint32_t ttl[2];           /* for DNS_OK */
  const char *failure;       /* no address: "nxdomain" or "resolve-failed" */
};
typedef void (*resolve_fn) (void *owner, const struct resolve_result *res);
/* Looks name up (hosts data, then A and AAAA over DNS).  Returns 1 when it
 * answered at once (fn was called), 0 when the lookup is under way (*out;
 * fn will be called once, after which the lookup is gone), -1 when it
 * could not start (fn not called). */
int resolve_start (struct egress *eg, const char *name, resolve_fn fn, void *owner,
                   struct resolve **out);
void resolve_cancel (struct resolve *r);
/* Retries or gives up queries whose time is up. */
void resolve_tick (struct egress *eg);
/* A connection's lookup (conn.c): conn_resolved when done. */
int resolver_start (struct conn *c, const char *name);
void resolver_cancel (struct conn *c);

/* audit.c */
/* The record of c.  A record that cannot be written (after EINTR and the
 * rest of a short write were retried) puts the proxy in audit-failed mode:
 * it says so on stderr, closes every connection it relays and refuses new
 * ones (audit-unavailable) until a line goes through again. */
void audit_write (struct conn *c);
/* The record of one injection: the credential's name, the connection's
 * host and port, the request's method and path without its query. */
void audit_inject (struct conn *c, const char *name, const char *method, size_t method_len,
                   const char *path, size_t path_len);
/* The record of one DNS stub answer or refusal.  -1 when it cannot be
 * written (audit-failed mode, as for audit_write): the stub then sends
 * SERVFAIL instead of the answer it would have given. */
int audit_dns (struct egress *eg, const char *proto, const char *name, const char *type,
               const char *decision, const char *reason, size_t answers, uint32_t ttl);
/* The record of one question to the approver, settled with answer
 * ("allow-once", "allow-always", "deny", "timeout", "approver-gone"). */
void audit_ask (struct egress *eg, const struct ask_pending *q, const char *answer,
                uid_t approver_uid);
/* Whether the trail can be written: true unless in audit-failed mode and a
 * line saying how many records were lost still cannot be written (it is
 * tried each time: once it is written the mode ends). */
bool audit_ready (struct egress *eg);
/* The proxy cannot start, or stops for want of something (message): one
 * "sidecar" line, best effort. */
void audit_stopped (const struct egress_options *o, const char *message);
/* message and a newline on stderr, without stdio (which the seccomp
 * filter may not allow). */
void audit_say (const char *message);

/* Monotonic milliseconds. */
uint64_t egress_now_ms (void);

#endif
