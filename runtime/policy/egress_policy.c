/* Per-container allowlists against the admin policy: broad entries, the
 * ceiling, the policy's default entries, normalisation (see
 * egress_policy.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "egress_policy.h"
#include "runtime/egress/allowlist.h"

static void
cleanup_allowlist_fn (struct allowlist **al)
{
  allowlist_free (*al);
}
#define cleanup_allowlist __attribute__ ((cleanup (cleanup_allowlist_fn)))

static char *
join (const struct str_list *list)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&buf, &size);

  if (f == NULL)
    abort ();
  for (size_t i = 0; i < list->len; i++)
    fprintf (f, "%s%s", i ? "," : "", list->items[i]);
  if (fclose (f) != 0 || buf == NULL)
    abort ();
  return buf;
}

/* Writes an entry back in the syntax allowlist_parse reads. */
static void
format_entry (FILE *f, const struct allow_entry *e)
{
  char addr[NETADDR_STR_LEN];
  bool v6 = e->kind == ALLOW_NET && e->net.family != AF_INET;
  bool bracket = v6 && e->port != 0;

  switch (e->kind)
    {
    case ALLOW_ANY:
      fputs ("*", f);
      break;
    case ALLOW_NAME:
      fputs (e->name, f);
      break;
    case ALLOW_SUFFIX:
      fprintf (f, "*.%s", e->name);
      break;
    case ALLOW_NET:
      netaddr_format (&e->net, addr);
      fprintf (f, "%s%s", bracket ? "[" : "", addr);
      if (e->prefix != (v6 ? 128u : 32u))
        fprintf (f, "/%u", e->prefix);
      if (bracket)
        fputs ("]", f);
      break;
    }
  if (e->port)
    fprintf (f, ":%u", (unsigned) e->port);
}

static char *
entry_text (const struct allow_entry *e)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&buf, &size);

  if (f == NULL)
    abort ();
  format_entry (f, e);
  if (fclose (f) != 0 || buf == NULL)
    abort ();
  return buf;
}

/* Is name a strict subdomain of base? */
static bool
name_below (const char *name, const char *base)
{
  size_t n = strlen (name), b = strlen (base);
  return n > b + 1 && name[n - b - 1] == '.' && strcmp (name + n - b, base) == 0;
}

/* Does ceiling entry c cover entry e?  A ceiling entry without a port
 * covers every port. */
static bool
covers (const struct allow_entry *c, const struct allow_entry *e)
{
  if (c->port != 0 && c->port != e->port)
    return false;
  switch (c->kind)
    {
    case ALLOW_ANY:
      return true;
    case ALLOW_NAME:
      return e->kind == ALLOW_NAME && strcmp (e->name, c->name) == 0;
    case ALLOW_SUFFIX:
      return (e->kind == ALLOW_NAME && name_below (e->name, c->name))
             || (e->kind == ALLOW_SUFFIX
                 && (strcmp (e->name, c->name) == 0
                     || name_below (e->name, c->name)));
    case ALLOW_NET:
      return e->kind == ALLOW_NET && e->net.family == c->net.family
             && e->prefix >= c->prefix
             && netaddr_in_prefix (&e->net, &c->net, c->prefix);
    }
  return false;
}

static int
parse_annotation (const char *spec, const struct agent_policy *policy,
                  struct allowlist **out, agentrt_error_t *err)
{
  cleanup_allowlist struct allowlist *broad = NULL;

  if (allowlist_parse (spec, policy->allow_broad_egress, out, err) == 0)
    return 0;
  if (!policy->allow_broad_egress
      && allowlist_parse (spec, true, &broad, NULL) == 0)
    return agentrt_error_wrap (err, "annotation run.agentrt.egress.allow: "
                               "not allowed by the policy (egress.allowBroad "
                               "is false)");
  return agentrt_error_wrap (err, "annotation run.agentrt.egress.allow");
}

static int
check_ceiling (const struct allowlist *al, const struct agent_policy *policy,
               agentrt_error_t *err)
{
  cleanup_free char *spec = join (&policy->egress_ceiling);
  cleanup_allowlist struct allowlist *ceiling = NULL;

  if (allowlist_parse (spec, true, &ceiling, err) < 0)
    return agentrt_error_wrap (err, "policy egress.ceiling");
  for (size_t i = 0; i < al->n; i++)
    {
      bool ok = false;
      for (size_t j = 0; j < ceiling->n && !ok; j++)
        ok = covers (&ceiling->entries[j], &al->entries[i]);
      if (!ok)
        {
          cleanup_free char *text = entry_text (&al->entries[i]);
          return agentrt_error (err, 0,
                                "annotation run.agentrt.egress.allow: entry "
                                "`%s` is not allowed by the policy (outside "
                                "egress.ceiling)", text);
        }
    }
  return 0;
}

static void
format_list (FILE *f, const struct allowlist *al, bool *first)
{
  for (size_t i = 0; i < al->n; i++)
    {
      if (!*first)
        fputc (',', f);
      *first = false;
      format_entry (f, &al->entries[i]);
    }
}

int
egress_policy_allowlist (const char *spec, const struct agent_policy *policy,
                         char **allow, agentrt_error_t *err)
{
  cleanup_free char *defaults = join (&policy->egress_allow);
  cleanup_allowlist struct allowlist *def = NULL;
  cleanup_allowlist struct allowlist *ann = NULL;
  char *buf = NULL;
  size_t size = 0;
  bool first = true;
  FILE *f;

  if (allowlist_parse (defaults, policy->allow_broad_egress, &def, err) < 0)
    return agentrt_error_wrap (err, "policy egress.allow");
  if (spec)
    {
      if (parse_annotation (spec, policy, &ann, err) < 0
          || check_ceiling (ann, policy, err) < 0)
        return -1;
    }
  f = open_memstream (&buf, &size);
  if (f == NULL)
    abort ();
  format_list (f, def, &first);
  if (ann)
    format_list (f, ann, &first);
  if (fclose (f) != 0 || buf == NULL)
    abort ();
  *allow = buf;
  return 0;
}

int
egress_policy_validate (const struct agent_policy *policy,
                        agentrt_error_t *err)
{
  cleanup_free char *allow = join (&policy->egress_allow);
  cleanup_free char *ceiling = join (&policy->egress_ceiling);
  cleanup_allowlist struct allowlist *a = NULL;
  cleanup_allowlist struct allowlist *c = NULL;
  cleanup_allowlist struct allowlist *broad = NULL;

  /* The sidecar parses these with the annotation's, and the same rule
   * for broad entries (--allow-broad). */
  if (allowlist_parse (allow, policy->allow_broad_egress, &a, err) < 0)
    return agentrt_error_wrap (err, "egress.allow%s",
                               !policy->allow_broad_egress
                                       && allowlist_parse (allow, true, &broad, NULL) == 0
                                   ? ": needs egress.allowBroad"
                                   : "");
  if (allowlist_parse (ceiling, true, &c, err) < 0)
    return agentrt_error_wrap (err, "egress.ceiling");
  return 0;
}

int
egress_policy_ceiling_within (const struct str_list *inner,
                              const struct str_list *outer, char **bad,
                              agentrt_error_t *err)
{
  cleanup_free char *in_spec = join (inner);
  cleanup_free char *out_spec = join (outer);
  cleanup_allowlist struct allowlist *in = NULL;
  cleanup_allowlist struct allowlist *out = NULL;

  *bad = NULL;
  if (allowlist_parse (in_spec, true, &in, err) < 0
      || allowlist_parse (out_spec, true, &out, err) < 0)
    return -1;
  for (size_t i = 0; i < in->n; i++)
    {
      bool ok = false;
      for (size_t j = 0; j < out->n && !ok; j++)
        ok = covers (&out->entries[j], &in->entries[i]);
      if (!ok)
        {
          *bad = entry_text (&in->entries[i]);
          return 1;
        }
    }
  return 0;
}
