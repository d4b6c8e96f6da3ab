/* What `create` computes before the clone, from hostile configs first:
 * mount option parsing (runtime/mount_plan.c), sysctl checks
 * (create_plan_sysctls), device paths (create_plan_devices), container ids
 * and signal names.  No root. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>

#include "common/cleanup.h"
#include "oci/config.h"
#include "runtime/create_plan.h"
#include "runtime/mount_plan.h"
#include "runtime/policy/host_view.h"
#include "runtime/proc_util.h"
#include "runtime/state_store.h"
#include "tests/unit/unit.h"

static struct oci_config *
parse (const char *json, agentrt_error_t *err)
{
  return oci_config_parse (json, strlen (json), "config.json", err);
}

#define CONFIG_HEAD                                                       \
  "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"},"             \
  "\"process\":{\"cwd\":\"/\",\"args\":[\"sh\"],\"user\":{\"uid\":0,\"gid\":0}},"

static void
test_mount_options (void)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_oci_config struct oci_config *c = parse (
      CONFIG_HEAD "\"mounts\":["
      "{\"destination\":\"/tmp\",\"type\":\"tmpfs\",\"source\":\"tmpfs\","
      "\"options\":[\"nosuid\",\"nodev\",\"noexec\",\"size=65536k\",\"mode=1777\","
      "\"ro\",\"rw\",\"x-engine-only\",\"rslave\",\"tmpcopyup\"]},"
      "{\"destination\":\"/data\",\"type\":\"bind\",\"source\":\"/tmp\","
      "\"options\":[\"rbind\",\"rro\",\"rnosuid\",\"noatime\"]}]}", &err);
  struct mount_plan plan;
  const struct mount_step *t, *b;

  CHECK (c != NULL);
  if (c == NULL)
    return;
  CHECK (mount_plan_build (c, "/bundle", NULL, &plan, &err) == 0);
  CHECK (plan.n_steps == 2);
  if (plan.n_steps != 2)
    return;
  t = &plan.steps[0];
  b = &plan.steps[1];
  CHECK (t->kind == MOUNT_KIND_FS);
  CHECK (t->attr_set == (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC));
  CHECK (t->attr_clr & MOUNT_ATTR_RDONLY); /* rw after ro wins */
  CHECK (t->copy_up);
  CHECK (t->propagation == MS_SLAVE && t->propagation_recursive);
  CHECK (t->n_params == 2); /* size and mode; x-* is for the engine */
  CHECK_STR_EQ (t->params[0].key, "size");
  CHECK_STR_EQ (t->params[0].value, "65536k");
  CHECK (b->kind == MOUNT_KIND_BIND && b->recursive);
  CHECK (b->rattr_set == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID));
  CHECK ((b->attr_set & MOUNT_ATTR__ATIME) == MOUNT_ATTR_NOATIME);
  CHECK (!b->dest_is_file);
  /* the runtime copies the source; the init attaches the copy (without
   * CAP_SYS_ADMIN it copies the source by path itself) */
  CHECK (geteuid () != 0 || b->tree_fd >= 0);
  CHECK (t->tree_fd == -1);
  mount_plan_free (&plan);
}

/* A hardened container mounts only the sources the hardening judged. */
static void
test_hardened_binds_need_a_judged_source (void)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_oci_config struct oci_config *c = parse (
      CONFIG_HEAD "\"mounts\":[{\"destination\":\"/x\",\"type\":\"bind\","
      "\"source\":\"/tmp\",\"options\":[\"bind\"]}]}", &err);
  struct host_view judged;
  struct mount_plan plan;
  char *canon = NULL;
  struct host_node node;

  CHECK (c != NULL);
  if (c == NULL)
    return;
  host_view_system (&judged, "/", NULL);
  CHECK (mount_plan_build (c, "/", &judged, &plan, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "mounts[0] (`/x`): source `/tmp` "
                                         "was not checked by the hardening");
  agentrt_error_release (&err);
  CHECK (judged.open_source (judged.ctx, "/tmp", true, &canon, &node, &err)
         == 0);
  CHECK (mount_plan_build (c, "/", &judged, &plan, &err) == 0);
  CHECK (geteuid () != 0 || plan.steps[0].tree_fd >= 0);
  mount_plan_free (&plan);
  free (canon);
  host_view_system_release (&judged);
}

static void
test_mount_errors_name_the_field (void)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_oci_config struct oci_config *c = parse (
      CONFIG_HEAD "\"mounts\":["
      "{\"destination\":\"/a\",\"type\":\"tmpfs\",\"source\":\"tmpfs\"},"
      "{\"destination\":\"/b\",\"type\":\"bind\",\"source\":\"/nonexistent-agentrt\","
      "\"options\":[\"bind\"]}]}", &err);
  cleanup_oci_config struct oci_config *idmap = parse (
      CONFIG_HEAD "\"mounts\":[{\"destination\":\"/c\",\"type\":\"bind\","
      "\"source\":\"/tmp\",\"options\":[\"rbind\",\"idmap\"]}]}", &err);
  cleanup_oci_config struct oci_config *notype = parse (
      CONFIG_HEAD "\"mounts\":[{\"destination\":\"/d\",\"source\":\"x\"}]}", &err);
  struct mount_plan plan;

  CHECK (c && idmap && notype);
  if (!c || !idmap || !notype)
    return;
  CHECK (mount_plan_build (c, "/bundle", NULL, &plan, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "mounts[1] (`/b`): source");
  agentrt_error_release (&err);
  CHECK (mount_plan_build (idmap, "/bundle", NULL, &plan, &err) < 0);
  /* idmap with no mapping to apply: neither the mount's nor a user
   * namespace's */
  CHECK_CONTAINS (err ? err->msg : NULL, "mounts[0].options: idmap needs "
                                         "uidMappings and gidMappings");
  agentrt_error_release (&err);
  CHECK (mount_plan_build (notype, "/bundle", NULL, &plan, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "mounts[0].type");
}

static void
test_relative_bind_source_is_the_bundles (void)
{
  cleanup_error agentrt_error_t err = NULL;
  cleanup_oci_config struct oci_config *c = parse (
      CONFIG_HEAD "\"mounts\":[{\"destination\":\"/x\",\"type\":\"bind\","
      "\"source\":\"tmp\",\"options\":[\"bind\"]}]}", &err);
  struct mount_plan plan;
  CHECK (c != NULL);
  if (c == NULL)
    return;
  CHECK (mount_plan_build (c, "/", NULL, &plan, &err) == 0);
  CHECK_STR_EQ (plan.steps[0].source, "//tmp");
  mount_plan_free (&plan);
}

static void
test_sysctls_must_be_namespaced (void)
{
  static const struct
  {
    const char *sysctl;
    const char *namespaces;
    const char *error; /* NULL: accepted */
    const char *domainname;
  } cases[] = {
    /* the uts names have fields of their own */
    { "\"kernel.hostname\":\"evil\"", "[{\"type\":\"uts\"}]",
      "`kernel.hostname` conflicts with the `hostname` field" },
    { "\"kernel.hostname\":\"\"", "[{\"type\":\"uts\"}]",
      "`kernel.hostname` conflicts with the `hostname` field" },
    { "\"kernel.domainname\":\"a\"", "[{\"type\":\"uts\"}]",
      "`kernel.domainname` = `a` conflicts with the `domainname` field (`b`)", "b" },
    { "\"kernel.domainname\":\"b\"", "[{\"type\":\"uts\"}]", NULL, "b" },
    { "\"kernel.domainname\":\"a\"", "[{\"type\":\"uts\"}]", NULL },
    { "\"kernel.domainname\":\"a\"", "[]", "needs the container's own uts" },
    { "\"net.ipv4.ip_forward\":\"1\"", "[{\"type\":\"network\"}]", NULL },
    { "\"net.ipv4.ip_forward\":\"1\"", "[]", "needs the container's own network" },
    { "\"kernel.shmmax\":\"1\"", "[{\"type\":\"ipc\"}]", NULL },
    { "\"kernel.shmmax\":\"1\"", "[]", "needs the container's own ipc" },
    { "\"vm.swappiness\":\"1\"", "[{\"type\":\"network\"}]", "is not a namespaced sysctl" },
    { "\"kernel.core_pattern\":\"|/x\"", "[{\"type\":\"uts\"}]", "is not a namespaced sysctl" },
    { "\"net..x\":\"1\"", "[{\"type\":\"network\"}]", "invalid key" },
    { "\"net/../../x\":\"1\"", "[{\"type\":\"network\"}]", "invalid key" },
  };
  size_t i;

  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      cleanup_error agentrt_error_t err = NULL;
      cleanup_free char *json = NULL;
      cleanup_oci_config struct oci_config *c = NULL;
      struct sysctl_entry *list = NULL;
      size_t n = 0, k;
      int r;

      if (asprintf (&json, CONFIG_HEAD "\"domainname\":\"%s\",\"linux\":"
                    "{\"namespaces\":%s,\"sysctl\":{%s}}}",
                    cases[i].domainname ? cases[i].domainname : "",
                    cases[i].namespaces, cases[i].sysctl) < 0)
        abort ();
      c = parse (json, &err);
      CHECK (c != NULL);
      if (c == NULL)
        continue;
      r = create_plan_sysctls (c, &list, &n, &err);
      if (cases[i].error)
        {
          CHECK (r < 0);
          CHECK_CONTAINS (err ? err->msg : NULL, cases[i].error);
        }
      else
        CHECK (r == 0 && n == 1 && strchr (list[0].path, '.') == NULL);
      for (k = 0; k < n; k++)
        free ((char *) list[k].path);
      free (list);
    }
}

static void
test_device_paths_are_clean (void)
{
  static const struct
  {
    const char *path;
    const char *want;  /* the node's path; NULL: refused */
    size_t n_nodes;
  } cases[] = {
    { "/", NULL, 0 },
    { "//", NULL, 0 },
    { "/dev/..", NULL, 0 },
    { "/dev/../..//.", NULL, 0 },
    { "/dev/foo/", "/dev/foo", 7 },
    { "/dev//foo/./", "/dev/foo", 7 },
    { "/dev/../etc/foo", "/etc/foo", 7 },
    { "/dev/null/", "/dev/null", 6 }, /* replaces the default */
    { "/dev/net/tun", "/dev/net/tun", 7 },
  };
  size_t i;

  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      cleanup_error agentrt_error_t err = NULL;
      cleanup_free char *json = NULL;
      cleanup_oci_config struct oci_config *c = NULL;
      struct create_plan plan;
      int r;

      if (asprintf (&json, CONFIG_HEAD "\"linux\":{\"devices\":[{\"path\":"
                    "\"%s\",\"type\":\"c\",\"major\":1,\"minor\":3}]}}",
                    cases[i].path) < 0)
        abort ();
      c = parse (json, &err);
      CHECK (c != NULL);
      if (c == NULL)
        continue;
      memset (&plan, 0, sizeof plan);
      r = create_plan_devices (c, &plan, &err);
      if (cases[i].want == NULL)
        {
          CHECK (r < 0);
          CHECK_CONTAINS (err ? err->msg : NULL, "linux.devices[0].path");
        }
      else
        {
          const struct devices_spec *d = &plan.init.devices;
          CHECK (r == 0 && d->n_nodes == cases[i].n_nodes);
          if (r == 0 && d->n_nodes == cases[i].n_nodes)
            {
              size_t k = cases[i].n_nodes == 6 ? 0 : 6;
              CHECK_STR_EQ (d->nodes[k].path, cases[i].want);
            }
        }
      /* only what create_plan_devices made (a zeroed plan has fds 0) */
      for (size_t k = 0; plan.device_paths && plan.device_paths[k]; k++)
        free (plan.device_paths[k]);
      free (plan.device_paths);
      free (plan.devices);
    }
}

static void
test_container_ids (void)
{
  CHECK (state_id_valid ("abc-123_x.y+z"));
  CHECK (!state_id_valid (""));
  CHECK (!state_id_valid ("."));
  CHECK (!state_id_valid (".."));
  CHECK (!state_id_valid (".seccomp-cache"));
  CHECK (!state_id_valid ("a/b"));
  CHECK (!state_id_valid ("a b"));
  CHECK (!state_id_valid ("a\nb"));
}

static void
test_signal_names (void)
{
  CHECK (signal_parse ("KILL") == SIGKILL);
  CHECK (signal_parse ("sigterm") == SIGTERM);
  CHECK (signal_parse ("9") == 9);
  CHECK (signal_parse ("SIGRTMIN+3") == SIGRTMIN + 3);
  CHECK (signal_parse ("RTMAX-1") == SIGRTMAX - 1);
  CHECK (signal_parse ("0") == -1);
  CHECK (signal_parse ("65") == -1);
  CHECK (signal_parse ("SIGNOPE") == -1);
  CHECK (signal_parse ("9x") == -1);
  CHECK (signal_parse ("RTMIN+99") == -1);
  CHECK (signal_parse ("") == -1);
}

int
main (void)
{
  RUN_TEST (test_mount_options);
  RUN_TEST (test_mount_errors_name_the_field);
  RUN_TEST (test_relative_bind_source_is_the_bundles);
  RUN_TEST (test_hardened_binds_need_a_judged_source);
  RUN_TEST (test_sysctls_must_be_namespaced);
  RUN_TEST (test_device_paths_are_clean);
  RUN_TEST (test_container_ids);
  RUN_TEST (test_signal_names);
  return UNIT_EXIT ();
}
