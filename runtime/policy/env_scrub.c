/* Environment scrubbing: which entries of a process environment are
 * secrets (by name, env_names.h; by value, env_values.h; by the admin's
 * patterns), their removal, and the setting of variables (see
 * env_scrub.h). */
#include "config.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "env_names.h"
#include "credentials.h"
#include "env_scrub.h"

static const char *
policy_reason (const char *name, const struct agent_policy *policy)
{
  if (policy)
    for (size_t i = 0; i < policy->extra_secret_env.len; i++)
      if (fnmatch (policy->extra_secret_env.items[i], name, FNM_CASEFOLD) == 0)
        return "name matches a policy pattern (env.extraSecretPatterns)";
  return NULL;
}

const char *
env_secret_name_reason (const char *name, const struct agent_policy *policy)
{
  const char *why = env_name_reason (name, strlen (name), ENV_NAME_VARIABLE);
  return why ? why : policy_reason (name, policy);
}

/* Why an entry (name and value, or a whole entry without '=' as name and
 * NULL) is a secret, or NULL.  A switch value (true, 0, yes...) holds no
 * secret, whatever the built-in rules say of its name
 * (MYSQL_ALLOW_EMPTY_PASSWORD=yes); the admin's patterns and a name that
 * cannot be judged still count. */
static const char *
entry_reason (const char *name, const char *value,
              const struct agent_policy *policy)
{
  const char *why = env_name_reason (name, strlen (name), ENV_NAME_VARIABLE);

  if (why && why != env_name_unjudged && value
      && env_is_switch_value (value, strlen (value)))
    why = NULL;
  if (why == NULL)
    why = policy_reason (name, policy);
  if (why == NULL)
    why = env_secret_value_reason (value ? value : name);
  if (why == NULL && value)
    why = env_secret_value_reason (name); /* a token as the name */
  return why;
}

/* A name fit to be shown: a plausible variable name that is not itself
 * secret-shaped. */
static bool
showable_name (const char *name)
{
  if (name[0] == '\0' || strlen (name) > 128
      || !(isalpha ((unsigned char) name[0]) || name[0] == '_'))
    return false;
  for (const char *p = name; *p; p++)
    if (!isalnum ((unsigned char) *p) && !strchr ("_.-", *p))
      return false;
  return env_secret_value_reason (name) == NULL;
}

static void
record (struct change_list *changes, enum change_kind kind, const char *name,
        size_t index, const char *why)
{
  if (name && showable_name (name))
    change_add (changes, kind, name, why);
  else
    change_addf (changes, kind, why, "entry #%zu%s", index,
                 name ? "" : " (no '=')");
}

void
env_scrub (struct str_list *env, const struct str_list *keep,
           const struct agent_policy *policy, struct change_list *changes)
{
  size_t out = 0;

  for (size_t i = 0; i < env->len; i++)
    {
      char *entry = env->items[i];
      const char *eq = strchr (entry, '=');
      cleanup_free char *name = eq ? xstrndup (entry, (size_t) (eq - entry))
                                   : NULL;
      /* A stand-in (credentials.h) is worthless outside the sidecar: a
       * hardened config hardened again keeps the ones it was given. */
      const char *why
          = eq && credential_standin_valid (eq + 1)
                ? NULL
                : entry_reason (name ? name : entry, eq ? eq + 1 : NULL, policy);

      if (why == NULL)
        env->items[out++] = entry;
      else if (name && keep && str_list_contains (keep, name))
        {
          cleanup_free char *msg
              = xasprintf ("run.agentrt.env.keep; %s", why);
          record (changes, CHANGE_ENV_KEPT, name, i, msg);
          env->items[out++] = entry;
        }
      else
        {
          record (changes, CHANGE_ENV_REMOVED, name, i, why);
          free (entry);
        }
    }
  env->len = out;
  if (env->items)
    env->items[out] = NULL;
}

static bool
entry_has_name (const char *entry, const char *name)
{
  size_t n = strlen (name);
  return strncmp (entry, name, n) == 0 && (entry[n] == '=' || entry[n] == '\0');
}

const char *
env_get (const struct str_list *env, const char *name)
{
  for (size_t i = 0; i < env->len; i++)
    if (entry_has_name (env->items[i], name) && env->items[i][strlen (name)])
      return env->items[i] + strlen (name) + 1;
  return NULL;
}

bool
env_set (struct str_list *env, const char *name, const char *value,
         const char *why, struct change_list *changes)
{
  char *entry = xasprintf ("%s=%s", name, value);
  size_t out = 0, found = 0;
  bool same = false;

  /* The new entry takes the place of the first old one. */
  for (size_t i = 0; i < env->len; i++)
    {
      char *old = env->items[i];
      if (!entry_has_name (old, name))
        {
          env->items[out++] = old;
          continue;
        }
      if (found++ == 0)
        {
          same = strcmp (old, entry) == 0;
          env->items[out++] = entry;
        }
      free (old);
    }
  env->len = out;
  if (env->items)
    env->items[out] = NULL;
  if (found == 0)
    {
      str_list_append (env, entry);
      free (entry);
      entry = env->items[env->len - 1];
    }
  if (found == 1 && same)
    return false;
  if (changes)
    change_add (changes, CHANGE_ENV_SET, entry, why);
  return true;
}
