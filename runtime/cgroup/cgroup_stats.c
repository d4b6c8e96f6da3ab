/* Resource usage of a container cgroup in the shape of runc's
 * `events --stats`: cpu, memory, pids, blkio and hugetlb, read from the v1
 * or v2 files of whichever hierarchy carries each controller. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"

/* A file the kernel may lack (no swap accounting, older kernels) reads as
 * zero; other errors are errors. */
static int
opt_u64 (struct cg_dir *d, const char *file, uint64_t *v, agentrt_error_t *err)
{
  *v = 0;
  if (cg_read_u64 (d, file, v, err) == 0)
    return 0;
  if ((*err)->status == ENOENT)
    {
      agentrt_error_release (err);
      return 0;
    }
  return -1;
}

static int
opt_text (struct cg_dir *d, const char *file, char **text, agentrt_error_t *err)
{
  *text = NULL;
  if (cg_read (d, file, text, err) == 0)
    return 0;
  if ((*err)->status == ENOENT)
    {
      agentrt_error_release (err);
      *text = xstrdup ("");
      return 0;
    }
  return -1;
}

static int
cpu_v1 (struct cgroup_stats *st, struct cg_dir *d, agentrt_error_t *err)
{
  cleanup_free char *percpu = NULL, *stat = NULL;
  long hz = sysconf (_SC_CLK_TCK);
  uint64_t v;

  if (opt_u64 (d, "cpuacct.usage", &st->cpu.total_ns, err) < 0
      || opt_text (d, "cpuacct.usage_percpu", &percpu, err) < 0
      || opt_text (d, "cpuacct.stat", &stat, err) < 0)
    return -1;
  for (char *p = percpu, *end; *p; p = end)
    {
      v = strtoull (p, &end, 10);
      if (end == p)
        break;
      st->cpu.percpu_ns = xreallocarray (st->cpu.percpu_ns, st->cpu.n_percpu + 1,
                                         sizeof *st->cpu.percpu_ns);
      st->cpu.percpu_ns[st->cpu.n_percpu++] = v;
    }
  if (hz <= 0)
    hz = 100;
  if (cg_kv_find (stat, "user", &v))
    st->cpu.user_ns = v * (1000000000ull / (uint64_t) hz);
  if (cg_kv_find (stat, "system", &v))
    st->cpu.kernel_ns = v * (1000000000ull / (uint64_t) hz);
  return 0;
}

static int
cpu_stat (struct cgroup_stats *st, struct cg_dir *d, agentrt_error_t *err)
{
  cleanup_free char *text = NULL;
  uint64_t v;

  if (opt_text (d, "cpu.stat", &text, err) < 0)
    return -1;
  cg_kv_find (text, "nr_periods", &st->cpu.periods);
  cg_kv_find (text, "nr_throttled", &st->cpu.throttled_periods);
  if (cg_kv_find (text, "throttled_time", &v))
    st->cpu.throttled_time_ns = v;
  if (cg_kv_find (text, "throttled_usec", &v))
    st->cpu.throttled_time_ns = v * 1000;
  if (d->v2)
    {
      if (cg_kv_find (text, "usage_usec", &v))
        st->cpu.total_ns = v * 1000;
      if (cg_kv_find (text, "user_usec", &v))
        st->cpu.user_ns = v * 1000;
      if (cg_kv_find (text, "system_usec", &v))
        st->cpu.kernel_ns = v * 1000;
    }
  return 0;
}

static int
stat_entries (struct cgroup_stats *st, const char *text)
{
  for (const char *line = text; *line;)
    {
      size_t len = strcspn (line, "\n");
      const char *sp = memchr (line, ' ', len);
      if (sp)
        {
          struct cgroup_stat_entry *e;
          st->memory.stat = xreallocarray (st->memory.stat, st->memory.n_stat + 1,
                                           sizeof *st->memory.stat);
          e = &st->memory.stat[st->memory.n_stat++];
          e->key = xstrndup (line, (size_t) (sp - line));
          e->value = strtoull (sp + 1, NULL, 10);
        }
      line += len + (line[len] == '\n');
    }
  return 0;
}

/* v1 memory.<prefix>usage_in_bytes and friends. */
static int
mem_v1 (struct cg_dir *d, const char *prefix, struct cgroup_memory_data *m,
        agentrt_error_t *err)
{
  static const char *const names[]
      = { "usage_in_bytes", "max_usage_in_bytes", "limit_in_bytes", "failcnt" };
  uint64_t *fields[] = { &m->usage, &m->max_usage, &m->limit, &m->failcnt };

  for (size_t i = 0; i < 4; i++)
    {
      char file[64];
      snprintf (file, sizeof file, "memory.%s%s", prefix, names[i]);
      if (opt_u64 (d, file, fields[i], err) < 0)
        return -1;
    }
  return 0;
}

static int
memory (struct cgroup_stats *st, struct cg_dir *d, agentrt_error_t *err)
{
  cleanup_free char *stat = NULL, *events = NULL;
  uint64_t v = 0;

  if (opt_text (d, "memory.stat", &stat, err) < 0)
    return -1;
  stat_entries (st, stat);
  if (!d->v2)
    {
      cg_kv_find (stat, "cache", &st->memory.cache);
      if (opt_u64 (d, "memory.use_hierarchy", &v, err) < 0)
        return -1;
      st->memory.use_hierarchy = v == 1;
      return mem_v1 (d, "", &st->memory.usage, err) < 0
                     || mem_v1 (d, "memsw.", &st->memory.swap, err) < 0
                     || mem_v1 (d, "kmem.", &st->memory.kernel, err) < 0
                     || mem_v1 (d, "kmem.tcp.", &st->memory.kernel_tcp, err) < 0
                 ? -1
                 : 0;
    }
  cg_kv_find (stat, "file", &st->memory.cache);
  st->memory.use_hierarchy = true;
  if (opt_u64 (d, "memory.current", &st->memory.usage.usage, err) < 0
      || opt_u64 (d, "memory.peak", &st->memory.usage.max_usage, err) < 0
      || opt_u64 (d, "memory.max", &st->memory.usage.limit, err) < 0
      || opt_text (d, "memory.events", &events, err) < 0
      || opt_u64 (d, "memory.swap.current", &st->memory.swap.usage, err) < 0
      || opt_u64 (d, "memory.swap.peak", &st->memory.swap.max_usage, err) < 0
      || opt_u64 (d, "memory.swap.max", &st->memory.swap.limit, err) < 0)
    return -1;
  cg_kv_find (events, "max", &st->memory.usage.failcnt);
  /* runc reports swap as memory+swap, the v1 meaning. */
  st->memory.swap.usage += st->memory.usage.usage;
  st->memory.swap.max_usage += st->memory.usage.max_usage;
  if (st->memory.swap.limit != UINT64_MAX && st->memory.usage.limit != UINT64_MAX)
    st->memory.swap.limit += st->memory.usage.limit;
  else
    st->memory.swap.limit = UINT64_MAX;
  return 0;
}

static const char *
blkio_op (const char *s, size_t len)
{
  static const char *const ops[]
      = { "Read", "Write", "Sync", "Async", "Discard", "Total", NULL };
  for (size_t i = 0; ops[i]; i++)
    if (strlen (ops[i]) == len && strncmp (ops[i], s, len) == 0)
      return ops[i];
  return NULL;
}

static void
add_blkio (struct cgroup_blkio_entry **list, size_t *n, uint64_t major,
           uint64_t minor, const char *op, uint64_t value)
{
  *list = xreallocarray (*list, *n + 1, sizeof **list);
  (*list)[(*n)++] = (struct cgroup_blkio_entry){ major, minor, op, value };
}

/* v1 "8:0 Read 4096" lines (the "Total N" summary line is skipped). */
static void
blkio_v1_lines (const char *text, struct cgroup_blkio_entry **list, size_t *n)
{
  for (const char *line = text; *line;)
    {
      size_t len = strcspn (line, "\n");
      unsigned long long major, minor, value;
      char op[16];
      const char *o;

      if (sscanf (line, "%llu:%llu %15s %llu", &major, &minor, op, &value) == 4
          && (o = blkio_op (op, strlen (op))))
        add_blkio (list, n, major, minor, o, value);
      line += len + (line[len] == '\n');
    }
}

static int
blkio_v1 (struct cgroup_stats *st, struct cg_dir *d, agentrt_error_t *err)
{
  /* CFQ's files, else BFQ's, else the throttling layer's (always there). */
  static const char *const prefixes[] = { "blkio.", "blkio.bfq.", "blkio.throttle." };

  for (size_t i = 0; i < 3 && st->blkio.n_service_bytes == 0; i++)
    {
      cleanup_free char *bytes = NULL, *ios = NULL;
      char f1[80], f2[80];
      snprintf (f1, sizeof f1, "%sio_service_bytes_recursive", prefixes[i]);
      snprintf (f2, sizeof f2, "%sio_serviced_recursive", prefixes[i]);
      if (opt_text (d, f1, &bytes, err) < 0 || opt_text (d, f2, &ios, err) < 0)
        return -1;
      free (st->blkio.serviced);
      st->blkio.serviced = NULL;
      st->blkio.n_serviced = 0;
      blkio_v1_lines (bytes, &st->blkio.service_bytes, &st->blkio.n_service_bytes);
      blkio_v1_lines (ios, &st->blkio.serviced, &st->blkio.n_serviced);
    }
  return 0;
}

/* v2 io.stat: "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=5 dios=6". */
static int
io_v2 (struct cgroup_stats *st, struct cg_dir *d, agentrt_error_t *err)
{
  static const struct
  {
    const char *key, *op;
    bool bytes;
  } keys[] = { { "rbytes", "Read", true }, { "wbytes", "Write", true },
               { "dbytes", "Discard", true }, { "rios", "Read", false },
               { "wios", "Write", false }, { "dios", "Discard", false } };
  cleanup_free char *text = NULL;

  if (opt_text (d, "io.stat", &text, err) < 0)
    return -1;
  for (char *save = NULL, *line = strtok_r (text, "\n", &save); line;
       line = strtok_r (NULL, "\n", &save))
    {
      unsigned long long major, minor;
      if (sscanf (line, "%llu:%llu", &major, &minor) != 2)
        continue;
      for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        {
          char needle[16];
          const char *p;
          snprintf (needle, sizeof needle, " %s=", keys[k].key);
          if ((p = strstr (line, needle)) == NULL)
            continue;
          if (keys[k].bytes)
            add_blkio (&st->blkio.service_bytes, &st->blkio.n_service_bytes, major,
                       minor, keys[k].op, strtoull (p + strlen (needle), NULL, 10));
          else
            add_blkio (&st->blkio.serviced, &st->blkio.n_serviced, major, minor,
                       keys[k].op, strtoull (p + strlen (needle), NULL, 10));
        }
    }
  return 0;
}

/* "hugepages-2048kB" -> "2MB", the kernel's hugetlb file naming. */
static bool
page_size_name (const char *dirname, char *out, size_t size)
{
  unsigned long long kb;
  if (sscanf (dirname, "hugepages-%llukB", &kb) != 1 || kb == 0)
    return false;
  if (kb >= 1024 * 1024)
    snprintf (out, size, "%lluGB", kb / (1024 * 1024));
  else if (kb >= 1024)
    snprintf (out, size, "%lluMB", kb / 1024);
  else
    snprintf (out, size, "%lluKB", kb);
  return true;
}

static int
hugetlb_file (struct cg_dir *d, const char *size, const char *suffix,
              uint64_t *v, agentrt_error_t *err)
{
  char file[96];
  snprintf (file, sizeof file, "hugetlb.%s.%s", size, suffix);
  return opt_u64 (d, file, v, err);
}

static int
hugetlb_one (struct cg_dir *d, struct cgroup_hugetlb_stats *h,
             agentrt_error_t *err)
{
  cleanup_free char *events = NULL;
  char file[96];

  if (!d->v2)
    return hugetlb_file (d, h->page_size, "usage_in_bytes", &h->usage, err) < 0
                   || hugetlb_file (d, h->page_size, "max_usage_in_bytes",
                                    &h->max_usage, err) < 0
                   || hugetlb_file (d, h->page_size, "failcnt", &h->failcnt, err) < 0
               ? -1
               : 0;
  snprintf (file, sizeof file, "hugetlb.%s.events", h->page_size);
  if (hugetlb_file (d, h->page_size, "current", &h->usage, err) < 0
      || opt_text (d, file, &events, err) < 0)
    return -1;
  cg_kv_find (events, "max", &h->failcnt);
  return 0;
}

static int
hugetlb (struct cgroup_stats *st, struct cg_dir *d, agentrt_error_t *err)
{
  cleanup_dir DIR *dir = opendir ("/sys/kernel/mm/hugepages");
  struct dirent *de;

  while (dir && (de = readdir (dir)))
    {
      struct cgroup_hugetlb_stats h = { 0 };

      if (!page_size_name (de->d_name, h.page_size, sizeof h.page_size))
        continue;
      if (hugetlb_one (d, &h, err) < 0)
        return -1;
      st->hugetlb = xreallocarray (st->hugetlb, st->n_hugetlb + 1,
                                   sizeof *st->hugetlb);
      st->hugetlb[st->n_hugetlb++] = h;
    }
  return 0;
}

static int
pids (struct cgroup_stats *st, struct cg_dir *d, agentrt_error_t *err)
{
  if (opt_u64 (d, "pids.current", &st->pids.current, err) < 0
      || opt_u64 (d, "pids.max", &st->pids.limit, err) < 0)
    return -1;
  if (st->pids.limit == UINT64_MAX)
    st->pids.limit = 0;
  return 0;
}

/* The directory carrying ctrl; NULL and *ret < 0 when opening failed,
 * NULL alone when the controller is not mounted. */
static struct cg_dir *
with (struct cgroup *cg, enum cg_ctrl ctrl, int *ret, agentrt_error_t *err)
{
  struct cg_dir *d;

  if (*ret < 0)
    return NULL;
  d = cg_ctrl_dir (cg, ctrl, err);
  if (d == NULL && err && *err)
    *ret = -1;
  return d;
}

int
cgroup_stats (struct cgroup *cg, struct cgroup_stats *st, agentrt_error_t *err)
{
  struct cg_dir *d;
  int ret = 0;

  memset (st, 0, sizeof *st);
  if ((d = with (cg, CG_CPUACCT, &ret, err)))
    {
      st->has_cpu = true;
      ret = d->v2 ? cpu_stat (st, d, err) : cpu_v1 (st, d, err);
    }
  if ((d = with (cg, CG_CPU, &ret, err)) && !d->v2)
    ret = cpu_stat (st, d, err);
  if ((d = with (cg, CG_MEMORY, &ret, err)))
    {
      st->has_memory = true;
      ret = memory (st, d, err);
    }
  if ((d = with (cg, CG_PIDS, &ret, err)))
    {
      st->has_pids = true;
      ret = pids (st, d, err);
    }
  if ((d = with (cg, CG_BLKIO, &ret, err)))
    {
      st->has_blkio = true;
      ret = d->v2 ? io_v2 (st, d, err) : blkio_v1 (st, d, err);
    }
  if ((d = with (cg, CG_HUGETLB, &ret, err)))
    ret = hugetlb (st, d, err);
  if (ret < 0)
    cgroup_stats_release (st);
  return ret;
}

void
cgroup_stats_release (struct cgroup_stats *st)
{
  free (st->cpu.percpu_ns);
  for (size_t i = 0; i < st->memory.n_stat; i++)
    free (st->memory.stat[i].key);
  free (st->memory.stat);
  free (st->blkio.service_bytes);
  free (st->blkio.serviced);
  free (st->hugetlb);
  memset (st, 0, sizeof *st);
}
