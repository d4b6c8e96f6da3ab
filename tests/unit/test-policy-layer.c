/* A rootless user's own policy file over the admin's
 * (runtime/policy/policy_layer.h): every loosening is refused naming the
 * field, hostile files first; tightening, and the two fields that are the
 * user's own, pass. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"
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

static void
test_loosening_refused (void)
{
  const char *def = "{}";
  const char *strict = "{\"rootfs\":{\"allowEphemeral\":false},"
                       "\"env\":{\"allowKeep\":false},"
                       "\"devices\":{\"allow\":[\"fuse\"]},"
                       "\"egress\":{\"allow\":[\"pypi.org\"],"
                       "\"ceiling\":[\"*.corp.example\",\"pypi.org\"]}}";

  REFUSED (def, "{\"hardening\":\"off\"}", "hardening");
  REFUSED (def, "{\"rootfs\":{\"allowWritable\":true}}", "rootfs.allowWritable");
  REFUSED (strict, "{\"rootfs\":{\"allowEphemeral\":true}}",
           "rootfs.allowEphemeral");
  REFUSED (def, "{\"rootfs\":{\"ephemeralSize\":\"2g\"}}", "rootfs.ephemeralSize");
  REFUSED (def, "{\"tmpfs\":{\"tmp\":\"1g\"}}", "tmpfs.tmp");
  REFUSED (def, "{\"tmpfs\":{\"run\":\"65m\"}}", "tmpfs.run");
  REFUSED (def, "{\"tmpfs\":{\"shm\":\"1g\"}}", "tmpfs.shm");
  REFUSED (def, "{\"tmpfs\":{\"home\":\"1g\"}}", "tmpfs.home");
  REFUSED (strict, "{\"env\":{\"allowKeep\":true}}", "env.allowKeep");
  REFUSED (def, "{\"binds\":{\"scanDepth\":7}}", "binds.scanDepth");
  REFUSED (def, "{\"binds\":{\"scanEntries\":10}}", "binds.scanEntries");
  REFUSED (def, "{\"binds\":{\"protectPersistence\":false}}",
           "binds.protectPersistence");
  REFUSED (def, "{\"devices\":{\"allow\":[\"kvm\"]}}", "devices.allow");
  REFUSED (strict, "{\"devices\":{\"allow\":[\"fuse\",\"net/tun\"]}}",
           "devices.allow");
  REFUSED (def, "{\"capabilities\":{\"safe\":[\"CAP_SYS_ADMIN\"]}}",
           "capabilities.safe");
  REFUSED (def, "{\"capabilities\":{\"safe\":[\"CAP_KILL\",\"CAP_NET_RAW\"]}}",
           "capabilities.safe");
  REFUSED (def, "{\"limits\":{\"pids\":1025}}", "limits.pids");
  REFUSED (def, "{\"limits\":{\"memory\":\"5g\"}}", "limits.memory");
  REFUSED (def, "{\"limits\":{\"lifetime\":\"25h\",\"maxLifetime\":\"25h\"}}",
           "limits.lifetime");
  REFUSED (def, "{\"limits\":{\"maxLifetime\":\"48h\"}}", "limits.maxLifetime");
  REFUSED (def, "{\"limits\":{\"unenforceable\":\"allow\"}}",
           "limits.unenforceable");
  REFUSED (def, "{\"egress\":{\"allow\":[\"evil.example\"]}}", "egress.allow");
  REFUSED (strict, "{\"egress\":{\"allow\":[\"a.corp.example\"]}}",
           "egress.allow");
  REFUSED (def, "{\"egress\":{\"allowBroad\":true}}", "egress.allowBroad");
  REFUSED (strict, "{\"egress\":{\"ceiling\":[\"*\"]}}", "egress.ceiling");
  REFUSED (strict, "{\"egress\":{\"ceiling\":[\"*.example\"]}}",
           "egress.ceiling");
  REFUSED (strict, "{\"egress\":{\"ceiling\":[\"pypi.org\",\"10.0.0.0/8\"]}}",
           "egress.ceiling");
  REFUSED (def, "{\"egress\":{\"publicSuffixList\":\"/tmp/psl.dat\"}}",
           "egress.publicSuffixList");
  REFUSED (def, "{\"egress\":{\"uplink\":\"runtime\"}}", "egress.uplink");
  REFUSED ("{\"egress\":{\"transparent\":false}}",
           "{\"egress\":{\"transparent\":true}}", "egress.transparent");
  /* asking a person: on, or another approver, loosens */
  REFUSED (def, "{\"egress\":{\"ask\":{\"socket\":\"/home/u/yes.sock\"}}}", "egress.ask");
  REFUSED ("{\"egress\":{\"ask\":{\"socket\":\"/run/a.sock\"}}}",
           "{\"egress\":{\"ask\":{\"socket\":\"/home/u/yes.sock\"}}}", "egress.ask");
  REFUSED (def, "{\"seccomp\":{\"profile\":null}}", "seccomp.profile");
  REFUSED (def, "{\"seccomp\":{\"profile\":\"/tmp/open.json\"}}",
           "seccomp.profile");
  REFUSED ("{\"seccomp\":{\"profile\":null}}",
           "{\"seccomp\":{\"profile\":\"/tmp/open.json\"}}", "seccomp.profile");
  REFUSED (def, "{\"sidecar\":{\"uid\":1000}}", "sidecar.uid");
  {
    const char *creds = "{\"credentials\":{\"inject\":[{\"name\":\"GH\",\"source\":"
                        "\"file:/etc/agentrt/gh\",\"hosts\":[\"api.github.com\"]}]}}";
    /* only the admin declares credentials; a user may keep or drop them */
    REFUSED (def, creds, "credentials.inject");
    REFUSED (creds, "{\"credentials\":{\"inject\":[{\"name\":\"GH\",\"source\":"
             "\"file:/etc/agentrt/gh\",\"hosts\":[\"api.github.com\",\"evil.example\"]}]}}",
             "credentials.inject");
    REFUSED (creds, "{\"credentials\":{\"inject\":[{\"name\":\"GH\",\"source\":"
             "\"file:/etc/agentrt/gh\",\"hosts\":[\"api.github.com\"],"
             "\"header\":\"X-Leak\"}]}}", "credentials.inject");
    REFUSED (def, "{\"credentials\":{\"trustStore\":\"/tmp/mine.pem\"}}",
             "credentials.trustStore");
    CHECK_STR_EQ (judge (creds, creds), "ok");
    CHECK_STR_EQ (judge (creds, "{\"credentials\":{\"inject\":[]}}"), "ok");
  }
  REFUSED ("{\"userns\":{\"mode\":\"auto\"}}", "{\"userns\":{\"mode\":\"off\"}}",
           "userns.mode");
  REFUSED (def, "{\"userns\":{\"subidUser\":\"me\"}}", "userns.subidUser");
  REFUSED (def, "{\"userns\":{\"pool\":{\"uid\":100000,\"gid\":100000,"
           "\"size\":65536}}}", "userns.pool");
  /* what the admin's file gave stays (a broken user file is its error) */
  CHECK_CONTAINS (judge (def, "{\"limits\":{\"pids\":0}}"),
                  "policy.json: limits.pids: must be greater than 0");
  CHECK_CONTAINS (judge (def, "{\"hardening\":\"maybe\"}"), "hardening");
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
  RUN_TEST (test_tightening_passes);
  r = UNIT_EXIT ();
  rmdir (dir);
  return r;
}
