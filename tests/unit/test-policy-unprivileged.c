/* A runtime that is not root (runtime/policy/unprivileged.h): limits no
 * cgroup of its own can enforce fail the create, naming them, unless the
 * policy says "allow" (then they are removed and recorded); device rules
 * go, recorded; the sidecar runs as the runtime's user.  Hostile bundles
 * first: every limit group, unified keys that would slip past, a
 * delegated subtree that lacks a controller.  Then through harden(). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/policy/harden.h"
#include "runtime/policy/unprivileged.h"
#include "policy-fakehost.h"
#include "unit.h"

static struct agent_policy fail_policy, allow_policy;

static const char every_group[] =
    "{\"ociVersion\":\"1.2.0\",\"process\":{\"user\":{\"uid\":0,\"gid\":0},"
    "\"args\":[\"sh\"],\"cwd\":\"/\"},\"root\":{\"path\":\"rootfs\"},"
    "\"linux\":{\"resources\":{"
    "\"devices\":[{\"allow\":false,\"access\":\"rwm\"}],"
    "\"pids\":{\"limit\":10},\"memory\":{\"limit\":1048576},"
    "\"cpu\":{\"shares\":100,\"cpus\":\"0\"},"
    "\"blockIO\":{\"weight\":100},"
    "\"hugepageLimits\":[{\"pageSize\":\"2MB\",\"limit\":0}],"
    "\"network\":{\"classID\":1},"
    "\"rdma\":{\"mlx5_0\":{\"hcaHandles\":1}},"
    "\"unified\":{\"io.max\":\"8:0 rbps=1\"}},"
    "\"namespaces\":[{\"type\":\"user\"}],"
    "\"uidMappings\":[{\"containerID\":0,\"hostID\":1000,\"size\":1}],"
    "\"gidMappings\":[{\"containerID\":0,\"hostID\":1000,\"size\":1}]}}";

static struct oci_config *
parse (const char *json)
{
  struct oci_config *c = fake_config (json);
  CHECK (c != NULL);
  return c;
}

static void
facts (struct host_runtime *rt, bool cgroup, const char *controllers)
{
  char *copy = xstrdup (controllers), *save = NULL;

  memset (rt, 0, sizeof *rt);
  rt->uid = 1000;
  rt->gid = 1001;
  rt->host_uid = 1000;
  rt->cgroup = cgroup;
  rt->cgroup_why = xstrdup (cgroup ? "the subtree lacks it"
                                   : "the cgroup layout is hybrid");
  for (char *t = strtok_r (copy, " ", &save); t; t = strtok_r (NULL, " ", &save))
    str_list_append (&rt->controllers, t);
  free (copy);
}

static void
facts_release (struct host_runtime *rt)
{
  str_list_free (&rt->controllers);
  free (rt->cgroup_why);
}

static bool
changed (const struct change_list *l, enum change_kind kind, const char *what)
{
  for (size_t i = 0; i < l->len; i++)
    if (l->items[i].kind == kind && strstr (l->items[i].what, what))
      return true;
  return false;
}

static void
test_no_cgroup_fails_naming_every_group (void)
{
  struct oci_config *c = parse (every_group);
  struct change_list ch = { 0 };
  struct host_runtime rt;
  agentrt_error_t err = NULL;

  facts (&rt, false, "");
  CHECK (unprivileged_limits (c, &fail_policy, &rt, &ch, &err) < 0);
  for (const char *const *f = (const char *const[]){
           "linux.resources.pids", "linux.resources.memory",
           "linux.resources.cpu", "linux.resources.blockIO",
           "linux.resources.hugepageLimits", "linux.resources.rdma",
           "linux.resources.network", "linux.resources.unified", NULL };
       *f; f++)
    CHECK_CONTAINS (err ? err->msg : NULL, *f);
  CHECK_CONTAINS (err ? err->msg : NULL, "as uid 1000: the cgroup layout is "
                  "hybrid; the policy's limits.unenforceable \"allow\"");
  /* nothing removed, nothing recorded */
  CHECK (c->linux_cfg->resources->pids && c->linux_cfg->resources->n_devices == 1);
  CHECK (ch.len == 0);
  agentrt_error_release (&err);
  facts_release (&rt);
  oci_config_free (c);
}

static void
test_no_cgroup_allowed_removes_and_records (void)
{
  struct oci_config *c = parse (every_group);
  struct change_list ch = { 0 };
  struct host_runtime rt;
  agentrt_error_t err = NULL;
  const struct oci_resources *r;

  facts (&rt, false, "");
  CHECK (unprivileged_limits (c, &allow_policy, &rt, &ch, &err) == 0);
  r = c->linux_cfg->resources;
  CHECK (r->pids == NULL && r->memory == NULL && r->cpu == NULL
         && r->blkio == NULL && r->n_hugepage_limits == 0 && r->n_rdma == 0
         && r->network == NULL && r->unified.len == 0 && r->n_devices == 0);
  CHECK (changed (&ch, CHANGE_LIMIT, "linux.resources.pids not enforced"));
  CHECK (changed (&ch, CHANGE_LIMIT, "linux.resources.unified not enforced"));
  CHECK (changed (&ch, CHANGE_DEVICE, "linux.resources.devices not applied"));
  CHECK (ch.len == 9);
  change_list_release (&ch);
  facts_release (&rt);
  oci_config_free (c);
}

static void
test_delegated_subtree_lacking_controllers (void)
{
  static const char json[]
      = "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"r\"},\"linux\":{"
        "\"resources\":{\"pids\":{\"limit\":10},\"memory\":{\"limit\":1},"
        "\"cpu\":{\"cpus\":\"0\"},\"unified\":{\"cgroup.freeze\":\"0\","
        "\"memory.high\":\"1\",\"hugetlb.2MB.max\":\"0\"}}}}";
  struct change_list ch = { 0 };
  struct host_runtime rt;
  agentrt_error_t err = NULL;
  struct oci_config *c = parse (json);

  /* what systemd delegates to user@.service: no cpuset, no hugetlb */
  facts (&rt, true, "cpu memory pids");
  CHECK (unprivileged_limits (c, &fail_policy, &rt, &ch, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL,
                  "linux.resources.cpu, linux.resources.unified: cannot be "
                  "enforced");
  CHECK (err && strstr (err->msg, "resources.pids") == NULL
         && strstr (err->msg, "resources.memory") == NULL);
  agentrt_error_release (&err);
  oci_config_free (c);

  /* a subtree with everything asked: kept as it is (device rules go) */
  c = parse (json);
  facts_release (&rt);
  facts (&rt, true, "cpuset cpu memory pids hugetlb");
  CHECK (unprivileged_limits (c, &fail_policy, &rt, &ch, &err) == 0);
  CHECK (c->linux_cfg->resources->pids && c->linux_cfg->resources->cpu
         && c->linux_cfg->resources->unified.len == 3);
  CHECK (ch.len == 0);
  facts_release (&rt);
  oci_config_free (c);
}

static void
test_sidecar_runs_as_the_user (void)
{
  struct change_list ch = { 0 };
  struct host_runtime rt;
  uint32_t uid = 65534, gid = 65534;

  facts (&rt, false, "");
  unprivileged_sidecar (&rt, &uid, &gid, &ch);
  CHECK (uid == 1000 && gid == 1001);
  CHECK (changed (&ch, CHANGE_EGRESS, "the sidecar runs as uid 1000 gid 1001"));
  change_list_release (&ch);
  facts_release (&rt);
}

/* Root of rootless Podman's user namespace (its ids 0 there) switches
 * the sidecar to the policy's ids as always: never to its own uid 0. */
static void
test_sidecar_switches_in_a_user_namespace (void)
{
  struct change_list ch = { 0 };
  struct host_runtime rt;
  uint32_t uid = 65534, gid = 65533;

  facts (&rt, false, "");
  rt.uid = rt.gid = 0;
  rt.switch_ids = true;
  unprivileged_sidecar (&rt, &uid, &gid, &ch);
  CHECK (uid == 65534 && gid == 65533);
  CHECK (ch.len == 0);
  change_list_release (&ch);
  facts_release (&rt);
}

/* Limits refused there name the user's id outside the namespace too. */
static void
test_refusal_names_the_user_outside (void)
{
  struct oci_config *c = parse (every_group);
  struct change_list ch = { 0 };
  struct host_runtime rt;
  agentrt_error_t err = NULL;

  facts (&rt, false, "");
  rt.uid = rt.gid = 0;
  rt.host_uid = 1001;
  CHECK (unprivileged_limits (c, &fail_policy, &rt, &ch, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "cannot be enforced as uid 0 of a "
                  "user namespace (uid 1001 outside it)");
  agentrt_error_release (&err);
  change_list_release (&ch);
  facts_release (&rt);
  oci_config_free (c);
}

static void
test_through_harden (void)
{
  static const struct fake_node none[] = { { NULL, 0, NULL } };
  struct oci_config *c = parse (every_group);
  struct fake_host fh = { none, NULL, 0, NULL, NULL, { NULL, 0 }, { NULL, 0 } };
  struct host_runtime rt;
  struct harden_result r;
  struct host_view view;
  agentrt_error_t err = NULL;

  facts (&rt, false, "");
  fake_host_view (&view, &fh);
  view.runtime = &rt;
  CHECK (harden (c, &fail_policy, &c->annotations, &view, &r, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "linux.resources.pids");
  agentrt_error_release (&err);
  oci_config_free (c);

  c = parse (every_group);
  CHECK (harden (c, &allow_policy, &c->annotations, &view, &r, &err) == 0);
  CHECK (r.directives.sidecar_uid == 1000 && r.directives.sidecar_gid == 1001);
  CHECK (changed (&r.changes, CHANGE_LIMIT, "linux.resources.memory not "
                  "enforced (limits.unenforceable allow)"));
  /* the hardening's own limits were added, then found unenforceable */
  CHECK (c->linux_cfg->resources->pids == NULL);
  harden_result_release (&r);
  oci_config_free (c);
  fake_host_release (&fh);
  facts_release (&rt);
}

int
main (void)
{
  policy_init_defaults (&fail_policy);
  policy_init_defaults (&allow_policy);
  allow_policy.limits_unenforceable = POLICY_UNENFORCEABLE_ALLOW;
  RUN_TEST (test_no_cgroup_fails_naming_every_group);
  RUN_TEST (test_no_cgroup_allowed_removes_and_records);
  RUN_TEST (test_delegated_subtree_lacking_controllers);
  RUN_TEST (test_sidecar_runs_as_the_user);
  RUN_TEST (test_sidecar_switches_in_a_user_namespace);
  RUN_TEST (test_refusal_names_the_user_outside);
  RUN_TEST (test_through_harden);
  policy_release (&fail_policy);
  policy_release (&allow_policy);
  return UNIT_EXIT ();
}
