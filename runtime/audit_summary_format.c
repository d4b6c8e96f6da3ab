/* Rendering an audit summary (see audit_summary_format.h). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/timestamp.h"
#include "common/xalloc.h"
#include "oci/json_writer.h"
#include "runtime/audit_summary_format.h"

#define NAME_MAX_SHOWN 80
/* reasons: agentrt's own messages, paths in them */
#define WHY_MAX_SHOWN 400

static const char *const limit_names[AUDIT_LIMIT_KINDS] = {
  [AUDIT_LIMIT_MEMORY] = "memory", [AUDIT_LIMIT_PIDS] = "pids",
  [AUDIT_LIMIT_LIFETIME] = "lifetime", [AUDIT_LIMIT_OTHER] = "other",
};

static const char *const classes[] = { "credential", "socket", "other" };

const char *
audit_format_duration (uint64_t ms, char buf[AUDIT_DURATION_LEN])
{
  uint64_t s = ms / 1000;

  if (ms < 1000)
    snprintf (buf, AUDIT_DURATION_LEN, "%" PRIu64 "ms", ms);
  else if (s < 60)
    snprintf (buf, AUDIT_DURATION_LEN, "%" PRIu64 ".%" PRIu64 "s", s,
              ms % 1000 / 100);
  else if (s < 3600)
    snprintf (buf, AUDIT_DURATION_LEN, "%" PRIu64 "m%02" PRIu64 "s", s / 60,
              s % 60);
  else if (s < 86400)
    snprintf (buf, AUDIT_DURATION_LEN, "%" PRIu64 "h%02" PRIu64 "m", s / 3600,
              s / 60 % 60);
  else
    snprintf (buf, AUDIT_DURATION_LEN, "%" PRIu64 "d%02" PRIu64 "h", s / 86400,
              s / 3600 % 24);
  return buf;
}

/* A name from a trail, fit for a terminal: every control character as
 * '?' (C0, DEL, and C1, U+0080-U+009F: terminals take U+009B as CSI and
 * U+009D as OSC as they take ESC [ and ESC ]), cut at max bytes (at a
 * character's start) with "..."; buf holds max + 4.  The trail's strings
 * are valid UTF-8 (oci/json_tree.c refuses other lines). */
static const char *
shown_max (const char *s, char *buf, size_t max)
{
  size_t n = 0;

  for (; *s && n < max; s++)
    {
      unsigned char c = (unsigned char) *s;
      if (c == 0xc2 && (unsigned char) s[1] >= 0x80
          && (unsigned char) s[1] <= 0x9f)
        {
          buf[n++] = '?';
          s++;
        }
      else
        buf[n++] = c < 0x20 || c == 0x7f ? '?' : (char) c;
    }
  if (*s)
    {
      while (n > 0 && ((unsigned char) buf[n - 1] & 0xc0) == 0x80)
        n--;
      if (n > 0 && ((unsigned char) buf[n - 1] & 0xc0) == 0xc0)
        n--;
      memcpy (buf + n, "...", 3);
      n += 3;
    }
  buf[n] = '\0';
  return buf;
}

static const char *
shown (const char *s, char buf[NAME_MAX_SHOWN + 4])
{
  return shown_max (s, buf, NAME_MAX_SHOWN);
}

static const char *
shown_why (const char *s, char buf[WHY_MAX_SHOWN + 4])
{
  return shown_max (s, buf, WHY_MAX_SHOWN);
}

/* "s" unless n is 1: "1 host", "2 hosts". */
static const char *
plural (uint64_t n)
{
  return n == 1 ? "" : "s";
}

static size_t
shown_count (size_t len, size_t top)
{
  return top == 0 || len < top ? len : top;
}

/* ---- the table ---- */

#define LABEL "%-20s"

/* The top entries of a tally, one per line: "   count  name". */
static void
table_tally (FILE *f, const struct tally *t, size_t top)
{
  cleanup_free const struct tally_entry **sorted = tally_sorted (t);
  size_t n = shown_count (t->len, top);
  uint64_t rest = t->total;
  char name[NAME_MAX_SHOWN + 4];

  for (size_t i = 0; i < n; i++)
    {
      fprintf (f, "  %10" PRIu64 "  %s\n", sorted[i]->count,
               shown (sorted[i]->key, name));
      rest -= sorted[i]->count;
    }
  if (rest && t->other)
    fprintf (f, "  %10" PRIu64 "  (%zu more, and names beyond the %zu held)\n",
             rest, t->len - n, t->max_keys);
  else if (rest)
    fprintf (f, "  %10" PRIu64 "  (%zu more)\n", rest, t->len - n);
}

/* "credential 6000, socket 1900, other 100" (the classes counted). */
static void
table_classes (FILE *f, const char *label, const struct tally *t)
{
  const char *sep = ": ";

  fprintf (f, LABEL "%" PRIu64, label, t->total);
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
    if (tally_get (t, classes[i]))
      {
        fprintf (f, "%s%s %" PRIu64, sep, classes[i], tally_get (t, classes[i]));
        sep = ", ";
      }
  fputc ('\n', f);
}

static void
table_head (FILE *f, const struct audit_summary *s, const char *dir)
{
  char when[TIMESTAMP_STR_LEN];

  fprintf (f, "agentrt audit summary: %" PRIu64 " trail%s in %s", s->trails,
           s->trails == 1 ? "" : "s", dir);
  if (s->has_since)
    fprintf (f, ", events since %s (%" PRIu64 " trail%s last written before: "
             "not read)", timestamp_format (s->since_us, 0, when),
             s->trails_older, s->trails_older == 1 ? "" : "s");
  fputc ('\n', f);
}

static void
table_runs (FILE *f, const struct audit_summary *s, size_t top)
{
  char a[AUDIT_DURATION_LEN], b[AUDIT_DURATION_LEN], c[AUDIT_DURATION_LEN];

  fprintf (f, LABEL "%" PRIu64 " (%" PRIu64 " hardened, %" PRIu64
           " with the hardening off; %" PRIu64
           " hardened without an exit yet)\n",
           "containers run", s->runs, s->hardened, s->hardening_off,
           s->no_exit);
  if (s->nlifetimes)
    fprintf (f, LABEL "median %s, p95 %s, max %s (of %zu exit%s)\n",
             "lifetime",
             audit_format_duration (audit_summary_percentile (s, 50), a),
             audit_format_duration (audit_summary_percentile (s, 95), b),
             audit_format_duration (s->lifetimes_ms[s->nlifetimes - 1], c),
             s->nlifetimes, plural (s->nlifetimes));
  else
    fprintf (f, LABEL "no exit recorded\n", "lifetime");
  fprintf (f, LABEL "%" PRIu64 ", by cause:\n", "exits", s->exits);
  table_tally (f, &s->exit_causes, top);
  fprintf (f, LABEL, "limit hits");
  for (int k = 0; k < AUDIT_LIMIT_KINDS; k++)
    {
      const struct audit_limit_count *l = &s->limits[k];
      if (k == AUDIT_LIMIT_OTHER && l->hits == 0)
        continue;
      fprintf (f, "%s%s %" PRIu64, k ? ", " : "", limit_names[k], l->hits);
      if (l->hits)
        fprintf (f, " in %" PRIu64 " container%s", l->containers,
                 plural (l->containers));
    }
  fputc ('\n', f);
}

/* How the lines of an egress or dns decision are named. */
struct decision_words
{
  const char *what, *one, *many, *to, *name;
};

static const struct decision_words egress_words = {
  "egress", "connection", "connections", "to", "host",
};
static const struct decision_words dns_words = {
  "dns", "query", "queries", "for", "name",
};

static void
table_decision (FILE *f, const struct decision_words *w, const char *decision,
                const struct tally *t, size_t top)
{
  char label[32];

  snprintf (label, sizeof label, "%s %s", w->what, decision);
  fprintf (f, LABEL "%" PRIu64 " %s %s %zu %s%s\n", label, t->total,
           t->total == 1 ? w->one : w->many, w->to, t->len, w->name,
           plural (t->len));
  table_tally (f, t, top);
}

static void
table_decisions (FILE *f, const struct decision_words *w,
                 const struct audit_decisions *d, size_t top)
{
  table_decision (f, w, "allowed", &d->allowed, top);
  table_decision (f, w, "denied", &d->denied, top);
  if (d->reasons.total)
    {
      fprintf (f, "  denied, by reason:\n");
      table_tally (f, &d->reasons, top);
    }
}

/* "LABEL  N[, by WHAT:]" and the tally's top entries. */
static void
table_counted (FILE *f, const char *label, const struct tally *t,
               const char *by, size_t top)
{
  fprintf (f, LABEL "%" PRIu64 "%s%s%s\n", label, t->total,
           t->total ? ", by " : "", t->total ? by : "", t->total ? ":" : "");
  table_tally (f, t, top);
}

/* "knob=value  N containers: a, b, c (and K more)", per knob and value. */
static void
table_loosened (FILE *f, const struct audit_summary *s, size_t top)
{
  const struct audit_named_list *l = &s->loosened;
  char name[NAME_MAX_SHOWN + 4], value[NAME_MAX_SHOWN + 4];

  fprintf (f, "hardening off or loosened%s\n", l->len ? "" : ": none");
  for (size_t i = 0; i < l->len;)
    {
      size_t j = i, n;
      while (j < l->len && strcmp (l->items[j].what, l->items[i].what) == 0
             && strcmp (l->items[j].value, l->items[i].value) == 0)
        j++;
      fprintf (f, "  %s=%s: %zu container%s: ", l->items[i].what,
               shown (l->items[i].value, value), j - i, plural (j - i));
      n = shown_count (j - i, top);
      for (size_t k = 0; k < n; k++)
        fprintf (f, "%s%s", k ? ", " : "", shown (l->items[i + k].name, name));
      if (n < j - i)
        fprintf (f, " (and %zu more)", j - i - n);
      fputc ('\n', f);
      i = j;
    }
  if (l->dropped)
    fprintf (f, "  (%" PRIu64 " more not kept)\n", l->dropped);
}

static void
table_health (FILE *f, const struct audit_summary *s, size_t top)
{
  char name[NAME_MAX_SHOWN + 4], why[WHY_MAX_SHOWN + 4];
  size_t n = shown_count (s->refused.len, top);

  fprintf (f, LABEL "%" PRIu64 "%s\n", "incidents", s->incidents.total,
           s->incidents.total ? ", by kind:" : "");
  table_tally (f, &s->incidents, top);
  fprintf (f, LABEL "%" PRIu64 " (could not be written when they happened); "
           "egress sidecars stopped: %" PRIu64 "\n", "records lost",
           s->records_lost, s->sidecar_stopped);
  fprintf (f, LABEL "%" PRIu64 " of %" PRIu64 " line%s, in %" PRIu64
           " trail%s (skipped)", "damaged lines", s->damaged, s->lines,
           plural (s->lines), s->damaged_trails, plural (s->damaged_trails));
  if (s->first_damaged)
    fprintf (f, "; the first: %s", shown_why (s->first_damaged, why));
  fputc ('\n', f);
  if (s->other_events)
    fprintf (f, LABEL "%" PRIu64 " (of a newer agentrt: skipped)\n",
             "unknown events", s->other_events);
  if (s->refused.len == 0 && s->refused.dropped == 0)
    return;
  fprintf (f, LABEL "%" PRIu64 " (not read)\n", "trails refused",
           (uint64_t) s->refused.len + s->refused.dropped);
  for (size_t i = 0; i < n; i++)
    fprintf (f, "  %s: %s\n", shown (s->refused.items[i].name, name),
             shown_why (s->refused.items[i].what, why));
  if (n < s->refused.len || s->refused.dropped)
    fprintf (f, "  (and %" PRIu64 " more)\n",
             (uint64_t) (s->refused.len - n) + s->refused.dropped);
}

char *
audit_summary_table (const struct audit_summary *s, const char *dir, size_t top)
{
  char *out = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&out, &size);

  if (f == NULL)
    return xstrdup ("out of memory\n");
  table_head (f, s, dir);
  table_runs (f, s, top);
  table_decisions (f, &egress_words, &s->egress, top);
  table_decisions (f, &dns_words, &s->dns, top);
  table_counted (f, "credentials added", &s->injected, "credential", top);
  table_counted (f, "stand-ins unchanged", &s->standins, "credential", top);
  table_counted (f, "questions asked", &s->asked, "answer", top);
  fprintf (f, LABEL "%" PRIu64 " (%" PRIu64 " kept by run.agentrt.env.keep)%s\n",
           "secrets removed", s->secrets.total, s->secrets_kept,
           s->secrets.total ? ", by reason:" : "");
  table_tally (f, &s->secrets, top);
  table_classes (f, "paths masked", &s->masked);
  table_classes (f, "mounts dropped", &s->dropped);
  table_loosened (f, s, top);
  table_health (f, s, top);
  fclose (f);
  return out;
}

/* ---- JSON ---- */

/* {"total", "distinct", "top": [{KEY: name, "count"}...], "rest"}. */
static void
json_tally (struct json_writer *w, const char *name, const struct tally *t,
            const char *key, size_t top)
{
  cleanup_free const struct tally_entry **sorted = tally_sorted (t);
  size_t n = shown_count (t->len, top);
  uint64_t rest = t->total;

  json_key (w, name);
  json_begin_object (w);
  json_kv_uint (w, "total", t->total);
  json_kv_uint (w, "distinct", t->len);
  json_key (w, "top");
  json_begin_array (w);
  for (size_t i = 0; i < n; i++)
    {
      json_begin_object (w);
      json_kv_string (w, key, sorted[i]->key);
      json_kv_uint (w, "count", sorted[i]->count);
      json_end_object (w);
      rest -= sorted[i]->count;
    }
  json_end_array (w);
  json_kv_uint (w, "rest", rest);
  json_end_object (w);
}

/* {"allowed", "denied", "deniedReasons"}, each a tally. */
static void
json_decisions (struct json_writer *w, const char *name,
                const struct audit_decisions *d, const char *key, size_t top)
{
  json_key (w, name);
  json_begin_object (w);
  json_tally (w, "allowed", &d->allowed, key, top);
  json_tally (w, "denied", &d->denied, key, top);
  json_tally (w, "deniedReasons", &d->reasons, "reason", top);
  json_end_object (w);
}

static void
json_classes (struct json_writer *w, const char *name, const struct tally *t)
{
  json_key (w, name);
  json_begin_object (w);
  json_kv_uint (w, "total", t->total);
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
    json_kv_uint (w, classes[i], tally_get (t, classes[i]));
  json_end_object (w);
}

static void
json_head (struct json_writer *w, const struct audit_summary *s,
           const char *dir)
{
  char when[TIMESTAMP_STR_LEN];

  json_kv_string (w, "auditDir", dir);
  json_kv_string (w, "since", s->has_since
                                  ? timestamp_format (s->since_us, 0, when)
                                  : NULL);
  json_key (w, "trails");
  json_begin_object (w);
  json_kv_uint (w, "read", s->trails);
  json_kv_uint (w, "older", s->trails_older);
  json_kv_uint (w, "refused", s->refused.len + s->refused.dropped);
  json_key (w, "refusedTrails");
  json_begin_array (w);
  for (size_t i = 0; i < s->refused.len; i++)
    {
      json_begin_object (w);
      json_kv_string (w, "id", s->refused.items[i].name);
      json_kv_string (w, "why", s->refused.items[i].what);
      json_end_object (w);
    }
  json_end_array (w);
  json_end_object (w);
  json_key (w, "lines");
  json_begin_object (w);
  json_kv_uint (w, "read", s->lines);
  json_kv_uint (w, "damaged", s->damaged);
  json_kv_uint (w, "damagedTrails", s->damaged_trails);
  json_kv_string (w, "firstDamaged", s->first_damaged);
  json_kv_uint (w, "unknownEvents", s->other_events);
  json_end_object (w);
}

static void
json_runs (struct json_writer *w, const struct audit_summary *s, size_t top)
{
  json_key (w, "containers");
  json_begin_object (w);
  json_kv_uint (w, "run", s->runs);
  json_kv_uint (w, "hardened", s->hardened);
  json_kv_uint (w, "hardeningOff", s->hardening_off);
  json_kv_uint (w, "exited", s->exits);
  json_kv_uint (w, "withoutExit", s->no_exit);
  json_end_object (w);
  json_key (w, "lifetimeMs");
  if (s->nlifetimes == 0)
    json_null (w);
  else
    {
      json_begin_object (w);
      json_kv_uint (w, "count", s->nlifetimes);
      json_kv_uint (w, "median", audit_summary_percentile (s, 50));
      json_kv_uint (w, "p95", audit_summary_percentile (s, 95));
      json_kv_uint (w, "max", s->lifetimes_ms[s->nlifetimes - 1]);
      json_end_object (w);
    }
  json_tally (w, "exits", &s->exit_causes, "cause", top);
  json_key (w, "limits");
  json_begin_object (w);
  for (int k = 0; k < AUDIT_LIMIT_KINDS; k++)
    {
      json_key (w, limit_names[k]);
      json_begin_object (w);
      json_kv_uint (w, "hits", s->limits[k].hits);
      json_kv_uint (w, "containers", s->limits[k].containers);
      json_end_object (w);
    }
  json_end_object (w);
}

/* [{"knob", "value", "containers": [...]}...] */
static void
json_loosened (struct json_writer *w, const struct audit_summary *s)
{
  const struct audit_named_list *l = &s->loosened;

  json_key (w, "loosened");
  json_begin_array (w);
  for (size_t i = 0; i < l->len;)
    {
      size_t j = i;
      json_begin_object (w);
      json_kv_string (w, "knob", l->items[i].what);
      json_kv_string (w, "value", l->items[i].value);
      json_key (w, "containers");
      json_begin_array (w);
      for (; j < l->len && strcmp (l->items[j].what, l->items[i].what) == 0
             && strcmp (l->items[j].value, l->items[i].value) == 0;
           j++)
        json_string (w, l->items[j].name);
      json_end_array (w);
      json_end_object (w);
      i = j;
    }
  json_end_array (w);
  json_kv_uint (w, "loosenedNotListed", l->dropped);
}

char *
audit_summary_json (const struct audit_summary *s, const char *dir, size_t top)
{
  struct json_writer *w = json_writer_new_indent ("  ");
  size_t len;
  char *out;

  json_begin_object (w);
  json_head (w, s, dir);
  json_runs (w, s, top);
  json_decisions (w, "egress", &s->egress, "host", top);
  json_decisions (w, "dns", &s->dns, "name", top);
  json_tally (w, "credentialsAdded", &s->injected, "credential", top);
  json_tally (w, "standinsUnchanged", &s->standins, "credential", top);
  json_tally (w, "asked", &s->asked, "answer", top);
  json_tally (w, "secretsRemoved", &s->secrets, "reason", top);
  json_kv_uint (w, "secretsKept", s->secrets_kept);
  json_classes (w, "pathsMasked", &s->masked);
  json_classes (w, "mountsDropped", &s->dropped);
  json_loosened (w, s);
  json_tally (w, "incidents", &s->incidents, "kind", top);
  json_kv_uint (w, "sidecarsStopped", s->sidecar_stopped);
  json_kv_uint (w, "recordsLost", s->records_lost);
  out = json_writer_finish_line (w, &len);
  return out;
}
