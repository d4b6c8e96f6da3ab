/* The run.agentrt.* annotations: the list `features` publishes, and their
 * parsing and validation against the policy (see annotations.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "common/closest.h"
#include "common/xalloc.h"
#include "annotations.h"
#include "credentials.h"
#include "egress_policy.h"

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))

static const struct annotation_info infos[] = {
  { ANNOTATION_CREDENTIALS, true,
    "comma list of credentials the policy declares (credentials.inject): "
    "the agent gets a stand-in, the sidecar adds the value for their hosts" },
  { ANNOTATION_EGRESS, false,
    "proxy (default): egress only through the sidecar proxy; none: no "
    "sidecar, `lo` only" },
  { ANNOTATION_EGRESS_ALLOW, true,
    "comma list of host, *.host, host:port, IP or CIDR the proxy lets "
    "through, within the policy's egress.ceiling" },
  { ANNOTATION_EGRESS_ASK, false,
    "off: destinations outside the allowlist are denied without asking the "
    "policy's approver (egress.ask); asking is never turned on here" },
  { ANNOTATION_ENV_KEEP, true,
    "comma list of variable names passed through secret scrubbing" },
  { ANNOTATION_ROOTFS, true,
    "readonly (default), ephemeral (overlay on a tmpfs, discarded) or "
    "writable (if the policy allows)" },
  { ANNOTATION_TIMEOUT, false,
    "wall-clock lifetime: seconds, or a number with s, m, h or d; at most "
    "the policy's limits.maxLifetime" },
};

const struct annotation_info *
annotations_info (size_t *n)
{
  *n = N_ELEMENTS (infos);
  return infos;
}

/* An excerpt of a hostile value fit for an error message: at most 64
 * bytes, control bytes shown as '?'. */
#define EXCERPT_SIZE 72
static const char *
excerpt (const char *value, char buf[EXCERPT_SIZE])
{
  size_t i;
  for (i = 0; value[i] && i < 64; i++)
    buf[i] = (unsigned char) value[i] < 0x20 || value[i] == 0x7f ? '?'
                                                                 : value[i];
  strcpy (buf + i, value[i] ? "..." : "");
  return buf;
}

static int
unknown_key (const char *key, agentrt_error_t *err)
{
  const char *keys[N_ELEMENTS (infos) + 1];
  const char *best;
  char buf[EXCERPT_SIZE];

  for (size_t i = 0; i < N_ELEMENTS (infos); i++)
    keys[i] = infos[i].key;
  keys[N_ELEMENTS (infos)] = NULL;
  best = closest_word (key, keys, 3);
  if (best)
    return agentrt_error (err, 0, "unknown annotation `%s` (did you "
                          "mean %s?)", excerpt (key, buf), best);
  return agentrt_error (err, 0, "unknown annotation `%s`",
                        excerpt (key, buf));
}

static int
bad_value (const char *key, const char *value, const char *expected,
           agentrt_error_t *err)
{
  char buf[EXCERPT_SIZE];
  return agentrt_error (err, 0, "annotation %s=`%s`: expected %s", key,
                        excerpt (value, buf), expected);
}

static int
refused (const char *key, const char *value, const char *field,
         agentrt_error_t *err)
{
  char buf[EXCERPT_SIZE];
  return agentrt_error (err, 0, "annotation %s=%s: not allowed by the "
                        "policy (%s)", key, excerpt (value, buf), field);
}

static int
parse_rootfs (const char *v, const struct agent_policy *policy,
              struct harden_request *req, agentrt_error_t *err)
{
  if (strcmp (v, "readonly") == 0)
    req->rootfs = HARDEN_ROOTFS_READONLY;
  else if (strcmp (v, "ephemeral") == 0)
    {
      if (!policy->allow_ephemeral_rootfs)
        return refused (ANNOTATION_ROOTFS, v,
                        "rootfs.allowEphemeral is false", err);
      req->rootfs = HARDEN_ROOTFS_EPHEMERAL;
    }
  else if (strcmp (v, "writable") == 0)
    {
      if (!policy->allow_writable_rootfs)
        return refused (ANNOTATION_ROOTFS, v, "rootfs.allowWritable is false",
                        err);
      req->rootfs = HARDEN_ROOTFS_WRITABLE;
    }
  else
    return bad_value (ANNOTATION_ROOTFS, v, "readonly, ephemeral or writable",
                      err);
  return 0;
}

static int
parse_egress (const char *v, struct harden_request *req, agentrt_error_t *err)
{
  if (strcmp (v, "proxy") == 0)
    req->egress = HARDEN_EGRESS_PROXY;
  else if (strcmp (v, "none") == 0)
    req->egress = HARDEN_EGRESS_NONE;
  else
    return bad_value (ANNOTATION_EGRESS, v, "proxy or none", err);
  return 0;
}

static bool
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* A comma list of variable names; blanks around names are ignored. */
static int
parse_env_keep (const char *v, const struct agent_policy *policy,
                struct harden_request *req, agentrt_error_t *err)
{
  const char *p = v;

  while (*p)
    {
      size_t len = strcspn (p, ",");
      const char *s = p, *e = p + len;

      while (s < e && is_blank (*s))
        s++;
      while (e > s && is_blank (e[-1]))
        e--;
      if (s == e || memchr (s, '=', (size_t) (e - s))
          || memchr (s, ' ', (size_t) (e - s))
          || memchr (s, '\t', (size_t) (e - s)))
        return bad_value (ANNOTATION_ENV_KEEP, v,
                          "a comma list of variable names", err);
      cleanup_free char *name = xstrndup (s, (size_t) (e - s));
      if (!str_list_contains (&req->env_keep, name))
        str_list_append (&req->env_keep, name);
      p += len;
      if (*p == ',' && *++p == '\0')
        return bad_value (ANNOTATION_ENV_KEEP, v,
                          "a comma list of variable names", err);
    }
  if (req->env_keep.len > 0 && !policy->allow_env_keep)
    return refused (ANNOTATION_ENV_KEEP, v, "env.allowKeep is false", err);
  return 0;
}

static int
parse_timeout (const char *v, const struct agent_policy *policy,
               struct harden_request *req, agentrt_error_t *err)
{
  uint64_t secs;

  if (policy_parse_duration (v, &secs) < 0)
    return bad_value (ANNOTATION_TIMEOUT, v,
                      "a duration such as 300, 5m, 2h or 1d", err);
  if (secs > policy->max_lifetime)
    {
      cleanup_free char *field = xasprintf ("limits.maxLifetime is %llus",
                                            (unsigned long long)
                                                policy->max_lifetime);
      return refused (ANNOTATION_TIMEOUT, v, field, err);
    }
  req->lifetime = secs;
  req->has_timeout = true;
  return 0;
}

static int
parse_one (const char *key, const char *v, const struct agent_policy *policy,
           struct harden_request *req, const char **allow_spec,
           agentrt_error_t *err)
{
  if (strcmp (key, ANNOTATION_ROOTFS) == 0)
    return parse_rootfs (v, policy, req, err);
  if (strcmp (key, ANNOTATION_EGRESS) == 0)
    return parse_egress (v, req, err);
  if (strcmp (key, ANNOTATION_EGRESS_ALLOW) == 0)
    {
      *allow_spec = v;
      return 0;
    }
  if (strcmp (key, ANNOTATION_EGRESS_ASK) == 0)
    return egress_ask_annotation (v, &req->ask_off, err);
  if (strcmp (key, ANNOTATION_ENV_KEEP) == 0)
    return parse_env_keep (v, policy, req, err);
  if (strcmp (key, ANNOTATION_TIMEOUT) == 0)
    return parse_timeout (v, policy, req, err);
  if (strcmp (key, ANNOTATION_CREDENTIALS) == 0)
    {
      free (req->credentials);
      return credentials_select (v, policy->inject, policy->n_inject, &req->credentials,
                                 &req->n_credentials, err);
    }
  return unknown_key (key, err);
}

int
annotations_parse (const struct kv_list *annotations,
                   const struct agent_policy *policy,
                   struct harden_request *req, agentrt_error_t *err)
{
  const char *allow_spec = NULL;

  memset (req, 0, sizeof (*req));
  req->rootfs = HARDEN_ROOTFS_READONLY;
  req->egress = HARDEN_EGRESS_PROXY;
  req->lifetime = policy->lifetime;
  for (size_t i = 0; annotations && i < annotations->len; i++)
    {
      const struct kv *kv = &annotations->items[i];

      /* Ours in any case, and with any separator after the name: a typo
       * must not turn into "not ours". */
      if (strncasecmp (kv->key, "run.agentrt", strlen ("run.agentrt")) != 0)
        continue;
      if (parse_one (kv->key, kv->value, policy, req, &allow_spec, err) < 0)
        goto fail;
    }
  if (egress_policy_allowlist (allow_spec, policy, &req->egress_allow, err)
      < 0)
    goto fail;
  return 0;

fail:
  harden_request_release (req);
  return -1;
}

void
harden_request_release (struct harden_request *req)
{
  free (req->egress_allow);
  str_list_free (&req->env_keep);
  free (req->credentials);
  memset (req, 0, sizeof (*req));
}
