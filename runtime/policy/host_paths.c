/* The built-in lists of host paths (see host_paths.h). */
#include "config.h"

#include <string.h>

#include "host_paths.h"

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))
#define PATH_LIST(a) { a, N_ELEMENTS (a) }

static const char *const credentials[] = {
  /* keys, agents, password stores */
  ".ssh", ".gnupg", ".password-store", ".pki/nssdb", ".local/share/keyrings",
  ".Xauthority", ".ICEauthority",
  /* cloud providers */
  ".aws", ".azure", ".config/gcloud", ".oci", ".aliyun", ".tccli",
  ".bluemix", ".config/doctl", ".config/hcloud", ".config/scw",
  ".config/linode-cli", ".config/exoscale", ".config/openstack",
  ".cloudflared", ".wrangler", ".config/.wrangler", ".fly",
  ".config/netlify", ".netlify", ".local/share/com.vercel.cli",
  ".databrickscfg", ".snowsql", ".dbt/profiles.yml", ".config/stripe",
  ".supabase", ".config/configstore", ".s3cfg", ".boto", ".config/rclone",
  ".passwd-s3fs", ".mc", ".ngrok2", ".config/ngrok", ".sentryclirc",
  ".config/jfrog", ".jfrog",
  /* infrastructure and secrets tools */
  ".terraform.d/credentials.tfrc.json", ".terraformrc", ".vault-token",
  ".config/op", ".config/Bitwarden CLI", ".config/sops",
  /* containers and clusters */
  ".kube", ".docker/config.json", ".docker/contexts", ".docker/machine",
  ".config/containers/auth.json", ".minikube", ".talos",
  ".config/helm/registry", ".config/helm/repositories.yaml", ".helm",
  ".lima/_config", ".colima/_lima/_config",
  ".local/share/containers/podman/machine",
  /* git and forges */
  ".git-credentials", ".config/git/credentials", ".netrc", ".config/gh",
  ".config/hub", ".config/glab-cli", ".config/tea", ".travis",
  ".circleci/cli.yml",
  /* package registries */
  ".npmrc", ".yarnrc", ".yarnrc.yml", ".bunfig.toml", ".pypirc",
  ".config/pip/pip.conf", ".pip/pip.conf", ".config/pypoetry/auth.toml",
  ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
  ".local/share/gem/credentials", ".m2/settings.xml",
  ".m2/settings-security.xml", ".gradle/gradle.properties",
  ".ivy2/.credentials", ".sbt/.credentials", ".nuget/NuGet/NuGet.Config",
  ".config/NuGet/NuGet.Config", ".composer/auth.json",
  ".config/composer/auth.json",
  /* AI coding agents and model providers */
  ".claude/.credentials.json", ".claude.json", ".codex/auth.json",
  ".gemini/oauth_creds.json", ".gemini/google_accounts.json",
  ".gemini/mcp-oauth-tokens.json", ".qwen/oauth_creds.json",
  ".config/github-copilot", ".aider.conf.yml", ".continue",
  ".cursor/mcp.json", ".local/share/opencode/auth.json",
  ".cache/huggingface/token", ".huggingface/token",
  ".config/io.datasette.llm/keys.json", ".ollama/id_ed25519",
  /* databases */
  ".pgpass", ".pg_service.conf", ".my.cnf", ".mylogin.cnf",
  ".cassandra/cqlshrc", ".dbshell",
  /* histories: commands typed with their secrets */
  ".bash_history", ".zsh_history", ".zhistory", ".history", ".sh_history",
  ".ksh_history", ".local/share/fish/fish_history", ".python_history",
  ".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history",
  ".rediscli_history", ".irb_history", ".pry_history", ".Rhistory",
  ".lesshst", ".viminfo",
  /* browsers, mail, wallets: sessions and keys */
  ".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium",
  ".config/BraveSoftware", ".config/microsoft-edge", ".msmtprc",
  ".fetchmailrc", ".electrum", ".bitcoin/wallets", ".ethereum/keystore",
  /* the host's own (also as container paths, where engines mount
   * service-account tokens) */
  "/var/run/secrets/kubernetes.io/serviceaccount",
  "/run/secrets/kubernetes.io/serviceaccount",
  "/var/run/secrets/eks.amazonaws.com/serviceaccount",
  "/run/secrets/eks.amazonaws.com/serviceaccount",
  "/var/run/secrets/azure/tokens", "/run/secrets/azure/tokens",
  "/etc/ssh", "/etc/dropbear", "/etc/shadow", "/etc/shadow-", "/etc/gshadow",
  "/etc/gshadow-", "/etc/security/opasswd", "/etc/ssl/private",
  "/etc/pki/tls/private", "/etc/letsencrypt", "/etc/kubernetes",
  "/etc/rancher", "/etc/wireguard", "/etc/NetworkManager/system-connections",
  "/etc/netplan", "/etc/wpa_supplicant", "/etc/krb5.keytab",
  "/etc/ipsec.secrets", "/etc/ipsec.d/private", "/etc/ppp/chap-secrets",
  "/etc/ppp/pap-secrets", "/etc/openvpn", "/etc/credstore",
  "/etc/credstore.encrypted", "/etc/docker/certs.d", "/etc/sssd",
  "/etc/ldap.secret", "/etc/libvirt/secrets", "/etc/ceph",
  "/etc/mysql/debian.cnf", "/var/lib/kubelet/pki", "/var/lib/etcd",
  "/var/lib/docker/swarm", "/var/lib/rancher/k3s/server",
  "/var/lib/rancher/k3s/agent/*.key", "/var/lib/rancher/k3s/agent/*.kubeconfig",
  "/var/lib/samba/private", "/var/lib/iwd", "/var/lib/bluetooth",
  "/var/lib/systemd/credential.secret", "/var/lib/systemd/coredump",
  "/var/lib/snapd/state.json", "/var/crash", "/tmp/krb5cc_*",
};

static const char *const stores[] = {
  "/var/lib/docker",   "/var/lib/containerd", "/var/lib/containers",
  "/var/lib/kubelet",  "/var/lib/rancher",    "/var/lib/k0s",
  "/var/lib/incus",    "/var/lib/lxd",        "/var/snap/lxd",
  "/var/lib/libvirt",  "/var/lib/tailscale",  "/var/lib/cloud",
  "/var/lib/waagent",  "/var/lib/sss",        "/var/lib/snapd",
};

/* Both spellings of /var/run are listed: on some hosts it is not a
 * symlink to /run. */
static const char *const sockets[] = {
  "/run",                  "/var/run",
  "/tmp",                  "/var/tmp",
  "/run/user",             "/var/run/user",
  "/run/user/*",           "/var/run/user/*",
  "/run/docker.sock",      "/var/run/docker.sock",
  "/run/docker",           "/var/run/docker",
  "/run/containerd",       "/var/run/containerd",
  "/run/podman",           "/var/run/podman",
  "/run/crio",             "/var/run/crio",
  "/run/cri-dockerd.sock", "/var/run/cri-dockerd.sock",
  "/run/buildkit",         "/var/run/buildkit",
  "/run/k3s",              "/var/run/k3s",
  "/run/dbus",             "/var/run/dbus",
  "/run/systemd",          "/var/run/systemd",
  "/run/snapd.socket",     "/var/run/snapd.socket",
  "/run/snapd-snap.socket", "/var/run/snapd-snap.socket",
  "/run/libvirt",          "/var/run/libvirt",
  "/run/incus",            "/var/run/incus",
  "/run/lxd",              "/var/run/lxd",
  "/run/tailscale",        "/var/run/tailscale",
  "/run/udev",             "/var/run/udev",
  "/run/avahi-daemon",     "/var/run/avahi-daemon",
  "/run/cups",             "/var/run/cups",
  "/run/pcscd",            "/var/run/pcscd",
  "/run/nscd",             "/var/run/nscd",
  "/run/mysqld",           "/var/run/mysqld",
  "/run/postgresql",       "/var/run/postgresql",
  "/run/screen",           "/var/run/screen",
  "/run/gssproxy.sock",    "/var/run/gssproxy.sock",
  "/var/lib/incus",        "/var/lib/lxd",
  "/var/snap/lxd/common/lxd",
  "/var/lib/kubelet",      "/var/lib/kubelet/pod-resources",
  "/var/lib/kubelet/device-plugins", "/var/lib/kubelet/plugins",
  "/var/lib/kubelet/plugins_registry",
  "/tmp/ssh-*",            "/tmp/.X11-unix",
  "/tmp/.ICE-unix",        "/tmp/.font-unix",
  "/tmp/tmux-*",           "/tmp/.s.PGSQL.*",
};

static const char *const kernel[] = {
  "/proc", "/sys",         "/dev", "/boot", "/efi", "/lib/modules",
  "/usr/lib/modules",
};

static const char *const system_dirs[] = {
  "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
  "/var/spool/cron",
};

const struct path_list host_paths_credentials = PATH_LIST (credentials);
const struct path_list host_paths_stores = PATH_LIST (stores);
const struct path_list host_paths_sockets = PATH_LIST (sockets);
const struct path_list host_paths_kernel = PATH_LIST (kernel);
const struct path_list host_paths_system = PATH_LIST (system_dirs);

/* Compared on the first byte before the rest: the scan asks this of every
 * entry it lists, and nearly every name differs there from every item. */
static bool
in (const char *name, const char *const *list, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (name[0] == list[i][0] && strcmp (name, list[i]) == 0)
      return true;
  return false;
}

bool
host_paths_is_home_marker (const char *name)
{
  static const char *const markers[] = {
    ".ssh",      ".profile",  ".bashrc",      ".bash_profile", ".bash_login",
    ".bash_logout", ".zshrc", ".zshenv",      ".zprofile",     ".zlogin",
    ".zlogout",  ".kshrc",    ".mkshrc",      ".cshrc",        ".tcshrc",
    ".login",    ".logout",   ".xprofile",    ".xsession",     ".xsessionrc",
    ".xinitrc",  ".pam_environment",
  };
  return in (name, markers, N_ELEMENTS (markers));
}

bool
host_paths_is_pruned (const char *name)
{
  static const char *const pruned[] = {
    "node_modules", "__pycache__", ".cache",       ".venv",   ".tox",
    ".nox",         ".npm",        ".pnpm-store",  ".m2",     ".gradle",
    ".rustup",      "site-packages", "dist-packages", ".terraform",
  };
  return in (name, pruned, N_ELEMENTS (pruned));
}
