/* linux.memoryPolicy into set_mempolicy(2) (see mempolicy.h). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/mempolicy.h"

/* The kernel's ABI values (uapi linux/mempolicy.h; older headers lack the
 * newer modes). */
enum
{
  MODE_DEFAULT = 0,
  MODE_PREFERRED = 1,
  MODE_BIND = 2,
  MODE_INTERLEAVE = 3,
  MODE_LOCAL = 4,
  MODE_PREFERRED_MANY = 5,
  MODE_WEIGHTED_INTERLEAVE = 6,
  FLAG_NUMA_BALANCING = 1 << 13,
  FLAG_RELATIVE_NODES = 1 << 14,
  FLAG_STATIC_NODES = 1 << 15,
};

/* What each mode asks of the nodes. */
enum nodes_rule
{
  NODES_NONE, /* an empty nodemask only */
  NODES_ANY,  /* empty (local allocation) or not */
  NODES_SOME, /* at least one node */
};

static const struct
{
  const char *name;
  int mode;
  enum nodes_rule nodes;
} modes[] = {
  { "MPOL_DEFAULT", MODE_DEFAULT, NODES_NONE },
  { "MPOL_PREFERRED", MODE_PREFERRED, NODES_ANY },
  { "MPOL_BIND", MODE_BIND, NODES_SOME },
  { "MPOL_INTERLEAVE", MODE_INTERLEAVE, NODES_SOME },
  { "MPOL_LOCAL", MODE_LOCAL, NODES_NONE },
  { "MPOL_PREFERRED_MANY", MODE_PREFERRED_MANY, NODES_SOME },
  { "MPOL_WEIGHTED_INTERLEAVE", MODE_WEIGHTED_INTERLEAVE, NODES_SOME },
};

static const struct
{
  const char *name;
  int flag;
} flags[] = {
  { "MPOL_F_NUMA_BALANCING", FLAG_NUMA_BALANCING },
  { "MPOL_F_RELATIVE_NODES", FLAG_RELATIVE_NODES },
  { "MPOL_F_STATIC_NODES", FLAG_STATIC_NODES },
};

/* The flag's bit, -1 for a name set_mempolicy(2) does not know. */
static int
flag_value (const char *name)
{
  size_t k;
  for (k = 0; k < sizeof flags / sizeof flags[0]; k++)
    if (strcmp (name, flags[k].name) == 0)
      return flags[k].flag;
  return -1;
}

static bool
nodes_empty (const struct mempolicy_spec *s)
{
  size_t i;
  for (i = 0; i < sizeof s->nodes / sizeof s->nodes[0]; i++)
    if (s->nodes[i])
      return false;
  return true;
}

static int
parse_nodes (const char *text, struct mempolicy_spec *out,
             agentrt_error_t *err)
{
  unsigned long big = 0;
  int r;

  out->nodes_text = text ? text : "";
  r = id_list_parse (out->nodes_text, out->nodes, MEMPOLICY_MAX_NODES, &big);
  if (r == -ERANGE)
    return agentrt_error (err, 0, "linux.memoryPolicy.nodes: node %lu is "
                          "past the %d nodes agentrt takes", big,
                          MEMPOLICY_MAX_NODES);
  if (r < 0)
    return agentrt_error (err, 0, "linux.memoryPolicy.nodes: `%s` is not a "
                          "node list such as `0-3,7`", out->nodes_text);
  out->has_nodes = !nodes_empty (out);
  return 0;
}

/* The flag rules of set_mempolicy(2): static and relative nodes exclude
 * each other and need nodes to map (none: EINVAL); NUMA balancing is for
 * MPOL_BIND (and MPOL_PREFERRED_MANY on newer kernels); MPOL_DEFAULT
 * takes none (the kernel would ignore them). */
static int
check_flags (const struct mempolicy_spec *s, int mode, int f,
             agentrt_error_t *err)
{
  const char *name = s->mode_name;

  if ((f & FLAG_STATIC_NODES) && (f & FLAG_RELATIVE_NODES))
    return agentrt_error (err, 0, "linux.memoryPolicy.flags: "
                          "MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES "
                          "exclude each other");
  if (f && mode == MODE_DEFAULT)
    return agentrt_error (err, 0, "linux.memoryPolicy.flags: %s takes no "
                          "flags", name);
  if ((f & (FLAG_STATIC_NODES | FLAG_RELATIVE_NODES)) && !s->has_nodes)
    return agentrt_error (err, 0, "linux.memoryPolicy.flags: "
                          "MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES map "
                          "nodes, and %s is given none", name);
  if ((f & FLAG_NUMA_BALANCING) && mode != MODE_BIND
      && mode != MODE_PREFERRED_MANY)
    return agentrt_error (err, 0, "linux.memoryPolicy.flags: "
                          "MPOL_F_NUMA_BALANCING needs MPOL_BIND or "
                          "MPOL_PREFERRED_MANY, not %s", name);
  return 0;
}

int
mempolicy_build (const struct oci_memory_policy *mp,
                 struct mempolicy_spec *out, agentrt_error_t *err)
{
  size_t i, j;
  int f = 0;

  memset (out, 0, sizeof *out);
  if (mp == NULL)
    return 0;
  for (i = 0; i < sizeof modes / sizeof modes[0]; i++)
    if (mp->mode && strcmp (mp->mode, modes[i].name) == 0)
      break;
  if (i == sizeof modes / sizeof modes[0])
    return agentrt_error (err, 0, "linux.memoryPolicy.mode: unknown mode "
                          "`%s`", mp->mode ? mp->mode : "");
  out->mode_name = modes[i].name;
  for (j = 0; j < mp->flags.len; j++)
    {
      int v = flag_value (mp->flags.items[j]);
      if (v < 0)
        return agentrt_error (err, 0, "linux.memoryPolicy.flags[%zu]: "
                              "unknown flag `%s`", j, mp->flags.items[j]);
      f |= v;
    }
  if (parse_nodes (mp->nodes, out, err) < 0
      || check_flags (out, modes[i].mode, f, err) < 0)
    return -1;
  if (modes[i].nodes == NODES_NONE && out->has_nodes)
    return agentrt_error (err, 0, "linux.memoryPolicy.nodes: %s takes no "
                          "nodes (`%s`)", out->mode_name, out->nodes_text);
  if (modes[i].nodes == NODES_SOME && !out->has_nodes)
    return agentrt_error (err, 0, "linux.memoryPolicy.nodes: %s needs at "
                          "least one node", out->mode_name);
  out->mode = modes[i].mode | f;
  out->set = true;
  return 0;
}

int
mempolicy_apply (const struct mempolicy_spec *spec, struct child_error *cerr)
{
  /* the kernel reads maxnode - 1 bits */
  unsigned long maxnode = spec->has_nodes ? MEMPOLICY_MAX_NODES + 1 : 0;

  if (!spec->set)
    return 0;
  if (syscall (SYS_set_mempolicy, spec->mode,
               spec->has_nodes ? spec->nodes : NULL, maxnode)
      < 0)
    return child_error (cerr, errno, "linux.memoryPolicy: set_mempolicy %s "
                        "nodes `%s`", spec->mode_name, spec->nodes_text);
  return 0;
}
