/* Capability sets and noNewPrivileges (see privileges.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "privileges.h"

/* Capabilities removed so far, each with the sets it was removed from. */
struct removals
{
  struct kv *items; /* key: capability, value: "bounding, effective" */
  size_t len;
};

static bool
is_safe (const struct agent_policy *policy, const char *cap)
{
  for (size_t i = 0; i < policy->safe_capabilities.len; i++)
    if (strcasecmp (policy->safe_capabilities.items[i], cap) == 0)
      return true;
  return false;
}

static void
note (struct removals *r, const char *cap, const char *set)
{
  char *sets;

  for (size_t i = 0; i < r->len; i++)
    if (strcmp (r->items[i].key, cap) == 0)
      {
        sets = xasprintf ("%s, %s", r->items[i].value, set);
        free (r->items[i].value);
        r->items[i].value = sets;
        return;
      }
  r->items = xreallocarray (r->items, r->len + 1, sizeof (*r->items));
  r->items[r->len].key = xstrdup (cap);
  r->items[r->len].value = xstrdup (set);
  r->len++;
}

static void
filter_set (struct str_list *set, const char *set_name, bool clear,
            const struct agent_policy *policy, struct removals *r)
{
  size_t out = 0;

  for (size_t i = 0; i < set->len; i++)
    {
      char *cap = set->items[i];
      if (!clear && is_safe (policy, cap))
        set->items[out++] = cap;
      else
        {
          note (r, cap, set_name);
          free (cap);
        }
    }
  set->len = out;
  if (set->items)
    set->items[out] = NULL;
}

static void
record (struct removals *r, const struct agent_policy *policy,
        struct change_list *changes)
{
  for (size_t i = 0; i < r->len; i++)
    {
      const char *cap = r->items[i].key;
      cleanup_free char *why = xasprintf (
          "%s; removed from %s",
          is_safe (policy, cap) ? "the inheritable and ambient sets are cleared"
                                : "not in the policy's safe set",
          r->items[i].value);
      change_add (changes, CHANGE_CAPABILITY, cap, why);
      free (r->items[i].key);
      free (r->items[i].value);
    }
  free (r->items);
}

void
privileges_harden (struct oci_process *process,
                   const struct agent_policy *policy,
                   struct change_list *changes)
{
  struct oci_capabilities *caps = process->capabilities;
  struct removals r = { NULL, 0 };

  if (caps)
    {
      filter_set (&caps->bounding, "bounding", false, policy, &r);
      filter_set (&caps->effective, "effective", false, policy, &r);
      filter_set (&caps->permitted, "permitted", false, policy, &r);
      filter_set (&caps->inheritable, "inheritable", true, policy, &r);
      filter_set (&caps->ambient, "ambient", true, policy, &r);
      record (&r, policy, changes);
    }
  if (!process->no_new_privileges)
    {
      process->no_new_privileges = true;
      change_add (changes, CHANGE_NO_NEW_PRIVS, "process.noNewPrivileges=true",
                  "setuid binaries and file capabilities grant nothing");
    }
}
