/* The transparent path's routes and rules (see netns_rules.h). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <nftables/libnftables.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/fault.h"
#include "runtime/netns.h"
#include "runtime/netns_rules.h"

#define STR2(x) #x
#define STR(x) STR2 (x)

/* DNS first: a resolv.conf naming 127.0.0.53 (systemd-resolved) or ::1
 * reaches the stub too.  The filter chain runs after NAT: what was
 * redirected has a loopback destination by then. */
const char netns_rules_ruleset[] =
    "table inet agentrt {\n"
    "  chain intercept {\n"
    "    type nat hook output priority -100; policy accept;\n"
    "    meta l4proto { tcp, udp } th dport 53 redirect to :" STR (EGRESS_DNS_PORT) "\n"
    "    ip daddr 127.0.0.0/8 return\n"
    "    ip6 daddr ::1 return\n"
    "    meta l4proto tcp redirect to :" STR (EGRESS_TRANSPARENT_PORT) "\n"
    "  }\n"
    "  chain confine {\n"
    "    type filter hook output priority 0; policy accept;\n"
    "    ip daddr 127.0.0.0/8 accept\n"
    "    ip6 daddr ::1 accept\n"
    "    meta l4proto tcp reject with tcp reset\n"
    "    drop\n"
    "  }\n"
    "}\n";

#define NEEDS                                                                  \
  "the kernel needs nftables with NAT and REDIRECT (nf_tables, "               \
  "nft_chain_nat, nft_redir, nft_reject_inet); the policy's "                  \
  "egress.transparent false keeps proxy-only egress"

/* libnftables and its five libraries, loaded only where rules are
 * installed (install_apart's child): linked, every agentrt command
 * would pay for loading them, as with libsystemd (sdbus_dl.h). */
static struct
{
  __typeof__ (nft_ctx_new) *ctx_new;
  __typeof__ (nft_ctx_free) *ctx_free;
  __typeof__ (nft_ctx_buffer_output) *buffer_output;
  __typeof__ (nft_ctx_buffer_error) *buffer_error;
  __typeof__ (nft_ctx_get_error_buffer) *get_error_buffer;
  __typeof__ (nft_run_cmd_from_buffer) *run_cmd_from_buffer;
} nft_api;

/* The symbol, or NULL with *err set. */
static void *
symbol (void *handle, const char *name, agentrt_error_t *err)
{
  void *p = dlsym (handle, name);
  if (p == NULL)
    agentrt_error (err, 0, "transparent egress: libnftables.so.1 has no `%s`", name);
  return p;
}

#define LOAD(field, name)                                                      \
  ((nft_api.field = (__typeof__ (nft_api.field)) symbol (handle, name, err)) != NULL)

static int
load_libnftables (agentrt_error_t *err)
{
  void *handle;

  if (nft_api.run_cmd_from_buffer)
    return 0;
  handle = dlopen ("libnftables.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    return agentrt_error (err, 0, "transparent egress: cannot load libnftables.so.1 "
                          "(Debian package libnftables1): %s; the policy's "
                          "egress.transparent false keeps proxy-only egress", dlerror ());
  if (!LOAD (ctx_new, "nft_ctx_new") || !LOAD (ctx_free, "nft_ctx_free")
      || !LOAD (buffer_output, "nft_ctx_buffer_output")
      || !LOAD (buffer_error, "nft_ctx_buffer_error")
      || !LOAD (get_error_buffer, "nft_ctx_get_error_buffer")
      || !LOAD (run_cmd_from_buffer, "nft_run_cmd_from_buffer"))
    {
      nft_api.run_cmd_from_buffer = NULL;
      return -1;
    }
  return 0;
}

/* libnftables' first error line, without its "Error: ". */
static void
first_error (const char *buf, char *out, size_t size)
{
  const char *end;

  if (buf == NULL || buf[0] == '\0')
    buf = "refused";
  if (strncmp (buf, "Error: ", 7) == 0)
    buf += 7;
  end = strchr (buf, '\n');
  snprintf (out, size, "%.*s", (int) (end ? end - buf : (ptrdiff_t) strlen (buf)), buf);
}

static int
load_rules (agentrt_error_t *err)
{
  struct nft_ctx *nft;
  char why[256];
  int r;

  if (fault_fail ("netns:nft-rules") < 0)
    return agentrt_error (err, errno, "transparent egress: nftables rules in "
                          "the agent's network namespace (" NEEDS ")");
  if (load_libnftables (err) < 0)
    return -1;
  /* made here: its netlink socket belongs to the current namespace */
  nft = nft_api.ctx_new (NFT_CTX_DEFAULT);
  if (nft == NULL)
    return agentrt_error (err, ENOMEM, "transparent egress: libnftables");
  if (nft_api.buffer_output (nft) < 0 || nft_api.buffer_error (nft) < 0)
    {
      nft_api.ctx_free (nft);
      return agentrt_error (err, ENOMEM, "transparent egress: libnftables");
    }
  r = nft_api.run_cmd_from_buffer (nft, netns_rules_ruleset);
  if (r != 0)
    first_error (nft_api.get_error_buffer (nft), why, sizeof why);
  /* not freed: the process exits (install_apart) */
  if (r != 0)
    return agentrt_error (err, 0, "transparent egress: nftables rules in the "
                          "agent's network namespace: %s (" NEEDS ")", why);
  return 0;
}

/* Into the network namespace netns_fd, through the user namespace that
 * owns it when that is not the caller's: a runtime that is not root has
 * no CAP_SYS_ADMIN of its own to setns with, but every capability in a
 * user namespace it made (rootless); root gets there as well.  Only in a
 * child: a process never leaves a user namespace it entered. */
static int
enter_netns (int netns_fd, struct child_error *cerr)
{
  struct stat own, owner;
  int userns = ioctl (netns_fd, NS_GET_USERNS);

  if (userns < 0)
    return child_error (cerr, errno, "transparent egress: the user namespace "
                        "of the agent's network namespace");
  if (fstat (userns, &owner) < 0 || stat ("/proc/self/ns/user", &own) < 0)
    {
      close (userns);
      return child_error (cerr, errno, "transparent egress: stat a user namespace");
    }
  if ((owner.st_dev != own.st_dev || owner.st_ino != own.st_ino)
      && setns (userns, CLONE_NEWUSER) < 0)
    {
      close (userns);
      return child_error (cerr, errno, "transparent egress: enter the user "
                          "namespace of the agent's network namespace");
    }
  close (userns);
  if (setns (netns_fd, CLONE_NEWNET) < 0)
    return child_error (cerr, errno, "transparent egress: enter the agent's "
                        "network namespace");
  return 0;
}

/* In the child: the namespace (netns_fd, or the caller's own when it is
 * negative), its routes, its rules. */
static int
install_here (int netns_fd, struct child_error *cerr)
{
  agentrt_error_t e = NULL;

  if (netns_fd >= 0 && enter_netns (netns_fd, cerr) < 0)
    return -1;
  if (netns_default_routes (cerr) < 0)
    return -1;
  if (load_rules (&e) == 0)
    return 0;
  cerr->status = e->status;
  snprintf (cerr->msg, sizeof cerr->msg, "%s", e->msg);
  return -1;
}

/* install_here in a child of the caller's: the caller (the monitor, which
 * lives as long as the container, or the runtime) never maps libnftables
 * and its five libraries (0.7 MiB of the monitor's PSS), nor pays for
 * unmapping what they allocate (about 5 ms of CPU in TLB shootdowns), nor
 * changes its own namespaces; the child just exits.  Its reason comes
 * back through a pipe. */
static int
install_apart (int netns_fd, agentrt_error_t *err)
{
  struct child_error report = { 0 };
  int pipefd[2], status = 0;
  ssize_t n;
  pid_t pid;

  if (pipe2 (pipefd, O_CLOEXEC) < 0)
    return agentrt_error (err, errno, "transparent egress: pipe");
  pid = fork ();
  if (pid == 0)
    {
      close (pipefd[0]);
      if (install_here (netns_fd, &report) == 0)
        _exit (0);
      if (write (pipefd[1], &report, sizeof report) != (ssize_t) sizeof report)
        { /* the parent reports the exit status instead */ }
      _exit (1);
    }
  close (pipefd[1]);
  if (pid < 0)
    {
      close (pipefd[0]);
      return agentrt_error (err, errno, "transparent egress: fork");
    }
  do
    n = read (pipefd[0], &report, sizeof report);
  while (n < 0 && errno == EINTR);
  close (pipefd[0]);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (n == (ssize_t) sizeof report)
    {
      report.msg[sizeof report.msg - 1] = '\0';
      return agentrt_error_verbatim (err, report.status, report.msg);
    }
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return agentrt_error (err, 0, "transparent egress: the process installing "
                          "the nftables rules ended with status %d", status);
  return 0;
}

int
netns_rules_install (agentrt_error_t *err)
{
  return install_apart (-1, err);
}

int
netns_rules_install_in (int netns_fd, agentrt_error_t *err)
{
  return install_apart (netns_fd, err);
}
