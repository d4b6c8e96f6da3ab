/* `agentrt update [--resources FILE|-] [--memory N] [--memory-swap N]
 * [--pids-limit N] [--cpu-quota N] [--cpu-period N] [--cpu-shares N]
 * [--cpuset-cpus L] [--cpuset-mems L] ID`: change a running container's
 * limits, as runc does. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cli/commands.h"
#include "runtime/container.h"
#include "runtime/log.h"
#include "runtime/policy/policy.h"

enum
{
  OPT_RESOURCES = 'r',
  OPT_MEMORY = 1000,
  OPT_MEMORY_SWAP,
  OPT_MEMORY_RESERVATION,
  OPT_PIDS_LIMIT,
  OPT_CPU_QUOTA,
  OPT_CPU_PERIOD,
  OPT_CPU_SHARES,
  OPT_CPU_RT_PERIOD,
  OPT_CPU_RT_RUNTIME,
  OPT_BLKIO_WEIGHT,
  OPT_CPUSET_CPUS,
  OPT_CPUSET_MEMS,
};

static const struct option options[] = {
  { "resources", required_argument, NULL, OPT_RESOURCES },
  { "memory", required_argument, NULL, OPT_MEMORY },
  { "memory-swap", required_argument, NULL, OPT_MEMORY_SWAP },
  { "memory-reservation", required_argument, NULL, OPT_MEMORY_RESERVATION },
  { "pids-limit", required_argument, NULL, OPT_PIDS_LIMIT },
  { "cpu-quota", required_argument, NULL, OPT_CPU_QUOTA },
  { "cpu-period", required_argument, NULL, OPT_CPU_PERIOD },
  { "cpu-shares", required_argument, NULL, OPT_CPU_SHARES },
  { "cpu-share", required_argument, NULL, OPT_CPU_SHARES }, /* runc's name */
  { "cpu-rt-period", required_argument, NULL, OPT_CPU_RT_PERIOD },
  { "cpu-rt-runtime", required_argument, NULL, OPT_CPU_RT_RUNTIME },
  { "blkio-weight", required_argument, NULL, OPT_BLKIO_WEIGHT },
  { "cpuset-cpus", required_argument, NULL, OPT_CPUSET_CPUS },
  { "cpuset-mems", required_argument, NULL, OPT_CPUSET_MEMS },
  { NULL, 0, NULL, 0 },
};

/* Sizes accept runc's suffixes (k, m, g); -1 means unlimited. */
static int
parse_number (const char *s, const char *flag, bool size, int64_t *out,
              agentrt_error_t *err)
{
  uint64_t v;
  char *end;
  if (strcmp (s, "-1") == 0)
    {
      *out = -1;
      return 0;
    }
  if (size && policy_parse_size (s, &v) == 0 && v <= INT64_MAX)
    {
      *out = (int64_t) v;
      return 0;
    }
  errno = 0;
  *out = strtoll (s, &end, 10);
  if (errno || end == s || *end)
    return agentrt_error (err, 0, "%s: `%s` is not a number", flag, s);
  return 0;
}

static char *
read_all (const char *path, size_t *len, agentrt_error_t *err)
{
  cleanup_file FILE *f = strcmp (path, "-") == 0 ? NULL : fopen (path, "re");
  FILE *in = strcmp (path, "-") == 0 ? stdin : f;
  char *buf = NULL;
  size_t cap = 0, n;

  if (in == NULL)
    return agentrt_error (err, errno, "--resources `%s`", path), NULL;
  *len = 0;
  do
    {
      if (*len + 4096 > cap)
        buf = xrealloc (buf, cap = cap ? cap * 2 : 8192);
      n = fread (buf + *len, 1, cap - *len, in);
      *len += n;
    }
  while (n > 0 && *len < 16 * 1024 * 1024);
  return buf;
}

static const char *
flag_name (int c)
{
  const struct option *o;
  for (o = options; o->name; o++)
    if (o->val == c)
      return o->name;
  return "?";
}

static bool
may_be_unlimited (int c)
{
  return c == OPT_PIDS_LIMIT || c == OPT_CPU_QUOTA || c == OPT_CPU_RT_RUNTIME;
}

static struct oci_resources *
from_flags (int c, const char *arg, struct oci_resources *r, agentrt_error_t *err)
{
  int64_t v;
  bool size = c == OPT_MEMORY || c == OPT_MEMORY_SWAP || c == OPT_MEMORY_RESERVATION;

  if (c == OPT_CPUSET_CPUS || c == OPT_CPUSET_MEMS)
    {
      if (r->cpu == NULL)
        r->cpu = xzalloc (sizeof *r->cpu);
      free (c == OPT_CPUSET_CPUS ? r->cpu->cpus : r->cpu->mems);
      *(c == OPT_CPUSET_CPUS ? &r->cpu->cpus : &r->cpu->mems) = xstrdup (arg);
      return r;
    }
  if (parse_number (arg, flag_name (c), size, &v, err) < 0)
    return NULL;
  /* -1 is "unlimited" where the kernel has such a value; below it the
   * kernel would guess (any negative quota is taken as unlimited). */
  if (v < -1 || (v == -1 && !size && !may_be_unlimited (c))
      || (c == OPT_BLKIO_WEIGHT && v > UINT16_MAX))
    return agentrt_error (err, 0, "--%s: `%s` is out of range", flag_name (c),
                          arg), NULL;
  if (size && r->memory == NULL)
    r->memory = xzalloc (sizeof *r->memory);
  if (c >= OPT_CPU_QUOTA && c <= OPT_CPU_RT_RUNTIME && r->cpu == NULL)
    r->cpu = xzalloc (sizeof *r->cpu);
  if (c == OPT_BLKIO_WEIGHT && r->blkio == NULL)
    r->blkio = xzalloc (sizeof *r->blkio);
  switch (c)
    {
    case OPT_MEMORY: r->memory->has_limit = true; r->memory->limit = v; break;
    case OPT_MEMORY_SWAP: r->memory->has_swap = true; r->memory->swap = v; break;
    case OPT_MEMORY_RESERVATION:
      r->memory->has_reservation = true;
      r->memory->reservation = v;
      break;
    case OPT_PIDS_LIMIT:
      if (r->pids == NULL)
        r->pids = xzalloc (sizeof *r->pids);
      r->pids->has_limit = true;
      r->pids->limit = v;
      break;
    case OPT_CPU_QUOTA: r->cpu->has_quota = true; r->cpu->quota = v; break;
    case OPT_CPU_PERIOD:
      r->cpu->has_period = true;
      r->cpu->period = (uint64_t) v;
      break;
    case OPT_CPU_SHARES:
      r->cpu->has_shares = true;
      r->cpu->shares = (uint64_t) v;
      break;
    case OPT_CPU_RT_PERIOD:
      r->cpu->has_realtime_period = true;
      r->cpu->realtime_period = (uint64_t) v;
      break;
    case OPT_CPU_RT_RUNTIME:
      r->cpu->has_realtime_runtime = true;
      r->cpu->realtime_runtime = v;
      break;
    case OPT_BLKIO_WEIGHT:
      r->blkio->has_weight = true;
      r->blkio->weight = (uint16_t) v;
      break;
    }
  return r;
}

static int
apply (struct global_options *g, const char *id, const struct oci_resources *r,
       agentrt_error_t *err)
{
  struct str_list warnings = { 0 };
  enum container_status status;
  struct container c;
  struct cgroup *cg;
  size_t i;
  int ret;

  if (container_load (&g->rt, id, &c, err) < 0)
    return -1;
  status = container_status (&c);
  if (status == STATUS_STOPPED)
    {
      container_release (&c);
      return agentrt_error (err, 0, "container `%s` is stopped", id);
    }
  cg = container_cgroup (&c, err);
  ret = cg ? cgroup_update (cg, r, &warnings, err)
           : (*err ? -1 : agentrt_error (err, ENOENT, "container `%s` has no "
                                         "cgroup", id));
  for (i = 0; i < warnings.len; i++)
    log_warning ("%s", warnings.items[i]);
  str_list_free (&warnings);
  cgroup_free (cg);
  container_release (&c);
  return ret;
}

int
cmd_update (struct global_options *g, int argc, char **argv,
            agentrt_error_t *err)
{
  struct oci_resources *flags = xzalloc (sizeof *flags);
  struct oci_resources *file = NULL;
  const char *resources = NULL;
  int c, r = -1;

  opterr = 0;
  optind = 0;
  while ((c = getopt_long_only (argc, argv, "+:r:", options, NULL)) != -1)
    {
      if (c == OPT_RESOURCES)
        resources = optarg;
      else if (c >= OPT_MEMORY && c <= OPT_CPUSET_MEMS)
        {
          if (from_flags (c, optarg, flags, err) == NULL)
            goto out;
        }
      else
        {
          cmd_option_error (argv, c, err);
          goto out;
        }
    }
  if (cmd_check_args (argc, optind, 1, 1, "update [options] ID", err) < 0)
    goto out;
  if (resources)
    {
      size_t len;
      cleanup_free char *json = read_all (resources, &len, err);
      if (json == NULL)
        goto out;
      file = oci_resources_parse (json, len, strcmp (resources, "-") == 0
                                                 ? "resources" : resources, err);
      if (file == NULL)
        goto out;
    }
  r = apply (g, argv[optind], file ? file : flags, err);
out:
  oci_resources_free (file);
  oci_resources_free (flags);
  return r < 0 ? -1 : 0;
}
