/* `agentrt audit --summary`: the figures of every trail in the audit dir,
 * aggregated.  Pure: the caller reads the files (runtime/audit_scan.c) and
 * feeds their lines here; audit_summary_format.h renders the result.
 *
 * A container run is a `create` line (a trail holds one per create under
 * its id); the events after it, up to the next `create`, are that run's.
 * With a `since` time only the events at or after it count, each by its
 * own `time` (a run created before and ended after it counts its exit,
 * not its create).  A line that cannot be read (not JSON, a member of the
 * wrong type, a broken end: oci/audit_record.h) is skipped and counted,
 * never fatal.  Every table of names (hosts, reasons) holds at most
 * AUDIT_SUMMARY_MAX_KEYS names, what does not fit is counted as other. */
#ifndef AGENTRT_AUDIT_SUMMARY_H
#define AGENTRT_AUDIT_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tally.h"

#define AUDIT_SUMMARY_MAX_KEYS 65536
/* Trails refused and loosened containers kept by name, at most. */
#define AUDIT_SUMMARY_MAX_NAMES 100000

enum audit_limit_kind
{
  AUDIT_LIMIT_MEMORY,   /* "oom" */
  AUDIT_LIMIT_PIDS,     /* "pids" */
  AUDIT_LIMIT_LIFETIME, /* "lifetime" */
  AUDIT_LIMIT_OTHER,    /* a kind this agentrt does not know */
  AUDIT_LIMIT_KINDS,
};

struct audit_limit_count
{
  uint64_t hits;       /* limit events */
  uint64_t containers; /* runs with at least one */
};

/* A trail that could not be read (not trusted, unreadable), or a hardening
 * knob off or loosened in a run. */
struct audit_named
{
  char *name;  /* the trail: its container id */
  char *what;  /* why refused; or the knob, "rootfs" */
  char *value; /* the knob's value, "writable"; NULL for a refusal */
};

struct audit_named_list
{
  struct audit_named *items;
  size_t len, cap;
  uint64_t dropped; /* beyond AUDIT_SUMMARY_MAX_NAMES */
};

/* egress and dns lines: by decision and host (dns: the name asked), the
 * denials also by reason. */
struct audit_decisions
{
  struct tally allowed; /* by host ("(none)": not named) */
  struct tally denied;  /* by host */
  struct tally reasons; /* the denials, by reason */
};

struct audit_summary
{
  bool has_since;
  int64_t since_us;

  uint64_t trails;         /* read */
  uint64_t trails_older;   /* not read: last written before `since` */
  struct audit_named_list refused;

  uint64_t lines;          /* read (damaged included) */
  uint64_t damaged;
  uint64_t damaged_trails;
  char *first_damaged;     /* "ID:LINE: why" */
  uint64_t other_events;   /* events this agentrt does not know */

  uint64_t runs, hardened, hardening_off;
  /* no_exit: hardened runs without an exit line yet (running, or their
   * monitor was stopped); a run with the hardening off has no monitor,
   * and no exit line */
  uint64_t exits, no_exit;
  uint64_t *lifetimes_ms;  /* sorted by audit_summary_finish */
  size_t nlifetimes, lifetimes_cap;
  struct tally exit_causes; /* "status 0", "signal SIGTERM", "lifetime" */
  struct audit_limit_count limits[AUDIT_LIMIT_KINDS];

  struct audit_decisions egress;
  struct audit_decisions dns;
  struct tally injected;     /* inject lines, by credential */
  struct tally standins;     /* egress lines whose stand-in went out
                                unchanged, by credential */
  struct tally asked;        /* ask lines, by answer */

  struct tally secrets;      /* env-removed, by why */
  uint64_t secrets_kept;     /* env-kept */
  struct tally masked;       /* path-masked: credential, socket, other */
  struct tally dropped;      /* mount-dropped: credential, socket, other */

  struct audit_named_list loosened;
  struct tally incidents;    /* by kind */
  uint64_t sidecar_stopped;
  uint64_t records_lost;     /* `audit` lines' lost */

  /* the trail being read */
  struct
  {
    char *name;
    uint64_t line;
    bool damaged;
    bool in_run;        /* after a create */
    bool run_counted;   /* that create was in the window */
    bool hardened;      /* ... and hardened */
    bool exited;
    bool limit_seen[AUDIT_LIMIT_KINDS];    /* in this run */
    bool limit_counted[AUDIT_LIMIT_KINDS]; /* ... and in the window */
  } cur;
};

void audit_summary_init (struct audit_summary *s, bool has_since,
                         int64_t since_us);
void audit_summary_release (struct audit_summary *s);

/* A trail, its lines (without their newline) and its end.  A line the
 * reader could not take whole (too long, no newline at the end of the
 * trail) is counted with why. */
void audit_summary_trail_begin (struct audit_summary *s, const char *name);
void audit_summary_line (struct audit_summary *s, const char *line,
                         size_t len);
void audit_summary_line_damaged (struct audit_summary *s, const char *why);
void audit_summary_trail_end (struct audit_summary *s);

/* A trail not read: older than `since`, or refused (why). */
void audit_summary_trail_older (struct audit_summary *s);
void audit_summary_trail_refused (struct audit_summary *s, const char *name,
                                  const char *why);

/* After the last trail: sorts what the renderers need sorted. */
void audit_summary_finish (struct audit_summary *s);

/* The p-th percentile (nearest rank) of the sorted lifetimes; 0 if none. */
uint64_t audit_summary_percentile (const struct audit_summary *s, unsigned p);

#endif
