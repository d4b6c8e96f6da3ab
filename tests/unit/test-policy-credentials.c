/* Unit tests of injected credentials on the policy side
 * (runtime/policy/credentials.h, credentials.inject in the policy file,
 * run.agentrt.credentials, the stand-ins harden sets): hostile
 * declarations and selections first. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "oci/json_writer.h"
#include "oci/policy_file.h"
#include "runtime/policy/credentials.h"
#include "runtime/policy/env_scrub.h"
#include "runtime/policy/harden.h"
#include "policy-fakehost.h"
#include "unit.h"

static const char *const good_hosts[] = { "api.github.com", "github.com", NULL };

static void
decl (struct credential_decl *d, const char *name, const char *source,
      const char *const *hosts)
{
  memset (d, 0, sizeof (*d));
  d->name = xstrdup (name);
  d->source = xstrdup (source);
  for (size_t i = 0; hosts[i]; i++)
    str_list_append (&d->hosts, hosts[i]);
}

static void
expect_decl_error (struct credential_decl *d, const char *needle)
{
  agentrt_error_t err = NULL;

  CHECK (credential_decl_check (d, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, needle);
  agentrt_error_release (&err);
  credential_decl_release (d);
}

static void
test_hosts_hostile (void)
{
  static const struct
  {
    const char *host, *why;
  } bad[] = {
    { "*", "wildcard" },
    { "*.github.com", "wildcard" },
    { "api.*.com", "wildcard" },
    { "com", "single label" },
    { "localhost", "single label" },
    { "1.2.3.4", "an address" },
    { "::1", "expected a host name" },
    { "[::1]", "expected a host name" },
    { "api.github.com:443", "no port" },
    { "API.github.com", "lower case" },
    { "api..github.com", "empty label" },
    { ".github.com", "empty label" },
    { "github.com.", "empty label" },
    { "-a.github.com", "starting with '-'" },
    { "a-.github.com", "ending with '-'" },
    { "git hub.com", "expected a host name" },
    { "github.com\r\nX: y", "expected a host name" },
    { "", "1 to 253" },
  };
  char big[300];

  for (size_t i = 0; i < sizeof (bad) / sizeof (*bad); i++)
    {
      const char *why = credential_host_problem (bad[i].host);
      if (why == NULL)
        fprintf (stderr, "accepted host `%s`\n", bad[i].host);
      CHECK_CONTAINS (why, bad[i].why);
    }
  memset (big, 'a', sizeof big);
  big[70] = '.';
  big[sizeof big - 1] = '\0';
  CHECK (credential_host_problem (big) != NULL);
  memset (big, 'a', 64);
  strcpy (big + 64, ".com");
  CHECK_CONTAINS (credential_host_problem (big), "longer than 63");
  CHECK (credential_host_problem ("api.github.com") == NULL);
  CHECK (credential_host_problem ("git-server.test") == NULL);
  CHECK (credential_host_problem ("1password.com") == NULL);
}

static void
test_decl_hostile (void)
{
  struct credential_decl d;
  const char *many[CREDENTIAL_HOSTS_MAX + 2];
  char names[CREDENTIAL_HOSTS_MAX + 1][16];

  decl (&d, "GITHUB_TOKEN", "file:relative/path", good_hosts);
  expect_decl_error (&d, "source: file: expects an absolute path");
  decl (&d, "GITHUB_TOKEN", "file:/etc/agentrt/../shadow", good_hosts);
  expect_decl_error (&d, "without \"..\"");
  decl (&d, "GITHUB_TOKEN", "file:/etc/agentrt/..", good_hosts);
  expect_decl_error (&d, "without \"..\"");
  decl (&d, "GITHUB_TOKEN", "env:", good_hosts);
  expect_decl_error (&d, "env: expects a variable name");
  decl (&d, "GITHUB_TOKEN", "env:A=B", good_hosts);
  expect_decl_error (&d, "env: expects a variable name");
  decl (&d, "GITHUB_TOKEN", "http://vault/secret", good_hosts);
  expect_decl_error (&d, "source: expected");
  decl (&d, "1TOKEN", "env:T", good_hosts);
  expect_decl_error (&d, "name:");
  decl (&d, "GITHUB,TOKEN", "env:T", good_hosts);
  expect_decl_error (&d, "name:");
  decl (&d, "T", "env:T", (const char *const[]){ NULL });
  expect_decl_error (&d, "hosts: expected 1 to 16");
  for (size_t i = 0; i <= CREDENTIAL_HOSTS_MAX; i++)
    {
      snprintf (names[i], sizeof names[i], "h%zu.example", i);
      many[i] = names[i];
    }
  many[CREDENTIAL_HOSTS_MAX + 1] = NULL;
  decl (&d, "T", "env:T", many);
  expect_decl_error (&d, "hosts: expected 1 to 16");
  decl (&d, "T", "env:T", (const char *const[]){ "a.example", "*.example", NULL });
  expect_decl_error (&d, "hosts[1] `*.example`: a wildcard is too broad");
  decl (&d, "T", "env:T", (const char *const[]){ "a.example", "a.example", NULL });
  expect_decl_error (&d, "listed twice");
  static const char *const bad_headers[]
      = { "Host", "content-length", "Transfer-Encoding", "Connection", "Upgrade",
          "TE", "X-Token\r\nX-Evil", "X Token", "X-Token:", "" };
  for (size_t i = 0; i < sizeof (bad_headers) / sizeof (*bad_headers); i++)
    {
      decl (&d, "T", "env:T", good_hosts);
      d.header = xstrdup (bad_headers[i]);
      expect_decl_error (&d, "header");
    }
  decl (&d, "T", "env:T", good_hosts);
  d.env = xstrdup ("PATH=/x");
  expect_decl_error (&d, "env: expected a variable name");

  decl (&d, "GITHUB_TOKEN", "file:/etc/agentrt/secrets/github", good_hosts);
  d.header = xstrdup ("X-Api-Key");
  {
    agentrt_error_t err = NULL;
    CHECK (credential_decl_check (&d, &err) == 0);
    agentrt_error_release (&err);
  }
  credential_decl_release (&d);
}

static void
test_list_hostile (void)
{
  struct credential_decl d[2];
  agentrt_error_t err = NULL;

  decl (&d[0], "A", "env:A", good_hosts);
  decl (&d[1], "A", "env:B", good_hosts);
  CHECK (credentials_check_list (d, 2, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "inject[1].name `A`: declared twice");
  agentrt_error_release (&err);
  free (d[1].name);
  d[1].name = xstrdup ("B");
  d[1].env = xstrdup ("A"); /* the variable of the first */
  CHECK (credentials_check_list (d, 2, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "inject[1].env `A`");
  agentrt_error_release (&err);
  free (d[1].env);
  d[1].env = NULL;
  CHECK (credentials_check_list (d, 2, &err) == 0);
  credential_decl_release (&d[0]);
  credential_decl_release (&d[1]);
}

static void
test_select_hostile (void)
{
  struct credential_decl d[2];
  size_t *sel = NULL, n = 0;
  agentrt_error_t err = NULL;
  static const char *const bad[][2] = {
    { "C", "`C` is not a credential the policy declares" },
    { "", "`` is not a credential" },
    { "A,", "`` is not a credential" },
    { ",A", "`` is not a credential" },
    { "A,A", "`A` named twice" },
    { "a", "`a` is not" },
    { "A ", "`A ` is not" },
    { "AB", "`AB` is not" },
  };

  decl (&d[0], "A", "env:A", good_hosts);
  decl (&d[1], "B", "env:B", good_hosts);
  for (size_t i = 0; i < sizeof (bad) / sizeof (*bad); i++)
    {
      CHECK (credentials_select (bad[i][0], d, 2, &sel, &n, &err) < 0);
      CHECK_CONTAINS (err ? err->msg : NULL, bad[i][1]);
      CHECK_CONTAINS (err ? err->msg : NULL, "run.agentrt.credentials");
      CHECK (sel == NULL && n == 0);
      agentrt_error_release (&err);
    }
  CHECK (credentials_select ("A", NULL, 0, &sel, &n, &err) < 0);
  agentrt_error_release (&err);
  CHECK (credentials_select ("B,A", d, 2, &sel, &n, &err) == 0);
  CHECK (n == 2 && sel[0] == 1 && sel[1] == 0);
  free (sel);
  CHECK (credentials_select (NULL, d, 2, &sel, &n, &err) == 0);
  CHECK (n == 0 && sel == NULL);
  credential_decl_release (&d[0]);
  credential_decl_release (&d[1]);
}

static void
test_values (void)
{
  char big[CREDENTIAL_VALUE_MAX + 1];

  CHECK (!credential_value_valid ("", 0));
  CHECK (!credential_value_valid ("a\r\nX-Evil: 1", 12));
  CHECK (!credential_value_valid ("a\nb", 3));
  CHECK (!credential_value_valid ("a\0b", 3));
  CHECK (!credential_value_valid ("caf\xc3\xa9", 5));
  CHECK (!credential_value_valid (" tok", 4));
  CHECK (!credential_value_valid ("tok ", 4));
  CHECK (!credential_value_valid ("a\tb", 3));
  memset (big, 'a', sizeof big);
  CHECK (!credential_value_valid (big, sizeof big));
  CHECK (credential_value_valid (big, sizeof big - 1));
  CHECK (credential_value_valid ("ghp_0123 abc/+=", 15));

  CHECK (!credential_standin_valid (NULL));
  CHECK (!credential_standin_valid (""));
  CHECK (!credential_standin_valid ("agentrt-standin-"));
  CHECK (!credential_standin_valid ("agentrt-standin-0123456789abcdef0123456789abcdeF"));
  CHECK (!credential_standin_valid ("agentrt-standin-0123456789abcdef0123456789abcdef0"));
  CHECK (!credential_standin_valid ("xgentrt-standin-0123456789abcdef0123456789abcdef"));
  CHECK (credential_standin_valid ("agentrt-standin-0123456789abcdef0123456789abcdef"));
}

static char *
parse_policy (const char *text, struct agent_policy *p)
{
  agentrt_error_t err = NULL;
  char *msg = NULL;

  if (policy_file_parse (text, strlen (text), "policy.json", p, &err) < 0)
    msg = xstrdup (err->msg);
  agentrt_error_release (&err);
  return msg;
}

static void
expect_policy_error (const char *text, const char *needle)
{
  struct agent_policy p;
  char *msg = parse_policy (text, &p);

  if (msg == NULL)
    {
      fprintf (stderr, "accepted: %s\n", text);
      policy_release (&p);
    }
  CHECK_CONTAINS (msg, needle);
  free (msg);
}

#define ENTRY(extra)                                                            \
  "{\"credentials\":{\"inject\":[{\"name\":\"GH\",\"source\":\"env:GH\","     \
  "\"hosts\":[\"api.github.com\"]" extra "}]}}"

static void
test_policy_file (void)
{
  struct agent_policy p;
  char *msg;

  expect_policy_error ("{\"credentials\":{\"inject\":{}}}", "credentials.inject: expected");
  expect_policy_error ("{\"credentials\":{\"inject\":[{}]}}", "credentials.inject[0].name");
  expect_policy_error (ENTRY (",\"format\":\"Bearer {}\""),
                       "credentials.inject[0].format: unknown field");
  expect_policy_error (ENTRY (",\"header\":\"Host\""), "inject[0]: header `Host`");
  expect_policy_error ("{\"credentials\":{\"inject\":[{\"name\":\"GH\",\"source\":"
                       "\"env:GH\",\"hosts\":[\"*.github.com\"]}]}}",
                       "inject[0]: hosts[0] `*.github.com`: a wildcard is too broad");
  expect_policy_error ("{\"credentials\":{\"inject\":[{\"name\":\"GH\",\"source\":"
                       "\"env:GH\",\"hosts\":[1]}]}}", "hosts[0]: expected a string");
  expect_policy_error ("{\"credentials\":{\"trustStore\":\"certs.pem\"}}",
                       "credentials.trustStore: expected an absolute path");
  expect_policy_error ("{\"credentials\":{\"injct\":[]}}", "credentials.injct: unknown field");

  msg = parse_policy (ENTRY (",\"header\":\"X-Api-Key\",\"env\":\"GITHUB_TOKEN\""), &p);
  CHECK (msg == NULL);
  if (msg == NULL)
    {
      struct json_writer *w = json_writer_new (false);
      struct agent_policy back;
      char *again;

      CHECK (p.n_inject == 1);
      CHECK_STR_EQ (p.inject[0].header, "X-Api-Key");
      CHECK_STR_EQ (p.inject[0].env, "GITHUB_TOKEN");
      CHECK_STR_EQ (p.trust_store, POLICY_DEFAULT_TRUST_STORE);
      /* written back, read back the same */
      policy_file_write_json (&p, w);
      again = json_writer_finish (w, NULL);
      CHECK (parse_policy (again, &back) == NULL);
      CHECK (back.n_inject == 1 && strcmp (back.inject[0].source, "env:GH") == 0
             && back.inject[0].hosts.len == 1);
      policy_release (&back);
      free (again);
      policy_release (&p);
    }
  free (msg);
}

/* The hardening with a declared credential. */
static const char bundle_json[]
    = "{\"ociVersion\":\"1.0.2\",\"process\":{\"user\":{\"uid\":0,\"gid\":0},"
      "\"args\":[\"sh\"],\"env\":[\"PATH=/bin\",\"GH=ghp_realvalueinthebundle0123456789abcd\"],"
      "\"cwd\":\"/\"},\"root\":{\"path\":\"rootfs\"},\"mounts\":[],"
      "\"annotations\":{\"run.agentrt.credentials\":\"GH\"},"
      "\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"mount\"}]}}";

static const struct fake_node no_nodes[] = { { NULL, 0, NULL } };

static int
harden_with (struct oci_config *c, const struct agent_policy *pol, const struct str_list *standins,
             struct harden_result *r, agentrt_error_t *err)
{
  struct fake_host fh = { no_nodes, NULL, 0, NULL, NULL, { NULL, 0 }, { NULL, 0 } };
  struct host_view view;
  int ret;

  fake_host_view (&view, &fh);
  view.standins = standins;
  ret = harden (c, pol, &c->annotations, &view, r, err);
  fake_host_release (&fh);
  return ret;
}

static void
test_harden (void)
{
  static const char standin[] = "agentrt-standin-00112233445566778899aabbccddeeff";
  struct agent_policy pol;
  struct str_list standins = { NULL, 0 };
  struct harden_result r, r2;
  agentrt_error_t err = NULL;
  struct oci_config *c;
  char *msg = parse_policy (ENTRY (""), &pol);

  CHECK (msg == NULL);
  c = oci_config_parse (bundle_json, strlen (bundle_json), "test", &err);
  CHECK (c != NULL);
  if (msg || c == NULL)
    return;
  /* no stand-ins made: refused */
  CHECK (harden_with (c, &pol, NULL, &r, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "no stand-ins");
  agentrt_error_release (&err);
  oci_config_free (c);
  c = oci_config_parse (bundle_json, strlen (bundle_json), "test", &err);

  str_list_append (&standins, standin);
  CHECK (harden_with (c, &pol, &standins, &r, &err) == 0);
  CHECK_STR_EQ (env_get (&c->process->env, "GH"), standin);
  CHECK_STR_EQ (env_get (&c->process->env, "SSL_CERT_FILE"), HARDEN_CA_BUNDLE);
  CHECK_STR_EQ (env_get (&c->process->env, "GIT_SSL_CAINFO"), HARDEN_CA_BUNDLE);
  CHECK_STR_EQ (env_get (&c->process->env, "NODE_EXTRA_CA_CERTS"), HARDEN_CA_BUNDLE);
  for (size_t i = 0; i < c->process->env.len; i++)
    CHECK (strstr (c->process->env.items[i], "ghp_realvalue") == NULL);
  CHECK (r.directives.n_credentials == 1);
  CHECK_STR_EQ (r.directives.credentials[0].standin, standin);
  /* hardened again: nothing more changes */
  CHECK (harden_with (c, &pol, &standins, &r2, &err) == 0);
  for (size_t i = 0; i < r2.changes.len; i++)
    CHECK (r2.changes.items[i].kind != CHANGE_ENV_SET
           && r2.changes.items[i].kind != CHANGE_ENV_REMOVED);
  harden_result_release (&r2);
  harden_result_release (&r);
  oci_config_free (c);

  /* no sidecar, no credentials */
  c = oci_config_parse (bundle_json, strlen (bundle_json), "test", &err);
  kv_list_set (&c->annotations, "run.agentrt.egress", "none");
  CHECK (harden_with (c, &pol, &standins, &r, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "run.agentrt.egress is none");
  agentrt_error_release (&err);
  oci_config_free (c);

  /* an undeclared name */
  c = oci_config_parse (bundle_json, strlen (bundle_json), "test", &err);
  kv_list_set (&c->annotations, "run.agentrt.credentials", "GH,AWS");
  CHECK (harden_with (c, &pol, &standins, &r, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "`AWS` is not a credential the policy declares");
  agentrt_error_release (&err);
  oci_config_free (c);
  str_list_free (&standins);
  policy_release (&pol);
}

int
main (void)
{
  RUN_TEST (test_hosts_hostile);
  RUN_TEST (test_decl_hostile);
  RUN_TEST (test_list_hostile);
  RUN_TEST (test_select_hostile);
  RUN_TEST (test_values);
  RUN_TEST (test_policy_file);
  RUN_TEST (test_harden);
  return UNIT_EXIT ();
}
