/* The flow engine: moves one direction of a connection from its source
 * socket to its destination socket.  Payload goes through splice(2) and a
 * pipe taken from a small pool only while it holds data, so an idle
 * connection owns no pipe and no buffer; bytes the protocol code must look
 * at (heads, chunk framing, SOCKS5 messages) are read into a bounded
 * buffer instead.  Edge-triggered epoll: an endpoint stays readable or
 * writable until a call says EAGAIN. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "egress.h"

/* Free pipes kept for the next transfer; all of them are closed when the
 * proxy is idle, since they count against the user's pipe quota. */
#define MAX_FREE_PIPES 8
#define PIPE_DEFAULT_SIZE 65536

enum
{
  IO_CLOSED = -1, /* the connection was closed */
  IO_WAIT = 0,    /* would block */
  IO_PROGRESS = 1,
};

static struct pipe_pair *
pipe_get (struct egress *eg)
{
  struct pipe_pair *pp = eg->free_pipes;
  int fds[2];

  if (pp)
    {
      eg->free_pipes = pp->next;
      eg->nfree_pipes--;
      return pp;
    }
  if (pipe2 (fds, O_NONBLOCK | O_CLOEXEC) < 0)
    return NULL; /* out of fds: the copy path still works */
  if (eg->pipe_size > PIPE_DEFAULT_SIZE)
    (void) fcntl (fds[1], F_SETPIPE_SZ, eg->pipe_size); /* over the user's pipe quota: keep the default */
  pp = xmalloc (sizeof (*pp));
  pp->r = fds[0];
  pp->w = fds[1];
  return pp;
}

static void
pipe_close (struct pipe_pair *pp)
{
  close (pp->r);
  close (pp->w);
  free (pp);
}

static void
pipe_put (struct egress *eg, struct pipe_pair *pp)
{
  if (eg->nfree_pipes >= MAX_FREE_PIPES)
    {
      pipe_close (pp);
      return;
    }
  pp->next = eg->free_pipes;
  eg->free_pipes = pp;
  eg->nfree_pipes++;
}

void
pipes_free (struct egress *eg)
{
  while (eg->free_pipes)
    {
      struct pipe_pair *pp = eg->free_pipes;
      eg->free_pipes = pp->next;
      pipe_close (pp);
    }
  eg->nfree_pipes = 0;
}

void
flow_init (struct flow *f, struct endpoint *src, struct endpoint *dst, uint64_t *bytes,
           inspect_fn inspect)
{
  memset (f, 0, sizeof (*f));
  f->src = src;
  f->dst = dst;
  f->bytes = bytes;
  f->inspect = inspect;
}

void
flow_reset (struct egress *eg, struct flow *f)
{
  flow_drop_output (eg, f);
  free (f->buf);
  flow_init (f, f->src, f->dst, f->bytes, f->inspect);
}

void
flow_drop_output (struct egress *eg, struct flow *f)
{
  if (f->pipe)
    {
      if (f->pipe_bytes)
        pipe_close (f->pipe);
      else
        pipe_put (eg, f->pipe);
    }
  f->pipe = NULL;
  f->pipe_bytes = 0;
  flow_set_out (f, NULL, 0, false);
  f->pass = 0;
  f->done = false;
}

void
flow_set_out (struct flow *f, char *data, size_t len, bool counted)
{
  free (f->out);
  f->out = data;
  f->out_off = 0;
  f->out_len = len;
  f->out_counted = counted;
}

void
flow_queue_out (struct flow *f, const void *data, size_t len)
{
  size_t pending = f->out ? f->out_len - f->out_off : 0;
  char *out = xmalloc (pending + len);

  if (pending)
    memcpy (out, f->out + f->out_off, pending);
  memcpy (out + pending, data, len);
  flow_set_out (f, out, pending + len, false);
}

void
flow_consume (struct flow *f, size_t n)
{
  f->off += n;
  f->len -= n;
  if (f->len == 0)
    {
      free (f->buf);
      f->buf = NULL;
      f->off = 0;
    }
}

/* A failed send/splice/recv: EAGAIN means wait, anything else ends the
 * connection. */
static int
io_error (struct conn *c, bool *flag, const char *reason)
{
  if (errno == EAGAIN || errno == EINTR)
    {
      if (errno == EAGAIN)
        *flag = false;
      return IO_WAIT;
    }
  conn_close (c, reason);
  return IO_CLOSED;
}

static void
moved (struct conn *c, struct flow *f, size_t n, bool count)
{
  if (count)
    *f->bytes += n;
  c->last_ms = c->eg->now_ms;
}

static int
send_bytes (struct conn *c, struct flow *f, const char *p, size_t n, bool count)
{
  ssize_t r;

  if (f->dst->fd < 0 || !f->dst->writable)
    return IO_WAIT;
  r = send (f->dst->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (r < 0)
    return io_error (c, &f->dst->writable, "reset");
  moved (c, f, (size_t) r, count);
  return (int) r; /* callers treat any r > 0 as progress */
}

static int
send_out (struct conn *c, struct flow *f)
{
  int r = send_bytes (c, f, f->out + f->out_off, f->out_len - f->out_off, f->out_counted);

  if (r <= 0)
    return r;
  f->out_off += (size_t) r;
  if (f->out_off == f->out_len)
    flow_set_out (f, NULL, 0, false);
  return IO_PROGRESS;
}

static int
drain_pipe (struct conn *c, struct flow *f)
{
  ssize_t r;

  if (f->dst->fd < 0 || !f->dst->writable)
    return IO_WAIT;
  r = splice (f->pipe->r, NULL, f->dst->fd, NULL, f->pipe_bytes,
              SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (r < 0)
    return io_error (c, &f->dst->writable, "reset");
  moved (c, f, (size_t) r, true);
  f->pipe_bytes -= (size_t) r;
  if (f->pipe_bytes == 0)
    {
      pipe_put (c->eg, f->pipe);
      f->pipe = NULL;
    }
  return IO_PROGRESS;
}

static int
send_buffered (struct conn *c, struct flow *f)
{
  size_t n = f->pass < f->len ? (size_t) f->pass : f->len;
  int r = send_bytes (c, f, f->buf + f->off, n, true);

  if (r <= 0)
    return r;
  flow_consume (f, (size_t) r);
  if (f->pass != FLOW_UNTIL_EOF)
    f->pass -= (uint64_t) r;
  return IO_PROGRESS;
}

static int
read_buffered (struct conn *c, struct flow *f)
{
  ssize_t r;

  if (f->src->fd < 0 || !f->src->readable)
    return IO_WAIT;
  if (f->buf == NULL)
    f->buf = xmalloc (FLOW_BUF_SIZE);
  if (f->off)
    {
      memmove (f->buf, f->buf + f->off, f->len);
      f->off = 0;
    }
  if (f->len == FLOW_BUF_SIZE)
    {
      conn_close (c, "buffer-full");
      return IO_CLOSED;
    }
  r = recv (f->src->fd, f->buf + f->len, FLOW_BUF_SIZE - f->len, MSG_DONTWAIT);
  if (r < 0)
    return io_error (c, &f->src->readable, "reset");
  if (r == 0)
    f->eof = true;
  else if ((size_t) r < FLOW_BUF_SIZE - f->len && !f->src->hup)
    /* Drained.  Data or a FIN that arrives later raises a new edge; a FIN
     * that came before this read was reported with the event (hup). */
    f->src->readable = false;
  f->len += (size_t) r;
  if (f->len == 0)
    flow_consume (f, 0);
  c->last_ms = c->eg->now_ms;
  return IO_PROGRESS;
}

static int
splice_in (struct conn *c, struct flow *f)
{
  size_t want = c->eg->pipe_size;
  ssize_t r;

  if (f->src->fd < 0 || !f->src->readable)
    return IO_WAIT;
  if (f->pipe == NULL && (f->pipe = pipe_get (c->eg)) == NULL)
    return read_buffered (c, f);
  if (f->pass < want)
    want = (size_t) f->pass;
  r = splice (f->src->fd, NULL, f->pipe->w, NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (r <= 0)
    {
      pipe_put (c->eg, f->pipe);
      f->pipe = NULL;
      if (r == 0)
        {
          f->eof = true;
          return IO_PROGRESS;
        }
      return io_error (c, &f->src->readable, "reset");
    }
  f->pipe_bytes = (size_t) r;
  if (f->pass != FLOW_UNTIL_EOF)
    f->pass -= (uint64_t) r;
  c->last_ms = c->eg->now_ms;
  return IO_PROGRESS;
}

/* The source ended while `pass` bytes were still expected. */
static int
pass_eof (struct conn *c, struct flow *f)
{
  if (f->pass != FLOW_UNTIL_EOF)
    {
      conn_close (c, "truncated");
      return IO_CLOSED;
    }
  f->done = true;
  if (f->dst->fd >= 0)
    shutdown (f->dst->fd, SHUT_WR);
  if (c->down.done && (c->up.done || c->up.paused))
    {
      conn_close (c, "ok");
      return IO_CLOSED;
    }
  return IO_WAIT;
}

static int
pump_step (struct conn *c, struct flow *f)
{
  if (f->out)
    return send_out (c, f);
  if (f->pipe_bytes)
    return drain_pipe (c, f);
  if (f->pass)
    {
      if (f->len)
        return send_buffered (c, f);
      if (f->eof)
        return pass_eof (c, f);
      return splice_in (c, f);
    }
  switch (f->inspect (c, f))
    {
    case INSPECT_CONTINUE:
      return IO_PROGRESS;
    case INSPECT_STOP:
      return c->dead ? IO_CLOSED : IO_WAIT;
    case INSPECT_NEED_INPUT:
      break;
    }
  if (f->eof)
    {
      conn_close (c, "truncated"); /* the inspector must handle EOF itself */
      return IO_CLOSED;
    }
  return read_buffered (c, f);
}

bool
flow_pump (struct conn *c, struct flow *f)
{
  while (!c->dead && !f->done && !f->paused)
    {
      int r = pump_step (c, f);
      if (r == IO_CLOSED)
        return false;
      if (r == IO_WAIT)
        break;
    }
  return !c->dead;
}
