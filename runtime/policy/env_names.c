/* Secret-looking names (env_names.h).  A name is split into words, at
 * every byte that is not a letter or digit and where camelCase turns to
 * upper case (apiKey, AccountKey, PGPassword); trailing tags that only say
 * which copy or encoding it is (_2, _V2, _BASE64, _PROD, _OLD) are dropped;
 * a name whose last word says where a secret is (_FILE, _PATH, _DIR) or
 * how one is used (_PORT, _TIMEOUT, _NAME...) is not one; then the word
 * rules below.  Exact names and prefixes that no word rule could tell come
 * first.  docs/policy.md (Environment) shows the same rules as a table. */
#include "config.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "env_names.h"

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))
#define MAX_NAME 255
#define MAX_WORDS 32

/* A word and its length. */
struct word
{
  const char *s;
  size_t len;
};

#define W(s)                                                                  \
  {                                                                           \
    s, sizeof (s) - 1                                                         \
  }
#define NO_WORD                                                               \
  {                                                                           \
    NULL, 0                                                                   \
  }

const char env_name_unjudged[] = "name too long or too many words to judge";

/* Variables that are credentials whatever their words say. */
static const struct word secret_names[] = {
  W ("SSH_AUTH_SOCK"), W ("KUBECONFIG"), W ("DOCKER_AUTH_CONFIG"),
  W ("GOOGLE_APPLICATION_CREDENTIALS"), W ("AWS_ACCESS_KEY_ID"),
  W ("AWS_SECRET_ACCESS_KEY"), W ("AWS_SESSION_TOKEN"),
  W ("AWS_SECURITY_TOKEN"), W ("AWS_CONTAINER_CREDENTIALS_FULL_URI"),
  W ("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"),
  W ("AWS_CONTAINER_AUTHORIZATION_TOKEN"), W ("GITHUB_TOKEN"), W ("GH_TOKEN"),
  W ("NPM_TOKEN"), W ("OPENAI_API_KEY"), W ("ANTHROPIC_API_KEY"),
  W ("VAULT_TOKEN"),
  /* a password or token under a name that says AUTH, SESSION, HEADER */
  W ("SSHPASS"),          /* sshpass -e */
  W ("REDISCLI_AUTH"),    /* redis-cli */
  W ("NEO4J_AUTH"),       /* neo4j image: user/password */
  W ("COMPOSER_AUTH"),    /* Composer: JSON of tokens */
  W ("HATCH_INDEX_AUTH"), /* Hatch: the index password */
  W ("NPM_CONFIG__AUTH"), /* npm's _auth: base64 user:password */
  W ("CONSUL_HTTP_AUTH"), /* user:password */
  W ("BW_SESSION"),       /* Bitwarden CLI session key */
  W ("IDENTITY_HEADER"),  /* Azure managed identity's token-endpoint secret */
};

/* Prefixes of credential variables whose rest names a host, a repository
 * or an account, so that no word rule sees a secret word last. */
static const struct word secret_prefixes[] = {
  W ("TF_TOKEN_"),          /* Terraform: TF_TOKEN_app_terraform_io */
  W ("POETRY_PYPI_TOKEN_"), /* Poetry: POETRY_PYPI_TOKEN_<repository> */
  W ("OP_SESSION_"),        /* 1Password CLI: OP_SESSION_<account> */
  W ("AWS_BEARER_TOKEN_"),  /* AWS_BEARER_TOKEN_BEDROCK */
};

/* Bundler's options with "__" that are not a gem host's credentials. */
static const struct word bundler_options[] = {
  W ("BUNDLE_BUILD__"),
  W ("BUNDLE_MIRROR__"),
  W ("BUNDLE_LOCAL__"),
};

/* Trailing words that say which copy or encoding of a secret a name holds:
 * OPENAI_API_KEY_2, SIGNING_KEY_BASE64, STRIPE_KEY_LIVE, JWT_KEY_OLD.
 * All-digit words and V<digits> are tags too. */
static const struct word trailing_tags[] = {
  W ("BASE64"),   W ("B64"),       W ("PEM"),         W ("DER"),
  W ("JSON"),     W ("HEX"),       W ("RAW"),         W ("ENCODED"),
  W ("VALUE"),    W ("DATA"),      W ("CONTENT"),     W ("CONTENTS"),
  W ("MATERIAL"), W ("PROD"),      W ("PRODUCTION"),  W ("STAGING"),
  W ("STAGE"),    W ("DEV"),       W ("DEVELOPMENT"), W ("TEST"),
  W ("TESTING"),  W ("LIVE"),      W ("SANDBOX"),     W ("LOCAL"),
  W ("OLD"),      W ("NEW"),       W ("PREV"),        W ("PREVIOUS"),
  W ("NEXT"),     W ("CURRENT"),   W ("BACKUP"),      W ("FALLBACK"),
  W ("PRIMARY"),  W ("SECONDARY"), W ("ALT"),
};

/* Last words of names that point at a secret or set how one is used:
 * POSTGRES_PASSWORD_FILE, SECRETS_DIR, DB_SECRET_ARN (AWS Secrets
 * Manager's name of it), WEBHOOK_PORT, PASSWORD_MIN_LENGTH, SECRET_NAME. */
static const struct word not_secret_last[] = {
  W ("FILE"),     W ("FILES"),     W ("FILENAME"), W ("PATH"),
  W ("DIR"),      W ("DIRECTORY"), W ("ARN"),      W ("PORT"),
  W ("HOST"),     W ("TIMEOUT"),   W ("TTL"),      W ("LENGTH"),
  W ("MIN"),      W ("MAX"),       W ("EVENTS"),   W ("RETRIES"),
  W ("MODE"),     W ("METHOD"),    W ("FORMAT"),   W ("ALGORITHM"),
  W ("TYPE"),     W ("VERSION"),   W ("NAME"),     W ("POLICY"),
  W ("PROVIDER"), W ("BACKEND"),   W ("ENABLED"),  W ("DISABLED"),
};

/* Words before TOKEN and KEY that make them something else: a model's
 * special tokens and token counts; public keys, lookup keys, settings. */
static const struct word token_lookalikes[]
    = { W ("EOS"),  W ("BOS"), W ("PAD"), W ("UNK"), W ("SEP"),  W ("CLS"),
        W ("MASK"), W ("MAX"), W ("MIN"), W ("NUM"), W ("PAGE"), NO_WORD };
static const struct word key_lookalikes[]
    = { W ("PUBLIC"), W ("PUB"),       W ("PUBLISHABLE"),
        W ("SORT"),   W ("PARTITION"), W ("ROUTING"),
        W ("CACHE"),  W ("FOREIGN"),   W ("IDEMPOTENCY"),
        W ("HOT"),    W ("SHORTCUT"),  W ("CONFIG"),
        W ("KMS"),    W ("MAX"),       W ("MIN"),
        W ("NUM"),    NO_WORD };

enum word_test
{
  LAST,           /* the last word is a */
  LAST_QUALIFIED, /* the last word is a, after at least one other */
  LAST_ENDS,      /* the last word ends in a */
  PAIR_LAST,      /* the last two words are a b */
  ANY,            /* some word is a */
  ANY_ENDS,       /* some word ends in a */
  ANY_SUBSTR,     /* some word contains a */
  PAIR_ANY,       /* some two words in a row are a b */
};

struct word_rule
{
  enum word_test test;
  struct word a, b;
  const struct word *not_after; /* for LAST*: qualifiers that unmake it */
  const char *why;
};

#define R_TOKEN "name matches *_TOKEN"
#define R_SECRET "name matches *SECRET*"
#define R_PASSWORD "name matches *PASSWORD*"
#define R_PASS "name matches *_PASS, *_PWD"
#define R_API_KEY "name matches *_API_KEY"
#define R_ACCESS_KEY "name matches *_ACCESS_KEY*"
#define R_PRIVATE_KEY "name matches *_PRIVATE_KEY*"
#define R_KEY "name matches *_KEY (a key with a qualifier)"
#define R_CREDENTIALS "name matches *_CREDENTIALS"
#define R_CONNECTION "name matches *CONNECTION_STRING"
#define R_HTTP "name matches an HTTP credential (*_AUTHORIZATION, *BEARER*)"
#define R_PHRASE "name matches *MNEMONIC*, *_SEED_PHRASE"
#define R_KEYSTORE "name matches *_KEYSTORE, *_P12, *_PFX"

static const struct word_rule word_rules[] = {
  { LAST_ENDS, W ("TOKEN"), NO_WORD, token_lookalikes, R_TOKEN },
  { LAST_QUALIFIED, W ("PAT"), NO_WORD, NULL, "name matches *_PAT" },
  { ANY_ENDS, W ("SECRET"), NO_WORD, NULL, R_SECRET },
  { ANY_ENDS, W ("SECRETS"), NO_WORD, NULL, R_SECRET },
  { ANY_SUBSTR, W ("SECRETKEY"), NO_WORD, NULL, R_SECRET },
  { ANY_SUBSTR, W ("PASSWORD"), NO_WORD, NULL, R_PASSWORD },
  { ANY_SUBSTR, W ("PASSWD"), NO_WORD, NULL, R_PASSWORD },
  { ANY_SUBSTR, W ("PASSPHRASE"), NO_WORD, NULL, R_PASSWORD },
  { LAST, W ("PASS"), NO_WORD, NULL, R_PASS },
  { LAST_QUALIFIED, W ("PWD"), NO_WORD, NULL, R_PASS },
  { LAST_QUALIFIED, W ("PW"), NO_WORD, NULL, R_PASS },
  { PAIR_LAST, W ("API"), W ("KEY"), NULL, R_API_KEY },
  { PAIR_LAST, W ("API"), W ("KEYS"), NULL, R_API_KEY },
  { LAST_ENDS, W ("APIKEY"), NO_WORD, NULL, R_API_KEY },
  { LAST_ENDS, W ("APIKEYS"), NO_WORD, NULL, R_API_KEY },
  { PAIR_ANY, W ("ACCESS"), W ("KEY"), NULL, R_ACCESS_KEY },
  { ANY, W ("ACCESSKEY"), NO_WORD, NULL, R_ACCESS_KEY },
  { PAIR_ANY, W ("PRIVATE"), W ("KEY"), NULL, R_PRIVATE_KEY },
  { ANY_SUBSTR, W ("PRIVATEKEY"), NO_WORD, NULL, R_PRIVATE_KEY },
  { ANY, W ("PRIVKEY"), NO_WORD, NULL, R_PRIVATE_KEY },
  { LAST_QUALIFIED, W ("KEY"), NO_WORD, key_lookalikes, R_KEY },
  { LAST_QUALIFIED, W ("KEYS"), NO_WORD, key_lookalikes, R_KEY },
  { LAST_ENDS, W ("AUTHKEY"), NO_WORD, NULL, R_KEY },
  { LAST_ENDS, W ("MASTERKEY"), NO_WORD, NULL, R_KEY },
  { LAST_ENDS, W ("SIGNINGKEY"), NO_WORD, NULL, R_KEY },
  { LAST_ENDS, W ("ENCRYPTIONKEY"), NO_WORD, NULL, R_KEY },
  { LAST_ENDS, W ("CREDENTIALS"), NO_WORD, NULL, R_CREDENTIALS },
  { LAST_ENDS, W ("CREDENTIAL"), NO_WORD, NULL, R_CREDENTIALS },
  { LAST, W ("CREDS"), NO_WORD, NULL, R_CREDENTIALS },
  { PAIR_LAST, W ("CONNECTION"), W ("STRING"), NULL, R_CONNECTION },
  { PAIR_LAST, W ("CONNECTION"), W ("STR"), NULL, R_CONNECTION },
  { PAIR_LAST, W ("CONN"), W ("STRING"), NULL, R_CONNECTION },
  { PAIR_LAST, W ("CONN"), W ("STR"), NULL, R_CONNECTION },
  { LAST_ENDS, W ("CONNECTIONSTRING"), NO_WORD, NULL, R_CONNECTION },
  { ANY_ENDS, W ("CONNSTRING"), NO_WORD, NULL, R_CONNECTION },
  /* Azure App Service: SQLAZURECONNSTR_<name>, CUSTOMCONNSTR_<name>... */
  { ANY_ENDS, W ("CONNSTR"), NO_WORD, NULL, R_CONNECTION },
  { PAIR_ANY, W ("CONNECTION"), W ("STRINGS"), NULL, R_CONNECTION }, /* .NET */
  { ANY, W ("CONNECTIONSTRINGS"), NO_WORD, NULL, R_CONNECTION },
  { ANY_SUBSTR, W ("WEBHOOK"), NO_WORD, NULL, "name matches *WEBHOOK*" },
  { LAST_ENDS, W ("DSN"), NO_WORD, NULL, "name matches *DSN" },
  { LAST_ENDS, W ("AUTHORIZATION"), NO_WORD, NULL, R_HTTP },
  { PAIR_LAST, W ("AUTH"), W ("HEADER"), NULL, R_HTTP },
  { PAIR_LAST, W ("AUTHORIZATION"), W ("HEADER"), NULL, R_HTTP },
  { PAIR_LAST, W ("BASIC"), W ("AUTH"), NULL, R_HTTP },
  { ANY, W ("BEARER"), NO_WORD, NULL, R_HTTP },
  { LAST, W ("COOKIE"), NO_WORD, NULL, "name matches *_COOKIE" },
  { LAST, W ("COOKIES"), NO_WORD, NULL, "name matches *_COOKIE" },
  { LAST_QUALIFIED, W ("SALT"), NO_WORD, NULL,
    "name matches *_SALT, *_PEPPER" },
  { LAST_QUALIFIED, W ("PEPPER"), NO_WORD, NULL,
    "name matches *_SALT, *_PEPPER" },
  { ANY, W ("MNEMONIC"), NO_WORD, NULL, R_PHRASE },
  { PAIR_LAST, W ("SEED"), W ("PHRASE"), NULL, R_PHRASE },
  { PAIR_LAST, W ("RECOVERY"), W ("PHRASE"), NULL, R_PHRASE },
  { LAST_QUALIFIED, W ("KEYSTORE"), NO_WORD, NULL, R_KEYSTORE },
  { LAST_QUALIFIED, W ("P12"), NO_WORD, NULL, R_KEYSTORE },
  { LAST_QUALIFIED, W ("PFX"), NO_WORD, NULL, R_KEYSTORE },
  { LAST_QUALIFIED, W ("JKS"), NO_WORD, NULL, R_KEYSTORE },
};

/* In a field of a value, these are passwords and signatures too, bare or
 * not: ODBC's PWD=, pass=, SAS sig=, SharedAccessSignature=,
 * X-Amz-Signature=, npm's _auth=. */
static const struct word_rule field_rules[] = {
  { LAST, W ("PWD"), NO_WORD, NULL, R_PASS },
  { LAST, W ("PW"), NO_WORD, NULL, R_PASS },
  { LAST, W ("SIG"), NO_WORD, NULL, "a signature" },
  { LAST_ENDS, W ("SIGNATURE"), NO_WORD, NULL, "a signature" },
};

/* The upper-cased words of a name, without its trailing tags. */
struct words
{
  char buf[2 * MAX_NAME + 2];
  struct word w[MAX_WORDS];
  size_t n;
};

/* Whether name[i], a letter or digit, starts a word: after a byte that is
 * not one, or where camelCase turns to upper case (aB, ABc: A|Bc). */
static bool
starts_word (const char *name, size_t i, size_t len, bool in_word)
{
  unsigned char c = (unsigned char) name[i], prev, next;

  if (!in_word)
    return true;
  if (!isupper (c))
    return false;
  prev = (unsigned char) name[i - 1];
  next = i + 1 < len ? (unsigned char) name[i + 1] : '\0';
  return islower (prev) || (isupper (prev) && islower (next));
}

static bool
split_words (const char *name, size_t len, struct words *ws)
{
  char *out = ws->buf;
  struct word *cur = NULL;

  if (len > MAX_NAME)
    return false;
  ws->n = 0;
  for (size_t i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char) name[i];
      if (!isalnum (c))
        {
          if (cur)
            *out++ = '\0';
          cur = NULL;
          continue;
        }
      if (starts_word (name, i, len, cur != NULL))
        {
          if (cur)
            *out++ = '\0';
          if (ws->n == MAX_WORDS)
            return false;
          cur = &ws->w[ws->n++];
          *cur = (struct word){ out, 0 };
        }
      *out++ = (char) toupper (c);
      cur->len++;
    }
  *out = '\0';
  return true;
}

static bool
same (const struct word *w, const struct word *want)
{
  return w->len == want->len && memcmp (w->s, want->s, w->len) == 0;
}

static bool
ends_with (const struct word *w, const struct word *suffix)
{
  return w->len >= suffix->len
         && memcmp (w->s + w->len - suffix->len, suffix->s, suffix->len) == 0;
}

static bool
in_array (const struct word *w, const struct word *list, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (same (w, &list[i]))
      return true;
  return false;
}

/* In a list ending with NO_WORD. */
static bool
in_list (const struct word *w, const struct word *list)
{
  for (; list && list->s; list++)
    if (same (w, list))
      return true;
  return false;
}

static bool
is_trailing_tag (const struct word *w)
{
  size_t d = w->s[0] == 'V' && w->len > 1 ? 1 : 0;

  while (d < w->len && isdigit ((unsigned char) w->s[d]))
    d++;
  return d == w->len
         || in_array (w, trailing_tags, N_ELEMENTS (trailing_tags));
}

static bool
word_test (enum word_test test, const struct word *w, const struct word *a)
{
  switch (test)
    {
    case ANY_ENDS:
      return ends_with (w, a);
    case ANY_SUBSTR:
      return w->len >= a->len && memmem (w->s, w->len, a->s, a->len);
    default:
      return same (w, a);
    }
}

static inline bool
rule_matches (const struct word_rule *r, const struct words *ws)
{
  size_t n = ws->n;
  const struct word *lw = &ws->w[n - 1];

  switch (r->test)
    {
    case LAST:
      return same (lw, &r->a);
    case LAST_QUALIFIED:
      if (n < 2 || !same (lw, &r->a))
        return false;
      break;
    case LAST_ENDS:
      if (!ends_with (lw, &r->a))
        return false;
      break;
    case PAIR_LAST:
      return n >= 2 && same (lw, &r->b) && same (lw - 1, &r->a);
    case PAIR_ANY:
      for (size_t i = 0; i + 1 < n; i++)
        if (same (&ws->w[i], &r->a) && same (&ws->w[i + 1], &r->b))
          return true;
      return false;
    default:
      for (size_t i = 0; i < n; i++)
        if (word_test (r->test, &ws->w[i], &r->a))
          return true;
      return false;
    }
  return n < 2 || !in_list (lw - 1, r->not_after);
}

/* The first rule that matches; a rule whose word is longer than every
 * word of the name cannot. */
static const char *
first_rule (const struct word_rule *rules, size_t n, const struct words *ws)
{
  size_t longest = 0;

  for (size_t i = 0; i < ws->n; i++)
    if (ws->w[i].len > longest)
      longest = ws->w[i].len;
  for (size_t i = 0; i < n; i++)
    if (rules[i].a.len <= longest && rule_matches (&rules[i], ws))
      return rules[i].why;
  return NULL;
}

static bool
has_prefix (const char *name, size_t len, const struct word *prefix)
{
  return len > prefix->len && strncasecmp (name, prefix->s, prefix->len) == 0;
}

/* BUNDLE_<host with "__" for ".">: Bundler's credentials for a gem source
 * (BUNDLE_GEMS__CONTRIBSYS__COM=user:password). */
static bool
is_bundler_credential (const char *name, size_t len)
{
  static const struct word bundle = W ("BUNDLE_");

  if (!has_prefix (name, len, &bundle)
      || memmem (name + bundle.len, len - bundle.len, "__", 2) == NULL)
    return false;
  for (size_t i = 0; i < N_ELEMENTS (bundler_options); i++)
    if (has_prefix (name, len, &bundler_options[i]))
      return false;
  return true;
}

static const char *
exact_reason (const char *name, size_t len)
{
  for (size_t i = 0; i < N_ELEMENTS (secret_names); i++)
    if (secret_names[i].len == len
        && strncasecmp (name, secret_names[i].s, len) == 0)
      return "known credential variable";
  for (size_t i = 0; i < N_ELEMENTS (secret_prefixes); i++)
    if (has_prefix (name, len, &secret_prefixes[i]))
      return "name matches a credential prefix (TF_TOKEN_*, OP_SESSION_*...)";
  if (is_bundler_credential (name, len))
    return "name matches Bundler's credentials for a gem host (BUNDLE_*__*)";
  return NULL;
}

const char *
env_name_reason (const char *name, size_t len, enum env_name_kind kind)
{
  static const struct word auth = W ("AUTH");
  struct words ws;
  const char *why = exact_reason (name, len);

  if (why)
    return why;
  if (!split_words (name, len, &ws))
    return kind == ENV_NAME_VARIABLE ? env_name_unjudged : NULL;
  while (ws.n > 1 && is_trailing_tag (&ws.w[ws.n - 1]))
    ws.n--;
  if (ws.n == 0
      || in_array (&ws.w[ws.n - 1], not_secret_last,
                   N_ELEMENTS (not_secret_last)))
    return NULL;
  if (kind == ENV_NAME_FIELD)
    {
      if (ws.n == 1 && same (&ws.w[0], &auth))
        return "a credential";
      why = first_rule (field_rules, N_ELEMENTS (field_rules), &ws);
      if (why)
        return why;
    }
  return first_rule (word_rules, N_ELEMENTS (word_rules), &ws);
}

bool
env_is_switch_value (const char *value, size_t len)
{
  static const struct word switches[]
      = { W ("true"),    W ("false"),    W ("yes"),  W ("no"),
          W ("on"),      W ("off"),      W ("0"),    W ("1"),
          W ("enabled"), W ("disabled"), W ("none"), W ("null") };

  for (size_t i = 0; i < N_ELEMENTS (switches); i++)
    if (switches[i].len == len && strncasecmp (value, switches[i].s, len) == 0)
      return true;
  return false;
}
