/* Unit tests of the hardening record a container keeps (oci/
 * hardening_record.h) and of the policy written back as a policy file
 * (oci/policy_write.c): damaged records first, then round trips that must
 * give back exactly what was written. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "oci/hardening_record.h"
#include "oci/json_writer.h"
#include "oci/policy_file.h"
#include "unit.h"

static char *
policy_json (const struct agent_policy *p)
{
  struct json_writer *w = json_writer_new (false);
  policy_file_write_json (p, w);
  return json_writer_finish (w, NULL);
}

/* A policy with every field away from its default. */
static const char full_policy[] =
    "{\"version\":1,\"hardening\":\"enforce\","
    "\"rootfs\":{\"allowEphemeral\":false,\"allowWritable\":true,"
    "\"ephemeralSize\":\"2g\"},"
    "\"tmpfs\":{\"tmp\":\"1g\",\"run\":1048576,\"shm\":\"128m\",\"home\":\"256m\"},"
    "\"env\":{\"allowKeep\":false,\"extraSecretPatterns\":[\"*_CREDS\"]},"
    "\"credentials\":{\"extraPaths\":[\".config/acme\",\"/etc/acme/key\"]},"
    "\"sockets\":{\"extraPaths\":[\"/run/acme/*/ctl\"]},"
    "\"binds\":{\"scanDepth\":3,\"scanEntries\":99,\"protectPersistence\":false},"
    "\"devices\":{\"allow\":[\"kvm\"]},"
    "\"capabilities\":{\"safe\":[\"CAP_KILL\"]},"
    "\"limits\":{\"pids\":256,\"memory\":\"1g\",\"lifetime\":\"1h\","
    "\"maxLifetime\":\"2h\",\"unenforceable\":\"allow\"},"
    "\"egress\":{\"allow\":[\"pypi.org\"],\"ceiling\":[\"pypi.org\"],"
    "\"allowBroad\":true,\"publicSuffixList\":\"/srv/psl.dat\","
    "\"uplink\":\"bundle\",\"transparent\":false},"
    "\"seccomp\":{\"profile\":null},"
    "\"sidecar\":{\"uid\":990,\"gid\":991,\"busyPollMicroseconds\":7},"
    "\"audit\":{\"dir\":\"/srv/audit\"}}";

static void
test_policy_round_trip (void)
{
  const char *const inputs[] = { "{}", full_policy, NULL };

  for (size_t i = 0; inputs[i]; i++)
    {
      struct agent_policy a, b;
      agentrt_error_t err = NULL;
      char *ja, *jb;

      CHECK (policy_file_parse (inputs[i], strlen (inputs[i]), "p", &a, &err)
             == 0);
      ja = policy_json (&a);
      CHECK (policy_file_parse (ja, strlen (ja), "p", &b, &err) == 0);
      if (err)
        fprintf (stderr, "%s\n%s\n", err->msg, ja);
      jb = policy_json (&b);
      CHECK_STR_EQ (ja, jb);
      /* the built-in lists are not repeated as extensions */
      CHECK (b.credential_paths.len == a.credential_paths.len);
      CHECK (b.socket_paths.len == a.socket_paths.len);
      CHECK_STR_EQ (b.public_suffix_list, a.public_suffix_list);
      free (ja);
      free (jb);
      policy_release (&a);
      policy_release (&b);
    }
}

static void
fill_directives (struct harden_directives *d)
{
  memset (d, 0, sizeof (*d));
  d->rootfs = HARDEN_ROOTFS_EPHEMERAL;
  d->ephemeral_size = 4096;
  d->seccomp_profile = xstrdup ("/p/agent.json");
  d->lifetime = 600;
  d->egress = HARDEN_EGRESS_PROXY;
  d->egress_allow = xstrdup ("pypi.org,*.github.com:22");
  d->egress_allow_broad = true;
  d->net_facts = (struct net_inputs){ .hardened = true,
                                      .bundle_ns = NET_BUNDLE_PATH,
                                      .shared_agent_ns = true,
                                      .egress = true,
                                      .uplink = NET_UPLINK_RUNTIME,
                                      .transparent = true };
  str_list_append (&d->env_keep, "GH_TOKEN");
  d->sidecar_uid = 1;
  d->sidecar_gid = 2;
  d->sidecar_busy_poll_us = 3;
  d->audit_dir = xstrdup ("/var/log/x");
  str_list_append (&d->required_masks, "/root/.ssh");
  str_list_append (&d->protected_paths, "/src/.git/config");
  str_list_append (&d->protected_dirs, "/src/.git/hooks");
}

static void
test_record_round_trip (void)
{
  const unsigned char program[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 0xfe };
  struct agent_policy policy;
  struct harden_directives d;
  struct hardening_record rec;
  agentrt_error_t err = NULL;
  char *json, *again;
  struct net_plan plan;

  CHECK (policy_file_parse (full_policy, strlen (full_policy), "p", &policy,
                            &err) == 0);
  fill_directives (&d);
  json = hardening_record_to_json (&policy, &d, program, sizeof program, 5);
  CHECK (hardening_record_parse (json, strlen (json), &rec, &err) == 0);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  CHECK (rec.program_len == sizeof program
         && memcmp (rec.program, program, sizeof program) == 0);
  CHECK (rec.program_flags == 5);
  CHECK (rec.directives.net_facts.shared_agent_ns
         && rec.directives.net_facts.bundle_ns == NET_BUNDLE_PATH
         && rec.directives.net_facts.uplink == NET_UPLINK_RUNTIME);
  plan = net_plan_decide (&rec.directives.net_facts);
  CHECK (plan.agent == NET_AGENT_SHARED);
  /* a pod's container joins the rules of the sandbox's namespace */
  CHECK (rec.directives.net_facts.transparent && !plan.transparent
         && plan.rules == NET_RULES_NONE);
  CHECK (!rec.policy.egress_transparent);
  CHECK (rec.directives.rootfs == HARDEN_ROOTFS_EPHEMERAL);
  CHECK (rec.policy.pids_limit == 256 && !rec.policy.protect_persistence);
  CHECK (rec.policy.limits_unenforceable == POLICY_UNENFORCEABLE_ALLOW);
  again = hardening_record_to_json (&rec.policy, &rec.directives, rec.program,
                                    rec.program_len, rec.program_flags);
  CHECK_STR_EQ (json, again);
  free (again);
  hardening_record_release (&rec);
  free (json);

  /* not shared: the monitor makes the agent's namespace and its rules */
  d.net_facts.shared_agent_ns = false;
  json = hardening_record_to_json (&policy, &d, NULL, 0, 0);
  CHECK (hardening_record_parse (json, strlen (json), &rec, &err) == 0);
  plan = net_plan_decide (&rec.directives.net_facts);
  CHECK (plan.transparent && plan.rules == NET_RULES_MONITOR);
  hardening_record_release (&rec);
  free (json);

  /* with a user namespace the init makes it and installs them; a record
   * made before it did names the runtime, and is read as the same plan */
  d.net_facts.userns = true;
  json = hardening_record_to_json (&policy, &d, NULL, 0, 0);
  CHECK_CONTAINS (json, "\"rules\":\"init\"");
  CHECK (hardening_record_parse (json, strlen (json), &rec, &err) == 0);
  plan = net_plan_decide (&rec.directives.net_facts);
  CHECK (plan.transparent && plan.rules == NET_RULES_INIT);
  hardening_record_release (&rec);
  {
    char *at = strstr (json, "\"rules\":\"init\""), *old;
    CHECK (at != NULL);
    if (at != NULL)
      {
        old = xasprintf ("%.*s\"rules\":\"runtime\"%s", (int) (at - json), json,
                         at + strlen ("\"rules\":\"init\""));
        CHECK (hardening_record_parse (old, strlen (old), &rec, &err) == 0);
        hardening_record_release (&rec);
        free (old);
        old = xasprintf ("%.*s\"rules\":\"monitor\"%s", (int) (at - json), json,
                         at + strlen ("\"rules\":\"init\""));
        CHECK (hardening_record_parse (old, strlen (old), &rec, &err) < 0);
        CHECK_CONTAINS (err ? err->msg : NULL, "not the plan its facts make");
        agentrt_error_release (&err);
        free (old);
      }
  }
  free (json);
  d.net_facts.userns = false;
  d.net_facts.shared_agent_ns = true;

  /* no agent profile */
  json = hardening_record_to_json (&policy, &d, NULL, 0, 0);
  CHECK (hardening_record_parse (json, strlen (json), &rec, &err) == 0);
  CHECK (rec.program == NULL);
  hardening_record_release (&rec);
  free (json);
  harden_directives_release (&d);
  policy_release (&policy);
}

/* A damaged record is an error naming the field, never a default. */
static void
test_damaged_records (void)
{
  static const struct
  {
    const char *from, *to, *error;
  } edits[] = {
    { "\"version\":1", "\"version\":2", "version: unsupported" },
    { "\"egress\":\"proxy\"", "\"egress\":\"open\"", "directives.egress: "
                                                     "unknown value" },
    { "\"bundle\":\"path\"", "\"bundle\":3", "directives.network.bundle" },
    { "\"uplink\":\"runtime\"", "\"uplink\":\"sky\"",
      "directives.network.uplink: unknown value" },
    { "\"agent\":\"shared\"", "\"agent\":\"own\"",
      "directives.network: not the plan its facts make" },
    { "\"network\":{", "\"networks\":{", "directives.network: missing" },
    { "\"transparent\":true", "\"transparent\":1",
      "directives.network.transparent" },
    { "\"rules\":\"none\"", "\"rules\":\"monitor\"",
      "directives.network: not the plan its facts make" },
    { "\"rules\":\"none\"", "\"rules\":7", "directives.network.rules" },
    /* a record made before the transparent path: neither member */
    { "\"transparent\":true,", "", NULL },
    { "\"lifetime\":600", "\"lifetime\":-1", "directives.lifetime" },
    { "\"requiredMasks\":[\"/root/.ssh\"]", "\"requiredMasks\":[1]",
      "directives.requiredMasks[0]" },
    { "\"flags\":0", "\"flags\":0,\"x\":1", NULL },
    { "\"program\":\"AQIDBAUGBwg=\"", "\"program\":\"AQID*AUGBwg=\"",
      "agentSeccomp.program: not a base64" },
    { "\"program\":\"AQIDBAUGBwg=\"", "\"program\":\"AQID\"",
      "agentSeccomp.program: not a base64" },
    { "\"pids\":256", "\"pids\":\"many\"", "pids" },
  };
  const unsigned char program[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  struct agent_policy policy;
  struct harden_directives d;
  agentrt_error_t err = NULL;
  char *json;

  CHECK (policy_file_parse (full_policy, strlen (full_policy), "p", &policy,
                            &err) == 0);
  fill_directives (&d);
  json = hardening_record_to_json (&policy, &d, program, sizeof program, 0);
  for (size_t i = 0; i < sizeof (edits) / sizeof (edits[0]); i++)
    {
      char *at = strstr (json, edits[i].from), *bad;
      struct hardening_record rec;
      int r;

      CHECK (at != NULL);
      if (at == NULL)
        continue;
      bad = xasprintf ("%.*s%s%s", (int) (at - json), json, edits[i].to,
                       at + strlen (edits[i].from));
      r = hardening_record_parse (bad, strlen (bad), &rec, &err);
      if (edits[i].error)
        {
          CHECK (r < 0);
          CHECK_CONTAINS (err ? err->msg : NULL, edits[i].error);
          CHECK (rec.program == NULL && rec.directives.audit_dir == NULL);
        }
      else
        {
          CHECK (r == 0); /* the edit keeps the record valid */
          if (r == 0)
            hardening_record_release (&rec);
        }
      agentrt_error_release (&err);
      free (bad);
    }
  free (json);
  harden_directives_release (&d);
  policy_release (&policy);
}

int
main (void)
{
  RUN_TEST (test_damaged_records);
  RUN_TEST (test_policy_round_trip);
  RUN_TEST (test_record_round_trip);
  return UNIT_EXIT ();
}
