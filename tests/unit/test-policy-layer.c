/* A rootless user's own policy file over the admin's
 * (runtime/policy/policy_layer.h): every loosening is refused naming the
 * field, hostile files first; tightening, and the two fields that are the
 * user's own, pass. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "oci/json_tree.h"
#include "oci/json_writer.h"
#include "oci/policy_file.h"
#include "runtime/policy/policy_layer.h"
#include "unit.h"

static char dir[] = "/tmp/agentrt-policy-layer-XXXXXX";

/* "ok", or the message of the refusal (static). */
static const char *
judge (const char *admin_json, const char *user_json)
{
  static char msg[512];
  char *file = xasprintf ("%s/policy.json", dir);
  struct agent_policy admin, merged;
  agentrt_error_t err = NULL;
  bool found = false;
  int fd, r;

  snprintf (msg, sizeof msg, "ok");
  CHECK (policy_file_parse (admin_json, strlen (admin_json), "admin", &admin,
                            &err) == 0);
  CHECK (policy_file_parse (admin_json, strlen (admin_json), "admin", &merged,
                            &err) == 0);
  fd = open (file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  CHECK (fd >= 0
         && write (fd, user_json, strlen (user_json))
                == (ssize_t) strlen (user_json));
  close (fd);
  r = policy_file_load_over (file, &merged, &found, &err);
  if (r == 0)
    r = policy_layer_check (&admin, &merged, "user.json", &err);
  if (r < 0)
    snprintf (msg, sizeof msg, "%s", err->msg);
  agentrt_error_release (&err);
  policy_release (&admin);
  policy_release (&merged);
  unlink (file);
  free (file);
  return msg;
}

#define REFUSED(admin, user, field)                                         \
  do                                                                        \
    {                                                                       \
      const char *m_ = judge (admin, user);                                 \
      CHECK_CONTAINS (m_, "user.json: " field);                             \
      CHECK_CONTAINS (m_, "a user's policy may only tighten");              \
    }                                                                       \
  while (0)

#define DEF "{}"
#define STRICT                                                              \
  "{\"rootfs\":{\"allowEphemeral\":false},\"env\":{\"allowKeep\":false},"   \
  "\"devices\":{\"allow\":[\"fuse\"]},\"egress\":{\"allow\":[\"pypi.org\"]," \
  "\"ceiling\":[\"*.corp.example\",\"pypi.org\"]}}"
#define CREDS                                                               \
  "{\"credentials\":{\"inject\":[{\"name\":\"GH\",\"source\":"              \
  "\"file:/etc/agentrt/gh\",\"hosts\":[\"api.github.com\"]}]}}"
#define ASK "{\"egress\":{\"ask\":{\"socket\":\"/run/a.sock\"}}}"
#define POOL                                                                \
  "{\"userns\":{\"pool\":{\"uid\":100000,\"gid\":100000,\"size\":65536}}}"

/* Every field of the policy file, as oci/policy_write.c writes it, and how
 * a user's file is judged on it: loosenings that must be refused (`user`
 * over `admin`, refused naming `names`, else the field), or why a user
 * may set it (`why`).  A field the writer learns without a row here fails
 * test_every_field_has_a_rule: a new field needs its rule in
 * policy_layer.c (or a reason it is the user's) before it ships. */
struct rule
{
  const char *field;
  const char *admin;
  const char *user;
  const char *names;
  const char *why;
};

static const struct rule rules[] = {
  { "version", .why = "the format's version, no setting" },
  { "hardening", DEF, "{\"hardening\":\"off\"}" },
  { "rootfs.allowEphemeral", STRICT, "{\"rootfs\":{\"allowEphemeral\":true}}" },
  { "rootfs.allowWritable", DEF, "{\"rootfs\":{\"allowWritable\":true}}" },
  { "rootfs.ephemeralSize", DEF, "{\"rootfs\":{\"ephemeralSize\":\"2g\"}}" },
  { "tmpfs.tmp", DEF, "{\"tmpfs\":{\"tmp\":\"1g\"}}" },
  { "tmpfs.run", DEF, "{\"tmpfs\":{\"run\":\"65m\"}}" },
  { "tmpfs.shm", DEF, "{\"tmpfs\":{\"shm\":\"1g\"}}" },
  { "tmpfs.home", DEF, "{\"tmpfs\":{\"home\":\"1g\"}}" },
  { "env.allowKeep", STRICT, "{\"env\":{\"allowKeep\":true}}" },
  { "env.extraSecretPatterns", .why = "appended to: a user's file only adds" },
  { "credentials.extraPaths", .why = "appended to: a user's file only adds" },
  { "credentials.trustStore", DEF,
    "{\"credentials\":{\"trustStore\":\"/tmp/mine.pem\"}}" },
  /* only the admin declares credentials; a user may keep or drop them */
  { "credentials.inject", DEF, CREDS },
  { "credentials.inject", CREDS,
    "{\"credentials\":{\"inject\":[{\"name\":\"GH\",\"source\":"
    "\"file:/etc/agentrt/gh\",\"hosts\":[\"api.github.com\",\"evil.example\"]}]}}" },
  { "credentials.inject", CREDS,
    "{\"credentials\":{\"inject\":[{\"name\":\"GH\",\"source\":"
    "\"file:/etc/agentrt/gh\",\"hosts\":[\"api.github.com\"],"
    "\"header\":\"X-Leak\"}]}}" },
  { "sockets.extraPaths", .why = "appended to: a user's file only adds" },
  { "binds.scanDepth", DEF, "{\"binds\":{\"scanDepth\":7}}" },
  { "binds.scanEntries", .why = "the user's own I/O: past it the create "
    "fails, the scan never reads less" },
  { "binds.protectPersistence", DEF,
    "{\"binds\":{\"protectPersistence\":false}}" },
  { "devices.allow", DEF, "{\"devices\":{\"allow\":[\"kvm\"]}}" },
  { "devices.allow", STRICT, "{\"devices\":{\"allow\":[\"fuse\",\"net/tun\"]}}" },
  { "capabilities.safe", DEF,
    "{\"capabilities\":{\"safe\":[\"CAP_SYS_ADMIN\"]}}" },
  { "capabilities.safe", DEF,
    "{\"capabilities\":{\"safe\":[\"CAP_KILL\",\"CAP_NET_RAW\"]}}" },
  { "limits.pids", DEF, "{\"limits\":{\"pids\":1025}}" },
  { "limits.memory", DEF, "{\"limits\":{\"memory\":\"5g\"}}" },
  { "limits.lifetime", DEF,
    "{\"limits\":{\"lifetime\":\"25h\",\"maxLifetime\":\"25h\"}}" },
  { "limits.maxLifetime", DEF, "{\"limits\":{\"maxLifetime\":\"48h\"}}" },
  { "limits.unenforceable", DEF, "{\"limits\":{\"unenforceable\":\"allow\"}}" },
  { "egress.allow", DEF, "{\"egress\":{\"allow\":[\"evil.example\"]}}" },
  { "egress.allow", STRICT, "{\"egress\":{\"allow\":[\"a.corp.example\"]}}" },
  { "egress.ceiling", STRICT, "{\"egress\":{\"ceiling\":[\"*\"]}}" },
  { "egress.ceiling", STRICT, "{\"egress\":{\"ceiling\":[\"*.example\"]}}" },
  { "egress.ceiling", STRICT,
    "{\"egress\":{\"ceiling\":[\"pypi.org\",\"10.0.0.0/8\"]}}" },
  { "egress.allowBroad", DEF, "{\"egress\":{\"allowBroad\":true}}" },
  { "egress.publicSuffixList", DEF,
    "{\"egress\":{\"publicSuffixList\":\"/tmp/psl.dat\"}}" },
  { "egress.uplink", DEF, "{\"egress\":{\"uplink\":\"runtime\"}}" },
  { "egress.transparent", "{\"egress\":{\"transparent\":false}}",
    "{\"egress\":{\"transparent\":true}}" },
  /* asking a person: on, or another approver, loosens */
  { "egress.ask.socket", DEF,
    "{\"egress\":{\"ask\":{\"socket\":\"/home/u/yes.sock\"}}}", "egress.ask" },
  { "egress.ask.socket", ASK,
    "{\"egress\":{\"ask\":{\"socket\":\"/home/u/yes.sock\"}}}", "egress.ask" },
  { "egress.ask.timeout", .why = "how long its own questions wait for the "
    "admin's approver, who still answers (bounded by the parser)" },
  { "egress.ask.maxPending", .why = "how many of its own questions wait at "
    "once (bounded by the parser)" },
  { "seccomp.profile", DEF, "{\"seccomp\":{\"profile\":null}}" },
  { "seccomp.profile", DEF, "{\"seccomp\":{\"profile\":\"/tmp/open.json\"}}" },
  { "seccomp.profile", "{\"seccomp\":{\"profile\":null}}",
    "{\"seccomp\":{\"profile\":\"/tmp/open.json\"}}" },
  { "userns.mode", "{\"userns\":{\"mode\":\"auto\"}}",
    "{\"userns\":{\"mode\":\"off\"}}" },
  { "userns.subidUser", DEF, "{\"userns\":{\"subidUser\":\"me\"}}" },
  { "userns.pool.uid", DEF, POOL, "userns.pool" },
  { "userns.pool.uid", POOL, "{\"userns\":{\"pool\":{\"uid\":200000,"
    "\"gid\":100000,\"size\":65536}}}", "userns.pool" },
  { "userns.pool.gid", POOL, "{\"userns\":{\"pool\":{\"uid\":100000,"
    "\"gid\":200000,\"size\":65536}}}", "userns.pool" },
  { "userns.pool.size", POOL, "{\"userns\":{\"pool\":{\"uid\":100000,"
    "\"gid\":100000,\"size\":131072}}}", "userns.pool" },
  { "sidecar.uid", DEF, "{\"sidecar\":{\"uid\":1000}}" },
  { "sidecar.gid", DEF, "{\"sidecar\":{\"gid\":1000}}", "sidecar.uid" },
  { "sidecar.busyPollMicroseconds", .why = "the user's own CPU" },
  { "audit.dir", .why = "the user's own trail" },
};

static void
test_loosening_refused (void)
{
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
    {
      const struct rule *r = &rules[i];
      cleanup_free char *want = NULL;
      const char *m;

      if (r->user == NULL)
        continue;
      want = xasprintf ("user.json: %s: ", r->names ? r->names : r->field);
      m = judge (r->admin, r->user);
      CHECK_CONTAINS (m, want);
      CHECK_CONTAINS (m, "a user's policy may only tighten");
    }
  CHECK_STR_EQ (judge (CREDS, CREDS), "ok");
  CHECK_STR_EQ (judge (CREDS, "{\"credentials\":{\"inject\":[]}}"), "ok");
  /* what the admin's file gave stays (a broken user file is its error) */
  CHECK_CONTAINS (judge (DEF, "{\"limits\":{\"pids\":0}}"),
                  "policy.json: limits.pids: must be greater than 0");
  CHECK_CONTAINS (judge (DEF, "{\"hardening\":\"maybe\"}"), "hardening");
}

/* The leaf members of a written policy ("egress.ask.socket"; an array
 * is a leaf), each checked against the rules. */
static void
check_leaves (const struct json_node *o, const char *prefix, size_t *seen)
{
  for (uint32_t i = 0; i < o->len; i++)
    {
      const struct json_node *m = &o->u.items[i];
      cleanup_free char *path = prefix ? xasprintf ("%s.%s", prefix, m->key)
                                       : xstrdup (m->key);
      bool found = false;

      if (m->type == JSON_OBJECT)
        {
          check_leaves (m, path, seen);
          continue;
        }
      for (size_t k = 0; k < sizeof rules / sizeof *rules; k++)
        if (strcmp (rules[k].field, path) == 0)
          {
            found = true;
            seen[k] = 1;
          }
      if (!found)
        fprintf (stderr, "policy field `%s` has no rule for a user's file\n",
                 path);
      CHECK (found);
    }
}

static void
test_every_field_has_a_rule (void)
{
  /* every optional part present: asking on, a pool, a credential */
  const char *full = "{\"egress\":{\"ask\":{\"socket\":\"/run/a.sock\"}},"
                     "\"userns\":{\"pool\":{\"uid\":100000,\"gid\":100000,"
                     "\"size\":65536}},\"credentials\":{\"inject\":[{\"name\":"
                     "\"GH\",\"source\":\"file:/etc/agentrt/gh\",\"hosts\":"
                     "[\"api.github.com\"]}]}}";
  size_t seen[sizeof rules / sizeof *rules] = { 0 };
  struct agent_policy p;
  agentrt_error_t err = NULL;
  struct json_writer *w = json_writer_new (false);
  cleanup_free char *text = NULL;
  struct json_doc *doc;

  CHECK (policy_file_parse (full, strlen (full), "full", &p, &err) == 0);
  policy_file_write_json (&p, w);
  text = json_writer_finish (w, NULL);
  doc = json_doc_parse (text, strlen (text), "written", &err);
  CHECK (doc != NULL && json_doc_root (doc)->type == JSON_OBJECT);
  if (doc)
    check_leaves (json_doc_root (doc), NULL, seen);
  /* and no rule for a field that is gone */
  for (size_t k = 0; k < sizeof rules / sizeof *rules; k++)
    {
      if (!seen[k])
        fprintf (stderr, "rule for `%s`: no such field\n", rules[k].field);
      CHECK (seen[k]);
    }
  json_doc_free (doc);
  policy_release (&p);
}

static void
test_tightening_passes (void)
{
  const char *loose = "{\"hardening\":\"off\",\"rootfs\":{\"allowWritable\":"
                      "true},\"limits\":{\"unenforceable\":\"allow\"},"
                      "\"devices\":{\"allow\":[\"fuse\",\"kvm\"]},"
                      "\"egress\":{\"allow\":[\"pypi.org\"],\"allowBroad\":true}}";

  CHECK_STR_EQ (judge ("{}", "{}"), "ok");
  /* user namespaces on where the admin turned them off */
  CHECK_STR_EQ (judge ("{\"userns\":{\"mode\":\"off\"}}",
                       "{\"userns\":{\"mode\":\"auto\"}}"), "ok");
  CHECK_STR_EQ (judge ("{}", "{\"version\":1,\"hardening\":\"enforce\"}"), "ok");
  CHECK_STR_EQ (judge (loose, "{\"hardening\":\"enforce\"}"), "ok");
  CHECK_STR_EQ (judge (loose, "{\"hardening\":\"off\"}"), "ok");
  CHECK_STR_EQ (judge (loose, "{\"rootfs\":{\"allowWritable\":false,"
                              "\"allowEphemeral\":false,\"ephemeralSize\":\"1m\"}}"),
                "ok");
  CHECK_STR_EQ (judge ("{}", "{\"tmpfs\":{\"tmp\":\"1m\",\"run\":\"1m\","
                             "\"shm\":\"1m\",\"home\":\"1m\"}}"), "ok");
  CHECK_STR_EQ (judge ("{}", "{\"env\":{\"allowKeep\":false,"
                             "\"extraSecretPatterns\":[\"*_X\"]}}"), "ok");
  CHECK_STR_EQ (judge ("{}", "{\"credentials\":{\"extraPaths\":[\".acme\"]},"
                             "\"sockets\":{\"extraPaths\":[\"/run/acme.sock\"]}}"),
                "ok");
  /* fewer entries: a big tree fails the create sooner */
  CHECK_STR_EQ (judge ("{}", "{\"binds\":{\"scanEntries\":10}}"), "ok");
  CHECK_STR_EQ (judge ("{}", "{\"binds\":{\"scanDepth\":9,\"scanEntries\":"
                             "300000,\"protectPersistence\":true}}"), "ok");
  CHECK_STR_EQ (judge (loose, "{\"devices\":{\"allow\":[\"kvm\"]}}"), "ok");
  CHECK_STR_EQ (judge ("{}", "{\"capabilities\":{\"safe\":[\"CAP_KILL\"]}}"),
                "ok");
  CHECK_STR_EQ (judge ("{}", "{\"capabilities\":{\"safe\":[]}}"), "ok");
  CHECK_STR_EQ (judge ("{}", "{\"limits\":{\"pids\":64,\"memory\":\"512m\","
                             "\"lifetime\":\"1h\",\"maxLifetime\":\"2h\","
                             "\"unenforceable\":\"fail\"}}"), "ok");
  CHECK_STR_EQ (judge (loose, "{\"limits\":{\"unenforceable\":\"allow\"}}"), "ok");
  CHECK_STR_EQ (judge (loose, "{\"egress\":{\"allow\":[\"pypi.org\"],"
                              "\"allowBroad\":false}}"), "ok");
  CHECK_STR_EQ (judge ("{}", "{\"egress\":{\"ceiling\":[\"*.corp.example\","
                             "\"10.0.0.0/8\",\"pypi.org:443\"]}}"), "ok");
  CHECK_STR_EQ (judge ("{\"egress\":{\"ceiling\":[\"*.corp.example\"]}}",
                       "{\"egress\":{\"ceiling\":[\"a.corp.example\","
                       "\"*.b.corp.example:22\"]}}"), "ok");
  CHECK_STR_EQ (judge ("{}", "{\"egress\":{\"uplink\":\"auto\"}}"), "ok");
  CHECK_STR_EQ (judge ("{}", "{\"egress\":{\"transparent\":false}}"), "ok");
  /* asking off (null), or the admin's own approver with other waits */
  CHECK_STR_EQ (judge ("{\"egress\":{\"ask\":{\"socket\":\"/run/a.sock\"}}}",
                       "{\"egress\":{\"ask\":null}}"), "ok");
  CHECK_STR_EQ (judge ("{\"egress\":{\"ask\":{\"socket\":\"/run/a.sock\"}}}",
                       "{\"egress\":{\"ask\":{\"socket\":\"/run/a.sock\",\"timeout\":5}}}"), "ok");
  /* the user's own: where its trail goes, how its CPU is spent */
  CHECK_STR_EQ (judge ("{}", "{\"audit\":{\"dir\":\"/home/u/trail\"},"
                             "\"sidecar\":{\"busyPollMicroseconds\":0}}"), "ok");
}

int
main (void)
{
  int r;

  if (mkdtemp (dir) == NULL)
    return 99;
  RUN_TEST (test_loosening_refused);
  RUN_TEST (test_every_field_has_a_rule);
  RUN_TEST (test_tightening_passes);
  r = UNIT_EXIT ();
  rmdir (dir);
  return r;
}
