/* The admin policy model: what the hardening step applies to every
 * container and how far per-container annotations may loosen it.  The
 * built-in defaults (policy_init_defaults) are the hardening contract of
 * design.md; the policy file (oci/policy_file.h) starts from them and may
 * only override fields it names.  Also the size and duration syntax that
 * the policy file and the annotations share.  Pure code. */
#ifndef AGENTRT_POLICY_POLICY_H
#define AGENTRT_POLICY_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/config.h"
#include "runtime/egress/poll_window.h"
#include "runtime/policy/credentials.h"
#include "runtime/policy/egress_ask.h"
#include "runtime/policy/net_plan.h"

#ifndef AGENTRT_DATADIR
#define AGENTRT_DATADIR "/usr/local/share/agentrt"
#endif
#define POLICY_DEFAULT_SECCOMP_PROFILE AGENTRT_DATADIR "/agent-default.json"
#define POLICY_DEFAULT_AUDIT_DIR "/var/log/agentrt"
/* Debian's publicsuffix package (runtime/egress/public_suffix.h). */
/* Debian's ca-certificates bundle. */
#define POLICY_DEFAULT_TRUST_STORE "/etc/ssl/certs/ca-certificates.crt"
#define POLICY_DEFAULT_PUBLIC_SUFFIX_LIST "/usr/share/publicsuffix/public_suffix_list.dat"

#define POLICY_KIB ((uint64_t) 1024)
#define POLICY_MIB (1024 * POLICY_KIB)
#define POLICY_GIB (1024 * POLICY_MIB)

enum policy_unenforceable
{
  POLICY_UNENFORCEABLE_FAIL,  /* "fail" */
  POLICY_UNENFORCEABLE_ALLOW, /* "allow" */
};

enum policy_userns
{
  POLICY_USERNS_AUTO, /* "auto": a user namespace of its own (docs/userns.md) */
  POLICY_USERNS_OFF,  /* "off" (the default for now): the agent's root is
                         the host's (recorded) */
};

/* The built-in pool of host ids for user namespaces: 0x70000000 to
 * 0x7FFDFFFF (docs/userns.md says why there). */
#define POLICY_USERNS_POOL_START 1879048192u
#define POLICY_USERNS_POOL_SIZE 268304384u
#define POLICY_USERNS_SUBID_USER "agentrt"

struct agent_policy
{
  /* false only when the policy file says "hardening": "off": bundles then
   * run as they are (no hardening, no sidecar), which the audit records. */
  bool enforce;

  /* Root filesystem: read-only always; what run.agentrt.rootfs may ask. */
  bool allow_ephemeral_rootfs; /* default true */
  bool allow_writable_rootfs;  /* default false */
  uint64_t ephemeral_size;     /* bytes: upper tmpfs of the overlay, 1 GiB */

  /* Size-limited tmpfs (bytes) put on /tmp (512 MiB), /run (64 MiB),
   * /dev/shm (64 MiB) and on HOME when it is not writable (512 MiB). */
  uint64_t tmp_size;
  uint64_t run_size;
  uint64_t shm_size;
  uint64_t home_size;

  /* Environment: whether run.agentrt.env.keep may be used (default true),
   * and glob patterns (fnmatch, case-insensitive) of further secret names
   * on top of the built-in rules of env_scrub.h. */
  bool allow_env_keep;
  struct str_list extra_secret_env;

  /* Credential files and dirs masked wherever a bind mount exposes them.
   * Relative entries (".ssh", ".docker/config.json") are looked for in
   * every directory the scan of a bind reaches; absolute ones are host and
   * container paths.  Built-in list (host_paths.h) first, the policy
   * file's extraPaths appended. */
  struct str_list credential_paths;

  /* Credentials the agent may use but never read (credentials.inject,
   * runtime/policy/credentials.h; none by default), and the trust store
   * the sidecar verifies their hosts' certificates against
   * (credentials.trustStore, default POLICY_DEFAULT_TRUST_STORE). */
  struct credential_decl *inject;
  size_t n_inject;
  char *trust_store;

  /* Control sockets and socket dirs on the host (absolute; a component
   * may be a glob, as the UID in /run/user/UID).  A bind mount of one is
   * dropped; a mount of an ancestor gets it masked. */
  struct str_list socket_paths;

  /* The scan of every directory bind for credentials, sockets, homes and
   * git directories: how many levels deep it goes (8) and how many
   * directory entries it reads at most over all binds before the create
   * fails (200000); whether what the host runs later (a home's dot files,
   * git hooks and config) is read-only in writable binds (true; only the
   * policy file turns it off). */
  uint32_t bind_scan_depth;
  uint64_t bind_scan_entries;
  bool protect_persistence;

  /* Character devices allowed beyond the basic ones (device_allow.h):
   * "fuse", "kvm", "net/tun". */
  struct str_list allowed_devices;

  /* Capabilities kept (intersected with the bundle's), "CAP_CHOWN" form. */
  struct str_list safe_capabilities;

  /* Limits applied when the bundle sets none. */
  int64_t pids_limit;    /* 1024 */
  int64_t memory_limit;  /* bytes, 4 GiB; swap = memory (no swap) */
  uint64_t lifetime;     /* seconds, 24 h */
  uint64_t max_lifetime; /* longest run.agentrt.timeout accepted, 24 h */
  /* What a runtime that is not root does with limits no cgroup of its
   * own can enforce (no delegated subtree, or one without the
   * controller): fail the create naming them (the default), or run
   * without them, recorded (runtime/policy/rootless.h). */
  enum policy_unenforceable limits_unenforceable;

  /* Egress: the default allowlist (entries as in run.agentrt.egress.allow,
   * default empty = deny all), the ceiling every annotation entry must fall
   * under (default "*": any name or address), whether broad entries
   * (`*`, `*.com`, `*.co.uk`, `10.0.0.0/8`) are accepted (default false),
   * and the Public Suffix List wildcards are judged against (read by the
   * runtime, not here: runtime/hardening.c). */
  struct str_list egress_allow;
  struct str_list egress_ceiling;
  bool allow_broad_egress;
  char *public_suffix_list;
  /* Where the sidecar connects out from when the bundle's new network
   * namespace is configured by nobody (default auto: the runtime's own;
   * runtime/policy/net_plan.h). */
  enum net_uplink egress_uplink;
  /* The transparent path (default true): in the agent's namespace every
   * TCP connection goes to the sidecar's transparent listener and every
   * DNS query to its stub, so that programs that ignore proxy variables
   * are judged too.  false: proxy only (recorded). */
  bool egress_transparent;
  /* Asking a person about a destination outside the allowlist
   * (egress.ask, runtime/policy/egress_ask.h): off unless the policy names
   * the approver's socket. */
  struct egress_ask_policy egress_ask;

  /* User namespaces (docs/userns.md): whether a hardened container the
   * bundle gives none gets one of its own (mode), and the host ids the
   * ranges come from: the policy's pool when it names one (has_pool),
   * else the ranges /etc/subuid and /etc/subgid give subid_user, else the
   * built-in pool. */
  enum policy_userns userns_mode;
  char *userns_subid_user;
  bool userns_has_pool;
  uint32_t userns_pool_uid;
  uint32_t userns_pool_gid;
  uint32_t userns_pool_size;

  /* Test builds only (runtime/fault.h, AGENTRT_FAULT_LAYER_OFF
   * "kernel-surface"): the kernel interfaces and the device allowlist are
   * left as the bundle has them, to show what the user namespace stops
   * alone.  No policy file can set it. */
  bool test_kernel_surface_off;

  /* The agent seccomp profile stacked on the bundle's filter.  NULL only
   * when the policy file disables it explicitly ("profile": null). */
  char *seccomp_profile;

  /* Egress sidecar credentials (default 65534:65534), the most it polls
   * for events before sleeping (default 100 us, 0: never; see
   * runtime/egress/poll_window.h) and the audit dir. */
  uint32_t sidecar_uid;
  uint32_t sidecar_gid;
  uint32_t sidecar_busy_poll_us;
  char *audit_dir;
};

/* "auto", "off"; and back (-1: neither). */
const char *policy_userns_name (enum policy_userns mode);
int policy_userns_from_name (const char *name);

/* Fills *policy with the built-in defaults (the list). */
void policy_init_defaults (struct agent_policy *policy);

/* Frees what *policy owns (not the struct itself). */
void policy_release (struct agent_policy *policy);

static inline void
cleanup_policy_fn (struct agent_policy *p)
{
  policy_release (p);
}
#define cleanup_policy __attribute__ ((cleanup (cleanup_policy_fn)))

/* Sizes: a decimal number of bytes, optionally followed by one of k, m, g,
 * t (powers of 1024, either case; "512m", "1G").  Zero, signs, spaces and
 * overflow are refused.  Returns 0, or -1 with no message (callers name the
 * field). */
int policy_parse_size (const char *s, uint64_t *out);

/* Durations: seconds ("300"), or a number with one unit s, m, h or d
 * ("5m", "2h").  Zero, signs, spaces, fractions and overflow are refused.
 * Returns 0, or -1 with no message. */
int policy_parse_duration (const char *s, uint64_t *out);

/* Writes a size the way the parser reads it ("512m", "1g", "123"), into
 * buf of at least POLICY_SIZE_STR_LEN bytes.  Returns buf. */
#define POLICY_SIZE_STR_LEN 24
const char *policy_format_size (uint64_t bytes, char *buf);

/* Checks a capability name ("CAP_NET_RAW", any case of "cap_") against the
 * kernel's list; returns the canonical upper-case name or NULL. */
const char *policy_capability_name (const char *name);

#endif
