/* hack/bench/netbench.c: loopback load for the egress section of
 * hack/bench.sh (not part of the build: bench.sh compiles it with
 * `cc -O2`).  Everything talks to 127.0.0.1 of the current network
 * namespace; VIA is "-" for a direct connection, else the port of an HTTP
 * proxy reached with CONNECT (agentrt-egress, tinyproxy...).
 *   netbench serve PORT
 *       epoll server.  A connection's first line picks what it gets:
 *       `sink N` N bytes then close, `echo` everything echoed back,
 *       `GET /N HTTP/1.x` (headers read to the blank line) an HTTP/1.1
 *       200 with N bytes then close (for curl).
 *   netbench get VIA PORT BYTES
 *       downloads BYTES (`sink`); prints the seconds it took.
 *   netbench conns VIA PORT N [GAP_US]
 *       N sequential new connections, each: connect (+ CONNECT), one echo
 *       round trip of one byte, close; prints each one's microseconds.
 *       With GAP_US, a pause of that long after each (a sparse client).
 *   netbench hold VIA PORT N
 *       opens N echo connections (one round trip each), prints "ready",
 *       keeps them open until stdin reaches EOF.
 *   netbench relay PORT TARGET
 *       the least a user-space CONNECT relay can do, the reference for
 *       what a proxy adds per connection: one connection at a time,
 *       blocking calls, the request read once and not looked at, TARGET
 *       connected, 200 sent, bytes copied both ways until both ends
 *       closed.  No parsing, no policy, no audit, no timeouts. */
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
  struct sockaddr_in a = loopback (port);
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

/* A connection to 127.0.0.1:PORT, through CONNECT on VIA unless VIA <= 0. */
static int
open_conn (int via, int port)
{
  struct sockaddr_in a = loopback (via > 0 ? via : port);
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
  char req[128], head[1024];
  size_t got = 0;

  if (fd < 0 || connect (fd, (struct sockaddr *) &a, sizeof (a)) < 0)
    die ("connect");
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
  if (via <= 0)
    return fd;
  snprintf (req, sizeof (req), "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
            port, port);
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
get (int via, int port, long long n)
{
  int fd = open_conn (via, port);
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
conns (int via, int port, int n, long gap_us)
{
  struct timespec gap = { gap_us / 1000000, gap_us % 1000000 * 1000 };

  for (int i = 0; i < n; i++)
    {
      double t0 = now ();
      int fd = open_conn (via, port);
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
hold (int via, int port, int n)
{
  int *fds = calloc ((size_t) n, sizeof (int));

  for (int i = 0; i < n; i++)
    {
      fds[i] = open_conn (via, port);
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

int
main (int argc, char **argv)
{
  int via = argc > 2 && strcmp (argv[2], "-") != 0 ? atoi (argv[2]) : 0;

  if (argc == 3 && strcmp (argv[1], "serve") == 0)
    serve (atoi (argv[2]));
  else if (argc == 5 && strcmp (argv[1], "get") == 0)
    get (via, atoi (argv[3]), atoll (argv[4]));
  else if ((argc == 5 || argc == 6) && strcmp (argv[1], "conns") == 0)
    conns (via, atoi (argv[3]), atoi (argv[4]), argc == 6 ? atol (argv[5]) : 0);
  else if (argc == 5 && strcmp (argv[1], "hold") == 0)
    hold (via, atoi (argv[3]), atoi (argv[4]));
  else if (argc == 4 && strcmp (argv[1], "relay") == 0)
    relay (atoi (argv[2]), atoi (argv[3]));
  else
    {
      fprintf (stderr, "usage: netbench serve PORT | get VIA PORT BYTES | conns VIA PORT N [GAP_US]"
                       " | hold VIA PORT N | relay PORT TARGET\n");
      return 2;
    }
  return 0;
}
