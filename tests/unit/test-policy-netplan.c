/* Unit tests of the network plan (runtime/policy/net_plan.h): every
 * combination of the bundle's namespace, hooks, egress and uplink, each row
 * naming where the agent and the sidecar end up; then who prepares the agent's
 * namespace (user namespace, `run` in the foreground); the transparent
 * path and who installs its rules; hardening off; a pod's shared
 * namespace. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "runtime/policy/net_plan.h"
#include "unit.h"

#define HOST NET_BUNDLE_HOST
#define NEW NET_BUNDLE_NEW
#define PATH NET_BUNDLE_PATH
#define AUTO NET_UPLINK_AUTO
#define BUNDLE NET_UPLINK_BUNDLE
#define RUNTIME NET_UPLINK_RUNTIME

static const struct
{
  enum net_bundle_ns ns;
  bool hooks, egress;
  enum net_uplink uplink;
  const char *agent, *outside;
} hardened_rows[] = {
  /* no sidecar: the agent never shares a namespace an engine configured */
  { HOST, false, false, AUTO, "own", "none" },
  { HOST, false, false, BUNDLE, "own", "none" },
  { HOST, false, false, RUNTIME, "own", "none" },
  { HOST, true, false, AUTO, "own", "none" },
  { HOST, true, false, BUNDLE, "own", "none" },
  { HOST, true, false, RUNTIME, "own", "none" },
  { NEW, false, false, AUTO, "own", "none" },
  { NEW, false, false, BUNDLE, "own", "none" },
  { NEW, false, false, RUNTIME, "own", "none" },
  { NEW, true, false, AUTO, "inner", "none" },
  { NEW, true, false, BUNDLE, "inner", "none" },
  { NEW, true, false, RUNTIME, "inner", "none" },
  { PATH, false, false, AUTO, "inner", "none" },
  { PATH, false, false, BUNDLE, "inner", "none" },
  { PATH, false, false, RUNTIME, "inner", "none" },
  { PATH, true, false, AUTO, "inner", "none" },
  { PATH, true, false, BUNDLE, "inner", "none" },
  { PATH, true, false, RUNTIME, "inner", "none" },
  /* a sidecar: the host's network is the runtime's own */
  { HOST, false, true, AUTO, "own", "runtime" },
  { HOST, false, true, BUNDLE, "own", "runtime" },
  { HOST, false, true, RUNTIME, "own", "runtime" },
  { HOST, true, true, AUTO, "own", "runtime" },
  { HOST, true, true, BUNDLE, "own", "runtime" },
  { HOST, true, true, RUNTIME, "own", "runtime" },
  /* a new namespace nobody configures: the runtime's is the way out,
   * unless the policy insists on the bundle's */
  { NEW, false, true, AUTO, "own", "runtime" },
  { NEW, false, true, BUNDLE, "inner", "bundle" },
  { NEW, false, true, RUNTIME, "own", "runtime" },
  /* one hooks (an engine) configure: it is the way out */
  { NEW, true, true, AUTO, "inner", "bundle" },
  { NEW, true, true, BUNDLE, "inner", "bundle" },
  { NEW, true, true, RUNTIME, "inner", "runtime" },
  { PATH, false, true, AUTO, "inner", "bundle" },
  { PATH, false, true, BUNDLE, "inner", "bundle" },
  { PATH, false, true, RUNTIME, "inner", "runtime" },
  { PATH, true, true, AUTO, "inner", "bundle" },
  { PATH, true, true, BUNDLE, "inner", "bundle" },
  { PATH, true, true, RUNTIME, "inner", "runtime" },
};

static void
test_every_combination (void)
{
  for (size_t i = 0; i < sizeof (hardened_rows) / sizeof (hardened_rows[0]);
       i++)
    {
      struct net_inputs in = { .hardened = true, .bundle_ns = hardened_rows[i].ns,
                               .hooks = hardened_rows[i].hooks,
                               .egress = hardened_rows[i].egress,
                               .uplink = hardened_rows[i].uplink };
      struct net_plan p = net_plan_decide (&in);
      const char *agent = net_agent_name (p.agent);
      const char *outside = net_outside_name (p.outside);

      if (strcmp (agent, hardened_rows[i].agent) != 0
          || strcmp (outside, hardened_rows[i].outside) != 0)
        fprintf (stderr, "row %zu: agent %s, outside %s\n", i, agent, outside);
      CHECK_STR_EQ (agent, hardened_rows[i].agent);
      CHECK_STR_EQ (outside, hardened_rows[i].outside);
      CHECK (p.lo_up);
      CHECK (p.listeners == hardened_rows[i].egress);
      CHECK (p.host_names == (p.outside == NET_OUTSIDE_RUNTIME));
      /* the policy's egress.transparent off: proxy only, no rules */
      CHECK (!p.transparent && p.rules == NET_RULES_NONE);
    }
}

/* egress.transparent: the transparent path wherever there is a sidecar
 * to serve it, its rules installed by the monitor when it makes the
 * namespace, else by the init, its maker. */
static void
test_transparent (void)
{
  static const struct
  {
    enum net_bundle_ns ns;
    bool egress, userns, local;
    bool transparent;
    const char *rules;
  } rows[] = {
    { HOST, false, false, false, false, "none" },
    { PATH, false, false, false, false, "none" },
    { HOST, true, false, false, true, "monitor" },
    { NEW, true, false, false, true, "monitor" },
    { PATH, true, false, false, true, "monitor" },
    { HOST, true, false, true, true, "monitor" },
    { PATH, true, false, true, true, "init" },
    { HOST, true, true, false, true, "init" },
    { PATH, true, true, true, true, "init" },
  };

  for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++)
    {
      struct net_inputs in = { .hardened = true, .bundle_ns = rows[i].ns,
                               .egress = rows[i].egress, .userns = rows[i].userns,
                               .local_monitor = rows[i].local, .transparent = true };
      struct net_plan p = net_plan_decide (&in);
      if (p.transparent != rows[i].transparent)
        fprintf (stderr, "row %zu: transparent %d\n", i, p.transparent);
      CHECK (p.transparent == rows[i].transparent);
      CHECK_STR_EQ (net_rules_name (p.rules), rows[i].rules);
      CHECK (p.rules == NET_RULES_NONE
             || (p.rules == NET_RULES_MONITOR) == (p.maker == NET_MAKER_MONITOR));
    }
}

/* A new namespace the engine that made it left as it is (Podman's
 * `--network none`, named by io.container.manager) counts as configured:
 * with egress it is the way out, and it reaches nothing, unless the policy
 * says runtime. */
static void
test_engine_none (void)
{
  static const struct
  {
    bool egress;
    enum net_uplink uplink;
    const char *agent, *outside;
  } rows[] = {
    { false, AUTO, "inner", "none" },
    { true, AUTO, "inner", "bundle" },
    { true, BUNDLE, "inner", "bundle" },
    { true, RUNTIME, "inner", "runtime" },
  };

  for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++)
    {
      struct net_inputs in = { .hardened = true, .bundle_ns = NEW,
                               .engine = true, .egress = rows[i].egress,
                               .uplink = rows[i].uplink };
      struct net_plan p = net_plan_decide (&in);
      CHECK_STR_EQ (net_agent_name (p.agent), rows[i].agent);
      CHECK_STR_EQ (net_outside_name (p.outside), rows[i].outside);
    }
}

static void
test_who_prepares (void)
{
  static const struct
  {
    enum net_bundle_ns ns;
    bool userns, local, runtime_userns;
    const char *agent, *maker;
  } rows[] = {
    { HOST, false, false, false, "own", "monitor" },
    { HOST, false, true, false, "own", "monitor" },
    { HOST, true, false, false, "own", "init" },
    { HOST, true, true, false, "own", "init" },
    { PATH, false, false, false, "inner", "monitor" },
    { PATH, false, true, false, "inner", "init" },
    { PATH, true, false, false, "inner", "init" },
    { PATH, true, true, false, "inner", "init" },
    /* rootless Podman's runtime: the monitor could not come back */
    { HOST, false, false, true, "own", "init" },
    { PATH, false, false, true, "inner", "init" },
    { NEW, false, false, true, "own", "init" },
  };

  for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++)
    {
      struct net_inputs in = { .hardened = true, .bundle_ns = rows[i].ns,
                               .egress = true, .userns = rows[i].userns,
                               .runtime_userns = rows[i].runtime_userns,
                               .local_monitor = rows[i].local };
      struct net_plan p = net_plan_decide (&in);
      CHECK_STR_EQ (net_agent_name (p.agent), rows[i].agent);
      CHECK_STR_EQ (net_maker_name (p.maker), rows[i].maker);
    }
}

static void
test_hardening_off_and_shared (void)
{
  static const struct
  {
    enum net_bundle_ns ns;
    bool lo_up;
    const char *maker;
  } rows[] = {
    { HOST, false, "nobody" },
    { NEW, true, "init" },
    { PATH, false, "nobody" },
  };
  struct net_inputs shared = { .hardened = true, .bundle_ns = PATH,
                               .shared_agent_ns = true, .egress = true,
                               .transparent = true };
  struct net_plan p;

  for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++)
    {
      struct net_inputs in = { .hardened = false, .bundle_ns = rows[i].ns,
                               .egress = true, .hooks = true, .transparent = true };
      p = net_plan_decide (&in);
      CHECK_STR_EQ (net_agent_name (p.agent), "as-bundle");
      CHECK_STR_EQ (net_outside_name (p.outside), "none");
      CHECK (p.lo_up == rows[i].lo_up && !p.listeners && !p.transparent);
      CHECK_STR_EQ (net_maker_name (p.maker), rows[i].maker);
    }
  p = net_plan_decide (&shared);
  CHECK_STR_EQ (net_agent_name (p.agent), "shared");
  CHECK_STR_EQ (net_outside_name (p.outside), "none");
  /* the sandbox's namespace has its rules already */
  CHECK (!p.lo_up && !p.listeners && p.maker == NET_MAKER_NOBODY);
  CHECK (!p.transparent && p.rules == NET_RULES_NONE);
}

int
main (void)
{
  RUN_TEST (test_every_combination);
  RUN_TEST (test_engine_none);
  RUN_TEST (test_who_prepares);
  RUN_TEST (test_transparent);
  RUN_TEST (test_hardening_off_and_shared);
  return UNIT_EXIT ();
}
