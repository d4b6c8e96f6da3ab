/* Unit tests of bind mounts against credentials, sockets, the host's
 * kernel and host-side persistence (runtime/policy/binds.h) over a fake
 * host: hostile failures and destinations first, then mounted homes (at
 * any depth), symlinks into credentials, credential stores, sockets at any
 * depth, devices and kernel filesystems, writable homes and git
 * repositories. */
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
  { "/home/u/.claude/.credentials.json", 'f', NULL },
  { "/home/u/.claude/settings.json", 'f', NULL },
  { "/home/u/.bash_history", 'f', NULL },
  { "/home/u/.netrc", 'f', NULL },
  { "/home/u/keys", 'l', ".ssh" },
  { "/home/u/abs-keys", 'l', "/home/u/.ssh" },
  { "/home/u/project/src/main.c", 'f', NULL },
  { "/home/u/project/.npmrc", 'f', NULL },
  { "/home/u/bin/tool", 'f', NULL },
  { "/home/v/.kube/config", 'f', NULL },
  { "/home/v/notes.txt", 'f', NULL },
  { "/home/w", 'l', "/data/w" },
  { "/data/w/.ssh/id_ed25519", 'f', NULL },
  { "/secure/sshkeys/id_rsa", 'f', NULL },
  { "/home/x/.ssh", 'l', "/secure/sshkeys" },
  /* a home whose .ssh is a symlink into its own dotfiles */
  { "/home/s/.profile", 'f', NULL },
  { "/home/s/.ssh", 'l', "/home/s/dotfiles/ssh" },
  { "/home/s/dotfiles/ssh/id_rsa", 'f', NULL },
  { "/home/s/work/app.py", 'f', NULL },
  /* a home whose .config is a symlink into its dotfiles, with credential
   * entries of two and three components, and ones that end early */
  { "/home/t/.profile", 'f', NULL },
  { "/home/t/.config", 'l', "/home/t/dotfiles/config" },
  { "/home/t/dotfiles/config/gh/hosts.yml", 'f', NULL },
  { "/home/t/dotfiles/config/helm/registry/config.json", 'f', NULL },
  { "/home/t/dotfiles/config/nvim/init.lua", 'f', NULL },
  { "/home/t/.local/share/keyrings/login.keyring", 'f', NULL },
  { "/home/t/.local/share/containers/podman/machine/m.json", 'f', NULL },
  { "/home/t/.local/share/fish", 'l', "fish-data" },
  { "/home/t/.local/share/fish-data/fish_history", 'f', NULL },
  { "/home/t/.docker", 'f', NULL },
  { "/home/t/.terraform.d/plugins/p", 'f', NULL },
  /* homes deeper down */
  { "/srv/homes/alice/.ssh/id_rsa", 'f', NULL },
  { "/srv/homes/bob/team/.aws/credentials", 'f', NULL },
  { "/srv/deep/1/2/3/4/5/6/7/8/9/.ssh/id_rsa", 'f', NULL },
  { "/srv/deep/1/node_modules/x/.ssh/id_rsa", 'f', NULL },
  { "/srv/work/app.py", 'f', NULL },
  { "/srv/work/run/app/api.sock", 's', NULL },
  { "/srv/sockdir/app.sock", 's', NULL },
  { "/srv/sockdir/readme", 'f', NULL },
  /* git repositories */
  { "/srv/proj/README", 'f', NULL },
  { "/srv/proj/.git/HEAD", 'f', NULL },
  { "/srv/proj/.git/config", 'f', NULL },
  { "/srv/proj/.git/hooks/pre-commit.sample", 'f', NULL },
  { "/srv/proj/.git/objects/ab/cdef", 'f', NULL },
  { "/srv/proj/.git/refs/heads/main", 'f', NULL },
  { "/srv/proj/.git/modules/lib/config", 'f', NULL },
  { "/srv/proj/.git/modules/lib/hooks/x", 'f', NULL },
  { "/srv/proj/sub/.git/HEAD", 'f', NULL },
  /* git's fsmonitor daemon listens in the git directory */
  { "/srv/proj/sub/.git/fsmonitor--daemon.ipc", 's', NULL },
  { "/srv/proj/.git/modules/lib/fsmonitor--daemon.ipc", 's', NULL },
  { "/srv/proj/sub/.git/config", 'f', NULL },
  { "/srv/bare.git/HEAD", 'f', NULL },
  { "/srv/bare.git/config", 'f', NULL },
  { "/srv/bare.git/objects/pack/p", 'f', NULL },
  { "/srv/bare.git/refs/heads/main", 'f', NULL },
  { "/srv/bare.git/hooks/post-receive", 'f', NULL },
  /* the host's own */
  { "/var/run", 'l', "/run" },
  { "/run/docker.sock", 's', NULL },
  { "/run/containerd/containerd.sock", 's', NULL },
  { "/run/containerd/io.containerd.grpc.v1.cri/sandboxes/abc/shm", 'd', NULL },
  { "/run/podman/info", 'f', NULL },
  { "/run/user/1000/bus", 's', NULL },
  { "/run/user/1001/containers/userdata/hosts", 'f', NULL },
  { "/run/agentrt/c1/state.json", 'f', NULL },
  { "/run/lock/x", 'f', NULL },
  { "/tmp/dockercfg/config.json", 'f', NULL },
  { "/tmp/keys/deploy", 'f', NULL },
  { "/tmp/ssh-XXXXabcd/agent.1234", 's', NULL },
  { "/tmp/krb5cc_1000", 'f', NULL },
  { "/tmp/loop1", 'l', "/tmp/loop2" },
  { "/tmp/loop2", 'l', "/tmp/loop1" },
  { "/bundle/data/file", 'f', NULL },
  { "/var/lib/kubelet/pods/p1/volumes/kubernetes.io~projected/"
    "kube-api-access-1/token", 'f', NULL },
  { "/var/lib/kubelet/pods/p1/secrets/kubernetes.io/serviceaccount/token",
    'f', NULL },
  { "/var/lib/kubelet/pki/kubelet-client.pem", 'f', NULL },
  { "/var/lib/docker/containers/c1/hosts", 'f', NULL },
  { "/var/lib/docker/volumes/v1/_data/file", 'f', NULL },
  { "/var/log/syslog", 'f', NULL },
  { "/var/log/agentrt/c1.jsonl", 'f', NULL },
  { "/etc/hostname", 'f', NULL },
  { "/etc/ssh/ssh_host_rsa_key", 'f', NULL },
  { "/etc/kubernetes/admin.conf", 'f', NULL },
  { "/etc/shadow", 'f', NULL },
  { "/proc/1/environ", 'f', NULL },
  { "/sys/kernel/uevent_helper", 'f', NULL },
  { "/boot/vmlinuz", 'f', NULL },
  { "/usr/lib/modules/6.1/kernel.ko", 'f', NULL },
  { "/dev/null", 'c', "1:3" },
  { "/dev/kvm", 'c', "10:232" },
  { "/dev/sda", 'b', "8:0" },
  { "/dev/dri/card0", 'c', "226:0" },
  { "/mnt/disk/data", 'f', NULL },
  { "/mnt/disk/hostproc/1/environ", 'f', NULL },
  { "/mnt/disk/cg/cgroup.procs", 'f', NULL },
  { NULL, 0, NULL },
};

static const struct fake_mount host_mounts[] = {
  { "/", "ext4" },
  { "/proc", "proc" },
  { "/sys", "sysfs" },
  { "/dev", "devtmpfs" },
  { "/run", "tmpfs" },
  { "/mnt/disk", "ext4" },
  { "/mnt/disk/hostproc", "proc" },
  { "/mnt/disk/cg", "cgroup2" },
  { NULL, NULL },
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

static void
bind_ro (struct oci_config *c, const char *source, const char *dest)
{
  add_mount (c, dest, "bind", source, "rbind", "ro", NULL);
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
has_option (const struct oci_config *c, const char *dest, const char *opt)
{
  const struct oci_mount *m = find_mount (c, dest);
  return m && str_list_contains (&m->options, opt);
}

/* The outputs of one run. */
static struct harden_directives dir;
static struct change_list changes;

static bool
masked (const struct oci_config *c, const char *path)
{
  bool in_config = c->linux_cfg
                   && str_list_contains (&c->linux_cfg->masked_paths, path);
  return in_config && str_list_contains (&dir.required_masks, path);
}

static size_t
n_masked (const struct oci_config *c)
{
  return c->linux_cfg ? c->linux_cfg->masked_paths.len : 0;
}

static bool
changed (const char *text)
{
  char *all = change_list_to_text (&changes);
  bool found = strstr (all, text) != NULL;
  if (!found)
    fprintf (stderr, "no change \"%s\" in:\n%s", text, all);
  free (all);
  return found;
}

static void
reset (void)
{
  str_list_free (&dir.required_masks);
  str_list_free (&dir.protected_paths);
  str_list_free (&dir.protected_dirs);
  change_list_release (&changes);
}

/* Runs binds_harden over a fresh fake host (with /home/u as a user's
 * home); returns its status. */
static int
run_on (const struct fake_node *nodes, struct oci_config *c,
        const char *fail_path, agentrt_error_t *err)
{
  struct fake_host fh = { nodes, fail_path, 0, host_mounts, NULL,
                          { NULL, 0 }, { NULL, 0 } };
  struct host_view view;
  int r;

  reset ();
  str_list_append (&fh.homes, "/home/u");
  str_list_append (&fh.private_dirs, "/run/agentrt");
  str_list_append (&fh.private_dirs, "/var/log/agentrt");
  fake_host_view (&view, &fh);
  r = binds_harden (c, &policy, &view, &dir, &changes, err);
  fake_host_release (&fh);
  return r;
}

static int
run (struct oci_config *c, const char *fail_path, agentrt_error_t *err)
{
  return run_on (host_nodes, c, fail_path, err);
}

static void
test_hostile_failures (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind (c, "/srv/work", "/work");
  bind (c, "/nonexistent", "/x");
  CHECK (run (c, NULL, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "mounts[1] (`/x`)");
  CHECK_CONTAINS (err ? err->msg : NULL, "does not exist");
  agentrt_error_release (&err);
  oci_config_free (c);

  /* A host view that cannot answer refuses the container; the config
   * stays freeable. */
  c = new_config ();
  bind (c, "/run/docker.sock", "/var/run/docker.sock");
  bind (c, "/home/u", "/home/u");
  CHECK (run (c, "/home/u/.config", &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "mounts[1] (`/home/u`)");
  CHECK (err && err->status == EACCES);
  agentrt_error_release (&err);
  oci_config_free (c);

  /* A symlink loop as source is missing. */
  c = new_config ();
  bind (c, "/tmp/loop1", "/l");
  CHECK (run (c, NULL, &err) < 0);
  agentrt_error_release (&err);
  oci_config_free (c);

  /* More entries than the scan may read. */
  c = new_config ();
  policy.bind_scan_entries = 5;
  bind (c, "/srv", "/srv");
  CHECK (run (c, NULL, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "mounts[0] (`/srv`)");
  CHECK_CONTAINS (err ? err->msg : NULL, "binds.scanEntries");
  CHECK (err && err->status == E2BIG);
  agentrt_error_release (&err);
  oci_config_free (c);
  policy.bind_scan_entries = 200000;
}

static void
test_hostile_destinations (void)
{
  const char *const dests[] = { "/root/./.ssh", "/root//.ssh/",
                                "/x/../root/.ssh", "/root/.ssh/authorized_keys",
                                "/home/me/.docker/config.json", "/.netrc",
                                "/var/run/secrets/kubernetes.io/serviceaccount",
                                "/run/secrets/kubernetes.io/serviceaccount/",
                                "/etc/ssh/sshd_config",
                                NULL };
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  for (size_t i = 0; dests[i]; i++)
    bind (c, "/tmp/keys", dests[i]);
  CHECK (run (c, NULL, &err) == 0);
  CHECK (c->n_mounts == 0);
  CHECK (changes.len == 9);
  for (size_t i = 0; i < changes.len; i++)
    {
      CHECK (changes.items[i].kind == CHANGE_MOUNT_DROPPED);
      CHECK_CONTAINS (changes.items[i].why, "destination is a credential");
    }
  oci_config_free (c);
}

static void
test_home_mount (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind_ro (c, "/home/u", "/home/u");
  bind_ro (c, "/home/u", "/work"); /* the same home elsewhere */
  CHECK (run (c, NULL, &err) == 0);
  CHECK (c->n_mounts == 2);
  CHECK (masked (c, "/home/u/.ssh"));
  CHECK (masked (c, "/home/u/.aws"));
  CHECK (masked (c, "/home/u/.docker/config.json"));
  CHECK (masked (c, "/home/u/.config/gh"));
  CHECK (masked (c, "/home/u/.config/gcloud"));
  CHECK (masked (c, "/home/u/.claude/.credentials.json"));
  CHECK (masked (c, "/home/u/.bash_history"));
  CHECK (masked (c, "/home/u/.netrc"));
  CHECK (masked (c, "/work/.ssh"));
  CHECK (masked (c, "/work/.netrc"));
  CHECK (masked (c, "/home/u/project/.npmrc"));
  /* The symlinks keys -> .ssh and abs-keys -> /home/u/.ssh are not masked
   * themselves: what they resolve to in the container is. */
  CHECK (!masked (c, "/home/u/keys"));
  CHECK (!masked (c, "/home/u/.bashrc"));
  CHECK (!masked (c, "/home/u/.config/nvim"));
  CHECK (!masked (c, "/home/u/.claude/settings.json"));
  CHECK (!masked (c, "/home/u/.docker"));
  CHECK (n_masked (c) == 18);
  CHECK (changed ("path-masked: /home/u/.ssh (credential path .ssh in "
                  "the bind mount of /home/u)"));
  /* every kept bind: nosuid, nodev */
  CHECK (has_option (c, "/work", "nosuid") && has_option (c, "/work", "nodev"));
  /* read-only binds need no persistence protection */
  CHECK (dir.protected_paths.len == 0 && dir.protected_dirs.len == 0);
  oci_config_free (c);
}

/* Homes at any depth the scan reaches, within its bounds. */
static void
test_homes_deeper (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind_ro (c, "/home", "/home");
  bind_ro (c, "/srv", "/srv");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (c->n_mounts == 2);
  CHECK (masked (c, "/home/u/.ssh"));
  CHECK (masked (c, "/home/u/.docker/config.json"));
  CHECK (masked (c, "/home/v/.kube"));
  /* /home/w is a symlink: in the container it resolves inside the rootfs,
   * not to the host's /data/w. */
  CHECK (!masked (c, "/home/w/.ssh"));
  CHECK (masked (c, "/srv/homes/alice/.ssh"));
  CHECK (masked (c, "/srv/homes/bob/team/.aws"));
  /* below the depth bound (8), and in a pruned directory */
  CHECK (!masked (c, "/srv/deep/1/2/3/4/5/6/7/8/9/.ssh"));
  CHECK (!masked (c, "/srv/deep/1/node_modules/x/.ssh"));
  oci_config_free (c);
  /* a deeper bound finds it */
  c = new_config ();
  policy.bind_scan_depth = 12;
  bind_ro (c, "/srv/deep", "/deep");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (masked (c, "/deep/1/2/3/4/5/6/7/8/9/.ssh"));
  policy.bind_scan_depth = 8;
  oci_config_free (c);
}

/* A credential path that is a symlink is masked where it leads inside the
 * container's mounts: .ssh -> /home/s/dotfiles/ssh, the home bound at
 * /work shows the keys at /work/dotfiles/ssh. */
static void
test_symlinked_credentials (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind_ro (c, "/home/s", "/work");
  bind_ro (c, "/secure", "/sec");
  bind_ro (c, "/home/x", "/x");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (masked (c, "/work/dotfiles/ssh"));
  CHECK (!masked (c, "/work/.ssh"));
  /* /home/x/.ssh -> /secure/sshkeys, which is bound at /sec */
  CHECK (masked (c, "/sec/sshkeys"));
  CHECK (changed ("path-masked: /work/dotfiles/ssh (credential path .ssh in "
                  "the bind mount of /home/s (a symlink to "
                  "/home/s/dotfiles/ssh))"));
  oci_config_free (c);
}

/* Entries of several components are matched component by component
 * against what the walk lists: one missing on the way, a file on the way,
 * a symlink on the way (masked where it leads), three and five deep. */
static void
test_nested_credentials (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind_ro (c, "/home/t", "/home/t");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (masked (c, "/home/t/.local/share/keyrings"));
  CHECK (masked (c, "/home/t/.local/share/containers/podman/machine"));
  /* .config -> dotfiles/config: its gh and helm/registry where they are */
  CHECK (masked (c, "/home/t/dotfiles/config/gh"));
  CHECK (masked (c, "/home/t/dotfiles/config/helm/registry"));
  CHECK (!masked (c, "/home/t/dotfiles/config/nvim"));
  CHECK (!masked (c, "/home/t/.config"));
  /* .local/share/fish -> fish-data: its history where it is */
  CHECK (masked (c, "/home/t/.local/share/fish-data/fish_history"));
  CHECK (changed ("path-masked: /home/t/.local/share/keyrings (credential "
                  "path .local/share/keyrings in the bind mount of /home/t)"));
  CHECK (changed ("path-masked: /home/t/dotfiles/config/gh (credential "
                  "path .config/gh in the bind mount of /home/t (a symlink "
                  "to /home/t/dotfiles/config/gh))"));
  /* .docker is a file, .terraform.d has no credentials file */
  CHECK (!masked (c, "/home/t/.docker"));
  CHECK (!masked (c, "/home/t/.terraform.d"));
  CHECK (n_masked (c) == 5);
  oci_config_free (c);
}

static void
test_credential_sources (void)
{
  struct oci_config *c = new_config ();
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
  bind (c, "/etc/kubernetes", "/k8s");
  bind (c, "/var/lib/kubelet/pki", "/pki");
  bind (c, "/var/lib/docker", "/docker");
  bind (c, "/tmp/krb5cc_1000", "/krb");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (c->n_mounts == 0);
  CHECK (changes.len == 13);
  for (size_t i = 0; i < 5; i++)
    CHECK_CONTAINS (changes.items[i].why,
                    "the source is a credential path (.ssh)");
  CHECK_CONTAINS (changes.items[5].why, "(.docker/config.json)");
  CHECK_CONTAINS (changes.items[6].why, "(.config/gh)");
  CHECK_CONTAINS (changes.items[7].why, "host's root");
  CHECK_CONTAINS (changes.items[8].why, "on proc, a kernel interface");
  CHECK_CONTAINS (changes.items[9].why, "(/etc/kubernetes)");
  CHECK_CONTAINS (changes.items[10].why, "(/var/lib/kubelet/pki)");
  CHECK_CONTAINS (changes.items[11].why, "credential store of the host "
                                         "(/var/lib/docker)");
  CHECK_CONTAINS (changes.items[12].why, "(/tmp/krb5cc_*)");
  oci_config_free (c);
}

/* Engines' own binds below a store are judged like any other; a bind of
 * an ancestor masks the store; /etc comes read-only, its secrets masked. */
static void
test_stores_and_system_dirs (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind (c, "/var/lib/docker/containers/c1/hosts", "/etc/hosts");
  bind (c, "/var/lib/docker/volumes/v1/_data", "/data");
  bind_ro (c, "/var/lib", "/varlib");
  bind (c, "/etc", "/hostetc");
  bind (c, "/var/log", "/logs");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (c->n_mounts == 5);
  CHECK (!has_option (c, "/data", "ro"));
  CHECK (masked (c, "/varlib/docker"));
  CHECK (masked (c, "/varlib/kubelet"));
  CHECK (has_option (c, "/hostetc", "ro") && has_option (c, "/hostetc", "rro"));
  CHECK (!has_option (c, "/hostetc", "rw"));
  CHECK (masked (c, "/hostetc/ssh"));
  CHECK (masked (c, "/hostetc/kubernetes"));
  CHECK (masked (c, "/hostetc/shadow"));
  CHECK (!masked (c, "/hostetc/hostname"));
  /* the audit trail is agentrt's own */
  CHECK (masked (c, "/logs/agentrt"));
  CHECK (!masked (c, "/logs/syslog"));
  CHECK (changed ("mount-options: /hostetc: read-only (a system directory "
                  "of the host"));
  oci_config_free (c);
}

static void
test_partial_credential_dirs (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind_ro (c, "/home/u/.docker", "/root/.docker");
  bind_ro (c, "/home/u/.config", "/cfg");
  bind_ro (c, "/tmp/dockercfg", "/root/.docker2/../.docker"); /* by dest */
  CHECK (run (c, NULL, &err) == 0);
  CHECK (c->n_mounts == 3);
  CHECK (masked (c, "/root/.docker/config.json"));
  CHECK (masked (c, "/cfg/gh"));
  CHECK (masked (c, "/cfg/gcloud"));
  CHECK (!masked (c, "/cfg/nvim"));
  CHECK (!masked (c, "/root/.docker/buildx"));
  oci_config_free (c);
}

static void
test_sockets (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind (c, "/var/run/docker.sock", "/var/run/docker.sock");
  bind (c, "/run/containerd", "/run/containerd");
  bind (c, "/run/podman", "/podman");          /* listed, no socket now */
  bind (c, "/run/user/1000", "/xdg");          /* /run/user/ * and sockets */
  bind (c, "/run/user", "/users");             /* a socket directory */
  bind (c, "/srv/sockdir", "/sockdir");        /* a socket at its top */
  bind (c, "/var/run", "/hostrun");            /* /run itself */
  bind (c, "/tmp", "/hosttmp");                /* /tmp itself */
  bind (c, "/tmp/ssh-XXXXabcd", "/agent");     /* an ssh agent's dir */
  bind (c, "/run/user/1001/containers/userdata/hosts", "/etc/hosts");
  bind (c, "/run/containerd/io.containerd.grpc.v1.cri/sandboxes/abc/shm",
        "/dev/shm");
  bind (c, "/srv/work", "/work");              /* a socket deeper down */
  CHECK (run (c, NULL, &err) == 0);
  CHECK (c->n_mounts == 3);
  CHECK (find_mount (c, "/etc/hosts") != NULL);
  CHECK (find_mount (c, "/dev/shm") != NULL);
  CHECK (masked (c, "/work/run/app/api.sock"));
  CHECK (n_masked (c) == 1);
  CHECK (changed ("mount-dropped: /var/run/docker.sock (source "
                  "/var/run/docker.sock) (the source is a unix socket)"));
  CHECK (changed ("mount-dropped: /run/containerd (source /run/containerd) "
                  "(the source is a control socket path (/run/containerd))"));
  CHECK (changed ("/podman (source /run/podman) (the source is a control "
                  "socket path"));
  CHECK (changed ("/xdg (source /run/user/1000) (the source is a control "
                  "socket path (/run/user/*))"));
  CHECK (changed ("/users (source /run/user) (the source is a control socket "
                  "path (/run/user))"));
  CHECK (changed ("/sockdir (source /srv/sockdir) (the source directory "
                  "holds unix sockets)"));
  CHECK (changed ("/hostrun (source /var/run) (the source is a control "
                  "socket path (/run))"));
  CHECK (changed ("/hosttmp (source /tmp) (the source is a control socket "
                  "path (/tmp))"));
  CHECK (changed ("/agent (source /tmp/ssh-XXXXabcd) (the source is a "
                  "control socket path (/tmp/ssh-*))"));
  CHECK (changed ("path-masked: /work/run/app/api.sock (a unix socket in a "
                  "bind mount)"));
  oci_config_free (c);
}

/* A bind of an ancestor of socket directories (no socket at its top):
 * kept, the socket directories masked. */
static void
test_socket_ancestor (void)
{
  static const struct fake_node nodes[] = {
    { "/hostfs/run/containerd/containerd.sock", 's', NULL },
    { "/hostfs/run/user/1000/bus", 's', NULL },
    { "/hostfs/run/podman/info", 'f', NULL },
    { "/hostfs/run/lock/x", 'f', NULL },
    { NULL, 0, NULL },
  };
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  /* a bind whose source holds a tree shaped like the host's /run */
  str_list_append (&policy.socket_paths, "/hostfs/run/containerd");
  str_list_append (&policy.socket_paths, "/hostfs/run/user/*");
  bind_ro (c, "/hostfs", "/h");
  CHECK (run_on (nodes, c, NULL, &err) == 0);
  CHECK (c->n_mounts == 1);
  CHECK (masked (c, "/h/run/containerd"));
  CHECK (masked (c, "/h/run/user/1000"));
  CHECK (masked (c, "/h/run/containerd/containerd.sock")
         || masked (c, "/h/run/containerd"));
  CHECK (!masked (c, "/h/run/lock"));
  CHECK (changed ("path-masked: /h/run/user/1000 (control socket path "
                  "/hostfs/run/user/* in the bind mount of /hostfs)"));
  oci_config_free (c);
  policy_release (&policy);
  policy_init_defaults (&policy);
}

/* Devices and kernel interfaces, at their usual paths or elsewhere. */
static void
test_devices_and_kernel (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind (c, "/dev/null", "/dev/null");       /* allowed: kept, not nodev */
  bind (c, "/dev/kvm", "/dev/kvm");         /* not allowed by default */
  bind (c, "/dev/sda", "/disk");
  bind (c, "/dev/dri", "/dri");
  bind (c, "/dev", "/hostdev");
  bind (c, "/sys", "/hostsys");
  bind (c, "/sys/kernel", "/k");
  bind (c, "/boot", "/boot");
  bind (c, "/usr/lib/modules", "/lib/modules");
  bind (c, "/mnt/disk/hostproc", "/hp");    /* procfs elsewhere */
  bind (c, "/mnt/disk", "/disk2");          /* carries procfs and cgroup2 */
  CHECK (run (c, NULL, &err) == 0);
  CHECK (c->n_mounts == 2);
  CHECK (find_mount (c, "/dev/null") != NULL);
  CHECK (has_option (c, "/dev/null", "nosuid"));
  CHECK (!has_option (c, "/dev/null", "nodev"));
  CHECK (masked (c, "/disk2/hostproc"));
  CHECK (masked (c, "/disk2/cg"));
  CHECK (changed ("/dev/kvm (source /dev/kvm) (the source is a character "
                  "device not allowed (10:232"));
  CHECK (changed ("/disk (source /dev/sda) (the source is a block device "
                  "(8:0))"));
  CHECK (changed ("/dri (source /dev/dri) (the source is on devtmpfs"));
  CHECK (changed ("/hostsys (source /sys) (the source is on sysfs"));
  CHECK (changed ("/boot (source /boot) (the source is the host's /boot"));
  CHECK (changed ("/lib/modules (source /usr/lib/modules) (the source is "
                  "the host's /usr/lib/modules"));
  CHECK (changed ("/hp (source /mnt/disk/hostproc) (the source is on proc"));
  CHECK (changed ("path-masked: /disk2/hostproc (a proc mount of the host in "
                  "the bind mount of /mnt/disk)"));
  oci_config_free (c);

  /* with the policy's devices.allow, kvm is kept */
  c = new_config ();
  str_list_append (&policy.allowed_devices, "kvm");
  bind (c, "/dev/kvm", "/dev/kvm");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (find_mount (c, "/dev/kvm") != NULL);
  oci_config_free (c);
  policy_release (&policy);
  policy_init_defaults (&policy);
}

/* CRI puts the service-account token at a fixed destination. */
static void
test_service_account (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind (c, "/var/lib/kubelet/pods/p1/volumes/kubernetes.io~projected/"
           "kube-api-access-1",
        "/var/run/secrets/kubernetes.io/serviceaccount");
  bind (c, "/var/lib/kubelet/pods/p1/secrets", "/var/run/secrets");
  bind (c, "/var/lib/docker/containers/c1/hosts", "/etc/hosts");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (c->n_mounts == 2);
  CHECK (find_mount (c, "/var/run/secrets/kubernetes.io/serviceaccount")
         == NULL);
  CHECK (masked (c, "/var/run/secrets/kubernetes.io/serviceaccount"));
  CHECK (find_mount (c, "/etc/hosts") != NULL);
  oci_config_free (c);
}

static void
test_plain_mounts_kept (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  add_mount (c, "/proc", "proc", "proc", NULL);
  add_mount (c, "/dev", "tmpfs", "tmpfs", "nosuid", "mode=755", NULL);
  add_mount (c, "/sys", "sysfs", "sysfs", "ro", NULL);
  add_mount (c, "/nosrc", "bind", NULL, "rbind", NULL);
  bind_ro (c, "/bundle/data", "/work");
  bind_ro (c, "data", "/data"); /* relative to the bundle */
  CHECK (run (c, NULL, &err) == 0);
  CHECK (c->n_mounts == 6);
  CHECK (n_masked (c) == 0);
  CHECK_STR_EQ (find_mount (c, "/data")->source, "/bundle/data");
  CHECK (changed ("mount-source: /data: data -> /bundle/data"));
  CHECK (binds_is_bind (find_mount (c, "/nosrc")));
  CHECK (!binds_is_bind (find_mount (c, "/proc")));
  /* only binds are judged here */
  CHECK (!has_option (c, "/proc", "ro"));
  oci_config_free (c);
}

/* A writable home: its top level read-only, its other directories bound
 * writable again; its hidden part and bin stay read-only. */
static void
test_writable_home (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind (c, "/home/u", "/root");
  bind (c, "/srv/homes", "/homes");   /* homes found by their markers */
  CHECK (run (c, NULL, &err) == 0);
  CHECK (has_option (c, "/root", "ro") && has_option (c, "/root", "rro"));
  CHECK (!has_option (c, "/root", "rw"));
  CHECK (find_mount (c, "/root/project") != NULL);
  CHECK (has_option (c, "/root/project", "rw"));
  CHECK_STR_EQ (find_mount (c, "/root/project")->source, "/home/u/project");
  CHECK (find_mount (c, "/root/bin") == NULL);
  CHECK (find_mount (c, "/root/.config") == NULL);
  /* the mounts stay in order: the home, then its writable directories */
  CHECK_STR_EQ (c->mounts[0].destination, "/root");
  CHECK_STR_EQ (c->mounts[1].destination, "/root/project");
  /* /srv/homes/alice has .ssh: a home deeper down */
  CHECK (has_option (c, "/homes/alice", "ro"));
  CHECK (!has_option (c, "/homes", "ro"));
  CHECK (changed ("path-readonly: /root (its top level, dot files and dot "
                  "directories)"));
  oci_config_free (c);

  /* a writable bind of a home's dot directory or bin is read-only */
  c = new_config ();
  bind (c, "/home/u/.config", "/cfg");
  bind (c, "/home/u/bin", "/ubin");
  bind (c, "/home/u/project", "/p");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (has_option (c, "/cfg", "ro"));
  CHECK (has_option (c, "/ubin", "ro"));
  CHECK (!has_option (c, "/p", "ro"));
  oci_config_free (c);

  /* only the policy turns it off */
  c = new_config ();
  policy.protect_persistence = false;
  bind (c, "/home/u", "/root");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (!has_option (c, "/root", "ro"));
  CHECK (c->n_mounts == 1);
  policy.protect_persistence = true;
  oci_config_free (c);
}

/* Git directories in a writable bind: config, hooks, info read-only;
 * hooks made when missing; submodules and bare repositories too. */
static void
test_writable_git (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  bind (c, "/srv/proj", "/src");
  bind (c, "/srv/bare.git", "/bare");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (str_list_contains (&dir.protected_paths, "/src/.git/config"));
  CHECK (str_list_contains (&dir.protected_paths, "/src/.git/hooks"));
  CHECK (str_list_contains (&dir.protected_paths,
                            "/src/.git/modules/lib/config"));
  CHECK (str_list_contains (&dir.protected_paths,
                            "/src/.git/modules/lib/hooks"));
  CHECK (str_list_contains (&dir.protected_paths, "/src/sub/.git/config"));
  CHECK (str_list_contains (&dir.protected_dirs, "/src/sub/.git/hooks"));
  CHECK (str_list_contains (&dir.protected_paths, "/bare/hooks"));
  CHECK (str_list_contains (&dir.protected_paths, "/bare/config"));
  CHECK (!str_list_contains (&dir.protected_paths, "/src/.git/objects"));
  CHECK (!has_option (c, "/src", "ro"));
  oci_config_free (c);

  /* read-only: nothing to protect; the sockets in git directories (the
   * fsmonitor daemon's, of a repository and of a submodule) are masked
   * either way */
  c = new_config ();
  bind_ro (c, "/srv/proj", "/src");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (dir.protected_paths.len == 0);
  CHECK (masked (c, "/src/sub/.git/fsmonitor--daemon.ipc"));
  CHECK (masked (c, "/src/.git/modules/lib/fsmonitor--daemon.ipc"));
  oci_config_free (c);
}

/* Policy extensions: an extra credential path and socket path. */
static void
test_policy_extensions (void)
{
  struct oci_config *c = new_config ();
  agentrt_error_t err = NULL;

  str_list_append (&policy.credential_paths, "project/src");
  str_list_append (&policy.socket_paths, "/srv/work");
  bind_ro (c, "/home/u", "/h");
  bind_ro (c, "/srv/work", "/w");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (masked (c, "/h/project/src"));
  CHECK (find_mount (c, "/w") == NULL);
  oci_config_free (c);

  /* an entry whose first byte no built-in one starts with is still found
   * as a component of a source and of a destination, at any depth */
  reset ();
  c = new_config ();
  bind_ro (c, "/srv/homes/bob/team", "/t");
  bind_ro (c, "/srv/proj", "/x/team/y");
  bind_ro (c, "/srv/proj", "/z");
  str_list_append (&policy.credential_paths, "team");
  CHECK (run (c, NULL, &err) == 0);
  CHECK (find_mount (c, "/t") == NULL);
  CHECK (find_mount (c, "/x/team/y") == NULL);
  CHECK (find_mount (c, "/z") != NULL);
  CHECK (changed ("the source is a credential path (team)"));
  CHECK (changed ("the destination is a credential location (team)"));
  oci_config_free (c);
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
  RUN_TEST (test_homes_deeper);
  RUN_TEST (test_symlinked_credentials);
  RUN_TEST (test_nested_credentials);
  RUN_TEST (test_credential_sources);
  RUN_TEST (test_stores_and_system_dirs);
  RUN_TEST (test_partial_credential_dirs);
  RUN_TEST (test_sockets);
  RUN_TEST (test_socket_ancestor);
  RUN_TEST (test_devices_and_kernel);
  RUN_TEST (test_service_account);
  RUN_TEST (test_plain_mounts_kept);
  RUN_TEST (test_writable_home);
  RUN_TEST (test_writable_git);
  RUN_TEST (test_policy_extensions);
  reset ();
  policy_release (&policy);
  return UNIT_EXIT ();
}
