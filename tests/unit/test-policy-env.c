/* Unit tests of environment scrubbing (runtime/policy/env_scrub.h): odd
 * entries first, then the false positives, as hard as the hits. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

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
  policy_release (&policy);
  return UNIT_EXIT ();
}
