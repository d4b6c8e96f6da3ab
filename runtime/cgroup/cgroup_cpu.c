/* linux.resources.cpu on v1 (cpu.shares, cfs quota/period/burst, rt, idle,
 * cpuset) and v2 (cpu.weight converted from shares like runc and crun,
 * cpu.max, cpu.max.burst, cpu.idle, cpuset). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "runtime/cgroup/cgroup_internal.h"

#define LN2 0.69314718055994530942
#define LN10 2.30258509299404568402

/* Natural logarithm for x > 0 without libm: x = m * 2^k with m in [1, 2),
 * ln m = 2 atanh ((m - 1) / (m + 1)). */
static double
ln (double x)
{
  double t, t2, term, sum = 0;
  int k = 0;

  while (x >= 2)
    x /= 2, k++;
  while (x < 1)
    x *= 2, k--;
  t = (x - 1) / (x + 1);
  t2 = t * t;
  term = t;
  for (int i = 1; i < 80; i += 2)
    {
      sum += term / i;
      term *= t2;
    }
  return 2 * sum + k * LN2;
}

/* e^y for 0 <= y < 40 (Taylor series after taking out powers of 2). */
static double
exp_pos (double y)
{
  int k = (int) (y / LN2);
  double r = y - k * LN2, sum = 1, term = 1;

  for (int i = 1; i < 40; i++)
    {
      term *= r / i;
      sum += term;
    }
  while (k-- > 0)
    sum *= 2;
  return sum;
}

/* runc's and crun's quadratic fit through (2, 1), (1024, 100) and
 * (262144, 10000): weight = ceil (10 ^ ((l^2 + 125 l) / 612 - 7/34)),
 * l = log2 (shares). */
uint64_t
cg_shares_to_weight (uint64_t shares)
{
  double l, e, w;
  uint64_t whole;

  if (shares == 0)
    return 0;
  if (shares <= 2)
    return 1;
  if (shares >= 262144)
    return 10000;
  l = ln ((double) shares) / LN2;
  e = (l * l + 125 * l) / 612.0 - 7.0 / 34.0;
  w = exp_pos (e * LN10);
  /* ceil, tolerating the last-bit error of the series at exact integers
   * (shares 1024 gives 100). */
  whole = (uint64_t) w;
  return w - (double) whole > 1e-9 ? whole + 1 : whole;
}

static int
set (struct cg_dir *d, const char *file, const char *field, const char *value,
     agentrt_error_t *err)
{
  if (cg_write (d, file, value, err) < 0)
    return agentrt_error_wrap (err, "linux.resources.cpu.%s", field);
  return 0;
}

static int
set_u (struct cg_dir *d, const char *file, const char *field, uint64_t v,
       agentrt_error_t *err)
{
  char buf[32];
  snprintf (buf, sizeof buf, "%" PRIu64, v);
  return set (d, file, field, buf, err);
}

static int
set_s (struct cg_dir *d, const char *file, const char *field, int64_t v,
       agentrt_error_t *err)
{
  char buf[32];
  snprintf (buf, sizeof buf, "%" PRId64, v);
  return set (d, file, field, buf, err);
}

static int
v1_shares (struct cg_dir *d, uint64_t shares, agentrt_error_t *err)
{
  uint64_t got;

  if (set_u (d, "cpu.shares", "shares", shares, err) < 0)
    return -1;
  /* The kernel clamps instead of refusing: check what it kept. */
  if (cg_read_u64 (d, "cpu.shares", &got, err) < 0)
    return agentrt_error_wrap (err, "linux.resources.cpu.shares");
  if (got != shares)
    return agentrt_error (err, 0,
                          "linux.resources.cpu.shares: %" PRIu64
                          " is out of range (the kernel kept %" PRIu64 ")",
                          shares, got);
  return 0;
}

static int
v1_cfs (struct cg_dir *d, const struct oci_cpu *c, agentrt_error_t *err)
{
  bool quota = c->has_quota && c->quota != 0;

  if (c->has_period && c->period != 0
      && set_u (d, "cpu.cfs_period_us", "period", c->period, err) < 0)
    {
      /* A shorter period can conflict with the current quota: quota first. */
      if (!quota || (*err)->status != EINVAL)
        return -1;
      agentrt_error_release (err);
      if (set_s (d, "cpu.cfs_quota_us", "quota", c->quota, err) < 0
          || set_u (d, "cpu.cfs_period_us", "period", c->period,
                   err) < 0)
        return -1;
      quota = false;
    }
  if (quota
      && set_s (d, "cpu.cfs_quota_us", "quota", c->quota,
               err) < 0)
    return -1;
  if (c->has_burst
      && set_u (d, "cpu.cfs_burst_us", "burst", c->burst, err) < 0)
    return -1;
  return 0;
}

static int
v1_cpu (struct cg_dir *d, const struct oci_cpu *c, agentrt_error_t *err)
{
  if (c->has_shares && c->shares != 0 && v1_shares (d, c->shares, err) < 0)
    return -1;
  if (v1_cfs (d, c, err) < 0)
    return -1;
  if (c->has_realtime_period && c->realtime_period != 0
      && set_u (d, "cpu.rt_period_us", "realtimePeriod", c->realtime_period, err) < 0)
    return -1;
  if (c->has_realtime_runtime && c->realtime_runtime != 0
      && set_s (d, "cpu.rt_runtime_us", "realtimeRuntime", c->realtime_runtime, err) < 0)
    return -1;
  if (c->has_idle
      && set_s (d, "cpu.idle", "idle", c->idle, err) < 0)
    return -1;
  return 0;
}

/* cpu.max "QUOTA PERIOD"; a part the update does not give keeps its value. */
static int
v2_cpu_max (struct cg_dir *d, const struct oci_cpu *c, agentrt_error_t *err)
{
  char cur[64] = "max 100000", quota[32], buf[80];
  uint64_t period = 100000;
  char *sp;

  if (!c->has_quota || !c->has_period || c->period == 0)
    {
      if (cg_read_buf (d, "cpu.max", cur, sizeof cur, err) < 0)
        return agentrt_error_wrap (err, "linux.resources.cpu");
      sp = strchr (cur, ' ');
      if (sp == NULL)
        return agentrt_error (err, 0, "parse `%s/cpu.max`", d->path);
      *sp = '\0';
      sscanf (sp + 1, "%" SCNu64, &period);
    }
  snprintf (quota, sizeof quota, "%s", cur);
  if (c->has_quota && c->quota != 0)
    {
      if (c->quota > 0)
        snprintf (quota, sizeof quota, "%" PRId64, c->quota);
      else
        snprintf (quota, sizeof quota, "max");
    }
  if (c->has_period && c->period != 0)
    period = c->period;
  snprintf (buf, sizeof buf, "%s %" PRIu64, quota, period);
  return set (d, "cpu.max", c->has_quota ? "quota" : "period", buf, err);
}

static int
v2_cpu (struct cg_dir *d, const struct oci_cpu *c, agentrt_error_t *err)
{
  bool burst_later = false;

  if (c->has_realtime_period || c->has_realtime_runtime)
    return agentrt_error (err, 0,
                          "linux.resources.cpu.%s: real-time scheduling "
                          "limits are not supported on cgroup v2",
                          c->has_realtime_runtime ? "realtimeRuntime"
                                                  : "realtimePeriod");
  if (c->has_idle
      && set_s (d, "cpu.idle", "idle", c->idle, err) < 0)
    return -1;
  if (c->has_shares && c->shares != 0
      && set_u (d, "cpu.weight", "shares", cg_shares_to_weight (c->shares), err) < 0)
    return -1;
  if (c->has_burst
      && set_u (d, "cpu.max.burst", "burst", c->burst, err) < 0)
    {
      /* A burst above the current quota is refused until cpu.max grows. */
      if ((*err)->status != EINVAL || !c->has_quota)
        return -1;
      agentrt_error_release (err);
      burst_later = true;
    }
  if (((c->has_quota && c->quota != 0) || (c->has_period && c->period != 0))
      && v2_cpu_max (d, c, err) < 0)
    return -1;
  if (burst_later
      && set_u (d, "cpu.max.burst", "burst", c->burst, err) < 0)
    return -1;
  return 0;
}

static int
apply_cpuset (struct cgroup *cg, const struct oci_cpu *c, agentrt_error_t *err)
{
  const char *values[2] = { c->cpus, c->mems };
  static const char *const files[2] = { "cpuset.cpus", "cpuset.mems" };
  struct cg_dir *d;

  if ((c->cpus == NULL || !*c->cpus) && (c->mems == NULL || !*c->mems))
    return 0;
  d = cg_ctrl_dir (cg, CG_CPUSET, err);
  if (d == NULL)
    {
      if (err && *err)
        return agentrt_error_wrap (err, "linux.resources.cpu");
      return agentrt_error (err, 0, "linux.resources.cpu.%s: the cpuset "
                                    "cgroup controller is not available",
                            c->cpus && *c->cpus ? "cpus" : "mems");
    }
  for (int i = 0; i < 2; i++)
    if (values[i] && *values[i]
        && set (d, files[i], i ? "mems" : "cpus", values[i], err) < 0)
      return -1;
  return 0;
}

int
cg_apply_cpu (struct cg_apply *a, const struct oci_cpu *c, agentrt_error_t *err)
{
  struct cg_dir *d;

  if (c->has_shares || c->has_quota || c->has_period || c->has_burst
      || c->has_idle || c->has_realtime_period || c->has_realtime_runtime)
    {
      d = cg_ctrl_dir (a->cg, CG_CPU, err);
      if (d == NULL && err && *err)
        return agentrt_error_wrap (err, "linux.resources.cpu");
      if (d == NULL)
        return agentrt_error (err, 0, "linux.resources.cpu: the cpu cgroup "
                                      "controller is not available");
      if ((d->v2 ? v2_cpu (d, c, err) : v1_cpu (d, c, err)) < 0)
        return -1;
    }
  return apply_cpuset (a->cg, c, err);
}
