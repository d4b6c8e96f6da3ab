/* The network plan: where a container's process runs and where its egress
 * sidecar connects from, and who does what to get there.  Decided once, by
 * a pure function, from the bundle's network namespace, its hooks, the
 * hardening's egress choice and the runtime's situation; consumed as it is
 * by create, the init, the monitor and the sidecar.  docs/architecture.md
 * has the table. */
#ifndef AGENTRT_NET_PLAN_H
#define AGENTRT_NET_PLAN_H

#include <stdbool.h>

#include "oci/json_writer.h"

/* The bundle's network namespace. */
enum net_bundle_ns
{
  NET_BUNDLE_HOST,   /* no network namespace: the host's */
  NET_BUNDLE_NEW,    /* a new one (no path) */
  NET_BUNDLE_PATH,   /* one joined by path */
};

/* Which namespace is the sidecar's outside when the bundle's new one is
 * configured by nobody (policy egress.uplink). */
enum net_uplink
{
  NET_UPLINK_AUTO,    /* the runtime's own when nothing could configure
                         the bundle's, else the bundle's */
  NET_UPLINK_BUNDLE,  /* always the bundle's */
  NET_UPLINK_RUNTIME, /* always the runtime's own */
};

struct net_inputs
{
  bool hardened;
  enum net_bundle_ns bundle_ns;
  bool shared_agent_ns;   /* PATH: another hardened container's agent
                             namespace (a pod's), with its own sidecar */
  bool hooks;             /* prestart, createRuntime or createContainer
                             hooks that may configure the bundle's one */
  bool engine;            /* the bundle names the engine that made it
                             (annotation io.container.manager: Podman,
                             CRI-O): a new namespace it left unconfigured
                             is its `--network none`, not a standalone
                             bundle's */
  bool egress;            /* hardened: a sidecar (run.agentrt.egress=proxy) */
  bool userns;            /* the container has a user namespace */
  bool runtime_userns;    /* the runtime is root of a user namespace that
                             does not own its network namespace (rootless
                             Podman's): it could not come back from
                             another one */
  bool local_monitor;     /* `run` in the foreground is its own monitor */
  enum net_uplink uplink;
  bool transparent;       /* the policy's egress.transparent: every TCP
                             connection and DNS query of the agent goes
                             to the sidecar, proxy variables or not */
};

/* Where the agent's process ends up. */
enum net_agent
{
  NET_AGENT_AS_BUNDLE, /* hardening off: the bundle's namespace as it is */
  NET_AGENT_OWN,       /* the container's own new namespace (only lo) */
  NET_AGENT_INNER,     /* a fresh namespace entered after the hooks: the
                          bundle's stays the sidecar's outside */
  NET_AGENT_SHARED,    /* another container's agent namespace, as it is */
};

/* Where the sidecar connects from. */
enum net_outside
{
  NET_OUTSIDE_NONE,    /* no sidecar */
  NET_OUTSIDE_RUNTIME, /* the runtime's own network namespace */
  NET_OUTSIDE_BUNDLE,  /* the bundle's (after its hooks ran) */
};

/* Who prepares the agent's namespace (brings lo up, binds the sidecar's
 * listeners in it; for INNER, makes it). */
enum net_maker
{
  NET_MAKER_NOBODY,
  NET_MAKER_INIT,     /* the container's init, before it execs */
  NET_MAKER_MONITOR,  /* the monitor, while the init builds its mounts */
};

/* Who installs the transparent path's routes and nftables rules in the
 * agent's namespace (runtime/netns_rules.h). */
enum net_rules
{
  NET_RULES_NONE,
  NET_RULES_MONITOR, /* the monitor, the namespace's maker, while in it */
  NET_RULES_INIT,    /* the init, the namespace's maker, before it hands
                        over the sidecar's sockets */
};

struct net_plan
{
  enum net_agent agent;
  enum net_outside outside;
  enum net_maker maker;
  bool lo_up;         /* bring lo up in the agent's namespace */
  bool listeners;     /* bind the sidecar's listeners there */
  bool host_names;    /* the sidecar resolves with the host's resolv.conf
                         and hosts (its outside is the runtime's own) */
  bool transparent;   /* the maker also binds the transparent listeners
                         and the DNS stub's sockets there, and the
                         namespace gets the routes and rules (`rules`) */
  enum net_rules rules;
};

struct oci_config;

/* What the bundle asks of the network namespace. */
enum net_bundle_ns net_bundle_ns_of (const struct oci_config *c);

/* The plan for these inputs.  Pure. */
struct net_plan net_plan_decide (const struct net_inputs *in);

/* The monitor makes the agent's namespace (INNER), for the init to join
 * after the hooks; or prepares the init's own (OWN) once it exists. */
bool net_plan_monitor_makes (const struct net_plan *p);
bool net_plan_monitor_prepares_init (const struct net_plan *p);

/* "as-bundle", "own", "inner", "shared"; "none", "runtime", "bundle";
 * "nobody", "init", "monitor" (for the audit trail, policy explain and
 * the tests). */
const char *net_agent_name (enum net_agent a);
const char *net_outside_name (enum net_outside o);
const char *net_maker_name (enum net_maker m);
/* "none", "monitor", "init". */
const char *net_rules_name (enum net_rules r);
/* "host", "new", "path"; "auto", "bundle", "runtime" (the policy's
 * egress.uplink and the hardening record). */
const char *net_bundle_ns_name (enum net_bundle_ns ns);
const char *net_uplink_name (enum net_uplink u);

/* The value a name gives (the inverse of the above), or -1. */
int net_bundle_ns_from_name (const char *name);
int net_uplink_from_name (const char *name);

/* "network": the facts (bundle, sharedAgentNamespace, hooks, engine, egress,
 * userNamespace, runtimeUserNamespace, localMonitor, uplink, transparent)
 * and, for the reader, the plan they make (agent, outside, maker, rules), a
 * member of the hardening's directives. */
void net_plan_write_json (const struct net_inputs *in, struct json_writer *w);

#endif
