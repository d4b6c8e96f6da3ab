/* Unit tests of the admin policy file parser (oci/policy_file.h):
 * malformed files are errors naming the field, never weaker defaults. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/closest.h"
#include "common/xalloc.h"
#include "oci/policy_file.h"
#include "unit.h"

/* Parses text; on failure returns the message (malloc'd), else NULL with
 * *out filled (released by the caller). */
static char *
parse (const char *text, struct agent_policy *out)
{
  agentrt_error_t err = NULL;
  char *msg = NULL;

  if (policy_file_parse (text, strlen (text), "policy.json", out, &err) < 0)
    {
      msg = strdup (err->msg);
      /* A failed parse leaves nothing to release. */
      CHECK (out->seccomp_profile == NULL && out->credential_paths.len == 0);
    }
  agentrt_error_release (&err);
  return msg;
}

static void
expect_error (const char *text, const char *needle)
{
  struct agent_policy p;
  char *msg = parse (text, &p);

  if (msg == NULL)
    {
      fprintf (stderr, "accepted: %s\n", text);
      policy_release (&p);
    }
  CHECK_CONTAINS (msg, needle);
  free (msg);
}

static void
test_malformed (void)
{
  expect_error ("", "policy.json");
  expect_error ("{", "policy.json");
  expect_error ("[]", "policy.json: expected an object");
  expect_error ("null", "policy.json");
  expect_error ("{\"limit\":{}}",
                "policy.json: limit: unknown field (did you mean limits?)");
  expect_error ("{\"limits\":{\"memroy\":\"1g\"}}",
                "policy.json: limits.memroy: unknown field (did you mean "
                "memory?)");
  expect_error ("{\"EGRESS\":{}}", "EGRESS: unknown field (did you mean egress?)");
  /* nothing close: no guess */
  expect_error ("{\"zzzzzzzz\":{}}", "policy.json: zzzzzzzz: unknown field");
  expect_error ("{\"limits\":[]}", "limits: expected an object");
  expect_error ("{\"version\":2}", "version: unsupported version");
  expect_error ("{\"version\":\"1\"}", "version: expected an unsigned");
  expect_error ("{\"rootfs\":{\"allowWritable\":\"yes\"}}",
                "rootfs.allowWritable: expected a boolean");
  expect_error ("{\"rootfs\":{\"allowWritable\":1}}",
                "rootfs.allowWritable: expected a boolean");
  expect_error ("{\"tmpfs\":{\"tmp\":\"512x\"}}", "tmpfs.tmp: expected a size");
  expect_error ("{\"tmpfs\":{\"tmp\":\"1.5g\"}}", "tmpfs.tmp: expected a size");
  expect_error ("{\"tmpfs\":{\"tmp\":0}}", "tmpfs.tmp: must be greater than 0");
  expect_error ("{\"tmpfs\":{\"tmp\":-1}}", "tmpfs.tmp: expected an unsigned");
  expect_error ("{\"tmpfs\":{\"tmp\":\"0m\"}}", "tmpfs.tmp: expected a size");
  expect_error ("{\"tmpfs\":{\"shm\":\"99999999999999999999\"}}",
                "tmpfs.shm: expected a size");
  expect_error ("{\"tmpfs\":{\"home\":true}}", "tmpfs.home: expected an unsigned");
  expect_error ("{\"limits\":{\"pids\":0}}", "limits.pids: must be greater");
  expect_error ("{\"limits\":{\"pids\":1.5}}", "limits.pids: expected an integer");
  expect_error ("{\"limits\":{\"memory\":\"9999999t\"}}", "limits.memory: too large");
  expect_error ("{\"limits\":{\"lifetime\":\"0\"}}",
                "limits.lifetime: expected a duration");
  expect_error ("{\"limits\":{\"lifetime\":\"1w\"}}",
                "limits.lifetime: expected a duration");
  expect_error ("{\"limits\":{\"lifetime\":\"48h\",\"maxLifetime\":\"24h\"}}",
                "limits.lifetime: longer than limits.maxLifetime");
  expect_error ("{\"limits\":{\"maxLifetime\":\"1h\"}}",
                "limits.lifetime: longer than limits.maxLifetime");
  expect_error ("{\"capabilities\":{\"safe\":[\"CAP_KILL\",\"CAP_FOO\"]}}",
                "capabilities.safe[1]: unknown capability");
  expect_error ("{\"capabilities\":{\"safe\":\"CAP_KILL\"}}",
                "capabilities.safe: expected an array");
  expect_error ("{\"capabilities\":{\"safe\":[1]}}",
                "capabilities.safe[0]: expected a string");
  expect_error ("{\"credentials\":{\"extraPaths\":[\"../x\"]}}",
                "credentials.extraPaths[0]: expected a clean path");
  expect_error ("{\"credentials\":{\"extraPaths\":[\"a//b\"]}}",
                "credentials.extraPaths[0]: expected a clean path");
  expect_error ("{\"credentials\":{\"extraPaths\":[\".x/\"]}}",
                "no trailing");
  expect_error ("{\"credentials\":{\"extraPaths\":[\".x/*\"]}}",
                "no glob in relative credential paths");
  expect_error ("{\"credentials\":{\"extraPaths\":[\"\"]}}", "must not be empty");
  expect_error ("{\"sockets\":{\"extraPaths\":[\"run/x\"]}}",
                "sockets.extraPaths[0]: expected an absolute path");
  expect_error ("{\"binds\":{\"scanDepth\":0}}", "binds.scanDepth: from 1 to 64");
  expect_error ("{\"binds\":{\"scanDepth\":65}}", "binds.scanDepth: from 1 to 64");
  expect_error ("{\"binds\":{\"scanEntries\":0}}",
                "binds.scanEntries: must be greater than 0");
  expect_error ("{\"binds\":{\"protectPersistence\":\"no\"}}",
                "binds.protectPersistence");
  expect_error ("{\"binds\":{\"depth\":3}}", "binds.depth: unknown field");
  expect_error ("{\"devices\":{\"allow\":[\"sda\"]}}",
                "devices.allow[0]: unknown device (fuse, kvm, net/tun)");
  expect_error ("{\"sockets\":{\"extraPaths\":[\"/run/./x\"]}}", "clean path");
  expect_error ("{\"env\":{\"extraSecretPatterns\":[\"\"]}}",
                "env.extraSecretPatterns[0]: must not be empty");
  expect_error ("{\"env\":{\"allowkeep\":false}}", "env.allowkeep: unknown");
  expect_error ("{\"egress\":{\"allow\":[\"a.com,b.com\"]}}",
                "egress.allow[0]: one entry per string");
  expect_error ("{\"egress\":{\"allow\":[\"bad host\"]}}",
                "policy.json: egress.allow: egress allowlist entry");
  expect_error ("{\"egress\":{\"ceiling\":[\"*.x .com\"]}}",
                "egress.ceiling");
  expect_error ("{\"egress\":{\"allow\":[\"pypi.org\",\"10.0.0.0/8\"]}}",
                "policy.json: egress.allow: needs egress.allowBroad: egress "
                "allowlist entry `10.0.0.0/8` (#2): too broad");
  expect_error ("{\"egress\":{\"allow\":[\"*\"],\"allowBroad\":false}}",
                "egress.allow: needs egress.allowBroad");
  expect_error ("{\"egress\":{\"publicSuffixList\":\"psl.dat\"}}",
                "egress.publicSuffixList: expected an absolute path");
  expect_error ("{\"egress\":{\"publicSuffixList\":true}}",
                "egress.publicSuffixList: expected a string");
  expect_error ("{\"egress\":{\"transparent\":\"no\"}}",
                "egress.transparent: expected a boolean");
  expect_error ("{\"egress\":{\"transparent\":0}}", "egress.transparent");
  expect_error ("{\"seccomp\":{\"profile\":\"agent.json\"}}",
                "seccomp.profile: expected an absolute path or null");
  expect_error ("{\"seccomp\":{\"profile\":5}}",
                "seccomp.profile: expected a string");
  expect_error ("{\"seccomp\":{\"path\":\"/x\"}}", "seccomp.path: unknown");
  expect_error ("{\"sidecar\":{\"uid\":0}}",
                "sidecar.uid: the sidecar never runs as root");
  expect_error ("{\"sidecar\":{\"gid\":0}}", "sidecar.gid");
  expect_error ("{\"sidecar\":{\"uid\":-1}}", "sidecar.uid: expected an unsigned");
  expect_error ("{\"sidecar\":{\"uid\":4294967296}}", "sidecar.uid: out of range");
  expect_error ("{\"sidecar\":{\"busyPollMicroseconds\":1001}}",
                "sidecar.busyPollMicroseconds: at most 1000 (microseconds)");
  expect_error ("{\"sidecar\":{\"busyPollMicroseconds\":-1}}",
                "sidecar.busyPollMicroseconds: expected an unsigned");
  expect_error ("{\"sidecar\":{\"busyPoll\":10}}", "sidecar.busyPoll: unknown");
  /* user namespaces: a mode of neither kind, a pool over host root or
   * ordinary users, shorter than one range, past 2^32, half given */
  expect_error ("{\"userns\":{\"mode\":\"on\"}}",
                "userns.mode: must be \"auto\" or \"off\"");
  expect_error ("{\"userns\":{\"pool\":{\"uid\":0,\"gid\":100000,"
                "\"size\":65536}}}", "userns.pool.uid: below 65536");
  expect_error ("{\"userns\":{\"pool\":{\"uid\":100000,\"gid\":1000,"
                "\"size\":65536}}}", "userns.pool.gid: below 65536");
  expect_error ("{\"userns\":{\"pool\":{\"uid\":100000,\"gid\":100000,"
                "\"size\":65535}}}", "userns.pool.size: at least 65536");
  expect_error ("{\"userns\":{\"pool\":{\"uid\":4294901760,\"gid\":100000,"
                "\"size\":65536}}}", "userns.pool.size: the pool must end");
  expect_error ("{\"userns\":{\"pool\":{\"uid\":100000,\"size\":65536}}}",
                "userns.pool.gid");
  expect_error ("{\"userns\":{\"pool\":{\"uid\":100000,\"gid\":100000,"
                "\"size\":65536,\"start\":1}}}", "userns.pool.start: unknown");
  expect_error ("{\"userns\":{\"subidUser\":\"\"}}", "userns.subidUser");
  expect_error ("{\"userns\":{\"subidUser\":\"a:b\"}}", "userns.subidUser");
  expect_error ("{\"userns\":{\"range\":1}}", "userns.range: unknown");
  expect_error ("{\"audit\":{\"dir\":\"log\"}}",
                "audit.dir: expected an absolute path");
  expect_error ("{\"limits\":{\"unenforceable\":\"ALLOW\"}}",
                "limits.unenforceable: must be \"fail\" or \"allow\"");
  expect_error ("{\"limits\":{\"unenforceable\":\"\"}}",
                "limits.unenforceable: must be");
  expect_error ("{\"limits\":{\"unenforceable\":true}}",
                "limits.unenforceable: expected a string");
}

static void
test_empty_is_defaults (void)
{
  struct agent_policy p, d;
  char *msg = parse ("{}", &p);

  CHECK (msg == NULL);
  policy_init_defaults (&d);
  CHECK (p.allow_ephemeral_rootfs && !p.allow_writable_rootfs);
  CHECK (p.pids_limit == d.pids_limit && p.memory_limit == d.memory_limit);
  CHECK (p.lifetime == 86400 && p.max_lifetime == 86400);
  CHECK (p.credential_paths.len == d.credential_paths.len);
  CHECK (p.safe_capabilities.len == 8);
  CHECK_STR_EQ (p.seccomp_profile, POLICY_DEFAULT_SECCOMP_PROFILE);
  CHECK_STR_EQ (p.audit_dir, "/var/log/agentrt");
  CHECK (p.egress_ceiling.len == 1 && p.egress_allow.len == 0);
  CHECK_STR_EQ (p.public_suffix_list, POLICY_DEFAULT_PUBLIC_SUFFIX_LIST);
  CHECK (p.sidecar_busy_poll_us == 100);
  CHECK (p.egress_transparent && d.egress_transparent);
  CHECK (p.limits_unenforceable == POLICY_UNENFORCEABLE_FAIL);
  policy_release (&p);
  policy_release (&d);
}

static void
test_values (void)
{
  struct agent_policy p;
  char *msg = parse (
      "{\"version\":1,"
      "\"rootfs\":{\"allowEphemeral\":false,\"allowWritable\":true,"
      "\"ephemeralSize\":\"2G\"},"
      "\"tmpfs\":{\"tmp\":\"1g\",\"run\":1048576,\"shm\":\"128m\",\"home\":"
      "\"256M\"},"
      "\"env\":{\"allowKeep\":false,\"extraSecretPatterns\":[\"*_CREDS\"]},"
      "\"credentials\":{\"extraPaths\":[\".config/acme\",\"/etc/acme/key\"]},"
      "\"sockets\":{\"extraPaths\":[\"/run/acme/*/ctl\",\"/tmp/acme-*\"]},"
      "\"binds\":{\"scanDepth\":4,\"scanEntries\":5000,"
      "\"protectPersistence\":false},"
      "\"devices\":{\"allow\":[\"/dev/fuse\",\"net/tun\",\"fuse\"]},"
      "\"capabilities\":{\"safe\":[\"cap_kill\",\"CAP_NET_RAW\"]},"
      "\"limits\":{\"pids\":256,\"memory\":\"1g\",\"lifetime\":\"48h\","
      "\"unenforceable\":\"allow\"},"
      "\"egress\":{\"allow\":[\"pypi.org\",\"10.0.0.0/8\"],\"ceiling\":"
      "[\"*.corp.example\",\"pypi.org\"],\"allowBroad\":true,"
      "\"publicSuffixList\":\"/etc/agentrt/psl.dat\",\"transparent\":false},"
      "\"seccomp\":{\"profile\":null},"
      "\"sidecar\":{\"uid\":990,\"gid\":991,\"busyPollMicroseconds\":0},"
      "\"audit\":{\"dir\":\"/srv/audit\"}}",
      &p);

  CHECK (msg == NULL);
  free (msg);
  if (msg)
    return;
  CHECK (!p.allow_ephemeral_rootfs && p.allow_writable_rootfs);
  CHECK (p.ephemeral_size == 2 * POLICY_GIB);
  CHECK (p.tmp_size == POLICY_GIB && p.run_size == POLICY_MIB);
  CHECK (p.shm_size == 128 * POLICY_MIB && p.home_size == 256 * POLICY_MIB);
  CHECK (!p.allow_env_keep && p.extra_secret_env.len == 1);
  CHECK (str_list_contains (&p.credential_paths, ".ssh"));
  CHECK (str_list_contains (&p.credential_paths, "/etc/acme/key"));
  CHECK (str_list_contains (&p.socket_paths, "/run/docker.sock"));
  CHECK (str_list_contains (&p.socket_paths, "/run/acme/*/ctl"));
  CHECK (str_list_contains (&p.socket_paths, "/tmp/acme-*"));
  CHECK (p.bind_scan_depth == 4 && p.bind_scan_entries == 5000);
  CHECK (!p.protect_persistence);
  CHECK (p.allowed_devices.len == 2);
  CHECK (str_list_contains (&p.allowed_devices, "fuse"));
  CHECK (str_list_contains (&p.allowed_devices, "net/tun"));
  CHECK (p.safe_capabilities.len == 2);
  CHECK_STR_EQ (p.safe_capabilities.items[0], "CAP_KILL");
  CHECK (p.pids_limit == 256 && p.memory_limit == (int64_t) POLICY_GIB);
  CHECK (p.lifetime == 48 * 3600 && p.max_lifetime == 48 * 3600);
  CHECK (p.limits_unenforceable == POLICY_UNENFORCEABLE_ALLOW);
  CHECK (p.egress_allow.len == 2 && p.egress_ceiling.len == 2);
  CHECK (p.allow_broad_egress);
  CHECK_STR_EQ (p.public_suffix_list, "/etc/agentrt/psl.dat");
  CHECK (!p.egress_transparent);
  CHECK (p.seccomp_profile == NULL);
  CHECK (p.sidecar_uid == 990 && p.sidecar_gid == 991 && p.sidecar_busy_poll_us == 0);
  CHECK_STR_EQ (p.audit_dir, "/srv/audit");
  policy_release (&p);
}

/* The example shipped in docs/ parses. */
static void
test_example (void)
{
  const char *file = __FILE__;
  const char *tail = strstr (file, "tests/unit/test-policy-file.c");
  char *path = tail ? xasprintf ("%.*sdocs/policy.example.json",
                                 (int) (tail - file), file)
                    : xstrdup ("docs/policy.example.json");
  struct agent_policy p;
  agentrt_error_t err = NULL;

  if (policy_file_load (path, &p, &err) < 0)
    fprintf (stderr, "%s\n", err->msg);
  else
    {
      CHECK_STR_EQ (p.seccomp_profile, "/usr/share/agentrt/agent-default.json");
      policy_release (&p);
    }
  CHECK (err == NULL);
  agentrt_error_release (&err);
  free (path);
}

static void
test_files (void)
{
  char dir[] = "/tmp/agentrt-policy-test.XXXXXX";
  struct agent_policy p;
  agentrt_error_t err = NULL;
  char *file, *fifo, *big;
  int fd;

  CHECK (mkdtemp (dir) != NULL);
  file = xasprintf ("%s/policy.json", dir);
  fifo = xasprintf ("%s/fifo", dir);
  big = xasprintf ("%s/big.json", dir);

  CHECK (policy_file_load (dir, &p, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "not a regular file");
  agentrt_error_release (&err);

  CHECK (policy_file_load (file, &p, &err) < 0);
  CHECK (err && err->status == ENOENT);
  agentrt_error_release (&err);

  CHECK (mkfifo (fifo, 0600) == 0);
  CHECK (policy_file_load (fifo, &p, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "not a regular file");
  agentrt_error_release (&err);

  fd = open (big, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  CHECK (fd >= 0 && ftruncate (fd, POLICY_FILE_MAX_SIZE + 1) == 0);
  close (fd);
  CHECK (policy_file_load (big, &p, &err) < 0);
  CHECK (err && err->status == EFBIG);
  agentrt_error_release (&err);

  fd = open (file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  CHECK (fd >= 0 && write (fd, "{\"limits\":{\"pids\":7}}", 21) == 21);
  close (fd);
  CHECK (policy_file_load_default (file, &p, &err) == 0);
  CHECK (p.pids_limit == 7);
  policy_release (&p);

  /* The path appears in the message of a broken file. */
  fd = open (file, O_WRONLY | O_TRUNC | O_CLOEXEC);
  CHECK (fd >= 0 && write (fd, "{\"limits\":{\"pids\":-7}}", 22) == 22);
  close (fd);
  CHECK (policy_file_load_default (file, &p, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "policy.json: limits.pids");
  agentrt_error_release (&err);

  /* Without --policy and without the default file: built-in defaults. */
  if (access (POLICY_FILE_DEFAULT_PATH, F_OK) < 0)
    {
      CHECK (policy_file_load_default (NULL, &p, &err) == 0);
      CHECK (p.pids_limit == 1024);
      policy_release (&p);
    }

  unlink (file);
  unlink (fifo);
  unlink (big);
  rmdir (dir);
  free (file);
  free (fifo);
  free (big);
}

/* A user's file read over the admin's: fields replace or extend, a
 * missing file changes nothing, a broken one is an error naming it. */
static void
test_load_over (void)
{
  char dir[] = "/tmp/agentrt-policy-over-XXXXXX";
  char *file, *missing;
  struct agent_policy p;
  agentrt_error_t err = NULL;
  bool found = true;
  int fd;

  CHECK (mkdtemp (dir) != NULL);
  file = xasprintf ("%s/policy.json", dir);
  missing = xasprintf ("%s/none.json", dir);
  CHECK (policy_file_parse ("{\"limits\":{\"pids\":100},\"egress\":{\"allow\":"
                            "[\"pypi.org\"]},\"audit\":{\"dir\":\"/a\"}}",
                            76, "admin", &p, &err) == 0);
  CHECK (policy_file_load_over (missing, &p, &found, &err) == 0 && !found);
  CHECK (p.pids_limit == 100);

  fd = open (file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  CHECK (fd >= 0
         && write (fd, "{\"limits\":{\"memory\":\"1g\"},\"egress\":{\"allow\":"
                       "[\"x.org\"]}}", 55) == 55);
  close (fd);
  CHECK (policy_file_load_over (file, &p, &found, &err) == 0 && found);
  CHECK (p.pids_limit == 100 && p.memory_limit == (int64_t) POLICY_GIB);
  CHECK (p.egress_allow.len == 2);
  CHECK_STR_EQ (p.audit_dir, "/a");
  /* absent keeps what the admin's said; null turns it off */
  free (p.egress_ask.socket);
  p.egress_ask.socket = xstrdup ("/run/a.sock");
  CHECK (policy_file_load_over (file, &p, &found, &err) == 0);
  CHECK_STR_EQ (p.egress_ask.socket, "/run/a.sock");
  fd = open (file, O_WRONLY | O_TRUNC | O_CLOEXEC);
  CHECK (fd >= 0 && write (fd, "{\"egress\":{\"ask\":null}}", 23) == 23);
  close (fd);
  CHECK (policy_file_load_over (file, &p, &found, &err) == 0);
  CHECK (p.egress_ask.socket == NULL);

  fd = open (file, O_WRONLY | O_TRUNC | O_CLOEXEC);
  CHECK (fd >= 0 && write (fd, "{\"limits\":{\"pid\":1}}", 20) == 20);
  close (fd);
  CHECK (policy_file_load_over (file, &p, &found, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "policy.json: limits.pid: unknown");
  agentrt_error_release (&err);
  policy_release (&p);
  unlink (file);
  rmdir (dir);
  free (file);
  free (missing);
}

/* closest_word (common/closest.c), which the unknown-field errors use:
 * hostile inputs first. */
static void
test_closest (void)
{
  static const char *const words[] = { "memory", "pids", "lifetime", NULL };
  static const char *const none[] = { NULL };
  char big[200];

  memset (big, 'm', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  CHECK (closest_word (NULL, words, 2) == NULL);
  CHECK (closest_word ("memory", NULL, 2) == NULL);
  CHECK (closest_word ("memory", none, 2) == NULL);
  CHECK (closest_word (big, words, 1000) == NULL);
  CHECK (closest_word ("", words, 2) == NULL);
  CHECK (closest_word ("zzzzzz", words, 2) == NULL);
  CHECK_STR_EQ (closest_word ("memroy", words, 2), "memory");
  CHECK_STR_EQ (closest_word ("PIDS", words, 0), "pids");
  CHECK_STR_EQ (closest_word ("lifetim", words, 1), "lifetime");
  CHECK (closest_word ("lifeti", words, 1) == NULL);
}

/* egress.ask (oci/policy_ask.c): hostile values first. */
static void
test_ask_hostile (void)
{
  char long_path[200];

  expect_error ("{\"egress\":{\"ask\":{}}}", "egress.ask.socket");
  expect_error ("{\"egress\":{\"ask\":true}}", "egress.ask: expected an object");
  expect_error ("{\"egress\":{\"ask\":\"/run/a.sock\"}}", "egress.ask");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"run/a.sock\"}}}",
                "egress.ask.socket: expected an absolute path");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/run/a\\u0001.sock\"}}}",
                "egress.ask.socket: holds a control character");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/run/a\\u0000b\"}}}", "egress.ask");
  memset (long_path, 'a', sizeof long_path);
  long_path[0] = '/';
  long_path[108] = '\0';
  {
    char *text = xasprintf ("{\"egress\":{\"ask\":{\"socket\":\"%s\"}}}", long_path);
    expect_error (text, "egress.ask.socket: longer than a unix socket address holds");
    free (text);
  }
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"timeout\":0}}}",
                "egress.ask.timeout");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"timeout\":\"11m\"}}}",
                "egress.ask.timeout: expected 1 s to 10 min");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"timeout\":-1}}}", "egress.ask.timeout");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"timeout\":\"soon\"}}}",
                "egress.ask.timeout: expected a duration");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"maxPending\":0}}}",
                "egress.ask.maxPending: expected 1 to 256");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"maxPending\":257}}}",
                "egress.ask.maxPending");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"maxPending\":1e3}}}",
                "egress.ask.maxPending");
  expect_error ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"sockt\":\"/b\"}}}",
                "egress.ask.sockt: unknown field (did you mean socket?)");
}

static void
test_ask_values (void)
{
  struct agent_policy p;
  char *msg = NULL;

  /* off by default, with the documented defaults for when it is on */
  CHECK ((msg = parse ("{}", &p)) == NULL);
  CHECK (p.egress_ask.socket == NULL);
  CHECK (p.egress_ask.timeout == 30 && p.egress_ask.max_pending == 16);
  policy_release (&p);
  CHECK ((msg = parse ("{\"egress\":{\"ask\":null}}", &p)) == NULL);
  CHECK (p.egress_ask.socket == NULL);
  policy_release (&p);
  CHECK ((msg = parse ("{\"egress\":{\"ask\":{\"socket\":\"/run/agentrt-approve.sock\"}}}",
                       &p)) == NULL);
  CHECK_STR_EQ (p.egress_ask.socket, "/run/agentrt-approve.sock");
  CHECK (p.egress_ask.timeout == 30 && p.egress_ask.max_pending == 16);
  policy_release (&p);
  CHECK ((msg = parse ("{\"egress\":{\"ask\":{\"socket\":\"/a\",\"timeout\":\"2m\","
                       "\"maxPending\":256}}}", &p)) == NULL);
  CHECK (p.egress_ask.timeout == 120 && p.egress_ask.max_pending == 256);
  policy_release (&p);
  free (msg);
}

/* The written policy reads back equal (the hardening record stores it). */
static void
test_ask_round_trip (void)
{
  struct agent_policy p, q;
  struct json_writer *w;
  char *text, *msg;
  size_t len;

  CHECK ((msg = parse ("{\"egress\":{\"ask\":{\"socket\":\"/s\",\"timeout\":7,"
                       "\"maxPending\":3}}}", &p)) == NULL);
  w = json_writer_new (false);
  policy_file_write_json (&p, w);
  text = json_writer_finish (w, &len);
  CHECK_CONTAINS (text, "\"ask\":{\"socket\":\"/s\",\"timeout\":7,\"maxPending\":3}");
  CHECK ((msg = parse (text, &q)) == NULL);
  CHECK_STR_EQ (q.egress_ask.socket, "/s");
  CHECK (q.egress_ask.timeout == 7 && q.egress_ask.max_pending == 3);
  free (text);
  policy_release (&q);
  policy_release (&p);
  policy_init_defaults (&p);
  w = json_writer_new (false);
  policy_file_write_json (&p, w);
  text = json_writer_finish (w, &len);
  CHECK_CONTAINS (text, "\"ask\":null");
  free (text);
  policy_release (&p);
}

int
main (void)
{
  RUN_TEST (test_closest);
  RUN_TEST (test_malformed);
  RUN_TEST (test_empty_is_defaults);
  RUN_TEST (test_values);
  RUN_TEST (test_example);
  RUN_TEST (test_files);
  RUN_TEST (test_load_over);
  RUN_TEST (test_ask_hostile);
  RUN_TEST (test_ask_values);
  RUN_TEST (test_ask_round_trip);
  return UNIT_EXIT ();
}
