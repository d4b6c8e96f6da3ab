/* The network plan (see net_plan.h). */
#include "config.h"

#include <string.h>

#include "runtime/policy/net_plan.h"

#include "oci/config.h"

/* Has something decided what the bundle's network namespace holds: the
 * engine that made it (a path; or a new one it left as it is, its "none"),
 * or a hook that may configure it? */
static bool
bundle_configured (const struct net_inputs *in)
{
  return in->bundle_ns == NET_BUNDLE_PATH
         || (in->bundle_ns == NET_BUNDLE_NEW && (in->hooks || in->engine));
}

/* Hardened, with or without a sidecar, not sharing a pod's. */
static void
decide_agent (const struct net_inputs *in, struct net_plan *p)
{
  bool configured = bundle_configured (in);
  bool runtime_uplink;

  /* A namespace an engine configured is never the agent's (it has the
   * engine's interfaces and routes): the agent gets a fresh one, and the
   * configured one is the sidecar's way out. */
  p->agent = configured ? NET_AGENT_INNER : NET_AGENT_OWN;
  if (!in->egress)
    {
      p->outside = NET_OUTSIDE_NONE;
      return;
    }
  runtime_uplink = in->bundle_ns == NET_BUNDLE_HOST
                   || in->uplink == NET_UPLINK_RUNTIME
                   || (in->uplink == NET_UPLINK_AUTO && !configured);
  if (runtime_uplink)
    p->outside = NET_OUTSIDE_RUNTIME;
  else
    {
      /* the bundle's new namespace, configured or not, is the way out:
       * the agent must be somewhere else */
      p->outside = NET_OUTSIDE_BUNDLE;
      p->agent = NET_AGENT_INNER;
    }
}

/* Who prepares the agent's namespace.  With a user namespace only the
 * init can (the namespace belongs to it), and so when the runtime's own
 * network namespace is not its user namespace's (the monitor, once in
 * another, could not return to it); `run` in the foreground would
 * make an inner one serially, so its init does; otherwise the monitor
 * does it while the init builds its mounts. */
static enum net_maker
maker (const struct net_inputs *in, const struct net_plan *p)
{
  if (in->userns || in->runtime_userns)
    return NET_MAKER_INIT;
  if (p->agent == NET_AGENT_INNER && in->local_monitor)
    return NET_MAKER_INIT;
  return NET_MAKER_MONITOR;
}

enum net_bundle_ns
net_bundle_ns_of (const struct oci_config *c)
{
  const struct oci_namespace *ns = oci_config_namespace (c, OCI_NS_NETWORK);
  if (ns == NULL)
    return NET_BUNDLE_HOST;
  return ns->path && ns->path[0] != '\0' ? NET_BUNDLE_PATH : NET_BUNDLE_NEW;
}

struct net_plan
net_plan_decide (const struct net_inputs *in)
{
  struct net_plan p = { NET_AGENT_AS_BUNDLE, NET_OUTSIDE_NONE,
                        NET_MAKER_NOBODY, false, false, false, false,
                        NET_RULES_NONE };

  if (!in->hardened)
    {
      /* runc's behaviour: lo up in a new namespace the container makes
       * itself, a joined one left alone */
      p.lo_up = in->bundle_ns == NET_BUNDLE_NEW;
      p.maker = p.lo_up ? NET_MAKER_INIT : NET_MAKER_NOBODY;
      return p;
    }
  if (in->bundle_ns == NET_BUNDLE_PATH && in->shared_agent_ns)
    {
      /* a pod's container: the sandbox's agent namespace and proxy */
      p.agent = NET_AGENT_SHARED;
      return p;
    }
  decide_agent (in, &p);
  p.lo_up = true;
  p.listeners = p.outside != NET_OUTSIDE_NONE;
  p.host_names = p.outside == NET_OUTSIDE_RUNTIME;
  p.maker = maker (in, &p);
  /* the transparent path needs the sidecar that serves it */
  p.transparent = in->transparent && p.listeners;
  if (p.transparent)
    p.rules = p.maker == NET_MAKER_MONITOR ? NET_RULES_MONITOR : NET_RULES_INIT;
  return p;
}

bool
net_plan_monitor_makes (const struct net_plan *p)
{
  return p->maker == NET_MAKER_MONITOR && p->agent == NET_AGENT_INNER;
}

bool
net_plan_monitor_prepares_init (const struct net_plan *p)
{
  return p->maker == NET_MAKER_MONITOR && p->agent == NET_AGENT_OWN;
}

const char *
net_agent_name (enum net_agent a)
{
  switch (a)
    {
    case NET_AGENT_OWN:
      return "own";
    case NET_AGENT_INNER:
      return "inner";
    case NET_AGENT_SHARED:
      return "shared";
    case NET_AGENT_AS_BUNDLE:
      break;
    }
  return "as-bundle";
}

const char *
net_outside_name (enum net_outside o)
{
  return o == NET_OUTSIDE_RUNTIME  ? "runtime"
         : o == NET_OUTSIDE_BUNDLE ? "bundle"
                                   : "none";
}

const char *
net_maker_name (enum net_maker m)
{
  return m == NET_MAKER_INIT      ? "init"
         : m == NET_MAKER_MONITOR ? "monitor"
                                  : "nobody";
}

const char *
net_rules_name (enum net_rules r)
{
  return r == NET_RULES_MONITOR ? "monitor"
         : r == NET_RULES_INIT  ? "init"
                                : "none";
}

static const char *const bundle_ns_names[] = { "host", "new", "path", NULL };
static const char *const uplink_names[] = { "auto", "bundle", "runtime", NULL };

static int
index_of (const char *const *names, const char *name)
{
  for (int i = 0; name && names[i]; i++)
    if (strcmp (names[i], name) == 0)
      return i;
  return -1;
}

const char *
net_bundle_ns_name (enum net_bundle_ns ns)
{
  return bundle_ns_names[ns];
}

const char *
net_uplink_name (enum net_uplink u)
{
  return uplink_names[u];
}

int
net_bundle_ns_from_name (const char *name)
{
  return index_of (bundle_ns_names, name);
}

int
net_uplink_from_name (const char *name)
{
  return index_of (uplink_names, name);
}

void
net_plan_write_json (const struct net_inputs *in, struct json_writer *w)
{
  struct net_plan plan = net_plan_decide (in);
  const struct net_plan *p = &plan;

  json_key (w, "network");
  json_begin_object (w);
  json_kv_string (w, "bundle", net_bundle_ns_name (in->bundle_ns));
  json_kv_bool (w, "sharedAgentNamespace", in->shared_agent_ns);
  json_kv_bool (w, "hooks", in->hooks);
  json_kv_bool (w, "engine", in->engine);
  json_kv_bool (w, "egress", in->egress);
  json_kv_bool (w, "userNamespace", in->userns);
  json_kv_bool (w, "runtimeUserNamespace", in->runtime_userns);
  json_kv_bool (w, "localMonitor", in->local_monitor);
  json_kv_string (w, "uplink", net_uplink_name (in->uplink));
  json_kv_bool (w, "transparent", in->transparent);
  json_kv_string (w, "agent", net_agent_name (p->agent));
  json_kv_string (w, "outside", net_outside_name (p->outside));
  json_kv_string (w, "maker", net_maker_name (p->maker));
  json_kv_string (w, "rules", net_rules_name (p->rules));
  json_end_object (w);
}
