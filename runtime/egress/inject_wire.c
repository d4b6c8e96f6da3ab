/* The runtime-to-sidecar credential message (see inject_wire.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "inject_wire.h"

bool
inject_wire_put (char **buf, size_t *len, const char *tag, const char *data, size_t n)
{
  char head[48];
  int h = snprintf (head, sizeof head, "%s %zu\n", tag, n);

  if (h < 0 || (size_t) h >= sizeof head || *len + (size_t) h + n + 1 > INJECT_WIRE_MAX)
    return false;
  /* the whole room at once: a buffer that grew would leave copies of the
   * values before it in freed memory, where no wipe reaches them */
  if (*buf == NULL)
    *buf = xmalloc (INJECT_WIRE_MAX);
  memcpy (*buf + *len, head, (size_t) h);
  memcpy (*buf + *len + h, data, n);
  (*buf)[*len + (size_t) h + n] = '\n';
  *len += (size_t) h + n + 1;
  return true;
}

/* One record at *pos: its tag (at most 15 bytes) and data. */
static int
next_record (const char *buf, size_t len, size_t *pos, char tag[16], const char **data,
             size_t *n)
{
  size_t p = *pos, t = 0, v = 0, digits = 0;

  while (p < len && buf[p] != ' ' && t < 15)
    {
      if (buf[p] < 'a' || buf[p] > 'z')
        if (buf[p] != '-')
          return -1;
      tag[t++] = buf[p++];
    }
  tag[t] = '\0';
  if (t == 0 || p >= len || buf[p++] != ' ')
    return -1;
  while (p < len && buf[p] >= '0' && buf[p] <= '9' && digits < 6)
    v = v * 10 + (size_t) (buf[p++] - '0'), digits++;
  if (digits == 0 || p >= len || buf[p++] != '\n' || v > len - p || len - p - v < 1
      || buf[p + v] != '\n')
    return -1;
  *data = buf + p;
  *n = v;
  *pos = p + v + 1;
  return 0;
}

static bool
header_ok (const char *s, size_t n)
{
  if (n == 0 || n > 64)
    return false;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')
          || (s[i] >= '0' && s[i] <= '9') || strchr ("!#$%&'*+-.^_`|~", s[i])))
      return false;
  return true;
}

static bool
host_ok (const char *s, size_t n)
{
  if (n == 0 || n > 253)
    return false;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'
          || s[i] == '.'))
      return false;
  return true;
}

static bool
name_ok (const char *s, size_t n)
{
  if (n == 0 || n > CREDENTIAL_NAME_MAX)
    return false;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')
          || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return false;
  return true;
}

bool
inject_standin_valid (const char *s, size_t n)
{
  size_t plen = sizeof (CREDENTIAL_STANDIN_PREFIX) - 1;

  if (n != CREDENTIAL_STANDIN_LEN || memcmp (s, CREDENTIAL_STANDIN_PREFIX, plen) != 0)
    return false;
  for (size_t i = plen; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return false;
  return true;
}

bool
inject_value_valid (const char *s, size_t n)
{
  if (n == 0 || n > CREDENTIAL_VALUE_MAX || s[0] == ' ' || s[n - 1] == ' ')
    return false;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char) s[i] < 0x20 || (unsigned char) s[i] > 0x7e)
      return false;
  return true;
}

static bool
pem_ok (const char *s, size_t n)
{
  if (n == 0 || n > INJECT_PEM_MAX || memchr (s, '\0', n))
    return false;
  return true;
}

static char *
dup_n (const char *s, size_t n)
{
  char *p = xmalloc (n + 1);
  memcpy (p, s, n);
  p[n] = '\0';
  return p;
}

/* The step expected next: the CA first, then credentials field by field. */
enum
{
  W_CA_KEY,
  W_CA_CERT,
  W_NAME,
  W_HEADER,
  W_STANDIN,
  W_VALUE,
  W_HOST,
};

static int
take (struct inject_set *out, int *step, const char *tag, const char *d, size_t n)
{
  struct inject_cred *c = out->n ? &out->creds[out->n - 1] : NULL;

  if (*step == W_CA_KEY && strcmp (tag, "ca-key") == 0 && pem_ok (d, n))
    out->ca_key = dup_n (d, n);
  else if (*step == W_CA_CERT && strcmp (tag, "ca-cert") == 0 && pem_ok (d, n))
    out->ca_cert = dup_n (d, n);
  else if ((*step == W_NAME || (*step == W_HOST && c && c->nhosts))
           && strcmp (tag, "name") == 0 && name_ok (d, n) && out->n < CREDENTIALS_MAX)
    {
      c = &out->creds[out->n++];
      memcpy (c->name, d, n);
      *step = W_HEADER;
      return 0;
    }
  else if (*step == W_HEADER && strcmp (tag, "header") == 0 && header_ok (d, n))
    memcpy (c->header, d, n);
  else if (*step == W_STANDIN && strcmp (tag, "standin") == 0 && inject_standin_valid (d, n))
    memcpy (c->standin, d, n);
  else if (*step == W_VALUE && strcmp (tag, "value") == 0 && inject_value_valid (d, n))
    {
      c->value = dup_n (d, n);
      c->value_len = n;
    }
  else if (*step == W_HOST && strcmp (tag, "host") == 0 && host_ok (d, n)
           && c->nhosts < CREDENTIAL_HOSTS_MAX)
    {
      c->hosts[c->nhosts++] = dup_n (d, n);
      return 0;
    }
  else
    return -1;
  (*step)++;
  return 0;
}

int
inject_wire_decode (char *buf, size_t len, struct inject_set *out, agentrt_error_t *err)
{
  size_t pos = 0, records = 0;
  int step = W_CA_KEY, r = 0;

  memset (out, 0, sizeof (*out));
  if (len > INJECT_WIRE_MAX)
    r = agentrt_error (err, EINVAL, "credentials: a message of %zu bytes (at most %d)", len,
                       INJECT_WIRE_MAX);
  while (r == 0 && pos < len)
    {
      char tag[16];
      const char *d;
      size_t n;

      if (next_record (buf, len, &pos, tag, &d, &n) < 0)
        r = agentrt_error (err, EINVAL, "credentials: record %zu is malformed", records);
      else if (take (out, &step, tag, d, n) < 0)
        r = agentrt_error (err, EINVAL, "credentials: record %zu (%s) is out of place or "
                           "malformed", records, tag);
      records++;
    }
  if (r == 0 && (out->n == 0 || step != W_HOST || out->creds[out->n - 1].nhosts == 0))
    r = agentrt_error (err, EINVAL, "credentials: the message ends early");
  explicit_bzero (buf, len);
  if (r < 0)
    inject_set_release (out);
  return r;
}

void
inject_set_release (struct inject_set *s)
{
  if (s->ca_key)
    explicit_bzero (s->ca_key, strlen (s->ca_key));
  free (s->ca_key);
  free (s->ca_cert);
  for (size_t i = 0; i < s->n; i++)
    {
      if (s->creds[i].value)
        explicit_bzero (s->creds[i].value, s->creds[i].value_len);
      free (s->creds[i].value);
      for (size_t k = 0; k < s->creds[i].nhosts; k++)
        free (s->creds[i].hosts[k]);
    }
  memset (s, 0, sizeof (*s));
}

const struct inject_cred *
inject_set_for_host (const struct inject_set *s, const char *host)
{
  for (size_t i = 0; s && i < s->n; i++)
    for (size_t k = 0; k < s->creds[i].nhosts; k++)
      if (strcasecmp (s->creds[i].hosts[k], host) == 0)
        return &s->creds[i];
  return NULL;
}
