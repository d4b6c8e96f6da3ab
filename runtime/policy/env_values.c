/* Secret-looking values (env_values.h).  Token shapes count only where a
 * token starts (the byte before is not [A-Za-z0-9_-]), so that task-...
 * is not sk-...; fields count where a key named like a secret (judged as
 * env_names.h judges names) is followed by '=' (password=, AccountKey=,
 * sig=), or by ':' after a quote or before a space ("password": "...",
 * Authorization: Basic ...).  Every scan moves forward or looks back a
 * bounded way, so a value is judged in linear time. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "env_names.h"
#include "env_values.h"

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))
#define MAX_KEY 128

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

static size_t
digits (const char *s)
{
  size_t n = 0;
  while (isdigit ((unsigned char) s[n]))
    n++;
  return n;
}

static bool
starts (const char *s, const char *prefix)
{
  return strncmp (s, prefix, strlen (prefix)) == 0;
}

static bool
in_range (size_t n, size_t min, size_t max)
{
  return n >= min && n <= max;
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

static int
base64_digit (unsigned char c)
{
  static const char alphabet[]
      = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const char *p = c ? strchr (alphabet, c) : NULL;
  return p ? (int) (p - alphabet) : -1;
}

/* Decodes up to n base64 digits at s into out (NUL-terminated); returns
 * the number of bytes, stopping at the first byte that is not a digit. */
static size_t
base64_decode (const char *s, size_t n, char *out)
{
  unsigned int acc = 0, bits = 0;
  size_t len = 0;

  for (size_t i = 0; i < n; i++)
    {
      int d = base64_digit ((unsigned char) s[i]);
      if (d < 0)
        break;
      acc = (acc << 6) | (unsigned int) d;
      bits += 6;
      if (bits >= 8)
        {
          bits -= 8;
          out[len++] = (char) ((acc >> bits) & 0xff);
        }
    }
  out[len] = '\0';
  return len;
}

/* A PEM private key, base64-encoded as CI and Kubernetes secrets hold it:
 * "LS0tLS1CRUdJ" is "-----BEGI". */
static bool
is_base64_pem_private_key (const char *s)
{
  char text[96];

  if (!starts (s, "LS0tLS1CRUdJ"))
    return false;
  base64_decode (s, 120, text);
  return is_pem_private_key (text);
}

/* Authorization: Basic <base64 of user:password>. */
static bool
is_basic_credential (const char *s)
{
  char text[96];
  size_t n = span (s, "+/"), len;

  if (n < 4)
    return false;
  len = base64_decode (s, n < 120 ? n : 120,
                       text); /* user:... is at the start */
  for (size_t i = 0; i < len; i++)
    if (!isprint ((unsigned char) text[i]))
      return false;
  return strchr (text, ':') != NULL;
}

/* "Basic <user:password>" or "Bearer <token>", any case. */
static bool
is_authorization (const char *s)
{
  bool basic = strncasecmp (s, "basic", 5) == 0;
  const char *p;

  if (!basic && strncasecmp (s, "bearer", 6) != 0)
    return false;
  p = s + (basic ? 5 : 6);
  if (*p != ' ' && *p != '\t')
    return false;
  while (*p == ' ' || *p == '\t')
    p++;
  return basic ? is_basic_credential (p) : span (p, "-._~+/") >= 16;
}

static bool
is_aws_key_id (const char *s)
{
  size_t n = 0;
  if (!starts (s, "AKIA") && !starts (s, "ASIA"))
    return false;
  for (s += 4;
       isupper ((unsigned char) s[n]) || isdigit ((unsigned char) s[n]);)
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

/* Microsoft Entra (Azure AD) client secret: 3 bytes, a digit, "Q~", 31-34
 * bytes of [A-Za-z0-9_~.-]. */
static bool
is_azure_client_secret (const char *s)
{
  for (int i = 0; i < 3; i++)
    if (!s[i] || (!isalnum ((unsigned char) s[i]) && !strchr ("_~.-", s[i])))
      return false;
  return isdigit ((unsigned char) s[3]) && s[4] == 'Q' && s[5] == '~'
         && in_range (span (s + 6, "_~.-"), 31, 34);
}

/* Telegram bot token: <bot id>:<35 bytes>. */
static bool
is_telegram_bot_token (const char *s)
{
  size_t n = digits (s);
  return in_range (n, 8, 10) && s[n] == ':' && span (s + n + 1, "_-") == 35;
}

/* Discord bot token: base64 of the bot id, '.', 6 bytes, '.', 27-40. */
static bool
is_discord_bot_token (const char *s)
{
  size_t a = span (s, "_-"), b, c;

  if (s[0] != 'M' && s[0] != 'N' && s[0] != 'O')
    return false;
  if (!in_range (a, 24, 28) || s[a] != '.')
    return false;
  b = span (s + a + 1, "_-");
  if (b != 6 || s[a + 1 + b] != '.')
    return false;
  c = span (s + a + 2 + b, "_-");
  return in_range (c, 27, 40);
}

/* SendGrid: SG.<22>.<43>; Terraform Cloud: <14>.atlasv1.<60 or more>. */
static bool
is_dotted_token (const char *s)
{
  if (starts (s, "SG."))
    return span (s + 3, "_-") == 22 && s[25] == '.'
           && span (s + 26, "_-") == 43;
  for (int i = 0; i < 14; i++)
    if (!isalnum ((unsigned char) s[i]))
      return false;
  return starts (s + 14, ".atlasv1.") && span (s + 23, "_-") >= 60;
}

struct prefix_shape
{
  const char *prefix;
  const char *extra; /* bytes allowed in the body besides alnum */
  size_t min_body;
  const char *what;
};

#define GITHUB "value looks like a GitHub token"
#define GITLAB "value looks like a GitLab token"
#define SLACK "value looks like a Slack token"
#define STRIPE "value looks like a Stripe secret key"
#define MODEL "value looks like a model provider's API key"
#define CLOUD "value looks like a cloud provider's token"
#define REGISTRY "value looks like a package registry's token"
#define VAULT "value looks like a secrets manager's token"
#define SAAS "value looks like a service's API token"

/* Sorted by the prefix's first byte (in ASCII order): shape_at finds a
 * byte's entries by binary search. */
static const struct prefix_shape prefix_shapes[] = {
  { "AIza", "_-", 35, "value looks like a Google API key" },
  { "ABSK", "+/=", 40, CLOUD },
  { "AKCp", "", 60, REGISTRY },
  { "AGE-SECRET-KEY-1", "", 50, "value holds an age private key" },
  { "ATATT3", "_-=", 50, SAAS },
  { "EAA", "", 90, SAAS },
  { "GR1348941", "_-", 20, GITLAB },
  { "GOCSPX-", "_-", 24, CLOUD },
  { "HRKU-", "_-", 30, CLOUD },
  { "NRAK-", "", 27, SAAS },
  { "PMAK-", "-", 50, SAAS },
  { "PuTTY-User-Key-File-", "", 1, "value holds a PuTTY private key" },
  { "api_org_", "", 30, "value looks like a Hugging Face token" },
  { "access_token$", "$", 30, SAAS },
  { "bedrock-api-key-", "+/=", 40, CLOUD },
  { "csk-", "", 40, MODEL },
  { "cio", "", 32, REGISTRY },
  { "cmVmdGtu", "", 40, REGISTRY },
  { "dop_v1_", "", 64, CLOUD },
  { "doo_v1_", "", 64, CLOUD },
  { "dor_v1_", "", 64, CLOUD },
  { "dapi", "", 32, CLOUD },
  { "dckr_pat_", "_-", 20, REGISTRY },
  { "dckr_oat_", "_-", 20, REGISTRY },
  { "dp.pt.", "", 40, VAULT },
  { "dp.st.", "", 40, VAULT },
  { "dp.ct.", "", 40, VAULT },
  { "dp.sa.", "", 40, VAULT },
  { "fw_", "", 20, MODEL },
  { "fm1a_", "_-=+/", 40, CLOUD },
  { "fm1r_", "_-=+/", 40, CLOUD },
  { "fm2_", "_-=+/", 40, CLOUD },
  { "figd_", "_-", 30, SAAS },
  { "ghp_", "", 30, GITHUB },
  { "gho_", "", 30, GITHUB },
  { "ghu_", "", 30, GITHUB },
  { "ghs_", "", 30, GITHUB },
  { "ghr_", "", 30, GITHUB },
  { "github_pat_", "_", 22, GITHUB },
  { "glpat-", "_-", 20, GITLAB },
  { "gldt-", "_-", 20, GITLAB },
  { "glrt-", "_-", 20, GITLAB },
  { "glcbt-", "_-", 20, GITLAB },
  { "glptt-", "_-", 20, GITLAB },
  { "gloas-", "_-", 20, GITLAB },
  { "glsoat-", "_-", 20, GITLAB },
  { "glffct-", "_-", 20, GITLAB },
  { "glimt-", "_-", 20, GITLAB },
  { "glagent-", "_-", 20, GITLAB },
  { "glft-", "_-", 20, GITLAB },
  { "gsk_", "", 40, MODEL },
  { "glc_", "_-=", 30, SAAS },
  { "glsa_", "_", 30, SAAS },
  { "hf_", "", 30, "value looks like a Hugging Face token" },
  { "hvs.", "_-", 24, VAULT },
  { "hvb.", "_-", 24, VAULT },
  { "hvr.", "_-", 24, VAULT },
  { "key-", "", 32, SAAS },
  { "lsv2_pt_", "_", 30, MODEL },
  { "lsv2_sk_", "_", 30, MODEL },
  { "lin_api_", "", 30, SAAS },
  { "lin_oauth_", "", 30, SAAS },
  { "nvapi-", "_-", 40, MODEL },
  { "nfp_", "", 36, CLOUD },
  { "npm_", "", 36, "value looks like an npm token" },
  { "ntn_", "", 40, SAAS },
  { "oy2", "", 43, REGISTRY },
  { "ops_", "_-.", 40, VAULT },
  { "pplx-", "", 40, MODEL },
  { "pcsk_", "_", 40, MODEL },
  { "pypi-", "_-", 50, REGISTRY },
  { "rk_live_", "", 20, STRIPE },
  { "rk_test_", "", 20, STRIPE },
  { "r8_", "", 30, MODEL },
  { "rubygems_", "", 48, REGISTRY },
  { "sk_live_", "", 20, STRIPE },
  { "sk_test_", "", 20, STRIPE },
  { "sk-", "_-", 20, "value looks like an OpenAI or Anthropic API key" },
  { "sbp_", "", 40, CLOUD },
  { "sb_secret_", "_-", 20, CLOUD },
  { "shpat_", "", 32, SAAS },
  { "shpca_", "", 32, SAAS },
  { "shppa_", "", 32, SAAS },
  { "shpss_", "", 32, SAAS },
  { "sntrys_", "_-=+/", 40, SAAS },
  { "sntryu_", "", 40, SAAS },
  { "secret_", "", 43, SAAS },
  { "sq0atp-", "_-", 22, SAAS },
  { "sq0csp-", "_-", 22, SAAS },
  { "sk.eyJ", "_-.", 50, SAAS },
  { "tvly-", "-", 24, MODEL },
  { "tskey-", "-", 20, CLOUD },
  { "whsec_", "", 20, STRIPE },
  { "xoxa-", "-", 10, SLACK },
  { "xoxb-", "-", 10, SLACK },
  { "xoxp-", "-", 10, SLACK },
  { "xoxr-", "-", 10, SLACK },
  { "xoxs-", "-", 10, SLACK },
  { "xoxe-", "-", 10, SLACK },
  { "xapp-", "-", 10, SLACK },
  { "xai-", "", 40, MODEL },
  { "ya29.", "_-.", 30, CLOUD },
};

/* The entries of prefix_shapes whose prefix starts with c. */
static const struct prefix_shape *
prefixes_for (unsigned char c, const struct prefix_shape **end)
{
  size_t lo = 0, hi = N_ELEMENTS (prefix_shapes), last;

  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if ((unsigned char) prefix_shapes[mid].prefix[0] < c)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (last = lo; last < N_ELEMENTS (prefix_shapes)
                  && (unsigned char) prefix_shapes[last].prefix[0] == c;)
    last++;
  *end = prefix_shapes + last;
  return prefix_shapes + lo;
}

static const char *
shape_at (const char *s)
{
  const struct prefix_shape *ps, *end;

  if (s[0] == 'A' && is_aws_key_id (s))
    return "value looks like an AWS access key id";
  if (s[0] == 'e' && is_jwt (s))
    return "value looks like a JWT";
  if (s[0] == 'L' && is_base64_pem_private_key (s))
    return "value holds a PEM private key (base64)";
  if ((s[0] == 'B' || s[0] == 'b') && is_authorization (s))
    return "value holds an Authorization credential (Basic, Bearer)";
  if (is_azure_client_secret (s) || is_telegram_bot_token (s)
      || is_discord_bot_token (s) || is_dotted_token (s))
    return SAAS;
  for (ps = prefixes_for ((unsigned char) s[0], &end); ps < end; ps++)
    if (starts (s, ps->prefix)
        && span (s + strlen (ps->prefix), ps->extra) >= ps->min_body)
      return ps->what;
  return NULL;
}

static bool
is_key_byte (unsigned char c)
{
  return isalnum (c) || c == '_' || c == '.' || c == '-';
}

/* Whether v[i], an '=' or a ':', ends the key of a field named like a
 * secret whose value is there: not empty, not a path (/..., ~/..., ./...),
 * a reference ($VAR), a placeholder (<...>, ***) or a switch. */
static bool
is_secret_field (const char *v, size_t i)
{
  size_t end = i, start, n;
  const char *val;
  bool quoted;

  while (end > 0 && (v[end - 1] == ' ' || v[end - 1] == '\t'))
    end--;
  quoted = end > 0 && (v[end - 1] == '"' || v[end - 1] == '\'');
  if (quoted)
    end--;
  /* a:b is a list, a port or a time; "key": and key: value are fields */
  if (v[i] == ':' && !quoted && v[i + 1] != ' ' && v[i + 1] != '\t')
    return false;
  for (start = end; start > 0 && is_key_byte ((unsigned char) v[start - 1]);)
    if (end - --start > MAX_KEY)
      return false;
  if (start == end)
    return false;
  val = v + i + 1;
  while (*val == ' ' || *val == '\t')
    val++;
  if (*val == '"' || *val == '\'')
    val++;
  for (n = 0; n < 16 && val[n] && !strchr ("\"'&;,=)]} \t\r\n", val[n]); n++)
    ;
  if (n == 0 || strchr ("$/<*", val[0]) || starts (val, "~/")
      || starts (val, "./") || env_is_switch_value (val, n))
    return false;
  return env_name_reason (v + start, end - start, ENV_NAME_FIELD) != NULL;
}

struct webhook_host
{
  const char *host; /* exact, or with a leading '.' any subdomain */
  const char *path; /* what the path starts with */
};

/* Webhook URLs whose path is the secret. */
static const struct webhook_host webhook_hosts[] = {
  { "hooks.slack.com", "/services/" },
  { "hooks.slack.com", "/workflows/" },
  { "hooks.slack.com", "/triggers/" },
  { "discord.com", "/api/webhooks/" },
  { ".discord.com", "/api/webhooks/" },
  { "discordapp.com", "/api/webhooks/" },
  { ".webhook.office.com", "/webhookb2/" },
  { "outlook.office.com", "/webhook/" },
  { "hooks.zapier.com", "/hooks/catch/" },
};

static bool
host_is (const char *host, size_t len, const char *want)
{
  size_t n = strlen (want);
  if (want[0] == '.')
    return len > n && strncasecmp (host + len - n, want, n) == 0;
  return len == n && strncasecmp (host, want, n) == 0;
}

/* Whether s starts with at least 8 bytes of a URL (no space, no quote). */
static bool
has_8_url_bytes (const char *s)
{
  size_t n = 0;
  while (n < 8 && s[n] && !strchr (" \t\r\n\"'", s[n]))
    n++;
  return n == 8;
}

static bool
is_webhook (const char *host, size_t len, const char *path)
{
  for (size_t i = 0; i < N_ELEMENTS (webhook_hosts); i++)
    {
      const struct webhook_host *w = &webhook_hosts[i];
      if (host_is (host, len, w->host) && starts (path, w->path)
          && has_8_url_bytes (path + strlen (w->path)))
        return true;
    }
  return false;
}

/* scheme://user:password@host, or a webhook's URL. */
static const char *
url_reason (const char *v)
{
  for (const char *p = strstr (v, "://"); p; p = strstr (p + 1, "://"))
    {
      const char *auth = p + 3, *host = auth, *colon;
      size_t len = strcspn (auth, "/?# \t\n\"'");
      const char *at = memrchr (auth, '@', len);

      if (at)
        {
          colon = memchr (auth, ':', (size_t) (at - auth));
          if (colon && colon + 1 < at)
            return "value is a URL with a password";
          host = at + 1;
        }
      colon = memchr (host, ':', (size_t) (auth + len - host));
      if (is_webhook (host, (size_t) ((colon ? colon : auth + len) - host),
                      auth + len))
        return "value is a webhook URL (the path is its secret)";
    }
  return NULL;
}

/* Connection strings that are not URLs: Go's MySQL DSN user:password@tcp(
 * or @unix(, and Oracle's jdbc:oracle:thin:user/password@. */
static bool
has_dsn_password (const char *v)
{
  static const char *const markers[] = { "@tcp(", "@unix(" };

  for (size_t m = 0; m < N_ELEMENTS (markers); m++)
    for (const char *p = strstr (v, markers[m]); p;
         p = strstr (p + 1, markers[m]))
      {
        const char *q = p, *colon = NULL;
        while (q > v && p - q < MAX_KEY && !strchr (" \t\n\"'=;,@(/", q[-1]))
          if (*--q == ':')
            colon = q;
        if (colon && colon + 1 < p)
          return true;
      }
  for (const char *p = strstr (v, "oracle:thin:"); p;
       p = strstr (p + 1, "oracle:thin:"))
    {
      const char *q = p + strlen ("oracle:thin:");
      size_t u = 0, w;
      while (u < MAX_KEY && q[u] && !strchr ("/@: \t\n;\"'", q[u]))
        u++;
      if (q[u] != '/')
        continue;
      for (w = u + 1;
           w <= u + MAX_KEY && q[w] && !strchr ("@ \t\n;\"'", q[w]);)
        w++;
      if (q[w] == '@' && w > u + 1)
        return true;
    }
  return false;
}

const char *
env_secret_value_reason (const char *value)
{
  const char *why;

  for (const char *p = strstr (value, "-----BEGIN "); p;
       p = strstr (p + 1, "-----BEGIN "))
    if (is_pem_private_key (p))
      return "value holds a PEM private key";
  for (size_t i = 0; value[i]; i++)
    {
      if ((value[i] == '=' || value[i] == ':') && is_secret_field (value, i))
        return "value holds a field named like a secret (password=, sig=...)";
      if (i > 0 && is_token_byte ((unsigned char) value[i - 1]))
        continue;
      why = shape_at (value + i);
      if (why)
        return why;
    }
  why = url_reason (value);
  if (why == NULL && has_dsn_password (value))
    why = "value is a connection string with a password";
  return why;
}
