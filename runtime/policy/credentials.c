/* Declarations and selections of injected credentials (see credentials.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "credentials.h"
#include "runtime/egress/inject_wire.h"

void
credential_decl_release (struct credential_decl *d)
{
  free (d->name);
  free (d->source);
  free (d->env);
  free (d->header);
  str_list_free (&d->hosts);
  memset (d, 0, sizeof (*d));
}

static bool
is_identifier (const char *s, size_t max)
{
  size_t i;

  if (s == NULL || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
    return false;
  for (i = 1; s[i]; i++)
    if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')
          || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return false;
  return i <= max;
}

const char *
credential_host_problem (const char *host)
{
  size_t label = 0, labels = 1, len = strlen (host);
  bool alpha = false;

  if (len == 0 || len > 253)
    return "expected a host name of 1 to 253 characters";
  if (strchr (host, '*'))
    return "a wildcard is too broad: a credential goes to named hosts only";
  for (const char *p = host; *p; p++)
    {
      char ch = *p;
      if (ch == '.')
        {
          if (label == 0 || p[-1] == '-')
            return "an empty label or one ending with '-'";
          labels++;
          label = 0;
          continue;
        }
      if (ch >= 'A' && ch <= 'Z')
        return "host names are written in lower case";
      if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-'))
        return "expected a host name (letters, digits, '-' and '.'; no port, "
               "no address)";
      if (ch == '-' && label == 0)
        return "a label starting with '-'";
      alpha |= ch < '0' || ch > '9';
      if (++label > 63)
        return "a label longer than 63 characters";
    }
  if (label == 0 || host[len - 1] == '-')
    return "an empty label or one ending with '-'";
  if (!alpha)
    return "an address: a credential goes to named hosts only";
  if (labels < 2)
    return "a single label (a top-level domain or a local name) is too broad";
  return NULL;
}

bool
credential_header_allowed (const char *name)
{
  static const char *const framing[] = {
    "host", "content-length", "transfer-encoding", "connection", "upgrade",
    "keep-alive", "te", "trailer", "proxy-connection", "expect", NULL,
  };
  static const char tchar[] = "!#$%&'*+-.^_`|~";

  if (name == NULL || name[0] == '\0' || strlen (name) > 64)
    return false;
  for (const char *p = name; *p; p++)
    if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')
          || strchr (tchar, *p)))
      return false;
  for (size_t i = 0; framing[i]; i++)
    if (strcasecmp (name, framing[i]) == 0)
      return false;
  return true;
}

static const char *
source_problem (const char *s)
{
  if (s == NULL)
    return "required: \"file:/absolute/path\" or \"env:NAME\"";
  if (strncmp (s, "file:", 5) == 0)
    return s[5] == '/' && strstr (s, "/../") == NULL && strcmp (s + strlen (s) - 3, "/..") != 0
               ? NULL
               : "file: expects an absolute path without \"..\"";
  if (strncmp (s, "env:", 4) == 0)
    return is_identifier (s + 4, 255) ? NULL : "env: expects a variable name";
  return "expected \"file:/absolute/path\" or \"env:NAME\"";
}

int
credential_decl_check (const struct credential_decl *d, agentrt_error_t *err)
{
  const char *why;

  if (!is_identifier (d->name, CREDENTIAL_NAME_MAX))
    return agentrt_error (err, EINVAL, "name: expected a name of letters, digits "
                          "and '_' (at most %d, not starting with a digit)",
                          CREDENTIAL_NAME_MAX);
  if ((why = source_problem (d->source)) != NULL)
    return agentrt_error (err, EINVAL, "source: %s", why);
  if (d->env && !is_identifier (d->env, 255))
    return agentrt_error (err, EINVAL, "env: expected a variable name");
  if (d->header && !credential_header_allowed (d->header))
    return agentrt_error (err, EINVAL, "header `%s`: expected a field name that "
                          "does not frame or route the message", d->header);
  if (d->hosts.len == 0 || d->hosts.len > CREDENTIAL_HOSTS_MAX)
    return agentrt_error (err, EINVAL, "hosts: expected 1 to %d host names",
                          CREDENTIAL_HOSTS_MAX);
  for (size_t i = 0; i < d->hosts.len; i++)
    {
      if ((why = credential_host_problem (d->hosts.items[i])) != NULL)
        return agentrt_error (err, EINVAL, "hosts[%zu] `%s`: %s", i, d->hosts.items[i], why);
      for (size_t k = 0; k < i; k++)
        if (strcmp (d->hosts.items[k], d->hosts.items[i]) == 0)
          return agentrt_error (err, EINVAL, "hosts[%zu] `%s`: listed twice", i,
                                d->hosts.items[i]);
    }
  return 0;
}

static const char *
env_of (const struct credential_decl *d)
{
  return d->env ? d->env : d->name;
}

static bool
same_opt (const char *a, const char *b)
{
  return (a == NULL && b == NULL) || (a && b && strcmp (a, b) == 0);
}

bool
credential_decl_equal (const struct credential_decl *a, const struct credential_decl *b)
{
  if (strcmp (a->name, b->name) != 0 || strcmp (a->source, b->source) != 0
      || !same_opt (a->header, b->header) || strcmp (env_of (a), env_of (b)) != 0
      || a->hosts.len != b->hosts.len)
    return false;
  for (size_t i = 0; i < a->hosts.len; i++)
    if (strcmp (a->hosts.items[i], b->hosts.items[i]) != 0)
      return false;
  return true;
}

int
credentials_check_list (const struct credential_decl *decls, size_t n, agentrt_error_t *err)
{
  if (n > CREDENTIALS_MAX)
    return agentrt_error (err, EINVAL, "inject: at most %d credentials", CREDENTIALS_MAX);
  for (size_t i = 0; i < n; i++)
    {
      if (credential_decl_check (&decls[i], err) < 0)
        return agentrt_error_wrap (err, "inject[%zu]", i);
      for (size_t k = 0; k < i; k++)
        {
          if (strcmp (decls[k].name, decls[i].name) == 0)
            return agentrt_error (err, EINVAL, "inject[%zu].name `%s`: declared twice", i,
                                  decls[i].name);
          if (strcmp (env_of (&decls[k]), env_of (&decls[i])) == 0)
            return agentrt_error (err, EINVAL, "inject[%zu].env `%s`: the variable of "
                                  "inject[%zu] too", i, env_of (&decls[i]), k);
        }
    }
  return 0;
}

int
credentials_select (const char *spec, const struct credential_decl *decls, size_t n,
                    size_t **sel, size_t *nsel, agentrt_error_t *err)
{
  cleanup_free size_t *out = NULL;
  size_t count = 0;
  const char *p = spec;

  *sel = NULL;
  *nsel = 0;
  if (spec == NULL)
    return 0;
  out = xreallocarray (NULL, n ? n : 1, sizeof (*out));
  for (;;)
    {
      const char *end = strchr (p, ',');
      size_t len = end ? (size_t) (end - p) : strlen (p), i;

      for (i = 0; i < n; i++)
        if (strlen (decls[i].name) == len && memcmp (decls[i].name, p, len) == 0)
          break;
      if (i == n)
        return agentrt_error (err, EINVAL, "annotation run.agentrt.credentials: `%.*s` "
                              "is not a credential the policy declares "
                              "(credentials.inject)", (int) (len > 64 ? 64 : len), p);
      for (size_t k = 0; k < count; k++)
        if (out[k] == i)
          return agentrt_error (err, EINVAL, "annotation run.agentrt.credentials: "
                                "`%s` named twice", decls[i].name);
      out[count++] = i;
      if (end == NULL)
        break;
      p = end + 1;
    }
  *sel = steal_pointer (&out);
  *nsel = count;
  return 0;
}

bool
credential_standin_valid (const char *s)
{
  return s && inject_standin_valid (s, strlen (s));
}

bool
credential_value_valid (const char *value, size_t len)
{
  return inject_value_valid (value, len);
}
