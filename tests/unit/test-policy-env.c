/* Unit tests of environment scrubbing (runtime/policy/env_scrub.h): odd
 * entries first, then the false positives, as hard as the hits. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xalloc.h"
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
      = { "ghp_cccccccccccccccccccccccccccccccccccc=1", "X\nY_TOKEN=v", NULL };
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

static const char *
name_reason (const char *name)
{
  return env_secret_name_reason (name, &policy);
}

/* Checks that judge calls each item a secret (want) or not. */
static void
check_judged (const char *(*judge) (const char *), const char *const *items,
              size_t n, bool want)
{
  for (size_t i = 0; i < n; i++)
    {
      const char *why = judge (items[i]);
      if ((why != NULL) != want)
        fprintf (stderr, "%s: %.80s %s\n",
                 want ? "not judged a secret" : "false positive", items[i],
                 why ? why : "");
      CHECK ((why != NULL) == want);
    }
}

#define CHECK_NAMES(list, want)                                             \
  check_judged (name_reason, list, sizeof (list) / sizeof (*list), want)
#define CHECK_VALUES(list, want)                                            \
  check_judged (env_secret_value_reason, list,                              \
                sizeof (list) / sizeof (*list), want)

/* The hardest first: names one letter or one word away from a secret. */
static void
test_name_lookalikes (void)
{
  static const char *const kept[] = {
    /* the shell's directories, not passwords */
    "PWD", "OLDPWD", "pwd",
    /* programs that ask for a password, and a password file */
    "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "SSH_ASKPASS_REQUIRE",
    "PGPASSFILE", "BYPASS", "COMPASS", "PROXY_BYPASS", "PASSAGE",
    /* KEY alone or in another word, a key's id or path, a public key, a
     * lookup key, git's config protocol (GIT_CONFIG_KEY_<n>) */
    "KEY", "KEY_1", "KEYBOARD", "KEYBOARD_LAYOUT", "MONKEY", "TURKEY",
    "HOTKEY", "HOT_KEY", "KEY_ID", "GPG_KEY_ID", "KMS_KEY_ID", "AWS_KMS_KEY",
    "SSH_KEY_PATH", "SSH_KEY_FILE", "SOPS_AGE_KEY_FILE", "PUBLIC_KEY",
    "SSH_PUBLIC_KEY", "VAPID_PUBLIC_KEY", "STRIPE_PUBLISHABLE_KEY",
    "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY", "PRIMARY_KEY_COLUMN", "SORT_KEY",
    "PARTITION_KEY", "ROUTING_KEY", "CACHE_KEY", "IDEMPOTENCY_KEY",
    "MAX_KEYS", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_COUNT",
    "PYTHON_KEYRING_BACKEND", "KEYSTORE", "KEYSTORE_TYPE",
    /* tokens that are a model's, or counts */
    "TOKENIZERS_PARALLELISM", "MAX_TOKENS", "MAX_NEW_TOKENS", "NUM_TOKENS",
    "TOKEN_LIMIT", "MAX_TOKEN", "PAD_TOKEN", "EOS_TOKEN", "pageToken",
    "TOKEN_TYPE", "AWS_WEB_IDENTITY_TOKEN_FILE", "GITHUB_TOKEN_PATH",
    /* settings of a secret-related feature, and pointers to secrets */
    "WEBHOOK_PORT", "WEBHOOK_TIMEOUT", "WEBHOOK_EVENTS", "SECRET_NAME",
    "SECRETS_DIR", "SECRETS_PROVIDER", "PASSWORD_MIN_LENGTH", "DB_SECRET_ARN",
    "POSTGRES_PASSWORD_FILE", "CONNECTION_STRING_FILE", "CONNECTION_TIMEOUT",
    "SENTRY_DSN_FILE", "SECRETARY", "CREDENTIALS_HELP_URL",
    /* AUTH, SESSION, COOKIE, SALT in their other senses */
    "AUTH", "AUTH_MODE", "ENABLE_AUTH", "SKIP_AUTH", "SMTP_AUTH",
    "OAUTH_CLIENT_ID", "XAUTHORITY", "AUTHORIZATION_ENDPOINT",
    "DESKTOP_SESSION", "XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS",
    "COOKIE_SECURE", "SESSION_COOKIE_NAME", "SALT", "SALT_MASTER",
    "BUNDLE_PATH", "BUNDLE_GEMFILE", "BUNDLE_BUILD__NOKOGIRI",
    "BUNDLE_MIRROR__RUBYGEMS__ORG", "TF_VAR_region", "OP_ACCOUNT",
    "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
  };

  CHECK_NAMES (kept, false);
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
    /* *_PASS, *_PWD, *_PW */
    "DB_PASS", "REDIS_PASS", "RABBITMQ_DEFAULT_PASS", "ANSIBLE_BECOME_PASS",
    "PASS", "db_pass", "dbPass", "MYSQL_PWD", "ORACLE_PWD", "LDAP_BIND_PW",
    "SSHPASS",
    /* *_KEY with a qualifier, KEYS, glued and camelCase forms */
    "STRIPE_KEY", "OPENAI_KEY", "SIGNING_KEY", "ENCRYPTION_KEY",
    "MASTER_KEY", "MEILI_MASTER_KEY", "RAILS_MASTER_KEY", "APP_KEY",
    "LICENSE_KEY", "DEPLOY_KEY", "SSH_KEY", "SSH_HOST_KEY", "GPG_KEY",
    "MAVEN_GPG_KEY", "AZURE_STORAGE_KEY", "COSMOS_PRIMARY_KEY",
    "SUPABASE_SERVICE_ROLE_KEY", "SOPS_AGE_KEY", "WORDPRESS_AUTH_KEY",
    "NONCE_KEY", "TS_AUTHKEY", "MEILI_MASTERKEY",
    "ORG_GRADLE_PROJECT_signingKey",
    "OCI_CLI_KEY_CONTENT", "API_KEYS", "OPENAI_API_KEYS", "apiKey", "xApiKey",
    "APIKey", "secretKey",
    /* trailing tags: which copy or encoding */
    "OPENAI_API_KEY_2", "STRIPE_SECRET_KEY_LIVE", "JWT_SIGNING_KEY_OLD",
    "SIGNING_KEY_BASE64", "FIREBASE_PRIVATE_KEY_BASE64", "GCP_SA_KEY_JSON",
    "GITHUB_TOKEN_2", "DB_PASSWORD_PROD", "API_KEY_V2",
    /* TOKEN glued or camelCase, PAT */
    "SYSTEM_ACCESSTOKEN", "npm_config__authToken", "authToken",
    "GitHubToken", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
    "GITHUB_PAT", "AZURE_DEVOPS_EXT_PAT",
    /* SECRET glued */
    "CLIENTSECRET", "clientSecret", "VAULT_SECRET_ID", "SECRET_KEY_BASE",
    /* connection strings, webhooks, DSNs */
    "AZURE_STORAGE_CONNECTION_STRING", "APPLICATIONINSIGHTS_CONNECTION_STRING",
    "MONGO_CONNECTION_STRING", "DB_CONN_STR", "DB_CONNSTRING",
    "ConnectionStrings__Default", "CONNECTIONSTRINGS__DEFAULT",
    "SQLAZURECONNSTR_MyDb", "CUSTOMCONNSTR_billing", "SLACK_WEBHOOK_URL",
    "DISCORD_WEBHOOK", "WEBHOOK_URL", "TEAMS_WEBHOOK", "SLACKWEBHOOK",
    "ALERTS_WEBHOOK_URL_PROD", "SENTRY_DSN", "DATABASE_DSN", "DSN", "PGDSN",
    /* HTTP credentials, cookies, salts, wallets, keystores, CREDS */
    "HTTP_AUTHORIZATION", "PROXY_AUTHORIZATION", "API_AUTH_HEADER",
    "BASIC_AUTH", "HTTP_BASIC_AUTH", "BEARER_TOKEN", "BEARER",
    "RABBITMQ_ERLANG_COOKIE", "SESSION_COOKIE", "WORDPRESS_AUTH_SALT",
    "DEVISE_PEPPER", "MNEMONIC", "WALLET_MNEMONIC", "SEED_PHRASE",
    "ANDROID_KEYSTORE_BASE64", "SIGNING_CERTIFICATE_P12", "CERT_PFX",
    "GOOGLE_CREDS", "CREDS",
    /* known names and prefixes that no word gives away */
    "REDISCLI_AUTH", "NEO4J_AUTH", "COMPOSER_AUTH", "HATCH_INDEX_AUTH",
    "npm_config__auth", "CONSUL_HTTP_AUTH", "BW_SESSION", "IDENTITY_HEADER",
    "TF_TOKEN_app_terraform_io", "POETRY_PYPI_TOKEN_PYPI", "OP_SESSION_my",
    "AWS_BEARER_TOKEN_BEDROCK", "BUNDLE_GEMS__CONTRIBSYS__COM",
    "bundle_rubygems__pkg__github__com",
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
    "", "_", "CI", "NODE_ENV", "DATABASE_HOST", "DATABASE_NAME",
    "DATABASE_PORT", "DATABASE_URL", "DB_USER", "REDIS_URL", "TZ",
    "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "AZURE_CLIENT_ID",
    "AZURE_TENANT_ID", "TWILIO_ACCOUNT_SID", "SENTRY_ENVIRONMENT",
    "SENTRY_RELEASE", "DOCKER_HOST", "KUBERNETES_SERVICE_HOST", "GPG_TTY",
    "GNUPGHOME", "SSH_AGENT_PID", "KRB5CCNAME", "HF_HOME", "PIP_INDEX_URL",
    "POETRY_VIRTUALENVS_IN_PROJECT", "GOPROXY", "NO_PROXY", "HTTP_PROXY",
  };

  CHECK_NAMES (hits, true);
  CHECK_NAMES (misses, false);
}

/* Values that look like fields, URLs, headers or tokens and are not
 * secrets: the shell's and tools' own variables first. */
static void
test_value_lookalikes (void)
{
  static const char *const kept[] = {
    /* dircolors, make, the JVM, node, OpenTelemetry, D-Bus, git */
    "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:"
    "cd=40;33;01:or=40;31;01:mi=00:su=37;41:sg=30;43:ca=00:tw=30;42:ow=34;42:"
    "st=37;44:ex=01;32:*.tar=01;31:*.tgz=01;31:*.part=00;90:*~=00;90",
    "ms=01;31:mc=01;31:sl=:cx=:fn=35:ln=32:bn=32:se=36",
    "-j4 --jobserver-auth=fifo:/tmp/GMfifo1234", " -j2 --jobserver-auth=3,4",
    "-Xmx2g -Dfile.encoding=UTF-8 -Djavax.net.ssl.trustStore=/etc/ts.jks",
    "--max-old-space-size=4096 --require=./setup.js",
    "service.name=agent,deployment.environment=ci",
    "unix:path=/run/user/1000/bus,guid=0123456789abcdef",
    "postgres://db/app?sslmode=require&application_name=agent",
    "\\u@\\h:\\w\\$ ", "text/html;q=0.9,*/*;q=0.8", "localhost,127.0.0.1,::1",
    "2024-01-01T00:00:00Z", "12:34:56", "name: agent", "a: b",
    /* paths and path lists that hold secret-sounding words */
    "/usr/bin:/opt/secrets:/bin", "/app/secrets_manager:/app/password_utils",
    "/run/secrets/db_password",
    /* fields named like secrets without one: empty, a path, a reference,
     * a placeholder, a switch, or a key that is no secret */
    "password=", "password=;user=x", "password=$DB_PASSWORD",
    "password=${PW}", "Password=<your password>", "password=********",
    "sslkey=/etc/ssl/private/key.pem", "ssl_key=/etc/tls/key.pem",
    "--password-file=/run/secrets/pw", "password_min_length=12",
    "key=value", "api_key_header=X-Api-Key", "secret=true",
    "webhook_enabled=false", "use_password=no", "PWD=/home/agent",
    "token: 0", "{\"password\": \"\"}", "{\"token\": null}", "--auth=none", "{\"secret_name\": \"db\"}",
    "abcdefghKey==", "dGVzdEtleQ==;",
    /* user@ without a password, image digests, action and module refs */
    "https://user@host/repo.git", "https://user:@host/repo.git",
    "docker.io/library/python:3.12@sha256:0123456789abcdef0123456789abcdef",
    "actions/checkout@v4", "golang.org/x/tools@v0.1.0",
    "user@tcp(db:3306)/app", "root:@tcp(db)/app", "@tcp(db)/app",
    "jdbc:oracle:thin:@//db:1521/orcl", "oracle:thin:scott/@db",
    /* webhook hosts without a hook, public keys, certificates */
    "https://hooks.slack.com/", "https://hooks.slack.com/services/",
    "https://discord.com/channels/123/456",
    "https://example.com/api/webhooks/abcdefghijk",
    "pk_live_abcdefghijklmnopqrstuvwx", "sb_publishable_abcdefghijklmnop",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJbOTpvd3IrNuEz5s8qF5tN8e agent@host",
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
    "LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0=",
    "A035C8C19219BA821ECEA86B64E628F8D684696D",
    /* Authorization words in prose, and Basic that is not user:password */
    "Basic mode", "basic settings here", "Bearer of bad news",
    "bearer short", "Basic YWJj", "Basic dXNlcg==",
    /* vendor prefixes as words */
    "pypi-server", "xai-sdk", "key-value-store", "secret_santa",
    "cio-cio-san", "glpat-short", "dapi-client", "fw_version_1",
    "1234567:short", "Mozilla/5.0 (X11; Linux x86_64)",
  };

  CHECK_VALUES (kept, false);
}

/* Fields named like secrets, in the forms connection strings, URLs,
 * command lines, JSON, YAML and INI files give them. */
static void
test_value_fields (void)
{
  static const char *const hits[] = {
    "Server=db;Database=app;User Id=sa;Password=Hunter2!;",
    "jdbc:postgresql://db:5432/app?user=app&password=hunter2",
    "jdbc:sqlserver://db;user=sa;password=x1",
    "host=db user=app password=hunter2 dbname=app",
    "Driver={ODBC Driver 18};Server=x;Uid=sa;Pwd=hunter2;",
    "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=abc123==;"
    "EndpointSuffix=core.windows.net",
    "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;"
    "SharedAccessKey=abc=",
    "https://acct.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig=abc%2Bdef%3D",
   
    "BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022",
   
    "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&X-Amz-Signature=0123abcd",
    "https://api.example.com/v1?api_key=xyz123", "https://x/?token=abc123",
    "https://x/?access_token=abc", "--password=hunter2",
    "--token abc --api-key=x1",
    "-Dspring.datasource.password=hunter2",
    "-Djavax.net.ssl.keyStorePassword=changeit",
    "{\"type\": \"service_account\", \"client_secret\": \"abc\"}",
    "{\"password\":\"x\"}", "{'password': 'x'}", "{\"password\" : \"x\"}",
    "{\"auths\":{\"registry.example\":{\"auth\":\"dXNlcjpwYXNz\"}}}",
    "api-key=xyz123,x-honeycomb-team=abc",
    "Authorization=Basic%20dXNlcjpwYXNz",
    "token: abc123", "users:\n- name: ci\n  user:\n    token: abc123\n",
    "client-key-data: QUJDREVGRw==", "[auth]\npassword = hunter2\n",
    "_auth=dXNlcjpwYXNz", "pass=hunter2", "db_pw=hunter2",
    "ORG_GRADLE_PROJECT_signingKey=abc", "AWS_SECRET_ACCESS_KEY=abc/def",
    "X-Api-Key: abc123", "Authorization: token abc123",
  };

  CHECK_VALUES (hits, true);
}

/* Credentials in URLs, connection strings, Authorization headers, webhook
 * URLs, and private keys wrapped in base64. */
static void
test_value_credentials (void)
{
  static const char *const hits[] = {
    "mongodb+srv://u:p@cluster0.example.mongodb.net/app",
    "amqp://guest:guest@rabbit:5672/", "https://user:tok@pypi.example/simple",
    "ftp://a:b@h", "redis://default:pw@h:6379",
    "postgres://app:hunter2@db/app",
    "app:hunter2@tcp(db:3306)/app?parseTime=true",
    "root:pw@unix(/var/run/mysqld/mysqld.sock)/db",
    "DSN=app:hunter2@tcp(db)/app",
    "jdbc:oracle:thin:scott/tiger@//db:1521/orcl",
    "jdbc:oracle:thin:scott/tiger@db:1521:orcl",
    "Authorization: Basic dXNlcjpwYXNz", "Basic dXNlcjpwYXNzd29yZA==",
    "BASIC eC1hY2Nlc3MtdG9rZW46YWJj",
    "http.extraheader=AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46YWJj",
    "Bearer abcdefghijklmnop0123", "bearer abc.def-ghi_jkl~mno+p/q=",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXX",
    "https://hooks.slack.com/workflows/T0000/A0000/123/abcdefgh",
    "https://discord.com/api/webhooks/123456789012345678/abcdefghijkl",
    "https://ptb.discord.com/api/webhooks/1/abcdefghij",
    "https://discordapp.com/api/webhooks/1/abcdefghij",
   
    "https://acme.webhook.office.com/webhookb2/abc-def@ghi/IncomingWebhook/x/y",
    "https://outlook.office.com/webhook/abc-def/IncomingWebhook/x",
    "https://hooks.zapier.com/hooks/catch/123/abcdef/",
    "url=HTTPS://HOOKS.SLACK.COM:443/services/T0/B0/XXXXXXXXXXXX",
    "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ==",
    "LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZLS0tLS0KYjNCbGJu",
    "key: LS0tLS1CRUdJTiBQR1AgUFJJVkFURSBLRVkgQkxPQ0stLS0tLQo=",
    "PuTTY-User-Key-File-3: ssh-ed25519",
    /* Entra client secret, Telegram and Discord bot tokens, SendGrid,
     * Terraform Cloud */
    "abc8Q~abcdefghijklmnopqrstuvwxyz01234",
    "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw8",
    "MTIzNDU2Nzg5MDEyMzQ1Njc4OTA.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789",
    "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
    /* one token, written whole: clang warns about adjacent literals in a
     * list (a missing comma) */
    "abcdefghijklmn.atlasv1.abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123",
  };

  CHECK_VALUES (hits, true);
}

/* Every vendor prefix: a token of it counts, a short one or one inside
 * another token does not. */
static void
test_vendor_prefixes (void)
{
  static const char *const prefixes[] = {
    "AIza", "ABSK", "AKCp", "AGE-SECRET-KEY-1", "ATATT3", "EAA", "GR1348941",
    "GOCSPX-", "HRKU-", "NRAK-", "PMAK-", "PuTTY-User-Key-File-", "api_org_",
    "access_token$", "bedrock-api-key-", "csk-", "cio", "cmVmdGtu", "dop_v1_",
    "doo_v1_", "dor_v1_", "dapi", "dckr_pat_", "dckr_oat_", "dp.pt.",
    "dp.st.", "dp.ct.", "dp.sa.", "fw_", "fm1a_", "fm1r_", "fm2_", "figd_",
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-",
    "glrt-", "glcbt-", "glptt-", "gloas-", "glsoat-", "glffct-", "glimt-",
    "glagent-", "glft-", "gsk_", "glc_", "glsa_", "hf_", "hvs.", "hvb.",
    "hvr.", "key-", "lsv2_pt_", "lsv2_sk_", "lin_api_", "lin_oauth_",
    "nvapi-", "nfp_", "npm_", "ntn_", "oy2", "ops_", "pplx-", "pcsk_",
    "pypi-", "rk_live_", "rk_test_", "r8_", "rubygems_", "sk_live_",
    "sk_test_", "sk-", "sbp_", "sb_secret_", "shpat_", "shpca_", "shppa_",
    "shpss_", "sntrys_", "sntryu_", "secret_", "sq0atp-", "sq0csp-", "sk.eyJ",
    "tvly-", "tskey-", "whsec_", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-",
    "xoxe-", "xapp-", "xai-", "ya29.",
  };
  char body[103], buf[256];

  for (size_t i = 0; i < 102; i++)
    body[i] = "Ab1"[i % 3];
  body[102] = '\0';
  for (size_t i = 0; i < sizeof (prefixes) / sizeof (*prefixes); i++)
    {
      const char *const before[] = { "", "k=", "Token " };
      for (size_t c = 0; c < 3; c++)
        {
          snprintf (buf, sizeof (buf), "%s%s%s;", before[c], prefixes[i],
                    body);
          if (env_secret_value_reason (buf) == NULL)
            fprintf (stderr, "prefix not found: %s\n", prefixes[i]);
          CHECK (env_secret_value_reason (buf) != NULL);
        }
      snprintf (buf, sizeof (buf), "x%s%s", prefixes[i], body);
      if (env_secret_value_reason (buf))
        fprintf (stderr, "prefix inside a token: %s\n", prefixes[i]);
      CHECK (env_secret_value_reason (buf) == NULL);
      snprintf (buf, sizeof (buf), "%sAb", prefixes[i]);
      if (strcmp (prefixes[i], "PuTTY-User-Key-File-") != 0)
        CHECK (env_secret_value_reason (buf) == NULL);
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

  CHECK_VALUES (hits, true);
  CHECK_VALUES (misses, false);
}

/* A switch (true, 0, yes...) holds no secret, whatever the built-in
 * rules say of its name; an empty value, a name that cannot be judged and
 * the admin's patterns still count. */
static void
test_switch_values (void)
{
  const char *const entries[] = {
    "MYSQL_ALLOW_EMPTY_PASSWORD=yes", "MYSQL_RANDOM_ROOT_PASSWORD=1",
    "ALLOW_EMPTY_PASSWORD=Yes", "ENABLE_WEBHOOK=true", "SECRETS_ENABLED=FALSE",
    "USE_BEARER=off", "DB_PASSWORD=0", "API_TOKEN=None",
    "DB_PASSWORD=yes-really", "GITHUB_TOKEN=", "API_KEY= true",
    "ACME_DEBUG=1", "TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345",
    NULL,
  };
  struct str_list env = make_env (entries);
  struct change_list changes = { NULL, 0 };
  struct agent_policy p;
  char name[600];
  char *entry;

  memset (name, 'A', sizeof (name) - 1);
  name[sizeof (name) - 1] = '\0';
  entry = xasprintf ("%s=1", name);
  str_list_append (&env, entry);
  free (entry);
  policy_init_defaults (&p);
  str_list_append (&p.extra_secret_env, "ACME_*");
  env_scrub (&env, NULL, &p, &changes);
  CHECK (env.len == 8);
  for (size_t i = 0; i < 8; i++)
    CHECK (has_entry (&env, entries[i]));
  CHECK (changes.len == 6);
  policy_release (&p);
  change_list_release (&changes);
  str_list_free (&env);
}

/* An agent's environment as engines and CI hand it over: exactly the
 * secrets go, everything a program needs stays. */
static void
test_agent_env (void)
{
  static const char *const kept[] = {
    "PATH=/usr/local/bin:/usr/bin:/bin", "PWD=/work", "OLDPWD=/",
    "HOME=/root", "LANG=C.UTF-8", "TERM=xterm", "CI=true",
    "NODE_ENV=production", "DATABASE_HOST=db",
    "DATABASE_URL=postgres://db/app",
    "GPG_KEY_ID=0x0123456789ABCDEF", "SSH_KEY_PATH=/keys/id_ed25519",
    "KEYBOARD_LAYOUT=us", "GIT_ASKPASS=/usr/bin/askpass",
    "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader",
    "MAKEFLAGS=-j4 --jobserver-auth=fifo:/tmp/GMfifo1",
    "JAVA_TOOL_OPTIONS=-Xmx2g", "MYSQL_ALLOW_EMPTY_PASSWORD=yes",
    "WEBHOOK_PORT=8080", "MAX_TOKENS=4096", "SENTRY_ENVIRONMENT=ci",
    "STRIPE_PUBLISHABLE_KEY=pk_live_abcdefghijklmnopqrstuvwx",
    NULL,
  };
  static const char *const removed[] = {
    "DB_PASS=hunter2", "MYSQL_PWD=hunter2", "STRIPE_KEY=abc",
    "SIGNING_KEY=abc", "AZURE_STORAGE_CONNECTION_STRING=abc",
    "SLACK_WEBHOOK=abc", "SENTRY_DSN=https://abc@o1.ingest.sentry.io/1",
    "GIT_CONFIG_VALUE_0=Authorization: Bearer abcdefghijklmnop0123",
    "NOTES=https://app:hunter2@db/app", "SETTINGS=Server=db;Password=x;",
    "SAS_URL=https://a.blob.core.windows.net/c?sv=1&sig=abc",
    "HOOK=https://hooks.slack.com/services/T0/B0/XXXXXXXXXXXX",
    "ENV_FILE=AccountKey=abc", "K=sk_live_abcdefghijklmnopqrstuvwx",
    "GL=glpat-abcdefghijklmnopqrst", "V=hvs.CAESIabcdefghijklmnopqrstuvwxyz",
    NULL,
  };
  struct str_list env = { NULL, 0 };
  struct change_list changes = { NULL, 0 };
  size_t n_kept = 0, n_removed = 0;

  for (; kept[n_kept]; n_kept++)
    str_list_append (&env, kept[n_kept]);
  for (; removed[n_removed]; n_removed++)
    str_list_append (&env, removed[n_removed]);
  env_scrub (&env, NULL, &policy, &changes);
  for (size_t i = 0; i < n_kept; i++)
    {
      if (!has_entry (&env, kept[i]))
        fprintf (stderr, "removed: %s\n", kept[i]);
      CHECK (has_entry (&env, kept[i]));
    }
  CHECK (env.len == n_kept);
  CHECK (changes.len == n_removed);
  for (size_t i = 0; i < changes.len; i++)
    {
      CHECK (changes.items[i].kind == CHANGE_ENV_REMOVED);
      CHECK (strchr (changes.items[i].what, '=') == NULL);
    }
  check_no_value_leak (&changes, "hunter2");
  check_no_value_leak (&changes, "abc");
  change_list_release (&changes);
  str_list_free (&env);
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
  str_list_append (&p.extra_secret_env, "*_LOGIN");
  str_list_append (&p.extra_secret_env, "ACME_*");
  CHECK (env_secret_name_reason ("db_login", &p) != NULL);
  CHECK (env_secret_name_reason ("acme_region", &p) != NULL);
  CHECK (env_secret_name_reason ("LOGINS", &p) == NULL);
  CHECK (env_secret_name_reason ("db_login", NULL) == NULL);
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
  printf ("env_scrub: %zu variables (%zu bytes): %.1f us"
          " (%.0f ns a variable)\n",
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
  RUN_TEST (test_name_lookalikes);
  RUN_TEST (test_secret_names);
  RUN_TEST (test_value_lookalikes);
  RUN_TEST (test_value_fields);
  RUN_TEST (test_value_credentials);
  RUN_TEST (test_vendor_prefixes);
  RUN_TEST (test_secret_values);
  RUN_TEST (test_switch_values);
  RUN_TEST (test_agent_env);
  RUN_TEST (test_keep);
  RUN_TEST (test_policy_patterns);
  RUN_TEST (test_env_set);
  RUN_TEST (test_long_name);
  RUN_TEST (test_timing);
  policy_release (&policy);
  return UNIT_EXIT ();
}
