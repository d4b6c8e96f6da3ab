/* Loopback benchmark harness for agentrt-egress (not part of the build:
 * tests/egress/bench.sh compiles it with `cc -O2 -o bench bench.c`).
 *   bench serve PORT
 *       epoll server on 127.0.0.1:PORT; a connection's first line picks
 *       `sink N` (send N bytes) or `echo` (echo everything).
 *   bench run SERVER_PORT PROXY_PORT PROXY_PID [BYTES] [CONNS]
 *       prints, direct vs through CONNECT on 127.0.0.1:PROXY_PORT:
 *       download throughput, proxy CPU seconds per GiB, time per new
 *       connection (connect, CONNECT, one round trip, close), and the
 *       proxy's RSS idle and with CONNS open tunnels.  Any proxy with
 *       CONNECT works (tinyproxy for comparison). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF (1 << 20)
static char buf[BUF];

struct sconn
{
  int fd, mode; /* 0 reading the line, 1 sink, 2 echo */
  long long left;
  char line[64];
  size_t llen;
};

static void
die (const char *what)
{
  perror (what);
  exit (1);
}

static int
listen_on (int port)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons (port),
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;

  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
  if (bind (fd, (struct sockaddr *) &a, sizeof (a)) < 0 || listen (fd, 1024) < 0)
    die ("listen");
  return fd;
}

static void
serve_conn (struct sconn *c)
{
  for (;;)
    {
      ssize_t r;

      if (c->mode == 1)
        {
          if (c->left == 0)
            return;
          r = send (c->fd, buf, c->left < BUF ? (size_t) c->left : BUF, MSG_NOSIGNAL);
          if (r <= 0)
            return;
          c->left -= r;
          continue;
        }
      r = recv (c->fd, buf, c->mode == 2 ? BUF : 1, 0);
      if (r <= 0)
        {
          if (r == 0 || errno != EAGAIN)
            {
              close (c->fd);
              c->fd = -1;
            }
          return;
        }
      if (c->mode == 2)
        {
          (void) !send (c->fd, buf, (size_t) r, MSG_NOSIGNAL);
          continue;
        }
      if (buf[0] != '\n' && c->llen < sizeof (c->line) - 1)
        {
          c->line[c->llen++] = buf[0];
          continue;
        }
      c->line[c->llen] = '\0';
      if (strncmp (c->line, "sink ", 5) == 0)
        {
          c->mode = 1;
          c->left = atoll (c->line + 5);
        }
      else
        c->mode = 2;
    }
}

static void
serve (int port)
{
  int lfd = listen_on (port), ep = epoll_create1 (0);
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL }, evs[64];

  epoll_ctl (ep, EPOLL_CTL_ADD, lfd, &ev);
  for (;;)
    {
      int n = epoll_wait (ep, evs, 64, -1);
      for (int i = 0; i < n; i++)
        {
          struct sconn *c = evs[i].data.ptr;
          if (c == NULL)
            {
              int fd = accept4 (lfd, NULL, NULL, SOCK_NONBLOCK), one = 1;
              if (fd < 0)
                continue;
              setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
              c = calloc (1, sizeof (*c));
              c->fd = fd;
              ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
              ev.data.ptr = c;
              epoll_ctl (ep, EPOLL_CTL_ADD, fd, &ev);
            }
          serve_conn (c);
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

static int
dial (int port)
{
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons (port),
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int fd = socket (AF_INET, SOCK_STREAM, 0), one = 1;

  if (connect (fd, (struct sockaddr *) &a, sizeof (a)) < 0)
    die ("connect");
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
  return fd;
}

/* Connects to the server, through the proxy's CONNECT when proxy > 0. */
static int
open_conn (int server, int proxy)
{
  char req[128], head[512];
  size_t got = 0;
  int fd;

  if (proxy <= 0)
    return dial (server);
  fd = dial (proxy);
  snprintf (req, sizeof (req), "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
            server, server);
  (void) !write (fd, req, strlen (req));
  while (got < 4 || memcmp (head + got - 4, "\r\n\r\n", 4) != 0)
    {
      ssize_t r = recv (fd, head + got, sizeof (head) - got - 1, 0);
      if (r <= 0)
        die ("CONNECT reply");
      got += (size_t) r;
    }
  if (strncmp (head, "HTTP/1.", 7) != 0 || strncmp (head + 8, " 200", 4) != 0)
    {
      head[got] = '\0';
      fprintf (stderr, "refused: %s\n", head);
      exit (1);
    }
  return fd;
}

static double
proc_cpu (int pid)
{
  char path[64], data[1024], *p;
  unsigned long ut, st;
  FILE *f;

  snprintf (path, sizeof (path), "/proc/%d/stat", pid);
  if (!(f = fopen (path, "r")) || !fgets (data, sizeof (data), f))
    die ("stat");
  fclose (f);
  p = strrchr (data, ')');
  sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st);
  return (ut + st) / (double) sysconf (_SC_CLK_TCK);
}

static long
proc_rss (int pid)
{
  char path[64], line[256];
  long kib = -1;
  FILE *f;

  snprintf (path, sizeof (path), "/proc/%d/status", pid);
  if (!(f = fopen (path, "r")))
    die ("status");
  while (fgets (line, sizeof (line), f))
    if (strncmp (line, "VmRSS:", 6) == 0)
      kib = atol (line + 6);
  fclose (f);
  return kib;
}

static double
download (int server, int proxy, long long n)
{
  int fd = open_conn (server, proxy);
  char req[64];
  long long got = 0;
  double t0;

  snprintf (req, sizeof (req), "sink %lld\n", n);
  t0 = now ();
  (void) !write (fd, req, strlen (req));
  while (got < n)
    {
      ssize_t r = recv (fd, buf, BUF, 0);
      if (r <= 0)
        die ("download");
      got += r;
    }
  t0 = now () - t0;
  close (fd);
  return t0;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Median time of n sequential new connections with one round trip each
 * (the median: this machine is shared and the mean follows the noise). */
static double
connections (int server, int proxy, int n)
{
  double *t = calloc ((size_t) n, sizeof (double)), m;
  char c;

  for (int i = 0; i < n; i++)
    {
      double t0 = now ();
      int fd = open_conn (server, proxy);
      (void) !write (fd, "echo\nx", 6);
      if (recv (fd, &c, 1, 0) != 1)
        die ("echo");
      close (fd);
      t[i] = now () - t0;
    }
  qsort (t, (size_t) n, sizeof (double), cmp_double);
  m = t[n / 2];
  free (t);
  return m;
}

static void
run (int server, int proxy, int pid, long long bytes, int conns)
{
  double d, p, cpu, dc, pc;
  int *fds = calloc ((size_t) conns, sizeof (int));

  printf ("rss idle: %ld KiB\n", proc_rss (pid));
  for (int i = 0; i < conns; i++)
    {
      fds[i] = open_conn (server, proxy);
      (void) !write (fds[i], "echo\nabc", 8);
    }
  for (int i = 0; i < conns; i++)
    (void) !recv (fds[i], buf, 3, MSG_WAITALL);
  printf ("rss with %d open tunnels: %ld KiB\n", conns, proc_rss (pid));
  for (int i = 0; i < conns; i++)
    close (fds[i]);
  /* Best of three rounds each, alternating, for the same reason. */
  d = p = 1e9;
  cpu = 0;
  for (int round = 0; round < 3; round++)
    {
      double c0, t;
      d = (t = download (server, 0, bytes)) < d ? t : d;
      c0 = proc_cpu (pid);
      p = (t = download (server, proxy, bytes)) < p ? t : p;
      cpu += proc_cpu (pid) - c0;
    }
  printf ("throughput: direct %.0f MiB/s, proxied %.0f MiB/s (%.2fx)\n",
          bytes / d / 1048576, bytes / p / 1048576, d / p);
  printf ("proxy cpu: %.2f s per GiB\n", cpu / 3 / (bytes / 1073741824.0));
  connections (server, 0, 200);
  dc = pc = cpu = 0;
  for (int round = 0; round < 4; round++)
    {
      double c0;
      dc += connections (server, 0, 250) / 4;
      c0 = proc_cpu (pid);
      pc += connections (server, proxy, 250) / 4;
      cpu += proc_cpu (pid) - c0;
    }
  printf ("new connection (median): direct %.3f ms, via CONNECT %.3f ms, added %.3f ms\n",
          dc * 1e3, pc * 1e3, (pc - dc) * 1e3);
  printf ("proxy cpu per new connection: %.3f ms\n", cpu / 1000 * 1e3);
  free (fds);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "serve") == 0)
    serve (atoi (argv[2]));
  else if (argc >= 5 && strcmp (argv[1], "run") == 0)
    run (atoi (argv[2]), atoi (argv[3]), atoi (argv[4]),
         argc > 5 ? atoll (argv[5]) : 1LL << 30, argc > 6 ? atoi (argv[6]) : 500);
  else
    {
      fprintf (stderr, "usage: bench serve PORT | bench run SERVER_PORT PROXY_PORT PROXY_PID "
                       "[BYTES] [CONNS]\n");
      return 2;
    }
  return 0;
}
