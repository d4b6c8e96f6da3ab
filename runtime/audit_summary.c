/* Aggregating audit trails (see audit_summary.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/audit_record.h"
#include "runtime/audit_summary.h"

static void
decisions_init (struct audit_decisions *d)
{
  tally_init (&d->allowed, AUDIT_SUMMARY_MAX_KEYS);
  tally_init (&d->denied, AUDIT_SUMMARY_MAX_KEYS);
  tally_init (&d->reasons, AUDIT_SUMMARY_MAX_KEYS);
}

static void
decisions_release (struct audit_decisions *d)
{
  tally_release (&d->allowed);
  tally_release (&d->denied);
  tally_release (&d->reasons);
}

void
audit_summary_init (struct audit_summary *s, bool has_since, int64_t since_us)
{
  memset (s, 0, sizeof *s);
  s->has_since = has_since;
  s->since_us = since_us;
  tally_init (&s->exit_causes, AUDIT_SUMMARY_MAX_KEYS);
  decisions_init (&s->egress);
  decisions_init (&s->dns);
  tally_init (&s->injected, AUDIT_SUMMARY_MAX_KEYS);
  tally_init (&s->standins, AUDIT_SUMMARY_MAX_KEYS);
  tally_init (&s->asked, AUDIT_SUMMARY_MAX_KEYS);
  tally_init (&s->secrets, AUDIT_SUMMARY_MAX_KEYS);
  tally_init (&s->masked, AUDIT_SUMMARY_MAX_KEYS);
  tally_init (&s->dropped, AUDIT_SUMMARY_MAX_KEYS);
  tally_init (&s->incidents, AUDIT_SUMMARY_MAX_KEYS);
}

static void
named_release (struct audit_named_list *l)
{
  for (size_t i = 0; i < l->len; i++)
    {
      free (l->items[i].name);
      free (l->items[i].what);
      free (l->items[i].value);
    }
  free (l->items);
  memset (l, 0, sizeof *l);
}

static void
named_add (struct audit_named_list *l, const char *name, const char *what,
           const char *value)
{
  if (l->len == AUDIT_SUMMARY_MAX_NAMES)
    {
      l->dropped++;
      return;
    }
  if (l->len == l->cap)
    {
      l->cap = l->cap ? l->cap * 2 : 16;
      l->items = xreallocarray (l->items, l->cap, sizeof *l->items);
    }
  l->items[l->len++] = (struct audit_named){
    xstrdup (name), xstrdup (what), value ? xstrdup (value) : NULL
  };
}

void
audit_summary_release (struct audit_summary *s)
{
  free (s->cur.name);
  named_release (&s->refused);
  named_release (&s->loosened);
  free (s->first_damaged);
  free (s->lifetimes_ms);
  tally_release (&s->exit_causes);
  decisions_release (&s->egress);
  decisions_release (&s->dns);
  tally_release (&s->injected);
  tally_release (&s->standins);
  tally_release (&s->asked);
  tally_release (&s->secrets);
  tally_release (&s->masked);
  tally_release (&s->dropped);
  tally_release (&s->incidents);
  memset (s, 0, sizeof *s);
}

void
audit_summary_trail_begin (struct audit_summary *s, const char *name)
{
  free (s->cur.name);
  memset (&s->cur, 0, sizeof s->cur);
  s->cur.name = xstrdup (name);
  s->trails++;
}

/* The end of the current run: one that was counted and never exited
 * (only hardened ones: with the hardening off no monitor records exits). */
static void
run_end (struct audit_summary *s)
{
  if (s->cur.in_run && s->cur.run_counted && s->cur.hardened
      && !s->cur.exited)
    s->no_exit++;
  s->cur.in_run = s->cur.run_counted = s->cur.exited = false;
  s->cur.hardened = false;
  memset (s->cur.limit_seen, 0, sizeof s->cur.limit_seen);
  memset (s->cur.limit_counted, 0, sizeof s->cur.limit_counted);
}

void
audit_summary_trail_end (struct audit_summary *s)
{
  run_end (s);
  if (s->cur.damaged)
    s->damaged_trails++;
}

void
audit_summary_trail_older (struct audit_summary *s)
{
  s->trails_older++;
}

void
audit_summary_trail_refused (struct audit_summary *s, const char *name,
                             const char *why)
{
  named_add (&s->refused, name, why, NULL);
}

static void
damaged (struct audit_summary *s, const char *why)
{
  s->damaged++;
  s->cur.damaged = true;
  if (s->first_damaged == NULL)
    s->first_damaged = xasprintf ("%s:%llu: %s", s->cur.name ? s->cur.name : "?",
                                  (unsigned long long) s->cur.line, why);
}

/* credential, socket or other: what a mask or a dropped mount protects,
 * from the words of its why (runtime/policy/binds.c, bind_scan.c). */
static const char *
protection_class (const char *why)
{
  if (why && strstr (why, "socket"))
    return "socket";
  if (why && strstr (why, "credential"))
    return "credential";
  return "other";
}

static void
count_changes (struct audit_summary *s, const struct audit_record *r)
{
  for (size_t i = 0; i < r->nchanges; i++)
    {
      const struct audit_change *c = &r->changes[i];
      if (strcmp (c->kind, "env-removed") == 0)
        tally_add (&s->secrets, c->why ? c->why : "(no reason given)", 1);
      else if (strcmp (c->kind, "env-kept") == 0)
        s->secrets_kept++;
      else if (strcmp (c->kind, "path-masked") == 0)
        tally_add (&s->masked, protection_class (c->why), 1);
      else if (strcmp (c->kind, "mount-dropped") == 0)
        tally_add (&s->dropped, protection_class (c->why), 1);
    }
}

static void
loosened (struct audit_summary *s, const char *knob, const char *value)
{
  named_add (&s->loosened, s->cur.name, knob, value);
}

static void
on_create (struct audit_summary *s, const struct audit_record *r)
{
  run_end (s);
  s->cur.in_run = true;
  s->cur.run_counted = true;
  s->cur.hardened = r->hardened;
  s->runs++;
  if (!r->hardened)
    {
      s->hardening_off++;
      loosened (s, "hardening", "off");
      return;
    }
  s->hardened++;
  if (r->rootfs && strcmp (r->rootfs, "readonly") != 0)
    loosened (s, "rootfs", r->rootfs);
  if (r->env_keep.len)
    {
      cleanup_free char *names = str_list_join (&r->env_keep, ",");
      loosened (s, "env.keep", names);
    }
  if (r->seccomp_off)
    loosened (s, "seccomp.profile", "null");
  if (r->egress_allow_broad)
    loosened (s, "egress.allowBroad", "true");
  count_changes (s, r);
}

static enum audit_limit_kind
limit_kind (const char *kind)
{
  if (strcmp (kind, "oom") == 0)
    return AUDIT_LIMIT_MEMORY;
  if (strcmp (kind, "pids") == 0)
    return AUDIT_LIMIT_PIDS;
  if (strcmp (kind, "lifetime") == 0)
    return AUDIT_LIMIT_LIFETIME;
  return AUDIT_LIMIT_OTHER;
}

static void
on_limit (struct audit_summary *s, const struct audit_record *r)
{
  enum audit_limit_kind k = limit_kind (r->kind);

  s->limits[k].hits++;
  if (!s->cur.limit_counted[k])
    s->limits[k].containers++;
  s->cur.limit_seen[k] = s->cur.limit_counted[k] = true;
}

static const char *
signal_name (int sig)
{
  static const char *const names[] = {
    [1] = "SIGHUP",   [2] = "SIGINT",   [3] = "SIGQUIT",  [4] = "SIGILL",
    [5] = "SIGTRAP",  [6] = "SIGABRT",  [7] = "SIGBUS",   [8] = "SIGFPE",
    [9] = "SIGKILL",  [10] = "SIGUSR1", [11] = "SIGSEGV", [12] = "SIGUSR2",
    [13] = "SIGPIPE", [14] = "SIGALRM", [15] = "SIGTERM", [16] = "SIGSTKFLT",
    [17] = "SIGCHLD", [18] = "SIGCONT", [19] = "SIGSTOP", [20] = "SIGTSTP",
    [21] = "SIGTTIN", [22] = "SIGTTOU", [23] = "SIGURG",  [24] = "SIGXCPU",
    [25] = "SIGXFSZ", [26] = "SIGVTALRM", [27] = "SIGPROF", [28] = "SIGWINCH",
    [29] = "SIGIO",   [30] = "SIGPWR",  [31] = "SIGSYS",
  };
  return sig > 0 && (size_t) sig < sizeof names / sizeof names[0] ? names[sig]
                                                                  : NULL;
}

/* Why the run ended: its limit if one killed it, else how it exited. */
static void
on_exit_event (struct audit_summary *s, const struct audit_record *r)
{
  char cause[32];

  s->exits++;
  if (r->exit_how == AUDIT_EXIT_UNKNOWN)
    snprintf (cause, sizeof cause, "unknown");
  else if (s->cur.limit_seen[AUDIT_LIMIT_LIFETIME])
    snprintf (cause, sizeof cause, "lifetime");
  else if (r->exit_how == AUDIT_EXIT_SIGNAL && r->exit_code == 9
           && s->cur.limit_seen[AUDIT_LIMIT_MEMORY])
    snprintf (cause, sizeof cause, "oom");
  else if (r->exit_how == AUDIT_EXIT_SIGNAL && signal_name (r->exit_code))
    snprintf (cause, sizeof cause, "signal %s", signal_name (r->exit_code));
  else if (r->exit_how == AUDIT_EXIT_SIGNAL)
    snprintf (cause, sizeof cause, "signal %d", (int) r->exit_code);
  else
    snprintf (cause, sizeof cause, "status %d", (int) r->exit_code);
  tally_add (&s->exit_causes, cause, 1);
  if (r->has_lifetime)
    {
      if (s->nlifetimes == s->lifetimes_cap)
        {
          s->lifetimes_cap = s->lifetimes_cap ? s->lifetimes_cap * 2 : 256;
          s->lifetimes_ms = xreallocarray (s->lifetimes_ms, s->lifetimes_cap,
                                           sizeof *s->lifetimes_ms);
        }
      s->lifetimes_ms[s->nlifetimes++] = r->lifetime_ms;
    }
}

/* An egress or dns line. */
static void
on_decision (struct audit_decisions *d, const struct audit_record *r)
{
  const char *host = r->host ? r->host : "(none)";

  if (r->allowed)
    {
      tally_add (&d->allowed, host, 1);
      return;
    }
  tally_add (&d->denied, host, 1);
  tally_add (&d->reasons, r->reason ? r->reason : "(none)", 1);
}

/* What every record does to the trail's state, in the window or not. */
static void
track (struct audit_summary *s, const struct audit_record *r)
{
  if (r->event == AUDIT_EVENT_CREATE)
    {
      run_end (s);
      s->cur.in_run = true;
    }
  else if (r->event == AUDIT_EVENT_LIMIT)
    s->cur.limit_seen[limit_kind (r->kind)] = true;
  else if (r->event == AUDIT_EVENT_EXIT)
    s->cur.exited = true;
}

static void
count (struct audit_summary *s, const struct audit_record *r)
{
  switch (r->event)
    {
    case AUDIT_EVENT_CREATE:
      on_create (s, r);
      break;
    case AUDIT_EVENT_EXEC:
      count_changes (s, r);
      break;
    case AUDIT_EVENT_LIMIT:
      on_limit (s, r);
      break;
    case AUDIT_EVENT_INCIDENT:
      tally_add (&s->incidents, r->kind, 1);
      break;
    case AUDIT_EVENT_SIDECAR:
      s->sidecar_stopped++;
      break;
    case AUDIT_EVENT_AUDIT:
      s->records_lost += r->lost;
      break;
    case AUDIT_EVENT_EXIT:
      on_exit_event (s, r);
      s->cur.exited = true;
      break;
    case AUDIT_EVENT_EGRESS:
      on_decision (&s->egress, r);
      if (r->credential)
        tally_add (&s->standins, r->credential, 1);
      break;
    case AUDIT_EVENT_DNS:
      on_decision (&s->dns, r);
      break;
    case AUDIT_EVENT_INJECT:
      tally_add (&s->injected, r->credential, 1);
      break;
    case AUDIT_EVENT_ASK:
      tally_add (&s->asked, r->answer, 1);
      break;
    case AUDIT_EVENT_OTHER:
      s->other_events++;
      break;
    }
}

void
audit_summary_line_damaged (struct audit_summary *s, const char *why)
{
  s->lines++;
  s->cur.line++;
  damaged (s, why);
}

void
audit_summary_line (struct audit_summary *s, const char *line, size_t len)
{
  cleanup_error agentrt_error_t err = NULL;
  struct audit_record r;

  s->lines++;
  s->cur.line++;
  if (audit_record_parse (line, len, &r, &err) < 0)
    {
      damaged (s, err->msg);
      return;
    }
  if (s->has_since && r.time_us < s->since_us)
    track (s, &r);
  else
    count (s, &r);
  audit_record_release (&r);
}

static int
by_value (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

static int
by_knob (const void *a, const void *b)
{
  const struct audit_named *x = a, *y = b;
  int c = strcmp (x->what, y->what);

  if (c == 0)
    c = strcmp (x->value ? x->value : "", y->value ? y->value : "");
  return c ? c : strcmp (x->name, y->name);
}

/* Sorted by knob, value and name, each triple once (a trail of several
 * runs names its container once per knob). */
static void
sort_unique (struct audit_named_list *l)
{
  size_t out = 0;

  if (l->len == 0)
    return;
  qsort (l->items, l->len, sizeof *l->items, by_knob);
  for (size_t i = 0; i < l->len; i++)
    {
      if (out > 0 && by_knob (&l->items[out - 1], &l->items[i]) == 0)
        {
          free (l->items[i].name);
          free (l->items[i].what);
          free (l->items[i].value);
          continue;
        }
      l->items[out++] = l->items[i];
    }
  l->len = out;
}

void
audit_summary_finish (struct audit_summary *s)
{
  if (s->nlifetimes)
    qsort (s->lifetimes_ms, s->nlifetimes, sizeof *s->lifetimes_ms, by_value);
  sort_unique (&s->loosened);
  sort_unique (&s->refused);
}

uint64_t
audit_summary_percentile (const struct audit_summary *s, unsigned p)
{
  size_t rank;

  if (s->nlifetimes == 0)
    return 0;
  rank = (s->nlifetimes * p + 99) / 100; /* n is bounded by memory */
  if (rank == 0)
    rank = 1;
  if (rank > s->nlifetimes)
    rank = s->nlifetimes;
  return s->lifetimes_ms[rank - 1];
}
