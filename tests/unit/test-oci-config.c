/* Unit tests of the config.json parser against hostile input: truncation,
 * deep nesting, huge arrays, NUL bytes, numbers out of range, wrong types,
 * missing required fields, duplicates, and files that are not regular or
 * too large.  Every error message is checked exactly. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/config.h"
#include "unit.h"

/* A valid document around `extra` members. */
#define CFG(extra) "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"}" extra "}"
#define PROC(fields)                                                          \
  CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":0,\"gid\":0},"         \
       "\"args\":[\"sh\"]" fields "}")
#define LINUX(fields) CFG (",\"linux\":{" fields "}")
#define SECCOMP(fields) LINUX ("\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ALLOW\"" fields "}")
#define RESOURCES(fields) LINUX ("\"resources\":{" fields "}")

/* The error of parsing `len` bytes (malloc'd), NULL when it parses. */
static char *
parse_error_n (const char *json, size_t len)
{
  agentrt_error_t err = NULL;
  struct oci_config *c = oci_config_parse (json, len, "config.json", &err);
  char *msg;

  if (c)
    {
      oci_config_free (c);
      return NULL;
    }
  msg = strdup (err->msg);
  agentrt_error_release (&err);
  return msg;
}

static char *
parse_error (const char *json)
{
  return parse_error_n (json, strlen (json));
}

#define CHECK_ERROR(json, expected)                                           \
  do                                                                          \
    {                                                                         \
      char *msg_ = parse_error (json);                                        \
      CHECK_STR_EQ (msg_, expected);                                          \
      free (msg_);                                                            \
    }                                                                         \
  while (0)

#define CHECK_PARSES(json)                                                    \
  do                                                                          \
    {                                                                         \
      char *msg_ = parse_error (json);                                        \
      CHECK_STR_EQ (msg_ ? msg_ : "parsed", "parsed");                        \
      free (msg_);                                                            \
    }                                                                         \
  while (0)

static void
test_truncated (void)
{
  static const char doc[] = PROC (",\"env\":[\"A=1\",\"B=2\"]");
  char *msg;

  CHECK_ERROR ("", "config.json: parse error: premature EOF at byte 0");
  CHECK_ERROR ("{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"roo",
               "config.json: root.path: parse error: premature EOF at byte 41");
  CHECK_ERROR ("{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"},",
               "config.json: parse error: premature EOF at byte 47");
  /* Every prefix fails cleanly, with a one-line message. */
  for (size_t len = 0; len < sizeof doc - 1; len++)
    {
      msg = parse_error_n (doc, len);
      CHECK (msg != NULL);
      CHECK (msg && strchr (msg, '\n') == NULL);
      CHECK (msg && strncmp (msg, "config.json: ", 13) == 0);
      free (msg);
    }
  CHECK_PARSES (doc);
}

static void
test_syntax_errors (void)
{
  CHECK_ERROR ("{\"ociVersion\":\"1.2.0\",}",
               "config.json: parse error: invalid object key (must be a string) at byte 23");
  CHECK_ERROR (CFG ("") " x", "config.json: parse error: trailing garbage at byte 49");
  CHECK_ERROR ("{\"ociVersion\":\"1.2.0\" \"root\":1}",
               "config.json: parse error: after key and value, inside map, "
               "I expect ',' or '}' at byte 24");
  CHECK_ERROR ("{\"a\":\"\xff\"}", "config.json: a: string is not valid UTF-8");
  /* Overlong forms and encoded surrogates, which yajl lets through. */
  CHECK_ERROR ("{\"a\":\"v\xc1\xa4lue\"}", "config.json: a: string is not valid UTF-8");
  CHECK_ERROR ("{\"a\":\"\xed\xa0\x80\"}", "config.json: a: string is not valid UTF-8");
  CHECK_ERROR ("{\"\xe0\x80\xaf\":1}", "config.json: member name is not valid UTF-8");
  CHECK_ERROR ("{\"a\":\"\xf4\x90\x80\x80\"}", "config.json: a: string is not valid UTF-8");
  CHECK_ERROR ("{\"a\":\"x\ty\"}", "config.json: a: lexical error: invalid character "
                                     "inside string at byte 7");
  CHECK_ERROR ("{\"a\":01}", "config.json: parse error: after key and value, "
                             "inside map, I expect ',' or '}' at byte 6");
  CHECK_ERROR ("[]", "config.json: expected an object");
  CHECK_ERROR ("\"x\"", "config.json: expected an object");
  CHECK_ERROR ("null", "config.json: expected an object");
}

static void
test_deep_nesting (void)
{
  size_t n = 100000;
  char *doc = malloc (n + 1), *msg;
  char expect[64 * 3 + 64] = "config.json: ";

  memset (doc, '[', n);
  doc[n] = '\0';
  for (int i = 0; i < 64; i++)
    strcat (expect, "[0]");
  strcat (expect, ": nesting deeper than 64 levels");
  msg = parse_error (doc);
  CHECK_STR_EQ (msg, expect);
  free (msg);

  /* Objects: the path names the keys. */
  for (size_t i = 0; i + 5 <= n; i += 5)
    memcpy (doc + i, "{\"a\":", 5);
  msg = parse_error_n (doc, n);
  CHECK_CONTAINS (msg, "config.json: a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.");
  CHECK_CONTAINS (msg, ": nesting deeper than 64 levels");
  free (msg);

  /* Exactly 64 levels are fine (then refused as not an object). */
  memset (doc, '[', 64);
  memset (doc + 64, ']', 64);
  msg = parse_error_n (doc, 128);
  CHECK_STR_EQ (msg, "config.json: expected an object");
  free (msg);
  free (doc);
}

/* `{... "process": {... "env": [ "x", "x", ... n times ]}}` */
static char *
config_with_env (size_t n)
{
  const char *head = "{\"ociVersion\":\"1.0\",\"root\":{\"path\":\"r\"},\"process\":"
                     "{\"cwd\":\"/\",\"user\":{\"uid\":0,\"gid\":0},\"args\":[\"sh\"],"
                     "\"env\":[";
  size_t hl = strlen (head);
  char *doc = malloc (hl + n * 4 + 8), *p;

  memcpy (doc, head, hl);
  p = doc + hl;
  for (size_t i = 0; i < n; i++)
    p = stpcpy (p, i ? ",\"x\"" : "\"x\"");
  strcpy (p, "]}}");
  return doc;
}

static void
test_huge_arrays (void)
{
  char *doc, *msg;

  doc = config_with_env (65536);
  CHECK_PARSES (doc);
  free (doc);
  doc = config_with_env (65537);
  msg = parse_error (doc);
  CHECK_STR_EQ (msg, "config.json: process.env: more than 65536 entries");
  free (msg);
  free (doc);
}

static void
test_too_many_values (void)
{
  /* 17 arrays of 65536 numbers: more than 2^20 values in all. */
  size_t per = 65536, arrays = 17;
  char *doc = malloc (arrays * (per * 2 + 2) + 16), *p = doc, *msg;

  *p++ = '[';
  for (size_t a = 0; a < arrays; a++)
    {
      *p++ = a ? ',' : '[';
      if (a)
        *p++ = '[';
      for (size_t i = 0; i < per; i++)
        {
          *p++ = '0';
          *p++ = ',';
        }
      p[-1] = ']';
    }
  *p++ = ']';
  msg = parse_error_n (doc, (size_t) (p - doc));
  CHECK_STR_EQ (msg, "config.json: [15]: more than 1048576 values in the document");
  free (msg);
  free (doc);
}

static void
test_nul_bytes (void)
{
  static const char raw[] = "{\"ociVersion\":\"1.2\0\"}";
  char *msg = parse_error_n (raw, sizeof raw - 1);

  CHECK_STR_EQ (msg, "config.json: ociVersion: lexical error: invalid character "
                     "inside string at byte 18");
  free (msg);
  msg = parse_error_n (CFG ("") "\0", sizeof (CFG ("")));
  CHECK_STR_EQ (msg, "config.json: parse error: trailing garbage at byte 48");
  free (msg);
  CHECK_ERROR (PROC (",\"env\":[\"A=1\",\"B=\\u0000x\"]"),
               "config.json: process.env[1]: string contains a NUL byte");
  CHECK_ERROR (CFG (",\"annotations\":{\"a\\u0000b\":\"x\"}"),
               "config.json: annotations: member name contains a NUL byte");
  CHECK_ERROR (CFG (",\"hostname\":\"\\u0000\""),
               "config.json: hostname: string contains a NUL byte");
  /* An unpaired low surrogate would decode to invalid UTF-8. */
  CHECK_ERROR (CFG (",\"hostname\":\"caf\\u00e9-\\ude00\""),
               "config.json: hostname: string is not valid UTF-8");
  CHECK_ERROR (CFG (",\"annotations\":{\"\\udc00\":\"x\"}"),
               "config.json: annotations: member name is not valid UTF-8");
  /* Other escapes decode normally. */
  CHECK_PARSES (CFG (",\"hostname\":\"a\\u00e9\\n\\t\\\"\\\\\\/\""));
}

static void
test_numbers (void)
{
  CHECK_ERROR (PROC (",\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"soft\":1,\"hard\":1},"
                     "{\"type\":\"RLIMIT_CPU\",\"soft\":1,\"hard\":1},"
                     "{\"type\":\"RLIMIT_AS\",\"soft\":1,\"hard\":-1}]"),
               "config.json: process.rlimits[2].hard: expected an unsigned integer");
  CHECK_ERROR (PROC (",\"rlimits\":[{\"type\":\"RLIMIT_AS\",\"soft\":18446744073709551616,"
                     "\"hard\":1}]"),
               "config.json: process.rlimits[0].soft: out of range (0..18446744073709551615)");
  CHECK_PARSES (PROC (",\"rlimits\":[{\"type\":\"RLIMIT_AS\",\"soft\":18446744073709551615,"
                      "\"hard\":18446744073709551615}]"));
  CHECK_ERROR (CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":-1,\"gid\":0},\"args\":[\"sh\"]}"),
               "config.json: process.user.uid: expected an unsigned integer");
  CHECK_ERROR (CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":4294967296,\"gid\":0},"
                    "\"args\":[\"sh\"]}"),
               "config.json: process.user.uid: out of range (0..4294967295)");
  CHECK_ERROR (CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":1.0,\"gid\":0},\"args\":[\"sh\"]}"),
               "config.json: process.user.uid: expected an unsigned integer");
  CHECK_ERROR (CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":1e3,\"gid\":0},\"args\":[\"sh\"]}"),
               "config.json: process.user.uid: expected an unsigned integer");
  CHECK_ERROR (CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":\"0\",\"gid\":0},\"args\":[\"sh\"]}"),
               "config.json: process.user.uid: expected an unsigned integer");
  CHECK_PARSES (CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":-0,\"gid\":0},\"args\":[\"sh\"]}"));
  CHECK_ERROR (PROC (",\"user\":{\"uid\":0,\"gid\":0,\"additionalGids\":[1,-2]}"),
               "config.json: process.user.additionalGids[1]: expected an unsigned integer");
  CHECK_ERROR (PROC (",\"oomScoreAdj\":1001"),
               "config.json: process.oomScoreAdj: out of range (-1000..1000)");
  CHECK_ERROR (PROC (",\"oomScoreAdj\":-2147483649"),
               "config.json: process.oomScoreAdj: out of range (-2147483648..2147483647)");
  CHECK_ERROR (PROC (",\"oomScoreAdj\":0.5"),
               "config.json: process.oomScoreAdj: expected an integer");
  CHECK_ERROR (RESOURCES ("\"memory\":{\"limit\":9223372036854775808}"),
               "config.json: linux.resources.memory.limit: out of range "
               "(-9223372036854775808..9223372036854775807)");
  CHECK_PARSES (RESOURCES ("\"memory\":{\"limit\":-9223372036854775808}"));
  CHECK_ERROR (RESOURCES ("\"memory\":{\"limit\":99999999999999999999999999999999}"),
               "config.json: linux.resources.memory.limit: out of range "
               "(-9223372036854775808..9223372036854775807)");
  CHECK_ERROR (RESOURCES ("\"memory\":{\"swappiness\":101}"),
               "config.json: linux.resources.memory.swappiness: out of range (0..100)");
  CHECK_ERROR (RESOURCES ("\"blockIO\":{\"weight\":65536}"),
               "config.json: linux.resources.blockIO.weight: out of range (0..65535)");
  CHECK_ERROR (SECCOMP (",\"syscalls\":[{\"names\":[\"kill\"],\"action\":\"SCMP_ACT_ALLOW\","
                        "\"args\":[{\"index\":6,\"value\":1,\"op\":\"SCMP_CMP_EQ\"}]}]"),
               "config.json: linux.seccomp.syscalls[0].args[0].index: out of range (0..5)");
  CHECK_ERROR (SECCOMP (",\"syscalls\":[{\"names\":[\"kill\"],\"action\":\"SCMP_ACT_ERRNO\","
                        "\"errnoRet\":65536}]"),
               "config.json: linux.seccomp.syscalls[0].errnoRet: out of range (0..65535)");
  CHECK_ERROR (LINUX ("\"timeOffsets\":{\"boottime\":{\"nanosecs\":1000000000}}"),
               "config.json: linux.timeOffsets.boottime.nanosecs: out of range (0..999999999)");
  CHECK_ERROR (PROC (",\"ioPriority\":{\"class\":\"IOPRIO_CLASS_BE\",\"priority\":8}"),
               "config.json: process.ioPriority.priority: out of range (0..7)");
  CHECK_ERROR (PROC (",\"scheduler\":{\"policy\":\"SCHED_OTHER\",\"nice\":20}"),
               "config.json: process.scheduler.nice: out of range (-20..19)");
  CHECK_ERROR (CFG (",\"hooks\":{\"poststop\":[{\"path\":\"/bin/true\",\"timeout\":0}]}"),
               "config.json: hooks.poststop[0].timeout: must be greater than zero");
}

static void
test_wrong_types (void)
{
  static const struct
  {
    const char *json;
    const char *error;
  } cases[] = {
    { "{\"ociVersion\":1,\"root\":{\"path\":\"r\"}}", "config.json: ociVersion: expected a string" },
    { "{\"ociVersion\":\"1\",\"root\":\"r\"}", "config.json: root: expected an object" },
    { CFG (",\"root\":{\"path\":\"r\",\"readonly\":\"yes\"}"),
      "config.json: root.readonly: expected a boolean" },
    { CFG (",\"process\":[]"), "config.json: process: expected an object" },
    { PROC (",\"terminal\":1"), "config.json: process.terminal: expected a boolean" },
    { PROC (",\"args\":\"sh\""), "config.json: process.args: expected an array" },
    { PROC (",\"args\":[\"sh\",1]"), "config.json: process.args[1]: expected a string" },
    { PROC (",\"env\":[null]"), "config.json: process.env[0]: expected a string" },
    { PROC (",\"capabilities\":{\"bounding\":[true]}"),
      "config.json: process.capabilities.bounding[0]: expected a string" },
    { PROC (",\"rlimits\":{}"), "config.json: process.rlimits: expected an array" },
    { PROC (",\"rlimits\":[1]"), "config.json: process.rlimits[0]: expected an object" },
    { PROC (",\"consoleSize\":{\"height\":\"24\",\"width\":80}"),
      "config.json: process.consoleSize.height: expected an unsigned integer" },
    { CFG (",\"hostname\":[]"), "config.json: hostname: expected a string" },
    { CFG (",\"mounts\":{}"), "config.json: mounts: expected an array" },
    { CFG (",\"mounts\":[{\"destination\":\"/a\",\"options\":\"ro\"}]"),
      "config.json: mounts[0].options: expected an array" },
    { CFG (",\"hooks\":{\"prestart\":{}}"), "config.json: hooks.prestart: expected an array" },
    { CFG (",\"annotations\":[]"), "config.json: annotations: expected an object" },
    { CFG (",\"annotations\":{\"run.agentrt.timeout\":300}"),
      "config.json: annotations[\"run.agentrt.timeout\"]: expected a string" },
    { CFG (",\"linux\":true"), "config.json: linux: expected an object" },
    { LINUX ("\"namespaces\":[\"pid\"]"), "config.json: linux.namespaces[0]: expected an object" },
    { LINUX ("\"sysctl\":{\"net.ipv4.ip_forward\":1}"),
      "config.json: linux.sysctl[\"net.ipv4.ip_forward\"]: expected a string" },
    { RESOURCES ("\"devices\":[{\"allow\":\"false\"}]"),
      "config.json: linux.resources.devices[0].allow: expected a boolean" },
    { RESOURCES ("\"cpu\":{\"cpus\":3}"), "config.json: linux.resources.cpu.cpus: expected a string" },
    { RESOURCES ("\"pids\":{\"limit\":\"max\"}"),
      "config.json: linux.resources.pids.limit: expected an integer" },
    { RESOURCES ("\"unified\":{\"memory.max\":null}"),
      "config.json: linux.resources.unified[\"memory.max\"]: expected a string" },
    { SECCOMP (",\"syscalls\":[{\"names\":\"read\",\"action\":\"SCMP_ACT_ALLOW\"}]"),
      "config.json: linux.seccomp.syscalls[0].names: expected an array" },
    { LINUX ("\"maskedPaths\":[1]"), "config.json: linux.maskedPaths[0]: expected a string" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK_ERROR (cases[i].json, cases[i].error);
}

static void
test_missing_required (void)
{
  static const struct
  {
    const char *json;
    const char *error;
  } cases[] = {
    { "{}", "config.json: ociVersion: missing required field" },
    { "{\"ociVersion\":\"1.2.0\"}", "config.json: root: missing required field" },
    { "{\"ociVersion\":\"1.2.0\",\"root\":{}}", "config.json: root.path: missing required field" },
    { "{\"ociVersion\":null,\"root\":{\"path\":\"r\"}}",
      "config.json: ociVersion: missing required field" },
    { CFG (",\"process\":{\"user\":{\"uid\":0,\"gid\":0},\"args\":[\"sh\"]}"),
      "config.json: process.cwd: missing required field" },
    { CFG (",\"process\":{\"cwd\":\"/\",\"args\":[\"sh\"]}"),
      "config.json: process.user: missing required field" },
    { CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"gid\":0},\"args\":[\"sh\"]}"),
      "config.json: process.user.uid: missing required field" },
    { CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":0},\"args\":[\"sh\"]}"),
      "config.json: process.user.gid: missing required field" },
    { CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":0,\"gid\":0}}"),
      "config.json: process.args: missing required field" },
    { CFG (",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":0,\"gid\":0},\"args\":[]}"),
      "config.json: process.args: must not be empty" },
    { PROC (",\"consoleSize\":{\"height\":24}"),
      "config.json: process.consoleSize.width: missing required field" },
    { PROC (",\"rlimits\":[{\"soft\":1,\"hard\":1}]"),
      "config.json: process.rlimits[0].type: missing required field" },
    { PROC (",\"rlimits\":[{\"type\":\"RLIMIT_CORE\",\"hard\":1}]"),
      "config.json: process.rlimits[0].soft: missing required field" },
    { PROC (",\"rlimits\":[{\"type\":\"RLIMIT_CORE\",\"soft\":1}]"),
      "config.json: process.rlimits[0].hard: missing required field" },
    { PROC (",\"scheduler\":{}"), "config.json: process.scheduler.policy: missing required field" },
    { PROC (",\"ioPriority\":{\"class\":\"IOPRIO_CLASS_RT\"}"),
      "config.json: process.ioPriority.priority: missing required field" },
    { CFG (",\"mounts\":[{\"destination\":\"/a\"},{\"type\":\"tmpfs\"}]"),
      "config.json: mounts[1].destination: missing required field" },
    { CFG (",\"mounts\":[{\"destination\":\"/a\",\"uidMappings\":[{\"containerID\":0,"
           "\"hostID\":1000}]}]"),
      "config.json: mounts[0].uidMappings[0].size: missing required field" },
    { CFG (",\"mounts\":[{\"destination\":\"/a\",\"uidMappings\":[{\"containerID\":0,"
           "\"hostID\":1000,\"size\":1}]}]"),
      "config.json: mounts[0].gidMappings: required when uidMappings is set" },
    { CFG (",\"hooks\":{\"createRuntime\":[{\"args\":[\"x\"]}]}"),
      "config.json: hooks.createRuntime[0].path: missing required field" },
    { LINUX ("\"namespaces\":[{\"path\":\"/proc/1/ns/net\"}]"),
      "config.json: linux.namespaces[0].type: missing required field" },
    { LINUX ("\"uidMappings\":[{\"hostID\":1,\"size\":1}]"),
      "config.json: linux.uidMappings[0].containerID: missing required field" },
    { LINUX ("\"gidMappings\":[{\"containerID\":0,\"size\":1}]"),
      "config.json: linux.gidMappings[0].hostID: missing required field" },
    { LINUX ("\"devices\":[{\"type\":\"c\",\"major\":1,\"minor\":3}]"),
      "config.json: linux.devices[0].path: missing required field" },
    { LINUX ("\"devices\":[{\"path\":\"/dev/null\",\"major\":1,\"minor\":3}]"),
      "config.json: linux.devices[0].type: missing required field" },
    { LINUX ("\"devices\":[{\"path\":\"/dev/null\",\"type\":\"c\",\"minor\":3}]"),
      "config.json: linux.devices[0].major: missing required field" },
    { LINUX ("\"devices\":[{\"path\":\"/dev/sda\",\"type\":\"b\",\"major\":8}]"),
      "config.json: linux.devices[0].minor: missing required field" },
    { RESOURCES ("\"devices\":[{\"access\":\"rwm\"}]"),
      "config.json: linux.resources.devices[0].allow: missing required field" },
    { RESOURCES ("\"hugepageLimits\":[{\"pageSize\":\"2MB\"}]"),
      "config.json: linux.resources.hugepageLimits[0].limit: missing required field" },
    { RESOURCES ("\"blockIO\":{\"throttleReadBpsDevice\":[{\"major\":8,\"minor\":0}]}"),
      "config.json: linux.resources.blockIO.throttleReadBpsDevice[0].rate: missing required field" },
    { RESOURCES ("\"blockIO\":{\"weightDevice\":[{\"major\":8,\"minor\":0}]}"),
      "config.json: linux.resources.blockIO.weightDevice[0]: needs weight or leafWeight" },
    { RESOURCES ("\"rdma\":{\"mlx5_1\":{}}"),
      "config.json: linux.resources.rdma.mlx5_1: needs hcaHandles or hcaObjects" },
    { LINUX ("\"seccomp\":{\"syscalls\":[]}"),
      "config.json: linux.seccomp.defaultAction: missing required field" },
    { SECCOMP (",\"syscalls\":[{\"action\":\"SCMP_ACT_ALLOW\"}]"),
      "config.json: linux.seccomp.syscalls[0].names: missing required field" },
    { SECCOMP (",\"syscalls\":[{\"names\":[],\"action\":\"SCMP_ACT_ALLOW\"}]"),
      "config.json: linux.seccomp.syscalls[0].names: must not be empty" },
    { SECCOMP (",\"syscalls\":[{\"names\":[\"read\"]}]"),
      "config.json: linux.seccomp.syscalls[0].action: missing required field" },
    { SECCOMP (",\"syscalls\":[{\"names\":[\"kill\"],\"action\":\"SCMP_ACT_ALLOW\","
               "\"args\":[{\"value\":1,\"op\":\"SCMP_CMP_EQ\"}]}]"),
      "config.json: linux.seccomp.syscalls[0].args[0].index: missing required field" },
    { SECCOMP (",\"syscalls\":[{\"names\":[\"kill\"],\"action\":\"SCMP_ACT_ALLOW\","
               "\"args\":[{\"index\":1,\"op\":\"SCMP_CMP_EQ\"}]}]"),
      "config.json: linux.seccomp.syscalls[0].args[0].value: missing required field" },
    { SECCOMP (",\"syscalls\":[{\"names\":[\"kill\"],\"action\":\"SCMP_ACT_ALLOW\","
               "\"args\":[{\"index\":1,\"value\":1}]}]"),
      "config.json: linux.seccomp.syscalls[0].args[0].op: missing required field" },
    { LINUX ("\"personality\":{\"flags\":[]}"),
      "config.json: linux.personality.domain: missing required field" },
    { LINUX ("\"memoryPolicy\":{\"nodes\":\"0\"}"),
      "config.json: linux.memoryPolicy.mode: missing required field" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK_ERROR (cases[i].json, cases[i].error);
}

static void
test_invalid_values (void)
{
  static const struct
  {
    const char *json;
    const char *error;
  } cases[] = {
    { LINUX ("\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"network\"},{\"type\":\"ipc\"},"
             "{\"type\":\"pid\"}]"),
      "config.json: linux.namespaces[3].type: duplicate namespace \"pid\"" },
    { LINUX ("\"namespaces\":[{\"type\":\"net\"}]"),
      "config.json: linux.namespaces[0].type: unknown namespace type \"net\"" },
    { LINUX ("\"namespaces\":[{\"type\":\"network\",\"path\":\"run/netns/x\"}]"),
      "config.json: linux.namespaces[0].path: must be an absolute path" },
    { CFG (",\"mounts\":[{\"destination\":\"/proc\"},{\"destination\":\"data\"}]"),
      "config.json: mounts[1].destination: must be an absolute path" },
    { CFG (",\"mounts\":[{\"destination\":\"\"}]"),
      "config.json: mounts[0].destination: must be an absolute path" },
    { CFG (",\"process\":{\"cwd\":\"work\",\"user\":{\"uid\":0,\"gid\":0},\"args\":[\"sh\"]}"),
      "config.json: process.cwd: must be an absolute path" },
    { CFG (",\"hooks\":{\"poststart\":[{\"path\":\"true\"}]}"),
      "config.json: hooks.poststart[0].path: must be an absolute path" },
    { LINUX ("\"readonlyPaths\":[\"/proc/sys\",\"proc/bus\"]"),
      "config.json: linux.readonlyPaths[1]: must be an absolute path" },
    { PROC (",\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"soft\":1,\"hard\":1},"
            "{\"type\":\"RLIMIT_NOFILE\",\"soft\":2,\"hard\":2}]"),
      "config.json: process.rlimits[1].type: duplicate rlimit \"RLIMIT_NOFILE\"" },
    { PROC (",\"rlimits\":[{\"type\":\"RLIMIT_FOO\",\"soft\":1,\"hard\":1}]"),
      "config.json: process.rlimits[0].type: unknown rlimit \"RLIMIT_FOO\"" },
    { PROC (",\"scheduler\":{\"policy\":\"SCHED_FAST\"}"),
      "config.json: process.scheduler.policy: unknown scheduler policy \"SCHED_FAST\"" },
    { PROC (",\"scheduler\":{\"policy\":\"SCHED_RR\",\"flags\":[\"SCHED_FLAG_X\"]}"),
      "config.json: process.scheduler.flags[0]: unknown scheduler flag \"SCHED_FLAG_X\"" },
    { PROC (",\"ioPriority\":{\"class\":\"best-effort\",\"priority\":1}"),
      "config.json: process.ioPriority.class: unknown I/O priority class \"best-effort\"" },
    { LINUX ("\"devices\":[{\"path\":\"/dev/x\",\"type\":\"x\",\"major\":1,\"minor\":1}]"),
      "config.json: linux.devices[0].type: unknown device type \"x\"" },
    { LINUX ("\"devices\":[{\"path\":\"dev/null\",\"type\":\"c\",\"major\":1,\"minor\":3}]"),
      "config.json: linux.devices[0].path: must be an absolute path" },
    { RESOURCES ("\"devices\":[{\"allow\":true,\"type\":\"p\"}]"),
      "config.json: linux.resources.devices[0].type: unknown device type \"p\"" },
    { RESOURCES ("\"devices\":[{\"allow\":true,\"access\":\"rwx\"}]"),
      "config.json: linux.resources.devices[0].access: must be a combination of "
      "\"r\", \"w\" and \"m\"" },
    { SECCOMP (",\"syscalls\":[{\"names\":[\"kill\"],\"action\":\"SCMP_ACT_MAYBE\"}]"),
      "config.json: linux.seccomp.syscalls[0].action: unknown seccomp action \"SCMP_ACT_MAYBE\"" },
    { LINUX ("\"seccomp\":{\"defaultAction\":\"allow\"}"),
      "config.json: linux.seccomp.defaultAction: unknown seccomp action \"allow\"" },
    { SECCOMP (",\"syscalls\":[{\"names\":[\"kill\"],\"action\":\"SCMP_ACT_ALLOW\","
               "\"args\":[{\"index\":0,\"value\":1,\"op\":\"SCMP_CMP_XOR\"}]}]"),
      "config.json: linux.seccomp.syscalls[0].args[0].op: unknown seccomp operator \"SCMP_CMP_XOR\"" },
    { SECCOMP (",\"architectures\":[\"SCMP_ARCH_X86_64\",\"SCMP_ARCH_Z80\"]"),
      "config.json: linux.seccomp.architectures[1]: unknown seccomp architecture \"SCMP_ARCH_Z80\"" },
    { SECCOMP (",\"flags\":[\"SECCOMP_FILTER_FLAG_NEW_LISTENER\"]"),
      "config.json: linux.seccomp.flags[0]: unknown seccomp flag \"SECCOMP_FILTER_FLAG_NEW_LISTENER\"" },
    { SECCOMP (",\"defaultErrnoRet\":1"),
      "config.json: linux.seccomp.defaultErrnoRet: not allowed with action SCMP_ACT_ALLOW" },
    { SECCOMP (",\"syscalls\":[{\"names\":[\"kill\"],\"action\":\"SCMP_ACT_KILL\",\"errnoRet\":1}]"),
      "config.json: linux.seccomp.syscalls[0].errnoRet: not allowed with action SCMP_ACT_KILL" },
    { SECCOMP (",\"listenerMetadata\":\"x\""),
      "config.json: linux.seccomp.listenerMetadata: requires listenerPath" },
    { LINUX ("\"rootfsPropagation\":\"rshare\""),
      "config.json: linux.rootfsPropagation: unknown rootfs propagation \"rshare\"" },
    { LINUX ("\"personality\":{\"domain\":\"LINUX64\"}"),
      "config.json: linux.personality.domain: unknown personality domain \"LINUX64\"" },
    { LINUX ("\"timeOffsets\":{\"realtime\":{\"secs\":1}}"),
      "config.json: linux.timeOffsets.realtime: unknown clock \"realtime\"" },
    { LINUX ("\"netDevices\":{\"../eth0\":{}}"),
      "config.json: linux.netDevices[\"../eth0\"]: invalid network device name \"../eth0\"" },
    { LINUX ("\"netDevices\":{\"eth0\":{\"name\":\"averyveryverylongname\"}}"),
      "config.json: linux.netDevices.eth0.name: invalid network device name "
      "\"averyveryverylongname\"" },
    { LINUX ("\"intelRdt\":{\"closID\":\"../../tasks\"}"),
      "config.json: linux.intelRdt.closID: must be \"/\" or a plain directory name" },
    { LINUX ("\"intelRdt\":{\"memBwSchema\":\"L3:0=f\"}"),
      "config.json: linux.intelRdt.memBwSchema: must start with \"MB:\"" },
    { LINUX ("\"intelRdt\":{\"schemata\":[\"L3:0=f\\nMB:0=1\"]}"),
      "config.json: linux.intelRdt.schemata[0]: must not contain a newline" },
    { LINUX ("\"memoryPolicy\":{\"mode\":\"MPOL_RANDOM\"}"),
      "config.json: linux.memoryPolicy.mode: unknown memory policy mode \"MPOL_RANDOM\"" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK_ERROR (cases[i].json, cases[i].error);
}

/* Values echoed in messages are escaped and shortened. */
static void
test_quoted_values (void)
{
  char doc[1024], *msg;

  CHECK_ERROR (LINUX ("\"namespaces\":[{\"type\":\"p\\u001bid\\\"\"}]"),
               "config.json: linux.namespaces[0].type: unknown namespace type "
               "\"p\\u001bid\\\"\"");
  snprintf (doc, sizeof doc, LINUX ("\"namespaces\":[{\"type\":\"%0300d\"}]"), 0);
  msg = parse_error (doc);
  CHECK (msg && strlen (msg) < 200);
  CHECK_CONTAINS (msg, "000...\"");
  free (msg);
}

static void
test_lenient (void)
{
  agentrt_error_t err = NULL;
  static const char doc[]
      = "{\"ociVersion\":\"1.2.0\",\"unknown\":{\"deep\":[1,2,{\"x\":null}]},"
        "\"root\":{\"path\":\"a\"},\"root\":{\"path\":\"b\",\"future\":true},"
        "\"hostname\":null,\"process\":null,\"linux\":{\"resources\":null,"
        "\"rootfsPropagation\":\"\",\"windows\":{}},\"annotations\":{\"k\":\"1\",\"k\":\"2\"}}";
  struct oci_config *c = oci_config_parse (doc, strlen (doc), "config.json", &err);

  CHECK (c != NULL);
  if (c == NULL)
    return;
  CHECK_STR_EQ (c->root.path, "b");
  CHECK (c->hostname == NULL);
  CHECK (c->process == NULL);
  CHECK (c->linux_cfg && c->linux_cfg->resources == NULL);
  CHECK (c->linux_cfg && c->linux_cfg->rootfs_propagation == NULL);
  CHECK (c->annotations.len == 1);
  CHECK_STR_EQ (kv_list_get (&c->annotations, "k"), "2");
  oci_config_free (c);
}

/* More than 16 members takes the sorting path of duplicate removal. */
static void
test_many_duplicate_keys (void)
{
  char doc[4096], *p;
  agentrt_error_t err = NULL;
  struct oci_config *c;

  p = stpcpy (doc, "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"r\"},\"annotations\":{");
  for (int i = 0; i < 40; i++)
    p += sprintf (p, "%s\"k%d\":\"v%d\"", i ? "," : "", i % 25, i);
  strcpy (p, "}}");
  c = oci_config_parse (doc, strlen (doc), "config.json", &err);
  CHECK (c != NULL);
  if (c == NULL)
    return;
  CHECK (c->annotations.len == 25);
  CHECK_STR_EQ (kv_list_get (&c->annotations, "k3"), "v28");
  CHECK_STR_EQ (kv_list_get (&c->annotations, "k20"), "v20");
  CHECK_STR_EQ (kv_list_get (&c->annotations, "k14"), "v39");
  oci_config_free (c);
}

static char tmpdir[] = "/tmp/test-oci-config-XXXXXX";

static char *
tmp_path (const char *name)
{
  char *p = malloc (strlen (tmpdir) + strlen (name) + 2);
  sprintf (p, "%s/%s", tmpdir, name);
  return p;
}

static char *
parse_file_error (const char *path)
{
  agentrt_error_t err = NULL;
  struct oci_config *c = oci_config_parse_file (path, &err);
  char *msg;

  if (c)
    {
      oci_config_free (c);
      return NULL;
    }
  msg = strdup (err->msg);
  agentrt_error_release (&err);
  return msg;
}

static void
test_files (void)
{
  char *fifo = tmp_path ("fifo"), *big = tmp_path ("big.json"), *edge = tmp_path ("edge.json");
  char *ok = tmp_path ("config.json"), *msg, expect[512];
  int fd, dirfd;
  agentrt_error_t err = NULL;
  struct oci_config *c;

  /* A FIFO is refused without blocking (alarm() fails the test if it hangs). */
  CHECK (mkfifo (fifo, 0600) == 0);
  alarm (10);
  msg = parse_file_error (fifo);
  alarm (0);
  snprintf (expect, sizeof expect, "`%s`: not a regular file", fifo);
  CHECK_STR_EQ (msg, expect);
  free (msg);

  msg = parse_file_error (tmpdir);
  snprintf (expect, sizeof expect, "`%s`: not a regular file", tmpdir);
  CHECK_STR_EQ (msg, expect);
  free (msg);
  msg = parse_file_error ("/dev/null");
  CHECK_STR_EQ (msg, "`/dev/null`: not a regular file");
  free (msg);

  /* 1 GiB (sparse) is refused from its size, without reading it. */
  fd = open (big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK (fd >= 0 && ftruncate (fd, 1L << 30) == 0);
  close (fd);
  msg = parse_file_error (big);
  snprintf (expect, sizeof expect, "`%s`: larger than 16777216 bytes: %s", big,
            strerror (EFBIG));
  CHECK_STR_EQ (msg, expect);
  free (msg);
  fd = open (edge, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK (fd >= 0 && ftruncate (fd, OCI_CONFIG_MAX_SIZE + 1) == 0);
  close (fd);
  msg = parse_file_error (edge);
  CHECK_CONTAINS (msg, "larger than 16777216 bytes");
  free (msg);

  msg = parse_file_error ("/nonexistent/config.json");
  snprintf (expect, sizeof expect, "open `/nonexistent/config.json`: %s", strerror (ENOENT));
  CHECK_STR_EQ (msg, expect);
  free (msg);

  /* A good file, by path and relative to a directory fd. */
  fd = open (ok, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK (fd >= 0 && write (fd, CFG (""), strlen (CFG (""))) > 0);
  close (fd);
  msg = parse_file_error (ok);
  CHECK (msg == NULL);
  free (msg);
  dirfd = open (tmpdir, O_RDONLY | O_DIRECTORY);
  c = oci_config_parse_file_at (dirfd, "config.json", &err);
  CHECK (c != NULL && strcmp (c->root.path, "rootfs") == 0);
  oci_config_free (c);
  c = oci_config_parse_file_at (dirfd, "fifo", &err);
  CHECK (c == NULL);
  CHECK_STR_EQ (err ? err->msg : NULL, "`fifo`: not a regular file");
  agentrt_error_release (&err);
  close (dirfd);

  unlink (fifo);
  unlink (big);
  unlink (edge);
  unlink (ok);
  free (fifo);
  free (big);
  free (edge);
  free (ok);
}

/* A string literal and its length. */
#define DOC(s) s, sizeof (s) - 1

static void
test_sub_documents (void)
{
  agentrt_error_t err = NULL;
  struct oci_process *p;
  struct oci_resources *r;
  struct oci_seccomp *s;

  p = oci_process_parse (DOC ("{\"cwd\":\"tmp\"}"), "process.json", &err);
  CHECK (p == NULL);
  CHECK_STR_EQ (err ? err->msg : NULL, "process.json: user: missing required field");
  agentrt_error_release (&err);
  p = oci_process_parse (DOC ("{\"cwd\":\"tmp\",\"user\":{\"uid\":0,\"gid\":0},\"args\":[\"ls\"]}"),
                         "process.json", &err);
  CHECK (p == NULL);
  CHECK_STR_EQ (err ? err->msg : NULL, "process.json: cwd: must be an absolute path");
  agentrt_error_release (&err);
  p = oci_process_parse (DOC ("{\"cwd\":\"/\",\"user\":{\"uid\":1,\"gid\":2},"
                              "\"args\":[\"ls\",\"-l\"]}"),
                         "process.json", &err);
  CHECK (p && p->user.gid == 2 && p->args.len == 2 && p->args.items[2] == NULL);
  oci_process_free (p);

  r = oci_resources_parse (DOC ("{\"memory\":{\"limit\":-1},\"pids\":{\"limit\":100}}"),
                           "resources.json", &err);
  CHECK (r && r->memory->has_limit && r->memory->limit == -1 && r->pids->limit == 100);
  oci_resources_free (r);
  r = oci_resources_parse (DOC ("{\"cpu\":{\"shares\":-5}}"), "resources.json", &err);
  CHECK (r == NULL);
  CHECK_STR_EQ (err ? err->msg : NULL,
                "resources.json: cpu.shares: expected an unsigned integer");
  agentrt_error_release (&err);

  s = oci_seccomp_parse (DOC ("{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"defaultErrnoRet\":38}"),
                         "agent-default.json", &err);
  CHECK (s && s->default_action == OCI_SECCOMP_ACT_ERRNO && s->default_errno_ret == 38);
  oci_seccomp_free (s);
  s = oci_seccomp_parse (DOC ("[]"), "agent-default.json", &err);
  CHECK (s == NULL);
  CHECK_STR_EQ (err ? err->msg : NULL, "agent-default.json: expected an object");
  agentrt_error_release (&err);
}

int
main (void)
{
  if (mkdtemp (tmpdir) == NULL)
    return EXIT_FAILURE;
  RUN_TEST (test_truncated);
  RUN_TEST (test_syntax_errors);
  RUN_TEST (test_deep_nesting);
  RUN_TEST (test_huge_arrays);
  RUN_TEST (test_too_many_values);
  RUN_TEST (test_nul_bytes);
  RUN_TEST (test_numbers);
  RUN_TEST (test_wrong_types);
  RUN_TEST (test_missing_required);
  RUN_TEST (test_invalid_values);
  RUN_TEST (test_quoted_values);
  RUN_TEST (test_lenient);
  RUN_TEST (test_many_duplicate_keys);
  RUN_TEST (test_files);
  RUN_TEST (test_sub_documents);
  rmdir (tmpdir);
  return UNIT_EXIT ();
}
