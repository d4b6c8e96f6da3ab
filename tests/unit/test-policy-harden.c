/* Unit tests of the whole hardening step (runtime/policy/harden.h) over a
 * table of bundles shaped like what Docker, Podman and containerd's CRI
 * hand to a runtime, on a fake host: refusals first (the config is left
 * untouched), then what each bundle comes out as, then idempotence and the
 * renderings. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/policy/harden.h"
#include "policy-fakehost.h"
#include "unit.h"

static struct agent_policy policy;

static const struct fake_node host_nodes[] = {
  { "/home/u/.ssh/id_rsa", 'f', NULL },
  { "/home/u/keys", 'l', ".ssh" },
  { "/home/u/.aws/credentials", 'f', NULL },
  { "/home/u/.config/gh/hosts.yml", 'f', NULL },
  { "/home/u/src/app/main.go", 'f', NULL },
  { "/var/run", 'l', "/run" },
  { "/run/docker.sock", 's', NULL },
  { "/srv/work/README", 'f', NULL },
  { "/var/lib/docker/containers/c1/resolv.conf", 'f', NULL },
  { "/var/lib/docker/containers/c1/hostname", 'f', NULL },
  { "/var/lib/docker/containers/c1/hosts", 'f', NULL },
  { "/run/containers/storage/overlay-containers/p1/userdata/hosts", 'f', NULL },
  { "/run/containers/storage/overlay-containers/p1/userdata/.containerenv",
    'f', NULL },
  { "/run/containers/storage/overlay-containers/p1/userdata/shm", 'd', NULL },
  { "/run/containers/storage/overlay-containers/p1/userdata/run/secrets/x",
    'f', NULL },
  { "/var/lib/kubelet/pods/k1/etc-hosts", 'f', NULL },
  { "/var/lib/kubelet/pods/k1/containers/agent/0a1b", 'f', NULL },
  { "/var/lib/kubelet/pods/k1/volumes/kubernetes.io~projected/"
    "kube-api-access-x/token", 'f', NULL },
  { "/var/lib/kubelet/pods/k1/volumes/kubernetes.io~empty-dir/work/f", 'f',
    NULL },
  { "/var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/s1/resolv.conf",
    'f', NULL },
  { "/run/containerd/io.containerd.grpc.v1.cri/sandboxes/s1/shm", 'd', NULL },
  { NULL, 0, NULL },
};

#define DOCKER_CAPS                                                          \
  "[\"CAP_CHOWN\",\"CAP_DAC_OVERRIDE\",\"CAP_FSETID\",\"CAP_FOWNER\","       \
  "\"CAP_MKNOD\",\"CAP_NET_RAW\",\"CAP_SETGID\",\"CAP_SETUID\","             \
  "\"CAP_SETFCAP\",\"CAP_SETPCAP\",\"CAP_NET_BIND_SERVICE\","                \
  "\"CAP_SYS_CHROOT\",\"CAP_KILL\",\"CAP_AUDIT_WRITE\"]"

/* docker run -v $HOME:/home/u -v /var/run/docker.sock:/var/run/docker.sock
 * -v /srv/work:/work -e AWS_SECRET_ACCESS_KEY=... image sh */
static const char docker_json[] =
  "{\"ociVersion\":\"1.2.0\",\"process\":{\"user\":{\"uid\":0,\"gid\":0},"
  "\"args\":[\"sh\"],\"env\":["
  "\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\","
  "\"HOSTNAME=abc\",\"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY\","
  "\"AWS_REGION=eu-west-1\",\"GIT_AUTHOR_NAME=Dev\","
  "\"TOKENIZERS_PARALLELISM=false\",\"OPENAI_KEY=sk-proj-"
  "abcdefghijklmnopqrstuvwxyz0123\"],\"cwd\":\"/\","
  "\"capabilities\":{\"bounding\":" DOCKER_CAPS ",\"effective\":" DOCKER_CAPS
  ",\"permitted\":" DOCKER_CAPS "},\"apparmorProfile\":\"docker-default\","
  "\"oomScoreAdj\":0},"
  "\"root\":{\"path\":\"/var/lib/docker/overlay2/x/merged\"},"
  "\"hostname\":\"abc\",\"mounts\":["
  "{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\","
  "\"options\":[\"nosuid\",\"noexec\",\"nodev\"]},"
  "{\"destination\":\"/dev\",\"type\":\"tmpfs\",\"source\":\"tmpfs\","
  "\"options\":[\"nosuid\",\"strictatime\",\"mode=755\",\"size=65536k\"]},"
  "{\"destination\":\"/dev/pts\",\"type\":\"devpts\",\"source\":\"devpts\","
  "\"options\":[\"nosuid\",\"noexec\",\"newinstance\",\"ptmxmode=0666\","
  "\"mode=0620\",\"gid=5\"]},"
  "{\"destination\":\"/sys\",\"type\":\"sysfs\",\"source\":\"sysfs\","
  "\"options\":[\"nosuid\",\"noexec\",\"nodev\",\"ro\"]},"
  "{\"destination\":\"/sys/fs/cgroup\",\"type\":\"cgroup\",\"source\":"
  "\"cgroup\",\"options\":[\"ro\",\"nosuid\",\"noexec\",\"nodev\"]},"
  "{\"destination\":\"/dev/mqueue\",\"type\":\"mqueue\",\"source\":"
  "\"mqueue\",\"options\":[\"nosuid\",\"noexec\",\"nodev\"]},"
  "{\"destination\":\"/dev/shm\",\"type\":\"tmpfs\",\"source\":\"shm\","
  "\"options\":[\"nosuid\",\"noexec\",\"nodev\",\"mode=1777\","
  "\"size=67108864\"]},"
  "{\"destination\":\"/etc/resolv.conf\",\"type\":\"bind\",\"source\":"
  "\"/var/lib/docker/containers/c1/resolv.conf\",\"options\":[\"rbind\","
  "\"rprivate\"]},"
  "{\"destination\":\"/etc/hostname\",\"type\":\"bind\",\"source\":"
  "\"/var/lib/docker/containers/c1/hostname\",\"options\":[\"rbind\","
  "\"rprivate\"]},"
  "{\"destination\":\"/etc/hosts\",\"type\":\"bind\",\"source\":"
  "\"/var/lib/docker/containers/c1/hosts\",\"options\":[\"rbind\","
  "\"rprivate\"]},"
  "{\"destination\":\"/home/u\",\"type\":\"bind\",\"source\":\"/home/u\","
  "\"options\":[\"rbind\",\"rprivate\"]},"
  "{\"destination\":\"/var/run/docker.sock\",\"type\":\"bind\",\"source\":"
  "\"/var/run/docker.sock\",\"options\":[\"rbind\",\"rprivate\"]},"
  "{\"destination\":\"/work\",\"type\":\"bind\",\"source\":\"/srv/work\","
  "\"options\":[\"rbind\",\"rprivate\"]}],"
  "\"linux\":{\"resources\":{\"devices\":[{\"allow\":false,\"access\":"
  "\"rwm\"}],\"memory\":{},\"cpu\":{\"shares\":0},\"blockIO\":{\"weight\":"
  "0}},\"cgroupsPath\":\"system.slice:docker:abc\",\"namespaces\":["
  "{\"type\":\"mount\"},{\"type\":\"network\"},{\"type\":\"uts\"},"
  "{\"type\":\"pid\"},{\"type\":\"ipc\"}],\"maskedPaths\":[\"/proc/kcore\","
  "\"/proc/keys\"],\"readonlyPaths\":[\"/proc/sys\"]}}";

/* podman run --network host -v ~/.aws:/root/.aws:ro -e GH_TOKEN=...
 * --annotation run.agentrt.env.keep=GH_TOKEN --annotation
 * run.agentrt.egress.allow=github.com,api.github.com image */
static const char podman_json[] =
  "{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"user\":{\"uid\":0,\"gid\":0,"
  "\"umask\":18},\"args\":[\"bash\"],\"env\":[\"PATH=/usr/bin:/bin\","
  "\"container=podman\",\"GH_TOKEN=gho_0123456789abcdefghijABCDEFGHIJ0123\","
  "\"TERM=xterm\",\"HOME=/root\",\"HOSTNAME=p1\"],\"cwd\":\"/\","
  "\"capabilities\":{\"bounding\":[\"CAP_CHOWN\",\"CAP_NET_RAW\","
  "\"CAP_SYS_CHROOT\"],\"effective\":[\"CAP_CHOWN\",\"CAP_NET_RAW\"],"
  "\"permitted\":[\"CAP_CHOWN\",\"CAP_NET_RAW\"],\"inheritable\":"
  "[\"CAP_CHOWN\"],\"ambient\":[\"CAP_CHOWN\"]},\"rlimits\":[{\"type\":"
  "\"RLIMIT_NOFILE\",\"hard\":1048576,\"soft\":1048576}],"
  "\"oomScoreAdj\":0},\"root\":{\"path\":\"/var/lib/containers/storage/"
  "overlay/p1/merged\"},\"hostname\":\"p1\",\"mounts\":["
  "{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\","
  "\"options\":[\"nosuid\",\"noexec\",\"nodev\"]},"
  "{\"destination\":\"/dev\",\"type\":\"tmpfs\",\"source\":\"tmpfs\","
  "\"options\":[\"nosuid\",\"strictatime\",\"mode=755\",\"size=65536k\"]},"
  "{\"destination\":\"/sys\",\"type\":\"sysfs\",\"source\":\"sysfs\","
  "\"options\":[\"nosuid\",\"noexec\",\"nodev\",\"ro\"]},"
  "{\"destination\":\"/etc/hosts\",\"type\":\"bind\",\"source\":"
  "\"/run/containers/storage/overlay-containers/p1/userdata/hosts\","
  "\"options\":[\"bind\",\"rprivate\"]},"
  "{\"destination\":\"/dev/shm\",\"type\":\"bind\",\"source\":"
  "\"/run/containers/storage/overlay-containers/p1/userdata/shm\","
  "\"options\":[\"bind\",\"rprivate\"]},"
  "{\"destination\":\"/run/.containerenv\",\"type\":\"bind\",\"source\":"
  "\"/run/containers/storage/overlay-containers/p1/userdata/.containerenv\","
  "\"options\":[\"bind\",\"rprivate\"]},"
  "{\"destination\":\"/run/secrets\",\"type\":\"bind\",\"source\":"
  "\"/run/containers/storage/overlay-containers/p1/userdata/run/secrets\","
  "\"options\":[\"bind\",\"rprivate\"]},"
  "{\"destination\":\"/root/.aws\",\"type\":\"bind\",\"source\":"
  "\"/home/u/.aws\",\"options\":[\"ro\",\"rbind\",\"rprivate\"]}],"
  "\"annotations\":{\"io.container.manager\":\"libpod\","
  "\"run.agentrt.env.keep\":\"GH_TOKEN\",\"run.agentrt.egress.allow\":"
  "\"github.com,api.github.com\"},"
  "\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"ipc\"},"
  "{\"type\":\"uts\"},{\"type\":\"mount\"},{\"type\":\"cgroup\"}],"
  "\"resources\":{\"pids\":{\"limit\":2048}}}}";

/* containerd CRI: a pod's container, uid 1000, a projected service-account
 * token, an emptyDir work volume, the sandbox's namespaces by path. */
static const char cri_json[] =
  "{\"ociVersion\":\"1.1.0\",\"process\":{\"user\":{\"uid\":1000,\"gid\":"
  "1000,\"additionalGids\":[1000]},\"args\":[\"agent\"],\"env\":["
  "\"PATH=/usr/bin:/bin\",\"HOSTNAME=agent-0\",\"KUBERNETES_SERVICE_HOST="
  "10.96.0.1\",\"ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwx\","
  "\"DATABASE_URL=postgres://app:hunter2@db:5432/app\"],\"cwd\":\"/work\","
  "\"capabilities\":{\"bounding\":[\"CAP_CHOWN\",\"CAP_KILL\"],\"effective\":"
  "[],\"permitted\":[]},\"noNewPrivileges\":true,\"oomScoreAdj\":1000},"
  "\"root\":{\"path\":\"rootfs\",\"readonly\":true},\"mounts\":["
  "{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\","
  "\"options\":[\"nosuid\",\"noexec\",\"nodev\"]},"
  "{\"destination\":\"/dev\",\"type\":\"tmpfs\",\"source\":\"tmpfs\","
  "\"options\":[\"nosuid\",\"strictatime\",\"mode=755\",\"size=65536k\"]},"
  "{\"destination\":\"/etc/hosts\",\"type\":\"bind\",\"source\":"
  "\"/var/lib/kubelet/pods/k1/etc-hosts\",\"options\":[\"rbind\","
  "\"rprivate\",\"rw\"]},"
  "{\"destination\":\"/dev/termination-log\",\"type\":\"bind\",\"source\":"
  "\"/var/lib/kubelet/pods/k1/containers/agent/0a1b\",\"options\":"
  "[\"rbind\",\"rprivate\",\"rw\"]},"
  "{\"destination\":\"/etc/resolv.conf\",\"type\":\"bind\",\"source\":"
  "\"/var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/s1/"
  "resolv.conf\",\"options\":[\"rbind\",\"rprivate\",\"rw\"]},"
  "{\"destination\":\"/dev/shm\",\"type\":\"bind\",\"source\":"
  "\"/run/containerd/io.containerd.grpc.v1.cri/sandboxes/s1/shm\","
  "\"options\":[\"rbind\",\"rprivate\",\"rw\"]},"
  "{\"destination\":\"/work\",\"type\":\"bind\",\"source\":"
  "\"/var/lib/kubelet/pods/k1/volumes/kubernetes.io~empty-dir/work\","
  "\"options\":[\"rbind\",\"rprivate\",\"rw\"]},"
  "{\"destination\":\"/var/run/secrets/kubernetes.io/serviceaccount\","
  "\"type\":\"bind\",\"source\":\"/var/lib/kubelet/pods/k1/volumes/"
  "kubernetes.io~projected/kube-api-access-x\",\"options\":[\"rbind\","
  "\"rprivate\",\"ro\"]}],"
  "\"annotations\":{\"io.kubernetes.cri.container-type\":\"container\","
  "\"io.kubernetes.cri.sandbox-id\":\"s1\",\"run.agentrt.timeout\":\"2h\"},"
  "\"linux\":{\"resources\":{\"memory\":{\"limit\":2147483648},\"cpu\":"
  "{\"shares\":102}},\"cgroupsPath\":\"kubepods-pod.slice:cri:c1\","
  "\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"ipc\",\"path\":"
  "\"/proc/42/ns/ipc\"},{\"type\":\"uts\",\"path\":\"/proc/42/ns/uts\"},"
  "{\"type\":\"mount\"},{\"type\":\"network\",\"path\":"
  "\"/var/run/netns/cni-1234\"}]}}";

static struct oci_config *
parse (const char *json)
{
  struct oci_config *c = fake_config (json);
  CHECK (c != NULL);
  return c;
}

static int
run (struct oci_config *c, struct harden_result *r, const char *fail_path,
     agentrt_error_t *err)
{
  struct fake_host fh = { host_nodes, fail_path, 0, NULL, NULL,
                          { NULL, 0 }, { NULL, 0 } };
  struct host_view view;
  int ret;

  fake_host_view (&view, &fh);
  ret = harden (c, &policy, &c->annotations, &view, r, err);
  fake_host_release (&fh);
  return ret;
}

static char *
to_json (const struct oci_config *c)
{
  agentrt_error_t err = NULL;
  char *s = oci_config_to_json (c, false, &err);
  CHECK (s != NULL);
  agentrt_error_release (&err);
  return s;
}

static const struct oci_mount *
find_mount (const struct oci_config *c, const char *dest)
{
  for (size_t i = 0; i < c->n_mounts; i++)
    if (strcmp (c->mounts[i].destination, dest) == 0)
      return &c->mounts[i];
  return NULL;
}

static ssize_t
mount_index (const struct oci_config *c, const char *dest)
{
  const struct oci_mount *m = find_mount (c, dest);
  return m ? m - c->mounts : -1;
}

static bool
has_env (const struct oci_config *c, const char *entry)
{
  return str_list_contains (&c->process->env, entry);
}

static bool
env_named (const struct oci_config *c, const char *name)
{
  size_t n = strlen (name);
  for (size_t i = 0; i < c->process->env.len; i++)
    if (strncmp (c->process->env.items[i], name, n) == 0
        && c->process->env.items[i][n] == '=')
      return true;
  return false;
}

/* Refusals leave the config exactly as it was. */
static void
expect_refused (const char *json, const char *key, const char *value,
                const char *needle)
{
  struct oci_config *c = parse (json);
  struct harden_result r;
  agentrt_error_t err = NULL;
  char *before, *after;

  kv_list_set (&c->annotations, key, value);
  before = to_json (c);
  CHECK (run (c, &r, NULL, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, needle);
  CHECK (r.changes.len == 0 && r.directives.egress_allow == NULL);
  after = to_json (c);
  CHECK_STR_EQ (after, before);
  free (before);
  free (after);
  agentrt_error_release (&err);
  oci_config_free (c);
}

static void
test_refusals (void)
{
  expect_refused (docker_json, "run.agentrt.timout", "5m",
                  "unknown annotation `run.agentrt.timout`");
  expect_refused (podman_json, "RUN.AGENTRT.EGRESS", "none",
                  "unknown annotation");
  expect_refused (cri_json, "run.agentrt.rootfs", "writable",
                  "rootfs.allowWritable");
  expect_refused (docker_json, "run.agentrt.timeout", "48h",
                  "limits.maxLifetime");
  expect_refused (docker_json, "run.agentrt.egress.allow", "*.com",
                  "egress.allowBroad");
}

static void
test_host_view_failure (void)
{
  struct oci_config *c = parse (docker_json);
  struct harden_result r;
  agentrt_error_t err = NULL;

  CHECK (run (c, &r, "/home/u/.config", &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "mounts[10] (`/home/u`)");
  CHECK (r.changes.len == 0);
  agentrt_error_release (&err);
  oci_config_free (c);
}

static void
test_docker (void)
{
  struct oci_config *c = parse (docker_json);
  struct harden_result r;
  agentrt_error_t err = NULL;
  const struct oci_capabilities *caps;
  const struct oci_resources *res;

  CHECK (run (c, &r, NULL, &err) == 0);
  /* Env: secrets out by name and by value; look-alikes kept. */
  CHECK (!env_named (c, "AWS_SECRET_ACCESS_KEY"));
  CHECK (!env_named (c, "OPENAI_KEY"));
  CHECK (has_env (c, "AWS_REGION=eu-west-1"));
  CHECK (has_env (c, "GIT_AUTHOR_NAME=Dev"));
  CHECK (has_env (c, "TOKENIZERS_PARALLELISM=false"));
  CHECK (has_env (c, "HOME=/root"));
  CHECK (has_env (c, "HTTPS_PROXY=" HARDEN_PROXY_HTTP_URL));
  CHECK (has_env (c, "all_proxy=" HARDEN_PROXY_SOCKS_URL));
  CHECK (has_env (c, "NO_PROXY=" HARDEN_NO_PROXY));
  /* Mounts: the socket dropped, the home masked, work kept rw. */
  CHECK (find_mount (c, "/var/run/docker.sock") == NULL);
  CHECK (find_mount (c, "/home/u") != NULL);
  CHECK (find_mount (c, "/work") != NULL);
  CHECK (str_list_contains (&c->linux_cfg->masked_paths, "/home/u/.ssh"));
  CHECK (str_list_contains (&c->linux_cfg->masked_paths, "/home/u/.aws"));
  CHECK (str_list_contains (&c->linux_cfg->masked_paths, "/home/u/.config/gh"));
  CHECK (str_list_contains (&c->linux_cfg->masked_paths, "/proc/kcore"));
  /* Root read-only; /tmp and /run added; Docker's 64m /dev/shm kept;
   * HOME=/root on the read-only root gets a tmpfs. */
  CHECK (c->root.readonly);
  CHECK (find_mount (c, "/tmp") && find_mount (c, "/run"));
  CHECK (str_list_contains (&find_mount (c, "/dev/shm")->options, "noexec"));
  CHECK (find_mount (c, "/root") != NULL);
  CHECK (str_list_contains (&find_mount (c, "/root")->options, "mode=0700"));
  CHECK (str_list_contains (&find_mount (c, "/tmp")->options, "size=512m"));
  /* Capabilities: the safe eight at most. */
  caps = c->process->capabilities;
  CHECK (caps->bounding.len == 8 && caps->effective.len == 8);
  CHECK (!str_list_contains (&caps->bounding, "CAP_NET_RAW"));
  CHECK (!str_list_contains (&caps->permitted, "CAP_SYS_CHROOT"));
  CHECK (c->process->no_new_privileges);
  /* Limits where Docker set none. */
  res = c->linux_cfg->resources;
  CHECK (res->pids->has_limit && res->pids->limit == 1024);
  CHECK (res->memory->has_limit && res->memory->limit == 4 * (int64_t) POLICY_GIB);
  CHECK (res->memory->has_swap && res->memory->swap == res->memory->limit);
  /* Directives. */
  CHECK (r.directives.rootfs == HARDEN_ROOTFS_READONLY);
  CHECK (r.directives.egress == HARDEN_EGRESS_PROXY);
  CHECK_STR_EQ (r.directives.egress_allow, "");
  /* a new network namespace without hooks: nobody configures it */
  CHECK (r.directives.net_facts.bundle_ns == NET_BUNDLE_NEW);
  CHECK (net_plan_decide (&r.directives.net_facts).agent == NET_AGENT_OWN
         && net_plan_decide (&r.directives.net_facts).outside
                == NET_OUTSIDE_RUNTIME);
  CHECK (r.directives.lifetime == 86400);
  CHECK_STR_EQ (r.directives.seccomp_profile, POLICY_DEFAULT_SECCOMP_PROFILE);
  CHECK_STR_EQ (r.directives.audit_dir, "/var/log/agentrt");
  CHECK (r.directives.sidecar_uid == 65534);
  CHECK (r.directives.sidecar_busy_poll_us == POLL_WINDOW_DEFAULT_US);
  harden_result_release (&r);
  oci_config_free (c);
}

static void
test_podman (void)
{
  struct oci_config *c = parse (podman_json);
  struct harden_result r;
  agentrt_error_t err = NULL;
  const struct oci_capabilities *caps;
  char *text;

  CHECK (run (c, &r, NULL, &err) == 0);
  /* GH_TOKEN kept on request, and said so. */
  CHECK (env_named (c, "GH_TOKEN"));
  text = change_list_to_text (&r.changes);
  CHECK_CONTAINS (text, "env-kept: GH_TOKEN (run.agentrt.env.keep; known "
                        "credential variable)");
  CHECK (strstr (text, "gho_") == NULL);
  /* ~/.aws mounted at /root/.aws: dropped by its destination. */
  CHECK (find_mount (c, "/root/.aws") == NULL);
  CHECK_CONTAINS (text, "mount-dropped: /root/.aws (source /home/u/.aws) (the "
                        "destination is a credential location (.aws))");
  /* /dev/shm (a bind of userdata/shm) replaced by a tmpfs; /run tmpfs put
   * before the mounts below it so they stay visible. */
  CHECK_STR_EQ (find_mount (c, "/dev/shm")->type, "tmpfs");
  CHECK (mount_index (c, "/run") < mount_index (c, "/run/.containerenv"));
  CHECK (mount_index (c, "/run") < mount_index (c, "/run/secrets"));
  CHECK (find_mount (c, "/root") != NULL); /* HOME=/root, read-only root */
  /* Host network: a new namespace, the host is the outside. */
  CHECK (r.directives.net_facts.bundle_ns == NET_BUNDLE_HOST);
  CHECK (net_plan_decide (&r.directives.net_facts).outside
         == NET_OUTSIDE_RUNTIME);
  CHECK (oci_config_namespace (c, OCI_NS_NETWORK) != NULL);
  CHECK (oci_config_namespace (c, OCI_NS_NETWORK)->path == NULL);
  CHECK_CONTAINS (text, "namespace: network (new)");
  CHECK_STR_EQ (r.directives.egress_allow, "github.com,api.github.com");
  CHECK (r.directives.env_keep.len == 1);
  /* Capabilities: inheritable and ambient cleared even for safe ones. */
  caps = c->process->capabilities;
  CHECK (caps->inheritable.len == 0 && caps->ambient.len == 0);
  CHECK (caps->bounding.len == 1 && caps->effective.len == 1);
  CHECK_CONTAINS (text, "capability: CAP_CHOWN (the inheritable and ambient "
                        "sets are cleared; removed from inheritable, "
                        "ambient)");
  CHECK_CONTAINS (text, "capability: CAP_NET_RAW (not in the policy's safe "
                        "set; removed from bounding, effective, permitted)");
  /* The bundle's own pids limit is kept. */
  CHECK (c->linux_cfg->resources->pids->limit == 2048);
  free (text);
  harden_result_release (&r);
  oci_config_free (c);
}

static void
test_cri (void)
{
  struct oci_config *c = parse (cri_json);
  struct harden_result r;
  agentrt_error_t err = NULL;
  char *text;

  CHECK (run (c, &r, NULL, &err) == 0);
  text = change_list_to_text (&r.changes);
  CHECK (!env_named (c, "ANTHROPIC_API_KEY"));
  CHECK (!env_named (c, "DATABASE_URL"));
  CHECK (has_env (c, "KUBERNETES_SERVICE_HOST=10.96.0.1"));
  /* uid 1000 without HOME: HOME=/tmp, already a writable tmpfs. */
  CHECK (has_env (c, "HOME=/tmp"));
  CHECK (find_mount (c, "/tmp") != NULL);
  CHECK (find_mount (c, "/var/run/secrets/kubernetes.io/serviceaccount")
         == NULL);
  CHECK (find_mount (c, "/work") != NULL);
  CHECK_STR_EQ (find_mount (c, "/dev/shm")->type, "tmpfs");
  CHECK (r.directives.net_facts.bundle_ns == NET_BUNDLE_PATH);
  CHECK (net_plan_decide (&r.directives.net_facts).agent == NET_AGENT_INNER);
  CHECK_STR_EQ (oci_config_namespace (c, OCI_NS_NETWORK)->path,
                "/var/run/netns/cni-1234");
  CHECK (r.directives.lifetime == 7200);
  CHECK_CONTAINS (text, "lifetime: 7200s (run.agentrt.timeout)");
  CHECK (c->linux_cfg->resources->memory->limit == 2147483648);
  CHECK (!c->linux_cfg->resources->memory->has_swap);
  CHECK (c->linux_cfg->resources->pids->limit == 1024);
  CHECK (strstr (text, "root.readonly") == NULL); /* already read-only */
  CHECK (strstr (text, "hunter2") == NULL);
  free (text);
  harden_result_release (&r);
  oci_config_free (c);
}

/* The bundle's own read-only root wins over ephemeral; without it the
 * root becomes an ephemeral overlay and HOME needs no tmpfs. */
static void
test_rootfs_modes (void)
{
  struct oci_config *c = parse (cri_json);
  struct harden_result r;
  agentrt_error_t err = NULL;

  kv_list_set (&c->annotations, "run.agentrt.rootfs", "ephemeral");
  CHECK (run (c, &r, NULL, &err) == 0);
  CHECK (r.directives.rootfs == HARDEN_ROOTFS_READONLY);
  CHECK (c->root.readonly);
  harden_result_release (&r);
  oci_config_free (c);

  c = parse (docker_json);
  kv_list_set (&c->annotations, "run.agentrt.rootfs", "ephemeral");
  CHECK (run (c, &r, NULL, &err) == 0);
  CHECK (r.directives.rootfs == HARDEN_ROOTFS_EPHEMERAL);
  CHECK (r.directives.ephemeral_size == POLICY_GIB);
  CHECK (!c->root.readonly);
  CHECK (find_mount (c, "/root") == NULL);
  harden_result_release (&r);
  oci_config_free (c);

  policy.allow_writable_rootfs = true;
  c = parse (docker_json);
  kv_list_set (&c->annotations, "run.agentrt.rootfs", "writable");
  kv_list_set (&c->annotations, "run.agentrt.egress", "none");
  CHECK (run (c, &r, NULL, &err) == 0);
  CHECK (r.directives.rootfs == HARDEN_ROOTFS_WRITABLE);
  CHECK (r.directives.egress == HARDEN_EGRESS_NONE);
  CHECK (!env_named (c, "HTTP_PROXY"));
  harden_result_release (&r);
  oci_config_free (c);
  policy.allow_writable_rootfs = false;
}

/* The network facts the hardening gives the plan, and the plan: the
 * agent gets a second namespace only when the bundle's may be configured
 * from outside (a path, a hook); a new namespace nobody configures is the
 * agent's, the sidecar connecting from the runtime's (egress.uplink auto;
 * every combination is in test-policy-netplan).  "AGENT/OUTSIDE". */
static const char *
net_for (const char *namespaces, const char *hooks, const char *egress)
{
  static char plan[64];
  struct net_plan decided;
  char json[1024];
  struct oci_config *c;
  struct harden_result r;
  agentrt_error_t err = NULL;

  snprintf (json, sizeof json,
            "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"},"
            "\"process\":{\"user\":{\"uid\":0,\"gid\":0},\"args\":[\"sh\"],"
            "\"cwd\":\"/\"},%s"
            "\"linux\":{\"namespaces\":[{\"type\":\"pid\"},"
            "{\"type\":\"mount\"},{\"type\":\"ipc\"}%s]}}",
            hooks, namespaces);
  c = parse (json);
  kv_list_set (&c->annotations, "run.agentrt.egress", egress);
  CHECK (run (c, &r, NULL, &err) == 0);
  CHECK (r.directives.net_facts.hardened && !r.directives.net_facts.local_monitor
         && !r.directives.net_facts.shared_agent_ns);
  CHECK (r.directives.net_facts.egress == (strcmp (egress, "proxy") == 0));
  decided = net_plan_decide (&r.directives.net_facts);
  snprintf (plan, sizeof plan, "%s/%s", net_agent_name (decided.agent),
            net_outside_name (decided.outside));
  harden_result_release (&r);
  oci_config_free (c);
  return plan;
}

static void
test_agent_netns (void)
{
  static const char new_ns[] = ",{\"type\":\"network\"}";
  static const char path_ns[] = ",{\"type\":\"network\","
                                "\"path\":\"/var/run/netns/cni-1\"}";
  static const char hook[] = "\"hooks\":{\"%s\":[{\"path\":\"/bin/true\"}]},";
  const char *kinds[] = { "prestart", "createRuntime", "createContainer" };
  char hooks[128];

  CHECK_STR_EQ (net_for (new_ns, "", "none"), "own/none");
  CHECK_STR_EQ (net_for (new_ns, "", "proxy"), "own/runtime");
  CHECK_STR_EQ (net_for (path_ns, "", "none"), "inner/none");
  CHECK_STR_EQ (net_for (path_ns, "", "proxy"), "inner/bundle");
  CHECK_STR_EQ (net_for ("", "", "none"), "own/none");
  CHECK_STR_EQ (net_for ("", "", "proxy"), "own/runtime");
  for (size_t i = 0; i < 3; i++)
    {
      snprintf (hooks, sizeof hooks, hook, kinds[i]);
      CHECK_STR_EQ (net_for (new_ns, hooks, "none"), "inner/none");
      CHECK_STR_EQ (net_for (new_ns, hooks, "proxy"), "inner/bundle");
    }
  /* hooks that run once the agent's namespace is chosen do not matter */
  snprintf (hooks, sizeof hooks, hook, "startContainer");
  CHECK_STR_EQ (net_for (new_ns, hooks, "none"), "own/none");
}

/* The egress change that says how programs that ignore proxy variables
 * fare (NULL: none), for egress EGRESS and the policy's transparent. */
static const char *
transparent_change (const char *egress, bool transparent, bool *planned)
{
  static char what[512];
  struct oci_config *c = parse (
      "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"},"
      "\"process\":{\"user\":{\"uid\":0,\"gid\":0},\"args\":[\"sh\"],"
      "\"cwd\":\"/\"},\"linux\":{\"namespaces\":[{\"type\":\"network\"}]}}");
  struct harden_result r;
  agentrt_error_t err = NULL;
  const char *found = NULL;

  policy.egress_transparent = transparent;
  kv_list_set (&c->annotations, "run.agentrt.egress", egress);
  CHECK (run (c, &r, NULL, &err) == 0);
  *planned = net_plan_decide (&r.directives.net_facts).transparent;
  CHECK (r.directives.net_facts.transparent == transparent);
  for (size_t i = 0; i < r.changes.len; i++)
    {
      const struct change *ch = &r.changes.items[i];
      if (ch->kind == CHANGE_EGRESS && strstr (ch->why, "egress.transparent"))
        {
          CHECK (found == NULL); /* one */
          snprintf (what, sizeof what, "%s (%s)", ch->what, ch->why);
          found = what;
        }
    }
  harden_result_release (&r);
  oci_config_free (c);
  policy.egress_transparent = true;
  return found;
}

static void
test_transparent (void)
{
  bool planned;
  const char *ch = transparent_change ("proxy", true, &planned);

  CHECK (planned);
  CHECK_CONTAINS (ch, "every TCP connection and DNS query of the agent goes "
                      "to the sidecar");
  /* off by the policy: proxy only, and said so */
  ch = transparent_change ("proxy", false, &planned);
  CHECK (!planned);
  CHECK_CONTAINS (ch, "proxy only: a program that ignores the proxy variables "
                      "reaches nothing (egress.transparent is false)");
  /* no sidecar: nothing to redirect to */
  CHECK (transparent_change ("none", true, &planned) == NULL && !planned);
}

/* A namespace joined by path that is the host's is refused naming the
 * entry, whatever its type, but the network (the sidecar's outside may be
 * the host's); one that cannot be judged is refused too; another's is
 * joined. */
static void
test_host_namespaces (void)
{
  static const char *const host_ns[] = { "/proc/1/ns/pid", "/proc/1/ns/ipc",
                                         "/proc/1/ns/uts", "/proc/1/ns/net",
                                         "/proc/1/ns/mnt", "/proc/1/ns/cgroup",
                                         NULL };
  static const struct
  {
    const char *type, *path, *fail_path, *error;
  } rows[] = {
    { "pid", "/proc/1/ns/pid", NULL, "linux.namespaces[0].path `/proc/1/ns/pid`: the host's pid namespace" },
    { "ipc", "/proc/1/ns/ipc", NULL, "linux.namespaces[0].path `/proc/1/ns/ipc`: the host's ipc namespace" },
    { "uts", "/proc/1/ns/uts", NULL, "the host's uts namespace" },
    { "mount", "/proc/1/ns/mnt", NULL, "the host's mount namespace" },
    { "cgroup", "/proc/1/ns/cgroup", NULL, "the host's cgroup namespace" },
    { "pid", "/proc/77/ns/pid", "/proc/77/ns/pid", "linux.namespaces[0].path: inspect" },
    { "network", "/proc/1/ns/net", NULL, NULL },
    { "pid", "/proc/77/ns/pid", NULL, NULL },
  };

  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      char json[512];
      struct oci_config *c;
      struct harden_result r;
      struct host_view view;
      agentrt_error_t err = NULL;
      struct fake_host fh = { host_nodes, rows[i].fail_path, 0, NULL, host_ns,
                              { NULL, 0 }, { NULL, 0 } };
      int ret;

      snprintf (json, sizeof json,
                "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"},"
                "\"process\":{\"user\":{\"uid\":0,\"gid\":0},"
                "\"args\":[\"sh\"],\"cwd\":\"/\"},\"linux\":{\"namespaces\":"
                "[{\"type\":\"%s\",\"path\":\"%s\"}]}}",
                rows[i].type, rows[i].path);
      c = parse (json);
      fake_host_view (&view, &fh);
      ret = harden (c, &policy, &c->annotations, &view, &r, &err);
      fake_host_release (&fh);
      if (rows[i].error)
        {
          CHECK (ret < 0 && err != NULL);
          if (err)
            CHECK_CONTAINS (err->msg, rows[i].error);
        }
      else
        {
          CHECK (ret == 0);
          if (ret == 0)
            harden_result_release (&r);
        }
      agentrt_error_release (&err);
      oci_config_free (c);
    }
}

/* Hardening a hardened config changes nothing more in the config, and the
 * change list only restates the directives. */
static void
test_idempotent (void)
{
  const char *const bundles[] = { docker_json, podman_json, cri_json };

  for (size_t i = 0; i < 3; i++)
    {
      struct oci_config *c = parse (bundles[i]);
      struct harden_result r;
      agentrt_error_t err = NULL;
      char *once, *twice;

      CHECK (run (c, &r, NULL, &err) == 0);
      harden_result_release (&r);
      once = to_json (c);
      CHECK (run (c, &r, NULL, &err) == 0);
      twice = to_json (c);
      CHECK_STR_EQ (twice, once);
      for (size_t j = 0; j < r.changes.len; j++)
        {
          enum change_kind k = r.changes.items[j].kind;
          /* a statement, not a change: userns.mode is off */
          if (k == CHANGE_NAMESPACE
              && strcmp (r.changes.items[j].what, "no user namespace") == 0)
            continue;
          if (k != CHANGE_SECCOMP && k != CHANGE_LIFETIME
              && k != CHANGE_EGRESS && k != CHANGE_ENV_KEPT)
            fprintf (stderr, "second pass: %s: %s\n", change_kind_name (k),
                     r.changes.items[j].what);
          CHECK (k == CHANGE_SECCOMP || k == CHANGE_LIFETIME
                 || k == CHANGE_EGRESS || k == CHANGE_ENV_KEPT);
        }
      free (once);
      free (twice);
      harden_result_release (&r);
      oci_config_free (c);
    }
}

/* exec: the same scrubbing and privileges for a new process. */
static void
test_exec_process (void)
{
  const char json[] = "{\"user\":{\"uid\":0,\"gid\":0},\"args\":[\"sh\"],"
                      "\"cwd\":\"/\",\"env\":[\"GH_TOKEN=x\",\"NPM_TOKEN=y\","
                      "\"HOME=/home/u\"],\"capabilities\":{\"bounding\":"
                      "[\"CAP_SYS_ADMIN\",\"CAP_KILL\"],\"ambient\":"
                      "[\"CAP_KILL\"]}}";
  agentrt_error_t err = NULL;
  struct oci_process *p = oci_process_parse (json, strlen (json), "exec", &err);
  struct harden_directives d = { .egress = HARDEN_EGRESS_NONE };
  struct change_list changes = { NULL, 0 };

  CHECK (p != NULL);
  if (p == NULL)
    return;
  str_list_append (&d.env_keep, "GH_TOKEN");
  harden_process (p, &policy, &d, &changes);
  CHECK (str_list_contains (&p->env, "GH_TOKEN=x"));
  CHECK (!str_list_contains (&p->env, "NPM_TOKEN=y"));
  CHECK (str_list_contains (&p->env, "HOME=/home/u"));
  CHECK (p->capabilities->bounding.len == 1);
  CHECK (p->capabilities->ambient.len == 0);
  CHECK (p->no_new_privileges);
  str_list_free (&d.env_keep);
  change_list_release (&changes);
  oci_process_free (p);
}

static void
test_renderings (void)
{
  struct oci_config *c = parse (docker_json);
  struct harden_result r;
  agentrt_error_t err = NULL;
  struct json_writer *w;
  char *json, *text;

  CHECK (run (c, &r, NULL, &err) == 0);
  text = change_list_to_text (&r.changes);
  /* One line per change, no secret values. */
  size_t lines = 0;
  for (const char *p = text; *p; p++)
    lines += *p == '\n';
  CHECK (lines == r.changes.len);
  CHECK (strstr (text, "wJalrXUtnFEMI") == NULL);
  CHECK_CONTAINS (text, "env-removed: AWS_SECRET_ACCESS_KEY (known credential "
                        "variable)\n");
  CHECK_CONTAINS (text, "no-new-privileges: process.noNewPrivileges=true");
  CHECK_CONTAINS (text, "seccomp: " POLICY_DEFAULT_SECCOMP_PROFILE);
  w = json_writer_new (false);
  json_begin_object (w);
  json_key (w, "changes");
  change_list_write_json (&r.changes, w);
  json_key (w, "directives");
  harden_directives_write_json (&r.directives, w);
  json_end_object (w);
  json = json_writer_finish (w, NULL);
  CHECK_CONTAINS (json, "{\"kind\":\"mount-dropped\",\"what\":"
                        "\"/var/run/docker.sock (source /var/run/docker.sock)\""
                        ",\"why\":\"the source is a unix socket\"}");
  CHECK_CONTAINS (json, "\"directives\":{\"rootfs\":\"readonly\"");
  CHECK_CONTAINS (json, "\"egress\":\"proxy\",\"egressAllow\":\"\"");
  CHECK_CONTAINS (json, "\"network\":{\"bundle\":\"new\"");
  /* a user namespace of its own (the default): only the init can make
   * the agent's network */
  CHECK_CONTAINS (json, "\"uplink\":\"auto\",\"transparent\":true,"
                        "\"agent\":\"own\",\"outside\":\"runtime\","
                        "\"maker\":\"init\",\"rules\":\"init\"},"
                        "\"userns\":\"auto\","
                        "\"envKeep\":[]");
  CHECK (strstr (json, "wJalrXUtnFEMI") == NULL);
  free (json);
  free (text);
  harden_result_release (&r);
  oci_config_free (c);
}

/* docker run --privileged: every device allowed, a host disk in
 * linux.devices, no /proc masks, and an unlimited unified pids.max. */
static void
test_privileged (void)
{
  static const char json[] =
      "{\"ociVersion\":\"1.2.0\",\"process\":{\"user\":{\"uid\":0,"
      "\"gid\":0},\"args\":[\"sh\"],\"cwd\":\"/\"},\"root\":{\"path\":"
      "\"rootfs\"},\"linux\":{\"devices\":[{\"path\":\"/dev/sda\",\"type\":"
      "\"b\",\"major\":8,\"minor\":0},{\"path\":\"/dev/fuse\",\"type\":"
      "\"c\",\"major\":10,\"minor\":229}],\"resources\":{\"devices\":"
      "[{\"allow\":true,\"access\":\"rwm\"}],\"unified\":{\"pids.max\":"
      "\"max\",\"cpu.weight\":\"100\"}},\"namespaces\":[{\"type\":"
      "\"mount\"}]}}";
  struct oci_config *c = parse (json);
  struct harden_result r;
  agentrt_error_t err = NULL;
  const struct oci_linux *l;
  const struct oci_resources *res;
  char *once, *twice;

  CHECK (run (c, &r, NULL, &err) == 0);
  l = c->linux_cfg;
  res = l->resources;
  /* devices: only the allowed ones (fuse is not, by default); the rules
   * deny all but them, whatever the bundle's allowed */
  CHECK (l->n_devices == 0);
  CHECK (res->n_devices > 2);
  CHECK (!res->devices[0].allow && res->devices[0].type == 'a');
  for (size_t i = 1; i < res->n_devices; i++)
    CHECK (res->devices[i].allow && res->devices[i].type == 'c'
           && res->devices[i].major != 10);
  CHECK (str_list_contains (&l->readonly_paths, "/proc/sys"));
  CHECK (str_list_contains (&l->readonly_paths, "/proc/sysrq-trigger"));
  CHECK (str_list_contains (&l->masked_paths, "/proc/kcore"));
  CHECK (kv_list_get (&res->unified, "pids.max") == NULL);
  CHECK_STR_EQ (kv_list_get (&res->unified, "cpu.weight"), "100");
  CHECK (res->pids->limit == 1024);
  CHECK (oci_config_namespace (c, OCI_NS_PID) != NULL);
  CHECK (oci_config_namespace (c, OCI_NS_IPC) != NULL);
  harden_result_release (&r);
  once = to_json (c);
  CHECK (run (c, &r, NULL, &err) == 0);
  twice = to_json (c);
  CHECK_STR_EQ (twice, once);
  free (once);
  free (twice);
  harden_result_release (&r);
  oci_config_free (c);
}

/* Hostile text in a mount path cannot forge a line of the text output. */
static void
test_text_escaping (void)
{
  struct change_list l = { NULL, 0 };
  char *text;

  change_add (&l, CHANGE_MOUNT_DROPPED, "/x\nenv-kept: FAKE", "why\r");
  text = change_list_to_text (&l);
  CHECK_STR_EQ (text, "mount-dropped: /x\\x0aenv-kept: FAKE (why\\x0d)\n");
  free (text);
  change_list_release (&l);
}

int
main (void)
{
  policy_init_defaults (&policy);
  RUN_TEST (test_refusals);
  RUN_TEST (test_host_view_failure);
  RUN_TEST (test_docker);
  RUN_TEST (test_podman);
  RUN_TEST (test_cri);
  RUN_TEST (test_rootfs_modes);
  RUN_TEST (test_agent_netns);
  RUN_TEST (test_transparent);
  RUN_TEST (test_host_namespaces);
  RUN_TEST (test_idempotent);
  RUN_TEST (test_privileged);
  RUN_TEST (test_exec_process);
  RUN_TEST (test_renderings);
  RUN_TEST (test_text_escaping);
  policy_release (&policy);
  return UNIT_EXIT ();
}
