/* Unit tests of environment scrubbing (runtime/policy/env_scrub.h): odd
 * entries first, then the false positives, as hard as the hits. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/policy/env_scrub.h"
#include "unit.h"

static struct agent_policy policy;

static struct str_list
make_env (const char *const *entries)
{
  struct str_list l = { NULL, 0 };
  for (size_t i = 0; entries[i]; i++)
    str_list_append (&l, entries[i]);
  return l;
}

static bool
has_entry (const struct str_list *l, const char *entry)
{
  return str_list_contains (l, entry);
}

/* A change list mentions no secret value. */
static void
check_no_value_leak (const struct change_list *c, const char *value)
{
  for (size_t i = 0; i < c->len; i++)
    {
      CHECK (strstr (c->items[i].what, value) == NULL);
      CHECK (strstr (c->items[i].why, value) == NULL);
    }
}

static void
test_odd_entries (void)
{
  const char *const entries[] = {
    "",                                  /* empty entry */
    "=",                                 /* empty name, empty value */
    "NOEQUALS",                          /* no '=' at all */
    "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", /* a bare token, no '=' */
    "GITHUB_TOKEN=",                     /* empty secret */
    "github_token=abc",                  /* lowercase name */
    "Gh_Token=x=y=z",                    /* mixed case, '=' in value */
    "FOO=a=b=c",                         /* '=' in a harmless value */
    "DUP=1",
    "DUP=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345", /* duplicate, secret */
    "DUP=2",
    "=ghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", /* empty name, secret value */
    NULL,
  };
  struct str_list env = make_env (entries);
  struct change_list changes = { NULL, 0 };
  char *text;

  env_scrub (&env, NULL, &policy, &changes);
  CHECK (has_entry (&env, ""));
  CHECK (has_entry (&env, "="));
  CHECK (has_entry (&env, "NOEQUALS"));
  CHECK (has_entry (&env, "FOO=a=b=c"));
  CHECK (has_entry (&env, "DUP=1"));
  CHECK (has_entry (&env, "DUP=2"));
  CHECK (env.len == 6);
  CHECK (env.items[env.len] == NULL);
  CHECK (changes.len == 6);
  text = change_list_to_text (&changes);
  CHECK_CONTAINS (text, "env-removed: GITHUB_TOKEN (");
  CHECK_CONTAINS (text, "env-removed: github_token (");
  CHECK_CONTAINS (text, "env-removed: Gh_Token (");
  CHECK_CONTAINS (text, "env-removed: DUP (value looks like an OpenAI");
  CHECK_CONTAINS (text, "env-removed: entry #3 (no '=')");
  CHECK_CONTAINS (text, "env-removed: entry #11 (");
  check_no_value_leak (&changes, "ghp_");
  check_no_value_leak (&changes, "sk-ant");
  check_no_value_leak (&changes, "x=y=z");
  free (text);
  change_list_release (&changes);
  str_list_free (&env);
}

/* A name that is itself token-shaped is not shown. */
static void
test_secret_shaped_name (void)
{
  const char *const entries[]
      = { "ghp_cccccccccccccccccccccccccccccccccccc=1", "X\nY_TOKEN=1", NULL };
  struct str_list env = make_env (entries);
  struct change_list changes = { NULL, 0 };

  env_scrub (&env, NULL, &policy, &changes);
  CHECK (env.len == 0);
  CHECK (changes.len == 2);
  CHECK_STR_EQ (changes.items[0].what, "entry #0");
  CHECK_STR_EQ (changes.items[1].what, "entry #1");
  change_list_release (&changes);
  str_list_free (&env);
}

static void
test_secret_names (void)
{
  static const char *const hits[] = {
    "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "VAULT_TOKEN", "HF_TOKEN",
    "SLACK_BOT_TOKEN", "CI_JOB_TOKEN", "TOKEN", "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "X_APIKEY", "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI", "MINIO_ACCESS_KEY", "ACCESS_KEY",
    "CLIENT_SECRET", "AZURE_CLIENT_SECRET", "SECRET_KEY", "DJANGO_SECRET_KEY",
    "JWT_SECRET", "MY_SECRETS_BLOB", "STRIPE_SECRETKEY", "PASSWORD",
    "DB_PASSWORD", "MYSQL_ROOT_PASSWORD", "PGPASSWORD", "SMTP_PASSWD",
    "GPG_PASSPHRASE", "SSH_AUTH_SOCK", "KUBECONFIG", "DOCKER_AUTH_CONFIG",
    "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CREDENTIALS", "SSH_PRIVATE_KEY",
    "ssh_auth_sock", "openai_api_key", "aws-secret-access-key",
    "db.password", "npm_config__auth_token",
  };
  static const char *const misses[] = {
    "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
    "TOKENIZERS_PARALLELISM", "MAX_TOKENS", "TOKEN_LIMIT", "AWS_REGION",
    "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "PATH",
    "HOME", "TERM", "LANG", "HOSTNAME", "SHELL", "USER", "SECRETARY",
    "OPENAI_BASE_URL", "ANTHROPIC_MODEL", "KEYBOARD", "SSH_CONNECTION",
    "SSH_TTY", "POSTGRES_PASSWORD_FILE", "GITHUB_TOKEN_PATH",
    "SECRETS_DIR", "PUBLIC_KEY", "KEY", "AUTH_MODE", "NODE_OPTIONS",
    "LS_COLORS", "PYTHONPATH", "API_BASE", "PASSAGE", "CREDENTIALS_HELP_URL",
    "", "_",
  };

  for (size_t i = 0; i < sizeof (hits) / sizeof (*hits); i++)
    {
      const char *why = env_secret_name_reason (hits[i], &policy);
      if (why == NULL)
        fprintf (stderr, "not a secret name?: %s\n", hits[i]);
      CHECK (why != NULL);
    }
  for (size_t i = 0; i < sizeof (misses) / sizeof (*misses); i++)
    {
      const char *why = env_secret_name_reason (misses[i], &policy);
      if (why)
        fprintf (stderr, "false positive: %s (%s)\n", misses[i], why);
      CHECK (why == NULL);
    }
}

static void
test_secret_values (void)
{
  static const char *const hits[] = {
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow...\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3Blbn...",
    "-----BEGIN PRIVATE KEY-----",
    "-----BEGIN ENCRYPTED PRIVATE KEY-----",
    "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    "prefix text\n-----BEGIN EC PRIVATE KEY-----",
    "AKIAIOSFODNN7EXAMPLE",
    "ASIAY34FZKBOKMUTVV7A",
    "key=AKIAIOSFODNN7EXAMPLE;other",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "gho_0123456789abcdefghijABCDEFGHIJ012345",
    "ghu_0123456789abcdefghijABCDEFGHIJ012345",
    "ghs_0123456789abcdefghijABCDEFGHIJ012345",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "https://x-access-token:ghs_0123456789abcdefghijABCDEFGHIJ012345@github.com",
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz-0123456789_ABCDEFG",
    "Bearer sk-abcdefghijklmnopqrstuvwxyz",
    "xoxb-123456789012-1234567890123-abcdefghijklmnop",
    "xoxp-1234567890-abcdef",
    "xoxa-2-abcdefghijkl",
    ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.",
    "glpat-abcdefghij0123456789",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789AB",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",
    "postgres://app:hunter2@db:5432/app",
    "redis://:s3cret@cache:6379",
  };
  static const char *const misses[] = {
    "", "/usr/local/bin:/usr/bin:/bin", "xterm-256color", "en_US.UTF-8",
    "/home/user/.ssh/id_rsa", "sk-learn", "task-0123456789abcdefghijklmn",
    "risk-abcdefghijklmnopqrstuvwxyz", "AKIA", "AKIAshort",
    "AKIAIOSFODNN7EXAMPLEXX", "XAKIAIOSFODNN7EXAMPLE", "ghp_short",
    "eyJhbGciOiJIUzI1NiJ9", "eyJ.eyJ.x", "https://example.com/path",
    "http://localhost:8080", "https://user@host/repo.git",
    "git@github.com:org/repo.git", "ssh://git@github.com/org/repo",
    "http://[::1]:8080/a@b", "-----BEGIN CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----", "550e8400-e29b-41d4-a716-446655440000",
    "true", "1", "xoxb-", "mailto:someone@example.com",
  };

  for (size_t i = 0; i < sizeof (hits) / sizeof (*hits); i++)
    {
      const char *why = env_secret_value_reason (hits[i]);
      if (why == NULL)
        fprintf (stderr, "not a secret value?: %.40s\n", hits[i]);
      CHECK (why != NULL);
    }
  for (size_t i = 0; i < sizeof (misses) / sizeof (*misses); i++)
    {
      const char *why = env_secret_value_reason (misses[i]);
      if (why)
        fprintf (stderr, "false positive value: %s (%s)\n", misses[i], why);
      CHECK (why == NULL);
    }
}

static void
test_keep (void)
{
  const char *const entries[]
      = { "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345",
          "NPM_TOKEN=x", "PATH=/bin", NULL };
  struct str_list env = make_env (entries);
  struct str_list keep = { NULL, 0 };
  struct change_list changes = { NULL, 0 };

  str_list_append (&keep, "GITHUB_TOKEN");
  str_list_append (&keep, "github_token_lowercase_is_another_name");
  env_scrub (&env, &keep, &policy, &changes);
  CHECK (env.len == 2);
  CHECK (has_entry (&env, "PATH=/bin"));
  CHECK (changes.len == 2);
  CHECK (changes.items[0].kind == CHANGE_ENV_KEPT);
  CHECK_STR_EQ (changes.items[0].what, "GITHUB_TOKEN");
  CHECK_CONTAINS (changes.items[0].why, "run.agentrt.env.keep");
  CHECK (changes.items[1].kind == CHANGE_ENV_REMOVED);
  check_no_value_leak (&changes, "ghp_");
  change_list_release (&changes);
  str_list_free (&keep);
  str_list_free (&env);
}

static void
test_policy_patterns (void)
{
  struct agent_policy p;

  policy_init_defaults (&p);
  str_list_append (&p.extra_secret_env, "*_CREDS");
  str_list_append (&p.extra_secret_env, "ACME_*");
  CHECK (env_secret_name_reason ("db_creds", &p) != NULL);
  CHECK (env_secret_name_reason ("acme_region", &p) != NULL);
  CHECK (env_secret_name_reason ("CREDSTORE", &p) == NULL);
  CHECK (env_secret_name_reason ("db_creds", NULL) == NULL);
  policy_release (&p);
}

static void
test_env_set (void)
{
  const char *const entries[] = { "A=1", "HTTP_PROXY=http://evil:1", "B=2",
                                  "HTTP_PROXY=x", "HTTP_PROXY", NULL };
  struct str_list env = make_env (entries);
  struct change_list changes = { NULL, 0 };

  env_set (&env, "HTTP_PROXY", "http://127.0.0.1:3128", "proxy", &changes);
  CHECK (env.len == 3);
  CHECK_STR_EQ (env.items[1], "HTTP_PROXY=http://127.0.0.1:3128");
  CHECK (env.items[3] == NULL);
  CHECK (changes.len == 1);
  /* Setting it again changes nothing. */
  env_set (&env, "HTTP_PROXY", "http://127.0.0.1:3128", "proxy", &changes);
  CHECK (changes.len == 1);
  CHECK_STR_EQ (env_get (&env, "HTTP_PROXY"), "http://127.0.0.1:3128");
  CHECK (env_get (&env, "HTTP") == NULL);
  env_set (&env, "NEW", "v", "why", &changes);
  CHECK (env.len == 4 && changes.len == 2);
  CHECK_STR_EQ (env.items[3], "NEW=v");
  change_list_release (&changes);
  str_list_free (&env);
}

static void
test_long_name (void)
{
  char name[600];

  memset (name, 'A', sizeof (name) - 1);
  name[sizeof (name) - 1] = '\0';
  /* Too long to judge word by word: treated as a secret. */
  CHECK (env_secret_name_reason (name, &policy) != NULL);
  CHECK (env_secret_name_reason ("A_B_C_D_E_F_G_H_I_J_K_L_M_N_O_P_Q_R_S_T_U_V_W_"
                                 "X_Y_Z_A_B_C_D_E_F_G", &policy) != NULL);
}

/* A 200-variable environment shaped like an agent's: the usual shell and
 * locale variables, tool settings, URLs, a few secrets of each kind, long
 * values (LS_COLORS, a PEM key), and the rest settings of an application. */
static void
make_big_env (struct str_list *env, size_t n)
{
  static const char *const base[] = {
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME=/root", "TERM=xterm-256color", "LANG=en_US.UTF-8", "PWD=/work",
    "OLDPWD=/", "SHELL=/bin/bash", "USER=agent", "HOSTNAME=sandbox", "CI=true",
    "NODE_ENV=production", "DATABASE_HOST=db.internal", "TZ=UTC",
    "PYTHONPATH=/app/src:/app/lib", "PYTHONUNBUFFERED=1",
    "GIT_AUTHOR_NAME=Agent Smith", "GIT_AUTHOR_EMAIL=agent@example.com",
    "TOKENIZERS_PARALLELISM=false", "MAX_TOKENS=4096", "AWS_REGION=eu-west-3",
    "OPENAI_BASE_URL=https://api.openai.com/v1",
    "NODE_OPTIONS=--max-old-space-size=4096 --enable-source-maps",
    "JAVA_TOOL_OPTIONS=-Xmx2g -Dfile.encoding=UTF-8",
    "MAKEFLAGS=-j4 --jobserver-auth=fifo:/tmp/GMfifo1",
    "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus,guid=0123abcd",
    "OTEL_RESOURCE_ATTRIBUTES=service.name=agent,deployment.environment=ci",
    "REDIS_URL=redis://cache.internal:6379/0",
    "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
    "DATABASE_URL=postgres://app:hunter2@db.internal:5432/app",
    "SESSION=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl",
    "DEPLOY_KEY=-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA"
    "BG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACBvZXhhbXBsZQ"
    "\n-----END OPENSSH PRIVATE KEY-----",
  };
  char buf[2048];
  size_t i = 0;

  for (; i < sizeof (base) / sizeof (*base) && i < n; i++)
    str_list_append (env, base[i]);
  /* LS_COLORS as dircolors writes it: ~1.5 kB of key=value pairs. */
  strcpy (buf, "LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35");
  while (strlen (buf) < 1500)
    strcat (buf, ":*.tar=01;31:*.tgz=01;31:*.jpg=01;35:*.mp3=00;36");
  str_list_append (env, buf);
  for (i++; i < n; i++)
    {
      snprintf (buf, sizeof (buf),
                "APP_SETTING_%03zu=value-%zu/some/path:with,commas;and=more",
                i, i * 7919);
      str_list_append (env, buf);
    }
}

static double
now_us (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Median time of env_scrub over copies of env. */
static double
median_scrub_us (const struct str_list *env)
{
  enum
  {
    RUNS = 41
  };
  double t[RUNS];

  for (int r = 0; r < RUNS; r++)
    {
      struct str_list copy = { NULL, 0 };
      struct change_list changes = { NULL, 0 };
      double t0;

      for (size_t i = 0; i < env->len; i++)
        str_list_append (&copy, env->items[i]);
      t0 = now_us ();
      env_scrub (&copy, NULL, &policy, &changes);
      t[r] = now_us () - t0;
      change_list_release (&changes);
      str_list_free (&copy);
    }
  qsort (t, RUNS, sizeof (*t), compare_double);
  return t[RUNS / 2];
}

/* Figures, not assertions: scrubbing runs on every create and exec.  The
 * 2000-variable and the hostile 64 KiB value show it stays linear. */
static void
test_timing (void)
{
  struct str_list env = { NULL, 0 }, big = { NULL, 0 }, hostile = { NULL, 0 };
  const char *const units[] = { "a=", "://:@", "-----BEGIN ", "eyJ" };
  size_t bytes = 0;
  double us;
  char *v;

  make_big_env (&env, 200);
  for (size_t i = 0; i < env.len; i++)
    bytes += strlen (env.items[i]);
  us = median_scrub_us (&env);
  printf ("env_scrub: %zu variables (%zu bytes): %.1f us (%.0f ns a variable)\n",
          env.len, bytes, us, us * 1e3 / (double) env.len);
  make_big_env (&big, 2000);
  printf ("env_scrub: %zu variables: %.1f us\n", big.len,
          median_scrub_us (&big));
  for (size_t u = 0; u < sizeof (units) / sizeof (*units); u++)
    {
      size_t len = strlen (units[u]), n = 65536 / len;
      v = malloc (3 + n * len + 1);
      CHECK (v != NULL);
      strcpy (v, "XX=");
      for (size_t i = 0; i < n; i++)
        memcpy (v + 3 + i * len, units[u], len);
      v[3 + n * len] = '\0';
      str_list_append (&hostile, v);
      free (v);
      printf ("env_scrub: one 64 KiB value of \"%s\": %.1f us\n", units[u],
              median_scrub_us (&hostile));
      str_list_free (&hostile);
    }
  str_list_free (&big);
  str_list_free (&env);
}

int
main (void)
{
  policy_init_defaults (&policy);
  RUN_TEST (test_odd_entries);
  RUN_TEST (test_secret_shaped_name);
  RUN_TEST (test_secret_names);
  RUN_TEST (test_secret_values);
  RUN_TEST (test_keep);
  RUN_TEST (test_policy_patterns);
  RUN_TEST (test_env_set);
  RUN_TEST (test_long_name);
  RUN_TEST (test_timing);
  policy_release (&policy);
  return UNIT_EXIT ();
}
