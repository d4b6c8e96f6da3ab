/* `agentrt approve [--socket PATH] [--auto-deny-after S] [--allow-pattern
 * P]...`: the reference approver of issue 18.  It listens on the unix
 * socket the policy's egress.ask names; each container's monitor connects
 * to it at create and hands the connection to the sidecar, whose
 * questions (oci/ask_line.h) are shown one at a time in the terminal
 * (container, destination, how often it asked, how many wait) and
 * answered with y (allow once), a (allow always, for the container's
 * lifetime) or n (deny).  The sidecar records every question and answer
 * in the container's audit trail, with this process's uid (SO_PEERCRED).
 * Scriptable: --allow-pattern answers allow-once for matching
 * destinations (fnmatch, "host" or "host:port"), --auto-deny-after denies
 * what nobody answered in time; without a terminal those decide alone. */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/ask_line.h"
#include "runtime/cli/commands.h"
#include "runtime/policy/policy.h"

#define MAX_SIDECARS 64
#define MAX_QUESTIONS 256 /* beyond: denied at once */
#define MAX_COUNTS 1024   /* destinations whose questions are counted */

struct sidecar
{
  int fd;
  char id[ASK_ID_MAX + 1];
  char buf[ASK_LINE_MAX];
  size_t len;
};

struct question
{
  struct ask_msg m;
  struct sidecar *from;
  time_t since;
};

struct approver
{
  struct str_list patterns;
  unsigned auto_deny_s; /* 0: never */
  struct sidecar sidecars[MAX_SIDECARS];
  struct question q[MAX_QUESTIONS]; /* in arrival order */
  size_t nq;
  struct
  {
    char key[ASK_ID_MAX + ASK_HOST_MAX + 16];
    unsigned n;
  } counts[MAX_COUNTS];
  size_t ncounts;
  bool prompted, tty_open;
  /* the terminal's input, read(2) as poll(2) sees it (stdio would buffer
   * a second line where poll cannot see it) */
  char term[64];
  size_t term_len;
};

static volatile sig_atomic_t stop;

static void
on_signal (int sig)
{
  (void) sig;
  stop = 1;
}

static unsigned
count_asked (struct approver *a, const struct ask_msg *m)
{
  char key[sizeof a->counts[0].key];

  snprintf (key, sizeof key, "%s %s:%u", m->id, m->host, (unsigned) m->port);
  for (size_t i = 0; i < a->ncounts; i++)
    if (strcmp (a->counts[i].key, key) == 0)
      return ++a->counts[i].n;
  if (a->ncounts == MAX_COUNTS)
    return 0;
  strcpy (a->counts[a->ncounts].key, key);
  a->counts[a->ncounts].n = 1;
  return a->ncounts++, 1;
}

static void
answer (struct approver *a, size_t i, enum ask_answer ans, const char *why)
{
  struct question *q = &a->q[i];
  size_t len;
  char *line = ask_answer_format (q->m.qid, ans, &len);

  if (q->from->fd >= 0 && send (q->from->fd, line, len, MSG_NOSIGNAL) != (ssize_t) len)
    printf ("[%s] %s:%u: the answer could not be sent: %s\n", q->m.id, q->m.host,
            (unsigned) q->m.port, strerror (errno));
  else
    printf ("[%s] %s:%u: %s (%s)\n", q->m.id, q->m.host, (unsigned) q->m.port,
            ask_answer_name (ans), why);
  free (line);
  memmove (&a->q[i], &a->q[i + 1], (a->nq - i - 1) * sizeof *a->q);
  a->nq--;
  if (i == 0)
    a->prompted = false;
}

static void
prompt (struct approver *a)
{
  const struct question *q = &a->q[0];

  if (a->prompted || a->nq == 0 || !a->tty_open)
    return;
  printf ("[%s] wants %s:%u (%s, name from %s)", q->m.id, q->m.host, (unsigned) q->m.port,
          q->m.proto, q->m.via);
  if (a->nq > 1)
    printf (", %zu more waiting", a->nq - 1);
  printf ("\n  allow? [y] once, [a] always, [n] no: ");
  fflush (stdout);
  a->prompted = true;
}

static bool
pattern_allows (const struct approver *a, const struct ask_msg *m)
{
  char dest[ASK_HOST_MAX + 8];

  snprintf (dest, sizeof dest, "%s:%u", m->host, (unsigned) m->port);
  for (size_t i = 0; i < a->patterns.len; i++)
    if (fnmatch (a->patterns.items[i], m->host, FNM_CASEFOLD) == 0
        || fnmatch (a->patterns.items[i], dest, FNM_CASEFOLD) == 0)
      return true;
  return false;
}

static void
on_question (struct approver *a, struct sidecar *s, const struct ask_msg *m)
{
  unsigned n = count_asked (a, m);
  struct question *q;

  if (a->prompted)
    printf ("\n");
  a->prompted = false;
  printf ("[%s] asks: %s:%u (%s, name from %s), asked %u time%s\n", m->id, m->host,
          (unsigned) m->port, m->proto, m->via, n, n == 1 ? "" : "s");
  if (a->nq == MAX_QUESTIONS)
    {
      size_t len;
      char *line = ask_answer_format (m->qid, ASK_DENY, &len);
      (void) !send (s->fd, line, len, MSG_NOSIGNAL);
      free (line);
      printf ("[%s] %s:%u: deny (too many questions waiting)\n", m->id, m->host,
              (unsigned) m->port);
      return;
    }
  q = &a->q[a->nq++];
  q->m = *m;
  q->from = s;
  q->since = time (NULL);
  if (pattern_allows (a, m))
    answer (a, a->nq - 1, ASK_ALLOW_ONCE, "--allow-pattern");
}

/* The sidecar settled a question itself (its timeout): it leaves the queue. */
static void
on_done (struct approver *a, const struct ask_msg *m)
{
  for (size_t i = 0; i < a->nq; i++)
    if (a->q[i].m.qid == m->qid && strcmp (a->q[i].m.id, m->id) == 0)
      {
        if (a->prompted && i == 0)
          printf ("\n");
        printf ("[%s] %s:%u: %s (the sidecar decided)\n", m->id, a->q[i].m.host,
                (unsigned) a->q[i].m.port, m->outcome);
        memmove (&a->q[i], &a->q[i + 1], (a->nq - i - 1) * sizeof *a->q);
        a->nq--;
        if (i == 0)
          a->prompted = false;
        return;
      }
}

static void
drop_sidecar (struct approver *a, struct sidecar *s, const char *why)
{
  printf ("[%s] gone (%s)\n", s->id[0] ? s->id : "?", why);
  close (s->fd);
  s->fd = -1;
  for (size_t i = a->nq; i-- > 0;)
    if (a->q[i].from == s)
      {
        memmove (&a->q[i], &a->q[i + 1], (a->nq - i - 1) * sizeof *a->q);
        a->nq--;
        if (i == 0)
          a->prompted = false;
      }
}

static void
on_sidecar (struct approver *a, struct sidecar *s)
{
  ssize_t r = read (s->fd, s->buf + s->len, sizeof s->buf - s->len);
  char *nl;

  if (r <= 0)
    {
      if (r < 0 && errno == EINTR)
        return;
      drop_sidecar (a, s, r == 0 ? "closed" : strerror (errno));
      return;
    }
  s->len += (size_t) r;
  while (s->fd >= 0 && (nl = memchr (s->buf, '\n', s->len)) != NULL)
    {
      cleanup_error agentrt_error_t err = NULL;
      size_t n = (size_t) (nl - s->buf) + 1;
      struct ask_msg m;

      if (ask_msg_parse (s->buf, n, &m, &err) < 0)
        {
          drop_sidecar (a, s, err->msg);
          return;
        }
      memmove (s->buf, s->buf + n, s->len - n);
      s->len -= n;
      if (m.type == ASK_MSG_HELLO)
        {
          snprintf (s->id, sizeof s->id, "%s", m.id);
          printf ("[%s] connected\n", s->id);
        }
      else if (m.type == ASK_MSG_QUESTION)
        on_question (a, s, &m);
      else
        on_done (a, &m);
    }
  if (s->fd >= 0 && s->len == sizeof s->buf)
    drop_sidecar (a, s, "a line too long");
}

static void
on_accept (struct approver *a, int lfd)
{
  int fd = accept4 (lfd, NULL, NULL, SOCK_CLOEXEC);

  if (fd < 0)
    return;
  for (size_t i = 0; i < MAX_SIDECARS; i++)
    if (a->sidecars[i].fd < 0)
      {
        a->sidecars[i] = (struct sidecar){ .fd = fd };
        return;
      }
  printf ("refused a connection: %d sidecars connected already\n", MAX_SIDECARS);
  close (fd); /* that sidecar denies what it would have asked */
}

/* One answer typed at the prompt. */
static void
on_answer (struct approver *a, char key)
{
  a->prompted = false;
  if (a->nq == 0)
    return;
  if (key == 'y' || key == 'Y')
    answer (a, 0, ASK_ALLOW_ONCE, "answered");
  else if (key == 'a' || key == 'A')
    answer (a, 0, ASK_ALLOW_ALWAYS, "answered");
  else if (key == 'n' || key == 'N')
    answer (a, 0, ASK_DENY, "answered");
}

static void
on_terminal (struct approver *a)
{
  ssize_t r = read (STDIN_FILENO, a->term + a->term_len, sizeof a->term - a->term_len);
  char *nl;

  if (r < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  if (r <= 0)
    {
      a->tty_open = false; /* patterns and --auto-deny-after decide alone */
      return;
    }
  a->term_len += (size_t) r;
  while ((nl = memchr (a->term, '\n', a->term_len)) != NULL)
    {
      size_t n = (size_t) (nl - a->term) + 1;
      on_answer (a, a->term[0]);
      memmove (a->term, a->term + n, a->term_len - n);
      a->term_len -= n;
    }
  if (a->term_len == sizeof a->term)
    a->term_len = 0; /* a line too long to be an answer */
}

static void
auto_deny (struct approver *a)
{
  time_t now = time (NULL);

  if (a->auto_deny_s == 0)
    return;
  for (size_t i = a->nq; i-- > 0;)
    if (now - a->q[i].since >= (time_t) a->auto_deny_s)
      answer (a, i, ASK_DENY, "--auto-deny-after");
}

/* The listening socket at path, 0600; a stale socket there is replaced,
 * anything else refused. */
static int
listen_at (const char *path, agentrt_error_t *err)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  struct stat st;
  int fd;

  if (strlen (path) >= sizeof sa.sun_path)
    return agentrt_error (err, ENAMETOOLONG, "--socket `%s`: too long", path);
  if (lstat (path, &st) == 0 && !S_ISSOCK (st.st_mode))
    return agentrt_error (err, EEXIST, "--socket `%s`: exists and is not a socket", path);
  if (lstat (path, &st) == 0 && unlink (path) < 0)
    return agentrt_error (err, errno, "--socket `%s`: remove the old socket", path);
  strcpy (sa.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return agentrt_error (err, errno, "socket");
  if (bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0 || chmod (path, 0600) < 0
      || listen (fd, 64) < 0)
    {
      agentrt_error (err, errno, "--socket `%s`", path);
      close (fd);
      return -1;
    }
  return fd;
}

static int
serve (struct approver *a, int lfd)
{
  struct pollfd p[MAX_SIDECARS + 2];

  while (!stop)
    {
      size_t n = 0;

      prompt (a);
      fflush (stdout);
      p[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
      p[n++] = (struct pollfd){ .fd = a->tty_open ? STDIN_FILENO : -1, .events = POLLIN };
      for (size_t i = 0; i < MAX_SIDECARS; i++)
        p[n++] = (struct pollfd){ .fd = a->sidecars[i].fd, .events = POLLIN };
      if (poll (p, n, a->auto_deny_s ? 500 : -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return -1;
        }
      if (p[0].revents)
        on_accept (a, lfd);
      if (p[1].revents)
        on_terminal (a);
      for (size_t i = 0; i < MAX_SIDECARS; i++)
        if (p[2 + i].revents && a->sidecars[i].fd >= 0)
          on_sidecar (a, &a->sidecars[i]);
      auto_deny (a);
    }
  return 0;
}

int
cmd_approve (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  static const struct option opts[] = {
    { "socket", required_argument, NULL, 's' },
    { "auto-deny-after", required_argument, NULL, 'd' },
    { "allow-pattern", required_argument, NULL, 'p' },
    { NULL, 0, NULL, 0 },
  };
  const char *path = EGRESS_ASK_DEFAULT_SOCKET;
  cleanup_free struct approver *a = xzalloc (sizeof *a);
  struct sigaction sa = { .sa_handler = on_signal };
  uint64_t secs;
  int ch, lfd, r;

  (void) g;
  opterr = 0;
  optind = 0;
  while ((ch = getopt_long_only (argc, argv, "+:", opts, NULL)) != -1)
    {
      if (ch == 's')
        path = optarg;
      else if (ch == 'd')
        {
          if (policy_parse_duration (optarg, &secs) < 0 || secs > 86400)
            return agentrt_error (err, 0, "--auto-deny-after: `%s` is not a duration "
                                  "(e.g. 10, 20s, 1m)", optarg);
          a->auto_deny_s = (unsigned) secs;
        }
      else if (ch == 'p')
        str_list_append (&a->patterns, optarg);
      else
        return cmd_option_error (argv, ch, err);
    }
  if (cmd_check_args (argc, optind, 0, 0, "approve [--socket PATH] [--auto-deny-after S] "
                      "[--allow-pattern P]...", err) < 0)
    return -1;
  for (size_t i = 0; i < MAX_SIDECARS; i++)
    a->sidecars[i].fd = -1;
  a->tty_open = true; /* until EOF: a pipe answers as a terminal does */
  lfd = listen_at (path, err);
  if (lfd < 0)
    return -1;
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  signal (SIGPIPE, SIG_IGN);
  printf ("agentrt approve: listening on %s\n", path);
  r = serve (a, lfd);
  if (r < 0)
    agentrt_error (err, errno, "poll");
  for (size_t i = 0; i < MAX_SIDECARS; i++)
    if (a->sidecars[i].fd >= 0)
      close (a->sidecars[i].fd);
  close (lfd);
  unlink (path);
  str_list_free (&a->patterns);
  return r;
}
