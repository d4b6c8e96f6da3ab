/* Unit tests of `agentrt spec` (the default config is runc 1.1's, byte for
 * byte apart from hostname and version, and parses back) and of the
 * features document. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "oci/config.h"
#include "oci/features.h"
#include "oci/json_tree.h"
#include "oci/spec_default.h"
#include "unit.h"

static char *
read_corpus (const char *name)
{
  char path[4096], *buf = calloc (1, 65536);
  FILE *f;
  size_t n;

  snprintf (path, sizeof path, "%s/%s", OCI_CORPUS_DIR, name);
  f = fopen (path, "r");
  n = f ? fread (buf, 1, 65535, f) : 0;
  if (f)
    fclose (f);
  buf[n] = '\0';
  return buf;
}

/* Replaces the first `from` in s (in place; to is not longer than from). */
static void
replace (char *s, const char *from, const char *to)
{
  char *p = strstr (s, from);
  if (p == NULL)
    return;
  memmove (p + strlen (to), p + strlen (from), strlen (p + strlen (from)) + 1);
  memcpy (p, to, strlen (to));
}

/* Our spec, with runc's hostname and version, is what runc prints. */
static void
check_like_runc (bool rootless, const char *runc_file)
{
  agentrt_error_t err = NULL;
  char *ours = spec_default_json (rootless, 1000, 1001, &err), *runc = read_corpus (runc_file);
  struct oci_config *c;

  CHECK (ours != NULL);
  if (ours == NULL)
    {
      free (runc);
      return;
    }
  c = oci_config_parse (ours, strlen (ours), "spec", &err);
  CHECK (c != NULL);
  if (c)
    {
      CHECK_STR_EQ (c->hostname, "agentrt");
      CHECK_STR_EQ (c->oci_version, "1.2.0");
      CHECK (c->process->no_new_privileges && c->root.readonly);
      CHECK ((oci_config_namespace (c, OCI_NS_USER) != NULL) == rootless);
      CHECK ((oci_config_namespace (c, OCI_NS_NETWORK) != NULL) == !rootless);
      if (rootless)
        CHECK (c->linux_cfg->n_uid_mappings == 1 && c->linux_cfg->uid_mappings[0].host_id == 1000
               && c->linux_cfg->gid_mappings[0].host_id == 1001);
    }
  oci_config_free (c);
  replace (ours, "\"agentrt\"", "\"runc\"");
  replace (ours, "\"1.2.0\"", "\"1.0.2-dev\"");
  replace (ours, "\"hostID\": 1000", "\"hostID\": 0");
  replace (ours, "\"hostID\": 1001", "\"hostID\": 0");
  if (runc[0] && runc[strlen (runc) - 1] == '\n') /* the corpus file ends with one */
    runc[strlen (runc) - 1] = '\0';
  CHECK_STR_EQ (ours, runc);
  free (ours);
  free (runc);
}

static void
test_spec (void)
{
  check_like_runc (false, "runc-spec.json");
  check_like_runc (true, "runc-spec-rootless.json");
}

static void
test_features (void)
{
  static const char *const mount_options[] = { "bind", "rbind", "ro", NULL };
  static const char *const caps[] = { "CAP_CHOWN", "CAP_KILL", NULL };
  static const char *const supported[] = { "SECCOMP_FILTER_FLAG_LOG", NULL };
  static const char *const annotations[]
      = { "org.opencontainers.runc.checkpoint.enabled", "false", "run.agentrt.version", "0.1.0", NULL };
  static const char *const unsafe[] = { "run.agentrt.", NULL };
  static const char head[] = "{\n    \"ociVersionMin\": \"1.0.0\",\n    \"ociVersionMax\": "
                             "\"1.2.0\",\n    \"hooks\": [\n        \"prestart\",";
  agentrt_error_t err = NULL;
  struct oci_features f;
  struct json_doc *doc;
  char *json;

  features_init (&f);
  f.mount_options = mount_options;
  f.capabilities = caps;
  f.cgroup_v1 = f.cgroup_v2 = f.cgroup_systemd = true;
  f.seccomp.enabled = true;
  f.seccomp.supported_flags = supported;
  f.apparmor = true;
  f.annotations = annotations;
  f.potentially_unsafe_annotations = unsafe;
  json = features_to_json (&f);
  CHECK (strncmp (json, head, sizeof head - 1) == 0);
  CHECK_CONTAINS (json, "\"namespaces\": [\n            \"pid\",");
  CHECK_CONTAINS (json, "\"time\"\n        ],\n        \"capabilities\"");
  CHECK_CONTAINS (json, "\"cgroup\": {\n            \"v1\": true,\n            \"v2\": true,\n"
                        "            \"systemd\": true,\n            \"systemdUser\": false,\n"
                        "            \"rdma\": false\n        }");
  CHECK_CONTAINS (json, "\"SCMP_ACT_NOTIFY\"");
  CHECK_CONTAINS (json, "\"SCMP_CMP_MASKED_EQ\"");
  CHECK_CONTAINS (json, "\"SCMP_ARCH_X86_64\"");
  CHECK_CONTAINS (json, "\"knownFlags\": [\n                \"SECCOMP_FILTER_FLAG_TSYNC\"");
  CHECK_CONTAINS (json, "\"supportedFlags\": [\n                \"SECCOMP_FILTER_FLAG_LOG\"\n");
  CHECK_CONTAINS (json, "\"apparmor\": {\n            \"enabled\": true\n        }");
  CHECK_CONTAINS (json, "\"mountExtensions\": {\n            \"idmap\": {\n"
                        "                \"enabled\": false\n");
  CHECK_CONTAINS (json, "\"memoryPolicy\": {\n            \"modes\": [\n"
                        "                \"MPOL_DEFAULT\",");
  CHECK_CONTAINS (json, "\"MPOL_LOCAL\"\n            ],\n            \"flags\": [\n"
                        "                \"MPOL_F_NUMA_BALANCING\",");
  CHECK_CONTAINS (json, "\"annotations\": {\n        \"org.opencontainers.runc.checkpoint.enabled\": "
                        "\"false\",\n        \"run.agentrt.version\": \"0.1.0\"\n    },\n"
                        "    \"potentiallyUnsafeConfigAnnotations\": [\n        \"run.agentrt.\"\n"
                        "    ]\n}");
  /* It is a JSON document. */
  doc = json_doc_parse (json, strlen (json), "features", &err);
  CHECK (doc != NULL);
  json_doc_free (doc);
  free (json);

  /* Absent lists are left out, not written as empty. */
  features_init (&f);
  f.hooks = NULL;
  f.mempolicy_modes = f.mempolicy_flags = NULL;
  json = features_to_json (&f);
  CHECK (strstr (json, "\"hooks\"") == NULL && strstr (json, "mountOptions") == NULL
         && strstr (json, "annotations") == NULL && strstr (json, "memoryPolicy") == NULL);
  free (json);
}

int
main (void)
{
  RUN_TEST (test_spec);
  RUN_TEST (test_features);
  return UNIT_EXIT ();
}
