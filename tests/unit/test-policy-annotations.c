/* Unit tests of the run.agentrt.* annotations (runtime/policy/annotations.h
 * and egress_policy.h): typos and hostile values first, then loosening
 * beyond the policy, then what is accepted. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/policy/annotations.h"
#include "unit.h"

static struct agent_policy policy;

/* Parses one annotation (plus an unrelated one); returns the status and
 * leaves the message in *msg (malloc'd) on failure. */
static int
parse1 (const char *key, const char *value, struct harden_request *req,
        char **msg)
{
  struct kv_list a = { NULL, 0 };
  agentrt_error_t err = NULL;
  int r;

  kv_list_set (&a, "io.kubernetes.cri.container-type", "container");
  kv_list_set (&a, key, value);
  r = annotations_parse (&a, &policy, req, &err);
  *msg = err ? strdup (err->msg) : NULL;
  if (r == 0)
    CHECK (err == NULL);
  else
    CHECK (err != NULL && req->egress_allow == NULL);
  agentrt_error_release (&err);
  kv_list_free (&a);
  return r;
}

/* Expects failure with a message containing each of the needles. */
static void
expect_error (const char *key, const char *value, const char *needle1,
              const char *needle2)
{
  struct harden_request req;
  char *msg = NULL;

  CHECK (parse1 (key, value, &req, &msg) < 0);
  CHECK_CONTAINS (msg, needle1);
  if (needle2)
    CHECK_CONTAINS (msg, needle2);
  free (msg);
}

static void
expect_allow (const char *value, const char *normalised)
{
  struct harden_request req;
  char *msg = NULL;

  CHECK (parse1 (ANNOTATION_EGRESS_ALLOW, value, &req, &msg) == 0);
  if (msg)
    fprintf (stderr, "unexpected error: %s\n", msg);
  CHECK_STR_EQ (req.egress_allow, normalised);
  harden_request_release (&req);
  free (msg);
}

static void
test_typos (void)
{
  expect_error ("run.agentrt.timeot", "5m", "unknown annotation "
                "`run.agentrt.timeot`", "did you mean run.agentrt.timeout?");
  expect_error ("Run.Agentrt.Timeout", "5m", "unknown annotation",
                "did you mean run.agentrt.timeout?");
  expect_error ("run.agentrt.egress.alow", "x.com", "did you mean "
                "run.agentrt.egress.allow?", NULL);
  expect_error ("run.agentrt-rootfs", "readonly", "unknown annotation",
                "run.agentrt.rootfs");
  expect_error ("run.agentrt", "x", "unknown annotation `run.agentrt`", NULL);
  expect_error ("run.agentrt.something.else.entirely", "x",
                "unknown annotation `run.agentrt.something.else.entirely`",
                NULL);
}

static void
test_hostile_values (void)
{
  char long_value[4096];

  expect_error (ANNOTATION_ROOTFS, "ephemeral\nrun.agentrt.rootfs=writable",
                "`ephemeral?run.agentrt.rootfs=writable`", "expected readonly");
  memset (long_value, 'a', sizeof (long_value) - 1);
  long_value[sizeof (long_value) - 1] = '\0';
  expect_error (ANNOTATION_EGRESS, long_value, "aaaa...`", NULL);
  expect_error (ANNOTATION_ROOTFS, "READONLY", "expected readonly", NULL);
  expect_error (ANNOTATION_ROOTFS, "", "expected readonly", NULL);
  expect_error (ANNOTATION_EGRESS, "None", "expected proxy or none", NULL);
  expect_error (ANNOTATION_EGRESS_ALLOW, "exa mple.com",
                "annotation run.agentrt.egress.allow", NULL);
  expect_error (ANNOTATION_EGRESS_ALLOW, "a.com,,b.com",
                "annotation run.agentrt.egress.allow", NULL);
  expect_error (ANNOTATION_EGRESS_ALLOW, "a.com,", "after the last", NULL);
  expect_error (ANNOTATION_EGRESS_ALLOW, "1.2.3.04", "1.2.3.04", NULL);
  expect_error (ANNOTATION_EGRESS_ALLOW, "[fe80::1%eth0]:443", "zone", NULL);
  expect_error (ANNOTATION_ENV_KEEP, "A=B", "a comma list of variable names",
                NULL);
  expect_error (ANNOTATION_ENV_KEEP, ",A", "a comma list", NULL);
  expect_error (ANNOTATION_ENV_KEEP, "A,", "a comma list", NULL);
  expect_error (ANNOTATION_ENV_KEEP, "A B", "a comma list", NULL);
  static const char *const bad_timeouts[]
      = { "", "0", "-5", "+5", "5 m", " 5m", "1.5h", "5M", "5mm", "1h30m",
          "0x10", "99999999999999999999", "18446744073709551615d", NULL };
  for (size_t i = 0; bad_timeouts[i]; i++)
    expect_error (ANNOTATION_TIMEOUT, bad_timeouts[i],
                  "expected a duration", NULL);
}

static void
test_loosening_refused (void)
{
  expect_error (ANNOTATION_ROOTFS, "writable", "not allowed by the policy",
                "rootfs.allowWritable is false");
  expect_error (ANNOTATION_TIMEOUT, "25h", "annotation run.agentrt.timeout=25h",
                "limits.maxLifetime is 86400s");
  expect_error (ANNOTATION_EGRESS_ALLOW, "*", "egress.allowBroad is false",
                NULL);
  expect_error (ANNOTATION_EGRESS_ALLOW, "ok.example,*.com",
                "egress.allowBroad is false", "*.com");
  expect_error (ANNOTATION_EGRESS_ALLOW, "10.0.0.0/8", "egress.allowBroad is false",
                "a CIDR wider than /16");
  expect_error (ANNOTATION_EGRESS_ALLOW, "[::ffff:0:0/96]:443",
                "egress.allowBroad is false", NULL);

  policy.allow_ephemeral_rootfs = false;
  expect_error (ANNOTATION_ROOTFS, "ephemeral",
                "rootfs.allowEphemeral is false", NULL);
  policy.allow_ephemeral_rootfs = true;

  policy.allow_env_keep = false;
  expect_error (ANNOTATION_ENV_KEEP, "GITHUB_TOKEN", "env.allowKeep is false",
                NULL);
  policy.allow_env_keep = true;
}

static void
test_ceiling (void)
{
  str_list_free (&policy.egress_ceiling);
  str_list_append (&policy.egress_ceiling, "*.corp.example");
  str_list_append (&policy.egress_ceiling, "pypi.org:443");
  str_list_append (&policy.egress_ceiling, "10.0.0.0/8");
  str_list_append (&policy.egress_ceiling, "fd00::/8");

  expect_allow ("api.corp.example", "api.corp.example");
  expect_allow ("*.corp.example,*.eu.corp.example:8443",
                "*.corp.example,*.eu.corp.example:8443");
  expect_allow ("pypi.org:443,10.1.2.3,10.2.0.0/16,[fd12::1]:443",
                "pypi.org:443,10.1.2.3,10.2.0.0/16,[fd12::1]:443");
  expect_error (ANNOTATION_EGRESS_ALLOW, "corp.example", "outside "
                "egress.ceiling", "`corp.example`");
  expect_error (ANNOTATION_EGRESS_ALLOW, "evil.com", "outside egress.ceiling",
                NULL);
  expect_error (ANNOTATION_EGRESS_ALLOW, "xcorp.example", "outside", NULL);
  expect_error (ANNOTATION_EGRESS_ALLOW, "pypi.org", "outside", NULL);
  expect_error (ANNOTATION_EGRESS_ALLOW, "11.0.0.1", "outside", NULL);
  policy.allow_broad_egress = true;
  expect_error (ANNOTATION_EGRESS_ALLOW, "10.0.0.0/7", "outside", NULL);
  policy.allow_broad_egress = false;
  expect_error (ANNOTATION_EGRESS_ALLOW, "169.254.169.254", "outside", NULL);
  expect_error (ANNOTATION_EGRESS_ALLOW, "fe80::1", "outside", NULL);

  str_list_free (&policy.egress_ceiling);
  str_list_append (&policy.egress_ceiling, "*");
}

static void
test_accepted (void)
{
  struct kv_list a = { NULL, 0 };
  struct harden_request req;
  agentrt_error_t err = NULL;

  kv_list_set (&a, "org.opencontainers.image.ref.name", "latest");
  kv_list_set (&a, ANNOTATION_ROOTFS, "ephemeral");
  kv_list_set (&a, ANNOTATION_EGRESS, "none");
  kv_list_set (&a, ANNOTATION_EGRESS_ALLOW,
               " Example.COM. , *.GitHub.com:443,10.20.0.0/16 ");
  kv_list_set (&a, ANNOTATION_ENV_KEEP, " A_TOKEN ,B,A_TOKEN ");
  kv_list_set (&a, ANNOTATION_TIMEOUT, "5m");
  str_list_append (&policy.egress_allow, "pypi.org");
  CHECK (annotations_parse (&a, &policy, &req, &err) == 0);
  CHECK (req.rootfs == HARDEN_ROOTFS_EPHEMERAL);
  CHECK (req.egress == HARDEN_EGRESS_NONE);
  CHECK_STR_EQ (req.egress_allow,
                "pypi.org,example.com,*.github.com:443,10.20.0.0/16");
  CHECK (req.env_keep.len == 2);
  CHECK_STR_EQ (req.env_keep.items[0], "A_TOKEN");
  CHECK_STR_EQ (req.env_keep.items[1], "B");
  CHECK (req.lifetime == 300 && req.has_timeout);
  harden_request_release (&req);
  kv_list_free (&a);
  str_list_free (&policy.egress_allow);

  /* No annotations at all: the defaults. */
  CHECK (annotations_parse (NULL, &policy, &req, &err) == 0);
  CHECK (req.rootfs == HARDEN_ROOTFS_READONLY);
  CHECK (req.egress == HARDEN_EGRESS_PROXY);
  CHECK_STR_EQ (req.egress_allow, "");
  CHECK (req.lifetime == 86400 && !req.has_timeout);
  harden_request_release (&req);

  expect_allow ("", "");
  expect_allow ("2001:DB8::1", "2001:db8::1");
  expect_allow ("[2001:db8::/48]:443", "[2001:db8::/48]:443");
  /* Wildcards over multi-label public suffixes are judged by the runtime
   * against the Public Suffix List (runtime/hardening.c), not here. */
  expect_allow ("*.co.uk", "*.co.uk");
  expect_allow ("1.2.3.4:8080", "1.2.3.4:8080");
  policy.allow_broad_egress = true;
  expect_allow ("*,*.com,10.0.0.0/8", "*,*.com,10.0.0.0/8");
  policy.allow_broad_egress = false;
  policy.allow_writable_rootfs = true;
  CHECK (parse1 (ANNOTATION_ROOTFS, "writable", &req, &(char *){ NULL }) == 0);
  CHECK (req.rootfs == HARDEN_ROOTFS_WRITABLE);
  harden_request_release (&req);
  policy.allow_writable_rootfs = false;
}

static void
test_timeouts (void)
{
  static const struct
  {
    const char *v;
    uint64_t secs;
  } ok[] = { { "300", 300 }, { "45s", 45 }, { "5m", 300 }, { "2h", 7200 },
             { "1d", 86400 }, { "86400", 86400 }, { "1", 1 } };

  for (size_t i = 0; i < sizeof (ok) / sizeof (*ok); i++)
    {
      struct harden_request req;
      char *msg = NULL;
      CHECK (parse1 (ANNOTATION_TIMEOUT, ok[i].v, &req, &msg) == 0);
      CHECK (req.lifetime == ok[i].secs);
      harden_request_release (&req);
      free (msg);
    }
}

static void
test_info (void)
{
  size_t n, loosening = 0;
  const struct annotation_info *info = annotations_info (&n);

  CHECK (n == 7); /* credentials, egress, egress.allow, egress.ask, env.keep, rootfs,
                     timeout */
  for (size_t i = 0; i < n; i++)
    {
      CHECK (strncmp (info[i].key, ANNOTATION_PREFIX,
                      strlen (ANNOTATION_PREFIX)) == 0);
      if (info[i].loosens)
        loosening++;
    }
  CHECK (loosening == 4);
}

int
main (void)
{
  policy_init_defaults (&policy);
  RUN_TEST (test_typos);
  RUN_TEST (test_hostile_values);
  RUN_TEST (test_loosening_refused);
  RUN_TEST (test_ceiling);
  RUN_TEST (test_accepted);
  RUN_TEST (test_timeouts);
  RUN_TEST (test_info);
  policy_release (&policy);
  return UNIT_EXIT ();
}
