/* Applying linux.resources: the order of the controllers, and memory, pids
 * and cpu/cpuset on v1 and v2 (blkio, hugetlb and unified are in
 * cgroup_resources_io.c, devices in cgroup_devices.c).  Errors name the
 * OCI field and the file; a setting that cannot be applied is an error. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"

void
cg_warn (struct cg_apply *a, const char *fmt, ...)
{
  char buf[256];
  va_list ap;

  if (a->warnings == NULL)
    return;
  va_start (ap, fmt);
  vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  str_list_append (a->warnings, buf);
}

/* The directory for ctrl, or an error naming the OCI field. */
static struct cg_dir *
need_dir (struct cg_apply *a, enum cg_ctrl ctrl, const char *field,
          agentrt_error_t *err)
{
  struct cg_dir *d = cg_ctrl_dir (a->cg, ctrl, err);

  if (d == NULL && (err == NULL || *err == NULL))
    agentrt_error (err, 0, "%s: the %s cgroup controller is not available",
                   field, cg_ctrl_name (ctrl, false));
  else if (d == NULL)
    agentrt_error_wrap (err, "%s", field);
  return d;
}

static int
set (struct cg_dir *d, const char *file, const char *field, const char *value,
     agentrt_error_t *err)
{
  if (cg_write (d, file, value, err) < 0)
    return agentrt_error_wrap (err, "%s", field);
  return 0;
}

static int
set_i64 (struct cg_dir *d, const char *file, const char *field, int64_t v,
         agentrt_error_t *err)
{
  char buf[32];
  snprintf (buf, sizeof buf, "%" PRId64, v);
  return set (d, file, field, buf, err);
}

/* v2 files take "max" where v1 took -1. */
static void
v2_num (int64_t v, char *buf, size_t size)
{
  if (v == -1)
    snprintf (buf, size, "max");
  else
    snprintf (buf, size, "%" PRId64, v);
}

/* checkBeforeUpdate: refuse a limit below the current usage. */
static int
check_usage (struct cg_dir *d, int64_t limit, agentrt_error_t *err)
{
  uint64_t usage;

  if (limit <= 0)
    return 0;
  if (cg_read_u64 (d, d->v2 ? "memory.current" : "memory.usage_in_bytes",
                   &usage, err) < 0)
    return agentrt_error_wrap (err, "linux.resources.memory.checkBeforeUpdate");
  if (usage > (uint64_t) limit)
    return agentrt_error (err, 0,
                          "linux.resources.memory.limit: %" PRId64
                          " is below the current usage %" PRIu64,
                          limit, usage);
  return 0;
}

static int
v1_memory_limit (struct cg_dir *d, int64_t limit, agentrt_error_t *err)
{
  uint64_t usage = 0, peak = 0;

  if (limit == 0)
    return 0;
  if (set_i64 (d, "memory.limit_in_bytes", "linux.resources.memory.limit",
               limit, err) == 0)
    return 0;
  if ((*err)->status != EBUSY)
    return -1;
  cg_read_u64 (d, "memory.usage_in_bytes", &usage, NULL);
  cg_read_u64 (d, "memory.max_usage_in_bytes", &peak, NULL);
  return agentrt_error_wrap (err, "usage %" PRIu64 ", peak %" PRIu64, usage,
                             peak);
}

static int
v1_swap (struct cg_dir *d, int64_t swap, agentrt_error_t *err)
{
  if (swap == 0)
    return 0;
  if (!cg_has_file (d, "memory.memsw.limit_in_bytes"))
    return agentrt_error (err, 0,
                          "linux.resources.memory.swap: swap accounting is "
                          "disabled (no memory.memsw.limit_in_bytes in `%s`)",
                          d->path);
  return set_i64 (d, "memory.memsw.limit_in_bytes",
                  "linux.resources.memory.swap", swap, err);
}

static int
v1_memory (struct cg_apply *a, struct cg_dir *d, const struct oci_memory *m,
           agentrt_error_t *err)
{
  int64_t limit = m->has_limit ? m->limit : 0, swap = m->has_swap ? m->swap : 0;
  uint64_t cur = 0;

  if (limit == -1 && swap == 0 && cg_has_file (d, "memory.memsw.limit_in_bytes"))
    swap = -1; /* unlimited memory means unlimited memory+swap */
  /* The kernel keeps memsw >= limit at every step: raise memsw first when
   * it grows past the current limit. */
  if (limit != 0 && swap != 0
      && cg_read_u64 (d, "memory.limit_in_bytes", &cur, err) < 0)
    return agentrt_error_wrap (err, "linux.resources.memory");
  if (limit != 0 && swap != 0 && (swap == -1 || cur < (uint64_t) swap))
    {
      if (v1_swap (d, swap, err) < 0 || v1_memory_limit (d, limit, err) < 0)
        return -1;
    }
  else if (v1_memory_limit (d, limit, err) < 0 || v1_swap (d, swap, err) < 0)
    return -1;
  if (m->has_reservation
      && set_i64 (d, "memory.soft_limit_in_bytes",
                  "linux.resources.memory.reservation", m->reservation, err) < 0)
    return -1;
  if (m->has_disable_oom_killer && (m->disable_oom_killer || a->update)
      && set (d, "memory.oom_control", "linux.resources.memory.disableOOMKiller",
              m->disable_oom_killer ? "1" : "0", err) < 0)
    return -1;
  if (m->has_swappiness && m->swappiness != UINT64_MAX)
    {
      if (m->swappiness > 100)
        return agentrt_error (err, 0,
                              "linux.resources.memory.swappiness: %" PRIu64
                              " is not in 0-100",
                              m->swappiness);
      if (set_i64 (d, "memory.swappiness", "linux.resources.memory.swappiness",
                   (int64_t) m->swappiness, err) < 0)
        return -1;
    }
  return 0;
}

/* No swap device at all: a swap limit of 0 holds without the file. */
static bool
no_swap_configured (void)
{
  cleanup_close int fd = open ("/proc/swaps", O_RDONLY | O_CLOEXEC);
  char buf[256];
  ssize_t n = fd < 0 ? -1 : read (fd, buf, sizeof buf - 1);

  if (n < 0)
    return false;
  buf[n] = '\0';
  return strchr (buf, '\n') == NULL || strchr (buf, '\n')[1] == '\0';
}

/* memory.swap.max = swap - limit (OCI's swap is memory+swap), as runc. */
static int
v2_swap (struct cg_dir *d, int64_t limit, int64_t swap, agentrt_error_t *err)
{
  char buf[32];
  int64_t v;

  if (limit == -1 && swap == 0)
    v = -1;
  else if (swap == -1 || swap == 0 || limit == -1)
    v = swap;
  else if (limit == 0)
    return agentrt_error (err, 0, "linux.resources.memory.swap: a swap limit "
                                  "needs a memory limit");
  else if (limit < 0 || swap < limit)
    return agentrt_error (err, 0,
                          "linux.resources.memory.swap: %" PRId64
                          " is below the memory limit %" PRId64,
                          swap, limit);
  else
    v = swap - limit;
  if (v == 0 && swap <= 0)
    return 0;
  v2_num (v, buf, sizeof buf);
  if (!cg_has_file (d, "memory.swap.max")
      && (v == -1 || (v == 0 && no_swap_configured ())))
    return 0; /* no swap accounting: "max" is moot, and so is 0 without swap */
  return set (d, "memory.swap.max", "linux.resources.memory.swap", buf, err);
}

static int
v2_memory (struct cg_apply *a, struct cg_dir *d, const struct oci_memory *m,
           agentrt_error_t *err)
{
  int64_t limit = m->has_limit ? m->limit : 0;
  char buf[32];

  if (v2_swap (d, limit, m->has_swap ? m->swap : 0, err) < 0)
    return -1;
  if (limit != 0)
    {
      v2_num (limit, buf, sizeof buf);
      if (set (d, "memory.max", "linux.resources.memory.limit", buf, err) < 0)
        return -1;
    }
  if (m->has_reservation && m->reservation != 0)
    {
      v2_num (m->reservation, buf, sizeof buf);
      if (set (d, "memory.low", "linux.resources.memory.reservation", buf, err)
          < 0)
        return -1;
    }
  if (m->has_swappiness && m->swappiness != UINT64_MAX)
    cg_warn (a, "linux.resources.memory.swappiness is ignored on cgroup v2");
  if (m->has_disable_oom_killer && m->disable_oom_killer)
    cg_warn (a, "linux.resources.memory.disableOOMKiller is ignored on "
                "cgroup v2");
  return 0;
}

int
cg_apply_memory (struct cg_apply *a, const struct oci_memory *m,
                 agentrt_error_t *err)
{
  struct cg_dir *d;

  if (m->has_kernel)
    cg_warn (a, "linux.resources.memory.kernel is ignored (deprecated)");
  if (m->has_kernel_tcp)
    cg_warn (a, "linux.resources.memory.kernelTCP is ignored (deprecated)");
  if (m->has_use_hierarchy && !m->use_hierarchy)
    cg_warn (a, "linux.resources.memory.useHierarchy=false is ignored");
  if (!m->has_limit && !m->has_swap && !m->has_reservation
      && !m->has_swappiness && !m->has_disable_oom_killer)
    return 0;
  d = need_dir (a, CG_MEMORY, "linux.resources.memory", err);
  if (d == NULL)
    return -1;
  if (a->update && m->has_check_before_update && m->check_before_update
      && m->has_limit && check_usage (d, m->limit, err) < 0)
    return -1;
  return d->v2 ? v2_memory (a, d, m, err) : v1_memory (a, d, m, err);
}

static int
apply_pids (struct cg_apply *a, const struct oci_pids *p, agentrt_error_t *err)
{
  struct cg_dir *d;
  char buf[32];

  if (!p->has_limit)
    return 0;
  d = need_dir (a, CG_PIDS, "linux.resources.pids", err);
  if (d == NULL)
    return -1;
  /* 0 becomes 1 as in runc (systemd refuses TasksMax=0; the init itself
   * is the one task either way); negative is unlimited. */
  if (p->limit < 0)
    snprintf (buf, sizeof buf, "max");
  else
    snprintf (buf, sizeof buf, "%" PRId64, p->limit ? p->limit : 1);
  return set (d, "pids.max", "linux.resources.pids.limit", buf, err);
}

unsigned
cg_resources_needed (const struct oci_resources *r)
{
  unsigned m = 0;

  if (r == NULL)
    return 0;
  if (r->memory)
    m |= 1u << CG_MEMORY;
  if (r->pids && r->pids->has_limit)
    m |= 1u << CG_PIDS;
  if (r->cpu && (r->cpu->has_shares || r->cpu->has_quota || r->cpu->has_period
                 || r->cpu->has_burst || r->cpu->has_idle
                 || r->cpu->has_realtime_period || r->cpu->has_realtime_runtime))
    m |= 1u << CG_CPU;
  if (r->cpu && (r->cpu->cpus || r->cpu->mems))
    m |= 1u << CG_CPUSET;
  if (r->blkio)
    m |= 1u << CG_BLKIO;
  if (r->n_hugepage_limits)
    m |= 1u << CG_HUGETLB;
  if (r->network && r->network->has_class_id)
    m |= 1u << CG_NET_CLS;
  if (r->network && r->network->n_priorities)
    m |= 1u << CG_NET_PRIO;
  if (r->n_rdma)
    m |= 1u << CG_RDMA;
  for (size_t i = 0; i < r->unified.len; i++)
    {
      const char *k = r->unified.items[i].key;
      int c = cg_ctrl_from_name (k, strcspn (k, "."), true);
      if (c >= 0)
        m |= 1u << c;
    }
  return m;
}

int
cg_apply_resources (struct cg_apply *a, const struct oci_resources *r,
                    agentrt_error_t *err)
{
  if (r == NULL)
    return 0;
  if (r->cpu && cg_apply_cpu (a, r->cpu, err) < 0)
    return -1;
  if (r->memory && cg_apply_memory (a, r->memory, err) < 0)
    return -1;
  if (r->pids && apply_pids (a, r->pids, err) < 0)
    return -1;
  if (r->blkio && cg_apply_blkio (a, r->blkio, err) < 0)
    return -1;
  if (r->n_hugepage_limits && cg_apply_hugetlb (a, r, err) < 0)
    return -1;
  if (r->network && cg_apply_network (a, r->network, err) < 0)
    return -1;
  if (r->n_rdma && cg_apply_rdma (a, r, err) < 0)
    return -1;
  /* Last, so that its values win, as in runc. */
  return cg_apply_unified (a, &r->unified, err);
}
