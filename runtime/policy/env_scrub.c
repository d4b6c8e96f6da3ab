/* Environment scrubbing: secret-looking variable names (by words of the
 * name, so that TOKENIZERS_PARALLELISM is not *_TOKEN) and values (known
 * token formats), and the scrubbing of a process environment (see
 * env_scrub.h). */
#include "config.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "env_scrub.h"

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))
#define MAX_WORDS 32

/* Variables that are credentials whatever their words say. */
static const char *const secret_names[] = {
  "SSH_AUTH_SOCK",
  "KUBECONFIG",
  "DOCKER_AUTH_CONFIG",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_SECURITY_TOKEN",
  "AWS_CONTAINER_CREDENTIALS_FULL_URI",
  "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
  "AWS_CONTAINER_AUTHORIZATION_TOKEN",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "NPM_TOKEN",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "VAULT_TOKEN",
};

/* The upper-cased name split at every byte that is not a letter or digit. */
struct words
{
  char buf[256];
  const char *w[MAX_WORDS];
  size_t n;
};

static bool
split_words (const char *name, struct words *ws)
{
  size_t len = strlen (name);
  char *p;

  if (len >= sizeof (ws->buf))
    return false;
  ws->n = 0;
  for (size_t i = 0; i <= len; i++)
    ws->buf[i] = (char) toupper ((unsigned char) name[i]);
  for (p = ws->buf; *p;)
    {
      if (!isalnum ((unsigned char) *p))
        {
          *p++ = '\0';
          continue;
        }
      if (ws->n == MAX_WORDS)
        return false;
      ws->w[ws->n++] = p;
      while (isalnum ((unsigned char) *p))
        p++;
    }
  return true;
}

static bool
word_is (const struct words *ws, size_t i, const char *word)
{
  return i < ws->n && strcmp (ws->w[i], word) == 0;
}

static bool
has_pair (const struct words *ws, const char *a, const char *b)
{
  for (size_t i = 0; i + 1 < ws->n; i++)
    if (word_is (ws, i, a) && word_is (ws, i + 1, b))
      return true;
  return false;
}

static bool
has_word (const struct words *ws, const char *word)
{
  for (size_t i = 0; i < ws->n; i++)
    if (word_is (ws, i, word))
      return true;
  return false;
}

static bool
has_substring (const struct words *ws, const char *s)
{
  for (size_t i = 0; i < ws->n; i++)
    if (strstr (ws->w[i], s))
      return true;
  return false;
}

/* The word rules.  A name whose last word is FILE, PATH or DIR names where
 * a secret is (POSTGRES_PASSWORD_FILE), not the secret. */
static const char *
word_rules (const struct words *ws)
{
  size_t last = ws->n - 1;

  if (word_is (ws, last, "FILE") || word_is (ws, last, "PATH")
      || word_is (ws, last, "DIR"))
    return NULL;
  if (word_is (ws, last, "TOKEN"))
    return "name matches *_TOKEN";
  if (has_word (ws, "SECRET") || has_word (ws, "SECRETS")
      || has_substring (ws, "SECRETKEY"))
    return "name matches *_SECRET*";
  if (has_substring (ws, "PASSWORD") || has_substring (ws, "PASSWD")
      || has_substring (ws, "PASSPHRASE"))
    return "name matches *PASSWORD*";
  if ((last > 0 && word_is (ws, last - 1, "API") && word_is (ws, last, "KEY"))
      || word_is (ws, last, "APIKEY"))
    return "name matches *_API_KEY";
  if (has_pair (ws, "ACCESS", "KEY") || has_word (ws, "ACCESSKEY"))
    return "name matches *_ACCESS_KEY*";
  if (has_pair (ws, "PRIVATE", "KEY"))
    return "name matches *_PRIVATE_KEY*";
  if (word_is (ws, last, "CREDENTIALS") || word_is (ws, last, "CREDENTIAL"))
    return "name matches *_CREDENTIALS";
  return NULL;
}

const char *
env_secret_name_reason (const char *name, const struct agent_policy *policy)
{
  struct words ws;

  for (size_t i = 0; i < N_ELEMENTS (secret_names); i++)
    if (strcasecmp (name, secret_names[i]) == 0)
      return "known credential variable";
  if (policy)
    for (size_t i = 0; i < policy->extra_secret_env.len; i++)
      if (fnmatch (policy->extra_secret_env.items[i], name, FNM_CASEFOLD) == 0)
        return "name matches a policy pattern (env.extraSecretPatterns)";
  if (!split_words (name, &ws))
    return "name too long or too many words to judge";
  if (ws.n == 0)
    return NULL;
  return word_rules (&ws);
}

/* Value shapes.  Each is looked for at every position that starts a token
 * (the byte before is not [A-Za-z0-9_-]). */

static bool
is_token_byte (unsigned char c)
{
  return isalnum (c) || c == '_' || c == '-';
}

/* Number of bytes at s in the class: alnum plus the given extra bytes. */
static size_t
span (const char *s, const char *extra)
{
  size_t n = 0;
  while (s[n] && (isalnum ((unsigned char) s[n]) || strchr (extra, s[n])))
    n++;
  return n;
}

static bool
starts (const char *s, const char *prefix)
{
  return strncmp (s, prefix, strlen (prefix)) == 0;
}

/* "-----BEGIN [WORDS ]PRIVATE KEY[ BLOCK]-----" */
static bool
is_pem_private_key (const char *s)
{
  const char *end;

  if (!starts (s, "-----BEGIN "))
    return false;
  s += strlen ("-----BEGIN ");
  end = strstr (s, "-----");
  if (end == NULL || end - s > 64)
    return false;
  for (const char *p = s; p < end; p++)
    if (!isupper ((unsigned char) *p) && !isdigit ((unsigned char) *p)
        && *p != ' ')
      return false;
  return memmem (s, (size_t) (end - s), "PRIVATE KEY", 11) != NULL;
}

static bool
is_aws_key_id (const char *s)
{
  size_t n = 0;
  if (!starts (s, "AKIA") && !starts (s, "ASIA"))
    return false;
  for (s += 4; isupper ((unsigned char) s[n]) || isdigit ((unsigned char) s[n]);)
    n++;
  return n == 16 && !isalnum ((unsigned char) s[n]);
}

static bool
is_jwt (const char *s)
{
  size_t a, b;
  if (!starts (s, "eyJ"))
    return false;
  a = span (s, "_-");
  if (a < 10 || s[a] != '.' || !starts (s + a + 1, "eyJ"))
    return false;
  b = span (s + a + 1, "_-");
  return b >= 10 && s[a + 1 + b] == '.';
}

struct prefix_shape
{
  const char *prefix;
  const char *extra; /* bytes allowed in the body besides alnum */
  size_t min_body;
  const char *what;
};

static const struct prefix_shape prefix_shapes[] = {
  { "ghp_", "", 30, "value looks like a GitHub token" },
  { "gho_", "", 30, "value looks like a GitHub token" },
  { "ghu_", "", 30, "value looks like a GitHub token" },
  { "ghs_", "", 30, "value looks like a GitHub token" },
  { "ghr_", "", 30, "value looks like a GitHub token" },
  { "github_pat_", "_", 22, "value looks like a GitHub token" },
  { "sk-", "_-", 20, "value looks like an OpenAI or Anthropic API key" },
  { "xoxa-", "-", 10, "value looks like a Slack token" },
  { "xoxb-", "-", 10, "value looks like a Slack token" },
  { "xoxp-", "-", 10, "value looks like a Slack token" },
  { "xoxr-", "-", 10, "value looks like a Slack token" },
  { "xoxs-", "-", 10, "value looks like a Slack token" },
  { "glpat-", "_-", 20, "value looks like a GitLab token" },
  { "npm_", "", 36, "value looks like an npm token" },
  { "hf_", "", 30, "value looks like a Hugging Face token" },
  { "AIza", "_-", 35, "value looks like a Google API key" },
};

static const char *
shape_at (const char *s)
{
  if (is_aws_key_id (s))
    return "value looks like an AWS access key id";
  if (is_jwt (s))
    return "value looks like a JWT";
  for (size_t i = 0; i < N_ELEMENTS (prefix_shapes); i++)
    {
      const struct prefix_shape *ps = &prefix_shapes[i];
      if (starts (s, ps->prefix)
          && span (s + strlen (ps->prefix), ps->extra) >= ps->min_body)
        return ps->what;
    }
  return NULL;
}

/* scheme://user:password@host: a password in the authority part. */
static bool
has_url_password (const char *v)
{
  for (const char *p = strstr (v, "://"); p; p = strstr (p + 1, "://"))
    {
      const char *auth = p + 3;
      size_t len = strcspn (auth, "/?# \t\n");
      const char *at = memrchr (auth, '@', len);
      const char *colon;

      if (at == NULL)
        continue;
      colon = memchr (auth, ':', (size_t) (at - auth));
      if (colon && colon + 1 < at)
        return true;
    }
  return false;
}

const char *
env_secret_value_reason (const char *value)
{
  for (const char *p = strstr (value, "-----BEGIN "); p;
       p = strstr (p + 1, "-----BEGIN "))
    if (is_pem_private_key (p))
      return "value holds a PEM private key";
  for (size_t i = 0; value[i]; i++)
    {
      const char *why;
      if (i > 0 && is_token_byte ((unsigned char) value[i - 1]))
        continue;
      why = shape_at (value + i);
      if (why)
        return why;
    }
  if (has_url_password (value))
    return "value is a URL with a password";
  return NULL;
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
      const char *why = env_secret_name_reason (name ? name : entry, policy);

      if (why == NULL)
        why = env_secret_value_reason (eq ? eq + 1 : entry);
      if (why == NULL && name)
        why = env_secret_value_reason (name); /* a token as the name */
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
