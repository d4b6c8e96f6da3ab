/* Unit tests of bind mounts against credentials and sockets
 * (runtime/policy/binds.h) over a fake host: mounted homes, symlinks into
 * .ssh, engine sockets, service-account tokens, hostile destinations. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/policy/binds.h"
#include "policy-fakehost.h"
#include "unit.h"

static struct agent_policy policy;

/* The host. */
static const struct fake_node host_nodes[] = {
  { "/home/u/.bashrc", 'f', NULL },
  { "/home/u/.ssh/id_rsa", 'f', NULL },
  { "/home/u/.ssh/known_hosts", 'f', NULL },
  { "/home/u/.aws/credentials", 'f', NULL },
  { "/home/u/.docker/config.json", 'f', NULL },
  { "/home/u/.docker/buildx/current", 'f', NULL },
  { "/home/u/.config/gh/hosts.yml", 'f', NULL },
  { "/home/u/.config/gcloud/credentials.db", 'f', NULL },
  { "/home/u/.config/nvim/init.lua", 'f', NULL },
  { "/home/u/.netrc", 'f', NULL },
  { "/home/u/keys", 'l', ".ssh" },
  { "/home/u/abs-keys", 'l', "/home/u/.ssh" },
  { "/home/u/project/src/main.c", 'f', NULL },
  { "/home/u/project/.npmrc", 'f', NULL },
  { "/home/v/.kube/config", 'f', NULL },
  { "/home/v/notes.txt", 'f', NULL },
  { "/home/w", 'l', "/data/w" },
  { "/data/w/.ssh/id_ed25519", 'f', NULL },
  { "/secure/sshkeys/id_rsa", 'f', NULL },
  { "/home/x/.ssh", 'l', "/secure/sshkeys" },
  { "/var/run", 'l', "/run" },
  { "/run/docker.sock", 's', NULL },
  { "/run/containerd/containerd.sock", 's', NULL },
  { "/run/containerd/io.containerd.grpc.v1.cri/sandboxes/abc/shm", 'd', NULL },
  { "/run/podman/info", 'f', NULL },
  { "/run/user/1000/bus", 's', NULL },
  { "/run/user/1001/containers/userdata/hosts", 'f', NULL },
  { "/run/lock/x", 'f', NULL },
  { "/srv/work/app.py", 'f', NULL },
  { "/srv/sockdir/app.sock", 's', NULL },
  { "/srv/sockdir/readme", 'f', NULL },
  { "/tmp/dockercfg/config.json", 'f', NULL },
  { "/tmp/keys/deploy", 'f', NULL },
  { "/tmp/loop1", 'l', "/tmp/loop2" },
  { "/tmp/loop2", 'l', "/tmp/loop1" },
  { "/bundle/data/file", 'f', NULL },
  { "/var/lib/kubelet/pods/p1/volumes/kubernetes.io~projected/"
    "kube-api-access-1/token", 'f', NULL },
  { "/var/lib/kubelet/pods/p1/secrets/kubernetes.io/serviceaccount/token",
    'f', NULL },
  { "/var/lib/docker/containers/c1/hosts", 'f', NULL },
  { "/proc/1/environ", 'f', NULL },
  { "/dev/kvm", 'o', NULL },
  { NULL, 0, NULL },
};

static struct oci_config *
new_config (void)
{
  return xzalloc (sizeof (struct oci_config));
}

/* Adds a mount; options are a NULL-terminated list. */
static void
add_mount (struct oci_config *c, const char *dest, const char *type,
           const char *source, ...)
{
  struct oci_mount *m;
  const char *opt;
  va_list ap;

  c->mounts = xreallocarray (c->mounts, c->n_mounts + 1, sizeof (*c->mounts));
  m = &c->mounts[c->n_mounts++];
  memset (m, 0, sizeof (*m));
  m->destination = xstrdup (dest);
  m->type = xstrdup (type);
  m->source = xstrdup (source);
  va_start (ap, source);
  while ((opt = va_arg (ap, const char *)) != NULL)
    str_list_append (&m->options, opt);
  va_end (ap);
}

static void
bind (struct oci_config *c, const char *source, const char *dest)
{
  add_mount (c, dest, "bind", source, "rbind", "rw", NULL);
}

static const struct oci_mount *
find_mount (const struct oci_config *c, const char *dest)
{
  for (size_t i = 0; i < c->n_mounts; i++)
    if (strcmp (c->mounts[i].destination, dest) == 0)
      return &c->mounts[i];
  return NULL;
}

static bool
masked (const struct oci_config *c, const char *path)
{
  return c->linux_cfg && str_list_contains (&c->linux_cfg->masked_paths, path);
}

static size_t
n_masked (const struct oci_config *c)
{
  return c->linux_cfg ? c->linux_cfg->masked_paths.len : 0;
}

/* Runs binds_harden over a fresh fake host; returns its status. */
static int
run_on (const struct fake_node *nodes, struct oci_config *c,
        struct change_list *changes, const char *fail_path,
        agentrt_error_t *err)
{
  struct fake_host fh = { nodes, fail_path, 0 };
  struct host_view view;

  fake_host_view (&view, &fh);
  return binds_harden (c, &policy, &view, changes, err);
}

static int
run (struct oci_config *c, struct change_list *changes, const char *fail_path,
     agentrt_error_t *err)
{
  return run_on (host_nodes, c, changes, fail_path, err);
}

static void
test_hostile_failures (void)
{
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;

  bind (c, "/srv/work", "/work");
  bind (c, "/nonexistent", "/x");
  CHECK (run (c, &changes, NULL, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "mounts[1] (`/x`)");
  CHECK_CONTAINS (err ? err->msg : NULL, "does not exist");
  agentrt_error_release (&err);
  oci_config_free (c);
  change_list_release (&changes);

  /* A host view that cannot answer refuses the container. */
  c = new_config ();
  bind (c, "/run/docker.sock", "/var/run/docker.sock");
  bind (c, "/home/u", "/home/u");
  CHECK (run (c, &changes, "/home/u/.ssh", &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "mounts[1] (`/home/u`)");
  CHECK (err && err->status == EACCES);
  CHECK (c->n_mounts == 1); /* the socket was dropped, the config freeable */
  agentrt_error_release (&err);
  oci_config_free (c);
  change_list_release (&changes);

  /* A symlink loop as source. */
  c = new_config ();
  bind (c, "/tmp/loop1", "/l");
  CHECK (run (c, &changes, NULL, &err) < 0);
  agentrt_error_release (&err);
  oci_config_free (c);
  change_list_release (&changes);
}

static void
test_hostile_destinations (void)
{
  const char *const dests[] = { "/root/./.ssh", "/root//.ssh/",
                                "/x/../root/.ssh", "/root/.ssh/authorized_keys",
                                "/home/me/.docker/config.json", "/.netrc",
                                "/var/run/secrets/kubernetes.io/serviceaccount",
                                "/run/secrets/kubernetes.io/serviceaccount/",
                                NULL };
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;

  for (size_t i = 0; dests[i]; i++)
    bind (c, "/tmp/keys", dests[i]);
  CHECK (run (c, &changes, NULL, &err) == 0);
  CHECK (c->n_mounts == 0);
  CHECK (changes.len == 8);
  for (size_t i = 0; i < changes.len; i++)
    {
      CHECK (changes.items[i].kind == CHANGE_MOUNT_DROPPED);
      CHECK_CONTAINS (changes.items[i].why, "destination is a credential");
    }
  oci_config_free (c);
  change_list_release (&changes);
}

static void
test_home_mount (void)
{
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;
  char *text;

  bind (c, "/home/u", "/home/u");
  bind (c, "/home/u", "/work"); /* the same home elsewhere */
  CHECK (run (c, &changes, NULL, &err) == 0);
  CHECK (c->n_mounts == 2);
  CHECK (masked (c, "/home/u/.ssh"));
  CHECK (masked (c, "/home/u/.aws"));
  CHECK (masked (c, "/home/u/.docker/config.json"));
  CHECK (masked (c, "/home/u/.config/gh"));
  CHECK (masked (c, "/home/u/.config/gcloud"));
  CHECK (masked (c, "/home/u/.netrc"));
  CHECK (masked (c, "/work/.ssh"));
  CHECK (masked (c, "/work/.netrc"));
  /* One level down is the project, whose .npmrc is masked too. */
  CHECK (masked (c, "/home/u/project/.npmrc"));
  /* The symlinks keys -> .ssh and abs-keys -> /home/u/.ssh are not masked
   * themselves: what they resolve to in the container is. */
  CHECK (!masked (c, "/home/u/keys"));
  CHECK (!masked (c, "/home/u/.bashrc"));
  CHECK (!masked (c, "/home/u/.config/nvim"));
  CHECK (!masked (c, "/home/u/.docker"));
  CHECK (n_masked (c) == 14);
  text = change_list_to_text (&changes);
  CHECK_CONTAINS (text, "path-masked: /home/u/.ssh (credential path .ssh in "
                        "the bind mount of /home/u)");
  free (text);
  oci_config_free (c);
  change_list_release (&changes);
}

static void
test_home_parent_mount (void)
{
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;

  bind (c, "/home", "/home");
  CHECK (run (c, &changes, NULL, &err) == 0);
  CHECK (c->n_mounts == 1);
  CHECK (masked (c, "/home/u/.ssh"));
  CHECK (masked (c, "/home/u/.docker/config.json"));
  CHECK (masked (c, "/home/v/.kube"));
  /* /home/w is a symlink: in the container it resolves inside the rootfs,
   * not to the host's /data/w. */
  CHECK (!masked (c, "/home/w/.ssh"));
  /* /home/x/.ssh is a symlink to the keys: masked (the runtime masks what
   * it resolves to in the container). */
  CHECK (masked (c, "/home/x/.ssh"));
  oci_config_free (c);
  change_list_release (&changes);
}

static void
test_credential_sources (void)
{
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;

  bind (c, "/home/u/.ssh", "/keys1");
  bind (c, "/home/u/.ssh/id_rsa", "/keys2");
  bind (c, "/home/u/keys", "/keys3");      /* symlink to .ssh */
  bind (c, "/home/u/abs-keys/", "/keys4"); /* absolute symlink */
  bind (c, "/home/x/.ssh", "/keys5");      /* named .ssh, really elsewhere */
  bind (c, "/home/u/.docker/config.json", "/cfg");
  bind (c, "/home/u/.config/gh", "/gh");
  bind (c, "/", "/host");
  bind (c, "/proc/1", "/p");
  CHECK (run (c, &changes, NULL, &err) == 0);
  CHECK (c->n_mounts == 0);
  CHECK (changes.len == 9);
  for (size_t i = 0; i < 5; i++)
    CHECK_CONTAINS (changes.items[i].why,
                    "the source is a credential path (.ssh)");
  CHECK_CONTAINS (changes.items[5].why, "(.docker/config.json)");
  CHECK_CONTAINS (changes.items[6].why, "(.config/gh)");
  CHECK_CONTAINS (changes.items[7].why, "host's root");
  CHECK_CONTAINS (changes.items[8].why, "/proc");
  oci_config_free (c);
  change_list_release (&changes);
}

static void
test_partial_credential_dirs (void)
{
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;

  bind (c, "/home/u/.docker", "/root/.docker");
  bind (c, "/home/u/.config", "/cfg");
  bind (c, "/tmp/dockercfg", "/root/.docker2/../.docker"); /* by destination */
  CHECK (run (c, &changes, NULL, &err) == 0);
  CHECK (c->n_mounts == 3);
  CHECK (masked (c, "/root/.docker/config.json"));
  CHECK (masked (c, "/cfg/gh"));
  CHECK (masked (c, "/cfg/gcloud"));
  CHECK (!masked (c, "/cfg/nvim"));
  CHECK (!masked (c, "/root/.docker/buildx"));
  oci_config_free (c);
  change_list_release (&changes);
}

static void
test_sockets (void)
{
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;
  char *text;

  bind (c, "/var/run/docker.sock", "/var/run/docker.sock");
  bind (c, "/run/containerd", "/run/containerd");
  bind (c, "/run/podman", "/podman");          /* listed, no socket now */
  bind (c, "/run/user/1000", "/xdg");          /* /run/user/ * and sockets */
  bind (c, "/run/user", "/users");             /* holds /run/user/ * */
  bind (c, "/srv/sockdir", "/sockdir");        /* a socket at its top */
  bind (c, "/var/run", "/hostrun");            /* docker.sock at its top */
  bind (c, "/run/user/1001/containers/userdata/hosts", "/etc/hosts");
  bind (c, "/run/containerd/io.containerd.grpc.v1.cri/sandboxes/abc/shm",
        "/dev/shm");
  bind (c, "/dev/kvm", "/dev/kvm");
  CHECK (run (c, &changes, NULL, &err) == 0);
  CHECK (c->n_mounts == 3);
  CHECK (find_mount (c, "/etc/hosts") != NULL);
  CHECK (find_mount (c, "/dev/shm") != NULL);
  CHECK (find_mount (c, "/dev/kvm") != NULL);
  CHECK (n_masked (c) == 0);
  text = change_list_to_text (&changes);
  CHECK_CONTAINS (text, "mount-dropped: /var/run/docker.sock (source "
                        "/var/run/docker.sock) (the source is a unix socket)");
  CHECK_CONTAINS (text, "mount-dropped: /run/containerd (source "
                        "/run/containerd) (the source is an engine socket "
                        "path (/run/containerd))");
  CHECK_CONTAINS (text, "/podman (source /run/podman) (the source is an "
                        "engine socket path");
  CHECK_CONTAINS (text, "/xdg (source /run/user/1000) (the source is an "
                        "engine socket path (/run/user/*))");
  CHECK_CONTAINS (text, "/users (source /run/user) (the source holds engine "
                        "socket dirs");
  CHECK_CONTAINS (text, "/sockdir (source /srv/sockdir) (the source "
                        "directory holds unix sockets)");
  CHECK_CONTAINS (text, "/hostrun (source /var/run) (the source directory "
                        "holds unix sockets)");
  free (text);
  oci_config_free (c);
  change_list_release (&changes);
}

/* A /run without a socket at its top: kept, engine dirs masked. */
static void
test_socket_ancestor (void)
{
  static const struct fake_node nodes[] = {
    { "/var/run", 'l', "/run" },
    { "/run/containerd/containerd.sock", 's', NULL },
    { "/run/user/1000/bus", 's', NULL },
    { "/run/podman/info", 'f', NULL },
    { "/run/lock/x", 'f', NULL },
    { NULL, 0, NULL },
  };
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;
  char *text;

  bind (c, "/var/run", "/hostrun");
  CHECK (run_on (nodes, c, &changes, NULL, &err) == 0);
  CHECK (c->n_mounts == 1);
  CHECK_STR_EQ (c->mounts[0].source, "/run");
  CHECK (masked (c, "/hostrun/containerd"));
  CHECK (masked (c, "/hostrun/podman"));
  CHECK (masked (c, "/hostrun/user"));
  CHECK (!masked (c, "/hostrun/lock"));
  CHECK (!masked (c, "/hostrun/crio")); /* does not exist on this host */
  CHECK (n_masked (c) == 3);
  text = change_list_to_text (&changes);
  CHECK_CONTAINS (text, "mount-source: /hostrun: /var/run -> /run");
  CHECK_CONTAINS (text, "path-masked: /hostrun/user (engine socket path "
                        "/run/user/* in the bind mount of /run)");
  free (text);
  oci_config_free (c);
  change_list_release (&changes);
}

/* CRI puts the service-account token at a fixed destination. */
static void
test_service_account (void)
{
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;

  bind (c, "/var/lib/kubelet/pods/p1/volumes/kubernetes.io~projected/"
           "kube-api-access-1",
        "/var/run/secrets/kubernetes.io/serviceaccount");
  bind (c, "/var/lib/kubelet/pods/p1/secrets", "/var/run/secrets");
  bind (c, "/var/lib/docker/containers/c1/hosts", "/etc/hosts");
  CHECK (run (c, &changes, NULL, &err) == 0);
  CHECK (c->n_mounts == 2);
  CHECK (find_mount (c, "/var/run/secrets/kubernetes.io/serviceaccount")
         == NULL);
  CHECK (masked (c, "/var/run/secrets/kubernetes.io/serviceaccount"));
  CHECK (find_mount (c, "/etc/hosts") != NULL);
  oci_config_free (c);
  change_list_release (&changes);
}

static void
test_plain_mounts_kept (void)
{
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;

  add_mount (c, "/proc", "proc", "proc", NULL);
  add_mount (c, "/dev", "tmpfs", "tmpfs", "nosuid", "mode=755", NULL);
  add_mount (c, "/sys", "sysfs", "sysfs", "ro", NULL);
  add_mount (c, "/nosrc", "bind", NULL, "rbind", NULL);
  bind (c, "/srv/work", "/work");
  bind (c, "data", "/data"); /* relative to the bundle */
  CHECK (run (c, &changes, NULL, &err) == 0);
  CHECK (c->n_mounts == 6);
  CHECK (n_masked (c) == 0);
  CHECK (changes.len == 1);
  CHECK_STR_EQ (find_mount (c, "/data")->source, "/bundle/data");
  CHECK (changes.items[0].kind == CHANGE_MOUNT_SOURCE);
  CHECK (binds_is_bind (find_mount (c, "/nosrc")));
  CHECK (!binds_is_bind (find_mount (c, "/proc")));
  oci_config_free (c);
  change_list_release (&changes);
}

/* Policy extensions: an extra credential path and socket path. */
static void
test_policy_extensions (void)
{
  struct oci_config *c = new_config ();
  struct change_list changes = { NULL, 0 };
  agentrt_error_t err = NULL;

  str_list_append (&policy.credential_paths, "project/src");
  str_list_append (&policy.socket_paths, "/srv/work");
  bind (c, "/home/u", "/h");
  bind (c, "/srv/work", "/w");
  CHECK (run (c, &changes, NULL, &err) == 0);
  CHECK (masked (c, "/h/project/src"));
  CHECK (find_mount (c, "/w") == NULL);
  oci_config_free (c);
  change_list_release (&changes);
  policy_release (&policy);
  policy_init_defaults (&policy);
}

int
main (void)
{
  policy_init_defaults (&policy);
  RUN_TEST (test_hostile_failures);
  RUN_TEST (test_hostile_destinations);
  RUN_TEST (test_home_mount);
  RUN_TEST (test_home_parent_mount);
  RUN_TEST (test_credential_sources);
  RUN_TEST (test_partial_credential_dirs);
  RUN_TEST (test_sockets);
  RUN_TEST (test_socket_ancestor);
  RUN_TEST (test_service_account);
  RUN_TEST (test_plain_mounts_kept);
  RUN_TEST (test_policy_extensions);
  policy_release (&policy);
  return UNIT_EXIT ();
}
