/* A user namespace for every hardened container
 * (runtime/policy/userns_auto.c), hostile bundles first: process ids the
 * range cannot map, a bundle joining a pid or mount namespace by path, a
 * bundle with its own user namespace (kept, its maps untouched), the
 * policy turning it off (recorded), a runtime that is not root; then what
 * harden() does with it (the init makes the agent's network, idempotent),
 * the maps once a range is allocated (and Docker's ping_group_range cut
 * to them), and a bind's owner mapping. */
#include "config.h"

#include "common/cleanup.h"
#include "runtime/policy/harden.h"
#include "runtime/policy/userns_auto.h"
#include "tests/unit/policy-fakehost.h"
#include "tests/unit/unit.h"

#define BUNDLE(user, linux_extra)                                           \
  "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"},"              \
  "\"process\":{\"cwd\":\"/\",\"args\":[\"sh\"],\"user\":" user "},"       \
  "\"linux\":{\"namespaces\":[{\"type\":\"mount\"},{\"type\":\"pid\"}"     \
  linux_extra "]}}"

static const char *
decide (const char *json, enum policy_userns mode, bool rootless,
        enum harden_userns *out, struct change_list *changes)
{
  static char msg[512];
  cleanup_error agentrt_error_t err = NULL;
  struct agent_policy pol;
  struct oci_config *c = fake_config (json);
  int r;

  if (c == NULL)
    return "bad bundle";
  policy_init_defaults (&pol);
  pol.userns_mode = mode;
  r = userns_auto_harden (c, &pol, rootless, out, changes, &err);
  snprintf (msg, sizeof msg, "%s", r == 0 ? "ok" : err->msg);
  policy_release (&pol);
  oci_config_free (c);
  return msg;
}

static const char *
last_change (const struct change_list *l)
{
  static char buf[512];
  if (l->len == 0)
    return "";
  snprintf (buf, sizeof buf, "%s (%s)", l->items[l->len - 1].what,
            l->items[l->len - 1].why);
  return buf;
}

static void
test_unmappable_process_ids (void)
{
  struct change_list ch = { 0 };
  enum harden_userns u;

  CHECK_CONTAINS (decide (BUNDLE ("{\"uid\":65536,\"gid\":0}", ""),
                          POLICY_USERNS_AUTO, false, &u, &ch),
                  "process.user.uid: 65536 is outside the container's user "
                  "namespace (ids 0-65535 are mapped");
  CHECK_CONTAINS (decide (BUNDLE ("{\"uid\":0,\"gid\":4294967294}", ""),
                          POLICY_USERNS_AUTO, false, &u, &ch),
                  "process.user.gid: 4294967294");
  CHECK_CONTAINS (decide (BUNDLE ("{\"uid\":0,\"gid\":0,"
                                  "\"additionalGids\":[10,70000]}", ""),
                          POLICY_USERNS_AUTO, false, &u, &ch),
                  "process.user.additionalGids[1]: 70000");
  /* the same ids are fine without one */
  CHECK_STR_EQ (decide (BUNDLE ("{\"uid\":65536,\"gid\":0}", ""),
                        POLICY_USERNS_OFF, false, &u, &ch), "ok");
  CHECK (u == HARDEN_USERNS_OFF);
  CHECK_STR_EQ (decide (BUNDLE ("{\"uid\":65535,\"gid\":65535}", ""),
                        POLICY_USERNS_AUTO, false, &u, &ch), "ok");
  CHECK (u == HARDEN_USERNS_AUTO);
  change_list_release (&ch);
}

static void
test_joined_pid_or_mount (void)
{
  struct change_list ch = { 0 };
  enum harden_userns u;

  CHECK_STR_EQ (decide ("{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"r\"},"
                        "\"process\":{\"cwd\":\"/\",\"args\":[\"sh\"],"
                        "\"user\":{\"uid\":0,\"gid\":0}},\"linux\":{"
                        "\"namespaces\":[{\"type\":\"mount\"},{\"type\":"
                        "\"pid\",\"path\":\"/proc/42/ns/pid\"}]}}",
                        POLICY_USERNS_AUTO, false, &u, &ch), "ok");
  CHECK (u == HARDEN_USERNS_JOINED);
  CHECK_CONTAINS (last_change (&ch), "no user namespace (linux.namespaces[1] "
                  "joins a pid namespace by path (`/proc/42/ns/pid`)");
  CHECK_STR_EQ (decide ("{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"r\"},"
                        "\"process\":{\"cwd\":\"/\",\"args\":[\"sh\"],"
                        "\"user\":{\"uid\":0,\"gid\":0}},\"linux\":{"
                        "\"namespaces\":[{\"type\":\"mount\",\"path\":"
                        "\"/proc/42/ns/mnt\"}]}}",
                        POLICY_USERNS_AUTO, false, &u, &ch), "ok");
  CHECK (u == HARDEN_USERNS_JOINED);
  /* a pod's network, ipc and uts by path: joined first, then a new one */
  CHECK_STR_EQ (decide (BUNDLE ("{\"uid\":0,\"gid\":0}",
                                ",{\"type\":\"network\",\"path\":\"/n\"},"
                                "{\"type\":\"ipc\",\"path\":\"/i\"}"),
                        POLICY_USERNS_AUTO, false, &u, &ch), "ok");
  CHECK (u == HARDEN_USERNS_AUTO);
  change_list_release (&ch);
}

static void
test_bundle_userns_kept (void)
{
  static const char *json
      = "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"r\"},"
        "\"process\":{\"cwd\":\"/\",\"args\":[\"sh\"],\"user\":{\"uid\":"
        "70000,\"gid\":0}},\"linux\":{\"namespaces\":[{\"type\":\"user\"}],"
        "\"uidMappings\":[{\"containerID\":0,\"hostID\":1000,\"size\":1}],"
        "\"gidMappings\":[{\"containerID\":0,\"hostID\":1000,\"size\":1}]}}";
  struct change_list ch = { 0 };
  enum harden_userns u;

  /* kept whatever its ids (its maps are the bundle's business) */
  CHECK_STR_EQ (decide (json, POLICY_USERNS_AUTO, false, &u, &ch), "ok");
  CHECK (u == HARDEN_USERNS_BUNDLE);
  CHECK (ch.len == 0);
  CHECK_STR_EQ (decide ("{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"r\"},"
                        "\"linux\":{\"namespaces\":[{\"type\":\"user\","
                        "\"path\":\"/proc/1/ns/user\"}]}}",
                        POLICY_USERNS_OFF, false, &u, &ch), "ok");
  CHECK (u == HARDEN_USERNS_BUNDLE);
  change_list_release (&ch);
}

static void
test_off_and_rootless (void)
{
  struct change_list ch = { 0 };
  enum harden_userns u;

  CHECK_STR_EQ (decide (BUNDLE ("{\"uid\":0,\"gid\":0}", ""),
                        POLICY_USERNS_OFF, false, &u, &ch), "ok");
  CHECK (u == HARDEN_USERNS_OFF);
  CHECK_CONTAINS (last_change (&ch), "no user namespace (the policy's "
                  "userns.mode is \"off\": the agent's root is the host's "
                  "root)");
  change_list_release (&ch);
  CHECK_STR_EQ (decide (BUNDLE ("{\"uid\":0,\"gid\":0}", ""),
                        POLICY_USERNS_AUTO, true, &u, &ch), "ok");
  CHECK (u == HARDEN_USERNS_NONE);
  CHECK_CONTAINS (last_change (&ch), "no user namespace of agentrt's (the "
                  "runtime is not root of the host (rootless)");
  change_list_release (&ch);
}

static void
test_harden_adds_and_maps (void)
{
  struct oci_config *c = fake_config (BUNDLE ("{\"uid\":1000,\"gid\":100}", ""));
  struct fake_host fh = { 0 };
  struct host_view view;
  struct harden_result r, again;
  struct agent_policy pol;
  const struct oci_linux *l;
  cleanup_error agentrt_error_t err = NULL;
  size_t before;

  CHECK (c != NULL);
  if (c == NULL)
    return;
  static const struct fake_node nodes[] = { { NULL, 0, NULL } };
  fh.nodes = nodes;
  fake_host_view (&view, &fh);
  policy_init_defaults (&pol);
  /* on by default (docs/userns.md) */
  CHECK (pol.userns_mode == POLICY_USERNS_AUTO);
  CHECK (harden (c, &pol, &c->annotations, &view, &r, &err) == 0);
  CHECK (r.directives.userns == HARDEN_USERNS_AUTO);
  CHECK (oci_config_namespace (c, OCI_NS_USER) != NULL);
  /* only the init can make the agent's network in a user namespace */
  CHECK (r.directives.net_facts.userns);
  CHECK (net_plan_decide (&r.directives.net_facts).maker == NET_MAKER_INIT);
  l = c->linux_cfg;
  CHECK (l->n_uid_mappings == 0);
  before = r.changes.len;
  userns_auto_map (c, 1879048192u, 1879113728u, &r.changes);
  CHECK (l->n_uid_mappings == 1 && l->uid_mappings[0].container_id == 0
         && l->uid_mappings[0].host_id == 1879048192u
         && l->uid_mappings[0].size == 65536);
  CHECK (l->n_gid_mappings == 1 && l->gid_mappings[0].host_id == 1879113728u);
  CHECK (r.changes.len == before + 1);
  CHECK_CONTAINS (last_change (&r.changes), "user: uid 1879048192-1879113727, "
                  "gid 1879113728-1879179263");
  /* hardening the hardened config: the bundle's now, nothing added */
  CHECK (harden (c, &pol, &c->annotations, &view, &again, &err) == 0);
  CHECK (again.directives.userns == HARDEN_USERNS_BUNDLE);
  for (size_t i = 0; i < again.changes.len; i++)
    CHECK (again.changes.items[i].kind != CHANGE_NAMESPACE);
  CHECK (l->n_uid_mappings == 1);
  harden_result_release (&again);
  harden_result_release (&r);
  policy_release (&pol);
  fake_host_release (&fh);
  oci_config_free (c);
}

static void
test_bind_map (void)
{
  /* the work dir's owner 1000 is the agent's uid 0, host id start + 0 */
  struct oci_id_mapping m = userns_auto_bind_map (1000, 0, 1879048192u);
  CHECK (m.container_id == 1000 && m.host_id == 1879048192u && m.size == 1);
  /* root's directory, an agent running as 1000 */
  m = userns_auto_bind_map (0, 1000, 1879048192u);
  CHECK (m.container_id == 0 && m.host_id == 1879049192u && m.size == 1);
  CHECK_STR_EQ (harden_userns_name (HARDEN_USERNS_JOINED), "joined");
  CHECK (harden_userns_from_name ("auto") == HARDEN_USERNS_AUTO);
  CHECK (harden_userns_from_name ("Auto") < 0);
  CHECK_STR_EQ (harden_userns_name ((enum harden_userns) 99), "none");
}

/* The sysctl's value once the bundle's `sysctl` member went through the
 * map, and the last change. */
static const char *
ping_range (const char *sysctl, char *change, size_t size)
{
  static char value[64];
  char json[512];
  struct change_list ch = { 0 };
  struct oci_config *c;
  const char *v;

  snprintf (json, sizeof json,
            "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"},"
            "\"process\":{\"cwd\":\"/\",\"args\":[\"sh\"],"
            "\"user\":{\"uid\":0,\"gid\":0}},\"linux\":{\"sysctl\":{%s}}}",
            sysctl);
  c = fake_config (json);
  if (c == NULL)
    return "bad bundle";
  userns_auto_map (c, 1879048192u, 1879113728u, &ch);
  v = kv_list_get (&c->linux_cfg->sysctl, "net.ipv4.ping_group_range");
  snprintf (value, sizeof value, "%s", v ? v : "(none)");
  snprintf (change, size, "%s", ch.len == 2 ? last_change (&ch) : "");
  change_list_release (&ch);
  oci_config_free (c);
  return value;
}

static void
test_ping_group_range_cut (void)
{
  char change[512];

  /* Docker's: every group */
  CHECK_STR_EQ (ping_range ("\"net.ipv4.ping_group_range\":\"0 2147483647\"",
                            change, sizeof change), "0 65535");
  CHECK_CONTAINS (change, "linux.sysctl net.ipv4.ping_group_range: `0 2147483647` "
                  "becomes `0 65535`");
  /* within the range, or none: untouched, nothing recorded */
  CHECK_STR_EQ (ping_range ("\"net.ipv4.ping_group_range\":\"100 200\"", change,
                            sizeof change), "100 200");
  CHECK_STR_EQ (change, "");
  CHECK_STR_EQ (ping_range ("\"net.ipv4.ip_forward\":\"0\"", change, sizeof change),
                "(none)");
  /* not a pair, or beginning beyond the groups: left for the kernel */
  CHECK_STR_EQ (ping_range ("\"net.ipv4.ping_group_range\":\"0 99999999999x\"", change,
                            sizeof change), "0 99999999999x");
  CHECK_STR_EQ (ping_range ("\"net.ipv4.ping_group_range\":\"70000 80000\"", change,
                            sizeof change), "70000 80000");
  CHECK_STR_EQ (ping_range ("\"net.ipv4.ping_group_range\":\"1\"", change,
                            sizeof change), "1");
  CHECK_STR_EQ (change, "");
}

int
main (void)
{
  RUN_TEST (test_unmappable_process_ids);
  RUN_TEST (test_joined_pid_or_mount);
  RUN_TEST (test_bundle_userns_kept);
  RUN_TEST (test_off_and_rootless);
  RUN_TEST (test_harden_adds_and_maps);
  RUN_TEST (test_bind_map);
  RUN_TEST (test_ping_group_range_cut);
  return UNIT_EXIT ();
}
