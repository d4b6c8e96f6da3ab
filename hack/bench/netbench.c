/* hack/bench/netbench.c: loopback load for the egress section of
 * hack/bench.sh (not part of the build: bench.sh compiles it with
 * `cc -O2`).  Everything talks to 127.0.0.1 of the current network
 * namespace, but for a DEST of the form ADDR:PORT (IPv4; a bare PORT is
 * 127.0.0.1's); VIA is "-" for a direct connection, else the port of an
 * HTTP proxy on 127.0.0.1 reached with CONNECT (agentrt-egress,
 * tinyproxy...).
 *   netbench serve PORT
 *       epoll server on every address of the namespace.  A connection's
 *       first line picks what it gets:
 *       `sink N` N bytes then close, `echo` everything echoed back,
 *       `GET /N HTTP/1.x` (headers read to the blank line) an HTTP/1.1
 *       200 with N bytes then close (for curl).
 *   netbench get VIA DEST BYTES
 *       downloads BYTES (`sink`); prints the seconds it took.
 *   netbench conns VIA DEST N [GAP_US]
 *       N sequential new connections, each: connect (+ CONNECT), one echo
 *       round trip of one byte, close; prints each one's microseconds.
 *       With GAP_US, a pause of that long after each (a sparse client).
 *   netbench hold VIA DEST N
 *       opens N echo connections (one round trip each), prints "ready",
 *       keeps them open until stdin reaches EOF.
 *   netbench relay PORT TARGET
 *       the least a user-space CONNECT relay can do, the reference for
 *       what a proxy adds per connection: one connection at a time,
 *       blocking calls, the request read once and not looked at, TARGET
 *       connected, 200 sent, bytes copied both ways until both ends
 *       closed.  No parsing, no policy, no audit, no timeouts.
 *   netbench dns SERVER NAME N
 *       N sequential A queries for NAME to SERVER:53 (UDP), each answer
 *       awaited; prints each one's microseconds. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF (1 << 20)
static char buf[BUF];

enum mode { READING, SINK, ECHO };

struct sconn
{
  int fd;
  enum mode mode;
  long long left;  /* SINK: bytes of body still to send */
  char head[1024]; /* READING: what came so far; SINK: header to send */
  size_t hlen, hsent;
};

static void
die (const char *what)
{
  fprintf (stderr, "netbench: %s: %s\n", what, strerror (errno));
  exit (1);
}

static struct sockaddr_in
loopback (int port)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons (port),
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  return a;
}

/* DEST: "PORT" (127.0.0.1) or "ADDR:PORT". */
static struct sockaddr_in
dest (const char *s)
{
  const char *colon = strrchr (s, ':');
  struct sockaddr_in a = loopback (atoi (colon ? colon + 1 : s));
  char addr[64];

  if (colon)
    {
      snprintf (addr, sizeof (addr), "%.*s", (int) (colon - s), s);
      if (inet_pton (AF_INET, addr, &a.sin_addr) != 1)
        {
          fprintf (stderr, "netbench: bad address %s\n", addr);
          exit (2);
        }
    }
  return a;
}

static void
sconn_close (struct sconn *c)
{
  close (c->fd);
  c->fd = -1;
}

/* READING: parses the first line once it is complete (for GET, once the
 * headers end); returns 0 while more is needed. */
static int
sconn_parse (struct sconn *c)
{
  char *nl = memchr (c->head, '\n', c->hlen), *end;
  long long n;

  if (nl == NULL)
    return 0;
  if (strncmp (c->head, "GET /", 5) == 0)
    {
      c->head[c->hlen] = '\0';
      if ((end = strstr (c->head, "\r\n\r\n")) == NULL)
        return 0;
      n = atoll (c->head + 5);
      c->hlen = (size_t) snprintf (c->head, sizeof (c->head),
                                   "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\n"
                                   "Connection: close\r\n\r\n", n);
      c->mode = SINK;
      c->left = n;
      return 1;
    }
  if (strncmp (c->head, "sink ", 5) == 0)
    {
      c->mode = SINK;
      c->left = atoll (c->head + 5);
      c->hlen = 0;
      return 1;
    }
  /* echo: what followed the line is echoed first */
  c->mode = ECHO;
  c->hlen -= (size_t) (nl + 1 - c->head);
  memmove (c->head, nl + 1, c->hlen);
  return 1;
}

static void
sconn_send (struct sconn *c)
{
  while (c->hsent < c->hlen)
    {
      ssize_t r = send (c->fd, c->head + c->hsent, c->hlen - c->hsent, MSG_NOSIGNAL);
      if (r <= 0)
        {
          if (r < 0 && errno != EAGAIN)
            sconn_close (c);
          return;
        }
      c->hsent += (size_t) r;
    }
  while (c->left > 0)
    {
      ssize_t r = send (c->fd, buf, c->left < BUF ? (size_t) c->left : BUF, MSG_NOSIGNAL);
      if (r <= 0)
        {
          if (r < 0 && errno != EAGAIN)
            sconn_close (c);
          return;
        }
      c->left -= r;
    }
  shutdown (c->fd, SHUT_WR);
}

static void
sconn_event (struct sconn *c)
{
  for (;;)
    {
      ssize_t r;

      if (c->mode == SINK)
        {
          char drain[4096];

          if (c->left > 0 || c->hsent < c->hlen)
            sconn_send (c);
          if (c->fd >= 0 && (r = recv (c->fd, drain, sizeof (drain), 0)) == 0)
            sconn_close (c);
          else if (c->fd >= 0 && r < 0 && errno != EAGAIN)
            sconn_close (c);
          return;
        }
      if (c->mode == ECHO && c->hlen > 0)
        {
          (void) !send (c->fd, c->head, c->hlen, MSG_NOSIGNAL);
          c->hlen = 0;
        }
      if (c->mode == ECHO)
        r = recv (c->fd, buf, BUF, 0);
      else
        r = recv (c->fd, c->head + c->hlen, sizeof (c->head) - 1 - c->hlen, 0);
      if (r <= 0)
        {
          if (r == 0 || errno != EAGAIN)
            sconn_close (c);
          return;
        }
      if (c->mode == ECHO)
        {
          (void) !send (c->fd, buf, (size_t) r, MSG_NOSIGNAL);
          continue;
        }
      c->hlen += (size_t) r;
      if (!sconn_parse (c) && c->hlen >= sizeof (c->head) - 1)
        {
          sconn_close (c);
          return;
        }
    }
}

static void
serve (int port)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons (port),
                           .sin_addr.s_addr = htonl (INADDR_ANY) };
  int lfd = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int ep = epoll_create1 (EPOLL_CLOEXEC), one = 1;
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL }, evs[64];

  setsockopt (lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
  if (bind (lfd, (struct sockaddr *) &a, sizeof (a)) < 0 || listen (lfd, 4096) < 0)
    die ("listen");
  epoll_ctl (ep, EPOLL_CTL_ADD, lfd, &ev);
  for (;;)
    {
      int n = epoll_wait (ep, evs, 64, -1);

      for (int i = 0; i < n; i++)
        {
          struct sconn *c = evs[i].data.ptr;

          if (c == NULL)
            {
              int fd = accept4 (lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
              if (fd < 0)
                continue;
              setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
              c = calloc (1, sizeof (*c));
              c->fd = fd;
              ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
              ev.data.ptr = c;
              epoll_ctl (ep, EPOLL_CTL_ADD, fd, &ev);
            }
          sconn_event (c);
          if (c->fd < 0)
            free (c);
        }
    }
}

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A connection to d, through CONNECT on 127.0.0.1:VIA unless VIA <= 0. */
static int
open_conn (int via, const struct sockaddr_in *d)
{
  struct sockaddr_in a = via > 0 ? loopback (via) : *d;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
  char req[160], head[1024], addr[INET_ADDRSTRLEN];
  size_t got = 0;
  int port = ntohs (d->sin_port);

  if (fd < 0 || connect (fd, (struct sockaddr *) &a, sizeof (a)) < 0)
    die ("connect");
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
  if (via <= 0)
    return fd;
  inet_ntop (AF_INET, &d->sin_addr, addr, sizeof (addr));
  snprintf (req, sizeof (req), "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n", addr,
            port, addr, port);
  if (write (fd, req, strlen (req)) < 0)
    die ("CONNECT");
  /* The reply is all there is to read: the server speaks only once the
   * client has (sink, echo), so nothing of the tunnel can follow it. */
  while (got < 4 || memcmp (head + got - 4, "\r\n\r\n", 4) != 0)
    {
      ssize_t r = got < sizeof (head) - 1 ? recv (fd, head + got, sizeof (head) - 1 - got, 0) : 0;
      if (r <= 0)
        die ("CONNECT reply");
      got += (size_t) r;
    }
  head[got] = '\0';
  if (strncmp (head, "HTTP/1.", 7) != 0 || strncmp (head + 8, " 200", 4) != 0)
    {
      fprintf (stderr, "netbench: proxy refused: %s", head);
      exit (1);
    }
  return fd;
}

static void
get (int via, const struct sockaddr_in *d, long long n)
{
  int fd = open_conn (via, d);
  long long got = 0;
  char req[64];
  double t0;

  snprintf (req, sizeof (req), "sink %lld\n", n);
  t0 = now ();
  if (write (fd, req, strlen (req)) < 0)
    die ("write");
  while (got < n)
    {
      ssize_t r = recv (fd, buf, BUF, 0);
      if (r <= 0)
        die ("short download");
      got += r;
    }
  printf ("%.6f\n", now () - t0);
  close (fd);
}

static void
conns (int via, const struct sockaddr_in *d, int n, long gap_us)
{
  struct timespec gap = { gap_us / 1000000, gap_us % 1000000 * 1000 };

  for (int i = 0; i < n; i++)
    {
      double t0 = now ();
      int fd = open_conn (via, d);
      char c;

      if (write (fd, "echo\nx", 6) != 6 || recv (fd, &c, 1, MSG_WAITALL) != 1)
        die ("echo");
      close (fd);
      printf ("%.1f%c", (now () - t0) * 1e6, i + 1 == n ? '\n' : ' ');
      if (gap_us > 0)
        nanosleep (&gap, NULL);
    }
}

static void
hold (int via, const struct sockaddr_in *d, int n)
{
  int *fds = calloc ((size_t) n, sizeof (int));

  for (int i = 0; i < n; i++)
    {
      fds[i] = open_conn (via, d);
      if (write (fds[i], "echo\nabc", 8) != 8)
        die ("write");
    }
  for (int i = 0; i < n; i++)
    if (recv (fds[i], buf, 3, MSG_WAITALL) != 3)
      die ("echo");
  printf ("ready\n");
  fflush (stdout);
  while (read (0, buf, BUF) > 0)
    ;
  for (int i = 0; i < n; i++)
    close (fds[i]);
  free (fds);
}

/* Copies what one end sent to the other until both ends have closed. */
static void
relay_copy (int a, int b)
{
  struct pollfd p[2] = { { .fd = a, .events = POLLIN }, { .fd = b, .events = POLLIN } };
  int open = 2;

  while (open > 0 && poll (p, 2, -1) > 0)
    for (int i = 0; i < 2; i++)
      {
        ssize_t r;

        if (p[i].revents == 0)
          continue;
        r = recv (p[i].fd, buf, BUF, 0);
        if (r > 0 && send (p[1 - i].fd, buf, (size_t) r, MSG_NOSIGNAL) == r)
          continue;
        shutdown (p[1 - i].fd, SHUT_WR);
        p[i].fd = -1;
        open--;
      }
}

static void
relay (int port, int target)
{
  struct sockaddr_in a = loopback (port), t = loopback (target);
  int lfd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
  static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

  setsockopt (lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
  if (bind (lfd, (struct sockaddr *) &a, sizeof (a)) < 0 || listen (lfd, 128) < 0)
    die ("listen");
  for (;;)
    {
      int c = accept4 (lfd, NULL, NULL, SOCK_CLOEXEC), u;

      if (c < 0)
        continue;
      setsockopt (c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
      u = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      setsockopt (u, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
      if (recv (c, buf, BUF, 0) > 0 && connect (u, (struct sockaddr *) &t, sizeof (t)) == 0
          && send (c, ok, sizeof (ok) - 1, MSG_NOSIGNAL) > 0)
        relay_copy (c, u);
      close (c);
      close (u);
    }
}

/* dns SERVER NAME N: one A query at a time, each answer awaited. */
static void
dns (const char *server, const char *name, int n)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons (53) };
  unsigned char q[300], r[512];
  size_t len = 12;
  const char *p = name;
  int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct timeval tv = { .tv_sec = 2 };

  if (inet_pton (AF_INET, server, &a.sin_addr) != 1 || strlen (name) > 250)
    {
      fprintf (stderr, "netbench: bad server or name\n");
      exit (2);
    }
  memset (q, 0, 12);
  q[2] = 0x01; /* RD */
  q[5] = 1;    /* one question */
  while (*p)
    {
      const char *dot = strchr (p, '.');
      size_t l = dot ? (size_t) (dot - p) : strlen (p);
      q[len++] = (unsigned char) l;
      memcpy (q + len, p, l);
      len += l;
      p += l + (dot != NULL);
    }
  q[len++] = 0;
  q[len++] = 0, q[len++] = 1; /* A */
  q[len++] = 0, q[len++] = 1; /* IN */
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof (tv));
  if (fd < 0 || connect (fd, (struct sockaddr *) &a, sizeof (a)) < 0)
    die ("dns: connect");
  for (int i = 0; i < n; i++)
    {
      double t0 = now ();
      ssize_t got;

      q[0] = (unsigned char) (i >> 8), q[1] = (unsigned char) i;
      if (send (fd, q, len, 0) != (ssize_t) len)
        die ("dns: send");
      do
        got = recv (fd, r, sizeof (r), 0);
      while (got >= 2 && (r[0] != q[0] || r[1] != q[1]));
      if (got < 12)
        die ("dns: answer");
      if ((r[3] & 15) != 0 || (r[6] << 8 | r[7]) == 0)
        {
          fprintf (stderr, "netbench: dns: rcode %d, %d answers\n", r[3] & 15, r[6] << 8 | r[7]);
          exit (1);
        }
      printf ("%.1f%c", (now () - t0) * 1e6, i + 1 == n ? '\n' : ' ');
    }
  close (fd);
}

int
main (int argc, char **argv)
{
  int via = argc > 2 && strcmp (argv[2], "-") != 0 ? atoi (argv[2]) : 0;
  struct sockaddr_in d = dest (argc > 3 ? argv[3] : "0");

  if (argc == 3 && strcmp (argv[1], "serve") == 0)
    serve (atoi (argv[2]));
  else if (argc == 5 && strcmp (argv[1], "get") == 0)
    get (via, &d, atoll (argv[4]));
  else if ((argc == 5 || argc == 6) && strcmp (argv[1], "conns") == 0)
    conns (via, &d, atoi (argv[4]), argc == 6 ? atol (argv[5]) : 0);
  else if (argc == 5 && strcmp (argv[1], "hold") == 0)
    hold (via, &d, atoi (argv[4]));
  else if (argc == 4 && strcmp (argv[1], "relay") == 0)
    relay (atoi (argv[2]), atoi (argv[3]));
  else if (argc == 5 && strcmp (argv[1], "dns") == 0)
    dns (argv[2], argv[3], atoi (argv[4]));
  else
    {
      fprintf (stderr, "usage: netbench serve PORT | get VIA DEST BYTES | conns VIA DEST N [GAP_US]"
                       " | hold VIA DEST N | relay PORT TARGET | dns SERVER NAME N\n");
      return 2;
    }
  return 0;
}
