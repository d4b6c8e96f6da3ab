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
  uid_t uid;
  gid_t gid;
  unsigned idle_timeout_s, handshake_timeout_s, max_conns, busy_poll_us;
  bool allow_broad, no_landlock;
  const char *self_test; /* hidden: run a lockdown self-test and exit */
};

struct pipe_pair
{
  int r, w;
  struct pipe_pair *next;
};

struct conn;

struct egress
{
  struct egress_options opt;
  int epfd, sigfd;
  struct allowlist *allow;
  struct resolv_conf rc;
  char *hosts;
  size_t hosts_len;
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
  struct ev_handler http_ev, socks_ev, pidfd_ev, signal_ev;
  /* The audit trail could not be written (audit.c): no connection is
   * relayed until it can again. */
  bool audit_failed, audit_partial;
  bool audit_shut; /* the open connections were closed for it */
  int audit_errno;
  uint64_t audit_lost; /* records not written since the last that was */
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
};

enum conn_phase
{
  PHASE_REQUEST,    /* reading what the client asks for */
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
  const char *proto; /* audit: "http", "connect", "socks5" */
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

  /* The audit record being built (one per upstream connection). */
  bool audit_open;
  const char *decision, *reason;
  struct timespec start_rt;
  uint64_t start_ms, last_ms, deadline_ms;
  uint64_t bytes_up, bytes_down;
  uint64_t discarded; /* input thrown away after a refusal */

  /* HTTP forward-proxy state. */
  int req_state, resp_state;
  bool head_request, client_close, upstream_close;
  bool upstream_reused; /* the current request went to a kept-alive upstream */
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

/* resolver.c */
int resolver_start (struct conn *c, const char *name);
void resolver_cancel (struct conn *c);
/* Retries or gives up queries whose time is up. */
void resolver_tick (struct conn *c);

/* audit.c */
/* The record of c.  A record that cannot be written (after EINTR and the
 * rest of a short write were retried) puts the proxy in audit-failed mode:
 * it says so on stderr, closes every connection it relays and refuses new
 * ones (audit-unavailable) until a line goes through again. */
void audit_write (struct conn *c);
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
